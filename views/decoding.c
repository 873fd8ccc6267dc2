/* decoding.c - the decoding page: greedy or beam search replayed one step
 * at a time from the decoding record (src/engine/decode.h).
 *
 *   status  "step s of N · greedy" or "· beam B, α=…", and the length-limit
 *           warning at the last step when the search never produced </s>
 *   (a)     the decoder input at every step so far, for the followed
 *           hypothesis (its ancestry through hyps[].parent): rows grow by one
 *           token a step, the newest marked ▸, past steps dim, and the token
 *           each step chose
 *   (b)     the next-token candidates of the followed hypothesis at step s:
 *           bars of p (this step's), Σ log p (the running sum) and score,
 *           ⇒ forced ✓ kept ● </s> ✗ pruned, "arg-max" for greedy, the slot
 *           each kept one went to for beam; a forced step keeps its real
 *           candidates (pruned) and marks the forced one
 *   (c)     beam only: the lattice of beam slots (columns = steps, rows =
 *           slots, a line from every cell to its parent), the candidates
 *           pruned at step s under the newest column, and the finished
 *           hypotheses ranked (right of the lattice or under it)
 *
 * (b) is views/candidates.c (views/sampling.c when the search samples),
 * (c) views/lattice.c.  Steps are shown 1-based (step 1 feeds <s>);
 * v->dec_step is 0-based.  The view reads the record only: p, log p and
 * scores are the engine's.
 *
 * Dimension names: N recorded steps, B beam slots, K candidates recorded
 * per hypothesis and step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "lattice.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/decode.h"
#include "engine/model.h"
#include "formats/vocab.h"

#define RANK_W 34        /* the ranking panel, when beside the lattice */
#define ROW_MAX 200      /* tokens of a decoder-input row kept for drawing */

/* --- what the page shows (struct page: page.h) --- */

/* The prompt a decoder-only model decodes after: the trace's decoder
 * input, less the followed hypothesis's outputs when the trace is that
 * step's pass, less trailing padding. */
static void find_prompt(struct page *P, const struct view_state *v)
{
	P->prompt = P->sos;
	P->np = 1;
	const struct trace *t = v->tr;
	if (!v->m || v->m->cfg.arch != ARCH_DEC_ONLY || !t || !t->tgt_tokens || t->T < 1)
		return;
	int T = t->T;
	while (T > 1 && strcmp(t->tgt_tokens[T - 1], "<pad>") == 0)
		T--;
	const struct hyp *h = page_hyp(P, P->s, P->hyp);
	int n = h ? h->n : 0, match = T - n >= 1;
	char b[32];
	for (int i = 0; match && i < n; i++)
		match = strcmp(t->tgt_tokens[T - n + i], P->voc && vocab_str(P->voc, h->ids[i]) ?
			       vocab_str(P->voc, h->ids[i]) : page_tok(P, h->ids[i], b, sizeof b)) == 0;
	P->prompt = t->tgt_tokens;
	P->np = match ? T - n : T;
}

static int page_init(struct page *P, const struct view_state *v)
{
	memset(P, 0, sizeof *P);
	P->d = v->dec;
	P->voc = v->m ? &v->m->tgt_vocab : v->tr ? v->tr->vocab : NULL;
	P->tok = v->m ? &v->m->cfg.tok : v->tr ? v->tr->tok : NULL;
	P->N = P->d->nsteps;
	P->s = clampi(v->dec_step, 0, P->N - 1);
	int nh = P->d->steps[P->s].nhyps;
	P->hyp = clampi(v->dec_hyp, 0, nh > 0 ? nh - 1 : 0);
	int maxh = 1;
	for (int i = 0; i < P->N; i++)
		maxh = P->d->steps[i].nhyps > maxh ? P->d->steps[i].nhyps : maxh;
	P->beam = v->dec_beam > 0 ? v->dec_beam : maxh;
	P->alpha = v->dec_alpha;
	P->cand = v->dec_cand;
	P->so = v->dec_sample;
	P->smoothing = v->m ? v->m->cfg.label_smoothing : 0;
	P->zoom = v->zoom;
	P->pitch = 1;
	int sos_id = v->m ? v->m->tgt_sp[TOK_SOS] : v->tr ? v->tr->sos_id : -1;
	const char *sos = P->voc ? vocab_str(P->voc, sos_id) : NULL;
	P->sos[0] = (char *)(sos ? sos : "<s>");
	P->anc = malloc((size_t)(P->s + 1) * sizeof *P->anc);
	if (!P->anc)
		return -1;
	/* the followed hypothesis's ancestry, back through the parents */
	int slot = P->hyp;
	for (int k = P->s; k >= 0; k--) {
		P->anc[k] = slot;
		const struct hyp *h = page_hyp(P, k, slot);
		slot = h && h->parent >= 0 ? h->parent : 0;
	}
	find_prompt(P, v);
	return 0;
}

