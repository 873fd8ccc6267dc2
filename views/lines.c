/* lines.c - the head view (BertViz's): the queries in a column on the left,
 * the keys in a column on the right, joined by lines as strong as the
 * attention weight; every head overlaid in its own colour (digits hide and
 * show heads), the selected query's lines bright and the others faint, and
 * the selected head's weights of that query as a bar list beside the keys.
 * The lines are braille dots (2 × 4 a cell), which every terminal font with
 * Unicode braille draws, ssh included; without colour a strong line is drawn
 * twice as thick, and only the selected query's lines are drawn.
 *
 * Dimension names: H heads, nq queries, nk keys.  The stage drawn is the
 * attention's weights [H, nq, nk] (from any stage of that attention). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "base/utf8.h"

#define LABEL_MAX 14        /* columns of a token label */
#define MIN_WEIGHT 0.01f    /* lines below this are not drawn */
#define FAINT 0.3           /* strength of the other queries' lines */
#define FAINT_MIN 0.3f      /* ... drawn from this weight on (context, not
                               a mesh that hides the selected query's) */

/* A head's colour: categorical, one per head (cycling past ten), per
 * scheme so that the colour-blind one stays apart (Okabe-Ito). */
static uint32_t head_color(int h)
{
	static const uint32_t DEF[] = {
		RGB(31, 119, 180), RGB(255, 127, 14), RGB(44, 160, 44), RGB(214, 39, 40),
		RGB(148, 103, 189), RGB(140, 86, 75), RGB(227, 119, 194), RGB(188, 189, 34),
		RGB(23, 190, 207), RGB(127, 127, 127),
	};
	static const uint32_t CB[] = {
		RGB(0, 114, 178), RGB(230, 159, 0), RGB(0, 158, 115), RGB(204, 121, 167),
		RGB(86, 180, 233), RGB(213, 94, 0), RGB(240, 228, 66), RGB(170, 170, 170),
	};
	static const uint32_t HC[] = {
		RGB(0, 255, 255), RGB(255, 255, 0), RGB(0, 255, 0), RGB(255, 0, 255),
		RGB(255, 128, 0), RGB(255, 255, 255), RGB(128, 160, 255), RGB(255, 96, 96),
	};
	switch (palette_scheme()) {
	case SCHEME_COLORBLIND: return CB[h % (int)(sizeof CB / sizeof *CB)];
	case SCHEME_HIGH_CONTRAST: return HC[h % (int)(sizeof HC / sizeof *HC)];
	default: return DEF[h % (int)(sizeof DEF / sizeof *DEF)];
	}
}

/* c faded by strength s (0…1) toward the background: a dark grey on a
 * terminal, a light one in a figure (slides are white). */
static uint32_t fade(uint32_t c, double s, int light)
{
	const double k = 0.3 + 0.7 * (s < 0 ? 0 : s > 1 ? 1 : s);
	const int z = light ? 235 : 40;
	int r = (int)(z + ((int)(c >> 16 & 255) - z) * k);
	int g = (int)(z + ((int)(c >> 8 & 255) - z) * k);
	int b = (int)(z + ((int)(c & 255) - z) * k);
	return RGB(r, g, b);
}

static int head_shown(const struct view_state *v, int h)
{
	return h >= 64 || !(v->heads_off >> h & 1);
}

/* The braille area: gw × gh cells, each with its dots and the strongest
 * line through it (strength, head). */
struct dots {
	int gw, gh;
	uint8_t *bits;      /* [gh, gw] braille dot bits */
	float *best;        /* [gh, gw] strongest line through the cell */
	int *head;          /* [gh, gw] its head */
};

/* The bit of dot (dx, dy) inside a braille cell (dx 0…1, dy 0…3). */
static uint8_t dot_bit(int dx, int dy)
{
	static const uint8_t B[4][2] = { { 0x01, 0x08 }, { 0x02, 0x10 },
					 { 0x04, 0x20 }, { 0x40, 0x80 } };
	return B[dy][dx];
}

/* Walks the line from dot (x0, y0) to (x1, y1), a dot every period
 * steps (weak lines are dotted): pass 0 records the strongest strength per
 * cell, pass 1 sets the dots where this line is at least half as strong
 * as the strongest one there (so a strong line stays readable where weak
 * ones cross it); thick adds the dot below. */
