/* compare.c - greedy and beam search side by side for the same sentence.
 *
 * For each search: the output sentence, its total log p, its score
 * (length-normalised: log p ÷ ((5+n)/6)^α), the number of steps and how it
 * ended; a verdict with its reason ("beam found a higher-scoring
 * translation: −1.10 vs −1.75", and why: at which step greedy's likelier
 * word led lower, or was pruned from the beam); then the two outputs
 * aligned as a diff of words (views/worddiff.c: = same, ≠ substituted,
 * − only greedy's, + only beam's), each token with its position and the
 * running Σ log p, ◀ at the first difference.  The row of the step on
 * screen (v->dec_step, 0-based, in the search on screen) is marked ▸.
 *
 * v->dec is the search on screen and v->dec_other the other one; which is
 * greedy is told by v->dec_beam (1: v->dec is greedy), or, when that is 0,
 * by which keeps more than one hypothesis at some step.  Views only read:
 * every number is the record's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "worddiff.h"
#include "base/i18n.h"
#include "engine/decode.h"
#include "engine/model.h"
#include "formats/vocab.h"

#define TOKEN_MAX 14

static int widest(const struct decode_result *d)
{
	int w = 0;
	for (int i = 0; d && i < d->nsteps; i++)
		w = d->steps[i].nhyps > w ? d->steps[i].nhyps : w;
	return w;
}

/* One search as the comparison shows it. */
struct side {
	const struct decode_result *d;
	const char *name;            /* "greedy" or "beam 3" */
	char namebuf[32];
	int len;                     /* rows: outputs, plus </s> if it ended so */
};

/* How the draw spells tokens: the model's target vocabulary and tokenizer
 * (GPT-2's pieces are labelled as text), and a ring of buffers for the
 * labels, so that a message may hold a few at once. */
struct lex {
	const struct vocab *voc;
	const struct tokenizer_cfg *tok;
	char ring[8][48];
	int next;
};

/* Token id's label (in one of lx's ring buffers). */
static const char *tok_of(struct lex *lx, int32_t id)
{
	const char *t = lx->voc ? vocab_str(lx->voc, id) : NULL;
	if (!t)
		return "?";
	if (!lx->tok || (lx->tok->type != TOKENIZE_GPT2 && lx->tok->type != TOKENIZE_SPM &&
			 lx->tok->type != TOKENIZE_HF))
		return t;
	lx->next = (lx->next + 1) % 8;
	return tokens_label(lx->tok, t, lx->ring[lx->next], sizeof lx->ring[lx->next]);
}

/* Cumulative log p of the best hypothesis after position k: the recorded
 * hypothesis with that prefix at step k+1, or the final log p. */
static int logp_at(const struct side *s, int k, double *lp)
{
	const struct decode_result *d = s->d;
	if (!d || k >= s->len)
		return 0;
	if (k + 1 < d->nsteps && k + 1 <= d->nbest) {
		const struct decode_step *st = &d->steps[k + 1];
		for (int i = 0; i < st->nhyps; i++) {
			const struct hyp *h = &st->hyps[i];
			if (h->n == k + 1 &&
			    !memcmp(h->ids, d->best, (size_t)(k + 1) * sizeof *d->best)) {
				*lp = h->logp;
				return 1;
			}
		}
	}
	if (k >= d->nbest - 1) {
		*lp = d->best_logp;
		return 1;
	}
	return 0;
}

static int same_output(const struct decode_result *a, const struct decode_result *b)
{
	return a && b && a->nbest == b->nbest && a->hit_max_len == b->hit_max_len &&
	       (a->nbest == 0 || !memcmp(a->best, b->best, (size_t)a->nbest * sizeof *a->best));
}

/* Wraps the output sentence into at most nl lines of w columns from
 * (x, y); returns the lines used. */
