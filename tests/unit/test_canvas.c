/* test_canvas.c - the canvas's fast paths against plain cell-by-cell
 * references: canvas_clear and canvas_resize (cells reused when the size
 * fits), canvas_fill (one cell copied over the clipped rectangle),
 * canvas_text and text_fit (a run of printable ASCII placed at once), and
 * lineedit_set on its own text.  Random strings mix printable ASCII,
 * accented and wide letters, combining marks and control bytes; positions
 * start left of, inside and right of the canvas. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "tui/lineedit.h"
#include "tui/term.h"
#include "views/canvas.h"

static uint32_t rng = 12345;

static unsigned rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static int same_cell(const struct cell *a, const struct cell *b)
{
	return strcmp(a->glyph, b->glyph) == 0 && a->fg == b->fg && a->bg == b->bg &&
	       a->attr == b->attr;
}

/* Index of the first cell that differs, or -1. */
static int diff(const struct canvas *a, const struct canvas *b)
{
	if (a->w != b->w || a->h != b->h)
		return 0;
	for (int i = 0; i < a->w * a->h; i++)
		if (!same_cell(&a->cells[i], &b->cells[i]))
			return i;
	return -1;
}

/* Every cell with a marker, so that a cell drawn by mistake shows. */
static void mark(struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++) {
		struct cell *x = &c->cells[i];
		memset(x, 0, sizeof *x);
		x->glyph[0] = '#';
		x->fg = 7;
		x->bg = 9;
		x->attr = 0;
	}
}

static int blank(const struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++) {
		const struct cell *x = &c->cells[i];
		if (strcmp(x->glyph, " ") || x->fg != COLOR_DEFAULT || x->bg != COLOR_DEFAULT ||
		    x->attr)
			return 0;
	}
	return 1;
}

static void clear_and_resize(void)
{
	struct canvas *c = canvas_new(3, 2, DEPTH_256);
	static const int sizes[][2] = { { 80, 24 }, { 255, 127 }, { 1, 1 }, { 7, 300 },
					{ 300, 7 }, { 80, 24 }, { 0, -5 } };
	int bad = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		mark(c);
		canvas_resize(c, sizes[k][0], sizes[k][1]);
		int w = sizes[k][0] < 1 ? 1 : sizes[k][0], h = sizes[k][1] < 1 ? 1 : sizes[k][1];
		if (c->w != w || c->h != h || !blank(c) || c->cap < (size_t)w * h) {
			printf("# resize to %d x %d: %d x %d, cap %zu, blank %d\n", sizes[k][0],
			       sizes[k][1], c->w, c->h, c->cap, blank(c));
			bad++;
		}
		mark(c);
		canvas_clear(c);
		bad += !blank(c);
	}
	tap_ok(bad == 0, "canvas_resize and canvas_clear leave every cell blank at 7 sizes, "
	       "growing and shrinking");
	canvas_free(c);
}

static void fill(void)
{
	static const char *const glyphs[] = { " ", "x", "█", "\x1b", "é", "" };
	struct canvas *a = canvas_new(20, 9, DEPTH_256), *b = canvas_new(20, 9, DEPTH_256);
	int bad = 0;
	for (int k = 0; k < 400; k++) {
		struct rect r = { (int)rnd(30) - 5, (int)rnd(16) - 4, (int)rnd(30) - 3,
				  (int)rnd(14) - 2 };
		if (k == 0)
			r = (struct rect){ -2147483647, -2147483647, 2147483647, 2147483647 };
		const char *g = glyphs[rnd(6)];
		uint32_t fg = rnd(256), bg = rnd(256);
		uint8_t attr = (uint8_t)rnd(16);
		mark(a);
		mark(b);
		canvas_fill(a, r, g, fg, bg, attr);
		/* the reference: every cell of the rectangle put by itself */
		for (int y = 0; y < b->h; y++)
			for (int x = 0; x < b->w; x++)
				if (x >= r.x && (long long)x < (long long)r.x + r.w &&
				    y >= r.y && (long long)y < (long long)r.y + r.h)
					canvas_put(b, x, y, g, fg, bg, attr);
		int d = diff(a, b);
		if (d >= 0 && bad++ < 3)
			printf("# fill {%d %d %d %d} \"%s\": cell %d differs\n", r.x, r.y, r.w,
			       r.h, g, d);
	}
	tap_ok(bad == 0, "canvas_fill equals canvas_put on each cell of the clipped "
	       "rectangle (400 rectangles, %d differ)", bad);
	canvas_free(a);
	canvas_free(b);
}

/* A random string: runs of printable ASCII with other pieces between. */
static void random_text(char *s, size_t cap, int ascii_only)
{
	static const char *const other[] = { "é", "漢", "\xcc\x81", "\x1b", "\t", "\x7f",
					     "\xc2\x9b", "\xff", "\xe2\x80\xae", "…" };
	size_t n = 0;
	int pieces = (int)rnd(6);
	for (int p = 0; p < pieces; p++) {
		int run = (int)rnd(12);
		for (int i = 0; i < run && n + 1 < cap; i++)
			s[n++] = (char)(0x20 + rnd(95));
		if (!ascii_only) {
			const char *o = other[rnd(10)];
			size_t ol = strlen(o);
			if (n + ol < cap) {
				memcpy(s + n, o, ol);
				n += ol;
			}
		}
	}
	s[n] = 0;
}

