/* candidates.c - part (b) of the decoding page (views/decoding.c): the
 * next-token candidates of the followed hypothesis at the step on screen,
 * as bars of p (this step's), Σ log p (the running sum) and score, ⇒
 * forced ✓ kept ● </s> ✗ pruned, "arg-max" for greedy, the slot each kept
 * one went to for beam; a forced step keeps its real candidates (pruned)
 * and marks the forced one.  While the search samples, views/sampling.c
 * draws them instead.  Every number is the decoding record's.
 *
 * Dimension names: K candidates recorded per hypothesis and step. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "page.h"
#include "palette.h"
#include "base/i18n.h"
#include "engine/decode.h"

/* Candidate i of step k is a kept continuation: its slot in step k+1's
 * hypotheses (kept ones that are not </s>, in the recorded order), or -1. */
static int next_slot(const struct decode_step *st, int i)
{
	if (!st->cands[i].kept || st->cands[i].finished)
		return -1;
	int slot = 0;
	for (int j = 0; j < i; j++)
		slot += st->cands[j].kept && !st->cands[j].finished;
	return slot;
}

int cands_of(const struct page *P)
{
	const struct decode_step *st = &P->d->steps[P->s];
	int n = 0;
	for (int i = 0; i < st->ncands; i++)
		n += st->cands[i].parent == P->hyp;
	return n;
}

/* The note after candidate i of step st (rank: its place among the
 * followed hypothesis's): forced, ends, arg-max, its beam slot, or "". */
static void cand_note(const struct page *P, const struct decode_step *st, int i, int rank,
		      char *buf, size_t n)
{
	const struct cand *cd = &st->cands[i];
	if (cd->forced && cd->finished)
		/* TRANSLATORS: the user forced this token (what-if, key f). */
		snprintf(buf, n, "%s", _("forced: ends (</s>)"));
	else if (cd->forced && P->beam <= 1)
		snprintf(buf, n, "%s", _("forced"));
	else if (cd->forced)
		snprintf(buf, n, _("forced → slot #%d"), next_slot(st, i));
	else if (cd->finished)
		snprintf(buf, n, "%s", _("ends (</s>)"));
	else if (P->beam <= 1 && rank == 1)
		/* TRANSLATORS: the most probable token, greedy's choice
		 * unless the user forced another one. */
		snprintf(buf, n, "%s", cd->kept ? _("arg-max") : _("arg-max, not taken"));
	else if (cd->kept && P->beam > 1)
		/* TRANSLATORS: the beam slot a kept candidate went to. */
		snprintf(buf, n, _("→ slot #%d"), next_slot(st, i));
	else
		buf[0] = 0;
}

/* The candidates' legend on line r (with the score's formula when the
 * score column shows). */
static void cands_legend(const struct page *P, struct canvas *c, struct rect r, int score)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct decode_step *st = &P->d->steps[P->s];
	int any_forced = 0;
	for (int i = 0; i < st->ncands; i++)
		any_forced |= st->cands[i].parent == P->hyp && st->cands[i].forced;
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, any_forced ?
				_("⇒ forced  ✓ kept  ● </s>  ✗ pruned") :
				_("✓ kept  ● </s>  ✗ pruned"), &mu);
	if (score)
		clip_text(c, r, x, r.y, r.x + r.w - x, _("  · Σ log p: the sum over the steps · "
		     "score = Σ log p ÷ ((5+n)/6)^α"), &mu);
}

/* Why no p passes ~90%: the model was trained with label smoothing ε (its
 * target for the right word was 1 − ε). */
static void smoothing_note(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	char buf[192], e1[32], e2[32];
	/* TRANSLATORS: under the candidates, for a model trained with label
	 * smoothing: 100·(1 − ε), then ε */
	snprintf(buf, sizeof buf, _("p tops out near %s%%: label smoothing ε = %s in training"),
		 i18n_num(e1, sizeof e1, 100 * (1 - P->smoothing), 0),
		 i18n_num(e2, sizeof e2, P->smoothing,
			  P->smoothing * 10 == (int)(P->smoothing * 10) ? 1 : 2));
	clip_text(c, r, r.x, r.y, r.w, buf, &mu);
}

/* Under the candidates from line y: the marks' legend (when legend), then
 * the label-smoothing note, as room allows. */
static void cands_footer(const struct page *P, struct canvas *c, struct rect r, int y,
			 int legend, int score)
{
	legend = legend && y < r.y + r.h;
	if (legend)
		cands_legend(P, c, rect_sub(r, r.x, y, r.w, 1), score);
	y += legend;
	if (P->smoothing > 0 && y < r.y + r.h)
		smoothing_note(P, c, rect_sub(r, r.x, y, r.w, 1));
}

/* (b)'s title on r's first line: the step, how many candidates (nc) and
 * whether one was forced, or the followed hypothesis's Σ log p (beam). */
static void cands_title(const struct page *P, struct canvas *c, struct rect r, int nc)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct decode_step *st = &P->d->steps[P->s];
	const struct hyp *h = page_hyp(P, P->s, P->hyp);
	char buf[192], n1[32];
	int added = 0;
	for (int i = 0; i < st->ncands; i++)
		added += st->cands[i].parent == P->hyp && st->cands[i].forced == 2;
	if (P->beam > 1)
		snprintf(buf, sizeof buf, _("next token at step %d for #%d (Σ log p %s so far)"),
			 P->s + 1, P->hyp, fmt_num(n1, sizeof n1, h ? h->logp : 0, 3));
	else if (added)
		/* TRANSLATORS: the forced token is not among the top %d. */
		snprintf(buf, sizeof buf, _("next token at step %d: top %d of the distribution "
					    "and the forced token"), P->s + 1, nc - added);
	else
		snprintf(buf, sizeof buf, _("next token at step %d: top %d of the distribution"),
			 P->s + 1, nc);
	if (utf8_width(buf) > r.w)
		/* TRANSLATORS: the short form of the candidates' titles above */
		snprintf(buf, sizeof buf, _("next token at step %d: top %d"), P->s + 1, nc - added);
	clip_text(c, r, r.x, r.y, r.w, buf, &hd);
}

