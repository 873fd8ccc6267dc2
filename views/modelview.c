/* modelview.c - the model view (BertViz's): every layer × head of one
 * attention (encoder self, decoder self or cross) at once, one row of
 * thumbnails per layer and one column per head, each titled with its mean
 * row entropy and tagged with its pattern, the query tokens beside the
 * rows where they fit; the selected layer × head framed (Enter opens it).
 * When the keys do not fit across a tile at one column each (a long
 * input), each thumbnail is the matrix pooled (max, or mean with
 * v->pool_mean) to the tile, from what a lazy trace kept of each layer
 * (stage_thumb: no layer computed again) or from the data; when even that
 * does not fit, a layer × head table of entropies and tags; when the
 * layers do not fit down, pages that follow the selected layer.
 *
 * Dimension names: L layers, H heads, nq queries, nk keys.  Each layer's
 * weights are [H, nq, nk]; all layers share nq and nk. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "base/utf8.h"

#define LAYERS_MAX 128
#define QLABEL_MAX 8      /* columns of a query label beside the rows */

/* The attention's weights in every layer: w[l] (NULL where a layer has
 * none), and the layer on screen. */
struct family {
	const struct stage *w[LAYERS_MAX];
	int L, cur;
	char block[16], attn[16];   /* "decoder", "cross_attn" */
};

static int find_family(const struct trace *t, const struct stage *ws, struct family *f)
{
	const char *a = strstr(ws->name, "_attn.");
	const char *b = a;
	memset(f, 0, sizeof *f);
	if (!a || ws->layer < 0)
		return -1;
	while (b > ws->name && b[-1] != '.')
		b--;
	snprintf(f->block, sizeof f->block, "%s", ws->block == BLK_ENCODER ? "encoder" : "decoder");
	snprintf(f->attn, sizeof f->attn, "%.*s_attn", (int)(a - b), b);
	for (int l = 0; l < LAYERS_MAX; l++) {
		char nm[STAGE_NAME_MAX];
		snprintf(nm, sizeof nm, "%s.%d.%s.weights", f->block, l, f->attn);
		const struct stage *s = trace_find(t, nm);
		if (!s)
			break;
		if (s->ndim != 3 || s->shape[0] != ws->shape[0] || s->shape[1] != ws->shape[1] ||
		    s->shape[2] != ws->shape[2])
			return -1;
		f->w[f->L++] = s;
	}
	f->cur = ws->layer < f->L ? ws->layer : 0;
	return f->L ? 0 : -1;
}

struct tiles {
	int lw;          /* label column: "L12" and the query labels */
	int cw;          /* columns a key */
	int iw, tw;      /* tile inner and outer width */
	int rows;        /* matrix rows a line: 2 (half blocks) or 1 */
	int lines;       /* lines of cells in a tile */
	int pitch;       /* lines a matrix row (presenter: 1 to 3) */
	int gap;         /* blank lines under a layer (presenter) */
	int per;         /* layers on a page */
	int labels;      /* query labels beside the rows: 1 one a line, 2 the
	                    two of a line of half blocks ("a/b") */
	int pr, pc;      /* pooled: blocks down and across a tile (0: not) */
};

/* Thumbnails pooled into the width: a tile of iw blocks across and about
 * as many rows down (two a line: square blocks). */
static int tiles_pooled(struct tiles *g, int H, int nq, int nk, int w, int h, int color)
{
	memset(g, 0, sizeof *g);
	g->lw = 4;
	g->cw = 1;
	g->pitch = 1;
	g->iw = (w - g->lw - (H - 1)) / H - 2;
	if (g->iw < 3 || nk <= 2 * g->iw || nk <= 128)   /* not long: the table says more */
		return 0;
	g->iw = g->iw < nk ? g->iw : nk;
	g->tw = g->iw + 2;
	g->rows = color && !canvas_ascii() ? 2 : 1;
	g->lines = (g->iw + 1) / 2;
	if (g->lines > h - 2)
		g->lines = h - 2;
	if (g->lines < 1)
		return 0;
	g->pr = g->lines * g->rows < nq ? g->lines * g->rows : nq;
	g->pc = g->iw;
	g->lines = (g->pr + g->rows - 1) / g->rows;
	g->per = h / (g->lines + 2);
	return g->per >= 1;
}

