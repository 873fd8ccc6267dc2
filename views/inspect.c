/* inspect.c - the cell inspector (BertViz's neuron view): how one query
 * token's attention to one key token is made, term by term.
 *
 * For head h, query row i and key column j of an attention stage it shows,
 * from the sibling stages under the same prefix ("decoder.1.cross_attn"):
 *   q[i]·k[j] as the products q_a·k_a, a = 0…dk−1, and their sum;
 *   ÷ √dk, next to the stored .scores entry;
 *   the mask entry (0 or −∞, from .masked) and the softmax weight
 *   (.weights), with the whole weight row as a strip;
 *   the key's share of the head output: weight × v[j] next to .heads[i].
 * Scores, weights and outputs are read from the trace; the products and
 * weight × v are the picture of the formula, multiplied only for display.
 *
 * Dimension names: h heads, nq queries, nk keys, dk = d/h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"

#define LABEL_W 9      /* the label column left of a row of cells */

/* The sibling stages of one attention block. */
struct attn {
	char prefix[STAGE_NAME_MAX];
	const struct stage *q, *k, *v;            /* [h, nq|nk, dk] */
	const struct stage *scores, *masked;      /* [h, nq, nk] */
	const struct stage *weights;              /* [h, nq, nk] */
	const struct stage *heads;                /* [h, nq, dk] */
	int h, nq, nk, dk;
	int cross;
};

static const struct stage *sibling(const struct trace *t, const char *prefix,
				   const char *suffix)
{
	char nm[STAGE_NAME_MAX + 16];
	snprintf(nm, sizeof nm, "%s.%s", prefix, suffix);
	return trace_find(t, nm);
}

static int shape_is(const struct stage *s, int a, int b, int c)
{
	return s && s->dtype == DT_F32 && s->ndim == 3 && s->shape[0] == a &&
	       s->shape[1] == b && s->shape[2] == c;
}

/* Finds the block's stages; returns 0 when all are there with shapes that
 * agree, else -1 with what is missing in why. */
static int attn_find(const struct trace *t, const struct stage *s,
		     struct attn *a, char *why, size_t n)
{
	memset(a, 0, sizeof *a);
	const char *dot = strrchr(s->name, '.');
	size_t len = dot ? (size_t)(dot - s->name) : strlen(s->name);
	if (len >= sizeof a->prefix)
		len = sizeof a->prefix - 1;
	memcpy(a->prefix, s->name, len);
	a->prefix[len] = 0;
	a->cross = strstr(a->prefix, "cross_attn") != NULL;

	static const char *const names[] = { "q", "k", "v", "scores", "masked",
					     "weights", "heads" };
	const struct stage **slot[] = { &a->q, &a->k, &a->v, &a->scores,
					&a->masked, &a->weights, &a->heads };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		*slot[i] = sibling(t, a->prefix, names[i]);
		if (!*slot[i]) {
			snprintf(why, n, _("no stage %s.%s in this trace"), a->prefix,
				 names[i]);
			return -1;
		}
	}
	if (a->q->ndim != 3 || a->weights->ndim != 3) {
		snprintf(why, n, _("%s: not a per-head attention block"), a->prefix);
		return -1;
	}
	a->h = a->q->shape[0];
	a->nq = a->q->shape[1];
	a->dk = a->q->shape[2];
	a->nk = a->weights->shape[2];
	if (!shape_is(a->q, a->h, a->nq, a->dk) ||
	    !shape_is(a->k, a->h, a->nk, a->dk) ||
	    !shape_is(a->v, a->h, a->nk, a->dk) ||
	    !shape_is(a->scores, a->h, a->nq, a->nk) ||
	    !shape_is(a->masked, a->h, a->nq, a->nk) ||
	    !shape_is(a->weights, a->h, a->nq, a->nk) ||
	    !shape_is(a->heads, a->h, a->nq, a->dk) || a->dk < 1 || a->nk < 1 ||
	    a->nq < 1 || a->h < 1) {
		snprintf(why, n, _("%s: the stages' shapes do not agree"), a->prefix);
		return -1;
	}
	return 0;
}