static int sentence(struct canvas *c, struct rect r, int x, int y, int w, int nl,
		    const struct side *s, struct lex *voc,
		    const struct style *st)
{
	if (!s->d)
		return 0;
	if (s->d->nbest == 0) {
		/* TRANSLATORS: the output sentence is empty: </s> came first. */
		clip_text(c, r, x, y, w, _("(empty: </s> first)"), st);
		return 1;
	}
	int line = 0, used = 0;
	char fit[96];
	for (int i = 0; i < s->d->nbest && line < nl; i++) {
		const char *t = tok_of(voc, s->d->best[i]);
		int tw = utf8_width(t), sp = used ? 1 : 0;
		int last_line = line == nl - 1, more = i < s->d->nbest - 1;
		/* on the last line keep room for "…" when more follow */
		int need = used + sp + tw + (last_line && more ? 2 : 0);
		if (need > w && used) {
			if (last_line) {
				clip_text(c, r, x + used + 1, y + line, w - used - 1, "…", st);
				return line + 1;
			}
			line++;
			used = 0;
			sp = 0;
		}
		text_fit(t, w - used - sp, fit, sizeof fit);
		used += sp + clip_text(c, r, x + used + sp, y + line, w - used - sp, fit, st);
	}
	return line + 1;
}

static int sentence_lines(const struct side *s, struct lex *voc, int w)
{
	if (!s->d || s->d->nbest == 0 || w < 1)
		return 1;
	int lines = 1, used = 0;
	for (int i = 0; i < s->d->nbest; i++) {
		int tw = utf8_width(tok_of(voc, s->d->best[i]));
		if (used && used + 1 + tw > w) {
			lines++;
			used = tw;
		} else {
			used += (used ? 1 : 0) + tw;
		}
	}
	return lines;
}

/* The output as ids, with </s> when it ended so; returns the count. */
static int out_ids(const struct side *s, int32_t *ids, int cap)
{
	int n = 0;
	for (int i = 0; s->d && i < s->d->nbest && n < cap; i++)
		ids[n++] = s->d->best[i];
	if (s->d && !s->d->hit_max_len && n < cap)
		ids[n++] = TOK_EOS;
	return n;
}

/* The candidate of step k that extends the prefix ids[0..k) with ids[k]:
 * NULL when that prefix was not live at step k or the token was not among
 * its recorded candidates.  *live says whether the prefix was live. */
static const struct cand *cand_for(const struct decode_result *d, const int32_t *ids,
				   int k, int *live)
{
	*live = 0;
	if (!d || k >= d->nsteps)
		return NULL;
	const struct decode_step *st = &d->steps[k];
	for (int h = 0; h < st->nhyps; h++) {
		if (st->hyps[h].n != k || memcmp(st->hyps[h].ids, ids, (size_t)k * sizeof *ids))
			continue;
		*live = 1;
		for (int i = 0; i < st->ncands; i++)
			if (st->cands[i].parent == h && st->cands[i].token == ids[k])
				return &st->cands[i];
		return NULL;
	}
	return NULL;
}

/* The lowest score kept at step k (a beam's last place), or 0. */
static double lowest_kept(const struct decode_step *st)
{
	double lo = 0;
	int any = 0;
	for (int i = 0; i < st->ncands; i++)
		if (st->cands[i].kept && !st->cands[i].finished) {
			lo = !any || st->cands[i].score < lo ? st->cands[i].score : lo;
			any = 1;
		}
	return lo;
}

/* Why the two outputs differ, into buf: where greedy's path left the
 * beam (pruned, with its score against the beam's last place), or where
 * the likelier word greedy took led to a lower score in the end. */
