/* term.h - the one module that talks to the terminal (ncursesw).
 *
 * term_init sets up curses, colours (truecolor → 256 → 8 → none; NO_COLOR
 * or a terminal without colours gives none), mouse and signal handling;
 * term_show draws a canvas; term_end restores the terminal, and so does
 * every fatal path: SIGINT, SIGTERM, SIGHUP, SIGQUIT, a crash (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT: restored, then the previous handler,
 * e.g. a sanitizer's, reports it) and term_fatal.  Ctrl-Z (SIGTSTP) and fg
 * (SIGCONT) are ncurses': the terminal is given back while stopped and the
 * screen redrawn on return (tests/hygiene.test).  Bracketed paste is on
 * while the terminal is ours (ESC[?2004h; off again wherever it is given
 * back), so that a paste arrives between TK_PASTE_BEGIN and TK_PASTE_END. */
#ifndef ATTNSCOPE_TERM_H
#define ATTNSCOPE_TERM_H

#include "views/canvas.h"

/* Keys besides plain characters (values from curses where they exist). */
enum {
	TK_NONE = -1,
	TK_RESIZE = 0x1000,
	TK_MOUSE,      /* a click: see term_mouse */
	TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT,
	TK_SUP, TK_SDOWN, TK_SLEFT, TK_SRIGHT,   /* with shift */
	TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_ENTER, TK_BACKSPACE, TK_DELETE, TK_ESC, TK_TAB, TK_BTAB,
	TK_F1,
	TK_PASTE_BEGIN, TK_PASTE_END,   /* bracketed paste: what comes between
					   is pasted text, not keys */
};

/* Returns 0, or -1 with a message in e (TERM unknown, not a tty). */
struct err;
int term_init(struct err *e);
void term_end(void);
int term_active(void);

/* The colour depth chosen at init. */
enum depth term_depth(void);
/* Current size. */
void term_size(int *w, int *h);
/* Shows the canvas (only what changed reaches the terminal). */
void term_show(const struct canvas *c);

/* Next key or TK_NONE after timeout_ms (−1: wait).  Text input is
 * delivered as UTF-8 bytes in *utf8 (NUL-terminated) with key = 0. */
int term_key(int timeout_ms, char utf8[8]);
/* Position of the last TK_MOUSE click. */
void term_mouse(int *x, int *y);

/* Restores the terminal, prints "attnscope: msg" and exits 1. */
void term_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