static void walk(struct dots *d, int x0, int y0, int x1, int y1, float s,
		 int h, int pass, int thick, int period)
{
	int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
	int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;
	for (int step = 0;; step++) {
		for (int t = 0; t <= thick && step % period == 0; t++) {
			int yy = y0 + t;
			int cx = x0 / 2, cy = yy / 4;
			if (cx >= 0 && cx < d->gw && cy >= 0 && cy < d->gh) {
				size_t k = (size_t)cy * d->gw + cx;
				if (pass == 0 && s > d->best[k]) {
					d->best[k] = s;
					d->head[k] = h;
				} else if (pass == 1 && s >= 0.5f * d->best[k]) {
					d->bits[k] |= dot_bit(x0 % 2, yy % 4);
				}
			}
		}
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * err;
		if (e2 >= dy) { err += dy; x0 += sx; }
		if (e2 <= dx) { err += dx; y0 += sy; }
	}
}

/* The braille glyph of dot bits b (U+2800 + b). */
static void braille(uint8_t b, char out[4])
{
	unsigned cp = 0x2800u + b;
	out[0] = (char)(0xE0 | (cp >> 12));
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[2] = (char)(0x80 | (cp & 0x3F));
	out[3] = 0;
}

struct layout {
	int lw, rw;          /* label columns: queries, keys */
	int bw;              /* bar list columns (0: none) */
	int gx, gw;          /* the lines' area: first column, width */
	int y0, bh;          /* body: first line, lines */
	int pitch;           /* lines per token */
	int vq, vk;          /* visible queries, keys */
};

/* The widest label of n along axis a (row labels for queries), clamped. */
static int label_width(const struct trace *t, enum axis a, int n, int rows)
{
	char lab[96];
	int w = 3;
	for (int i = 0; i < n; i++) {
		if (rows)
			trace_row_label(t, a, i, lab, sizeof lab);
		else
			trace_axis_label(t, a, i, lab, sizeof lab);
		int lw = utf8_width(lab);
		w = lw > w ? lw : w;
	}
	return w > LABEL_MAX ? LABEL_MAX : w;
}

static void title_line(struct view_state *v, struct canvas *c, struct rect r,
		       const struct stage *w, int H)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const int color = c->depth != DEPTH_NONE;
	char buf[160];
	/* TRANSLATORS: the head view's title; %s is the stage's name */
	snprintf(buf, sizeof buf, _("head view · %s"), w->name);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, buf, &hd) + 2;
	/* the heads: ■ shown (in its colour), □ hidden */
	for (int h = 0; h < H && x < r.x + r.w; h++) {
		int on = head_shown(v, h), sel = h == v->head;
		snprintf(buf, sizeof buf, "%s%d", on ? "■" : "□", h);
		struct style st = { color ? head_color(h) : COLOR_DEFAULT, COLOR_DEFAULT,
				    (uint8_t)((sel ? ATTR_UNDERLINE | ATTR_BOLD : 0) |
					      (on ? 0 : ATTR_DIM)) };
		if (!on && color)
			st.fg = fade(st.fg, 0, c->figure);
		x += clip_text(c, r, x, r.y, r.x + r.w - x, buf, &st) + 1;
	}
	if (r.h >= 10 && !c->figure) {
		/* TRANSLATORS: the head view's key hint, under its title */
		clip_text(c, r, r.x, r.y + 1, r.w,
			  _("↑↓ query · h l key · [ ] head · 1–9 show/hide a head, 0 all · "
			    "v back to the matrix"), &mu);
	}
}

/* Lays the view out in r; returns 0 when it does not fit. */
static int lay_out(struct layout *L, struct view_state *v, struct rect r,
		   const struct stage *w)
{
	const int nq = w->shape[1], nk = w->shape[2];
	L->lw = label_width(v->tr, w->axes[1], nq, 1);
	L->rw = label_width(v->tr, w->axes[2], nk, 0);
	L->bw = 18;
	L->y0 = r.y + (r.h >= 10 ? 3 : 2);
	L->bh = r.y + r.h - 1 - L->y0;
	for (;;) {
		L->gw = r.w - L->lw - L->rw - 2 - (L->bw ? L->bw + 1 : 0);
		if (L->gw >= 24 || (L->bw == 0 && L->gw >= 6))
			break;
		if (L->bw > 0)
			L->bw = L->bw > 10 ? L->bw - 4 : 0;
		else if (L->lw > 4 || L->rw > 4) {
			if (L->lw >= L->rw) L->lw--; else L->rw--;
		} else
			return 0;
	}
	if (L->bh < 1)
		return 0;
	L->gx = r.x + L->lw + 1;
	/* up to 4 lines a token: the lines' slopes read better with room */
	int n = nq > nk ? nq : nk;
	L->pitch = n > 1 ? clampi((L->bh - 1) / (n - 1), 1, 4) : 1;
	int fit = (L->bh - 1) / L->pitch + 1;
	L->vq = nq < fit ? nq : fit;
	L->vk = nk < fit ? nk : fit;
	return 1;
}

