/* palette.c - colour scales, shade glyphs, UI roles and the legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "base/i18n.h"

/* ---- the scales of each scheme ---- */

/* viridis, sampled at 9 points (a perceptually uniform sequential map) */
static const uint32_t SEQ[] = {
	RGB(68, 1, 84), RGB(71, 44, 122), RGB(59, 81, 139), RGB(44, 113, 142),
	RGB(33, 144, 141), RGB(39, 173, 129), RGB(92, 200, 99),
	RGB(170, 220, 50), RGB(253, 231, 37),
};
/* a blue-white-red diverging map (ColorBrewer RdBu, reversed) */
static const uint32_t DIV[] = {
	RGB(5, 48, 97), RGB(33, 102, 172), RGB(67, 147, 195), RGB(146, 197, 222),
	RGB(247, 247, 247), RGB(244, 165, 130), RGB(214, 96, 77),
	RGB(178, 24, 43), RGB(103, 0, 31),
};

/* high contrast: dark grey → red → orange → bright yellow, brightness
 * rising monotonically (reads on a washed-out projector; never black, the
 * screen's colour) */
static const uint32_t SEQ_HC[] = {
	RGB(44, 44, 44), RGB(110, 25, 0), RGB(150, 35, 0), RGB(185, 50, 0),
	RGB(225, 90, 0), RGB(250, 135, 0), RGB(255, 180, 0),
	RGB(255, 220, 0), RGB(255, 255, 0),
};
/* high contrast: cyan − , dark grey 0, magenta + (ends of similar
 * brightness).  Zero is never black: the screen is black (a cell of zeros
 * vanished into it), and at 8 colours, where dark colours all fall on
 * black, the cells that would vanish get a "·" (views/heatmap.c) */
static const uint32_t DIV_HC[] = {
	RGB(0, 210, 255), RGB(0, 158, 191), RGB(0, 105, 128), RGB(0, 60, 72),
	RGB(44, 44, 44), RGB(90, 35, 90), RGB(128, 45, 128), RGB(191, 68, 191),
	RGB(255, 90, 255),
};

/* colour-blind safe: cividis (blue → grey → yellow, perceptually uniform
 * and the same for the common colour-vision deficiencies) */
static const uint32_t SEQ_CB[] = {
	RGB(0, 34, 78), RGB(53, 69, 108), RGB(102, 105, 112),
	RGB(148, 142, 119), RGB(200, 184, 102), RGB(254, 232, 56),
};
/* colour-blind safe diverging: blue − , white 0, orange + (the blue-yellow
 * axis survives red-green colour blindness; PuOr-like orange side) */
static const uint32_t DIV_CB[] = {
	RGB(8, 48, 107), RGB(33, 102, 172), RGB(67, 147, 195), RGB(146, 197, 222),
	RGB(247, 247, 247), RGB(253, 184, 99), RGB(224, 130, 20),
	RGB(179, 88, 6), RGB(127, 59, 8),
};

#define NMAP(a) ((int)(sizeof a / sizeof *a))

/* ---- the schemes ---- */

struct scheme_def {
	const char *name;
	const uint32_t *seq, *div;
	int nseq, ndiv;
	uint32_t neginf_bg, neginf_fg;
	uint32_t cursor;          /* the cursor's marks (palette_cursor_mark) */
	struct style role[R_NROLES];
};

