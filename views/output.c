/* output.c - the output distribution: for one position, the top-k next
 * tokens as bars (probability) with their logits and the label marked; for
 * the loss, −log p(label) per position and the mean.
 *
 * Dimension names: T positions (decoder tokens), V target vocabulary.
 * Stages: logits [T, V], probs [T, V], loss [T].  Probabilities are read
 * from the probs stage, never recomputed from logits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "formats/vocab.h"

#define TOPK_MAX 15
#define TOKEN_MAX 14          /* columns for a token in the bar list */
#define LIST_MAX 24           /* columns of the position list ("adorável → </s>") */

/* --- labels --- */

/* s padded with spaces to w terminal columns (cut with "…" when wider). */
static const char *pad_cols(const char *s, int w, char *buf, size_t n)
{
	text_fit(s, w, buf, n);
	size_t len = strlen(buf);
	for (int k = utf8_width(buf); k < w && len + 1 < n; k++)
		buf[len++] = ' ';
	buf[len] = 0;
	return buf;
}

static const char *row_label(const struct trace *t, const struct stage *s,
			     int i, char *buf, size_t n)
{
	return trace_row_label(t, s->axes[0], i, buf, n);
}

/* The label token id at position i, or -1 (no target, or out of range). */
static int label_id(const struct trace *t, int rows, int i)
{
	if (!t->label_tokens || rows > t->T || i < 0 || i >= rows || !t->vocab)
		return -1;
	return vocab_id(t->vocab, t->label_tokens[i]);
}

static int is_padding(const struct trace *t, int rows, int i)
{
	return t->pad_id >= 0 && label_id(t, rows, i) == t->pad_id;
}

/* A [rows, V] stage with this name and shape, or NULL. */
static const struct stage *sibling(const struct trace *t, const char *name,
				   int rows, int V)
{
	const struct stage *s = trace_find(t, name);
	if (!s || s->dtype != DT_F32 || s->ndim != 2 || s->shape[0] != rows ||
	    s->shape[1] != V)
		return NULL;
	return s;
}

/* --- top-k for one position --- */

/* Indices of the k largest of p[V], largest first (ties: lower index). */
static int top_k(const float *p, int V, int k, int *idx)
{
	int n = 0;
	for (int j = 0; j < V; j++) {
		if (n == k && !(p[j] > p[idx[n - 1]]))
			continue;
		int at = n < k ? n++ : n - 1;
		while (at > 0 && p[j] > p[idx[at - 1]]) {
			idx[at] = idx[at - 1];
			at--;
		}
		idx[at] = j;
	}
	return n;
}

/* 1-based rank of item l in p[V] under the same order as top_k. */
static int rank_of(const float *p, int V, int l)
{
	int r = 1;
	for (int j = 0; j < V; j++)
		if (p[j] > p[l] || (p[j] == p[l] && j < l))
			r++;
	return r;
}

/* The position list on the left: index and token, cursor marked. */
static void draw_positions(struct view_state *v, struct canvas *c,
			   struct rect r, const struct stage *s, int rows, int lw)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct style bo = role_style(R_BORDER, c->depth);
	char tok[96], fit[64], buf[128];

	clip_text(c, r, r.x, r.y, lw - 1, _("position"), &hd);
	const int p = view_pitch(v->zoom, r.h - 1, rows);   /* presenter: lines a row */
	int vis = (r.h - 1) / p;
	if (rows > vis && vis > 1)
		vis--;   /* the last line says which are shown */
	view_follow(&v->top, v->row, vis, rows);
	int nvis = 0;
	for (int k = 0; k < vis && v->top + k < rows; k++, nvis++) {
		int i = v->top + k, on = i == v->row, y = r.y + 1 + k * p;
		row_label(v->tr, s, i, tok, sizeof tok);
		text_fit(tok, lw - 7 > 1 ? lw - 7 : 1, fit, sizeof fit);
		snprintf(buf, sizeof buf, "%s%3d %s", on ? "▸" : " ", i, fit);
		const struct style *st = on ? &cur : &tx;
		if (on)
			for (int x = 0; x < lw - 1; x++)
				clip_put(c, r, r.x + x, y, " ", st->fg, st->bg, st->attr);
		clip_text(c, r, r.x, y, lw - 1, buf, st);
	}
	draw_shown(c, r, r.x, r.y + 1 + vis, lw - 1, (struct shown){ SH_POSITIONS, v->top, nvis, rows },
		   (struct shown){ 0 });
	for (int y = 0; y < r.h; y++)
		clip_put(c, r, r.x + lw - 1, r.y + y, "│", bo.fg, bo.bg, bo.attr);
	/* a click on a line selects that position (the column stays) */
	v->geom = (struct grid_geom){ 1, r.x, r.y + 1, lw - 1, 1, v->top, v->col,
				      nvis, 1, p };
}