/* Head h of s pooled to g->pr × g->pc (max or mean) into out: from the
 * lazy trace's thumbnail when it has one, else from the data. */
static void pooled_head(const struct stage *s, int h, int mean, const struct tiles *g,
			float *out)
{
	int tr, tc;
	const float *th = stage_thumb(s, mean, &tr, &tc);
	if (th && tr >= g->pr && tc >= g->pc)
		stage_pool(th + (size_t)h * tr * tc, tr, tc, g->pr, g->pc, mean, out);
	else
		stage_pool(view_slice(s, h), s->shape[1], s->shape[2], g->pr, g->pc, mean, out);
}

/* Presenter (zoom z big): the rows of a tile with labels 2 or 3 lines
 * tall when every layer still fits down, and the layers a line or two
 * apart where h leaves room (under the keys' line). */
static void tiles_spread(struct tiles *g, enum zoom z, int L, int nq, int h)
{
	if (g->labels == 1 && g->per >= L) {
		g->pitch = view_pitch(z, h / L - 2, nq);
		g->lines = nq * g->pitch;
		g->per = h / (g->lines + 2);
	}
	if (g->per >= L)
		g->gap = view_spread(z, h - 1 - L * (g->lines + 2), L, 0, 2);
}

/* Lays the thumbnails out in w × h (zoom z: presenter spreads them);
 * returns 0 when they do not fit (a tile narrower than its keys, or not
 * one layer high). */
static int tiles_fit(struct tiles *g, enum zoom z, int H, int L, int nq, int nk, int w,
		     int h, int color, int qlw, int qlw2)
{
	/* the widest cells (up to 3 columns a key, presenter 6) at which the
	 * heads fit across, with room for the labels when there is */
	g->lw = 4;
	g->pitch = 1;
	g->gap = 0;
	const int widest = view_spread(z, w - g->lw - QLABEL_MAX - 3 * H, H * nk, 3, 6);
	for (g->cw = widest; g->cw >= 1; g->cw--) {
		g->iw = nk * g->cw;
		g->tw = g->iw + 2;
		if (g->lw + QLABEL_MAX + H * (g->tw + 1) - 1 <= w || g->cw == 1)
			break;
	}
	if (g->lw + H * (g->tw + 1) - 1 > w)
		return 0;
	/* without labels: half blocks (two rows a line) with colour, unless
	 * the terminal has ASCII only (views/ascii.c) */
	g->labels = 0;
	g->rows = color && !canvas_ascii() ? 2 : 1;
	g->lines = (nq + g->rows - 1) / g->rows;
	g->per = h / (g->lines + 2);
	/* labels beside the rows need a line per row: taken when they cost
	 * no layer on the page */
	int room = w - (H * (g->tw + 1) - 1);
	int lw = qlw < QLABEL_MAX ? qlw : QLABEL_MAX;
	int per_l = h / (nq + 2);
	if (room >= lw + 1 && lw >= 3 && per_l >= 1 &&
	    (per_l >= g->per || per_l >= L)) {
		g->labels = 1;
		g->rows = 1;
		g->lines = nq;
		g->lw = lw + 1 > 4 ? lw + 1 : 4;
		g->per = per_l;
	} else if (g->rows == 2 && room >= (qlw2 < 3 * QLABEL_MAX ? qlw2 : 3 * QLABEL_MAX) + 1) {
		g->labels = 2;   /* half blocks: the line's two tokens */
		g->lw = (qlw2 < 3 * QLABEL_MAX ? qlw2 : 3 * QLABEL_MAX) + 1;
	}
	tiles_spread(g, z, L, nq, h);
	return g->per >= 1;
}