static const struct scheme_def SCHEMES[SCHEME_COUNT] = {
	[SCHEME_DEFAULT] = {
		.name = "default",
		.seq = SEQ, .nseq = NMAP(SEQ), .div = DIV, .ndiv = NMAP(DIV),
		.neginf_bg = RGB(60, 60, 60), .neginf_fg = RGB(150, 150, 150),
		.cursor = RGB(255, 0, 255),
		.role = {
			[R_TEXT] = { COLOR_DEFAULT, COLOR_DEFAULT, 0 },
			[R_MUTED] = { RGB(138, 138, 138), COLOR_DEFAULT, 0 },
			[R_TITLE] = { RGB(255, 255, 255), RGB(38, 70, 120), ATTR_BOLD },
			[R_HEADER] = { RGB(120, 190, 255), COLOR_DEFAULT, ATTR_BOLD },
			[R_LABEL] = { RGB(230, 200, 120), COLOR_DEFAULT, 0 },
			[R_ACCENT] = { RGB(255, 175, 95), COLOR_DEFAULT, ATTR_BOLD },
			[R_CURSOR] = { RGB(0, 0, 0), RGB(255, 215, 0), ATTR_BOLD },
			[R_SELECTED] = { RGB(0, 0, 0), RGB(120, 190, 255), ATTR_BOLD },
			[R_WARN] = { RGB(255, 95, 95), COLOR_DEFAULT, ATTR_BOLD },
			[R_GOOD] = { RGB(135, 215, 135), COLOR_DEFAULT, 0 },
			[R_BORDER] = { RGB(88, 88, 88), COLOR_DEFAULT, 0 },
			[R_STATUS] = { RGB(230, 230, 230), RGB(48, 48, 48), 0 },
		},
	},
	/* for projectors: everything on black, text white or yellow, nothing
	 * dim; −∞ is a mid grey that neither scale passes through */
	[SCHEME_HIGH_CONTRAST] = {
		.name = "high-contrast",
		.seq = SEQ_HC, .nseq = NMAP(SEQ_HC), .div = DIV_HC, .ndiv = NMAP(DIV_HC),
		.neginf_bg = RGB(140, 140, 140), .neginf_fg = RGB(0, 0, 0),
		.cursor = RGB(0, 255, 0),
		.role = {
			[R_TEXT] = { RGB(255, 255, 255), RGB(0, 0, 0), 0 },
			[R_MUTED] = { RGB(210, 210, 210), RGB(0, 0, 0), 0 },
			[R_TITLE] = { RGB(0, 0, 0), RGB(255, 255, 0), ATTR_BOLD },
			[R_HEADER] = { RGB(255, 255, 0), RGB(0, 0, 0), ATTR_BOLD },
			[R_LABEL] = { RGB(0, 255, 255), RGB(0, 0, 0), ATTR_BOLD },
			[R_ACCENT] = { RGB(255, 255, 0), RGB(0, 0, 0), ATTR_BOLD },
			[R_CURSOR] = { RGB(0, 0, 0), RGB(255, 255, 255), ATTR_BOLD },
			[R_SELECTED] = { RGB(0, 0, 0), RGB(255, 255, 0), ATTR_BOLD },
			[R_WARN] = { RGB(255, 90, 90), RGB(0, 0, 0), ATTR_BOLD },
			[R_GOOD] = { RGB(0, 255, 0), RGB(0, 0, 0), ATTR_BOLD },
			[R_BORDER] = { RGB(255, 255, 255), RGB(0, 0, 0), 0 },
			[R_STATUS] = { RGB(0, 0, 0), RGB(255, 255, 255), ATTR_BOLD },
		},
	},
	/* colour-blind safe: roles from the Okabe-Ito palette, so that warning
	 * and good differ in brightness and hue (vermillion vs bluish green) */
	[SCHEME_COLORBLIND] = {
		.name = "colorblind",
		.seq = SEQ_CB, .nseq = NMAP(SEQ_CB), .div = DIV_CB, .ndiv = NMAP(DIV_CB),
		.neginf_bg = RGB(60, 60, 60), .neginf_fg = RGB(150, 150, 150),
		.cursor = RGB(255, 0, 255),
		.role = {
			[R_TEXT] = { COLOR_DEFAULT, COLOR_DEFAULT, 0 },
			[R_MUTED] = { RGB(138, 138, 138), COLOR_DEFAULT, 0 },
			[R_TITLE] = { RGB(255, 255, 255), RGB(0, 90, 150), ATTR_BOLD },
			[R_HEADER] = { RGB(86, 180, 233), COLOR_DEFAULT, ATTR_BOLD },
			[R_LABEL] = { RGB(240, 228, 66), COLOR_DEFAULT, 0 },
			[R_ACCENT] = { RGB(230, 159, 0), COLOR_DEFAULT, ATTR_BOLD },
			[R_CURSOR] = { RGB(0, 0, 0), RGB(240, 228, 66), ATTR_BOLD },
			[R_SELECTED] = { RGB(0, 0, 0), RGB(86, 180, 233), ATTR_BOLD },
			[R_WARN] = { RGB(213, 94, 0), COLOR_DEFAULT, ATTR_BOLD },
			[R_GOOD] = { RGB(0, 158, 115), COLOR_DEFAULT, 0 },
			[R_BORDER] = { RGB(88, 88, 88), COLOR_DEFAULT, 0 },
			[R_STATUS] = { RGB(230, 230, 230), RGB(48, 48, 48), 0 },
		},
	},
};

/* The current scheme: UI state, set once from the command line or a key. */
static enum scheme current = SCHEME_DEFAULT;

void palette_set_scheme(enum scheme s)
{
	current = (unsigned)s < SCHEME_COUNT ? s : SCHEME_DEFAULT;
}

enum scheme palette_scheme(void)
{
	return current;
}

const char *palette_scheme_name(enum scheme s)
{
	return (unsigned)s < SCHEME_COUNT ? SCHEMES[s].name : NULL;
}

