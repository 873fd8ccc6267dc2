/* maskdiff.c - the same head of the same attention stage from two passes
 * of one sentence, with the decoder's causal mask on and off, side by side
 * on one colour scale; below, what that did to the next-token
 * distribution at the cursor's row (top tokens of each pass, the change in
 * percentage points, and the total variation distance).
 *
 * v->tr is the pass on screen and v->alt the other one (may be NULL).  The
 * pass with the mask on is drawn on the left.  Everything shown is read
 * from the two traces; the differences and the distance are arithmetic on
 * stored values, for display.
 *
 * Dimension names: h heads, nq queries, nk keys, T decoder positions,
 * V target vocabulary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "palette.h"
#include "view.h"
#include "base/i18n.h"

#define TOPK_MAX 5

/* Text at (x, y), clipped to r.  Returns the columns used. */
static int put(struct canvas *c, struct rect r, int x, int y, const char *s,
	       struct style st)
{
	if (y < r.y || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
		return 0;
	return canvas_text(c, x, y, r.x + r.w - x, s, st.fg, st.bg, st.attr);
}

static int same_shape(const struct stage *a, const struct stage *b)
{
	if (!a || !b || a->ndim != b->ndim || a->dtype != b->dtype)
		return 0;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

static int neginf(float x)
{
	return isinf(x) && x < 0;
}

static int has_neginf(const float *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (neginf(m[i]))
			return 1;
	return 0;
}

/* The k largest entries of p[n] (k <= TOPK_MAX), largest first. */
static int top_k(const float *p, int n, int k, int *idx)
{
	int got = 0;
	for (; got < k && got < n; got++) {
		int best = -1;
		for (int j = 0; j < n; j++) {
			int taken = 0;
			for (int u = 0; u < got; u++)
				taken |= idx[u] == j;
			if (!taken && (best < 0 || p[j] > p[best]))
				best = j;
		}
		idx[got] = best;
	}
	return got;
}

/* For a weights stage, head h of its sibling ".masked" [nq, nk]: which
 * weights are 0 because their score was −∞.  NULL for other stages
 * (scores come before the mask; .masked shows its own −∞). */
static const float *mask_of(const struct trace *t, const struct stage *s,
			    int head)
{
	char nm[STAGE_NAME_MAX + 8];
	if (s->kind != SK_WEIGHTS)
		return NULL;
	const char *dot = strrchr(s->name, '.');
	int len = dot ? (int)(dot - s->name) : (int)strlen(s->name);
	snprintf(nm, sizeof nm, "%.*s.masked", len, s->name);
	const struct stage *m = trace_find(t, nm);
	return same_shape(m, s) ? view_slice(m, head) : NULL;
}

static struct cell *cell_at(struct canvas *c, struct rect r, int x, int y)
{
	if (x < r.x || y < r.y || x >= r.x + r.w || y >= r.y + r.h ||
	    x < 0 || y < 0 || x >= c->w || y >= c->h)
		return NULL;
	return &c->cells[(size_t)y * c->w + x];
}

/* Whether the −∞ glyph goes at column k of a masked cell cw wide (the
 * cursor's keeps its mark): where the view writes a cell's glyph, by its
 * width (fit 1–2, cells 3–6, numbers from 7). */
static int masked_glyph_at(int k, int cw, int cur, int color)
{
	if (cw <= 2)
		return !cur && (k == 0 || !color);
	if (cw <= 6)
		return k == cw / 2 || (!color && !cur);
	return k == 0;
}

/* Redraws the masked weights of a drawn matrix (geometry g) with the −∞
 * glyph and colour, so a 0 made by the mask does not pass for a small
 * weight: the colour on every line of a tall row, the glyph on its
 * middle one (on each without colour).  The cursor's cell keeps its mark. */
static void mark_masked(struct canvas *c, struct rect r,
			const struct grid_geom *g, const float *mask, int cols,
			int crow, int ccol)
{
	const int color = c->depth != DEPTH_NONE;
	if (!g->valid || !mask || g->rh < 1)
		return;
	const int ch = g->ch > 1 ? g->ch : 1, tall = ch - (ch >= 4);
	for (int i = 0; i < g->nr; i++) {
		const int row = g->top + i, y = grid_row_mid(g, i);
		for (int j = 0; j < g->nc; j++) {
			const int col = g->left + j, x = g->x0 + j * g->cw;
			const int cur = row == crow && col == ccol;
			struct cell *p;
			if (!neginf(mask[(size_t)row * cols + col]))
				continue;
			if (g->rh == 2) {   /* half blocks: top row fg, bottom bg */
				if (!cur && (p = cell_at(c, r, x, y))) {
					if (i % 2 == 0) {
						p->fg = NEGINF_BG;
					} else if (p->fg == NEGINF_BG && !strcmp(p->glyph, "▀")) {
						/* both halves −∞: the glyph, not a colour alone */
						snprintf(p->glyph, sizeof p->glyph, "%s", NEGINF_GLYPH);
						p->fg = NEGINF_FG;
						p->bg = NEGINF_BG;
					} else {
						p->bg = NEGINF_BG;
					}
				}
				continue;
			}
			/* (tall number cells keep their gap column blank) */
			const int w = g->cw - (ch > 1 && g->cw > 6);
			for (int l = 0; l < tall; l++) {
				const int yy = grid_row_top(g, i) + l;
				for (int k = 0; k < w; k++) {
					if (!(p = cell_at(c, r, x + k, yy)))
						continue;
					if ((yy == y || (!color && g->cw <= 6)) &&
					    masked_glyph_at(k, g->cw, cur, color))
						snprintf(p->glyph, sizeof p->glyph, "%s", NEGINF_GLYPH);
					if (color && !cur) {
						p->fg = NEGINF_FG;
						p->bg = NEGINF_BG;
					}
				}
			}
		}
	}
}

/* "with the causal mask" or "without the causal mask" over one half (the
 * pass on screen in the header colour). */
static void half_title(struct canvas *c, struct rect r, int x, int y, int w,
		       const struct trace *t, int current)
{
	char buf[96];
	struct style st = role_style(current ? R_HEADER : R_LABEL, c->depth);
	/* TRANSLATORS: the titles over the two matrices of the mask diff */
	snprintf(buf, sizeof buf, "%s", t->opts.causal ? _("with the causal mask") :
		 _("without the causal mask"));
	struct rect h = { x, y, w, 1 };
	if (h.x + h.w > r.x + r.w)
		h.w = r.x + r.w - h.x;
	if (y >= r.y && y < r.y + r.h)
		put(c, h, x, y, buf, st);
}

/* One line under the matrices: is there any difference, and why. */
static void diff_note(struct canvas *c, struct rect r, int y,
		      const struct stage *s, const struct trace *lt,
		      const struct trace *rt, const float *a, const float *b,
		      const float *ma, const float *mb, size_t n)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	char buf[200];
	double mx = 0;
	int one_side = 0;
	for (size_t i = 0; i < n; i++) {
		int xa = neginf(a[i]) || (ma && neginf(ma[i]));
		int xb = neginf(b[i]) || (mb && neginf(mb[i]));
		if (xa != xb) {
			one_side++;
			continue;
		}
		if (xa)
			continue;
		double d = fabs((double)a[i] - b[i]);
		if (d > mx)
			mx = d;
	}
	if (s->block == BLK_ENCODER || strncmp(s->name, "encoder.", 8) == 0) {
		if (lt->opts.encoder_causal == rt->opts.encoder_causal)
			snprintf(buf, sizeof buf,
				 _("the decoder's causal mask does not reach the encoder: "
				   "both sides are equal (max |Δ| %.3g)"), mx);
		else
			/* (the English says "entries" for one too) */
			snprintf(buf, sizeof buf, lt->opts.encoder_causal ?
				 P_("encoder causal mask ON on the left, OFF on the right: "
				    "max |Δ| %.3g, %d entries masked on one side",
				    "encoder causal mask ON on the left, OFF on the right: "
				    "max |Δ| %.3g, %d entries masked on one side", one_side) :
				 P_("encoder causal mask OFF on the left, ON on the right: "
				    "max |Δ| %.3g, %d entries masked on one side",
				    "encoder causal mask OFF on the left, ON on the right: "
				    "max |Δ| %.3g, %d entries masked on one side", one_side),
				 mx, one_side);
	} else if (s->kind == SK_SCORES && !ma && !has_neginf(a, n) &&
		   !has_neginf(b, n)) {
		snprintf(buf, sizeof buf,
			 _("the mask is applied after this stage (max |Δ| %.3g; "
			   "any difference comes from earlier layers)"), mx);
	} else if (strstr(s->name, "cross_attn")) {
		snprintf(buf, sizeof buf,
			 _("cross-attention has no causal mask; it changes through "
			   "the decoder states (max |Δ| %.3g)"), mx);
	} else {
		snprintf(buf, sizeof buf,
			 P_("%d entries masked on one side only; elsewhere max |Δ| %.3g",
			    "%d entries masked on one side only; elsewhere max |Δ| %.3g",
			    one_side), one_side, mx);
	}
	put(c, r, r.x, y, i18n_decimals(buf), mu);   /* (no token in it) */
}

/* The next-token distributions at the cursor's position: top tokens of
 * each pass, the change, and the total variation distance.  Draws from y
 * down, at most nl lines. */
static void next_token(struct canvas *c, struct rect r, int y, int nl,
		       const struct view_state *v, const struct stage *s,
		       const struct trace *lt, const struct trace *rt, int lw)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style wn = role_style(R_WARN, c->depth);
	const struct stage *pl = trace_find(lt, "probs");   /* [T, V] */
	const struct stage *pr = trace_find(rt, "probs");   /* [T, V] */
	char buf[200], nums[48], tok[96], fit[48], lab[64];
	if (nl < 1)
		return;
	if (!same_shape(pl, pr) || pl->ndim != 2 || pl->dtype != DT_F32 ||
	    pl->shape[0] < 1 || pl->shape[1] < 1) {
		put(c, r, r.x, y, _("no matching “probs” stage in the two passes"), wn);
		return;
	}
	const int T = pl->shape[0], V = pl->shape[1];
	/* the cursor's row when it is a position of the output, else the last */
	const enum axis ra = s->axes[s->ndim == 3 ? 1 : 0];
	int pos = T - 1, at_cursor = 0;
	if (ra == pl->axes[0] && v->row >= 0 && v->row < T) {
		pos = v->row;
		at_cursor = 1;
	}
	const float *p = stage_f32(pl) + (size_t)pos * V;   /* [V] left */
	const float *q = stage_f32(pr) + (size_t)pos * V;   /* [V] right */
	double tv = 0;
	for (int j = 0; j < V; j++)
		tv += fabs((double)p[j] - q[j]);
	tv *= 0.5;

