/* forward_int.h - the parts of the traced pass (forward.c) that its other
 * files share: the pass's context and the stage constructors, the input
 * side (forward_embed.c: ids, embeddings, positions, T5's relative
 * position bias), the feed-forward (forward_ffn.c) and the heads after
 * the last layer (forward_heads.c).
 *
 * Dimension names as forward.c's: S source length, T decoder input
 * length, d d_model, h heads, dk, V target vocabulary, B rel_buckets. */
#ifndef ATTNSCOPE_FORWARD_INT_H
#define ATTNSCOPE_FORWARD_INT_H

#include "input.h"
#include "model.h"
#include "trace.h"

struct ctx {
	const struct model *m;
	struct trace *t;
	const struct pass_opts *o;
	struct err *e;
	int d, h, dk, F;
	int hkv, qd, kvd;  /* key/value heads, h·dk, h_kv·dk */
	float *inv;        /* [dk/2] rotary frequencies (PE_ROPE), else NULL */
	float *scratch;   /* [max(S, T), 2qd + 2kvd]: Q|K|V projections, Kᵀ per head */
	const float *bias; /* [h, n, n] T5's relative position bias of the
	                      stack being computed (its first layer makes
	                      it; in a lazy trace each layer), else NULL */
	int failed;
	int S, T, src_len, tgt_len;
	struct lazy_pass *lazy;   /* recording a lazy trace's first pass, else NULL */
	int declare;              /* fwd_output: the stages only, not their values */
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
 * released by fwd_ctx_release. */
int fwd_ctx_setup(struct ctx *c, const struct model *m, const struct pass_opts *o,
		  struct trace *t, int S, int T, int src_len, int tgt_len);
void fwd_ctx_release(struct ctx *c);
/* Sublayer part of layer i of blk on x [n, d] (cross-attention reads
 * memory [S, d]): its stages; returns its output [n, d]. */
const float *fwd_sublayer(struct ctx *c, enum block blk, int i, enum part part,
			  const float *x, const float *memory);

/* forward_ffn.c: the feed-forward of layer `layer` on x [n, d] (the
 * stages prefix.ffn.hidden, .out; gated: .gate, .up first); returns out
 * [n, d], or NULL. */
const float *fwd_ffn(struct ctx *c, enum block blk, int layer, const char *prefix,
		     const struct layer_w *L, const float *x, int n, enum axis ax);

/* forward_lazy.c: c->lazy for a lazy pass of in (t owns it); notes the
 * stages sublayer part of layer i reads (x, memory: held); the output as
 * the trace's last group (declared, computed when read). */
int fwd_lazy_start(struct ctx *c, const struct pass_input *in, const struct pass_opts *o);
int fwd_lazy_note(struct ctx *c, enum block blk, int i, int part, const float *x,
		  const float *memory);
void fwd_output_group(struct ctx *c, const float *x, int n, enum axis ax,
		      const int32_t *labels, int nlabels, int label_len);

/* A [rows, cols] and a [nh, rows, cols] float stage (nh: h, or h_kv for
 * keys and values), a [n] one of the output block; NULL (and c->failed)
 * when out of memory. */
float *fwd_mat(struct ctx *c, enum stage_kind kind, enum block blk, int layer,
	       const char *formula, int rows, enum axis rax, int cols, enum axis cax,
	       const char *name);
float *fwd_cube(struct ctx *c, enum stage_kind kind, enum block blk, int layer,
		const char *formula, int nh, int rows, enum axis rax, int cols,
		enum axis cax, const char *name);
float *fwd_vec(struct ctx *c, enum stage_kind kind, const char *formula, int n,
	       enum axis ax, const char *name);

/* ids -> side.ids, side.embed, side.pos, side.input (and side.input_norm
 * when the model normalises its input).  Returns what the first layer
 * reads [n, d], or NULL. */
const float *fwd_embed(struct ctx *c, enum block blk, const char *side,
		       const int32_t *ids, int n, enum axis ax, const float *table);

/* T5's relative position bias of layer `layer` of a stack ([h, n, n],
 * prefix "encoder.0.self_attn"): the stage prefix.bias, made from the
 * table [B, h] by the first layer and copied by the others from c->bias.
 * causal: the decoder's one-sided buckets.  Returns the stage, or NULL. */
const float *fwd_rel_bias(struct ctx *c, enum block blk, int layer, const char *prefix,
			  const float *table, int n, enum axis ax, int causal);

/* logits, probs and (with labels) loss for x [n, d]; with c->declare the
 * stages only. */
void fwd_output(struct ctx *c, const float *x, int n, enum axis ax,
		const int32_t *labels, int nlabels, int label_len);
/* An encoder-only classifier's memory, pooled, class_logits, class_probs;
 * BERT's memory and masked-LM head. */
void fwd_classify(struct ctx *c, const float *x, const struct pass_input *in);
void fwd_bert_output(struct ctx *c, const float *x, int S);

#endif