/* --- (a) the decoder input, step by step --- */

/* The decoder input of step k for the followed ancestry: the last cap
 * tokens of prompt + outputs; *skipped says whether earlier ones were left
 * out.  Returns the count. */
static int input_row(const struct page *P, int k, const char **toks, char (*lb)[32],
		     int cap, int *skipped)
{
	const struct hyp *h = page_hyp(P, k, P->anc[k]);
	const int nout = h ? (h->n < k ? h->n : k) : 0, total = P->np + nout;
	const int from = total > cap ? total - cap : 0;
	int n = 0;
	for (int i = from; i < total; i++) {
		const char *t = i < P->np ? P->prompt[i] :
				P->voc ? vocab_str(P->voc, h->ids[i - P->np]) : NULL;
		if (t && P->tok)
			t = tokens_label(P->tok, t, lb[n], sizeof lb[n]);
		toks[n++] = t ? t : "?";
	}
	*skipped = from > 0;
	return n;
}

static int toks_width(const char **t, int n)
{
	int w = 0;
	for (int i = 0; i < n; i++)
		w += utf8_width(t[i]) + (i > 0);
	return w;
}

/* "→ tok" after row k: the token step k chose for the ancestry; for the
 * newest row the followed hypothesis's kept continuations. */
static void next_text(const struct page *P, int k, char *buf, size_t n)
{
	char b[32];
	if (k < P->s) {
		const struct hyp *h = page_hyp(P, k + 1, P->anc[k + 1]);
		snprintf(buf, n, "→ %s", h && h->n > k ? page_tok(P, h->ids[k], b, sizeof b) : "?");
		return;
	}
	const struct decode_step *st = &P->d->steps[k];
	size_t used = (size_t)snprintf(buf, n, "→");
	int kept = 0;
	for (int i = 0; i < st->ncands && used < n; i++) {
		const struct cand *cd = &st->cands[i];
		if (cd->parent != P->hyp || !cd->kept)
			continue;
		used += (size_t)snprintf(buf + used, n - used, "%s %s", kept ? " ·" : "",
					 page_tok(P, cd->token, b, sizeof b));
		kept++;
	}
	if (!kept)
		snprintf(buf, n, "%s", _("→ ✗ every continuation pruned"));
}

/* "→ a · b · c" in w columns: the tokens that fit whole, then " …" for
 * the rest (in place). */
static void fit_list(char *s, int w)
{
	char *sep;
	while (utf8_width(s) > w && (sep = strrchr(s, 0xB7)) && sep - s >= 2 &&
	       sep[-1] == (char)0xC2 && sep[-2] == ' ') {
		/* drop the last " · tok", mark the cut */
		snprintf(sep - 2, 5, " …");
		if (utf8_width(s) <= w)
			return;
		sep[-2] = 0;
	}
}

/* Width of section (a) at the last step for any hypothesis (the widest
 * kept token of every step), so the layout does not jump while stepping. */
static int input_width(const struct page *P, int lw)
{
	char b[32];
	int w = 0;
	for (int i = 0; i < P->np; i++)
		w += utf8_width(P->prompt[i]) + (i > 0);
	int tmax = 1;
	for (int k = 0; k < P->N; k++) {
		const struct decode_step *st = &P->d->steps[k];
		int kw = 1;
		for (int i = 0; i < st->ncands; i++)
			if (st->cands[i].kept && !st->cands[i].finished) {
				int x = utf8_width(page_tok(P, st->cands[i].token, b, sizeof b));
				kw = x > kw ? x : kw;
			}
		tmax = kw > tmax ? kw : tmax;
		if (k < P->N - 1)
			w += 1 + kw;
	}
	int arrow = 2 + (tmax > TOKEN_MAX ? TOKEN_MAX : tmax);
	if (P->beam > 1 && arrow < 20)
		arrow = 20;
	return 2 + lw + 2 + w + 2 + arrow;
}

