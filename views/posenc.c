/* posenc.c - the positional encoding as curves: a few dimensions of the PE
 * stage plotted as value over position in braille dots (2 × 4 dots a cell),
 * one colour per curve, or one marker glyph per curve without colour.
 *
 * Dimension names: n positions, d d_model.  The stage is [n, d]; its values
 * are plotted as they are (sinusoidal, learned or zero), never recomputed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/model.h"

#define NCURVES 4

static const uint32_t CURVE_FG[NCURVES] = {
	RGB(255, 95, 95), RGB(95, 215, 255), RGB(135, 215, 95), RGB(255, 215, 0),
};
/* without colour: one marker glyph per curve */
static const char *const CURVE_MARK[NCURVES] = { "*", "o", "+", "x" };

/* --- which dimensions --- */

static int add_dim(int *dims, int n, int dim, int d)
{
	if (dim < 0 || dim >= d || n >= NCURVES)
		return n;
	for (int i = 0; i < n; i++)
		if (dims[i] == dim)
			return n;
	dims[n] = dim;
	return n + 1;
}

/* The cursor's sin/cos pair (col rounded down to even, col + 1) and two
 * slower (higher) even dimensions: d/4 and d/2 when above the pair, else
 * half-way to the end and the last even one. */
static int pick_dims(int col, int d, int *dims)
{
	int c0 = col < 0 ? 0 : col >= d ? d - 1 : col;
	c0 &= ~1;
	int n = add_dim(dims, 0, c0, d);
	n = add_dim(dims, n, c0 + 1, d);
	const int cand[] = { (d / 4) & ~1, (d / 2) & ~1, (c0 + (d - c0) / 2) & ~1,
			     (d - 2) & ~1, (c0 + 2) & ~1 };
	for (size_t i = 0; i < sizeof cand / sizeof cand[0] && n < NCURVES; i++)
		if (cand[i] > c0 + 1)
			n = add_dim(dims, n, cand[i], d);
	/* keep the slower ones in order */
	if (n == NCURVES && dims[2] > dims[3]) {
		int t = dims[2];
		dims[2] = dims[3];
		dims[3] = t;
	}
	return n;
}

static void dim_label(char *buf, size_t n, int dim, int sinusoidal)
{
	if (sinusoidal)
		/* TRANSLATORS: a curve of the positional encoding: dimension
		 * number and "sin" or "cos"; keep it short. */
		snprintf(buf, n, _("dim %d %s"), dim, dim % 2 ? "cos" : "sin");
	else
		/* TRANSLATORS: a curve of a learned positional encoding. */
		snprintf(buf, n, _("dim %d"), dim);
}

/* UTF-8 of the braille cell with these dots (U+2800 + bits). */
static void braille(uint8_t bits, char out[4])
{
	unsigned cp = 0x2800u + bits;
	out[0] = (char)(0xE0 | (cp >> 12));
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[2] = (char)(0x80 | (cp & 0x3F));
	out[3] = 0;
}

static const uint8_t DOT_BIT[2][4] = {
	{ 0x01, 0x02, 0x04, 0x40 },
	{ 0x08, 0x10, 0x20, 0x80 },
};

/* Plots the curve of dimension dim into mask[ph, pw] (braille bits): one
 * point per position, joined by straight segments. */
static void plot_dots(uint8_t *mask, int pw, int ph, const float *pe, int n,
		      int d, int dim, double ymax)
{
	const int X = 2 * pw, Y = 4 * ph;
	int px = 0, py = 0;
	for (int p = 0; p < n; p++) {
		double v = pe[(size_t)p * d + dim];
		if (!isfinite(v))
			continue;
		int x = n > 1 ? (int)lround((double)p * (X - 1) / (n - 1)) : 0;
		int y = (int)lround((ymax - v) / (2 * ymax) * (Y - 1));
		y = y < 0 ? 0 : y >= Y ? Y - 1 : y;
		int x0 = p ? px : x, y0 = p ? py : y;
		int steps = abs(x - x0) > abs(y - y0) ? abs(x - x0) : abs(y - y0);
		for (int s = 0; s <= steps; s++) {
			int xs = steps ? x0 + (int)lround((double)(x - x0) * s / steps) : x;
			int ys = steps ? y0 + (int)lround((double)(y - y0) * s / steps) : y;
			mask[(size_t)(ys / 4) * pw + xs / 2] |= DOT_BIT[xs % 2][ys % 4];
		}
		px = x;
		py = y;
	}
}

/* The value of dimension dim at fractional position t (linear between
 * the stage's samples; for placing markers only). */
static double sample(const float *pe, int n, int d, int dim, double t)
{
	int i = (int)floor(t);
	if (i < 0)
		i = 0;
	if (i >= n - 1)
		return pe[(size_t)(n - 1) * d + dim];
	double u = t - i;
	return pe[(size_t)i * d + dim] * (1 - u) + pe[(size_t)(i + 1) * d + dim] * u;
}