/* Row i of head hh of a [h, n, m] stage. */
static const float *row_of(const struct stage *s, int hh, int i)
{
	return stage_f32(s) + ((size_t)hh * s->shape[1] + i) * s->shape[2];
}

/* Text at (x, y), clipped to r.  Returns the columns used. */
static int put(struct canvas *c, struct rect r, int x, int y, const char *s,
	       struct style st)
{
	if (y < r.y || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
		return 0;
	return canvas_text(c, x, y, r.x + r.w - x, s, st.fg, st.bg, st.attr);
}

/* A number in at most w columns ("−∞" for a masked entry). */
static const char *num_fit(char *buf, size_t n, float x, int w)
{
	return fmt_cell_fit(buf, n, x, w);
}

/* Cell width for n values in avail columns: numbers, coloured cells, or
 * one column each; presenter (zoom z big): as wide as avail allows, each
 * kind up to a little wider. */
static int pick_cw(enum zoom z, int n, int avail)
{
	const int cw = n * 7 <= avail ? 7 : n * 3 <= avail ? 3 : 1;
	return view_spread(z, avail, n, cw, cw == 7 ? 9 : cw == 3 ? 6 : 2);
}

/* One line of a cell of width cw at (x, y) showing val (marked: the
 * selected one; masked: a weight that is 0 because its score was −∞,
 * drawn with the −∞ glyph and colour so it does not pass for a small
 * weight). */
static void cell_line(struct canvas *c, struct rect r, int x, int y, float val,
		      const struct scale *sc, int cw, int marked, int masked)
{
	const int color = c->depth != DEPTH_NONE;
	const int neginf = (isinf(val) && val < 0) || masked;
	uint32_t bg = !color ? COLOR_DEFAULT : neginf ? NEGINF_BG : scale_color(sc, val);
	uint32_t fg = color ? (neginf ? NEGINF_FG : contrast_fg(bg)) : COLOR_DEFAULT;
	uint32_t mk = color ? CURSOR_MARK : COLOR_DEFAULT;
	char buf[32], num[16];
	if (y < r.y || y >= r.y + r.h || x < r.x || x + cw > r.x + r.w)
		return;
	if (cw >= 7) {
		num_fit(num, sizeof num, val, 5);
		int w = utf8_width(num);
		snprintf(buf, sizeof buf, "%*s%s ", cw - 1 - w, "", num);
		canvas_text(c, x, y, cw, buf, fg, bg, 0);
		if (masked)
			canvas_put(c, x + (marked ? 1 : 0), y, NEGINF_GLYPH, fg, bg, 0);
		if (marked) {
			canvas_put(c, x, y, "[", mk, bg, ATTR_BOLD);
			canvas_put(c, x + cw - 1, y, "]", mk, bg, ATTR_BOLD);
		}
		return;
	}
	const char *g = color ? " " : scale_glyph(sc, val);
	if (neginf)
		g = NEGINF_GLYPH;
	if (cw >= 3) {
		for (int k = 0; k < cw; k++)
			canvas_put(c, x + k, y, k == cw / 2 || !color ? g : " ", fg, bg, 0);
		if (marked) {
			canvas_put(c, x, y, "[", mk, bg, ATTR_BOLD);
			canvas_put(c, x + cw - 1, y, "]", mk, bg, ATTR_BOLD);
		}
		return;
	}
	for (int k = 0; k < cw; k++)
		canvas_put(c, x + k, y, k == 0 || !color ? g : " ", fg, bg, 0);
	if (marked)
		canvas_put(c, x, y, color ? "●" : "@", mk, bg, color ? 0 : ATTR_REVERSE);
}

/* A cell ch lines tall from line y (presenter's tall rows): its value and
 * marks on the middle line, its colour on the others (its glyph too,
 * without colour). */
static void cell(struct canvas *c, struct rect r, int x, int y, int ch, float val,
		 const struct scale *sc, int cw, int marked, int masked)
{
	const int mid = (ch - 1) / 2;
	for (int l = 0; l < ch; l++) {
		if (l == mid || (c->depth == DEPTH_NONE && cw < 7)) {
			cell_line(c, r, x, y + l, val, sc, cw, l == mid && marked, masked);
			continue;
		}
		const int neginf = (isinf(val) && val < 0) || masked;
		uint32_t bg = c->depth == DEPTH_NONE ? COLOR_DEFAULT : neginf ? NEGINF_BG :
			      scale_color(sc, val);
		if (y + l >= r.y && y + l < r.y + r.h && x >= r.x && x + cw <= r.x + r.w)
			canvas_fill(c, (struct rect){ x, y + l, cw, 1 }, " ",
				    COLOR_DEFAULT, bg, 0);
	}
}

/* A labelled row of n cells ch lines tall from y, wrapping onto at most
 * maxl rows.  Returns the lines used. */
static int cell_row(struct canvas *c, struct rect r, int y, const char *label,
		    const float *vals, int n, const struct scale *sc, int cw, int ch,
		    int maxl, struct style lab)
{
	int avail = r.w - LABEL_W;
	int per = cw > 0 && avail >= cw ? avail / cw : 0;
	if (per < 1 || maxl < 1 || y >= r.y + r.h)
		return 0;
	int lines = (n + per - 1) / per;
	if (lines > maxl)
		lines = maxl;
	char fit[64];
	put(c, r, r.x, y + (ch - 1) / 2, text_fit(label, LABEL_W - 1, fit, sizeof fit), lab);
	for (int l = 0; l < lines; l++) {
		for (int k = 0; k < per; k++) {
			int i = l * per + k;
			if (i >= n)
				break;
			cell(c, r, r.x + LABEL_W + k * cw, y + l * ch, ch, vals[i], sc, cw, 0, 0);
		}
	}
	if (lines * per < n && lines > 0) {
		/* the rest does not fit: say what is shown ("columns 0–39 of
		 * 64"), or when that would hide too many cells, how much is
		 * hidden */
		char buf[96];
		fmt_shown(buf, sizeof buf, 1000, (struct shown){ 0 },
			  (struct shown){ SH_COLUMNS, 0, lines * per, n });
		if (utf8_width(buf) + 1 > avail / 3)
			snprintf(buf, sizeof buf, "…+%d", n - lines * per);
		put(c, r, r.x + r.w - utf8_width(buf), y + lines * ch - 1, buf,
		    role_style(R_MUTED, c->depth));
	}
	return lines * ch;
}

static struct scale diverging(const float *a, int n, const float *b, int m)
{
	float mx = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(a[i]) && fabsf(a[i]) > mx)
			mx = fabsf(a[i]);
	for (int i = 0; b && i < m; i++)
		if (isfinite(b[i]) && fabsf(b[i]) > mx)
			mx = fabsf(b[i]);
	if (!(mx > 0))
		mx = 1;
	return (struct scale){ 1, -mx, mx, NULL };
}

