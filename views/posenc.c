/* posenc.c - the positional encoding as curves: a few dimensions plotted
 * as value over position in braille dots (2 × 4 dots a cell), one colour
 * per curve, or one marker glyph per curve without colour.
 *
 * The curves run over PE_CURVE_POSITIONS positions whatever the sentence's
 * length (v->pe_table, the model's table from the engine), so that they
 * look like the waves they are, with the sentence's own positions marked
 * (a band and a bar under the axis); without a table, over the stage's
 * positions.  The user picks the dimensions: four from the cursor's
 * column on (h l move them), or v->pe_dims (render --dims 4-7).
 *
 * Dimension names: n positions of the sentence, P positions plotted,
 * d d_model.  The stage is [n, d], the table [P, d]; values are plotted as
 * they are (sinusoidal, learned or zero), never computed here. */
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
/* on a white figure: Okabe-Ito vermillion, blue, bluish green, purple */
static const uint32_t FIGURE_FG[NCURVES] = {
	RGB(213, 94, 0), RGB(0, 114, 178), RGB(0, 158, 115), RGB(204, 121, 167),
};
/* the band behind the sentence's positions */
#define BAND_BG RGB(40, 40, 52)
#define FIGURE_BAND_BG RGB(236, 236, 244)
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

/* The dimensions shown: v->pe_dims when given (those within d), else
 * four consecutive ones from the cursor's column (fewer when d < 4). */
