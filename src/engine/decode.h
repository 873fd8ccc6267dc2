/* decode.h - inference one token at a time: greedy, beam search and
 * sampling (temperature, top-k, top-p: sample.h).
 *
 * The encoder runs once; the decoder is fed <s>, then its own outputs, until
 * </s> or the length limit.  Greedy keeps the arg-max; beam search keeps the
 * B best partial sentences by score = log p / lp(len), with the GNMT length
 * penalty lp(n) = ((5 + n) / 6)^α (Wu et al. 2016), and stops when no live
 * hypothesis can still beat the best finished one: its log p can only
 * fall, so its best reachable score is log p / lp(max_len) (α ≥ 0).  A key/value cache makes
 * step t cost one new row per layer instead of recomputing steps < t.
 *
 * The result records every step (the live hypotheses, the candidates
 * considered with their probabilities, which were kept and which pruned),
 * so views can replay the search.  The full trace of any step is a
 * teacher-forced forward_run on that step's decoder input.
 *
 * Dimension names: B beam width, K candidates recorded per hypothesis,
 * L output length, V target vocabulary. */
#ifndef ATTNSCOPE_DECODE_H
#define ATTNSCOPE_DECODE_H

#define DECODE_DEFAULT_NEW 128   /* a continuation's tokens by default */

#include <stdint.h>

#include "input.h"
#include "model.h"
#include "sample.h"

#define DECODE_MAX_BEAM 64

struct decode_opts {
	int beam;           /* 1: greedy */
	double alpha;       /* length penalty α (0: none) */
	int max_len;        /* output tokens at most (0: 2·source + 10, or
	                       DECODE_DEFAULT_NEW for a decoder-only model,
	                       within the model's max_len) */
	int min_len;        /* </s> is not allowed before this many tokens */
	int topk;           /* candidates recorded per hypothesis and step */
	int no_cache;       /* recompute the decoder for every step (benchmark) */
	int until_limit;    /* beam: never stop before max_len (tests: the
	                       stopping rule must not change the result) */
	int force_step;     /* what-if: at this step (−1: none) ... */
	int32_t force_token;/*   hypothesis force_hyp (0: the best) takes
	                       this token, and it alone goes on */
	int force_hyp;
	int sample;         /* 1: draw each token from the distribution that
	                       so makes (beam must be 1) instead of the
	                       arg-max */
	struct sample_opts so;
};
void decode_opts_default(struct decode_opts *o);

/* One candidate continuation considered at a step. */
struct cand {
	int parent;         /* index of the hypothesis it extends */
	int32_t token;
	float prob;         /* p(token | hypothesis) */
	double logp;        /* cumulative log-probability after the token */
	double score;       /* logp / lp(length) */
	int kept;           /* survived into the next beam (or finished) */
	int finished;       /* token is </s> */
	int forced;         /* the what-if forced it: 1 one of the recorded
	                       candidates, 2 added (outside the top K) */
	/* sampling only (0 otherwise): */
	float prob_t;       /* p after temperature */
	float prob_cut;     /* p after the top-k / top-p cut, renormalised
	                       (0: cut off) */
	int drawn;          /* 1 the draw chose it, 2 and it was added
	                       (outside the top K) */
};

/* A hypothesis alive at the start of a step. */
struct hyp {
	int32_t *ids;       /* output tokens so far (without <s>), n of them */
	int n;
	double logp, score;
	int parent;         /* index in the previous step's hypotheses (−1) */
};

struct decode_step {
	struct hyp *hyps; int nhyps;   /* live at the start of the step */
	struct cand *cands; int ncands;
	/* sampling only: the uniform number drawn, how many tokens could be
	 * drawn at all and how many the cut kept */
	double u;
	int nallowed, nkept;
};

struct decode_result {
	struct decode_step *steps; int nsteps;
	struct hyp *finished; int nfinished;   /* best first */
	int32_t *best; int nbest;              /* the best output, without </s> */
	double best_logp, best_score;
	int hit_max_len;    /* the best ended at the limit without </s> */
	enum decode_stop {
		DECODE_STOP_ENDED,  /* no live hypothesis left (greedy: </s>) */
		DECODE_STOP_BOUND,  /* the best finished score ≥ every live
		                       hypothesis's bound (decode.c: live_bound) */
		DECODE_STOP_LIMIT   /* max_len reached with live hypotheses */
	} stop;
	double ms;          /* decoding time */
	/* the first step whose next-token distribution was not finite (NaN
	 * or +inf log-probabilities, or none finite: logits that overflowed,
	 * weights with NaN), else -1; the search went on, its numbers mean
	 * nothing, and a caller reports it */
	int nonfinite_step;
};

/* Decodes the source in src (src_ids / S / src_len, as input_build made
 * them).  Returns 0, or -1 with e filled. */
int decode_run(const struct model *m, const struct pass_input *src,
	       const struct pass_opts *po, const struct decode_opts *o,
	       struct decode_result *r, struct err *e);
void decode_result_free(struct decode_result *r);

/* The input decode_run checks (decode_input.c): the source and prompt as
 * input_build makes them, ids within the vocabularies, options in range.
 * Returns 0, or -1 with e filled. */
int decode_check_input(const struct model *m, const struct pass_input *src,
		       const struct decode_opts *o, struct err *e);

/* Sets in's decoder side to <s> + ids[0..n) (replacing what it had),
 * padded with <pad> up to pad_to positions (0: no padding; the padded keys
 * are masked by the pass, as with --pad-target), so forward_run traces that
 * step.  Returns 0 or -1 on out-of-memory. */
int decode_set_target(const struct model *m, struct pass_input *in,
		      const int32_t *ids, int n, int pad_to);

/* Teacher forcing on a decoded output: in's decoder side becomes <s> +
 * ids[0..n) as decode_set_target makes it, and its labels ids + </s>
 * (<pad> under the padding), as input_build makes them for a target, so
 * the pass traces the loss over them.  Returns 0 or -1 on out-of-memory. */
int decode_teacher_force(const struct model *m, struct pass_input *in,
			 const int32_t *ids, int n, int pad_to);

#endif