/* Room for "→ tok" of every row that may show in h lines: the older
 * rows' one token whole, the newest row's list up to 12 columns (the
 * tokens give way, cut from the left, rather than an arrow's token). */
static int arrows_width(const struct page *P, int h)
{
	char nx[160];
	next_text(P, P->s, nx, sizeof nx);
	int nxw = utf8_width(nx);
	nxw = nxw < 12 ? nxw : 12;
	for (int k = P->s - h > 0 ? P->s - h : 0; k < P->s; k++) {
		next_text(P, k, nx, sizeof nx);
		int w = utf8_width(nx);
		nxw = w > nxw ? w : nxw;
	}
	return nxw;
}

static void draw_input(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	char buf[192], nx[160];
	if (r.h < 1 || r.w < 1)
		return;
	if (P->beam > 1)
		snprintf(buf, sizeof buf, _("decoder input at each step · hypothesis #%d and its ancestors"),
			 P->hyp);
	else
		snprintf(buf, sizeof buf, "%s", _("decoder input at each step (it grows by the chosen token)"));
	if (utf8_width(buf) > r.w) {
		/* TRANSLATORS: short forms of the title above. */
		if (P->beam > 1)
			snprintf(buf, sizeof buf, _("decoder input · #%d"), P->hyp);
		else
			snprintf(buf, sizeof buf, "%s", _("decoder input"));
	}
	clip_text(c, r, r.x, r.y, r.w, buf, &hd);

	int lw = snprintf(buf, sizeof buf, "%d", P->N);
	/* the token area: as wide as the newest row, leaving room for "→ …" */
	const char *t[ROW_MAX];
	char lb[ROW_MAX][32];
	int skipped, n = input_row(P, P->s, t, lb, ROW_MAX, &skipped);
	int tw_nat = toks_width(t, n) + (skipped ? 2 : 0);
	int tx = r.x + 2 + lw + 2;
	int tarea = r.x + r.w - tx;
	const int nxw = arrows_width(P, r.h);
	if (tarea - tw_nat - 2 < nxw)
		tw_nat = tarea - 2 - nxw;
	if (tw_nat < 4)
		tw_nat = tarea > 4 ? tarea : 4;
	int ax = tx + tw_nat + 2;

	/* tall rows (presenter) start on the line (b)'s rows start on, under
	 * its headings */
	const int p = P->pitch, head = 1 + (p > 1);
	int vis = (r.h - head) / p, first = P->s + 1 - vis;
	if (vis < 1)
		return;
	int y = r.y + head;
	if (first > 0) {
		first++;   /* this line says which steps are shown (from 1,
			      as the rows are numbered) */
		char more[96];
		fmt_shown(more, sizeof more, r.w, (struct shown){ SH_STEPS, first + 1, P->s + 1 - first,
								  P->s + 1 }, (struct shown){ 0 });
		snprintf(buf, sizeof buf, "%*s  ⋮ %s", lw, "", more);
		clip_text(c, r, r.x + 2, y, r.w - 2, buf, &mu);
		y += p;
	} else {
		first = 0;
	}
	for (int k = first; k <= P->s && y < r.y + r.h; k++, y += p) {
		const int on = k == P->s;
		const struct style *st = on ? &cur : &mu;
		n = input_row(P, k, t, lb, ROW_MAX, &skipped);
		/* the newest tokens matter: cut from the left */
		int lo = 0, w = toks_width(t, n), cut = skipped;
		while (lo < n - 1 && w > tw_nat) {
			w -= utf8_width(t[lo]) + 1;
			lo++;
			cut = 1;
		}
		if (cut)
			while (lo < n - 1 && w + 2 > tw_nat) {
				w -= utf8_width(t[lo]) + 1;
				lo++;
			}
		if (on)
			for (int x = r.x; x < tx + w + (cut ? 2 : 0) && x < r.x + r.w; x++)
				clip_puts(c, r, x, y, " ", st);
		snprintf(buf, sizeof buf, "%*d", lw, k + 1);
		clip_text(c, r, r.x, y, 2, on ? "▸" : " ", st);
		clip_text(c, r, r.x + 2, y, lw, buf, st);
		int x = tx;
		if (cut)
			x += clip_text(c, r, x, y, 2, "… ", st);
		for (int i = lo; i < n; i++) {
			if (i > lo)
				x += clip_text(c, r, x, y, 1, " ", st);
			int last = i == n - 1 && k > 0;
			x += clip_text(c, r, x, y, r.x + r.w - x, t[i],
				  on ? st : last ? &ac : st);
		}
		next_text(P, k, nx, sizeof nx);
		fit_list(nx, r.x + r.w - ax);
		clip_text(c, r, ax, y, r.x + r.w - ax, nx, on ? &ac : &mu);
	}
}

