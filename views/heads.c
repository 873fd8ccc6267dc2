/* heads.c - every head of one attention stage at once (like BertViz's model
 * view): a grid of small heatmaps on one shared colour scale, each titled
 * with its head, mean row entropy and pattern; or, with VM_MEAN, the
 * mean over heads as one heatmap (for long sequences).
 *
 * Dimension names: H heads, n rows (queries / tokens), m columns (keys /
 * dk).  The stage is [H, n, m]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"

#define GAP 1                 /* blank columns between tiles */
#define LONG_INPUT 128        /* longer: tiles pooled when they would show under half */

static int has_neginf(const float *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isinf(m[i]) && m[i] < 0)
			return 1;
	return 0;
}

/* --- the mean over heads --- */

static void draw_mean(struct view_state *v, struct canvas *c, struct rect r)
{
	char rtb[64], ctb[64];   /* the axes' titles */
	const struct stage *s = view_stage(v);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const int H = s->shape[0], n = s->shape[1], m = s->shape[2];
	const size_t per = (size_t)n * m;
	const float *all = stage_f32(s);   /* [H, n, m] */
	char buf[200];

	float *mean = malloc(per * sizeof *mean);   /* [n, m] */
	if (!mean) {
		clip_text(c, r, r.x, r.y, r.w, _("out of memory for the mean over heads"), &wa);
		return;
	}
	for (size_t i = 0; i < per; i++) {
		double sum = 0;
		for (int h = 0; h < H; h++)
			sum += all[(size_t)h * per + i];
		mean[i] = (float)(sum / H);
	}
	struct scale sc = scale_for(s, mean, per);

	int x = r.x;
	/* (the English says "heads" for one head too) */
	snprintf(buf, sizeof buf, P_("mean over %d heads", "mean over %d heads", H), H);
	x += clip_text(c, r, x, r.y, r.w, buf, &hd) + 2;
	snprintf(buf, sizeof buf, _("rows: %s · columns: %s"), view_row_title(s, rtb, sizeof rtb),
		 view_col_title(s, ctb, sizeof ctb));
	x += clip_text(c, r, x, r.y, r.x + r.w - x, buf, &mu) + 2;
	if (s->kind == SK_WEIGHTS) {
		const char *pat = attn_pattern(mean, n, m);
		/* TRANSLATORS: the last two %s are " · " and a pattern such
		 * as "previous token", or two empty strings. */
		snprintf(buf, sizeof buf, _("entropy %.2f bits%s%s"),
			 attn_entropy(mean, n, m), *pat ? " · " : "", pat);
		i18n_decimals(buf);
		clip_text(c, r, x, r.y, r.x + r.w - x, buf, &mu);
	}
	struct rect area = { r.x, r.y + 2, r.w, r.h - 4 };
	if (area.h >= 2 && area.w >= 2 && view_overview(v, c, rect_sub(r, r.x, r.y + 2, r.w, r.h - 2), n, m))
		overview_draw(v, c, rect_sub(r, r.x, r.y + 2, r.w, r.h - 2), s, mean, n, m, &sc);
	else if (area.h >= 2 && area.w >= 2) {
		struct rect u = heatmap_draw(c, area, v->tr, s, mean, n, m, &sc,
					     v->zoom, &v->top, &v->left, v->row,
					     v->col, &v->geom);
		int ly = area.y + u.h + 1;
		if (ly < r.y + r.h)
			draw_legend(c, r.x, ly, r.w, &sc, has_neginf(mean, per));
	}
	free(mean);
}

/* --- the grid of heads --- */

struct grid {
	int level;        /* title detail: 0 "h0 1.52 bits", 1 "h0 1.52b", 2 "h0" */
	int cw, ch;       /* a matrix cell: cw columns × ch lines (ch 0: half
	                     a line, two rows a line with "▀") */
	int ncv;          /* visible matrix columns in a tile */
	int iw, tw;       /* tile inner and outer width */
	int gc, gr;       /* tiles per grid row, grid rows */
	int cl;           /* screen lines of cells per tile */
	int vgr;          /* grid rows on screen */
};