/* logits / probs: the top-k next tokens at position v->row. */
/* The line under the output view's title: the label of position row, its
 * rank of V, p and loss (parts that do not fit flow onto the next line),
 * or why there is none.  own: the labels are the model's own translation
 * (no target was given), not a teacher's. */
static void draw_label_line(const struct trace *t, struct canvas *c, struct rect pr,
			    int row, int rows, int V, int lid, int lrank, const float *p,
			    const struct stage *loss, int mlm, int own)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	char fit[64], num[32];
	int y = pr.y + 1;
	if (lid >= 0 && lid == t->pad_id) {
		clip_text(c, pr, pr.x, y, pr.w, _("label <pad>: a padded position, no loss"), &mu);
	} else if (lid >= 0 && lid < V) {
		/* "label “x”: rank r of V · p … · loss …", the parts that do not
		 * fit flowing onto the (otherwise blank) next line */
		char part[3][160];
		int np = 0;
		char lb[64];
		text_fit(t->tok ? tokens_label(t->tok, t->label_tokens[row], lb, sizeof lb) :
			 t->label_tokens[row], 24, fit, sizeof fit);
		/* TRANSLATORS: the teacher-forced label token and its rank among
		 * the V tokens of the vocabulary. */
		if (own)
			/* TRANSLATORS: no target was given: the label is the next
			 * word of the model's own translation, and its rank */
			snprintf(part[np++], sizeof part[0], _("its translation's next word “%s”: "
							       "rank %d of %d"), fit, lrank, V);
		else
			snprintf(part[np++], sizeof part[0], _("label “%s”: rank %d of %d"), fit,
				 lrank, V);
		if (p) {
			fmt_pct(num, sizeof num, p[lid]);
			snprintf(part[np++], sizeof part[0], "p %s", num);
		}
		if (loss) {
			snprintf(part[np], sizeof part[0], _("loss −log p = %.3f"),
				 stage_f32(loss)[row]);
			i18n_decimals(part[np++]);
		}
		const struct style *st = lrank == 1 ? &gd : &lab;
		int lx = pr.x;
		for (int i = 0; i < np; i++) {
			int w = utf8_width(part[i]) + (lx > pr.x ? 3 : 0);
			if (lx > pr.x && lx + w > pr.x + pr.w && y == pr.y + 1) {
				y++;
				lx = pr.x;
				w -= 3;
			}
			if (lx > pr.x)
				lx += clip_text(c, pr, lx, y, pr.x + pr.w - lx, " · ", st);
			lx += clip_text(c, pr, lx, y, pr.x + pr.w - lx, part[i], st);
		}
	} else if (t->label_tokens && rows == t->T && lid < 0) {
		clip_text(c, pr, pr.x, y, pr.w, _("label not in the vocabulary"), &wa);
	} else if (mlm) {
		clip_text(c, pr, pr.x, y, pr.w,
			  _("masked-LM head: what the model reads at this position ([MASK]: its guess)"),
			  &mu);
	} else {
		clip_text(c, pr, pr.x, y, pr.w, _("no label (no target given)"), &mu);
	}
}

/* The columns of the output view's list: rank, token, bar, p, logit and
 * the label's mark. */
struct dist_cols {
	int rw, tw, bw, pw, lgw, logit_col, mark_text, mw;
	const char *mark;
};

/* One row of the list at line y: token j of rank `rank`, its bar, p
 * and logit (p, lg: the position's [V], either may be NULL). */
