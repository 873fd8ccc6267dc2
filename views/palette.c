/* palette.c - colour scales, shade glyphs, UI roles and the legend. */
#include <math.h>
#include <stdio.h>

#include "palette.h"

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

struct scale scale_for(const struct stage *s, const float *data, size_t n)
{
	struct scale sc = { 0, 0, 1 };
	if (s->kind == SK_WEIGHTS || s->kind == SK_PROBS)
		return sc;
	float mx = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(data[i]) && fabsf(data[i]) > mx)
			mx = fabsf(data[i]);
	if (s->kind == SK_LOSS) {
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
		return NEGINF_BG;
	if (isnan(v))
		return RGB(255, 0, 255);
	if (sc->diverging)
		return lerp_map(DIV, 9, scale_pos(sc, v));
	return lerp_map(SEQ, 9, scale_pos(sc, v));
}

const char *scale_glyph(const struct scale *sc, float v)
{
	static const char *const pos[] = { " ", "░", "▒", "▓", "█" };
	static const char *const neg[] = { " ", ".", ":", "=", "#" };
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

uint32_t contrast_fg(uint32_t bg)
{
	if (bg == COLOR_DEFAULT)
		return COLOR_DEFAULT;
	double r = (bg >> 16) & 255, g = (bg >> 8) & 255, b = bg & 255;
	double lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
	return lum > 140 ? RGB(0, 0, 0) : RGB(255, 255, 255);
}

static const struct style SCHEME[R_NROLES] = {
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
};

struct style role_style(enum role r, enum depth d)
{
	struct style s = SCHEME[r];
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
	if (sc->diverging) {
		snprintf(lo, sizeof lo, "%.3g", sc->lo);
		snprintf(hi, sizeof hi, "+%.3g", sc->hi);
	} else {
		snprintf(lo, sizeof lo, "%.3g", sc->lo);
		snprintf(hi, sizeof hi, "%.3g", sc->hi);
	}
	const char *inf = show_neginf ? "  × −∞ masked" : "";
	int bar = w - text_width(lo) - text_width(hi) - text_width(inf) - 2;
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
	if (show_neginf) {
		cx += canvas_text(c, cx, y, x + w - cx, "  ", t.fg, t.bg, 0);
		canvas_put(c, cx, y, NEGINF_GLYPH, NEGINF_FG,
			   c->depth == DEPTH_NONE ? COLOR_DEFAULT : NEGINF_BG, 0);
		canvas_text(c, cx + 1, y, x + w - cx - 1, " −∞ masked", t.fg, t.bg, t.attr);
	}
}