static void head_title(char *buf, size_t n, int level, int h, double ent)
{
	if (level == 0)
		/* TRANSLATORS: a tile's title: head h, mean row entropy in bits;
		 * at most 13 columns. */
		snprintf(buf, n, _("h%d %.2f bits"), h, ent);
	else if (level == 1)
		/* TRANSLATORS: the same in at most 9 columns ("b" for bits). */
		snprintf(buf, n, _("h%d %.2fb"), h, ent);
	else
		snprintf(buf, n, "h%d", h);
	i18n_decimals(buf);
}

/* Lays out H tiles of an n × m matrix (rh matrix rows a screen line) in
 * w × ah cells at one title level.  Tries every number of tiles per row and
 * of grid rows on screen; prefers layouts that show every head with at
 * least a few rows and columns each, then the most cells.  Returns the
 * score (0: nothing fits). */
static long long layout(struct grid *g, int level, int H, int n, int m, int rh,
		   int cw, int ch, int w, int ah)
{
	const int tmin = level == 0 ? 13 : level == 1 ? 9 : 4;
	/* screen lines a tile needs, and matrix rows per line of cells */
	const int need = ch ? n * ch : (n + rh - 1) / rh;
	long long best = 0;
	int prev_gr = -1;
	for (int gc = 1; gc <= H; gc++) {
		int gr = (H + gc - 1) / gc;
		if (gr == prev_gr)
			continue;    /* same rows with fewer, wider tiles was better */
		prev_gr = gr;
		int iw = (w + GAP) / gc - GAP - 2;
		if (iw > (m * cw > tmin ? m * cw : tmin))
			iw = m * cw > tmin ? m * cw : tmin;
		if (iw < cw)
			continue;
		int ncv = m < iw / cw ? m : iw / cw;
		for (int vgr = gr; vgr >= 1; vgr--) {
			int cl = ah / vgr - 2;
			cl = cl > need ? need : cl;
			if (cl < 1)
				continue;
			int heads = H < vgr * gc ? H : vgr * gc;
			int rows_fit = ch ? cl / ch : cl * rh;
			int nrv = n < rows_fit ? n : rows_fit;
			if (nrv < 1)
				continue;
			int good = heads == H && nrv >= (n < 4 ? n : 4) &&
				   ncv >= (m < 8 ? m : 8);
			int all = good && nrv == n && ncv == m && iw >= tmin;
			long long score = ((long long)all << 42) + ((long long)good << 40) +
				     (long long)heads * ncv * nrv;
			if (score >= best && score > 0) {
				best = score;
				*g = (struct grid){ level, cw, ch, ncv, iw, iw + 2,
						    (H + gr - 1) / gr, gr, ch ? nrv * ch : cl, vgr };
			}
		}
	}
	return best;
}

/* Pooled tiles (a matrix longer than a tile): the block side b, the
 * pooled head (max, or mean with v->pool_mean) into buf [n/b, m/b]. */
struct pooled {
	int b;
	float *buf;
};

