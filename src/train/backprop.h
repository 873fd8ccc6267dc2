/* backprop.h - the whole model's training pass over a mini-batch: a
 * forward that keeps every activation (llm.c style), the loss, and the
 * backward pass that fills a gradient for every parameter tensor.
 *
 * The forward computes exactly the function of forward_run (same layer
 * operations, grad.h), batched: B sentence pairs padded with <pad> to the
 * longest source S and decoder input T, padded keys masked in every
 * attention, padded positions left out of the loss.  Encoder-decoder and
 * decoder-only models train; an encoder-only model has no labels.
 *
 * The loss is the mean over counted target tokens of the (optionally
 * label-smoothed) cross-entropy; gradients are those of that mean.
 *
 * Dimension names: B batch, S source length, T decoder length, d d_model,
 * V target vocabulary. */
#ifndef ATTNSCOPE_BACKPROP_H
#define ATTNSCOPE_BACKPROP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/model.h"

struct bp_batch {
	int B, S, T;             /* S = 0 for a decoder-only model */
	const int32_t *src;      /* [B, S] source ids, <pad> after src_len */
	const int *src_len;      /* [B] */
	const int32_t *tgt;      /* [B, T] decoder input (<s> + target, <pad>) */
	const int *tgt_len;      /* [B] */
	const int32_t *labels;   /* [B, T] next tokens, −1 where not counted */
};

struct bp_loss {
	double nll;              /* Σ −log p(label) over counted tokens */
	double smoothed;         /* Σ label-smoothed loss (what is minimised) */
	int ntok;                /* counted tokens */
};

struct backprop;

/* m's weights are read at every forward (they may change between calls;
 * the model stays owned by the caller).  Returns NULL with e filled. */
struct backprop *backprop_new(const struct model *m, struct err *e);
void backprop_free(struct backprop *bp);

/* Forward over a batch and its loss.  Returns 0, or -1 with e filled (out
 * of memory, an id outside the vocabulary, a length over max_len). */
int backprop_forward(struct backprop *bp, const struct bp_batch *b,
		     float smoothing, struct bp_loss *loss, struct err *e);
/* Gradients of the last forward's mean loss (replacing earlier ones).
 * Returns 0, or -1 with e filled (out of memory). */
int backprop_backward(struct backprop *bp, struct err *e);

/* Logits [B·T, V] of the last forward. */
const float *backprop_logits(const struct backprop *bp);

/* The gradient of m->tensors[i] (same shape), and all gradients as one
 * array of backprop_nparams floats in tensor order. */
float *backprop_grad(const struct backprop *bp, int i);
float *backprop_grads(const struct backprop *bp);
size_t backprop_nparams(const struct backprop *bp);

#endif