	trace_axis_label(lt, pl->axes[0], pos, tok, sizeof tok);
	text_fit(tok, 16, fit, sizeof fit);
	lab[0] = 0;
	if (lt->label_tokens && pl->axes[0] == AX_TGT && pos < lt->T) {
		char lf[48];
		text_fit(lt->label_tokens[pos], 16, lf, sizeof lf);
		snprintf(lab, sizeof lab, _(", label “%s”"), lf);
	}
	/* TRANSLATORS: the last two %s are ", label “x”" (or empty) and
	 * ", the last" (the last position, or empty). */
	snprintf(buf, sizeof buf, _("next token after “%s” (position %d%s%s)"), fit,
		 pos, lab, at_cursor ? "" : _(", the last"));
	put(c, r, r.x, y++, buf, hd);
	if (--nl < 1)
		return;
	/* TRANSLATORS: Δ is the change in percentage points from the pass
	 * on the left to the one on the right, named by their causal mask. */
	snprintf(buf, sizeof buf, rt->opts.causal ?
		 (lt->opts.causal ?
		  _("total variation ½·Σ|p−q| = %.4f · Δ = ON − ON in points") :
		  _("total variation ½·Σ|p−q| = %.4f · Δ = ON − OFF in points")) :
		 (lt->opts.causal ?
		  _("total variation ½·Σ|p−q| = %.4f · Δ = OFF − ON in points") :
		  _("total variation ½·Σ|p−q| = %.4f · Δ = OFF − OFF in points")), tv);
	put(c, r, r.x, y++, i18n_decimals(buf), tx);
	if (--nl < 1)
		return;