static void draw_tile(struct view_state *v, struct canvas *c, struct rect r,
		      const struct stage *s, int h, int sel, const struct tiles *g,
		      const struct scale *sc, int x, int y)
{
	int nq = s->shape[1], nk = s->shape[2];
	const int color = c->depth != DEPTH_NONE;
	char buf[64], fit[64];
	/* title "h2 1.52" (entropy in bits), or "h2" when narrow; the tag */
	snprintf(buf, sizeof buf, "h%d %.2f", h, view_head_entropy(s, h));
	i18n_decimals(buf);
	if (utf8_width(buf) > g->iw)
		snprintf(buf, sizeof buf, "h%d", h);
	draw_tile_frame(c, r, x, y, g->tw, g->lines, sel, buf,
			attn_pattern_fit(view_head_pattern(s, h), g->iw, fit, sizeof fit));
	float *pool = NULL;
	const float *w;   /* [nq, nk], or pooled [pr, pc] */
	if (g->pr) {
		if (!(pool = malloc((size_t)g->pr * g->pc * sizeof *pool)))
			return;
		pooled_head(s, h, v->pool_mean != 0, g, pool);
		w = pool;
		nq = g->pr;
		nk = g->pc;
	} else {
		w = view_slice(s, h);
	}
	for (int line = 0; line < g->lines; line++) {
		int i0 = g->rows == 2 ? line * 2 : line / g->pitch;
		int i1 = g->rows == 2 && i0 + 1 < nq ? i0 + 1 : -1;
		for (int j = 0; j < nk * g->cw; j++) {
			float a = w[(size_t)i0 * nk + j / g->cw];
			if (!color) {
				clip_put(c, r, x + 1 + j, y + 1 + line, scale_glyph(sc, a),
					 COLOR_DEFAULT, COLOR_DEFAULT, 0);
			} else if (g->rows == 1) {
				clip_put(c, r, x + 1 + j, y + 1 + line, " ", COLOR_DEFAULT,
					 scale_color(sc, a), 0);
			} else {
				uint32_t bg = i1 >= 0 ? scale_color(sc, w[(size_t)i1 * nk + j / g->cw]) :
					      COLOR_DEFAULT;
				clip_put(c, r, x + 1 + j, y + 1 + line, "▀", scale_color(sc, a), bg, 0);
			}
		}
	}
	free(pool);
}