static void text(void)
{
	struct canvas *a = canvas_new(16, 3, DEPTH_256), *b = canvas_new(16, 3, DEPTH_256);
	int bad_ascii = 0, bad_mixed = 0;
	for (int k = 0; k < 2000; k++) {
		char s[128];
		int ascii = k < 1000;
		random_text(s, sizeof s, ascii);
		int x = (int)rnd(28) - 6, y = (int)rnd(5) - 1, maxw = (int)rnd(24) - 2;
		uint32_t fg = rnd(256), bg = rnd(256);
		uint8_t attr = (uint8_t)rnd(16);
		mark(a);
		mark(b);
		int used = canvas_text(a, x, y, maxw, s, fg, bg, attr);
		int want = 0;
		if (ascii) {
			/* the reference: byte i in column x + i, up to maxw of them */
			int len = (int)strlen(s);
			want = y < 0 || y >= b->h || maxw <= 0 ? 0 : len < maxw ? len : maxw;
			for (int i = 0; i < want; i++)
				if (x + i >= 0 && x + i < b->w) {
					struct cell *cl = &b->cells[y * b->w + x + i];
					memset(cl, 0, sizeof *cl);
					cl->glyph[0] = s[i];
					cl->fg = fg;
					cl->bg = bg;
					cl->attr = attr;
				}
		} else {
			/* the reference: one code point (or escape) at a time */
			const char *p = s;
			while (*p && want < maxw) {
				char one[8];
				int n = 1;
				while ((p[n] & 0xC0) == 0x80 && n < 4)
					n++;
				memcpy(one, p, (size_t)n);
				one[n] = 0;
				int w = canvas_text(b, x + want, y, maxw - want, one, fg, bg, attr);
				/* 0 columns: a combining mark (joins the cell before
				   it), or a wide letter that does not fit */
				if (w == 0 && strcmp(one, "\xcc\x81") != 0)
					break;
				want += w;
				p += n;
			}
		}
		int d = diff(a, b);
		if (d >= 0 || used != want) {
			int *bad = ascii ? &bad_ascii : &bad_mixed;
			if ((*bad)++ < 3)
				printf("# \"%s\" at %d,%d maxw %d: used %d (want %d), cell %d "
				       "differs\n", s, x, y, maxw, used, want, d);
		}
	}
	tap_ok(bad_ascii == 0, "canvas_text of printable ASCII: byte i in column x + i, "
	       "clipped, at most maxw (1000 strings, %d differ)", bad_ascii);
	tap_ok(bad_mixed == 0, "canvas_text of mixed text equals drawing it a character at "
	       "a time (1000 strings, %d differ)", bad_mixed);
	canvas_free(a);
	canvas_free(b);
}

static void fit(void)
{
	int bad = 0;
	for (int k = 0; k < 3000; k++) {
		char s[128], got[64], want[64];
		random_text(s, sizeof s, 1);
		int maxw = (int)rnd(40) - 2;
		size_t cap = 8 + rnd(50);
		text_fit(s, maxw, got, cap);
		/* the reference: the loop text_fit runs for any text, one column a
		   byte for printable ASCII */
		size_t len = strlen(s), out = 0;
		if (maxw <= 0) {
			want[0] = 0;
		} else {
			int limit = (int)len > maxw ? maxw - 1 : maxw;
			for (size_t i = 0; i < len; i++) {
				if ((int)out + 1 > limit || out + 1 + 4 >= cap)
					break;
				want[out++] = s[i];
			}
			if ((int)len > maxw) {
				memcpy(want + out, "…", 3);
				out += 3;
			}
			want[out] = 0;
		}
		if (strcmp(got, want) && bad++ < 3)
			printf("# text_fit(\"%s\", %d, %zu) = \"%s\", want \"%s\"\n", s, maxw, cap,
			       got, want);
	}
	tap_ok(bad == 0, "text_fit of printable ASCII equals the character loop, cut with "
	       "… (3000 strings and buffer sizes, %d differ)", bad);
}

static void edit_itself(void)
{
	struct lineedit le = { 0 };
	lineedit_set(&le, "your cat is a lovely cat");
	lineedit_set(&le, le.text);
	tap_str(le.text, "your cat is a lovely cat", "lineedit_set on its own text keeps it");
	tap_ok(le.cur == 24, "... with the cursor at the end (%d)", le.cur);
	lineedit_set(&le, le.text + 5);
	tap_str(le.text, "cat is a lovely cat", "lineedit_set on a tail of its own text");
	/* no cap near the old 1,023 bytes: a 200 KB text is kept whole, and
	 * typing at its end goes on */
	size_t nbig = 200000;
	char *big = malloc(nbig + 1);
	memset(big, 'a', nbig);
	big[nbig] = 0;
	lineedit_set(&le, big);
	tap_ok(strlen(le.text) == nbig && le.cur == (int)nbig && le.len == nbig,
	       "a 200 KB text is kept whole (%zu bytes)", strlen(le.text));
	int full = 0;
	for (int i = 0; i < 100000; i++)
		full |= lineedit_key(&le, 0, "b") == LE_FULL;
	tap_ok(!full && le.len == nbig + 100000 && strlen(le.text) == le.len &&
	       le.text[le.len - 1] == 'b', "100,000 more bytes typed at its end (%zu bytes)", le.len);
	lineedit_key(&le, TK_BACKSPACE, "");
	tap_ok(le.len == nbig + 99999 && strlen(le.text) == le.len, "Backspace keeps the length");
	free(big);
	lineedit_set(&le, NULL);
	tap_ok(le.text[0] == 0 && le.cur == 0, "NULL starts an empty edit");
	lineedit_free(&le);
}

int main(void)
{
	clear_and_resize();
	fill();
	text();
	fit();
	edit_itself();
	return tap_done();
}