int palette_scheme_by_name(const char *name)
{
	static const struct { const char *alias; enum scheme s; } ALIASES[] = {
		{ "colourblind", SCHEME_COLORBLIND },
		{ "color-blind", SCHEME_COLORBLIND },
		{ "colour-blind", SCHEME_COLORBLIND },
		{ "contrast", SCHEME_HIGH_CONTRAST },
		{ "hc", SCHEME_HIGH_CONTRAST },
	};
	if (!name)
		return -1;
	for (int s = 0; s < SCHEME_COUNT; s++)
		if (strcmp(name, SCHEMES[s].name) == 0)
			return s;
	for (size_t i = 0; i < sizeof ALIASES / sizeof *ALIASES; i++)
		if (strcmp(name, ALIASES[i].alias) == 0)
			return (int)ALIASES[i].s;
	return -1;
}

uint32_t palette_neginf_bg(void)
{
	return SCHEMES[current].neginf_bg;
}

uint32_t palette_cursor_mark(void)
{
	return SCHEMES[current].cursor;
}

uint32_t palette_neginf_fg(void)
{
	return SCHEMES[current].neginf_fg;
}

static uint32_t lerp_map(const uint32_t *map, int n, double t)
{
	if (!(t >= 0)) t = 0;
	if (t > 1) t = 1;
	double f = t * (n - 1);
	int i = (int)f;
	if (i >= n - 1)
		return map[n - 1];
	double u = f - i;
	uint32_t a = map[i], b = map[i + 1];
	int r = (int)lround(((a >> 16) & 255) * (1 - u) + ((b >> 16) & 255) * u);
	int g = (int)lround(((a >> 8) & 255) * (1 - u) + ((b >> 8) & 255) * u);
	int bl = (int)lround((a & 255) * (1 - u) + (b & 255) * u);
	return RGB(r, g, bl);
}

const char *scale_quantity(const struct stage *s)
{
	size_t len = strlen(s->name);
	switch (s->kind) {
	/* TRANSLATORS: what a colour scale shows, after its range
	 * ("0 ▕████▏ 1 attention weight") */
	case SK_WEIGHTS: return N_("attention weight");
	case SK_SCORES:
		return len >= 7 && !strcmp(s->name + len - 7, ".masked") ?
		       N_("masked score QKᵀ/√dk") : N_("score QKᵀ/√dk");
	case SK_PROBS: case SK_CLASS_PROBS: return N_("probability");
	case SK_LOGITS: case SK_CLASS_LOGITS: return N_("logit");
	case SK_LOSS: return N_("loss −log p (nats)");
	case SK_VECTORS: case SK_PERHEAD: case SK_POOLED: return N_("value");
	default: return NULL;
	}
}

struct scale scale_for(const struct stage *s, const float *data, size_t n)
{
	struct scale sc = { 0, 0, 1, scale_quantity(s) };
	if (s->kind == SK_WEIGHTS || s->kind == SK_PROBS)
		return sc;
	float mx = 0, mn = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(data[i])) {
			if (fabsf(data[i]) > mx)
				mx = fabsf(data[i]);
			if (data[i] < mn)
				mn = data[i];
		}
	/* a loss, or activations that are never negative (ReLU's output):
	 * sequential from 0, no blue half that nothing uses */
	if (s->kind == SK_LOSS || (s->kind == SK_VECTORS && mn >= 0 && n > 0)) {
		sc.hi = mx > 0 ? mx : 1;
		return sc;
	}
	sc.diverging = 1;
	sc.lo = -(mx > 0 ? mx : 1);
	sc.hi = -sc.lo;
	return sc;
}

double scale_pos(const struct scale *sc, float v)
{
	double t = (v - sc->lo) / (double)(sc->hi - sc->lo);
	return t < 0 ? 0 : t > 1 ? 1 : t;
}

uint32_t scale_color(const struct scale *sc, float v)
{
	if (isinf(v) && v < 0)
		return SCHEMES[current].neginf_bg;
	if (isnan(v))
		return RGB(255, 0, 255);
	const struct scheme_def *k = &SCHEMES[current];
	if (sc->diverging)
		return lerp_map(k->div, k->ndiv, scale_pos(sc, v));
	return lerp_map(k->seq, k->nseq, scale_pos(sc, v));
}

const char *scale_glyph(const struct scale *sc, float v)
{
	static const char *const pos_u[] = { " ", "░", "▒", "▓", "█" };
	static const char *const neg_u[] = { " ", ".", ":", "=", "#" };
	/* ASCII (views/ascii.c): the shades become . + * #, so the negative
	 * ramp takes other characters */
	static const char *const neg_a[] = { " ", "-", ":", "=", "%" };
	const char *const *pos = pos_u, *const *neg = canvas_ascii() ? neg_a : neg_u;
	if (isinf(v) && v < 0)
		return NEGINF_GLYPH;
	if (isnan(v))
		return "?";
	double t;
	if (sc->diverging) {
		t = fabs(v) / (double)sc->hi;
		int k = (int)lround((t > 1 ? 1 : t) * 4);
		return v < 0 ? neg[k] : pos[k];
	}
	t = scale_pos(sc, v);
	return pos[(int)lround(t * 4)];
}

