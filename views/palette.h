/* palette.h - colour scales for heatmaps and the colour roles of the UI.
 *
 * Attention weights and probabilities use a sequential scale fixed to
 * 0…1 (perceptually uniform, viridis-like); scores and activations use a
 * diverging scale symmetric around 0 (blue − , white 0, red +).  −∞ (a
 * masked score) has its own colour and glyph, never a scale colour.  Without
 * colour, values are drawn with shade glyphs so the picture still reads.
 *
 * The scales and the role colours come from the current colour scheme
 * (UI state, like htop's colour scheme): the default is perceptually
 * uniform (viridis + RdBu); "high-contrast" is for projectors; "colorblind"
 * stays readable with red-green colour blindness (cividis + blue-orange). */
#ifndef ATTNSCOPE_PALETTE_H
#define ATTNSCOPE_PALETTE_H

#include <stddef.h>

#include "canvas.h"
#include "engine/trace.h"

struct scale {
	int diverging;     /* 1: [−max, +max] around 0; 0: [lo, hi] */
	float lo, hi;
	const char *what;  /* the quantity it colours, as a msgid (translated
	                      when drawn: "attention weight"), or NULL */
};

/* The scale a stage is drawn with: sequential 0…1 for weights and
 * probabilities, sequential 0…max for a loss and for activations with no
 * negative value (ReLU's output), diverging with max = the largest finite
 * |value| of data[n] otherwise. */
struct scale scale_for(const struct stage *s, const float *data, size_t n);

/* Background colour of a value (−∞ gets NEGINF_BG). */
uint32_t scale_color(const struct scale *sc, float v);
/* Position of v in the scale, 0…1 (diverging: 0.5 is zero). */
double scale_pos(const struct scale *sc, float v);
/* One-column glyph for v when there is no colour ("█▓▒░ " ramps;
 * negative values use an ASCII ramp so the sign still shows). */
const char *scale_glyph(const struct scale *sc, float v);
/* Whether a cell of colour bg has the colour of the screen's background
 * at depth d (the high-contrast scheme's black screen at 8 colours, where
 * every dark colour is black): such a cell needs a glyph to be seen. */
int palette_vanishes(enum depth d, uint32_t bg);
/* Black or white, whichever reads on bg. */
uint32_t contrast_fg(uint32_t bg);

/* The colours of −∞ in the current scheme (default: dark grey, × in grey). */
uint32_t palette_neginf_bg(void);
/* The colour of the cell cursor's marks in the current scheme: a hue that
 * neither of its scales passes through nor −∞ (default and colour-blind:
 * magenta; high contrast, whose diverging scale ends in magenta: green),
 * so that a mark is never read as a value. */
uint32_t palette_cursor_mark(void);
#define CURSOR_MARK (palette_cursor_mark())
uint32_t palette_neginf_fg(void);
#define NEGINF_BG (palette_neginf_bg())
#define NEGINF_FG (palette_neginf_fg())
#define NEGINF_GLYPH "×"

/* Colour schemes. */
enum scheme {
	SCHEME_DEFAULT,        /* viridis + RdBu: perceptually uniform */
	SCHEME_HIGH_CONTRAST,  /* projectors: black background, white/yellow
	                          text, black→yellow and cyan–black–magenta */
	SCHEME_COLORBLIND,     /* cividis + blue–white–orange */
	SCHEME_COUNT
};

/* Makes s the current scheme (out-of-range values select the default). */
void palette_set_scheme(enum scheme s);
enum scheme palette_scheme(void);
/* "default", "high-contrast", "colorblind"; NULL past the last scheme. */
const char *palette_scheme_name(enum scheme s);
/* The scheme of a name (also "colourblind", "color-blind", "hc",
 * "contrast"), or -1 if unknown. */
int palette_scheme_by_name(const char *name);

/* Colour roles of the interface, resolved through the scheme. */
enum role {
	R_TEXT, R_MUTED, R_TITLE, R_HEADER, R_LABEL, R_ACCENT, R_CURSOR,
	R_SELECTED, R_WARN, R_GOOD, R_BORDER, R_STATUS, R_NROLES
};

struct style {
	uint32_t fg, bg;
	uint8_t attr;
};

/* Colours of a role at a depth (DEPTH_NONE: default colours plus
 * attributes that carry the meaning, e.g. reverse video for the cursor). */
struct style role_style(enum role r, enum depth d);

/* The quantity a stage's colours show, as a msgid ("attention weight",
 * "score QKᵀ/√dk", "value"…; scale_for sets it), or NULL. */
const char *scale_quantity(const struct stage *s);

/* Draws a labelled colour bar of width w at (x, y): its range and the
 * quantity, "−0.83 ▕████▏ +0.83 score QKᵀ/√dk" or "0 ▕████▏ 1 attention
 * weight", plus "× −∞ masked" when show_neginf; the quantity is dropped
 * last but one (before the bar) when w is narrow. */
void draw_legend(struct canvas *c, int x, int y, int w, const struct scale *sc,
		 int show_neginf);

#endif