	int k = nl < TOPK_MAX ? nl : TOPK_MAX;
	/* "1. token     12.3% Δ  +1.2" from one column into a half */
	int tw = lw - 19;
	tw = tw < 4 ? 4 : tw > 10 ? 10 : tw;
	int il[TOPK_MAX], ir[TOPK_MAX];
	int nk = top_k(p, V, k, il);
	top_k(q, V, k, ir);
	for (int i = 0; i < nk; i++) {
		for (int side = 0; side < 2; side++) {
			int id = side ? ir[i] : il[i];
			const float *mine = side ? q : p;
			double d = 100.0 * ((double)q[id] - p[id]);
			trace_axis_label(lt, AX_VOCAB, id, tok, sizeof tok);
			text_fit(tok, tw, fit, sizeof fit);
			int fw = utf8_width(fit);
			/* the numbers apart from the token: its own "5.2" stays */
			snprintf(nums, sizeof nums, "%5.1f%% Δ %+5.1f", 100.0 * mine[id], d);
			snprintf(buf, sizeof buf, "%d. %s%*s %s", i + 1, fit, tw - fw, "",
				 i18n_decimals(nums));
			int x = side ? r.x + lw + 1 : r.x;
			struct rect half = { x, r.y, lw, r.h };
			put(c, half, x + 1, y, buf, fabs(d) >= 0.05 ? tx : mu);
		}
		y++;
	}
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style wn = role_style(R_WARN, c->depth);
	const struct style bd = role_style(R_BORDER, c->depth);
	char buf[200];
	int rows, cols;

	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	view_dims(s, &rows, &cols);
	const int H = view_heads(s);
	const int head = v->head < 0 ? 0 : v->head >= H ? H - 1 : v->head;
	const size_t n = (size_t)rows * cols;
	const float *m = view_slice(s, head);   /* [nq, nk] */