/* The mask line of a key masked for padding, as a future key, or just
 * "masked". */
static const char *mask_line(const struct trace *t, const struct attn *a,
			     enum axis ka, int row, int col)
{
	const struct stage *ids = trace_find(t, ka == AX_SRC ? "src.ids" :
					     ka == AX_TGT ? "tgt.ids" : "");
	if (ids && ids->dtype == DT_I32 && ids->ndim == 1 && col < ids->shape[0] &&
	    ((const int32_t *)ids->data)[col] == 0)
		return _("+ mask −∞ (padding key) → −∞, so the weight is 0");
	if (!a->cross && col > row)
		return _("+ mask −∞ (future key: causal mask) → −∞, so the weight is 0");
	return _("+ mask −∞ (masked) → −∞, so the weight is 0");
}

/* The whole weight row of query qi, key kj marked (the cursor's matrix:
 * sets v->geom), ch lines tall, its key labels when show_keys and they
 * fit, and which keys are shown.  Returns the line after it. */
static int draw_weight_strip(struct view_state *v, struct canvas *c, struct rect r, int y,
			     const struct attn *pa, const float *wrow, const float *mrow,
			     int qi, int kj, int show_keys, int ch)
{
	const struct trace *t = v->tr;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style lb = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct attn a = *pa;
	const enum axis ka = a.weights->axes[2];
	const int bottom = r.y + r.h;
	char tok[96], fit[64];
	struct scale sw = scale_for(a.weights, wrow, (size_t)a.nk);
	int avail = r.w - LABEL_W;
	int scw = pick_cw(v->zoom, a.nk, avail);
	int vis = avail >= scw ? avail / scw : 0;
	if (vis > 0) {
		if (v->left > kj) v->left = kj;
		if (kj >= v->left + vis) v->left = kj - vis + 1;
		if (v->left > a.nk - vis) v->left = a.nk - vis;
		if (v->left < 0) v->left = 0;
		int nc = a.nk - v->left < vis ? a.nk - v->left : vis;
		/* TRANSLATORS: labels left of rows of cells, at most 8
		 * columns each. */
		char lf[64];
		put(c, r, r.x, y + (ch - 1) / 2, text_fit(_("weights"), LABEL_W - 1, lf, sizeof lf),
		    lb);
		for (int j = 0; j < nc; j++)
			cell(c, r, r.x + LABEL_W + j * scw, y, ch, wrow[v->left + j],
			     &sw, scw, v->left + j == kj,
			     isinf(mrow[v->left + j]) && mrow[v->left + j] < 0);
		v->geom = (struct grid_geom){ 1, r.x + LABEL_W, y, scw, 1,
					      qi, v->left, 1, nc, ch };
		y += ch;
		/* key labels under the strip, when there is room */
		if (scw >= 7 && show_keys && y < bottom) {
			put(c, r, r.x, y, text_fit(_("keys"), LABEL_W - 1, lf,
						   sizeof lf), mu);
			for (int j = 0; j < nc; j++) {
				trace_axis_label(t, ka, v->left + j, tok, sizeof tok);
				text_fit(tok, scw - 1, fit, sizeof fit);
				int fw = utf8_width(fit);
				const struct style *st = v->left + j == kj ? &ac : &mu;
				put(c, r, r.x + LABEL_W + j * scw + (scw - 1 - fw), y, fit, *st);
			}
			y++;
		}
		if (nc < a.nk && y < bottom)
			y += draw_shown(c, r, r.x + LABEL_W, y, r.w - LABEL_W, (struct shown){ 0 },
					(struct shown){ SH_KEYS, v->left, nc, a.nk }) > 0;
	}
	return y;
}