static void why_differ(const struct side *S, struct lex *voc, int B,
		       char *buf, size_t n)
{
	int32_t g[256], b[256];
	const int ng = out_ids(&S[0], g, 256), nb = out_ids(&S[1], b, 256);
	int k = 0;
	while (k < ng && k < nb && g[k] == b[k])
		k++;
	char n1[32], n2[32], n3[32], n4[32];
	buf[0] = 0;
	if (k >= ng || k >= nb)
		return;
	/* greedy's path through the beam: where it fell out */
	for (int j = 0; j <= k && j < ng; j++) {
		int live;
		const struct cand *cd = cand_for(S[1].d, g, j, &live);
		if (!live)
			break;
		if (cd && cd->kept)
			continue;
		if (cd)
			/* TRANSLATORS: why beam search did not find greedy's
			 * output: greedy's word at that step was pruned (its
			 * score below the B kept ones). */
			snprintf(buf, n, _("greedy's “%s” at step %d was pruned from the beam: its score "
					   "%s was below all %d kept (the lowest %s)"),
				 tok_of(voc, g[j]), j + 1, fmt_num(n1, sizeof n1, cd->score, 2), B,
				 fmt_num(n2, sizeof n2, lowest_kept(&S[1].d->steps[j]), 2));
		else
			snprintf(buf, n, _("greedy's “%s” at step %d was not among the beam's candidates "
					   "and was pruned"), tok_of(voc, g[j]), j + 1);
		return;
	}
	int lg, lb;
	const struct cand *cg = cand_for(S[0].d, g, k, &lg), *cb = cand_for(S[1].d, b, k, &lb);
	if (!cg || !cb)
		return;
	/* TRANSLATORS: why beam search found another output: at that step
	 * greedy took the likelier word, beam search kept another one. */
	snprintf(buf, n, _("at step %d greedy took the likelier “%s” (p %s, score %s); beam also "
			   "kept “%s” (p %s, score %s), which ended higher"),
		 k + 1, tok_of(voc, g[k]), fmt_num(n1, sizeof n1, cg->prob, 3),
		 fmt_num(n2, sizeof n2, cg->score, 2), tok_of(voc, b[k]),
		 fmt_num(n3, sizeof n3, cb->prob, 3), fmt_num(n4, sizeof n4, cb->score, 2));
}

/* The title on r's first line: what is compared, and the source words. */
static void compare_title(const struct view_state *v, struct canvas *c, struct rect r, int B)
{
	const struct style ti = role_style(R_TITLE, c->depth);
	char buf[512];
	/* title: what is compared */
	size_t used = (size_t)snprintf(buf, sizeof buf, _(" greedy vs beam %d (α=%g)"), B,
				       v->dec_alpha);
	i18n_decimals(buf);   /* α = 0,6 in Portuguese */
	if (v->tr && v->tr->src_tokens && v->tr->S > 0) {
		int k = 0;
		for (int i = 0; i < v->tr->S && used < sizeof buf - 64; i++) {
			const char *t = v->tr->src_tokens[i];
			if (!strcmp(t, "<s>") || !strcmp(t, "</s>") || !strcmp(t, "<pad>"))
				continue;
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
						 k++ ? " " : " · “", t);
		}
		if (k)
			snprintf(buf + used, sizeof buf - used, "” ");
		else
			snprintf(buf + used, sizeof buf - used, " ");
	} else {
		snprintf(buf + used, sizeof buf - used, " ");
	}
	char fit[512];
	text_fit(buf, r.w, fit, sizeof fit);
	clip_text(c, r, r.x, r.y, r.w, fit, &ti);
}

/* The verdict from line y (which search scores higher) and why the
 * outputs differ.  Returns the line after it. */