	snprintf(buf, sizeof buf, _("mask diff · head %d of %d · %s"), head, H, s->name);
	put(c, r, r.x, r.y, buf, hd);

	const struct stage *as = v->alt ? trace_find(v->alt, s->name) : NULL;
	if (!as || !same_shape(s, as) || s->dtype != DT_F32) {
		/* only this pass: say why, and draw it alone */
		put(c, r, r.x, r.y + 1, !v->alt ?
		    _("mask diff needs the other pass — press d again") :
		    _("the other pass does not match this stage — press d again"), wn);
		struct scale sc = scale_for(s, m, n);
		struct rect area = { r.x, r.y + 3, r.w, r.h - 5 };
		half_title(c, r, r.x, r.y + 2, r.w, v->tr, 1);
		struct rect u = heatmap_draw(c, area, v->tr, s, m, rows, cols, &sc,
					     v->zoom, &v->top, &v->left, v->row,
					     v->col, &v->geom);
		const float *mk = mask_of(v->tr, s, head);
		mark_masked(c, area, &v->geom, mk, cols, v->row, v->col);
		if (area.y + u.h < r.y + r.h && area.h > 0)
			draw_legend(c, r.x, area.y + u.h, r.w, &sc,
				    has_neginf(m, n) || (mk && has_neginf(mk, n)));
		return;
	}
	const float *am = view_slice(as, head);  /* [nq, nk] */