static void draw_tile(struct view_state *v, struct canvas *c, struct rect r,
		      const struct stage *s, const struct grid *g,
		      const struct scale *sc, int h, int tx, int ty, int nrv,
		      const struct pooled *pl)
{
	int n = s->shape[1], m = s->shape[2];
	const int color = c->depth != DEPTH_NONE, rh = color && !canvas_ascii() ? 2 : 1;
	const int sel = h == v->head;
	char buf[64], fit[64];
	const int cx0 = tx + 1 + (g->iw - g->ncv * g->cw) / 2;   /* cells centred */

	/* frame, title in the top border, pattern in the bottom one */
	double ent = s->kind == SK_WEIGHTS ? view_head_entropy(s, h) : 0;
	head_title(buf, sizeof buf, s->kind == SK_WEIGHTS ? g->level : 2, h, ent);
	draw_tile_frame(c, r, tx, ty, g->tw, g->cl, sel, buf, s->kind == SK_WEIGHTS ?
			attn_pattern_fit(view_head_pattern(s, h), g->iw, fit, sizeof fit) : NULL);
	const float *w = view_slice(s, h);   /* [n, m] */
	int crow = v->row, ccol = v->col;
	if (pl->b > 1) {   /* [n/b, m/b] */
		const int pn = (n + pl->b - 1) / pl->b, pm = (m + pl->b - 1) / pl->b;
		stage_pool(w, n, m, pn, pm, v->pool_mean != 0, pl->buf);
		w = pl->buf;
		n = pn;
		m = pm;
		crow /= pl->b;
		ccol /= pl->b;
	}

	if (g->ch) {
		/* big cells: cw × ch blocks of colour (shade glyphs without) */
		for (int i = 0; i < nrv; i++) {
			int row = v->top + i;
			for (int j = 0; j < g->ncv; j++) {
				int col = v->left + j;
				float a = w[(size_t)row * m + col];
				int cur = sel && row == crow && col == ccol;
				uint32_t bg = color ? scale_color(sc, a) : COLOR_DEFAULT;
				const char *gl = color ? " " : scale_glyph(sc, a);
				if (isinf(a) && a < 0)
					gl = NEGINF_GLYPH;
				for (int yy = 0; yy < g->ch; yy++)
					for (int xx = 0; xx < g->cw; xx++) {
						const char *gg = gl;
						uint32_t fg = color ? NEGINF_FG : COLOR_DEFAULT;
						uint8_t at = 0;
						if (cur && (xx == 0 || xx == g->cw - 1) && yy == 0) {
							gg = xx == 0 ? "[" : "]";
							fg = color ? CURSOR_MARK : COLOR_DEFAULT;
							at = ATTR_BOLD;
						}
						clip_put(c, r, cx0 + j * g->cw + xx, ty + 1 + i * g->ch + yy,
						    gg, fg, bg, at);
					}
			}
		}
		if (sel)
			v->geom = (struct grid_geom){ 1, cx0, ty + 1, g->cw, 1, v->top,
						      v->left, nrv, g->ncv, g->ch };
		return;
	}
	/* cells: two matrix rows a line with colour (▀: fg top, bg bottom) */
	for (int line = 0; line < g->cl; line++) {
		int i0 = v->top + line * rh;
		if (i0 >= v->top + nrv)
			break;
		int i1 = rh == 2 && i0 + 1 < v->top + nrv ? i0 + 1 : -1;
		int y = ty + 1 + line;
		for (int j = 0; j < g->ncv; j++) {
			int col = v->left + j, x = cx0 + j;
			float a = w[(size_t)i0 * m + col];
			int cur0 = sel && i0 == crow && col == ccol;
			if (color) {
				uint32_t fg = cur0 ? CURSOR_MARK : scale_color(sc, a);
				uint32_t bg = COLOR_DEFAULT;
				if (i1 >= 0)
					bg = sel && i1 == crow && col == ccol ?
					     CURSOR_MARK : scale_color(sc, w[(size_t)i1 * m + col]);
				int cur1 = sel && i1 == crow && col == ccol;
				if (!cur0 && !cur1 && isinf(a) && a < 0 &&
				    (i1 < 0 || (isinf(w[(size_t)i1 * m + col]) && w[(size_t)i1 * m + col] < 0)))
					clip_put(c, r, x, y, NEGINF_GLYPH, NEGINF_FG, NEGINF_BG, 0);
				else
					clip_put(c, r, x, y, "▀", fg, bg, 0);
			} else if (cur0) {
				clip_put(c, r, x, y, "@", COLOR_DEFAULT, COLOR_DEFAULT,
				    ATTR_REVERSE | ATTR_BOLD);
			} else {
				clip_put(c, r, x, y, scale_glyph(sc, a), COLOR_DEFAULT,
				    COLOR_DEFAULT, 0);
			}
		}
	}
	if (sel)
		v->geom = (struct grid_geom){ 1, cx0, ty + 1, 1, rh, v->top,
					      v->left, nrv, g->ncv, 0 };
}

#define GRID_ALL (1LL << 42)
/* The grid's layout in w × ah: the biggest cells at which every head
 * fits whole, with the most telling titles; else the smallest cells (half
 * blocks) and scrolling, or for a long matrix (past LONG_INPUT, when that
 * would show under half of it) every head whole, pooled into blocks of
 * *b × *b (1: not pooled).  Returns layout's score. */
