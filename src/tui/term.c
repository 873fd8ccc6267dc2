/* term.c - ncursesw backend: init/teardown, colours, keys, mouse, signals. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "term.h"
#include "base/err.h"
#include "base/safetext.h"

static volatile sig_atomic_t active;
static enum depth depth;
static int mouse_x, mouse_y;

/* Signals after which the terminal must be given back: the ones that end
 * the program on request, and crashes.  SIGTSTP/SIGCONT (Ctrl-Z, fg) and
 * SIGWINCH are ncurses' own. */
static const int END_SIGNALS[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int CRASH_SIGNALS[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIGS (sizeof END_SIGNALS / sizeof *END_SIGNALS + \
	       sizeof CRASH_SIGNALS / sizeof *CRASH_SIGNALS)
static struct { int sig; struct sigaction old; } saved[NSIGS];

/* Restores the terminal, puts back the handler that was there before
 * (the default one, or a sanitizer's) and lets it act: a signal sent to
 * the program is raised again; a fault (SIGSEGV from a bad access)
 * recurs when the instruction is retried on return.  endwin is not
 * async-signal-safe, but the program is ending: a clean terminal is worth
 * that (htop does the same). */
static const char PASTE_ON[] = "\033[?2004h", PASTE_OFF[] = "\033[?2004l";
/* ncurses key codes for the paste brackets (define_key: past KEY_MAX) */
enum { KEY_PASTE_BEGIN = KEY_MAX + 1, KEY_PASTE_END };

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (active) {
		active = 0;
		endwin();
		if (write(STDOUT_FILENO, PASTE_OFF, sizeof PASTE_OFF - 1) < 0)
			(void)0;   /* nothing more to do while dying */
	}
	for (size_t i = 0; i < NSIGS; i++)
		if (saved[i].sig == sig)
			sigaction(sig, &saved[i].old, NULL);
	if (si && si->si_code > 0 && sig != SIGINT && sig != SIGTERM &&
	    sig != SIGHUP && sig != SIGQUIT && sig != SIGABRT)
		return;   /* a real fault: retried, it reaches the old handler */
	raise(sig);
}

/* Ctrl-Z: ncurses' own handler gives the terminal back and stops the
 * program; bracketed paste goes off around it (the shell gets the terminal
 * as it was) and on again after fg. */
static struct sigaction tstp_old;

static void on_tstp(int sig)
{
	if (write(STDOUT_FILENO, PASTE_OFF, sizeof PASTE_OFF - 1) < 0)
		(void)0;
	if (!(tstp_old.sa_flags & SA_SIGINFO) && tstp_old.sa_handler != SIG_DFL &&
	    tstp_old.sa_handler != SIG_IGN)
		tstp_old.sa_handler(sig);   /* returns after SIGCONT */
	else
		raise(SIGSTOP);
	if (active && write(STDOUT_FILENO, PASTE_ON, sizeof PASTE_ON - 1) < 0)
		(void)0;
}

static void catch_tstp(void)
{
	struct sigaction sa;
	if (sigaction(SIGTSTP, NULL, &tstp_old) || tstp_old.sa_handler == SIG_IGN)
		return;   /* a shell without job control: nothing stops us */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tstp;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
}

static void catch_signals(void)
{
	size_t k = 0;
	for (size_t i = 0; i < NSIGS; i++) {
		int sig = i < sizeof END_SIGNALS / sizeof *END_SIGNALS ? END_SIGNALS[i] :
			  CRASH_SIGNALS[i - sizeof END_SIGNALS / sizeof *END_SIGNALS];
		struct sigaction sa, old;
		if (sigaction(sig, NULL, &old) || old.sa_handler == SIG_IGN)
			continue;   /* ignored (nohup, a background job): leave it so */
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof END_SIGNALS / sizeof *END_SIGNALS; j++)
			sigaddset(&sa.sa_mask, END_SIGNALS[j]);
		if (sigaction(sig, &sa, NULL) == 0) {
			saved[k].sig = sig;
			saved[k++].old = old;
		}
	}
}