static void draw_dist_row(const struct trace *t, struct canvas *c, struct rect pr, int y,
			  const struct dist_cols *L, int j, int rank, int is_label, int first,
			  const float *p, const float *lg)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style *st = is_label ? &gd : first ? &ac : &tx;
	char buf[256], tok[96], fit[64], num[32];
	snprintf(buf, sizeof buf, "%*d ", L->rw > 11 ? 10 : L->rw - 1, rank);
	clip_text(c, pr, pr.x, y, L->rw, buf, &mu);
	trace_axis_label(t, AX_VOCAB, j, tok, sizeof tok);
	text_fit(tok, L->tw, fit, sizeof fit);
	clip_text(c, pr, pr.x + L->rw, y, L->tw, fit, is_label ? &gd : &lab);
	int bx = pr.x + L->rw + L->tw + 1;
	if (p && L->bw > 0)
		draw_bar(c, pr, bx, y, L->bw, p[j], st->fg, COLOR_DEFAULT, is_label ? ATTR_BOLD : 0);
	int nx = bx + L->bw + 1;
	if (p) {
		fmt_pct(num, sizeof num, p[j]);
		snprintf(buf, sizeof buf, "%*s", L->pw, num);
		clip_text(c, pr, nx, y, L->pw, buf, st);
	}
	nx += L->pw;
	if (L->logit_col) {
		if (isinf(lg[j]) && lg[j] < 0)
			snprintf(buf, sizeof buf, "%*s", L->lgw, "−∞");
		else
			snprintf(buf, sizeof buf, "%*.3f", L->lgw, lg[j]);
		clip_text(c, pr, nx, y, L->lgw, i18n_decimals(buf), &tx);
		nx += L->lgw;
	}
	if (is_label)
		clip_text(c, pr, nx + 1, y, L->mark_text ? L->mw - 1 : 1,
			  L->mark_text ? L->mark : "◀", &gd);
}

/* The list's columns for the tokens idx[0..k) (and the label lid when
 * show_label) in pr; lg: whether there are logits to show. */
static struct dist_cols dist_layout(const struct trace *t, struct rect pr, const int *idx,
				    int k, int show_label, int lid, int V, const float *lg,
				    enum zoom z)
{
	char tok[96];
	int tw = 5;
	for (int i = 0; i < k; i++) {
		trace_axis_label(t, AX_VOCAB, idx[i], tok, sizeof tok);
		int w = utf8_width(tok);
		tw = w > tw ? w : tw;
	}
	if (show_label) {
		trace_axis_label(t, AX_VOCAB, lid, tok, sizeof tok);
		int w = utf8_width(tok);
		tw = w > tw ? w : tw;
	}
	tw = tw > TOKEN_MAX ? TOKEN_MAX : tw;
	const int pw = 7, lgw = lg ? 9 : 0;
	int rw = 4;          /* "%3d ", wider for a rank of 4 digits or more */
	for (int q = V; q >= 1000; q /= 10)
		rw++;
	/* TRANSLATORS: marks the label's row in the list of top tokens. */
	const char *mark = _("◀ label");
	int mark_text = lid >= 0 && pr.w >= 70, logit_col = lg != NULL;
	int mw = lid < 0 ? 0 : mark_text ? utf8_width(mark) + 1 : 2;
	int bw = pr.w - rw - tw - 1 - pw - lgw - mw - 1;
	if (bw < 6 && logit_col) { bw += lgw; logit_col = 0; }
	const int bmax = view_spread(z, bw, 1, 50, 100);   /* presenter: longer */
	if (bw > bmax)
		bw = bmax;
	if (bw < 1)
		bw = 0;

	return (struct dist_cols){ rw, tw, bw, pw, lgw, logit_col, mark_text, mw, mark };
}

/* The list's headings on line y of pr (bars: there are probabilities). */
static void dist_headings(struct canvas *c, struct rect pr, int y, const struct dist_cols *L,
			  int bars)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const int hx = pr.x + L->rw + L->tw + 1;
	char buf[128];
	/* TRANSLATORS: heading of the token column, after the rank "#". */
	snprintf(buf, sizeof buf, "   # %s", _("token"));
	clip_text(c, pr, pr.x, y, L->rw + L->tw, buf, &mu);
	/* TRANSLATORS: heading of the column of probability bars; the short
	 * form when the long one does not fit. */
	const char *ph = _("probability (bar 0–100%)");
	if (bars)
		clip_text(c, pr, hx, y, L->bw, L->bw >= utf8_width(ph) + 2 ? ph : _("bar 0–100%"),
			  &mu);
	clip_text(c, pr, hx + L->bw + 1 + L->pw - 1, y, 1, "p", &mu);
	if (L->logit_col)
		/* TRANSLATORS: heading of the logit column, at most 5 columns. */
		clip_text(c, pr, hx + L->bw + 1 + L->pw + L->lgw - 5, y, 5, _("logit"), &mu);
}