static long long grid_fit(const struct stage *s, int rh, int w, int ah, struct grid *g, int *b)
{
	static const int SIZES[][2] = { { 5, 2 }, { 4, 2 }, { 3, 2 }, { 3, 1 }, { 2, 1 }, { 1, 0 } };
	const int H = s->shape[0], n = s->shape[1], m = s->shape[2];
	const int level0 = s->kind == SK_WEIGHTS ? 0 : 2;
	struct grid tryg = { 2, 1, 0, 0, 0, 2, 1, 1, 1, 1 };
	long long best = 0;
	*g = tryg;
	*b = 1;
	for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES && best < GRID_ALL; k++) {
		int cw = SIZES[k][0], ch = SIZES[k][1];
		if (rh == 1 && ch == 0)
			ch = 1;   /* no half blocks without colour or UTF-8 */
		for (int level = level0; level <= 2; level++) {
			long long sc_l = layout(&tryg, level, H, n, m, rh, cw, ch, w, ah);
			if (sc_l > best && (sc_l >= GRID_ALL || cw == 1)) {
				best = sc_l;
				*g = tryg;
			}
		}
	}
	const int seen_r = g->ch ? g->cl / g->ch : g->cl * rh;   /* rows a tile shows */
	if (best >= GRID_ALL || (n <= LONG_INPUT && m <= LONG_INPUT) ||
	    (2 * seen_r >= n && 2 * g->ncv >= m))
		return best;
	for (int bb = 2; best < GRID_ALL && bb <= (n > m ? n : m); bb += bb < 8 ? 1 : bb / 4) {
		int bn = (n + bb - 1) / bb, bm = (m + bb - 1) / bb;
		for (int level = level0; level <= 2 && best < GRID_ALL; level++) {
			long long sc_l = layout(&tryg, level, H, bn, bm, rh, 1, rh == 1, w, ah);
			if (sc_l >= GRID_ALL) {
				best = sc_l;
				*g = tryg;
				*b = bb;
			}
		}
	}
	return best;
}

#define ROW_LABEL_MAX 12

/* The width of the query tokens beside the tiles, one a line or two
 * ("a/b", pairs: half blocks), at most ROW_LABEL_MAX (pairs: 2 + 2 × it);
 * 0 for a stage whose rows are not tokens. */
static int row_label_width(const struct view_state *v, const struct stage *s, int pairs)
{
	char lab[96];
	int w = 0, prev = 0;
	if (s->axes[1] != AX_SRC && s->axes[1] != AX_TGT)
		return 0;
	for (int i = 0; i < s->shape[1] && i < 512; i++) {
		int k = utf8_width(trace_row_label(v->tr, s->axes[1], i, lab, sizeof lab));
		int e = pairs && i % 2 ? prev + 1 + k : k;
		w = e > w ? e : w;
		prev = k;
	}
	int cap = pairs ? 2 * ROW_LABEL_MAX + 2 : ROW_LABEL_MAX;
	return w > cap ? cap : w;
}

/* The layout with the query tokens left of the tiles (lw columns) and the
 * keys in a line under them (keys 1), whenever every head still fits whole
 * beside them; else choose_grid's in all of w × ah (lw = keys = 0). */
static long long choose_labelled(struct grid *g, const struct view_state *v,
				 const struct stage *s, int rh, int w, int ah, int *lw, int *keys,
				 int *b)
{
	struct grid g2;
	int b2;
	*lw = row_label_width(v, s, 0);
	*keys = *lw && ah >= 8;
	long long best = *lw ? grid_fit(s, rh, w - *lw - 1, ah - *keys, g, b) : 0;
	if (*b > 1)
		best = 0;   /* pooled blocks of a long input: no token a row */
	int lw2 = best >= GRID_ALL && !g->ch ? row_label_width(v, s, 1) : 0;
	if (lw2 > *lw && grid_fit(s, rh, w - lw2 - 1, ah - *keys, &g2, &b2) >= GRID_ALL &&
	    b2 == 1) {
		*g = g2;   /* half blocks: room for both tokens of a line */
		*lw = lw2;
	}
	if (best >= GRID_ALL)
		return best;
	*lw = *keys = 0;
	return grid_fit(s, rh, w, ah, g, b);
}

/* The query tokens left of the tiles of a grid row at ty (lw columns at
 * x): one a matrix row; with half blocks the line's two, "a/b". */
