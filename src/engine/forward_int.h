/* forward_int.h - what forward.c and forward_lazy.c share: the pass's
 * context and the pieces a lazy trace computes again.  Not for other
 * files: forward.h is the pass's interface.
 *
 * Dimension names: S source length, T decoder input length, d d_model,
 * h heads, dk, F d_ff, V target vocabulary. */
#ifndef ATTNSCOPE_FORWARD_INT_H
#define ATTNSCOPE_FORWARD_INT_H

#include "forward.h"

struct ctx {
	const struct model *m;
	struct trace *t;
	const struct pass_opts *o;
	struct err *e;
	int d, h, dk, F;
	int hkv, qd, kvd;  /* key/value heads, h·dk, h_kv·dk */
	float *inv;        /* [dk/2] rotary frequencies (PE_ROPE), else NULL */
	float *scratch;   /* [max(S, T), 2qd + 2kvd]: Q|K|V projections, Kᵀ per head */
	int failed;
	int S, T, src_len, tgt_len;
	struct lazy_pass *lazy;   /* recording a lazy trace's first pass, else NULL */
	int declare;              /* output(): the stages only, not their values */
};

/* What a lazy trace needs to compute a sublayer again (the trace owns
 * it): the model, the options, the lengths, and for each group (a layer's
 * sublayer: enum part) the stages holding its input and the encoder's
 * memory. */
struct lazy_pass {
	const struct model *m;
	struct pass_opts o;
	int S, T, src_len, tgt_len;
	struct lazy_layer { enum block blk; int layer, part, in, mem; } *g;
	int ng, cap;
	/* the output group (BLK_OUTPUT): its rows, their axis, the labels */
	int out_n;
	enum axis out_ax;
	int32_t *labels;
	int nlabels, label_len;
};

/* The sublayers of a layer, each a group of a lazy trace: computing again
 * the attention of a layer does not compute its feed-forward. */
enum part { P_SELF, P_CROSS, P_FFN };

/* forward.c: the context for a pass of m into t at these lengths (the
 * dimensions, the scratch, RoPE's frequencies; -1 when out of memory),
 * released by forward_ctx_release. */
int forward_ctx_setup(struct ctx *c, const struct model *m, const struct pass_opts *o,
		      struct trace *t, int S, int T, int src_len, int tgt_len);
void forward_ctx_release(struct ctx *c);
/* Sublayer part of layer i of blk on x [n, d] (cross-attention reads
 * memory [S, d]): its stages; returns its output [n, d]. */
const float *forward_sublayer(struct ctx *c, enum block blk, int i, enum part part,
			      const float *x, const float *memory);
/* logits, probs and (with labels) loss of x [n, d]; with c->declare the
 * stages only. */
void forward_output(struct ctx *c, const float *x, int n, enum axis ax,
		    const int32_t *labels, int nlabels, int label_len);

/* forward_lazy.c: c->lazy for a lazy pass of in (t owns it); notes the
 * stages sublayer part of layer i reads (x, memory: held); the output as
 * the trace's last group (declared, computed when read). */
int forward_lazy_start(struct ctx *c, const struct pass_input *in, const struct pass_opts *o);
int forward_lazy_note(struct ctx *c, enum block blk, int i, int part, const float *x,
		      const float *memory);
void forward_output_group(struct ctx *c, const float *x, int n, enum axis ax,
			  const int32_t *labels, int nlabels, int label_len);

#endif