int palette_vanishes(enum depth d, uint32_t bg)
{
	uint32_t screen = SCHEMES[current].role[R_TEXT].bg;
	if (d == DEPTH_NONE || screen == COLOR_DEFAULT || bg == COLOR_DEFAULT)
		return 0;
	int f1, b1, f2, b2;
	color_pair_at(d, " ", bg, bg, &f1, &b1);
	color_pair_at(d, " ", screen, screen, &f2, &b2);
	return b1 == b2;
}

uint32_t contrast_fg(uint32_t bg)
{
	if (bg == COLOR_DEFAULT)
		return COLOR_DEFAULT;
	double r = (bg >> 16) & 255, g = (bg >> 8) & 255, b = bg & 255;
	double lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
	return lum > 140 ? RGB(0, 0, 0) : RGB(255, 255, 255);
}

struct style role_style(enum role r, enum depth d)
{
	struct style s = SCHEMES[current].role[r];
	if (d != DEPTH_NONE)
		return s;
	/* no colour: keep the meaning with attributes */
	s.fg = s.bg = COLOR_DEFAULT;
	switch (r) {
	case R_CURSOR: case R_SELECTED: case R_TITLE: case R_STATUS:
		s.attr = ATTR_REVERSE | (r == R_STATUS ? 0 : ATTR_BOLD);
		break;
	case R_MUTED: case R_BORDER:
		s.attr = ATTR_DIM;
		break;
	default:
		break;
	}
	return s;
}

void draw_legend(struct canvas *c, int x, int y, int w, const struct scale *sc,
		 int show_neginf)
{
	char lo[24], hi[24];
	struct style t = role_style(R_MUTED, c->depth);
	fmt_sig(lo, sizeof lo, NULL, sc->lo, 3);
	fmt_sig(hi, sizeof hi, sc->diverging ? "+" : NULL, sc->hi, 3);
	/* TRANSLATORS: the legend's entry for a masked score, after "×". */
	const char *masked = _("−∞ masked");
	const char *what = sc->what ? _(sc->what) : NULL;
	/* "  × " and the entry; "  " and the quantity (two blanks: apart
	 * from the number in an SVG, views/svg.c) */
	int inf = show_neginf ? 4 + utf8_width(masked) : 0;
	int qw = what ? 2 + utf8_width(what) : 0;
	int bar = w - utf8_width(lo) - utf8_width(hi) - inf - qw - 2;
	if (bar < 8 && what) {   /* narrow: the quantity goes first */
		bar += qw;
		what = NULL;
	}
	if (bar > 24)
		bar = 24;
	if (bar < 4)
		return;
	int cx = x;
	cx += canvas_text(c, cx, y, w, lo, t.fg, t.bg, t.attr);
	cx++;
	for (int i = 0; i < bar; i++) {
		float v = (float)(sc->lo + (sc->hi - sc->lo) * (i + 0.5) / bar);
		if (c->depth == DEPTH_NONE)
			canvas_put(c, cx + i, y, scale_glyph(sc, v), COLOR_DEFAULT,
				   COLOR_DEFAULT, 0);
		else
			canvas_put(c, cx + i, y, " ", COLOR_DEFAULT, scale_color(sc, v), 0);
	}
	if (sc->diverging && bar >= 5)
		canvas_put(c, cx + bar / 2, y, "0", contrast_fg(scale_color(sc, 0)),
			   c->depth == DEPTH_NONE ? COLOR_DEFAULT : scale_color(sc, 0), 0);
	cx += bar + 1;
	cx += canvas_text(c, cx, y, x + w - cx, hi, t.fg, t.bg, t.attr);
	if (what)
		cx += 2 + canvas_text(c, cx + 2, y, x + w - cx - 2, what, t.fg, t.bg, t.attr);
	if (show_neginf) {
		cx += canvas_text(c, cx, y, x + w - cx, "  ", t.fg, t.bg, 0);
		canvas_put(c, cx, y, NEGINF_GLYPH, NEGINF_FG,
			   c->depth == DEPTH_NONE ? COLOR_DEFAULT : NEGINF_BG, 0);
		cx += 1 + canvas_text(c, cx + 1, y, x + w - cx - 1, " ", t.fg, t.bg, t.attr);
		canvas_text(c, cx, y, x + w - cx, masked, t.fg, t.bg, t.attr);
	}
}
