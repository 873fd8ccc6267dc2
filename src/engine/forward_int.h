/* forward_int.h - the parts of the traced pass (forward.c) that its other
 * files share: the pass's context and the stage constructors, the input
 * side (forward_embed.c: ids, embeddings, positions, T5's relative
 * position bias) and the heads after the last layer (forward_heads.c).
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
	                      it), else NULL */
	int failed;
};

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

/* logits, probs and (with labels) loss for x [n, d]. */
void fwd_output(struct ctx *c, const float *x, int n, enum axis ax,
		const int32_t *labels, int nlabels, int label_len);
/* An encoder-only classifier's memory, pooled, class_logits, class_probs;
 * BERT's memory and masked-LM head. */
void fwd_classify(struct ctx *c, const float *x, const struct pass_input *in);
void fwd_bert_output(struct ctx *c, const float *x, int S);

#endif