static void draw_row_labels(const struct view_state *v, struct canvas *c, struct rect r,
			    const struct stage *s, const struct grid *g, int x, int lw, int ty,
			    int nrv, int rh)
{
	const struct style la = role_style(R_LABEL, c->depth);
	const struct style cu = role_style(R_CURSOR, c->depth);
	char a[96], b[96], both[200], fit[64];
	const int lines = g->ch ? nrv : (nrv + rh - 1) / rh;
	for (int k = 0; k < lines; k++) {
		int i0 = v->top + (g->ch ? k : k * rh), i1 = g->ch ? -1 : i0 + 1;
		if (i1 >= v->top + nrv)
			i1 = -1;
		trace_row_label(v->tr, s->axes[1], i0, a, sizeof a);
		if (i1 >= 0)
			snprintf(both, sizeof both, "%s/%s", a, trace_row_label(v->tr, s->axes[1], i1,
										b, sizeof b));
		else
			snprintf(both, sizeof both, "%s", a);
		text_fit(both, lw, fit, sizeof fit);
		int y = ty + 1 + (g->ch ? k * g->ch : k);
		int cur = v->row == i0 || v->row == i1;
		clip_rtext(c, r, x, y, lw, fit, cur ? &cu : &la);
	}
}

/* One line naming the key columns in order: "keys: <s> your cat …". */
static void draw_col_legend(const struct view_state *v, struct canvas *c, struct rect r,
			    const struct stage *s, int y, int ncv)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style la = role_style(R_LABEL, c->depth);
	char lab[96];
	char ctb[64];
	int x = r.x + clip_text(c, r, r.x, y, r.w, view_col_title(s, ctb, sizeof ctb), &mu);
	x += clip_text(c, r, x, y, r.x + r.w - x, ": ", &mu);
	for (int j = v->left; j < v->left + ncv && x < r.x + r.w; j++) {
		trace_axis_label(v->tr, s->axes[2], j, lab, sizeof lab);
		x += clip_text(c, r, x, y, r.x + r.w - x, lab, &la) + 1;
	}
}

