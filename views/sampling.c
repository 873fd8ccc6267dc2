/* sampling.c - the decoding page's candidates when the search samples:
 * the distribution before and after temperature and after the top-k /
 * top-p cut, which tokens the cut kept, the uniform number drawn and the
 * token it chose.
 *
 *   ◆ tok  ███▌    ██████▊   p 41.2%   p_T 35.0%   p_cut 52.1%  drawn
 *   · tok  ...                                                  (in the cut)
 *   ✗ tok  ...                                                  cut off
 *   u = 0.4213 → “seu” · the cut keeps 3 of 310 tokens
 *
 * The numbers are the engine's (decode.h: cand.prob, prob_t, prob_cut;
 * decode_step.u, nallowed, nkept); this file only draws them.
 *
 * Dimension names: K candidates recorded per step. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "page.h"
#include "palette.h"
#include "base/i18n.h"
#include "engine/sample.h"

void sampling_draw_cands(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style cur = role_style(R_CURSOR, c->depth);
	const struct decode_step *st = &P->d->steps[P->s];
	const struct sample_opts *so = P->so;
	char buf[256], b[32], n1[32];
	if (r.h < 1 || r.w < 1)
		return;
	/* TRANSLATORS: the decoding page while sampling; p_T is p after the
	   temperature, p_cut after the top-k / top-p cut (renormalised) */
	snprintf(buf, sizeof buf, _("next token at step %d: p → temperature T=%g → cut (top-k %d, "
				    "top-p %g) → draw"), P->s + 1, so->temperature, so->top_k,
		 so->top_p);
	if (utf8_width(buf) > r.w)
		snprintf(buf, sizeof buf, _("step %d: p → p_T (T=%g) → p_cut → draw"), P->s + 1,
			 so->temperature);
	clip_text(c, r, r.x, r.y, r.w, i18n_decimals(buf), &hd);
	if (st->ncands == 0) {
		clip_text(c, r, r.x, r.y + 1, r.w, _("no candidates recorded for this step"), &mu);
		return;
	}
	int tw = 5;
	for (int i = 0; i < st->ncands; i++) {
		int w = utf8_width(page_tok(P, st->cands[i].token, b, sizeof b));
		tw = w > tw ? w : tw;
	}
	tw = tw > TOKEN_MAX ? TOKEN_MAX : tw;
	/* columns: mark, token, [bar p, bar p_cut], p, p_T, p_cut, note */
	const int fixed = 2 + tw + 1 + 3 * 8;
	int notew = r.w >= fixed + 10 ? 10 : 0;
	int bw = (r.w - fixed - notew - 2) / 2;
	/* presenter: longer, leaving the longest note whole ("drawn (rank >
	 * top)": twice notew) */
	const int bmax = view_spread(P->zoom, (r.w - fixed - 2 * notew - 2) / 2, 1, 16, 40);
	bw = bw > bmax ? bmax : bw < 4 ? 0 : bw;
	const int b1 = r.x + 2 + tw + 1, b2 = b1 + bw + 1;
	const int px = bw ? b2 + bw + 1 : b1;
	int y = r.y + 1;
	if (r.h >= 4) {
		snprintf(buf, sizeof buf, "  %s", _("token"));
		clip_text(c, r, r.x, y, 2 + tw, buf, &mu);
		if (bw) {
			/* TRANSLATORS: headings of the two bars: the model's p, and
			   p after temperature and the cut (what is drawn from) */
			clip_text(c, r, b1, y, bw, _("p"), &mu);
			clip_text(c, r, b2, y, bw, _("p_cut"), &mu);
		}
		clip_rtext(c, r, px, y, 8, "p", &mu);
		clip_rtext(c, r, px + 8, y, 8, "p_T", &mu);
		clip_rtext(c, r, px + 16, y, 8, "p_cut", &mu);
		y++;
	}
	const int foot = r.h >= 5 ? 2 : r.h >= 4 ? 1 : 0;
	const int p = P->pitch;   /* lines a row */
	int shown = 0, room = (r.y + r.h - y - foot) / p, at = -1;
	const struct cand *drawn = NULL;
	for (int i = 0; i < st->ncands; i++)
		if (st->cands[i].drawn || (st->cands[i].forced && st->cands[i].kept)) {
			drawn = &st->cands[i];
			at = i;
		}
	for (int i = 0; i < st->ncands; i++) {
		const struct cand *cd = &st->cands[i];
		/* the drawn one takes the last row when it is further down */
		if (shown >= room || (at >= room && shown == room - 1 && i != at))
			continue;
		shown++;
		const int in_cut = cd->prob_cut > 0;
		const char *mark = cd->forced ? "⇒" : cd->drawn ? "◆" : in_cut ? "·" : "✗";
		const struct style *ms = cd->drawn || cd->forced ? &ac : in_cut ? &tx : &mu;
		clip_text(c, r, r.x, y, 1, mark, ms);
		text_fit(page_tok(P, cd->token, b, sizeof b), tw, buf, sizeof buf);
		clip_text(c, r, r.x + 2, y, tw, buf, shown - 1 == P->cand ? &cur :
			  cd->drawn ? &ac : in_cut ? &lab : &mu);
		if (bw) {
			draw_bar(c, r, b1, y, bw, cd->prob, mu.fg, mu.bg, mu.attr);
			draw_bar(c, r, b2, y, bw, cd->prob_cut, ms->fg, ms->bg, ms->attr);
		}
		fmt_pct(n1, sizeof n1, cd->prob);
		clip_rtext(c, r, px, y, 8, n1, &tx);
		fmt_pct(n1, sizeof n1, cd->prob_t);
		clip_rtext(c, r, px + 8, y, 8, n1, &tx);
		if (in_cut)
			fmt_pct(n1, sizeof n1, cd->prob_cut);
		else
			snprintf(n1, sizeof n1, "—");
		clip_rtext(c, r, px + 16, y, 8, n1, in_cut ? ms : &mu);
		if (notew) {
			/* TRANSLATORS: notes beside a sampling candidate; short */
			const char *note = cd->forced ? _("forced") : cd->drawn == 2 ?
					   _("drawn (rank > top)") : cd->drawn ? _("drawn") :
					   in_cut ? "" : _("cut off");
			clip_text(c, r, px + 26, y, r.x + r.w - px - 26, note, ms);
		}
		y += p;
	}
	if (!foot)
		return;
	y = r.y + r.h - foot;
	if (drawn) {
		char un[24];
		/* TRANSLATORS: u is the uniform random number of the step */
		snprintf(buf, sizeof buf, _("u = %s → “%s” · the cut keeps %d of %d tokens"),
			 fmt_num(un, sizeof un, st->u, 4), page_tok(P, drawn->token, b, sizeof b),
			 st->nkept, st->nallowed);
		clip_text(c, r, r.x, y, r.w, buf, &ac);
	}
	if (foot >= 2)
		clip_text(c, r, r.x, y + 1, r.w, _("◆ drawn  · could be drawn  ✗ cut off  · p_T: p^(1/T) "
						   "renormalised"), &mu);
}
