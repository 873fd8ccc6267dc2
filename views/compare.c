/* compare.c - greedy and beam search side by side for the same sentence.
 *
 * For each search: the output sentence, its total log p, its score
 * (length-normalised: log p ÷ ((5+n)/6)^α), the number of steps and how it
 * ended; a one-line verdict ("beam found a sentence greedy missed …" or
 * "same output"); then a table aligned by output position: greedy's token
 * and beam's best hypothesis's token with their cumulative log p, ≠ where
 * they differ and ◀ at the first difference.  The row of the step on screen
 * (v->dec_step, 0-based) is marked ▸.
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

static const char *tok_of(const struct vocab *voc, int32_t id)
{
	const char *t = voc ? vocab_str(voc, id) : NULL;
	return t ? t : "?";
}

/* Output position k (0-based) of the best hypothesis: a token, "</s>",
 * or NULL past its end. */
static const char *tok_at(const struct side *s, const struct vocab *voc, int k)
{
	if (!s->d)
		return NULL;
	if (k < s->d->nbest)
		return tok_of(voc, s->d->best[k]);
	if (k == s->d->nbest && !s->d->hit_max_len)
		return "</s>";
	return NULL;
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
		    const struct side *s, const struct vocab *voc,
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

static int sentence_lines(const struct side *s, const struct vocab *voc, int w)
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

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	const struct style ti = role_style(R_TITLE, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const struct style cur = role_style(R_CURSOR, c->depth);
	const struct vocab *voc = v->m ? &v->m->tgt_vocab : v->tr ? v->tr->vocab : NULL;
	char buf[512], n1[32], n2[32];

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
	int y = r.y;
	size_t used = (size_t)snprintf(buf, sizeof buf, _(" greedy vs beam %d (α=%g)"), B,
				       v->dec_alpha);
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
	clip_text(c, r, r.x, y++, r.w, fit, &ti);
	const int roomy = r.h >= 24;
	y += roomy;

	/* the summary: one column per search */
	const int lw = 13;
	int colw = (r.w - lw) / 2 - 2;
	if (colw > 48)
		colw = 48;
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

	/* the verdict */
	const struct decode_result *g = S[0].d, *b = S[1].d;
	const struct style *vs = &ac;
	if (!g || !b)
		snprintf(buf, sizeof buf, "%s", g ? _("run the beam search too to compare") :
			 _("run the greedy search too to compare"));
	else if (same_output(g, b))
		snprintf(buf, sizeof buf, _("same output: beam search agrees with greedy "
			 "(score %s)"), fmt_num(n1, sizeof n1, g->best_score, 2));
	else if (b->best_score > g->best_score) {
		snprintf(buf, sizeof buf, _("beam found a sentence greedy missed: score %s vs %s"),
			 fmt_num(n1, sizeof n1, b->best_score, 2), fmt_num(n2, sizeof n2, g->best_score, 2));
		vs = &gd;
	} else
		snprintf(buf, sizeof buf, _("different outputs: greedy scores %s, beam %s"),
			 fmt_num(n1, sizeof n1, g->best_score, 2), fmt_num(n2, sizeof n2, b->best_score, 2));
	clip_text(c, r, r.x + 1, y++, r.w - 1, buf, vs);
	y += roomy;
	if (y >= r.y + r.h)
		return;

	/* the step table */
	/* TRANSLATORS: headings of the step table: the step number (at most
	 * 5 columns), greedy's token, the token of beam search's best
	 * hypothesis (at most 14 columns). */
	const char *hs = _("step"), *hg = _("greedy");
	/* TRANSLATORS: heading: the best hypothesis of beam search, at most 14
	 * columns. */
	const char *hb = _("beam best");
	int tw = utf8_width(hg) > utf8_width(hb) ? utf8_width(hg) : utf8_width(hb);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < S[i].len; k++) {
			const char *t = tok_at(&S[i], voc, k);
			int w = t ? utf8_width(t) : 0;
			tw = w > tw ? w : tw;
		}
	tw = tw > TOKEN_MAX ? TOKEN_MAX : tw;
	const int lpw = r.w >= 6 + 2 * (tw + 10) + 3 ? 9 : 0;
	const int xs = r.x + 1, xg = xs + 6, xgl = xg + tw, xm = xgl + lpw + 1,
		  xb = xm + 2, xbl = xb + tw, xn = xbl + lpw + 2;
	int diverge = -1;
	for (int k = 0; k < nrows && diverge < 0; k++) {
		const char *a = tok_at(&S[0], voc, k), *bt = tok_at(&S[1], voc, k);
		if (!a || !bt || strcmp(a, bt))
			diverge = k;
	}
	clip_text(c, r, xs, y, 5, hs, &mu);
	clip_text(c, r, xg, y, tw, hg, &hd);
	if (lpw)
		clip_rtext(c, r, xgl, y, lpw, "log p", &mu);
	clip_text(c, r, xb, y, tw, hb, &hd);
	if (lpw)
		clip_rtext(c, r, xbl, y, lpw, "log p", &mu);
	y++;
	int vis = r.y + r.h - y, cur_k = v->dec_step;
	if (vis < 1)
		return;
	int first = 0;
	if (nrows > vis) {
		/* keep the step on screen in sight, else the first difference */
		int want = cur_k >= 0 && cur_k < nrows ? cur_k : diverge;
		if (want >= vis)
			first = want - vis + 1;
		if (first > nrows - vis)
			first = nrows - vis;
	}
	for (int k = first; k < nrows && y < r.y + r.h; k++, y++) {
		const char *t[2] = { tok_at(&S[0], voc, k), tok_at(&S[1], voc, k) };
		int on = k == cur_k, differ = k >= diverge && diverge >= 0 &&
			 (!t[0] || !t[1] || strcmp(t[0], t[1]));
		const struct style *st = on ? &cur : &tx;
		if (on)
			for (int x = r.x; x < xn && x < r.x + r.w; x++)
				clip_text(c, r, x, y, 1, " ", st);
		clip_text(c, r, r.x, y, 1, on ? "▸" : " ", st);
		snprintf(buf, sizeof buf, "%4d", k + 1);
		clip_text(c, r, xs, y, 4, buf, on ? st : &mu);
		const int x0[2] = { xg, xb }, xl[2] = { xgl, xbl };
		for (int i = 0; i < 2; i++) {
			double lp;
			if (!t[i]) {
				clip_text(c, r, x0[i], y, tw, S[i].d ? "—" : "", on ? st : &mu);
				continue;
			}
			text_fit(t[i], tw, fit, sizeof fit);
			clip_text(c, r, x0[i], y, tw, fit, on ? st : differ ? &ac : &tx);
			if (lpw && logp_at(&S[i], k, &lp))
				clip_rtext(c, r, xl[i], y, lpw, fmt_num(n1, sizeof n1, lp, 3), on ? st : &mu);
		}
		if (differ)
			clip_text(c, r, xm, y, 1, "≠", on ? st : &ac);
		if (k == diverge)
			clip_text(c, r, xn, y, r.x + r.w - xn, _("◀ first difference"), &ac);
	}
}

const struct view_class compare_view = {
	.name = "compare",
	.draw = draw,
};