static void draw_dist(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const int rows = s->shape[0], V = s->shape[1];
	char buf[256], tok[96], fit[64];

	const struct stage *ps = s->kind == SK_PROBS ? s : sibling(t, "probs", rows, V);
	const struct stage *ls = s->kind == SK_LOGITS ? s : sibling(t, "logits", rows, V);
	const int row = clampi(v->row, 0, rows - 1);
	const struct stage *loss = trace_find(t, "loss");
	if (loss && (loss->ndim != 1 || loss->shape[0] > rows || row >= loss->shape[0]))
		loss = NULL;    /* (a decoder-only model's last position may have none) */
	const float *p = ps ? stage_f32(ps) + (size_t)row * V : NULL;    /* [V] */
	const float *lg = ls ? stage_f32(ls) + (size_t)row * V : NULL;   /* [V] */
	const float *key = p ? p : lg;    /* what ranks the tokens */

	/* the position list, when there is room for it */
	int lw = r.w >= 50 ? clampi(r.w / 5, 12, LIST_MAX) : 0;
	if (lw)
		draw_positions(v, c, r, s, rows, lw);
	else
		v->geom.valid = 0;
	struct rect pr = { r.x + (lw ? lw + 1 : 0), r.y, r.w - (lw ? lw + 1 : 0), r.h };
	if (pr.w < 1)
		return;

	/* title: which position (its input token), and its label */
	trace_axis_label(t, s->axes[0], row, tok, sizeof tok);
	text_fit(tok, 24, fit, sizeof fit);
	const int mlm = s->axes[0] == AX_SRC;   /* an encoder's masked-LM head */
	if (mlm)
		/* TRANSLATORS: the output view of BERT's masked-LM head: the
		   distribution is over the token at this position itself */
		snprintf(buf, sizeof buf, _("token in place of “%s” (position %d)"), fit, row);
	else
		snprintf(buf, sizeof buf, _("next token after “%s” (position %d)"), fit, row);
	int x = pr.x + clip_text(c, pr, pr.x, pr.y, pr.w, buf, &hd) + 2;
	if (s->kind == SK_LOGITS)
		clip_text(c, pr, x, pr.y, pr.x + pr.w - x,
		     p ? _("ranked by probability (probs stage)") : _("ranked by logit"), &mu);

	int lid = label_id(t, rows, row);
	int lrank = lid >= 0 && lid < V && key ? rank_of(key, V, lid) : 0;
	draw_label_line(t, c, pr, row, rows, V, lid, lrank, p, loss, mlm, v->labels_own);
	int y;
	if (!key)
		return;

	/* how many bars fit: title, label, blank, header, footer */
	int avail = pr.h - 5;
	int k = clampi(avail, 0, TOPK_MAX < V ? TOPK_MAX : V);
	if (lrank > k && k > 3)
		k -= 2;     /* room for "⋮" and the label's own line */
	int idx[TOPK_MAX];
	k = k > 0 ? top_k(key, V, k, idx) : 0;
	int show_label = lrank > k && lid >= 0 && lid < V && lid != t->pad_id &&
			 avail - k >= 2 && k > 0;

	/* columns: rank, token, bar, p, logit, label mark */
	const struct dist_cols L = dist_layout(t, pr, idx, k, show_label, lid, V, lg, v->zoom);
	/* presenter: the rows 2 or 3 lines apart when they fit so */
	const int pitch = view_pitch(v->zoom, avail, k + 2 * show_label);
	y = pr.y + 3;
	if (k > 0)
		dist_headings(c, pr, y++, &L, p != NULL);
	for (int i = 0; i <= k; i++) {
		int j;
		if (i < k) {
			j = idx[i];
		} else if (show_label) {
			clip_text(c, pr, pr.x + 3, y, 1, "⋮", &mu);
			y += pitch;
			j = lid;
		} else {
			break;
		}
		draw_dist_row(t, c, pr, y, &L, j, i < k ? i + 1 : lrank, j == lid, i == 0, p, lg);
		y += pitch;
	}
	y -= pitch - 1;   /* the line after the last row */
	if (k > 0 && y + 1 < pr.y + pr.h) {
		/* TRANSLATORS: the last %s is " · ◀ the teacher-forced label" or
		 * empty. */
		snprintf(buf, sizeof buf, _("top %d of %d tokens%s"), k, V,
			 lid < 0 || lid == t->pad_id ? "" : v->labels_own ?
			 _(" · ◀ the next word of its own translation") :
			 _(" · ◀ the teacher-forced label"));
		clip_text(c, pr, pr.x, y + 1, pr.w, buf, &mu);
	}
}