static enum depth pick_depth(void)
{
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || !has_colors())
		return DEPTH_NONE;
	if (start_color() == ERR)
		return DEPTH_NONE;
	use_default_colors();
	if (COLORS >= 0x1000000)
		return DEPTH_TRUE;     /* a direct-colour terminfo (e.g. xterm-direct) */
	if (COLORS >= 256)
		return DEPTH_256;
	if (COLORS >= 8)
		return DEPTH_8;
	return DEPTH_NONE;
}

int term_init(struct err *e)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(e, "not a terminal: use `attnscope render` or `attnscope dump` "
			       "for output to a file or pipe");
	const char *term = getenv("TERM");
	if (!term || !*term)
		return err_set(e, "TERM is unset: the stepper needs a real terminal "
			       "(try TERM=xterm-256color), or use `attnscope render`");
	if (strcmp(term, "dumb") == 0)
		return err_set(e, "TERM is %s: the stepper needs a real terminal "
			       "(try TERM=xterm-256color), or use `attnscope render`", term);
	/* wide characters need a UTF-8 locale (i18n_init set the rest); a
	 * terminal whose locale is not UTF-8 (LANG=C) gets ASCII only */
	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
		canvas_set_ascii(1);
		setlocale(LC_CTYPE, "C.UTF-8");
	}
	SCREEN *s = newterm(NULL, stdout, stdin);
	if (!s)
		return err_set(e, "cannot open the terminal (TERM=%s unknown?)", term);
	set_term(s);
	active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	define_key("\033[200~", KEY_PASTE_BEGIN);
	define_key("\033[201~", KEY_PASTE_END);
	fputs(PASTE_ON, stdout);
	fflush(stdout);
	catch_tstp();
	depth = pick_depth();
	catch_signals();
	return 0;
}

void term_end(void)
{
	if (active) {
		curs_set(1);
		endwin();
		fputs(PASTE_OFF, stdout);
		fflush(stdout);
		if (tstp_old.sa_handler != SIG_IGN)
			sigaction(SIGTSTP, &tstp_old, NULL);
	}
	active = 0;
}

int term_active(void)
{
	return active;
}

enum depth term_depth(void)
{
	return depth;
}

void term_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