/* --- the page --- */

/* What decoding does with the masks, on the line under the title: the
 * search computes the next token from the tokens chosen so far, so it is
 * always causal whatever m says (m changes the stages' pass, not the
 * search); the encoder mask and an ablated head it uses.  Returns the
 * lines used. */
static int mask_note(const struct view_state *v, struct canvas *c, struct rect r)
{
	if (r.h < 1 || !v->tr)
		return 0;
	const struct pass_opts *o = &v->tr->opts;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const char *forms[2];
	if (o->causal) {
		/* TRANSLATORS: the decoding page's note on the masks, with the
		 * decoder mask on; the short form after it */
		forms[0] = _("decoder mask causal: decoding is always causal (the next tokens "
			     "are not there yet)");
		forms[1] = _("decoding: always causal");
	} else {
		/* TRANSLATORS: the decoding page's note with the decoder mask
		 * off (m): the search does not change */
		forms[0] = _("decoder mask OFF in the stages only: decoding is always causal "
			     "(the next tokens are not there yet)");
		forms[1] = _("mask OFF in the stages; decoding: always causal");
	}
	char extra[160] = "";
	if (o->encoder_causal || o->ablate_head >= 0)
		/* TRANSLATORS: after the note above: what decoding does use */
		snprintf(extra, sizeof extra, " · %s%s%s", o->encoder_causal ?
			 _("encoder mask causal") : "", o->encoder_causal && o->ablate_head >= 0 ?
			 ", " : "", o->ablate_head >= 0 ? _("head ablated") : "");
	char buf[512];
	for (int k = 0; k < 2; k++) {
		snprintf(buf, sizeof buf, " %s%s%s", forms[k], *extra ? extra : "",
			 *extra ? _(": used") : "");
		if (utf8_width(buf) <= r.w || k == 1)
			break;
	}
	if (utf8_width(buf) > r.w)
		snprintf(buf, sizeof buf, " %s", forms[1]);
	clip_text(c, r, r.x, r.y, r.w, buf, o->causal ? &mu : &wa);
	return 1;
}

static void message(struct canvas *c, struct rect r, const char *s)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	clip_text(c, r, r.x, r.y, r.w, s, &mu);
}

/* Presenter: the lines a row of the input (a) and of the candidates (b)
 * takes, the same for both, when the N rows (a) has at the last step and
 * the nc of (b) fit so in the H lines the page has below its title, c
 * kept for the lattice or the ranking; the same at every step of a greedy
 * search, so that the page does not jump while stepping. */
static int page_pitch(const struct page *P, int H, int side, int c, int nc)
{
	/* lines besides the rows: (a)'s title; (b)'s title, headings, a
	 * blank, the legend and the smoothing note (sampling: 2 more); the
	 * gaps between the parts */
	const int extra = P->so ? 2 : 0;
	if (side)
		return view_pitch(P->zoom, H - c - 1 - 5 - extra, P->N > nc ? P->N : nc);
	return view_pitch(P->zoom, H - c - 2 - 1 - 5 - extra, P->N + nc);
}

/* (d) the page's title line: the step, the search, and at the last step
 * how it ended (on a line of its own when the title leaves no room).
 * Returns the line after it. */
