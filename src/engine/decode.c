/* decode.c - greedy, beam search and sampling: the search over the
 * decoder's steps (decode_step.c, with its key/value cache), each step's
 * candidates, the what-if of a forced token, the record of every step for
 * the decoding page, the stopping rule.
 *
 * Dimension names: B live hypotheses (the beam), K candidates per
 * hypothesis, V target vocabulary, t current position. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_step.h"
#include "forward.h"
#include "ops.h"
#include "pool.h"
#include "base/clock.h"

void decode_opts_default(struct decode_opts *o)
{
	memset(o, 0, sizeof *o);
	o->beam = 1;
	o->alpha = 0.6;
	o->topk = 5;
	o->force_step = -1;
	sample_opts_default(&o->so);
}

static double length_penalty(double alpha, int n)
{
	return alpha > 0 ? pow((5.0 + n) / 6.0, alpha) : 1.0;
}

/* The stopping rule.  A live hypothesis of n tokens and log p L can only
 * finish at a length m in n+1 … maxlen with a log p L' ≤ L ≤ 0, so its
 * final score L'/lp(m) is at most L / lp(m) ≤ L / lp(maxlen): dividing a
 * non-positive number by a larger positive one brings it closer to 0, and
 * lp grows with m for α > 0.  For α = 0 (lp = 1; length_penalty treats
 * α ≤ 0 so) the bound is L itself.  The search stops when the best
 * finished score reaches the bound of every live hypothesis: nothing that
 * stopping drops could have scored higher.  Returns the largest bound. */
static double live_bound(double alpha, const struct hyp *live, int nlive, int maxlen)
{
	const double lpmax = length_penalty(alpha, maxlen);
	double bound = -INFINITY;
	for (int b = 0; b < nlive; b++) {
		double x = live[b].logp / lpmax;
		bound = x > bound ? x : bound;
	}
	return bound;
}

static double best_finished(const struct decode_result *r)
{
	double best = -INFINITY;
	for (int f = 0; f < r->nfinished; f++)
		best = r->finished[f].score > best ? r->finished[f].score : best;
	return best;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->parent != y->parent)
		return x->parent - y->parent;
	return x->token - y->token;
}