static int draw_verdict(struct canvas *c, struct rect r, int y, const struct side *S,
			struct lex *voc, int B)
{
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	char buf[512], n1[32], n2[32];
	/* the verdict, and why */
	const struct decode_result *g = S[0].d, *b = S[1].d;
	const struct style *vs = &ac;
	char why[512] = "";
	if (!g || !b)
		snprintf(buf, sizeof buf, "%s", g ? _("run the beam search too to compare") :
			 _("run the greedy search too to compare"));
	else if (same_output(g, b))
		snprintf(buf, sizeof buf, _("same output: beam search agrees with greedy "
			 "(score %s)"), fmt_num(n1, sizeof n1, g->best_score, 2));
	else {
		if (b->best_score > g->best_score) {
			snprintf(buf, sizeof buf, _("beam found a higher-scoring translation: %s vs "
						    "greedy's %s"),
				 fmt_num(n1, sizeof n1, b->best_score, 2),
				 fmt_num(n2, sizeof n2, g->best_score, 2));
			vs = &gd;
		} else if (b->best_score < g->best_score) {
			snprintf(buf, sizeof buf, _("greedy scores higher than beam: %s vs %s"),
				 fmt_num(n1, sizeof n1, g->best_score, 2),
				 fmt_num(n2, sizeof n2, b->best_score, 2));
			vs = &wa;
		} else {
			snprintf(buf, sizeof buf, _("different outputs with the same score %s"),
				 fmt_num(n1, sizeof n1, g->best_score, 2));
		}
		why_differ(S, voc, B, why, sizeof why);
	}
	clip_text(c, r, r.x + 1, y++, r.w - 1, buf, vs);
	if (*why && y < r.y + r.h) {
		int lines = canvas_wrap(NULL, rect_sub(r, r.x + 1, y, r.w - 1, r.w < 70 ? 4 : 3), why, 0, 0, 0);
		struct rect wr = rect_sub(r, r.x + 1, y, r.w - 1, lines);
		y += canvas_wrap(c, wr, why, tx.fg, tx.bg, tx.attr);
	}
	return y;
}

/* The two outputs aligned as a diff of words from line y, the step on
 * screen (dec_step of the beam's side when on_beam) marked. */