/* loss: −log p(label) per position, and the mean over real positions. */
/* Row i of the loss table at line y: the cursor's mark, the position,
 * input → label, −log p, p and the bar (0 to scale_max). */
static void draw_loss_row(const struct view_state *v, struct canvas *c, struct rect r,
			  int y, int i, int tokw, int bw, double scale_max,
			  const struct stage *ps)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const int rows = s->shape[0];
	const float *loss = stage_f32(s);   /* [T] */
	char buf[256], tok[96], fit[64], num[32];
	const int on = i == v->row;
	int lid = label_id(t, rows, i);
	const struct style *st = on ? &cur : &tx;
	if (on)
		for (int xx = 0; xx < r.w; xx++)
			clip_put(c, r, r.x + xx, y, " ", st->fg, st->bg, st->attr);
	clip_put(c, r, r.x, y, on ? "▸" : " ", st->fg, st->bg, st->attr);
	snprintf(buf, sizeof buf, "%3d ", i);
	int cx = r.x + 1;
	cx += clip_text(c, r, cx, y, 4, buf, on ? st : &mu);
	trace_axis_label(t, s->axes[0], i, tok, sizeof tok);
	text_fit(tok, tokw, fit, sizeof fit);
	clip_text(c, r, cx, y, tokw, fit, st);
	cx += tokw;
	clip_text(c, r, cx, y, 3, " → ", on ? st : &mu);
	cx += 3;
	const char *lt = t->label_tokens && rows <= t->T ? t->label_tokens[i] : "?";
	char lb[64];
	if (t->tok && t->label_tokens && rows <= t->T)
		lt = tokens_label(t->tok, lt, lb, sizeof lb);
	text_fit(lt, tokw, fit, sizeof fit);
	clip_text(c, r, cx, y, tokw, fit, on ? st : &lab);
	cx += tokw;
	if (lid >= 0 && lid == t->pad_id) {
		clip_text(c, r, cx + 2, y, r.x + r.w - cx - 2, _("padding (not counted)"),
		     on ? st : &mu);
		return;
	}
	snprintf(buf, sizeof buf, "%9.3f", loss[i]);
	i18n_decimals(buf);
	clip_text(c, r, cx, y, 9, buf, st);
	cx += 9;
	if (ps && lid >= 0 && lid < ps->shape[1]) {
		fmt_pct(num, sizeof num, stage_f32(ps)[(size_t)i * ps->shape[1] + lid]);
		snprintf(buf, sizeof buf, "%8s", num);
		clip_text(c, r, cx, y, 8, buf, st);
	}
	cx += 8 + 2;
	if (bw > 0 && scale_max > 0)
		draw_bar(c, r, cx, y, bw, loss[i] / scale_max, on ? cur.fg : ac.fg,
		    on ? cur.bg : COLOR_DEFAULT, on ? cur.attr : 0);
}