static void draw_lines(struct view_state *v, struct canvas *c, struct rect r,
		       const struct stage *w, const struct layout *L)
{
	const int H = w->shape[0], nq = w->shape[1], nk = w->shape[2];
	const int color = c->depth != DEPTH_NONE;
	const float *all = stage_f32(w);   /* [H, nq, nk] */
	struct dots d = { L->gw, L->bh, NULL, NULL, NULL };
	size_t cells = (size_t)d.gw * d.gh;
	d.bits = calloc(cells, 1);
	d.best = calloc(cells, sizeof *d.best);
	d.head = calloc(cells, sizeof *d.head);
	if (!d.bits || !d.best || !d.head)
		goto out;
	/* from the queries' edge to the keys' edge, a dot row per token
	 * centre; the selected query drawn last wins no ties: strength does */
	const int xa = 0, xb = 2 * d.gw - 1;
	for (int pass = 0; pass < 2; pass++)
		for (int h = 0; h < H; h++) {
			if (!head_shown(v, h))
				continue;
			for (int i = v->top; i < v->top + L->vq; i++) {
				int sel = i == v->row;
				if (!sel && (!color || c->figure))
					continue;   /* a figure shows the query it is about */
				const float *row = all + ((size_t)h * nq + i) * nk;
				float top = 0;
				for (int j = 0; j < nk; j++)
					top = row[j] > top ? row[j] : top;
				for (int j = v->left; j < v->left + L->vk; j++) {
					float a = row[j];
					if (!(a >= (sel ? MIN_WEIGHT : FAINT_MIN)))
						continue;
					/* the dash follows the weight against the
					 * row's largest: solid, every 2nd, every 4th dot */
					float rel = a / top;
					int period = rel >= 0.6f ? 1 : rel >= 0.3f ? 2 : 4;
					float s = sel ? a : (float)(FAINT * a);
					int ya = (i - v->top) * L->pitch * 4 + 1;
					int yb = (j - v->left) * L->pitch * 4 + 1;
					walk(&d, xa, ya, xb, yb, s, h, pass,
					     !color && sel && a >= 0.5f, period);
				}
			}
		}
	for (int y = 0; y < d.gh; y++)
		for (int x = 0; x < d.gw; x++) {
			size_t k = (size_t)y * d.gw + x;
			if (!d.bits[k])
				continue;
			char g[4];
			braille(d.bits[k], g);
			uint32_t fg = color ? fade(head_color(d.head[k]), d.best[k], c->figure) :
					      COLOR_DEFAULT;
			clip_put(c, r, L->gx + x, L->y0 + y, g, fg, COLOR_DEFAULT,
				 color && d.best[k] >= 0.5f ? ATTR_BOLD : 0);
		}
out:
	free(d.bits);
	free(d.best);
	free(d.head);
}

/* The attention's masked scores [H, nq, nk] beside its weights, or NULL. */
static const struct stage *masked_of(const struct trace *t, const struct stage *w)
{
	char nm[STAGE_NAME_MAX + 8];
	const char *dot = strrchr(w->name, '.');
	if (!dot)
		return NULL;
	snprintf(nm, sizeof nm, "%.*s.masked", (int)(dot - w->name), w->name);
	const struct stage *m = trace_find(t, nm);
	return m && m->ndim == 3 && m->shape[0] == w->shape[0] && m->shape[1] == w->shape[1] &&
	       m->shape[2] == w->shape[2] ? m : NULL;
}