static int pick_dims(const struct view_state *v, int d, int *dims)
{
	int n = 0;
	if (v->pe_ndims > 0) {
		for (int k = 0; k < v->pe_ndims && k < PE_MAX_DIMS; k++)
			n = add_dim(dims, n, v->pe_dims[k], d);
		if (n)
			return n;
	}
	int c0 = v->col < 0 ? 0 : v->col >= d ? d - 1 : v->col;
	int first = c0 < d - NCURVES ? c0 : d - NCURVES;
	first = first < 0 ? 0 : first;
	for (int k = 0; k < NCURVES; k++)
		n = add_dim(dims, n, first + k, d);
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

/* The curve of dimension dim as a polyline for a vector backend (SVG):
 * the same points plot_dots joins, in cells, over the pw × ph cells at
 * (px0, py0).  The braille dots stay for the terminal and ANSI. */
static void plot_path(struct canvas *c, int px0, int py0, int pw, int ph, const float *pe,
		      int n, int d, int dim, double ymax, uint32_t color)
{
	float *xy = malloc((size_t)n * 2 * sizeof *xy);
	int k = 0;
	if (!xy)
		return;   /* the dots are drawn all the same */
	for (int p = 0; p < n; p++) {
		double v = pe[(size_t)p * d + dim];
		if (!isfinite(v))
			continue;
		double x = n > 1 ? (double)p * (2 * pw - 1) / (n - 1) : 0;
		double y = (ymax - v) / (2 * ymax) * (4 * ph - 1);
		xy[2 * k] = (float)(px0 + (x + 0.5) / 2);
		xy[2 * k + 1] = (float)(py0 + (y + 0.5) / 4);
		k++;
	}
	canvas_path(c, xy, k, color);
	free(xy);
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

/* The plot column of position p of P over pw cells (2 braille dots each). */
static int pos_x(int p, int P, int pw)
{
	return P > 1 ? (int)lround((double)p * (2 * pw - 1) / (P - 1)) / 2 : 0;
}

/* The legend on line ly of r: each curve's marker and name, and (not in
 * a figure) its value at the cursor's position (tok: its token); a second
 * line when one does not hold it.  Returns the lines used. */
static int pe_legend(struct canvas *c, struct rect r, int ly, const float *pe, int d,
		     const int *dims, int nc, int row, const char *fit, int sinusoidal)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const int color = c->depth != DEPTH_NONE, fig = c->figure;
	const uint32_t *fgs = fig ? FIGURE_FG : CURVE_FG;
	char buf[200];
	/* legend: marker and name, and (not in a figure) the value at the
	 * cursor's position */
	int lx = r.x;
	if (!fig) {
		/* TRANSLATORS: the position under the cursor and its token, before
		 * the values of the curves there. */
		snprintf(buf, sizeof buf, _("at %d “%s”:"), row, fit);
		lx += clip_text(c, r, lx, ly, r.w, buf, &mu) + 1;
	}
	int legend_lines = 1;
	for (int k = 0; k < nc; k++) {
		char name[48];
		dim_label(name, sizeof name, dims[k], sinusoidal);
		if (fig)
			snprintf(buf, sizeof buf, " %s", name);
		else {
			snprintf(buf, sizeof buf, " %s %+.3f", name, pe[(size_t)row * d + dims[k]]);
			i18n_decimals(buf);   /* (name, "dim 4 sin", has none) */
		}
		int need = 2 + utf8_width(buf) + 2;
		if (lx + need > r.x + r.w && lx > r.x + 14 && r.h >= 12 && legend_lines < 2) {
			ly++;
			legend_lines++;
			lx = r.x + 4;
		}
		struct style sw = { color ? fgs[k] : COLOR_DEFAULT, COLOR_DEFAULT, ATTR_BOLD };
		lx += clip_text(c, r, lx, ly, r.x + r.w - lx, color ? "━━" : CURVE_MARK[k], &sw);
		lx += clip_text(c, r, lx, ly, r.x + r.w - lx, buf, &lab) + 2;
	}
	if (!fig && lx < r.x + r.w - 12)
		/* TRANSLATORS: a key hint in the legend of the PE curves */
		clip_text(c, r, lx, ly, r.x + r.w - lx, _("(h l: other dimensions)"), &mu);
	return legend_lines;
}

/* The plot of the PE curves, as draw lays it out for the strips and the
 * axis. */
struct pe_plot {
	struct canvas *c;
	struct rect r;
	const float *pe;             /* [P, d] */
	int P, d, nc, ns, row, band;
	const int *dims;             /* [nc] */
	double ymax;
	int sinusoidal, color, fig;
	const uint32_t *fgs;
	int px0, py0, pw, sh;        /* plot area, lines a strip */
	int cur_x, band_x1;
	uint32_t band_bg;
};

/* Strip sp of the plot (stacked: one curve a strip; else all curves in
 * one), with its y axis and name; mask: [NCURVES, sh, pw] scratch. */
static void pe_strip(const struct pe_plot *G, int sp, uint8_t *mask)
{
	struct canvas *c = G->c;
	const struct rect r = G->r;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style bo = role_style(R_BORDER, c->depth);
	const float *pe = G->pe;
	const int P = G->P, d = G->d, nc = G->nc, pw = G->pw, sh = G->sh, px0 = G->px0;
	const int color = G->color, cur_x = G->cur_x, band_x1 = G->band_x1;
	const int stacked = nc > 1, np = nc, sinusoidal = G->sinusoidal;
	const int *dims = G->dims;
	const uint32_t *fgs = G->fgs, band_bg = G->band_bg;
	const double ymax = G->ymax;
	const int py0 = G->py0;
	char ytop[16], ybot[16];
	fmt_sig(ytop, sizeof ytop, "+", ymax, 2);
	fmt_sig(ybot, sizeof ybot, "−", ymax, 2);
	const int ylw = utf8_width(ytop) > utf8_width(ybot) ? utf8_width(ytop) : utf8_width(ybot);
	const int k0 = stacked ? sp : 0, k1 = stacked ? sp + 1 : nc;
	const int y0 = py0 + sp * (sh + 1);
	const int zero_y = (int)lround(ymax / (2 * ymax) * (4 * sh - 1)) / 4;
	memset(mask, 0, (size_t)NCURVES * pw * sh);
	for (int k = k0; c->figure && color && k < k1; k++)   /* SVG: curves as paths */
		plot_path(c, px0, y0, pw, sh, pe, P, d, dims[k], ymax, fgs[k]);
	if (color)
		for (int k = k0; k < k1; k++)
			plot_dots(mask + (size_t)k * pw * sh, pw, sh, pe, P, d, dims[k], ymax);
	else
		for (int k = k1 - 1; k >= k0; k--)
			for (int xx = 0; xx < pw; xx++) {
				double t = P > 1 ? (double)xx * (P - 1) / (pw - 1) : 0;
				double val = sample(pe, P, d, dims[k], t);
				int yy = (int)lround((ymax - val) / (2 * ymax) * (sh - 1));
				if (yy >= 0 && yy < sh)
					mask[(size_t)k * pw * sh + (size_t)yy * pw + xx] = 1;
			}
	for (int yy = 0; yy < sh; yy++)
		for (int xx = 0; xx < pw; xx++) {
			size_t at = (size_t)yy * pw + xx;
			int X = px0 + xx, Y = y0 + yy;
			uint32_t bg = color && xx <= band_x1 ? band_bg : COLOR_DEFAULT;
			if (color) {
				uint8_t bits = 0;
				int best = -1, bestn = 0;
				for (int k = k0; k < k1; k++) {
					uint8_t b = mask[(size_t)k * pw * sh + at];
					int cnt = __builtin_popcount(b);
					bits |= b;
					if (cnt > bestn) {
						best = k;   /* ties: the first curve wins */
						bestn = cnt;
					}
				}
				if (bits) {
					char g[4];
					braille(bits, g);
					clip_put(c, r, X, Y, g, fgs[best], bg, 0);
					continue;
				}
			} else {
				int hit = -1;
				for (int k = k0; k < k1 && hit < 0; k++)
					if (mask[(size_t)k * pw * sh + at])
						hit = k;   /* the first curve on top */
				if (hit >= 0) {
					clip_put(c, r, X, Y, CURVE_MARK[hit], COLOR_DEFAULT,
					    COLOR_DEFAULT, hit < 2 ? ATTR_BOLD : 0);
					continue;
				}
			}
			if (xx == cur_x)
				clip_put(c, r, X, Y, "╎", bo.fg, bg, bo.attr);
			else if (yy == zero_y)
				clip_put(c, r, X, Y, "┈", bo.fg, bg, bo.attr);
			else if (bg != COLOR_DEFAULT)
				clip_put(c, r, X, Y, " ", COLOR_DEFAULT, bg, 0);
		}
	/* y axis; a strip's name at the right of the line above it
	 * (the gap under the legend, or the line between two strips),
	 * where no curve is drawn */
	for (int yy = 0; yy < sh; yy++) {
		int tick = yy == 0 || yy == sh - 1 || yy == zero_y;
		clip_put(c, r, px0 - 1, y0 + yy, tick ? "┤" : "│", bo.fg, bo.bg, bo.attr);
	}
	clip_text(c, r, px0 - 1 - utf8_width(ytop), y0, ylw, ytop, &mu);
	if (zero_y > 0 && zero_y < sh - 1)
		clip_text(c, r, px0 - 2, y0 + zero_y, 1, "0", &mu);
	clip_text(c, r, px0 - 1 - utf8_width(ybot), y0 + sh - 1, ylw, ybot, &mu);
	if (stacked) {
		char name[48];
		dim_label(name, sizeof name, dims[k0], sinusoidal);
		int w = utf8_width(name), nx = px0 + pw - w;
		struct style sw = { color ? fgs[k0] : COLOR_DEFAULT,
				    color && nx - px0 <= band_x1 ? band_bg : COLOR_DEFAULT, ATTR_BOLD };
		clip_text(c, r, nx, y0 - 1, w, name, &sw);
	}
	if (stacked && sp + 1 < np)
		for (int xx = -1; xx < pw; xx++)
			clip_put(c, r, px0 + xx, y0 + sh, xx < 0 ? "│" : " ", bo.fg,
			    color && xx >= 0 && xx <= band_x1 ? band_bg : COLOR_DEFAULT, bo.attr);
}

/* Under the strips: the x axis with its ticks (every 1-2-5 positions) and
 * the cursor's position, then the sentence's bar. */
static void pe_xaxis(const struct pe_plot *G)
{
	struct canvas *c = G->c;
	const struct rect r = G->r;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style bo = role_style(R_BORDER, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const int P = G->P, pw = G->pw, sh = G->sh, px0 = G->px0, py0 = G->py0, np = G->nc;
	const int fig = G->fig, row = G->row, cur_x = G->cur_x, band = G->band;
	const int band_x1 = G->band_x1, ns = G->ns;
	char buf[200];
	const int ay = py0 + np * (sh + 1) - 1;   /* under the last strip */
	clip_put(c, r, px0 - 1, ay, "└", bo.fg, bo.bg, bo.attr);
	for (int xx = 0; xx < pw; xx++)
		clip_put(c, r, px0 + xx, ay, "─", bo.fg, bo.bg, bo.attr);
	/* the cursor's label first, then the word, then the ticks that fit */
	const char *word = _("position");
	const int cx = fig ? -100 : px0 + cur_x;
	snprintf(buf, sizeof buf, "%d", row);
	const int cw = fig ? 0 : utf8_width(buf);
	if (!fig)
		clip_text(c, r, cx, ay + 1, cw, buf, &cur);
	int wx = px0 + pw - utf8_width(word);
	int word_on = wx > px0 + 2 && (wx > cx + cw || wx + utf8_width(word) < cx);
	if (word_on)
		clip_text(c, r, wx, ay + 1, r.x + r.w - wx, word, &mu);
	int step = tick_step(P, pw, 5);
	for (int p = 0; p < P; p++) {
		int on = !fig && p == row;
		if (p % step && !on)
			continue;
		int tx = px0 + pos_x(p, P, pw);
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

	/* the sentence's positions: a bar under the axis and what it is */
	if (band) {
		const int by = ay + 2;
		for (int xx = 0; xx <= band_x1; xx++)
			clip_put(c, r, px0 + xx, by, "▔", ac.fg, COLOR_DEFAULT, 0);
		/* TRANSLATORS: under the PE curves, the positions of the
		 * sentence on screen among the positions plotted */
		if (ns == 1)
			snprintf(buf, sizeof buf, "%s", _("the sentence: position 0"));
		else
			snprintf(buf, sizeof buf, _("the sentence: positions 0–%d"), ns - 1);
		clip_text(c, r, px0 + band_x1 + 2, by, r.x + r.w - (px0 + band_x1 + 2), buf, &ac);
	}
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const int color = c->depth != DEPTH_NONE, fig = c->figure;
	const uint32_t *fgs = fig ? FIGURE_FG : CURVE_FG;
	char buf[200], tok[96], fit[64];

	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (s->ndim != 2 || s->dtype != DT_F32 || s->shape[0] < 1 || s->shape[1] < 1) {
		clip_text(c, r, r.x, r.y, r.w, _("not a [positions, d] stage"), &mu);
		return;
	}
	const int n = s->shape[0], d = s->shape[1];
	/* the curves: the model's table over P positions, else the stage's */
	const int wide = v->pe_table && v->pe_n > 0;
	const float *pe = wide ? v->pe_table : stage_f32(s);   /* [P, d] */
	const int P = wide ? v->pe_n : n;
	const int ns = n < P ? n : P;    /* the sentence's positions plotted */
	const int band = wide && ns < P;
	const int row = v->row < 0 ? 0 : v->row >= ns ? ns - 1 : v->row;
	int sinusoidal = v->m ? v->m->cfg.pe == PE_SINUSOIDAL :
			 s->formula && strstr(s->formula, "sin(");
	int dims[NCURVES];
	int nc = pick_dims(v, d, dims);
	/* one strip a curve, stacked (four waves drawn over each other in
	 * braille read as noise): as many of the picked dimensions as get 3
	 * lines each (title, two legend lines, axis and its labels, the
	 * sentence's bar and the gaps between strips taken off) */
	const int room = r.h - 6 - band;
	while (nc > 1 && (room - (nc - 1)) / nc < 3)
		nc--;

	/* y range: ±1 unless the values go beyond (learned PE) */
	double maxabs = 0;
	for (int k = 0; k < nc; k++)
		for (int p = 0; p < P; p++) {
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
	snprintf(buf, sizeof buf, _("positional encoding over positions 0–%d"), P - 1);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, buf, &hd) + 2;
	if (maxabs == 0)
		clip_text(c, r, x, r.y, r.x + r.w - x, _("all zero (model has no PE)"), &wa);
	else if (!sinusoidal)
		clip_text(c, r, x, r.y, r.x + r.w - x, _("learned PE"), &mu);
	else
		clip_text(c, r, x, r.y, r.x + r.w - x, _("sinusoidal"), &mu);
	if (r.h < 2)
		return;

	/* legend: marker and name, and (not in a figure) the value at the
	 * cursor's position */
	const int legend_lines = pe_legend(c, r, r.y + 1, pe, d, dims, nc, row, fit, sinusoidal);

	/* plot area: y labels and axis on the left, x axis and ticks below,
	 * and the sentence's bar under them */
	char ytop[16], ybot[16];
	fmt_sig(ytop, sizeof ytop, "+", ymax, 2);
	fmt_sig(ybot, sizeof ybot, "−", ymax, 2);
	const int ylw = utf8_width(ytop) > utf8_width(ybot) ? utf8_width(ytop) : utf8_width(ybot);
	const int px0 = r.x + ylw + 1;         /* first plot column */
	const int py0 = r.y + 1 + legend_lines + 1;
	const int pw = r.x + r.w - px0;
	const int ph = r.y + r.h - 2 - band - py0;
	if (pw < 2 || ph < 2)
		return;
	const int cur_x = fig ? -1 : pos_x(row, P, pw);
	const int band_x1 = band ? pos_x(ns - 1, P, pw) : -1;   /* last band column */
	const uint32_t band_bg = fig ? FIGURE_BAND_BG : BAND_BG;

	const int np = nc;
	const int sh = (ph - (nc - 1)) / nc;   /* lines a strip */
	if (sh < 1)
		return;
	uint8_t *mask = calloc((size_t)NCURVES * pw * sh, 1);   /* [NCURVES, sh, pw] */
	if (!mask) {
		clip_text(c, r, r.x, py0, r.w, _("out of memory for the plot"), &wa);
		return;
	}
	const struct pe_plot G = { c, r, pe, P, d, nc, ns, row, band, dims, ymax, sinusoidal,
				   color, fig, fgs, px0, py0, pw, sh, cur_x, band_x1, band_bg };
	for (int sp = 0; sp < np; sp++)
		pe_strip(&G, sp, mask);
	free(mask);
	pe_xaxis(&G);
}

const struct view_class posenc_view = {
	.name = "posenc",
	.draw = draw,
};