static int draw_title(const struct page *P, const struct view_state *v, struct canvas *c,
		      struct rect r)
{
	const struct style ti = role_style(R_TITLE, c->depth);
	const struct style wa = role_style(R_WARN, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	char buf[192];

	/* (d) status */
	if (P->so)
		/* TRANSLATORS: the decoding page's status while sampling */
		snprintf(buf, sizeof buf, _(" step %d of %d · sampling, seed %llu "), P->s + 1, P->N,
			 (unsigned long long)P->so->seed);
	else if (P->beam > 1)
		snprintf(buf, sizeof buf, _(" step %d of %d · beam %d, α=%g · following #%d of %d "),
			     P->s + 1, P->N, P->beam, P->alpha,
			     P->hyp, P->d->steps[P->s].nhyps);
	else
		snprintf(buf, sizeof buf, _(" step %d of %d · greedy "), P->s + 1, P->N);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, i18n_decimals(buf), &ti);
	int y = r.y + 1;
	const int last = P->s == P->N - 1;
	if (last && P->d->hit_max_len) {
		const char *w = _("stopped at the length limit without </s>");
		if (r.x + r.w - x - 2 >= utf8_width(w))
			clip_text(c, r, x + 2, r.y, r.x + r.w - x - 2, w, &wa);
		else
			clip_text(c, r, r.x, y++, r.w, w, &wa);
	} else if (last && v->m && (v->m->cfg.tok.type == TOKENIZE_BPE ||
				    v->m->cfg.tok.type == TOKENIZE_GPT2 ||
				    v->m->cfg.tok.type == TOKENIZE_HF ||
				    v->m->cfg.tok.type == TOKENIZE_WORDPIECE ||
				    v->m->cfg.tok.type == TOKENIZE_SPM)) {
		/* the followed hypothesis as words: its pieces joined back (from
		 * the vocabulary's strings: GPT-2's bytes) */
		const struct hyp *h = page_hyp(P, P->s, P->hyp);
		const char *t[ROW_MAX];
		char text[512], line[600];
		int n = h ? (h->n < ROW_MAX ? h->n : ROW_MAX) : 0;
		for (int i = 0; i < n; i++) {
			t[i] = vocab_str(P->voc, h->ids[i]);
			if (!t[i])
				t[i] = "?";
		}
		tokens_join(&v->m->cfg.tok, (char *const *)t, n, text, sizeof text);
		for (char *q = text; *q; q++)      /* GPT-2's newlines and tabs */
			if ((unsigned char)*q < 0x20 || *q == 0x7F)
				*q = ' ';
		/* TRANSLATORS: the decoding page at its last step, with the
		   output's BPE pieces joined back into words */
		snprintf(line, sizeof line, _("search finished: “%s”"), text);
		/* on the title's line when it holds it, else on a line of its own */
		if (utf8_width(line) <= r.x + r.w - x - 2)
			clip_text(c, r, x + 2, r.y, r.x + r.w - x - 2, line, &mu);
		else
			clip_text(c, r, r.x + 1, y++, r.w - 1, line, &mu);
	} else if (last) {
		clip_text(c, r, x + 2, r.y, r.x + r.w - x - 2, _("search finished"), &mu);
	}
	return y;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (!v->dec || v->dec->nsteps < 1 || !v->dec->steps ||
	    v->dec->steps[0].nhyps < 1) {
		message(c, r, v->dec ? _("nothing was decoded") : _("no decoding to show"));
		return;
	}
	struct page P;
	if (page_init(&P, v)) {
		message(c, r, _("out of memory"));
		return;
	}
	int y = draw_title(&P, v, c, r);
	const int last = P.s == P.N - 1;
	char a[32];
	y += mask_note(v, c, rect_sub(r, r.x, y, r.w, 1));
	int H = r.y + r.h - y;
	if (H < 1) {
		free(P.anc);
		return;
	}