static void draw_grid(struct view_state *v, struct canvas *c, struct rect r)
{
	char rtb[64], ctb[64];   /* the axes' titles */
	const struct stage *s = view_stage(v);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const int H = s->shape[0], n = s->shape[1], m = s->shape[2];
	const float *all = stage_f32(s);   /* [H, n, m] */
	const size_t numel = (size_t)H * n * m;
	/* half blocks (two rows a line) need colour and UTF-8 (ASCII:
	 * views/ascii.c has no half block, so one row a line) */
	const int color = c->depth != DEPTH_NONE, rh = color && !canvas_ascii() ? 2 : 1;
	struct scale sc = scale_for(s, all, numel);   /* one scale for all heads */
	char buf[200];

	/* lines around the grid, dropped from the least useful as r shrinks */
	int head = r.h >= 3, gap1 = r.h >= 14;
	int nfoot = r.h >= 12 ? 3 : r.h >= 8 ? 2 : r.h >= 5 ? 1 : 0;
	int gap2 = r.h >= 16;
	int ah = r.h - head - gap1 - nfoot - gap2;
	int y0 = r.y + head + gap1;

	struct grid g;
	struct pooled pl = { 1, NULL };
	int lw, keys;
	long long best = choose_labelled(&g, v, s, rh, r.w, ah, &lw, &keys, &pl.b);
	ah -= keys;
	const int pn = (n + pl.b - 1) / pl.b, pm = (m + pl.b - 1) / pl.b;
	if (pl.b > 1 && !(pl.buf = malloc((size_t)pn * pm * sizeof *pl.buf)))
		pl.b = 1;
	/* visible matrix rows */
	int nrv = g.ch ? (pn < g.cl / g.ch ? pn : g.cl / g.ch) : (pn < g.cl * rh ? pn : g.cl * rh);
	if (pl.b > 1) {
		v->top = v->left = 0;
	} else {
		view_follow(&v->top, v->row, nrv, n);
		view_follow(&v->left, v->col, g.ncv, m);
	}
	int gfirst = 0;
	view_follow(&gfirst, v->head / g.gc, g.vgr, g.gr);

	if (head) {
		/* what is shown first (it changes with the cursor), then axes */
		int x = r.x, n0 = 0;
		char fit[200];
		snprintf(buf, sizeof buf, P_("all %d heads", "all %d heads", H), H);
		x += clip_text(c, r, x, r.y, r.w, buf, &hd) + 2;
		buf[0] = 0;
		char part[200];
		const int kv = v->tr->kv_heads;
		if (kv > 0 && s->kind != SK_PERHEAD && H % kv == 0 && H > kv)
			/* TRANSLATORS: grouped-query attention: each run of query
			   heads reads one key/value head */
			n0 += snprintf(buf + n0, sizeof buf - n0, _("%d key/value heads: h0–h%d read kv0, "
				       "h%d–h%d kv1… · "), kv, H / kv - 1, H / kv, 2 * H / kv - 1);
		if (g.vgr < g.gr) {
			const struct shown hs = { SH_HEADS, gfirst * g.gc, g.vgr * g.gc, H };
			n0 += snprintf(buf + n0, sizeof buf - n0, "%s · ",
				       fmt_shown(part, sizeof part, r.w, hs, (struct shown){ 0 }));
		}
		/* every tile shows the same rows and columns */
		const struct shown sr = { SH_ROWS, v->top, nrv, n }, sc2 = { SH_COLUMNS, v->left, g.ncv, m };
		if (pl.b > 1)
			/* TRANSLATORS: the heads grid of a long input: each tile
			 * is the whole matrix, n × m pooled to pn × pm blocks */
			n0 += snprintf(buf + n0, sizeof buf - n0, v->pool_mean ?
				       _("each %d × %d pooled to %d × %d by mean (Z: max) · ") :
				       _("each %d × %d pooled to %d × %d by max (Z: mean) · "),
				       n, m, pn, pm);
		else if (*fmt_shown(part, sizeof part, 1000, sr, sc2))
			n0 += snprintf(buf + n0, sizeof buf - n0, "%s · ", part);
		snprintf(buf + n0, sizeof buf - n0, _("rows: %s · columns: %s · one scale"),
			 view_row_title(s, rtb, sizeof rtb), view_col_title(s, ctb, sizeof ctb));
		if (r.x + r.w - x > 0) {
			text_fit(buf, r.x + r.w - x, fit, sizeof fit);
			clip_text(c, r, x, r.y, r.x + r.w - x, fit, &mu);
		}
	}

	v->geom.valid = 0;
	int tiles_h = 0;
	if (best > 0 && nrv > 0 && g.ncv > 0) {
		for (int h = gfirst * g.gc; h < H && h / g.gc < gfirst + g.vgr; h++) {
			int tx = r.x + (lw ? lw + 1 : 0) + (h % g.gc) * (g.tw + GAP);
			int ty = y0 + (h / g.gc - gfirst) * (g.cl + 2);
			draw_tile(v, c, r, s, &g, &sc, h, tx, ty, nrv, &pl);
			if (lw && h % g.gc == 0)
				draw_row_labels(v, c, r, s, &g, r.x, lw, ty, nrv, rh);
		}
		tiles_h = g.vgr * (g.cl + 2);
	}
	if (keys && tiles_h)
		draw_col_legend(v, c, r, s, y0 + (tiles_h < ah ? tiles_h : ah), g.ncv);
	free(pl.buf);
	if (pl.b > 1)
		v->geom.valid = 0;   /* a click cannot name one entry of a block */

	/* footer: the selected head's diagnostics, the legend, the hint */
	int y = y0 + (tiles_h < ah ? tiles_h : ah) + keys + gap2;
	if (nfoot >= 3) {
		if (s->kind == SK_WEIGHTS) {
			const char *pat = view_head_pattern(s, v->head);
			snprintf(buf, sizeof buf,
				 _("head %d: mean row entropy %.2f bits (max %.2f)%s%s"),
				 v->head, view_head_entropy(s, v->head), m > 1 ? log2(m) : 0.0,
				 *pat ? " · " : "", pat);
			i18n_decimals(buf);
		} else {
			snprintf(buf, sizeof buf, _("head %d selected (framed)"), v->head);
		}
		clip_text(c, r, r.x, y++, r.w, buf, &mu);
	}
	if (nfoot >= 2 && y < r.y + r.h)
		draw_legend(c, r.x, y++, r.w, &sc, s->kind != SK_WEIGHTS && has_neginf(all, numel));
	if (nfoot >= 1) {
		snprintf(buf, sizeof buf, _("Enter: open head %d"), v->head);
		clip_text(c, r, r.x, y, r.w, buf, &ac);
	}
}