static void draw_tokens(struct view_state *v, struct canvas *c, struct rect r,
			const struct stage *w, const struct layout *L)
{
	const int nq = w->shape[1], nk = w->shape[2];
	const int color = c->depth != DEPTH_NONE;
	const struct style tx = role_style(R_LABEL, c->depth);
	const struct style cu = role_style(R_CURSOR, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const float *sel = view_slice(w, v->head) + (size_t)v->row * nk;   /* [nk] */
	const struct stage *ms = masked_of(v->tr, w);
	const float *msel = ms ? view_slice(ms, v->head) + (size_t)v->row * nk : NULL;
	char lab[96], fit[96], num[32];
	int best = 0;
	for (int j = 1; j < nk; j++)
		if (sel[j] > sel[best])
			best = j;
	for (int i = v->top; i < v->top + L->vq; i++) {
		int y = L->y0 + (i - v->top) * L->pitch;
		trace_row_label(v->tr, w->axes[1], i, lab, sizeof lab);
		text_fit(lab, L->lw, fit, sizeof fit);
		clip_rtext(c, r, r.x, y, L->lw, fit, i == v->row ? &cu : &tx);
	}
	const int kx = L->gx + L->gw + 1, bx = kx + L->rw + 1;
	const uint32_t hc = color ? head_color(v->head) : COLOR_DEFAULT;
	for (int j = v->left; j < v->left + L->vk; j++) {
		int y = L->y0 + (j - v->left) * L->pitch;
		trace_axis_label(v->tr, w->axes[2], j, lab, sizeof lab);
		text_fit(lab, L->rw, fit, sizeof fit);
		struct style st = j == v->col ? cu : tx;
		if (j == best && j != v->col)
			st.attr |= ATTR_BOLD;
		clip_text(c, r, kx, y, L->rw, fit, &st);
		if (L->bw <= 0)
			continue;
		/* the bar list: the selected head's weights of the selected
		 * query; a masked key says so (its 0 is not a small weight) */
		if (msel && isinf(msel[j]) && msel[j] < 0) {
			/* TRANSLATORS: a masked key in the head view's bar list */
			const char *mk = _("× masked");
			clip_rtext(c, r, bx, y, L->bw, mk, &mu);
			continue;
		}
		fmt_num(num, sizeof num, sel[j], 2);
		int nw = utf8_width(num);
		draw_bar(c, r, bx, y, L->bw - nw - 1, sel[j], hc, COLOR_DEFAULT, 0);
		clip_text(c, r, bx + L->bw - nw, y, nw, num, sel[j] > 0 ? &tx : &mu);
	}
	if (L->bw > 0 && L->y0 - 1 > r.y) {
		/* TRANSLATORS: above the head view's bar list: the head whose
		 * weights the bars show */
		snprintf(lab, sizeof lab, _("head %d"), v->head);
		struct style hs = { hc, COLOR_DEFAULT, ATTR_BOLD };
		clip_text(c, r, bx, L->y0 - 1, L->bw, lab, &hs);
	}
	if (L->vq < nq || L->vk < nk) {
		snprintf(lab, sizeof lab, _("queries %d–%d of %d · keys %d–%d of %d"), v->top,
			 v->top + L->vq - 1, nq, v->left, v->left + L->vk - 1, nk);
		clip_text(c, r, L->gx, L->y0 - 1, L->gw, lab, &mu);
	}
}

static void footer(struct view_state *v, struct canvas *c, struct rect r,
		   const struct stage *w)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const int nk = w->shape[2];
	const float *sel = view_slice(w, v->head) + (size_t)v->row * nk;   /* [nk] */
	char q[96], k[96], buf[320], val[32];
	int best = 0;
	for (int j = 1; j < nk; j++)
		if (sel[j] > sel[best])
			best = j;
	trace_row_label(v->tr, w->axes[1], v->row, q, sizeof q);
	trace_axis_label(v->tr, w->axes[2], best, k, sizeof k);
	fmt_cell(val, sizeof val, sel[best]);
	/* TRANSLATORS: the head view's last line: the selected query, its
	 * head, the key it attends to most and that weight */
	snprintf(buf, sizeof buf, _("query “%s” (%d), head %d: most weight on “%s” (%d) = %s"),
		 q, v->row, v->head, k, best, val);
	clip_text(c, r, r.x, r.y + r.h - 1, r.w, buf, &mu);
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *w = view_attn_weights(v->tr, view_stage(v));
	const struct style mu = role_style(R_MUTED, c->depth);
	struct layout L;
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (!w || w->shape[0] < 1 || w->shape[1] < 1 || w->shape[2] < 1) {
		clip_text(c, r, r.x, r.y, r.w, _("the head view shows attention stages"), &mu);
		return;
	}
	const int H = w->shape[0], nq = w->shape[1], nk = w->shape[2];
	/* the cursor on this attention's weights (the stage on screen may be
	 * its scores or its q: same queries and keys) */
	v->head = clampi(v->head, 0, H - 1);
	v->row = clampi(v->row, 0, nq - 1);
	v->col = clampi(v->col, 0, nk - 1);
	title_line(v, c, r, w, H);
	if (r.h < 5 || !lay_out(&L, v, r, w)) {
		clip_text(c, r, r.x, r.y + 1, r.w, _("too small for the head view"), &mu);
		return;
	}
	view_follow(&v->top, v->row, L.vq, nq);
	view_follow(&v->left, v->col, L.vk, nk);
	draw_lines(v, c, r, w, &L);
	draw_tokens(v, c, r, w, &L);
	footer(v, c, r, w);
}

const struct view_class lines_view = {
	.name = "lines",
	.draw = draw,
};