static int cmp_hyp(const void *a, const void *b)
{
	const struct hyp *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

static int hyp_copy(struct hyp *dst, const struct hyp *src, int extra)
{
	*dst = *src;
	dst->ids = malloc((size_t)(src->n + extra + 1) * sizeof *dst->ids);
	if (!dst->ids)
		return -1;
	if (src->n)
		memcpy(dst->ids, src->ids, (size_t)src->n * sizeof *dst->ids);
	return 0;
}

static void hyps_free(struct hyp *h, int n)
{
	for (int i = 0; h && i < n; i++)
		free(h[i].ids);
	free(h);
}

void decode_result_free(struct decode_result *r)
{
	for (int i = 0; i < r->nsteps; i++) {
		hyps_free(r->steps[i].hyps, r->steps[i].nhyps);
		free(r->steps[i].cands);
	}
	free(r->steps);
	hyps_free(r->finished, r->nfinished);
	free(r->best);
	memset(r, 0, sizeof *r);
}

/* Indices of the k largest entries of row[V], largest first, leaving out
 * tokens never generated (the model's <pad>, <s>: sp) and </s> when
 * allow_eos is 0. */
static int top_indices(const float *row, int V, const int *sp, int k,
		       int allow_eos, int *idx)
{
	int n = 0;
	for (int j = 0; j < V; j++) {
		if (j == sp[TOK_PAD] || j == sp[TOK_SOS] || (j == sp[TOK_EOS] && !allow_eos))
			continue;
		if (n < k || row[j] > row[idx[n - 1]]) {
			int p = n < k ? n++ : k - 1;
			while (p > 0 && row[idx[p - 1]] < row[j]) {
				idx[p] = idx[p - 1];
				p--;
			}
			idx[p] = j;
		}
	}
	return n;
}

/* One search's state: what it decodes, its limits, the buffers of a step
 * and the live hypotheses.  K candidates per hypothesis. */
struct search {
	const struct model *m;
	const struct pass_input *src;
	const struct decode_opts *o;
	struct decode_result *r;
	struct err *e;
	int B, V, K;
	int prompt;            /* position of the last prompt token (fed at step 0) */
	int maxlen;            /* new tokens at most */
	struct dec D;
	struct trace *enc;     /* the encoder's pass (its memory), or NULL */
	float *lp;             /* [B, V] log-probabilities of a step */
	int *idx;              /* [K] */
	int32_t *tok;          /* [B] the tokens fed */
	int *parent;           /* [B] of the next beam */
	struct cand *cands;    /* [B·K + 2]: + a forced one, + a drawn one outside the top K */
	struct hyp *live;      /* [B] */
	int nlive;
	double *pt, *pc;       /* sampling: p after temperature and after the cut [V] */
	int *order;            /* sampling: the order [V] */
	struct rng rng;
};

/* s->maxlen and s->K for s->m, s->src and s->o, or an error. */
static int search_limits(struct search *s)
{
	const struct model *m = s->m;
	const struct config *c = &m->cfg;
	const struct decode_opts *o = s->o;
	/* default limit: twice the source and ten more (GNMT-style); a
	   decoder-only model continues by DECODE_DEFAULT_NEW tokens at most (a
	   context of 128k would otherwise size the cache for 128k tokens) */
	int maxlen = o->max_len > 0 ? o->max_len :
		     c->arch == ARCH_ENC_DEC ? 2 * s->src->src_len + 10 : DECODE_DEFAULT_NEW;
	/* N new tokens feed positions 0 … prompt + N − 1 (the last output is
	   never fed back): P + N − 1 ≤ max_len (DESIGN.md) */
	if (maxlen > c->max_len - s->prompt)
		maxlen = c->max_len - s->prompt;
	if (maxlen < 1)
		return err_set(s->e, "no room to decode: the prompt fills max_len %d", c->max_len);
	int K = s->B > o->topk ? s->B : o->topk;   /* candidates per hypothesis */
	const int never = (m->tgt_sp[TOK_PAD] >= 0) + (m->tgt_sp[TOK_SOS] >= 0) +
			  (m->tgt_sp[TOK_EOS] >= 0 && m->tgt_sp[TOK_EOS] != m->tgt_sp[TOK_PAD]);
	if (K > s->V - never)
		K = s->V - never;
	if (K < 1)
		return err_set(s->e, "%s: the target vocabulary has no ordinary tokens", m->path);
	s->maxlen = maxlen;
	s->K = K;
	return 0;
}

/* An encoder-decoder's memory [S, d]: the encoder's pass, plus one <s>
 * step, into s->enc.  Returns it, or NULL (an error). */
static const float *search_encode(struct search *s, const struct pass_opts *po)
{
	const struct pass_input *src = s->src;
	struct pass_input in1 = *src;
	int32_t sos = src->tgt_ids[0];   /* <s>, or decoder_start_token_id */
	char *sos_tok = (char *)"<s>";
	in1.tgt_ids = &sos;
	in1.tgt_tok = &sos_tok;
	in1.T = in1.tgt_len = 1;
	in1.labels = NULL;
	in1.label_tok = NULL;
	if (!(s->enc = forward_run(s->m, &in1, po, NULL, s->e)))
		return NULL;
	const struct stage *ms = trace_find(s->enc, "memory");
	return ms->data;
}

/* The buffers, the step machinery over memory [S, d] (or NULL) and the
 * first live hypothesis (empty); -1 (an error) when out of memory. */
static int search_alloc(struct search *s, const float *memory, int S,
			const struct pass_opts *po)
{
	const int B = s->B, V = s->V, K = s->K;
	struct decode_result *r = s->r;
	s->lp = malloc((size_t)B * V * sizeof *s->lp);
	s->idx = malloc((size_t)K * sizeof *s->idx);
	s->tok = malloc((size_t)B * sizeof *s->tok);
	s->parent = malloc((size_t)B * sizeof *s->parent);
	s->cands = malloc(((size_t)B * K + 2) * sizeof *s->cands);
	s->live = calloc((size_t)B, sizeof *s->live);
	s->nlive = 1;
	rng_seed(&s->rng, s->o->so.seed);
	if (s->o->sample) {
		s->pt = malloc((size_t)V * sizeof *s->pt);
		s->pc = malloc((size_t)V * sizeof *s->pc);
		s->order = malloc((size_t)V * sizeof *s->order);
		if (!s->pt || !s->pc || !s->order)
			return err_set(s->e, "out of memory while decoding");
	}
	/* at most one </s> per live hypothesis and step, or the B live ones
	 * at the limit */
	r->finished = calloc((size_t)B * (s->maxlen + 1) + 1, sizeof *r->finished);
	r->steps = calloc((size_t)s->maxlen, sizeof *r->steps);
	if (!s->lp || !s->idx || !s->tok || !s->parent || !s->cands || !s->live ||
	    !r->finished || !r->steps ||
	    dec_init(&s->D, s->m, memory, S, s->src->src_len, B, s->prompt + s->maxlen + 1))
		return err_set(s->e, "out of memory while decoding");
	s->D.po = po;
	s->live[0].ids = malloc(sizeof *s->live[0].ids);
	s->live[0].parent = -1;
	if (!s->live[0].ids)
		return err_set(s->e, "out of memory while decoding");
	return 0;
}

/* The token a hypothesis feeds at a step: the last prompt token (<s> for
 * an encoder-decoder) at step 0, then its own output of the step before. */
static int32_t fed(const struct pass_input *src, int prompt, const struct hyp *h,
		   int step)
{
	return step == 0 ? src->tgt_ids[prompt] : h->ids[step - 1];
}

/* The prompt before its last token: <s> and a decoder-only prompt, all at
 * once when the model has no cross-attention (else, or out of memory, one
 * at a time). */
static void search_prompt(struct search *s)
{
	const int prompt = s->prompt;
	if (prompt > 0 && (s->D.cross || s->D.relb || s->o->no_cache ||
			   dec_prefill(&s->D, s->src->tgt_ids, prompt)))
		for (int t = 0; t < prompt; t++) {
			s->tok[0] = s->src->tgt_ids[t];
			dec_step(&s->D, 1, t, s->tok, s->lp);
		}
}

/* Step `step` (position t): the live hypotheses' tokens through the
 * decoder into s->lp [nlive, V]; the first non-finite distribution noted. */
static void step_feed(struct search *s, int step, int t)
{
	const int prompt = s->prompt, nlive = s->nlive;
	for (int b = 0; b < nlive; b++)
		s->tok[b] = fed(s->src, prompt, &s->live[b], step);
	if (s->o->no_cache) {
		/* the baseline: recompute every earlier position again */
		int32_t prev[DECODE_MAX_BEAM];
		for (int p = 0; p < t; p++) {
			for (int b = 0; b < nlive; b++)
				prev[b] = p < prompt ? s->src->tgt_ids[p] :
					  fed(s->src, prompt, &s->live[b], p - prompt);
			dec_step(&s->D, nlive, p, prev, s->lp);
		}
	}
	dec_step(&s->D, nlive, t, s->tok, s->lp);
	if (s->r->nonfinite_step < 0 && !op_dist_finite(s->lp, nlive, s->V))
		s->r->nonfinite_step = step;
}

/* Sampling's candidates: the K most probable and the drawn one (sample.h),
 * of the one live hypothesis.  *u the uniform drawn; *nallowed, *nkept as
 * sample_filter's.  Returns their number. */
static int step_sampled(struct search *s, int step, double *u, int *nallowed, int *nkept)
{
	const struct model *m = s->m;
	const struct decode_opts *o = s->o;
	const float *lp = s->lp;
	const int K = s->K;
	int nc = 0;
	const int skip[3] = { m->tgt_sp[TOK_PAD], m->tgt_sp[TOK_SOS],
			      step >= o->min_len ? -1 : m->tgt_sp[TOK_EOS] };
	*nkept = sample_filter(lp, s->V, skip, 3, &o->so, s->pt, s->pc, s->order, nallowed);
	*u = rng_uniform(&s->rng);
	const int drawn = sample_draw(s->pc, s->order, *nkept, *u);
	int seen = 0;
	for (int k = 0; k < *nallowed && (k < K || !seen); k++) {
		const int j = s->order[k];
		if (k >= K && j != drawn)
			continue;
		struct cand *cd = &s->cands[nc++];
		memset(cd, 0, sizeof *cd);
		cd->token = j;
		cd->prob = expf(lp[j]);
		cd->logp = s->live[0].logp + lp[j];
		cd->score = cd->logp / length_penalty(o->alpha, s->live[0].n + 1);
		cd->prob_t = (float)s->pt[j];
		cd->prob_cut = (float)s->pc[j];
		if (j == drawn) {
			cd->drawn = k < K ? 1 : 2;
			seen = 1;
		}
	}
	return nc;
}

/* Greedy's and the beam's candidates: the K best continuations of every
 * live hypothesis.  Returns their number. */
static int step_ranked(struct search *s, int step)
{
	const int V = s->V;
	int nc = 0;
	for (int b = 0; b < s->nlive; b++) {
		const float *row = s->lp + (size_t)b * V;
		int nk = top_indices(row, V, s->m->tgt_sp, s->K, step >= s->o->min_len, s->idx);
		for (int k = 0; k < nk; k++) {
			struct cand *cd = &s->cands[nc++];
			cd->parent = b;
			cd->token = s->idx[k];
			cd->prob = expf(row[s->idx[k]]);
			cd->logp = s->live[b].logp + row[s->idx[k]];
			cd->score = cd->logp / length_penalty(s->o->alpha, s->live[b].n + 1);
			cd->kept = cd->finished = cd->forced = cd->drawn = 0;
			cd->prob_t = cd->prob_cut = 0;
		}
	}
	return nc;
}

/* What-if: the best hypothesis (or force_hyp) is forced to take a token;
 * the real candidates stay recorded (pruned), the forced one is marked,
 * and added when it is not among the nc.  Returns the new number. */
static int step_force(struct search *s, int nc)
{
	const struct decode_opts *o = s->o;
	struct cand *cands = s->cands;
	const int fh = o->force_hyp > 0 && o->force_hyp < s->nlive ? o->force_hyp : 0;
	int at = -1;
	for (int i = 0; i < nc && at < 0; i++)
		if (cands[i].parent == fh && cands[i].token == o->force_token)
			at = i;
	if (at >= 0) {
		cands[at].forced = 1;
		return nc;
	}
	const float *row = s->lp + (size_t)fh * s->V;
	at = nc++;
	cands[at] = (struct cand){ .parent = fh, .token = o->force_token,
				   .prob = expf(row[o->force_token]),
				   .logp = s->live[fh].logp + row[o->force_token],
				   .forced = 2 };
	cands[at].score = cands[at].logp / length_penalty(o->alpha, s->live[fh].n + 1);
	if (o->sample) {
		cands[at].prob_t = (float)s->pt[o->force_token];
		cands[at].prob_cut = (float)s->pc[o->force_token];
	}
	return nc;
}

/* The step's record for the page: the draw, and copies of the live
 * hypotheses (the candidates come after select marks them).  NULL (an
 * error) when out of memory. */
static struct decode_step *step_record(struct search *s, double u, int nallowed,
				       int nkept, int nc)
{
	struct decode_result *r = s->r;
	struct decode_step *st = &r->steps[r->nsteps++];
	st->u = u;
	st->nallowed = nallowed;
	st->nkept = nkept;
	st->hyps = calloc((size_t)s->nlive, sizeof *st->hyps);
	st->cands = malloc((size_t)nc * sizeof *st->cands);
	if (!st->hyps || !st->cands) {
		err_set(s->e, "out of memory while decoding");
		return NULL;
	}
	for (int b = 0; b < s->nlive; b++)
		if (hyp_copy(&st->hyps[st->nhyps++], &s->live[b], 0)) {
			err_set(s->e, "out of memory while decoding");
			return NULL;
		}
	return st;
}

/* Select among the nc sorted candidates: the next beam is the B best
 * continuations that are not </s>; a </s> ranked above the last of them
 * finishes.  Greedy takes the arg-max only, </s> or not; sampling the
 * drawn one, forcing the forced one.  The candidates, marked, go into st;
 * the next beam becomes the live one (s->parent: each one's parent).
 * Returns -1 (an error) when out of memory. */
static int step_select(struct search *s, struct decode_step *st, int nc, int forcing)
{
	const struct decode_opts *o = s->o;
	struct decode_result *r = s->r;
	struct hyp next[DECODE_MAX_BEAM];
	int nnext = 0;
	for (int i = 0; i < nc && nnext < s->B; i++) {
		struct cand *cd = &s->cands[i];
		if (forcing ? !cd->forced : o->sample ? !cd->drawn : s->B == 1 && i > 0)
			continue;
		struct hyp h;
		if (hyp_copy(&h, &s->live[cd->parent], 1))
			return err_set(s->e, "out of memory while decoding");
		h.logp = cd->logp;
		h.score = cd->score;
		h.parent = cd->parent;
		cd->kept = 1;
		if (cd->token == s->m->tgt_sp[TOK_EOS]) {
			cd->finished = 1;
			r->finished[r->nfinished++] = h;
		} else {
			h.ids[h.n++] = cd->token;
			s->parent[nnext] = cd->parent;
			next[nnext++] = h;
		}
	}
	st->ncands = nc;
	memcpy(st->cands, s->cands, (size_t)nc * sizeof *s->cands);
	for (int b = 0; b < s->nlive; b++)
		free(s->live[b].ids);
	for (int b = 0; b < nnext; b++)
		s->live[b] = next[b];
	s->nlive = nnext;
	return 0;
}

/* One step of the search (position t): feed, the candidates, the what-if,
 * the record, the selection.  -1 on an error. */
static int search_step(struct search *s, int step, int t)
{
	const struct decode_opts *o = s->o;
	step_feed(s, step, t);
	int nc, nallowed = 0, nkept = 0;
	double u = 0;
	if (o->sample)
		nc = step_sampled(s, step, &u, &nallowed, &nkept);
	else
		nc = step_ranked(s, step);
	const int forcing = step == o->force_step && o->force_token >= 0 &&
			    o->force_token < s->V;
	if (forcing)
		nc = step_force(s, nc);
	qsort(s->cands, (size_t)nc, sizeof *s->cands, cmp_cand);
	struct decode_step *st = step_record(s, u, nallowed, nkept, nc);
	if (!st)
		return -1;
	return step_select(s, st, nc, forcing);
}

/* The stopping rule (live_bound): 1 when no live hypothesis can beat the
 * best finished one. */
static int search_done(const struct search *s)
{
	return !s->o->until_limit && s->nlive > 0 && s->r->nfinished > 0 &&
	       best_finished(s->r) >= live_bound(s->o->alpha, s->live, s->nlive, s->maxlen);
}

/* Why the search stopped, the results sorted best first (at the limit
 * with none finished, the live hypotheses, flagged) and the best copied
 * out.  -1 (an error) when out of memory. */
static int search_finish(struct search *s)
{
	struct decode_result *r = s->r;
	if (r->stop != DECODE_STOP_BOUND)
		r->stop = s->nlive > 0 ? DECODE_STOP_LIMIT : DECODE_STOP_ENDED;
	/* the limit reached: live hypotheses count as results, flagged */
	if (r->nfinished == 0) {
		r->hit_max_len = 1;
		for (int b = 0; b < s->nlive && r->nfinished < s->B + 1; b++) {
			r->finished[r->nfinished++] = s->live[b];
			s->live[b].ids = NULL;
		}
	}
	qsort(r->finished, (size_t)r->nfinished, sizeof *r->finished, cmp_hyp);
	if (r->nfinished) {
		const struct hyp *best = &r->finished[0];
		r->best = malloc((size_t)(best->n + 1) * sizeof *r->best);
		if (!r->best)
			return err_set(s->e, "out of memory while decoding");
		if (best->n)
			memcpy(r->best, best->ids, (size_t)best->n * sizeof *r->best);
		r->nbest = best->n;
		r->best_logp = best->logp;
		r->best_score = best->score;
	}
	return 0;
}

static void search_free(struct search *s)
{
	for (int b = 0; s->live && b < s->nlive; b++)
		free(s->live[b].ids);
	free(s->live);
	dec_free(&s->D);
	free(s->lp);
	free(s->idx);
	free(s->tok);
	free(s->parent);
	free(s->cands);
	free(s->pt);
	free(s->pc);
	free(s->order);
	trace_free(s->enc);
}

static int search(const struct model *m, const struct pass_input *src,
		  const struct pass_opts *po, const struct decode_opts *o,
		  struct decode_result *r, struct err *e)
{
	const struct config *c = &m->cfg;
	memset(r, 0, sizeof *r);
	r->nonfinite_step = -1;
	if (c->arch == ARCH_ENC_ONLY)
		return err_set(e, "%s: an encoder-only model has no decoder: nothing to decode",
			       m->path);
	if (decode_check_input(m, src, o, e))
		return -1;
	double t0 = clock_ms();
	/* the prompt's tokens before its last are fed before choosing (none
	   for an encoder-decoder: its prompt is <s>); the last is fed at
	   step 0, at position `prompt` */
	struct search s = { .m = m, .src = src, .o = o, .r = r, .e = e, .B = o->beam,
			    .V = m->tgt_vocab.n, .prompt = src->prompt - 1 };
	if (search_limits(&s))
		return -1;
	const float *memory = NULL;
	int S = 0, rc = -1;
	if (c->arch == ARCH_ENC_DEC) {
		if (!(memory = search_encode(&s, po)))
			return -1;
		S = src->S;
	}
	if (search_alloc(&s, memory, S, po))
		goto out;
	search_prompt(&s);
	for (int step = 0; step < s.maxlen && s.nlive > 0; step++) {
		const int t = s.prompt + step;   /* position of the fed token */
		if (search_step(&s, step, t))
			goto out;
		if (search_done(&s)) {
			r->stop = DECODE_STOP_BOUND;
			break;
		}
		if (s.nlive)
			dec_reorder(&s.D, s.parent, s.nlive, t);
	}
	if (search_finish(&s))
		goto out;
	r->ms = clock_ms() - t0;
	rc = 0;
out:
	search_free(&s);
	if (rc)
		decode_result_free(r);
	return rc;
}

int decode_run(const struct model *m, const struct pass_input *src,
	       const struct pass_opts *po, const struct decode_opts *o,
	       struct decode_result *r, struct err *e)
{
	/* the decoder's first input is <s>: without one there is nothing to
	 * feed (input_build says so too, but bench builds its own input) */
	if (m->cfg.arch == ARCH_ENC_DEC && m->tgt_sp[TOK_SOS] < 0)
		return err_set(e, "%s: an encoder-decoder model needs a start token for its "
			       "decoder (tokenizer.specials.sos)", m->path);
	pool_hot(1);   /* a step's products come every few hundred µs */
	int rc = search(m, src, po, o, r, e);
	pool_hot(0);
	return rc;
}
