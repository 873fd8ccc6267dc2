/* draw.h - drawing pieces the views share: glyphs and text clipped to a
 * view's rectangle (views draw only inside the rectangle they are given;
 * these wrappers of canvas_put / canvas_text drop what falls outside it),
 * bars, numbers, and scrolling that keeps a cursor in sight. */
#ifndef ATTNSCOPE_DRAW_H
#define ATTNSCOPE_DRAW_H

#include <stddef.h>

#include "canvas.h"
#include "palette.h"

static inline int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Whether (x, y) lies in r. */
int rect_has(struct rect r, int x, int y);
/* The part of the rectangle (x, y, w, h) that lies in r (w or h 0 when
 * none does). */
struct rect rect_sub(struct rect r, int x, int y, int w, int h);

/* One glyph at (x, y) when it lies in r; with colours, or with a style. */
void clip_put(struct canvas *c, struct rect r, int x, int y, const char *g,
	      uint32_t fg, uint32_t bg, uint8_t attr);
void clip_puts(struct canvas *c, struct rect r, int x, int y, const char *g,
	       const struct style *st);
/* Text from (x, y), at most maxw columns and never past r.  Returns the
 * columns used. */
int clip_text(struct canvas *c, struct rect r, int x, int y, int maxw,
	      const char *s, const struct style *st);
/* s right-aligned in a field of w columns at x. */
void clip_rtext(struct canvas *c, struct rect r, int x, int y, int w,
		const char *s, const struct style *st);

/* A horizontal bar of frac (0…1) of w columns, drawn in eighths of a
 * column; a positive fraction too small to see gets a hairline. */
void draw_bar(struct canvas *c, struct rect r, int x, int y, int w,
	      double frac, uint32_t fg, uint32_t bg, uint8_t attr);
/* x with prec decimals and a true minus sign ("−4.72"; never "−0.00"). */
const char *fmt_num(char *buf, size_t n, double x, int prec);
/* A probability as a percentage: "42.1%", "<0.1%", "0%". */
void fmt_pct(char *buf, size_t n, double p);

/* Scrolls a window of vis items (first index *first) so that cur is in
 * it, within 0 … total − vis. */
void view_follow(int *first, int cur, int vis, int total);

#endif