static void draw_tiles(struct view_state *v, struct canvas *c, struct rect r,
		       const struct family *f, const struct tiles *g, int y0, int first)
{
	const struct stage *s0 = f->w[f->cur];
	const int H = s0->shape[0], nq = s0->shape[1];
	const struct style lb = role_style(R_LABEL, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style cu = role_style(R_CURSOR, c->depth);
	struct scale sc = scale_for(s0, stage_f32(s0), 0);   /* weights: 0…1 */
	char buf[96], fit[96];
	for (int l = first; l < f->L && l < first + g->per; l++) {
		int y = y0 + (l - first) * (g->lines + 2 + g->gap);
		snprintf(buf, sizeof buf, "L%d", l);
		clip_text(c, r, r.x, y, g->lw, buf, l == f->cur ? &cu : &hd);
		for (int i = 0; g->labels && i < nq; i += g->labels) {
			char b2[96], both[200];
			trace_row_label(v->tr, s0->axes[1], i, buf, sizeof buf);
			if (g->labels == 2 && i + 1 < nq)
				snprintf(both, sizeof both, "%s/%s", buf,
					 trace_row_label(v->tr, s0->axes[1], i + 1, b2, sizeof b2));
			else
				snprintf(both, sizeof both, "%s", buf);
			text_fit(both, g->lw - 1, fit, sizeof fit);
			clip_rtext(c, r, r.x, y + 1 + i / g->labels * g->pitch + (g->pitch - 1) / 2,
				   g->lw - 1, fit, &lb);
		}
		for (int h = 0; h < H; h++)
			draw_tile(v, c, r, f->w[l], h, l == f->cur && h == v->head, g, &sc,
				  r.x + g->lw + h * (g->tw + 1), y);
	}
}

/* The table: a row per layer, a column per head, "1.52 self" in each. */
static void draw_table(struct view_state *v, struct canvas *c, struct rect r,
		       const struct family *f, int y0, int per, int first)
{
	const struct stage *s0 = f->w[f->cur];
	const int H = s0->shape[0], nk = s0->shape[2];
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style cu = role_style(R_CURSOR, c->depth);
	const int lw = 4, cw = (r.w - lw) / H > 14 ? 14 : (r.w - lw) / H;
	const double hmax = nk > 1 ? log2(nk) : 1;
	char buf[64], fit[64], tag[64];
	if (cw < 4)
		return;
	for (int h = 0; h < H; h++) {
		snprintf(buf, sizeof buf, "h%d", h);
		clip_text(c, r, r.x + lw + h * cw, y0, cw - 1, buf, &hd);
	}
	for (int l = first; l < f->L && l < first + per; l++) {
		int y = y0 + 1 + (l - first);
		snprintf(buf, sizeof buf, "L%d", l);
		clip_text(c, r, r.x, y, lw, buf, l == f->cur ? &cu : &hd);
		for (int h = 0; h < H; h++) {
			double e = view_head_entropy(f->w[l], h);
			const char *t = attn_pattern_fit(view_head_pattern(f->w[l], h), cw - 6, tag,
							 sizeof tag);
			snprintf(buf, sizeof buf, "%.2f %s", e, cw >= 7 ? t : "");
			i18n_decimals(buf);   /* (t: a pattern's name, no number) */
			struct style st = tx;
			if (c->depth != DEPTH_NONE) {
				/* sharp heads bright: the scale at 1 − entropy/max */
				struct scale sc = { 0, 0, 1, NULL };
				st.bg = scale_color(&sc, (float)(1 - e / hmax));
				st.fg = contrast_fg(st.bg);
			}
			if (l == f->cur && h == v->head)
				st = cu;
			struct rect cell = { r.x + lw + h * cw, y, cw - 1, 1 };
			canvas_fill(c, cell, " ", st.fg, st.bg, st.attr);
			clip_text(c, r, cell.x, y, cw - 1, text_fit(buf, cw - 1, fit, sizeof fit), &st);
		}
	}
}

/* One line naming the tiles' key columns in order: "key: source token:
 * <s> your cat …" (the query tokens are beside the rows). */
static void key_legend(const struct view_state *v, struct canvas *c, struct rect r,
		       const struct stage *ws, int y)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style la = role_style(R_LABEL, c->depth);
	char lab[96], ctb[64];
	int x = r.x + clip_text(c, r, r.x, y, r.w, view_col_title(ws, ctb, sizeof ctb), &mu);
	x += clip_text(c, r, x, y, r.x + r.w - x, ": ", &mu);
	for (int j = 0; j < ws->shape[2] && x < r.x + r.w; j++) {
		trace_axis_label(v->tr, ws->axes[2], j, lab, sizeof lab);
		x += clip_text(c, r, x, y, r.x + r.w - x, lab, &la) + 1;
	}
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct stage *ws = view_attn_weights(v->tr, view_stage(v));
	struct family f;
	char buf[256], fit[256];
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (!ws || find_family(v->tr, ws, &f)) {
		clip_text(c, r, r.x, r.y, r.w, _("the model view shows attention stages"), &mu);
		return;
	}
	const int H = ws->shape[0], nq = ws->shape[1], nk = ws->shape[2];
	v->head = clampi(v->head, 0, H - 1);
	int qlw = 3, qlw2 = 3, prev = 0;   /* one label a line; two ("a/b") */
	for (int i = 0; i < nq; i++) {
		char lab[96];
		int lw = utf8_width(trace_row_label(v->tr, ws->axes[1], i, lab, sizeof lab));
		qlw = lw > qlw ? lw : qlw;
		int l2 = i % 2 ? prev + 1 + lw : lw;
		qlw2 = l2 > qlw2 ? l2 : qlw2;
		prev = lw;
	}
	/* title, hint; the footer: the selected head and Enter */
	int hint = r.h >= 12 && !c->figure, foot = r.h >= 8;
	int y0 = r.y + 1 + hint + (r.h >= 16);
	int ah = r.y + r.h - foot - y0;
	struct tiles g = { 0 };
	int tiles = ah > 0 && (tiles_fit(&g, v->zoom, H, f.L, nq, nk, r.w, ah,
					 c->depth != DEPTH_NONE, qlw, qlw2) ||
			       tiles_pooled(&g, H, nq, nk, r.w, ah, c->depth != DEPTH_NONE));
	/* the keys' line under the tiles when it costs no layer (not for
	   pooled blocks) */
	int keys = tiles && !g.pr &&
		   ah - (g.per < f.L ? g.per : f.L) * (g.lines + 2 + g.gap) >= 1;
	int per = tiles ? g.per : ah - 1;
	if (per < 1)
		per = 1;
	int first = 0;
	view_follow(&first, f.cur, per, f.L);

	/* TRANSLATORS: the model view's title: the attention ("decoder.*.
	 * cross_attn"), layers × heads */
	snprintf(buf, sizeof buf, _("model view · %s.*.%s · %d layers × %d heads"), f.block,
		 f.attn, f.L, H);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, buf, &hd) + 2;
	int hx = r.x;
	if (per < f.L) {
		/* the layers on this page, of all */
		fmt_shown(buf, sizeof buf, r.w, (struct shown){ SH_LAYERS, first,
			  first + per < f.L ? per : f.L - first, f.L }, (struct shown){ 0 });
		if (x + utf8_width(buf) <= r.x + r.w)
			clip_text(c, r, x, r.y, r.x + r.w - x, buf, &ac);
		else if (r.h >= 2)   /* on the hint's line, before it */
			hx += clip_text(c, r, r.x, r.y + 1, r.w, buf, &ac) + 2;
	}
	if (hint && hx < r.x + r.w)
		/* TRANSLATORS: the model view's key hint under its title */
		clip_text(c, r, hx, r.y + 1, r.x + r.w - hx,
			  text_fit(_("↑↓ layer · h l [ ] head · Enter opens it · V back · tiles: "
				     "rows queries, columns keys, title entropy in bits"),
				   r.x + r.w - hx, fit, sizeof fit), &mu);
	if (ah > 0) {
		if (tiles)
			draw_tiles(v, c, r, &f, &g, y0, first);
		else
			draw_table(v, c, r, &f, y0, per, first);
	}
	if (keys)   /* the tiles' columns, in order (the table has none) */
		key_legend(v, c, r, ws, r.y + r.h - foot - 1);
	if (foot) {
		const char *pat = view_head_pattern(f.w[f.cur], v->head);
		/* TRANSLATORS: the model view's last line: the selected layer and
		 * head, its entropy (of the largest possible), its pattern */
		snprintf(buf, sizeof buf, _("layer %d head %d: mean row entropy %.2f bits (max %.2f)%s%s "
					    "· Enter opens it"), f.cur, v->head,
			 view_head_entropy(f.w[f.cur], v->head), nk > 1 ? log2(nk) : 0.0,
			 *pat ? " · " : "", pat);
		i18n_decimals(buf);
		clip_text(c, r, r.x, r.y + r.h - 1, r.w, text_fit(buf, r.w, fit, sizeof fit), &ac);
	}
}

/* ↑↓ choose the layer (the stepper moves to it), h l the head. */
static unsigned on_key(struct view_state *v, enum view_key k)
{
	const struct stage *w = view_attn_weights(v->tr, view_stage(v));
	int H = w ? w->shape[0] : 1;
	switch (k) {
	case VK_UP: return VR_LAYER_UP;
	case VK_DOWN: return VR_LAYER_DOWN;
	case VK_LEFT: v->head = (v->head + H - 1) % H; return VR_REDRAW;
	case VK_RIGHT: v->head = (v->head + 1) % H; return VR_REDRAW;
	default: return 0;
	}
}

static const struct view_help HELP[] = {
	/* TRANSLATORS: the help's lines of the model view's own keys */
	{ "↑ ↓", N_("model view: the layer above / below") },
	{ "h l", N_("model view: the head to the left / right") },
	{ NULL, NULL },
};

const struct view_class modelview_view = {
	.name = "model",
	.draw = draw,
	.on_key = on_key,
	.help = HELP,
};