void term_show(const struct canvas *c)
{
	int w, h;
	term_size(&w, &h);
	for (int y = 0; y < c->h && y < h; y++) {
		for (int x = 0; x < c->w && x < w; x++) {
			const struct cell *p = &c->cells[(size_t)y * c->w + x];
			if (!p->glyph[0])
				continue;   /* right half of a wide glyph */
			wchar_t wc[4] = { 0 };
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t n = mbrtowc(wc, p->glyph, strlen(p->glyph), &st);
			if (n == (size_t)-1 || n == (size_t)-2)
				wc[0] = L'?';
			/* a combining mark may follow the base character */
			size_t used = n == (size_t)-1 || n == (size_t)-2 || n == 0 ? strlen(p->glyph) : n;
			if (used < strlen(p->glyph)) {
				n = mbrtowc(wc + 1, p->glyph + used, strlen(p->glyph) - used, &st);
				if (n == (size_t)-1 || n == (size_t)-2)
					wc[1] = 0;
			}
			attr_t a = A_NORMAL;
			if (p->attr & ATTR_BOLD) a |= A_BOLD;
			if (p->attr & ATTR_DIM) a |= A_DIM;
			if (p->attr & ATTR_REVERSE) a |= A_REVERSE;
			if (p->attr & ATTR_UNDERLINE) a |= A_UNDERLINE;
			int pair = 0;
			if (depth != DEPTH_NONE) {
				int fi, bi;
				color_pair_at(depth, p->glyph, p->fg, p->bg, &fi, &bi);
				pair = alloc_pair(fi, bi);
				if (pair < 0)
					pair = 0;
			}
			cchar_t cc;
			setcchar(&cc, wc, a, (short)(pair < 32767 ? pair : 0), &pair);
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

void term_mouse(int *x, int *y)
{
	*x = mouse_x;
	*y = mouse_y;
}

/* The rest of a UTF-8 character whose lead byte c0 was read: its
 * continuation bytes, each waited for briefly.  Anything invalid gives
 * U+FFFD at once, and a byte that does not continue the character is
 * pushed back to be read as the next key.  (ncurses' get_wch instead keeps
 * reading after an invalid byte until its buffer fills: one stray byte ate
 * the next ~144 keys, found by tests/keystorm.test.) */
static void read_utf8(int c0, char utf8[8])
{
	static const char FFFD[] = "\xEF\xBF\xBD";
	int need = c0 >= 0xC2 && c0 <= 0xDF ? 1 : c0 >= 0xE0 && c0 <= 0xEF ? 2 :
		   c0 >= 0xF0 && c0 <= 0xF4 ? 3 : -1;
	uint32_t cp = need == 1 ? c0 & 0x1Fu : need == 2 ? c0 & 0x0Fu : c0 & 0x07u;
	int n = 1;
	utf8[0] = (char)c0;
	for (int i = 0; i < need; i++) {
		timeout(50);
		int c = getch();
		if (c == ERR || (c & ~0xFF) || (c & 0xC0) != 0x80) {
			if (c != ERR)
				ungetch(c);
			need = -1;
			break;
		}
		utf8[n++] = (char)c;
		cp = cp << 6 | ((unsigned)c & 0x3Fu);
	}
	if (need < 0 || (need == 2 && cp < 0x800) || (cp >= 0xD800 && cp <= 0xDFFF) ||
	    (need == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
		memcpy(utf8, FFFD, sizeof FFFD);
		return;
	}
	utf8[n] = 0;
}

int term_key(int timeout_ms, char utf8[8])
{
	utf8[0] = 0;
	timeout(timeout_ms);
	int ch = getch();   /* bytes, or KEY_ codes: UTF-8 is assembled below */
	if (ch == ERR)
		return TK_NONE;
	if (ch >= KEY_MIN) {
		switch (ch) {
		case KEY_RESIZE: return TK_RESIZE;
		case KEY_UP: return TK_UP;
		case KEY_DOWN: return TK_DOWN;
		case KEY_LEFT: return TK_LEFT;
		case KEY_RIGHT: return TK_RIGHT;
		case KEY_SR: return TK_SUP;
		case KEY_SF: return TK_SDOWN;
		case KEY_SLEFT: return TK_SLEFT;
		case KEY_SRIGHT: return TK_SRIGHT;
		case KEY_PPAGE: return TK_PGUP;
		case KEY_NPAGE: return TK_PGDN;
		case KEY_HOME: return TK_HOME;
		case KEY_END: return TK_END;
		case KEY_ENTER: return TK_ENTER;
		case KEY_BACKSPACE: return TK_BACKSPACE;
		case KEY_DC: return TK_DELETE;
		case KEY_BTAB: return TK_BTAB;
		case KEY_F(1): return TK_F1;
		case KEY_PASTE_BEGIN: return TK_PASTE_BEGIN;
		case KEY_PASTE_END: return TK_PASTE_END;
		case KEY_MOUSE: {
			MEVENT ev;
			if (getmouse(&ev) == OK &&
			    (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))) {
				mouse_x = ev.x;
				mouse_y = ev.y;
				return TK_MOUSE;
			}
			return TK_NONE;
		}
		default:
			return TK_NONE;
		}
	}
	switch (ch) {
	case '\r': case '\n': return TK_ENTER;
	case 127: case 8: return TK_BACKSPACE;
	case 27: return TK_ESC;
	case '\t': return TK_TAB;
	}
	if (ch < 32)
		return ch;   /* other control keys: Ctrl-letter */
	if (ch < 128) {
		utf8[0] = (char)ch;
		utf8[1] = 0;
		return ch;
	}
	read_utf8(ch, utf8);   /* a character: hand over its UTF-8 */
	return 0;
}

void term_fatal(const char *fmt, ...)
{
	va_list ap;
	term_end();
	fputs("attnscope: ", stderr);
	va_start(ap, fmt);
	safetext_vfprintf(stderr, 0, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