	/* the pass with the mask on goes left */
	const int cur_left = v->tr->opts.causal || !v->alt->opts.causal;
	const struct trace *lt = cur_left ? v->tr : v->alt;
	const struct trace *rt = cur_left ? v->alt : v->tr;
	const float *lm = cur_left ? m : am, *rm = cur_left ? am : m;

	/* one scale for both sides */
	struct scale sc = scale_for(s, m, n);
	struct scale sa = scale_for(as, am, n);
	if (sc.diverging) {
		if (sa.hi > sc.hi) sc.hi = sa.hi;
		sc.lo = -sc.hi;
	} else {
		if (sa.hi > sc.hi) sc.hi = sa.hi;
		if (sa.lo < sc.lo) sc.lo = sa.lo;
	}

	/* heights: titles 2, matrices, legend, note, next-token block */
	int ntop = r.h >= 26 ? 5 : r.h >= 18 ? 3 : r.h >= 14 ? 2 : 0;
	int block = ntop ? ntop + 2 : 0;
	int gap = r.h >= 22 ? 1 : 0;
	int hm = r.h - 2 - 2 - gap - block;
	if (hm < 3) {   /* too short for the list: keep the matrices */
		block = gap = 0;
		hm = r.h - 4;
	}
	/* equal halves, so both sides pick the same zoom */
	const int lw = (r.w - 1) / 2, rw = lw;
	struct rect la = { r.x, r.y + 2, lw, hm }, ra = { r.x + lw + 1, r.y + 2, rw, hm };
	half_title(c, r, la.x, r.y + 1, lw, lt, lt == v->tr);
	half_title(c, r, ra.x, r.y + 1, rw, rt, rt == v->tr);

	/* this pass first (it owns the scroll), the other at the same place */
	struct rect cu = cur_left ? la : ra, ot = cur_left ? ra : la;
	const struct trace *ct = v->tr, *xt = v->alt;
	struct rect u1 = heatmap_draw(c, cu, ct, s, m, rows, cols, &sc, v->zoom,
				      &v->top, &v->left, v->row, v->col, &v->geom);
	int top = v->top, left = v->left;
	struct grid_geom og;
	struct rect u2 = heatmap_draw(c, ot, xt, as, am, rows, cols, &sc, v->zoom,
				      &top, &left, v->row, v->col, &og);
	const float *cmask = mask_of(ct, s, head), *omask = mask_of(xt, as, head);
	mark_masked(c, cu, &v->geom, cmask, cols, v->row, v->col);
	mark_masked(c, ot, &og, omask, cols, v->row, v->col);
	const float *lmask = cur_left ? cmask : omask;
	const float *rmask = cur_left ? omask : cmask;
	int uh = u1.h > u2.h ? u1.h : u2.h;
	for (int y = la.y; y < la.y + uh && y < r.y + r.h && lw < r.w; y++)
		put(c, r, r.x + lw, y, "│", bd);

	int y = la.y + uh;
	if (y < r.y + r.h)
		draw_legend(c, r.x, y, r.w, &sc,
			    has_neginf(lm, n) || has_neginf(rm, n) ||
			    (lmask && has_neginf(lmask, n)) ||
			    (rmask && has_neginf(rmask, n)));
	y++;
	if (y < r.y + r.h)
		diff_note(c, r, y, s, lt, rt, lm, rm, lmask, rmask, n);
	y += 1 + gap;
	if (block && y < r.y + r.h)
		next_token(c, r, y, r.y + r.h - y < block ? r.y + r.h - y : block,
			   v, s, lt, rt, lw);
}

const struct view_class maskdiff_view = {
	.name = "maskdiff",
	.draw = draw,
};
