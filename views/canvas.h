/* canvas.h - a grid of cells that views draw into.
 *
 * A cell holds one UTF-8 glyph (one terminal column; a wide glyph takes two
 * cells, the second marked as its continuation), a foreground and
 * background colour (0xRRGGBB or COLOR_DEFAULT) and attributes.  Backends
 * (ncurses on a terminal; text, ANSI and SVG for `render` and tests) turn a
 * canvas into output.  The canvas records the colour depth of its backend so
 * that views can choose glyphs that still read without colour. */
#ifndef ATTNSCOPE_CANVAS_H
#define ATTNSCOPE_CANVAS_H

#include <stdint.h>

#include "base/utf8.h"
#include <stdio.h>

#define COLOR_DEFAULT 0xFF000000u
#define RGB(r, g, b) (((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | (uint32_t)(b))

enum {
	ATTR_BOLD = 1,
	ATTR_DIM = 2,
	ATTR_REVERSE = 4,
	ATTR_UNDERLINE = 8,
};

/* What the backend can show. */
enum depth { DEPTH_NONE = 0, DEPTH_8 = 8, DEPTH_256 = 256, DEPTH_TRUE = 16777216 };

#define GLYPH_MAX 8

struct cell {
	char glyph[GLYPH_MAX];   /* UTF-8, NUL-terminated; "" = continuation */
	uint32_t fg, bg;
	uint8_t attr;
};

/* What only a vector backend (SVG) draws, over the cells: a curve as a
 * polyline, and a hover text over a rectangle of cells. */
struct canvas_path {
	uint32_t color;
	int n;
	float *xy;               /* [n, 2] in cells: x, y (owned) */
};
struct canvas_tip {
	int x, y, w, h;          /* in cells */
	char *text;              /* owned */
};

struct canvas {
	int w, h;
	enum depth depth;
	int figure;              /* a still picture (render, export, the SVG
	                            key): views draw no cursor and no key
	                            hints, and labels whole */
	struct cell *cells;      /* [h, w] */
	size_t cap;              /* cells allocated (>= w * h) */
	struct canvas_path *paths;   /* curves (SVG draws them in place of */
	int npaths;                  /*   the braille dots of the same plot) */
	struct canvas_tip *tips;     /* hover texts (SVG <title>) */
	int ntips;
};

struct rect {
	int x, y, w, h;
};

struct canvas *canvas_new(int w, int h, enum depth depth);
void canvas_free(struct canvas *c);
/* Resizes (contents cleared).  Returns 0, or -1 on out-of-memory. */
int canvas_resize(struct canvas *c, int w, int h);
void canvas_clear(struct canvas *c);
/* The smallest w × h from the top left that holds every cell drawn (not a
 * default-coloured space), and the canvas cut to it (contents kept).
 * canvas_crop returns 0, or -1 on out-of-memory (c unchanged). */
void canvas_extent(const struct canvas *c, int *w, int *h);
int canvas_crop(struct canvas *c, int w, int h);

/* Adds a polyline of n points (xy: [n, 2], in cells, copied) / a hover
 * text over a w × h block of cells at x, y (copied).  Cleared with the
 * cells; only the SVG backend draws them (a canvas with paths leaves its
 * braille dots out of the SVG).  Return 0, or -1 on out-of-memory. */
int canvas_path(struct canvas *c, const float *xy, int n, uint32_t color);
int canvas_tip(struct canvas *c, int x, int y, int w, int h, const char *text);

/* Sets one cell (clipped).  glyph is one character of terminal width 1. */
void canvas_put(struct canvas *c, int x, int y, const char *glyph, uint32_t fg,
		uint32_t bg, uint8_t attr);
/* Writes UTF-8 text from (x, y), at most maxw columns (clipped to the
 * canvas); invalid bytes show as U+FFFD.  Returns the columns used. */
int canvas_text(struct canvas *c, int x, int y, int maxw, const char *s,
		uint32_t fg, uint32_t bg, uint8_t attr);
/* printf into canvas_text. */
int canvas_printf(struct canvas *c, int x, int y, int maxw, uint32_t fg,
		  uint32_t bg, uint8_t attr, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
void canvas_fill(struct canvas *c, struct rect r, const char *glyph,
		 uint32_t fg, uint32_t bg, uint8_t attr);
/* Word-wraps UTF-8 text into r (breaking at spaces; a word wider than the
 * line is cut), clipped to r.h lines.  Returns the lines used; with c NULL
 * it only counts them. */
int canvas_wrap(struct canvas *c, struct rect r, const char *s, uint32_t fg,
		uint32_t bg, uint8_t attr);
/* Draws a single-line frame around r with a title on its top edge. */
void canvas_frame(struct canvas *c, struct rect r, const char *title,
		  uint32_t fg, uint32_t bg, uint8_t attr);

/* ASCII only (views/ascii.c), for a terminal whose locale is not UTF-8:
 * while it is on, canvas_put maps each glyph to one ASCII character and
 * canvas_text writes a few symbols as words ("∞" → "inf", "√" → "sqrt",
 * "…" → "..."), so the canvas holds ASCII only.  Off by default. */
void canvas_set_ascii(int on);
int canvas_ascii(void);
/* The ASCII glyph for one UTF-8 glyph (itself when it is ASCII). */
const char *canvas_ascii_glyph(const char *g);
/* s in ASCII as canvas_text writes it, into buf. */
const char *canvas_ascii_text(const char *s, char *buf, size_t n);

/* Copies s into buf cut to at most maxw columns, ending in "…" when cut. */
const char *text_fit(const char *s, int maxw, char *buf, size_t bufsz);

/* Backends to a stream: plain glyphs, or glyphs with ANSI SGR colours at the
 * canvas's depth.  Trailing blanks of each line are trimmed in text mode. */
void canvas_write_text(const struct canvas *c, FILE *fp);
void canvas_write_ansi(const struct canvas *c, FILE *fp);
/* An SVG picture of the canvas (views/svg.c). */
void canvas_write_svg(const struct canvas *c, FILE *fp);

/* The xterm 256-colour index nearest to an RGB colour, and the nearest of
 * the 8 basic colours. */
int color_to_256(uint32_t rgb);
int color_to_8(uint32_t rgb);
/* The colour indices a cell is shown with at depth d (−1: the terminal's
 * default; DEPTH_TRUE: the RGB value itself).  When fg and bg fall on the
 * same colour at that depth, a glyph would vanish (8 colours: −∞'s grey ×
 * on grey was white on white), so fg becomes black or white, whichever
 * reads on bg.  A space or a half block "▀" (whose fg is the top half's
 * colour) keeps its colours.  The terminal and the ANSI writer both use
 * this. */
void color_pair_at(enum depth d, const char *glyph, uint32_t fg, uint32_t bg,
		   int *fi, int *bi);

#endif