static void draw_aligned(const struct view_state *v, struct canvas *c, struct rect r, int y,
			 const struct side *S, struct lex *voc, int on_beam)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	char buf[512], n1[32], fit[512];
	/* the two outputs aligned as a diff of words */
	int32_t ia[256], ib[256];
	const int na = out_ids(&S[0], ia, 256), nb = out_ids(&S[1], ib, 256);
	struct wd_op ops[512];
	int nops = worddiff_run(ia, na, ib, nb, ops);
	if (nops < 0)
		return;
	/* TRANSLATORS: headings of the aligned outputs: greedy's token, the
	 * token of beam search's best hypothesis (at most 14 columns). */
	const char *hg = _("greedy");
	/* TRANSLATORS: heading: the best hypothesis of beam search, at most 14
	 * columns. */
	const char *hb = _("beam best");
	int tw = utf8_width(hg) > utf8_width(hb) ? utf8_width(hg) : utf8_width(hb);
	for (int k = 0; k < na; k++)
		tw = utf8_width(tok_of(voc, ia[k])) > tw ? utf8_width(tok_of(voc, ia[k])) : tw;
	for (int k = 0; k < nb; k++)
		tw = utf8_width(tok_of(voc, ib[k])) > tw ? utf8_width(tok_of(voc, ib[k])) : tw;
	tw = tw > TOKEN_MAX ? TOKEN_MAX : tw;
	/* columns: ▸, position, token, Σ log p, op, position, token, Σ log p;
	 * presenter: sp more columns between them where the width allows */
	const int lpw = r.w >= 2 + 2 * (4 + tw + 10) + 3 ? 9 : 0;
	const int natural = 6 + 2 * (tw + lpw + 2) + 7 + utf8_width(_("◀ first difference"));
	const int sp = view_spread(v->zoom, r.w - natural, 5, 0, 10);
	const int xg = r.x + 6, xgl = xg + tw + sp, xm = xgl + lpw + 2 + sp,
		  xb = xm + 7 + sp, xbl = xb + tw + sp, xn = xbl + lpw + 2 + sp;
	int diverge = -1;
	for (int k = 0; k < nops && diverge < 0; k++)
		if (ops[k].kind != WD_SAME)
			diverge = k;
	clip_text(c, r, xg, y, tw, hg, &hd);
	if (lpw)
		clip_rtext(c, r, xgl, y, lpw, "Σ log p", &mu);
	clip_text(c, r, xb, y, tw, hb, &hd);
	if (lpw)
		clip_rtext(c, r, xbl, y, lpw, "Σ log p", &mu);
	y++;
	/* the legend goes last when there is room for it and a row; the
	 * rows 2 or 3 lines apart when they fit so (presenter), a blank
	 * line before the legend */
	const int legend = r.y + r.h - y >= 3;
	const int p = view_pitch(v->zoom, r.y + r.h - y - legend - 1, nops);
	int vis = (r.y + r.h - y - legend) / p;
	if (vis < 1)
		return;
	/* the step on screen: a position of the search on screen */
	const int cur_k = v->dec_step;
	int cur_row = -1;
	for (int k = 0; k < nops; k++)
		if ((on_beam ? ops[k].ib : ops[k].ia) == cur_k)
			cur_row = k;
	int first = 0;
	if (nops > vis) {
		/* keep the step on screen in sight, else the first difference */
		int want = cur_row >= 0 ? cur_row : diverge;
		if (want >= vis)
			first = want - vis + 1;
		if (first > nops - vis)
			first = nops - vis;
	}
	/* TRANSLATORS: the marks of the aligned outputs (one column each). */
	static const char *const mark[] = { "=", "≠", "−", "+" };
	for (int k = first; k < nops && y < r.y + r.h - legend; k++, y += p) {
		const struct wd_op *op = &ops[k];
		const int on = k == cur_row, differ = op->kind != WD_SAME;
		const struct style *st = on ? &cur : &tx;
		if (on)
			for (int x = r.x; x < xn && x < r.x + r.w; x++)
				clip_text(c, r, x, y, 1, " ", st);
		clip_text(c, r, r.x, y, 1, on ? "▸" : " ", st);
		const int pos[2] = { op->ia, op->ib }, x0[2] = { xg, xb }, xl[2] = { xgl, xbl };
		const int32_t *ids[2] = { ia, ib };
		for (int i = 0; i < 2; i++) {
			double lp;
			if (pos[i] < 0)
				continue;
			snprintf(buf, sizeof buf, "%3d", pos[i] + 1);
			clip_text(c, r, x0[i] - 4, y, 3, buf, on ? st : &mu);
			text_fit(tok_of(voc, ids[i][pos[i]]), tw, fit, sizeof fit);
			clip_text(c, r, x0[i], y, tw, fit, on ? st : differ ? &ac : &tx);
			if (lpw && logp_at(&S[i], pos[i], &lp))
				clip_rtext(c, r, xl[i], y, lpw, fmt_num(n1, sizeof n1, lp, 3),
					   on ? st : &mu);
		}
		clip_text(c, r, xm, y, 1, mark[op->kind], on ? st : differ ? &ac : &mu);
		if (k == diverge)
			clip_text(c, r, xn, y, r.x + r.w - xn, _("◀ first difference"), &ac);
	}
	if (legend && nops > 0)
		clip_text(c, r, r.x + 1, y - p + 1 + (p > 1), r.w - 1,
			  _("= same  ≠ substituted  − only greedy's  + only beam's"), &mu);
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	struct lex lx = { .voc = v->m ? &v->m->tgt_vocab : v->tr ? v->tr->vocab : NULL,
			  .tok = v->m ? &v->m->cfg.tok : v->tr ? v->tr->tok : NULL };
	struct lex *voc = &lx;
	char buf[512];

	if (!v->dec) {
		clip_text(c, r, r.x, r.y, r.w, _("no decoding to compare"), &mu);
		return;
	}
	/* which is greedy */
	int dec_is_beam = v->dec_beam > 0 ? v->dec_beam > 1 : widest(v->dec) > 1;
	struct side S[2] = { { 0 }, { 0 } };   /* [0] greedy, [1] beam */
	S[0].d = dec_is_beam ? v->dec_other : v->dec;
	S[1].d = dec_is_beam ? v->dec : v->dec_other;
	int B = dec_is_beam ? (v->dec_beam > 1 ? v->dec_beam : widest(v->dec)) :
		widest(v->dec_other);
	/* TRANSLATORS: the two searches compared: greedy decoding, and beam
	 * search of width %d (column headings, at most 14 columns). */
	S[0].name = _("greedy");
	snprintf(S[1].namebuf, sizeof S[1].namebuf, _("beam %d"), B);
	S[1].name = S[1].namebuf;
	for (int i = 0; i < 2; i++)
		S[i].len = S[i].d ? S[i].d->nbest + !S[i].d->hit_max_len : 0;

	/* title: what is compared */
	compare_title(v, c, r, B);
	int y = r.y + 1;
	const int roomy = r.h >= 24;
	y += roomy;

	/* the summary: one column per search */
	const int lw = 13;
	int colw = (r.w - lw) / 2 - 2;
	const int cmax = view_spread(v->zoom, colw, 1, 48, 80);   /* presenter: wider */
	if (colw > cmax)
		colw = cmax;
	if (colw < 6)
		colw = 6;
	const int cx[2] = { r.x + lw, r.x + lw + colw + 2 };
	int out_lines = 1;
	for (int i = 0; i < 2; i++) {
		int l = sentence_lines(&S[i], voc, colw);
		out_lines = l > out_lines ? l : out_lines;
	}
	/* the sentences may wrap into the rows the step table leaves */
	int nrows = S[0].len > S[1].len ? S[0].len : S[1].len;
	int max_out = r.h - (1 + 1 + 4 + 1 + 1 + nrows + 3 * roomy);
	max_out = max_out > 4 ? 4 : max_out < 1 ? 1 : max_out;
	if (out_lines > max_out)
		out_lines = max_out;
	for (int i = 0; i < 2; i++)
		clip_text(c, r, cx[i], y, colw, S[i].name, &hd);
	y++;
	/* TRANSLATORS: row labels of the summary, at most 12 columns. */
	clip_text(c, r, r.x + 1, y, lw - 1, _("output"), &lab);
	for (int i = 0; i < 2; i++) {
		if (S[i].d)
			sentence(c, r, cx[i], y, colw, out_lines, &S[i], voc, &tx);
		else
			/* TRANSLATORS: this search was not run. */
			clip_text(c, r, cx[i], y, colw, _("(not run)"), &mu);
	}
	y += out_lines;
	/* TRANSLATORS: row labels of the summary, at most 12 columns: the
	 * output's total log p, its score, the number of steps, how it ended. */
	static const char *const rows[] = { N_("total log p"), N_("score"), N_("steps"),
					    N_("ended") };
	/* TRANSLATORS: how a search ended, when it hit the length limit; the
	 * short form is used when this does not fit. */
	const char *lim = _("at the length limit, no </s>");
	for (int k = 0; k < 4; k++, y++) {
		clip_text(c, r, r.x + 1, y, lw - 1, _(rows[k]), &lab);
		for (int i = 0; i < 2; i++) {
			const struct decode_result *d = S[i].d;
			if (!d)
				continue;
			const struct style *st = &tx;
			switch (k) {
			case 0: fmt_num(buf, sizeof buf, d->best_logp, 3); break;
			case 1: fmt_num(buf, sizeof buf, d->best_score, 3); break;
			case 2: snprintf(buf, sizeof buf, "%d", d->nsteps); break;
			default:
				snprintf(buf, sizeof buf, "%s", !d->hit_max_len ? _("with </s>") :
					 colw >= utf8_width(lim) ? lim :
					 _("length limit, no </s>"));
				st = d->hit_max_len ? &wa : &gd;
			}
			clip_text(c, r, cx[i], y, colw, buf, st);
		}
	}
	y += roomy;

	/* the verdict, and why */
	y = draw_verdict(c, r, y, S, voc, B);
	y += roomy;
	if (y >= r.y + r.h)
		return;

	/* the two outputs aligned as a diff of words */
	draw_aligned(v, c, r, y, S, voc, dec_is_beam);
}

const struct view_class compare_view = {
	.name = "compare",
	.draw = draw,
};