/* 3. key kj's contribution to the head output: weight × v_key beside the
 * head's output o [dk], and their norms.  contrib: room for dk floats. */
static void draw_contribution(struct canvas *c, struct rect r, int y, float w,
			      const float *vv, const float *o, int dk, int cw, int ch,
			      float *contrib, int show_foot)
{
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style lb = role_style(R_LABEL, c->depth);
	const int bottom = r.y + r.h;
	char buf[256], n1[32], n2[32];
	double cn = 0, on = 0;
	for (int i = 0; i < dk; i++) {
		contrib[i] = w * vv[i];
		cn += (double)contrib[i] * contrib[i];
		on += (double)o[i] * o[i];
	}
	cn = sqrt(cn);
	on = sqrt(on);
	struct scale sc = diverging(contrib, dk, o, dk);
	/* TRANSLATORS: labels left of rows of cells, at most 8 columns: the
	 * key's weight × its value vector, and the head's output. */
	y += cell_row(c, r, y, _("weight×v"), contrib, dk, &sc, cw, ch, 1, lb);
	y += cell_row(c, r, y, _("head out"), o, dk, &sc, cw, ch, 1, lb);
	if (on > 0)
		snprintf(buf, sizeof buf, _("‖weight × v_key‖ = %s = %.1f%% of ‖head output‖ = %s"),
			 fmt_cell(n1, sizeof n1, cn), 100.0 * cn / on, fmt_cell(n2, sizeof n2, on));
	else
		snprintf(buf, sizeof buf, _("‖weight × v_key‖ = %s; the head output is zero"),
			 fmt_cell(n1, sizeof n1, cn));
	put(c, r, r.x, y++, i18n_decimals(buf), tx);   /* (numbers only) */
	if (y < bottom && show_foot)
		put(c, r, r.x, y++,
		    _("head output = Σ over all keys of weight × v_key"), mu);
}