	/* how the rest is shared: (a) and (b) side by side when both fit
	 * (decided for the widest step, so the page does not jump); the
	 * lattice keeps its slots; old input rows give way first */
	int lw = snprintf(a, sizeof a, "%d", P.N);
	const int aw = input_width(&P, lw), nc = cands_of(&P);
	const int beam = P.beam > 1, side = r.w >= aw + 3 + 56;
	const int lat_w = beam ? lattice_width(&P) : 0;
	const int rank_w = beam && r.w >= lat_w + RANK_W + 2 ? lat_w : 0;
	int c_min = 0, c_want = 0;
	if (beam)
		lattice_rows(&P, rank_w > 0, rank_w > 0 ? rank_w : r.w, &c_min, &c_want);
	else if (last)
		c_min = c_want = ranking_rows(&P);
	P.pitch = page_pitch(&P, H, side, beam ? c_want : 1 + (P.d->nfinished > 1 ?
								P.d->nfinished : 1), nc);
	const int a_want = 1 + (P.pitch > 1) + (P.s + 1) * P.pitch;
	const int b_want = P.pitch > 1 ? cands_lines(nc, P.pitch, 2 + (P.so ? 2 : 0)) :
			   2 + nc + 1 + (P.so ? 2 : 0);
	int a_h = a_want, b_h = b_want;
	if (side) {
		int band = a_want > b_want ? a_want : b_want;
		if (band > H - c_min - 1)
			band = H - c_min - 1;
		if (band < 3)
			band = H < 3 ? H : 3;
		a_h = b_h = band;
	} else if (a_h + b_h + c_want > H) {
		int cap = beam ? H / 4 : H - b_want - c_min;
		a_h = clampi(a_h, 0, cap < 3 ? 3 : cap);
		if (b_h > H - a_h - c_min)
			b_h = H - a_h - c_min < 3 ? 3 : H - a_h - c_min;
	}
	int spare = H - (side ? a_h : a_h + b_h) - c_want;
	const int g1 = !side && spare >= 1;
	const int g2 = c_want > 0 && spare - g1 >= 1;
	if (side) {
		int bx = r.x + aw + 3;
		draw_input(&P, c, rect_sub(r, r.x, y, aw, a_h));
		cands_draw(&P, c, rect_sub(r, bx, y, r.x + r.w - bx, b_h));
		y += a_h + g2;
	} else {
		draw_input(&P, c, rect_sub(r, r.x, y, r.w, a_h));
		y += a_h + g1;
		cands_draw(&P, c, rect_sub(r, r.x, y, r.w, b_h));
		y += b_h + g2;
	}
	if (y < r.y + r.h) {
		struct rect cr = rect_sub(r, r.x, y, r.w, r.y + r.h - y);
		if (beam)
			lattice_draw(&P, c, cr, rank_w);
		else if (last)
			ranking_draw(&P, c, cr);
	}
	free(P.anc);
}

/* ↑↓ pick a candidate of the followed hypothesis (f forces it), ] [
 * another hypothesis to follow (its pass: the stepper's). */
static unsigned on_key(struct view_state *v, enum view_key k)
{
	if (!v->dec || v->dec->nsteps < 1)
		return 0;
	const struct decode_step *st = &v->dec->steps[clampi(v->dec_step, 0, v->dec->nsteps - 1)];
	int ncand = 0;
	for (int i = 0; i < st->ncands; i++)
		ncand += st->cands[i].parent == v->dec_hyp;
	switch (k) {
	case VK_UP:
		if (v->dec_cand > 0)
			v->dec_cand--;
		return VR_REDRAW;
	case VK_DOWN:
		if (v->dec_cand + 1 < ncand)
			v->dec_cand++;
		return VR_REDRAW;
	case VK_NEXT:
	case VK_PREV:
		if (st->nhyps < 1)
			return VR_REDRAW;
		v->dec_hyp = (v->dec_hyp + (k == VK_NEXT ? 1 : st->nhyps - 1)) % st->nhyps;
		v->dec_cand = 0;
		return VR_STEP_PASS;
	default:
		return 0;
	}
}

static const struct view_help HELP[] = {
	/* TRANSLATORS: the help's lines of the decoding page's own keys */
	{ "↑ ↓", N_("decoding page: the candidate above / below (f forces it)") },
	{ "] [", N_("decoding page: the next / previous hypothesis to follow") },
	{ NULL, NULL },
};

const struct view_class decoding_view = {
	.name = "decoding",
	.draw = draw,
	.on_key = on_key,
	.help = HELP,
};