/* The lines of (b) with nc rows of p lines and `under` lines under them
 * (the legend, the note). */
int cands_lines(int nc, int p, int under)
{
	return 2 + (nc - 1) * p + 1 + (p > 1) + under;
}

void cands_draw(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct decode_step *st = &P->d->steps[P->s];
	char buf[192], b[32], n1[32];
	if (r.h < 1 || r.w < 1)
		return;
	if (P->so) {
		sampling_draw_cands(P, c, r);
		return;
	}
	const int nc = cands_of(P);
	cands_title(P, c, r, nc);
	if (nc == 0) {
		clip_text(c, r, r.x, r.y + 1, r.w, _("no candidates recorded for this hypothesis"), &mu);
		return;
	}

	/* columns: mark, token, bar, p, log p, score, note */
	int tw = 5;
	for (int i = 0; i < st->ncands; i++)
		if (st->cands[i].parent == P->hyp) {
			int w = utf8_width(page_tok(P, st->cands[i].token, b, sizeof b));
			tw = w > tw ? w : tw;
		}
	tw = tw > TOKEN_MAX ? TOKEN_MAX : tw;
	/* the score column: 9 wide, or the heading and a space */
	const char *sch = _("score");
	const int scw0 = utf8_width(sch) + 1 > 9 ? utf8_width(sch) + 1 : 9;
	const int fixed = 2 + tw + 1 + 7;
	int lpw = r.w >= fixed + 9 ? 9 : 0;
	int scw = r.w >= fixed + 9 + scw0 ? scw0 : 0;
	int notew = r.w >= fixed + 9 + scw0 + 13 + 8 ? 13 : 0;
	int bw = r.w - fixed - lpw - scw - notew - 1;
	const int bmax = view_spread(P->zoom, bw, 1, 30, 80);   /* presenter: longer */
	bw = bw > bmax ? bmax : bw < 4 ? 0 : bw;
	const int bx = r.x + 2 + tw + 1, px = bx + bw + (bw ? 1 : 0);
	int y = r.y + 1;
	if (r.h >= 3) {
		snprintf(buf, sizeof buf, "  %s", _("token"));
		clip_text(c, r, r.x, y, 2 + tw, buf, &mu);
		/* TRANSLATORS: heading of the column of probability bars. */
		const char *bh = _("p (bar 0–100%)");
		if (bw >= utf8_width(bh))
			clip_text(c, r, bx, y, bw, bh, &mu);
		clip_rtext(c, r, px, y, 7, "p", &mu);
		if (lpw)
			clip_rtext(c, r, px + 7, y, lpw, "Σ log p", &mu);
		if (scw)
			clip_rtext(c, r, px + 7 + lpw, y, scw, sch, &mu);
		y++;
	}
	/* lines a row; the legend and the note under the rows (tall rows: a
	 * blank line between) */
	const int p = P->pitch, legend = r.h >= cands_lines(nc, p, 2);
	int rank = 0, shown = 0, room = (r.y + r.h - y - legend) / p;
	for (int i = 0; i < st->ncands; i++) {
		const struct cand *cd = &st->cands[i];
		if (cd->parent != P->hyp)
			continue;
		rank++;
		if (shown >= room)
			continue;
		shown++;
		const char *mark = cd->forced ? "⇒" : cd->finished ? "●" : cd->kept ? "✓" : "✗";
		const struct style *ms = cd->kept ? (cd->finished ? &gd : &ac) : &mu;
		clip_text(c, r, r.x, y, 1, mark, ms);
		text_fit(page_tok(P, cd->token, b, sizeof b), tw, buf, sizeof buf);
		clip_text(c, r, r.x + 2, y, tw, buf, rank - 1 == P->cand ? &cur :
		     cd->kept ? &ac : &lab);
		const struct style *bs = cd->kept ? &ac : &tx;
		draw_bar(c, r, bx, y, bw, cd->prob, bs->fg, bs->bg, bs->attr);
		fmt_pct(n1, sizeof n1, cd->prob);
		clip_rtext(c, r, px, y, 7, n1, cd->kept ? &ac : &tx);
		if (lpw)
			clip_rtext(c, r, px + 7, y, lpw, fmt_num(n1, sizeof n1, cd->logp, 3), &tx);
		if (scw)
			clip_rtext(c, r, px + 7 + lpw, y, scw, fmt_num(n1, sizeof n1, cd->score, 3), &tx);
		int nx = px + 7 + lpw + scw + 2;
		cand_note(P, st, i, rank, buf, sizeof buf);
		clip_text(c, r, nx, y, r.x + r.w - nx, buf, cd->kept ? &ac : &mu);
		y += p;
	}
	if (shown < rank && shown >= 2) {
		/* the last row says how many did not fit */
		struct rect line = rect_sub(r, r.x, y - p, r.w, 1);
		canvas_fill(c, line, " ", COLOR_DEFAULT, COLOR_DEFAULT, 0);
		snprintf(buf, sizeof buf, _("  ⋮ %d more"), rank - shown + 1);
		clip_text(c, r, r.x, y - p, r.w, buf, &mu);
	}
	cands_footer(P, c, r, y - p + 1 + (p > 1), legend, scw > 0);
}
