/* lens.h - the logit lens: every decoder layer's output read as if it were
 * the last one.
 *
 * Row ℓ = 0 is the decoder's input (tgt.input: embedding + position), row
 * ℓ = 1 … Ld the output of decoder layer ℓ−1 (post-norm: its last norm,
 * decoder.{i}.norm3, or norm2 without cross-attention; pre-norm and none:
 * its last residual sum, add3 / add2).  Each row goes through the model's
 * final norm (decoder.norm, when the model has one) and the generator:
 *   lens[ℓ, t] = softmax(LN_final(h_ℓ[t]) · W_genᵀ + b_gen)          [V]
 * so the last row is the pass's own probs.  Only what the view shows is
 * kept (a full [Ld+1, T, V] table is 167 MB for GPT-2 at 64 tokens): per
 * row and position the LENS_TOP most probable tokens, and the probability
 * and rank of the "chosen" token — what the position finally predicts: the
 * token the search chose while decoding (trace next_tokens), else the
 * label under teacher forcing, else the last row's arg-max.
 *
 * Dimension names: L = Ld + 1 rows, T decoder positions, K = LENS_TOP,
 * V target vocabulary, d d_model. */
#ifndef ATTNSCOPE_LENS_H
#define ATTNSCOPE_LENS_H

#include <stdint.h>

#include "model.h"
#include "trace.h"

#define LENS_TOP 5

struct lens {
	int L, T, V, K;
	char (*row_stage)[STAGE_NAME_MAX];   /* [L] the stage each row reads */
	int32_t *top;      /* [L, T, K] token ids, most probable first */
	float *top_p;      /* [L, T, K] their probabilities */
	int32_t *chosen;   /* [T] the finally chosen token (−1: padding) */
	float *p_chosen;   /* [L, T] its probability at each row */
	int *rank_chosen;  /* [L, T] its rank (1: the top) */
	int *appears;      /* [T] the first row from which on the chosen token
	                      is the top-1 at every later row (−1: never) */
};

/* Computes the lens of a traced pass of an encoder-decoder or
 * decoder-only model.  Returns 0, or -1 with e filled (no decoder, a
 * missing stage, out of memory).  lens_free frees what it holds. */
int lens_compute(const struct model *m, const struct trace *t, struct lens *l,
		 struct err *e);
void lens_free(struct lens *l);

#endif