/* What the tokens of axis ax are, for the query and key lines. */
static const char *token_word(enum axis ax)
{
	return ax == AX_SRC ? _("source token") : ax == AX_TGT ? _("decoder token") : _("token");
}

/* The inspector's title and its two tokens, from line y of r.  Returns
 * the line after them. */
static int draw_head_lines(const struct trace *t, struct canvas *c, struct rect r, int y,
			   const struct attn *pa, int hh, int qi, int kj)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct attn a = *pa;
	const enum axis qa = a.weights->axes[1], ka = a.weights->axes[2];
	char buf[256], tok[96], fit[64];
	/* title and the two tokens */
	/* TRANSLATORS: %s is the attention block ("decoder.0.cross_attn"). */
	snprintf(buf, sizeof buf, a.cross ?
		 _("cell inspector · head %d of %d · %s (cross-attention)") :
		 _("cell inspector · head %d of %d · %s (self-attention)"), hh,
		 a.h, a.prefix);
	if (utf8_width(buf) > r.w)
		/* TRANSLATORS: the short form of the title above. */
		snprintf(buf, sizeof buf, _("inspector · head %d of %d · %s"), hh,
			 a.h, a.prefix);
	put(c, r, r.x, y++, buf, hd);
	trace_row_label(t, qa, qi, tok, sizeof tok);
	text_fit(tok, 30, fit, sizeof fit);
	/* TRANSLATORS: %s is "source token", "decoder token" or "token",
	 * then the token and its position. */
	snprintf(buf, sizeof buf, _("query: %s “%s” (position %d)"), token_word(qa), fit, qi);
	put(c, r, r.x, y++, buf, tx);
	trace_axis_label(t, ka, kj, tok, sizeof tok);
	text_fit(tok, 24, fit, sizeof fit);
	snprintf(buf, sizeof buf, _("key: %s “%s” (position %d)"), token_word(ka), fit, kj);
	put(c, r, r.x, y++, buf, tx);
	return y;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lb = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style wn = role_style(R_WARN, c->depth);
	char buf[256], tok[96], fit[64];
	struct attn a;

	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (attn_find(t, s, &a, buf, sizeof buf)) {
		put(c, r, r.x, r.y, _("cell inspector"), hd);
		put(c, r, r.x, r.y + 1, buf, wn);
		return;
	}
	const int hh = v->head < 0 ? 0 : v->head >= a.h ? a.h - 1 : v->head;
	const int qi = v->row < 0 ? 0 : v->row >= a.nq ? a.nq - 1 : v->row;
	const int kj = v->col < 0 ? 0 : v->col >= a.nk ? a.nk - 1 : v->col;
	const enum axis qa = a.weights->axes[1], ka = a.weights->axes[2];
	const float *q = row_of(a.q, hh, qi);          /* [dk] */
	const float *k = row_of(a.k, hh, kj);          /* [dk] */
	const float *vv = row_of(a.v, hh, kj);         /* [dk] */
	const float *o = row_of(a.heads, hh, qi);      /* [dk] */
	const float *wrow = row_of(a.weights, hh, qi); /* [nk] */
	const float *mrow = row_of(a.masked, hh, qi);  /* [nk] */
	const float score = row_of(a.scores, hh, qi)[kj];
	const float masked = mrow[kj];
	const float w = wrow[kj];
	const int dk = a.dk;
	int y = r.y;
	const int bottom = r.y + r.h;

	/* title and the two tokens */
	y = draw_head_lines(t, c, r, y, &a, hh, qi, kj);

	/* 13 lines are the core; the rest comes as the height allows */
	const int show_qk = r.h >= 15;     /* the q and k rows */
	const int show_keys = r.h >= 16;   /* key labels under the strip */
	const int show_foot = r.h >= 17;   /* what the head output is */
	const int blanks = r.h >= 19;      /* spacing between the three parts */
	/* presenter: the six rows of cells 2 or 3 lines tall when the height
	 * holds them so beside the ~22 lines of the rest */
	const int ch = view_pitch(v->zoom, r.h - 22 + 6, 6);
	float *prod = malloc(2 * (size_t)dk * sizeof *prod);  /* [dk] × 2 */
	if (!prod) {
		put(c, r, r.x, y, _("out of memory"), wn);
		return;
	}
	float *contrib = prod + dk;

	/* 1. q·k term by term */
	if (blanks)
		y++;
	snprintf(buf, sizeof buf, _("q·k term by term: q_a × k_a for a = 0…%d (dk = %d)"),
		 dk - 1, dk);
	put(c, r, r.x, y++, buf, hd);
	int cw = pick_cw(v->zoom, dk, r.w - LABEL_W);
	double sum = 0;
	for (int i = 0; i < dk; i++) {
		prod[i] = q[i] * k[i];
		sum += (double)q[i] * k[i];
	}
	if (show_qk && y + 2 < bottom) {
		struct scale sqk = diverging(q, dk, k, dk);
		y += cell_row(c, r, y, "q", q, dk, &sqk, cw, ch, 1, lb);
		y += cell_row(c, r, y, "k", k, dk, &sqk, cw, ch, 1, lb);
	}
	struct scale sp = diverging(prod, dk, NULL, 0);
	/* TRANSLATORS: what the inspector's colour scale shows: the terms
	 * of the dot product q·k */
	sp.what = N_("term q_a×k_a");
	y += cell_row(c, r, y, "q_a×k_a", prod, dk, &sp, cw, ch, 2, lb);
	if (cw < 7 && show_keys && y < bottom)
		draw_legend(c, r.x + LABEL_W, y++, r.w - LABEL_W, &sp, 0);

	/* 2. sum, scale, mask, softmax */
	char n1[32], n2[32], n3[32], n4[32];
	snprintf(buf, sizeof buf, "Σ q_a×k_a = q·k = %s", fmt_cell(n1, sizeof n1, sum));
	put(c, r, r.x, y++, buf, tx);
	const double rdk = sqrt((double)dk);
	snprintf(buf, sizeof buf, _("÷ √dk: %s ÷ %s = %s   stored score %s"),
		 fmt_cell(n1, sizeof n1, sum), fmt_cell(n2, sizeof n2, rdk),
		 fmt_cell(n3, sizeof n3, sum / rdk), fmt_cell(n4, sizeof n4, score));
	put(c, r, r.x, y++, buf, tx);
	if (isinf(masked) && masked < 0)
		snprintf(buf, sizeof buf, "%s", mask_line(t, &a, ka, qi, kj));
	else
		snprintf(buf, sizeof buf, _("+ mask 0 (key visible) → %s"),
			 fmt_cell(n1, sizeof n1, masked));
	put(c, r, r.x, y++, buf, tx);
	int rank = 1;
	for (int j = 0; j < a.nk; j++)
		rank += wrow[j] > w;
	trace_axis_label(t, qa, qi, tok, sizeof tok);
	text_fit(tok, 16, fit, sizeof fit);
	if (isinf(masked) && masked < 0)
		/* TRANSLATORS: the query token's row of weights, for a masked
		 * key: its weight is exactly 0 and it takes no part in the
		 * ranking. */
		snprintf(buf, sizeof buf, _("softmax over “%s”'s row → weight 0 (masked: no rank)"),
			 fit);
	else
		/* TRANSLATORS: the query token's row of weights; rank of the key's
		 * weight among the nk keys. */
		snprintf(buf, sizeof buf, _("softmax over “%s”'s row → weight %s (rank %d of %d)"),
			 fit, fmt_cell(n1, sizeof n1, w), rank, a.nk);
	put(c, r, r.x, y++, buf, ac);

	/* the whole weight row, the selected key marked: the cursor's matrix */
	if (y < bottom)
		y = draw_weight_strip(v, c, r, y, &a, wrow, mrow, qi, kj, show_keys, ch);

	/* 3. the key's contribution to the head output */
	draw_contribution(c, r, y + blanks, w, vv, o, dk, cw, ch, contrib, show_foot);
	free(prod);
}

const struct view_class inspect_view = {
	.name = "inspect",
	.draw = draw,
};