/* --- a figure: every head a labelled heatmap --- */

/* For slides and papers (c->figure): each head drawn as a heatmap with
 * its row and column tokens and its title, on the one shared scale, as
 * many side by side as fit; no selection, no key hint. */
static void draw_figure_grid(struct view_state *v, struct canvas *c, struct rect r)
{
	char rtb[64], ctb[64];   /* the axes' titles */
	const struct stage *s = view_stage(v);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style la = role_style(R_HEADER, c->depth);
	const int H = s->shape[0], n = s->shape[1], m = s->shape[2];
	const float *all = stage_f32(s);   /* [H, n, m] */
	const size_t numel = (size_t)H * n * m;
	struct scale sc = scale_for(s, all, numel);   /* one scale for all heads */
	char buf[200];

	/* (the figure's title says "all N heads") */
	snprintf(buf, sizeof buf, _("rows: %s · columns: %s · one scale"),
		 view_row_title(s, rtb, sizeof rtb), view_col_title(s, ctb, sizeof ctb));
	clip_text(c, r, r.x, r.y, r.w, buf, &mu);

	/* the size of one panel: head 0 drawn on a scratch canvas */
	struct canvas *tmp = canvas_new(r.w, r.h, c->depth);
	if (!tmp)
		return;
	tmp->figure = 1;
	int top = 0, left = 0;
	struct rect u = heatmap_draw(tmp, (struct rect){ 0, 0, r.w, r.h - 4 }, v->tr, s,
				     all, n, m, &sc, v->zoom, &top, &left, -1, -1, NULL);
	canvas_free(tmp);
	if (u.w < 1 || u.h < 1)
		return;
	const int pw = u.w + 3, ph = u.h + 2;   /* title line and a gap */
	int per_row = (r.w + 3) / pw;
	per_row = per_row < 1 ? 1 : per_row > H ? H : per_row;
	per_row = (H + (H + per_row - 1) / per_row - 1) / ((H + per_row - 1) / per_row);
	int y0 = r.y + 2;
	for (int h = 0; h < H; h++) {
		const float *w = view_slice(s, h);   /* [n, m] */
		int px = r.x + (h % per_row) * pw, py = y0 + (h / per_row) * ph;
		if (s->kind == SK_WEIGHTS) {
			const char *pat = attn_pattern(w, n, m);
			snprintf(buf, sizeof buf, _("head %d · %.2f bits%s%s"), h,
				 attn_entropy(w, n, m), *pat ? " · " : "", pat);
			i18n_decimals(buf);
		} else {
			snprintf(buf, sizeof buf, _("head %d"), h);
		}
		clip_text(c, r, px, py, u.w, buf, &la);
		top = left = 0;
		heatmap_draw(c, rect_sub(r, px, py + 1, u.w, u.h), v->tr, s, w, n, m,
			     &sc, v->zoom, &top, &left, -1, -1, NULL);
	}
	int ly = y0 + ((H + per_row - 1) / per_row) * ph;
	if (ly < r.y + r.h)
		draw_legend(c, r.x, ly, r.w, &sc, has_neginf(all, numel));
	v->geom.valid = 0;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (s->ndim != 3 || s->dtype != DT_F32 || s->shape[0] < 1 ||
	    s->shape[1] < 1 || s->shape[2] < 1) {
		const struct style mu = role_style(R_MUTED, c->depth);
		clip_text(c, r, r.x, r.y, r.w, _("this stage has no heads"), &mu);
		return;
	}
	if (v->mode == VM_MEAN)
		draw_mean(v, c, r);
	else if (c->figure)
		draw_figure_grid(v, c, r);
	else
		draw_grid(v, c, r);
}

const struct view_class heads_view = {
	.name = "heads",
	.draw = draw,
};
