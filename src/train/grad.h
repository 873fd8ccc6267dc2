/* grad.h - the layer operations of training: forward steps that keep what
 * the backward pass needs, and their backward steps (llm.c style).
 *
 * Every forward here computes exactly what forward.c computes (same
 * formulas, same float/double choices), so a model trained with them is the
 * model the traced pass shows.  Every backward ACCUMULATES into its outputs
 * (dx += ..., dw += ...): callers zero gradient buffers once per step, and a
 * weight used twice (a tied embedding) simply sums its two gradients.  A NULL
 * output gradient is skipped.  Every matrix product goes through
 * cblas_sgemm.
 *
 * Dimension names: n rows, d width, B batch, h heads, dk = d/h, nq and nk
 * query and key lengths, V vocabulary. */
#ifndef ATTNSCOPE_GRAD_H
#define ATTNSCOPE_GRAD_H

#include <stddef.h>
#include <stdint.h>

#include "engine/model.h"

/* Backward of y[n, out] = x[n, in]·w[out, in]ᵀ + b:
 * dx += dy·w, dw += dyᵀ·x, db += Σ_rows dy. */
void grad_linear(const float *dy, const float *x, const float *w, int n,
		 int in, int out, float *dx, float *dw, float *db);

/* y = LN(x)·g + b per row of [n, d] (as op_layernorm; g, b may be NULL),
 * keeping mean[n] and rstd[n] = 1/√(var + eps) for the backward. */
void grad_layernorm_fwd(const float *x, int n, int d, const float *g,
			const float *b, float eps, float *y, float *mean,
			float *rstd);
/* dx += ∂/∂x, dg += Σ dy·x̂, db += Σ dy. */
void grad_layernorm_bwd(const float *dy, const float *x, const float *mean,
			const float *rstd, const float *g, int n, int d,
			float *dx, float *dg, float *db);

/* y[i] = act(pre[i]) (relu, or exact GELU x·Φ(x)); dpre += dy·act'(pre). */
void grad_act_fwd(enum activation a, const float *pre, float *y, size_t n);
void grad_act_bwd(enum activation a, const float *dy, const float *pre,
		  float *dpre, size_t n);

/* Token embedding plus positions over a batch of B sequences of length n:
 * out[b·n + i] = table[ids[b·n + i]]·scale + pos[i]  (pos [n, d] or NULL).
 * Backward: dtable[ids] += scale·dout, dpos[i] += Σ_b dout (dpos may be
 * NULL: sinusoidal or no positions have no parameters). */
void grad_embed_fwd(const int32_t *ids, int B, int n, const float *table,
		    int d, float scale, const float *pos, float *out);
void grad_embed_bwd(const float *dout, const int32_t *ids, int B, int n,
		    int d, float scale, float *dtable, float *dpos);

/* Multi-head scaled dot-product attention over a batch.  Query row i of
 * sequence b, head hh, is q[(b·nq + i)·ldq + hh·dk ..] (dk floats); keys and
 * values likewise with ldk, ldv, so packed Q|K|V projections are used in
 * place.  Key j is masked (score −∞, weight 0) when j >= key_len[b] or, with
 * causal, j > i; a row with every key masked gets all-zero weights, a zero
 * context and zero gradients. */
struct grad_attn {
	int B, nq, nk, h, dk;
	int causal;
	const int *key_len;       /* [B] */
};

/* att[B, h, nq, nk] = softmax(q·kᵀ/√dk + M); ctx[B·nq, h·dk] = att·v
 * (heads side by side, as the trace's concat). */
void grad_attn_fwd(const struct grad_attn *a, const float *q, int ldq,
		   const float *k, int ldk, const float *v, int ldv,
		   float *att, float *ctx);
/* Accumulates dq, dk, dv (laid out as q, k, v) from dctx[B·nq, h·dk].
 * scratch holds nq·nk floats. */
void grad_attn_bwd(const struct grad_attn *a, const float *dctx,
		   const float *q, int ldq, const float *k, int ldk,
		   const float *v, int ldv, const float *att, float *dq,
		   float *dk, float *dv, float *scratch);

/* Cross-entropy of logits[n, V] against labels[n] (label < 0: ignored, zero
 * gradient).  With label smoothing eps the target distribution is
 * (1 − eps)·onehot(label) + eps/V (PyTorch's label_smoothing).
 * dlogits += (softmax(logits) − target)·scale on counted rows.  Returns
 * Σ −log p(label) over counted rows; *smoothed (if non-NULL) gets the sum
 * of the smoothed loss −Σ_j target_j·log p_j, the function whose gradient
 * this is. */
double grad_xent(const float *logits, const int32_t *labels, int n, int V,
		 float eps, float scale, float *dlogits, double *smoothed);

#endif