/* Smallest 1-2-5 step whose ticks are at least gap columns apart. */
static int tick_step(int n, int pw, int gap)
{
	static const int base[] = { 1, 2, 5 };
	double per = n > 1 ? (double)(pw - 1) / (n - 1) : pw;
	for (int mult = 1; mult < 1000000; mult *= 10)
		for (int k = 0; k < 3; k++)
			if (base[k] * mult * per >= gap)
				return base[k] * mult;
	return n > 0 ? n : 1;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style bo = role_style(R_BORDER, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const int color = c->depth != DEPTH_NONE;
	char buf[200], tok[96], fit[64];

	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (s->ndim != 2 || s->dtype != DT_F32 || s->shape[0] < 1 || s->shape[1] < 1) {
		clip_text(c, r, r.x, r.y, r.w, _("not a [positions, d] stage"), &mu);
		return;
	}
	const int n = s->shape[0], d = s->shape[1];
	const float *pe = stage_f32(s);   /* [n, d] */
	const int row = v->row < 0 ? 0 : v->row >= n ? n - 1 : v->row;
	int sinusoidal = v->m ? v->m->cfg.pe == PE_SINUSOIDAL :
			 s->formula && strstr(s->formula, "sin(");
	int dims[NCURVES];
	const int nc = pick_dims(v->col, d, dims);

	/* y range: ±1 unless the values go beyond (learned PE) */
	double maxabs = 0;
	for (int k = 0; k < nc; k++)
		for (int p = 0; p < n; p++) {
			double a = fabs(pe[(size_t)p * d + dims[k]]);
			if (isfinite(a) && a > maxabs)
				maxabs = a;
		}
	double ymax = maxabs > 1 ? maxabs : 1;
	if (!sinusoidal && maxabs > 0 && maxabs < 0.5)
		ymax = maxabs;

	/* title */
	trace_axis_label(v->tr, s->axes[0], row, tok, sizeof tok);
	text_fit(tok, 16, fit, sizeof fit);
	snprintf(buf, sizeof buf, _("positional encoding over positions 0–%d"), n - 1);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, buf, &hd) + 2;
	if (maxabs == 0)
		clip_text(c, r, x, r.y, r.x + r.w - x, _("all zero (model has no PE)"), &wa);
	else if (!sinusoidal)
		clip_text(c, r, x, r.y, r.x + r.w - x, _("learned PE"), &mu);
	else
		clip_text(c, r, x, r.y, r.x + r.w - x, _("sinusoidal"), &mu);
	if (r.h < 2)
		return;

	/* legend: marker, name and the value at the cursor's position */
	int lx = r.x, ly = r.y + 1;
	/* TRANSLATORS: the position under the cursor and its token, before
	 * the values of the curves there. */
	snprintf(buf, sizeof buf, _("at %d “%s”:"), row, fit);
	lx += clip_text(c, r, lx, ly, r.w, buf, &mu) + 1;
	int legend_lines = 1;
	for (int k = 0; k < nc; k++) {
		char name[48];
		dim_label(name, sizeof name, dims[k], sinusoidal);
		snprintf(buf, sizeof buf, " %s %+.3f", name, pe[(size_t)row * d + dims[k]]);
		int need = 2 + utf8_width(buf) + 2;
		if (lx + need > r.x + r.w && lx > r.x + 14 && r.h >= 12 && legend_lines < 2) {
			ly++;
			legend_lines++;
			lx = r.x + 4;
		}
		struct style sw = { color ? CURVE_FG[k] : COLOR_DEFAULT, COLOR_DEFAULT, ATTR_BOLD };
		lx += clip_text(c, r, lx, ly, r.x + r.w - lx, color ? "━━" : CURVE_MARK[k], &sw);
		lx += clip_text(c, r, lx, ly, r.x + r.w - lx, buf, &lab) + 2;
	}

	/* plot area: y labels and axis on the left, x axis and ticks below */
	char ytop[16], ybot[16];
	snprintf(ytop, sizeof ytop, "+%.2g", ymax);
	snprintf(ybot, sizeof ybot, "−%.2g", ymax);
	const int ylw = utf8_width(ytop) > utf8_width(ybot) ? utf8_width(ytop) : utf8_width(ybot);
	const int px0 = r.x + ylw + 1;         /* first plot column */
	const int py0 = r.y + 1 + legend_lines + 1;
	const int pw = r.x + r.w - px0;
	const int ph = r.y + r.h - 2 - py0;    /* leaves the axis and its labels */
	if (pw < 2 || ph < 2)
		return;

	/* the curves */
	uint8_t *mask = calloc((size_t)NCURVES * pw * ph, 1);   /* [NCURVES, ph, pw] */
	if (!mask) {
		clip_text(c, r, r.x, py0, r.w, _("out of memory for the plot"), &wa);
		return;
	}
	const int zero_y = (int)lround(ymax / (2 * ymax) * (4 * ph - 1)) / 4;
	const int cur_x = n > 1 ? (int)lround((double)row * (2 * pw - 1) / (n - 1)) / 2 : 0;
	if (color)
		for (int k = 0; k < nc; k++)
			plot_dots(mask + (size_t)k * pw * ph, pw, ph, pe, n, d, dims[k], ymax);
	else
		for (int k = nc - 1; k >= 0; k--)
			for (int xx = 0; xx < pw; xx++) {
				double t = n > 1 ? (double)xx * (n - 1) / (pw - 1) : 0;
				double val = sample(pe, n, d, dims[k], t);
				int yy = (int)lround((ymax - val) / (2 * ymax) * (ph - 1));
				if (yy >= 0 && yy < ph)
					mask[(size_t)k * pw * ph + (size_t)yy * pw + xx] = 1;
			}

	for (int yy = 0; yy < ph; yy++)
		for (int xx = 0; xx < pw; xx++) {
			size_t at = (size_t)yy * pw + xx;
			int X = px0 + xx, Y = py0 + yy;
			if (color) {
				uint8_t bits = 0;
				int best = -1, bestn = 0;
				for (int k = 0; k < nc; k++) {
					uint8_t b = mask[(size_t)k * pw * ph + at];
					int cnt = __builtin_popcount(b);
					bits |= b;
					if (cnt > bestn) {
						best = k;   /* ties: the cursor's pair wins */
						bestn = cnt;
					}
				}
				if (bits) {
					char g[4];
					braille(bits, g);
					clip_put(c, r, X, Y, g, CURVE_FG[best], COLOR_DEFAULT, 0);
					continue;
				}
			} else {
				int hit = -1;
				for (int k = 0; k < nc && hit < 0; k++)
					if (mask[(size_t)k * pw * ph + at])
						hit = k;   /* the cursor's pair on top */
				if (hit >= 0) {
					clip_put(c, r, X, Y, CURVE_MARK[hit], COLOR_DEFAULT,
					    COLOR_DEFAULT, hit < 2 ? ATTR_BOLD : 0);
					continue;
				}
			}
			if (xx == cur_x)
				clip_put(c, r, X, Y, "╎", bo.fg, bo.bg, bo.attr);
			else if (yy == zero_y)
				clip_put(c, r, X, Y, "┈", bo.fg, bo.bg, bo.attr);
		}
	free(mask);

	/* y axis */
	for (int yy = 0; yy < ph; yy++) {
		int tick = yy == 0 || yy == ph - 1 || yy == zero_y;
		clip_put(c, r, px0 - 1, py0 + yy, tick ? "┤" : "│", bo.fg, bo.bg, bo.attr);
	}
	clip_text(c, r, px0 - 1 - utf8_width(ytop), py0, ylw, ytop, &mu);
	clip_text(c, r, px0 - 2, py0 + zero_y, 1, "0", &mu);
	clip_text(c, r, px0 - 1 - utf8_width(ybot), py0 + ph - 1, ylw, ybot, &mu);

	/* x axis: ticks every 1-2-5 positions, the cursor's position marked */
	const int ay = py0 + ph;
	clip_put(c, r, px0 - 1, ay, "└", bo.fg, bo.bg, bo.attr);
	for (int xx = 0; xx < pw; xx++)
		clip_put(c, r, px0 + xx, ay, "─", bo.fg, bo.bg, bo.attr);
	/* the cursor's label first, then the word, then the ticks that fit */
	const char *word = _("position");
	const int cx = px0 + cur_x;
	snprintf(buf, sizeof buf, "%d", row);
	const int cw = utf8_width(buf);
	clip_text(c, r, cx, ay + 1, cw, buf, &cur);
	int wx = px0 + pw - utf8_width(word);
	int word_on = wx > px0 + 2 && (wx > cx + cw || wx + utf8_width(word) < cx);
	if (word_on)
		clip_text(c, r, wx, ay + 1, r.x + r.w - wx, word, &mu);
	int step = tick_step(n, pw, 5);
	for (int p = 0; p < n; p++) {
		int on = p == row;
		if (p % step && !on)
			continue;
		int tx = px0 + (n > 1 ? (int)lround((double)p * (2 * pw - 1) / (n - 1)) / 2 : 0);
		clip_put(c, r, tx, ay, "┴", on ? cur.fg : bo.fg, on ? cur.bg : bo.bg,
		    on ? cur.attr : bo.attr);
		if (on)
			continue;
		snprintf(buf, sizeof buf, "%d", p);
		int w = utf8_width(buf);
		if (word_on && tx + w >= wx)
			continue;
		if (tx + w >= cx && tx <= cx + cw)
			continue;   /* would touch the cursor's label */
		clip_text(c, r, tx, ay + 1, w, buf, &mu);
	}
}

const struct view_class posenc_view = {
	.name = "posenc",
	.draw = draw,
};
