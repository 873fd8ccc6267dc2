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

/* The roles most views draw with, at one depth. */
struct roles {
	struct style hd, mu, tx, lab, ac, cur, wa;   /* header, muted, text,
	                                                label, accent, cursor, warn */
};
struct roles roles_at(enum depth d);
/* A view's first line at (r.x, y), in the header style: text when it fits
 * in r.w, else brief. */
void draw_headline(struct canvas *c, struct rect r, int y, const char *text,
		   const char *brief);

/* A tile of a grid of small heatmaps (the heads grid, the model view): a
 * frame w columns wide around `lines` lines from (x, y), double when sel,
 * with title in its top border (the cursor's style when sel) and note in
 * its bottom one (muted), each cut to the w − 2 columns inside. */
void draw_tile_frame(struct canvas *c, struct rect r, int x, int y, int w, int lines,
		     int sel, const char *title, const char *note);

/* A horizontal bar of frac (0…1) of w columns, drawn in eighths of a
 * column; a positive fraction too small to see gets a hairline. */
void draw_bar(struct canvas *c, struct rect r, int x, int y, int w,
	      double frac, uint32_t fg, uint32_t bg, uint8_t attr);
/* The numbers every view draws, each with the message language's decimal
 * separator ("0,421", "42,1%" in Portuguese; English keeps the point). */

/* x with prec decimals and a true minus sign ("−4.72"; never "−0.00"). */
const char *fmt_num(char *buf, size_t n, double x, int prec);
/* A cell's value as every view shows it (status line, inspector): four
 * significant digits, fixed from 0.001 to 99999 ("1.000", "0.4213",
 * "-12.34", "0.001234"), else scientific with three ("2.90e-12",
 * "-1.23e+05"); exact zero "0"; "−∞", "∞", "nan"; an ASCII minus, so that
 * a value copied from an English screen parses.  The magnitude is never
 * lost: there is no mantissa without its exponent. */
const char *fmt_cell(char *buf, size_t n, double x);
/* The same in at most w columns (w >= 5; heatmap cells): fixed with up to
 * three decimals when |x| rounds to 0.001 or more and fits ("0.421",
 * "-12.34"), else the exponent kept and mantissa digits dropped ("3e-12",
 * "-1e+05", "1.2e-05").  Never "0.000" for a value that is not zero. */
const char *fmt_cell_fit(char *buf, size_t n, double x, int w);
/* A probability as a percentage: "42.1%", "<0.1%", "0%". */
void fmt_pct(char *buf, size_t n, double p);
/* x with sig significant digits, as "%.*g" writes it ("-4.46", "1e-05";
 * legends and axes), after sign when sign is not NULL ("+4.46").  Returns
 * buf. */
const char *fmt_sig(char *buf, size_t n, const char *sign, double x, int sig);

/* What a view shows of a list or matrix that does not fit: one axis's
 * items first … first+n−1 of total (counted from 0, as the labels are),
 * named by what.  Not cut (n >= total, or total 0): nothing to say. */
enum shown_what { SH_ROWS, SH_COLUMNS, SH_STEPS, SH_POSITIONS, SH_LAYERS, SH_KEYS,
		  SH_HEADS };
struct shown {
	enum shown_what what;
	int first, n, total;
};
/* The one indicator every view shows when it cuts: "rows 3–9 of 20 ·
 * columns 0–31 of 32" when either axis is cut ("" when neither is; a
 * zero struct shown is an axis the view has not), in at most maxw
 * columns: both parts when they fit, else b's (the columns) when b is
 * cut, else a's, and that without its words ("3–9/20") when even it does
 * not fit.  Returns buf. */
const char *fmt_shown(char *buf, size_t n, int maxw, struct shown a, struct shown b);
/* Draws fmt_shown's text at (x, y) within r in the muted style.  Returns
 * the columns used (0: nothing is cut, or no room). */
int draw_shown(struct canvas *c, struct rect r, int x, int y, int maxw,
	       struct shown a, struct shown b);

/* Scrolls a window of vis items (first index *first) so that cur is in
 * it, within 0 … total − vis. */
void view_follow(int *first, int cur, int vis, int total);

#endif