static void draw_loss(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const int rows = s->shape[0];
	const float *loss = stage_f32(s);   /* [T] */
	char buf[256];

	const struct stage *ps = trace_find(t, "probs");
	if (ps && (ps->ndim != 2 || ps->shape[0] != rows))
		ps = NULL;

	double sum = 0, mx = 0;
	int counted = 0;
	for (int i = 0; i < rows; i++) {
		if (is_padding(t, rows, i))
			continue;
		sum += loss[i];
		counted++;
		if (loss[i] > mx)
			mx = loss[i];
	}
	if (counted)
		/* TRANSLATORS: the last %s is " (padding excluded)" or empty. */
		snprintf(buf, sizeof buf,
			 P_("mean loss %.3f over %d position%s",
			    "mean loss %.3f over %d positions%s", counted), sum / counted,
			 counted, counted < rows ? _(" (padding excluded)") : "");
	else
		snprintf(buf, sizeof buf, "%s", _("no positions with a label"));
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, i18n_decimals(buf), &hd) + 2;
	clip_text(c, r, x, r.y, r.x + r.w - x, _("loss = −log p(label)"), &mu);

	/* the bars start at 0 and end at ln V, the loss of a uniform guess
	 * (a scale of 0 to the largest loss would make small differences
	 * look large) */
	const int V = ps ? ps->shape[1] : t->vocab ? t->vocab->n : 0;
	const double uniform = V > 1 ? log((double)V) : 1;
	const double scale_max = mx > uniform ? mx : uniform;
	/* columns: cursor, position, input → label, −log p, p, bar */
	const int tokw = r.w >= 70 ? 12 : 8;
	const int fixed = 1 + 4 + tokw + 3 + tokw + 9 + 8 + 2;
	int bw = r.w - fixed;
	const int bmax = view_spread(v->zoom, bw, 1, 40, 100);   /* presenter: longer */
	if (bw > bmax)
		bw = bmax;
	if (bw < 0)
		bw = 0;
	int y0 = r.y + 2;
	if (r.h >= 5) {
		/* the headings padded to tokw terminal columns, not bytes */
		char h1[64], h2[64];
		/* TRANSLATORS: headings of the loss table: the input token and
		 * its label (at most 8 columns each). */
		pad_cols(_("input"), tokw, h1, sizeof h1);
		pad_cols(_("label"), tokw, h2, sizeof h2);
		snprintf(buf, sizeof buf, "    %s   %s   −log p       p", h1, h2);
		clip_text(c, r, r.x + 1, y0, r.w - 1, buf, &mu);
		if (bw >= 8) {
			char sn[32];
			fmt_num(sn, sizeof sn, scale_max, 2);
			/* TRANSLATORS: the loss bars' scale: from 0 to ln V, the
			 * loss of a uniform guess over the V tokens (or to the
			 * largest loss, when it is larger) */
			snprintf(buf, sizeof buf, scale_max > uniform ? _("bar 0–%s (the largest loss)") :
				 _("bar 0–%s = ln V, a uniform guess"), sn);
			clip_text(c, r, r.x + fixed, y0, r.x + r.w - (r.x + fixed), buf, &mu);
		}
		y0++;
	}
	int vis = r.y + r.h - y0 - (r.h >= 8 ? 1 : 0);
	/* presenter: the rows 2 or 3 lines apart when they fit so */
	const int p = view_pitch(v->zoom, vis - 1, rows);
	vis /= p;
	v->geom.valid = 0;
	const int cut = rows > vis && vis > 1;
	vis -= cut;   /* a line under the table says which rows are shown */
	if (vis < 1)
		return;
	view_follow(&v->top, v->row, vis, rows);
	int nvis = 0;
	for (int k = 0; k < vis && v->top + k < rows; k++, nvis++) {
		draw_loss_row(v, c, r, y0 + k * p, v->top + k, tokw, bw, scale_max, ps);
	}
	v->geom = (struct grid_geom){ 1, r.x, y0, r.w, 1, v->top, 0, nvis, 1, p };
	if (cut)
		draw_shown(c, r, r.x + 1, y0 + nvis, r.w - 1,
			   (struct shown){ SH_POSITIONS, v->top, nvis, rows }, (struct shown){ 0 });
	if (r.h >= 8 && y0 + nvis + cut < r.y + r.h)
		clip_text(c, r, r.x, r.y + r.h - 1, r.w,
		     _("↑↓ position · p = the label's probability (probs stage)"), &mu);
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	int ok = s->dtype == DT_F32 &&
		 ((s->kind == SK_LOSS && s->ndim == 1) ||
		  ((s->kind == SK_LOGITS || s->kind == SK_PROBS) && s->ndim == 2)) &&
		 s->shape[0] > 0 && (s->ndim == 1 || s->shape[1] > 0);
	if (!ok) {
		const struct style mu = role_style(R_MUTED, c->depth);
		clip_text(c, r, r.x, r.y, r.w, _("not an output stage"), &mu);
		return;
	}
	if (s->kind == SK_LOSS)
		draw_loss(v, c, r);
	else
		draw_dist(v, c, r);
}

const struct view_class output_view = {
	.name = "output",
	.draw = draw,
};
