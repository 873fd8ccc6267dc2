/* model_arch.h - the model file's keys for the components of today's
 * decoder-only models (Llama, Mistral, Qwen, Gemma, Phi-3):
 *
 *   norm_type: layernorm | rmsnorm | gemma_rmsnorm   (layernorm)
 *   ffn: plain | gated          gated: act(x·W_gateᵀ) ⊙ x·W_upᵀ, linear1
 *                               holding W_gate then W_up (activation:
 *                               swiglu and geglu imply it)
 *   kv_heads: N                 grouped-query attention (heads)
 *   head_dim: N                 dk (d_model / heads)
 *   qkv_bias: true              Q, K, V biases in a model without others
 *   qk_norm: true               RMSNorm of each head's q and k (Qwen3):
 *                               tensors self_attn.q_norm/k_norm.weight [dk]
 *   sliding_window: N           a query sees its N last keys (itself too)
 *   rope_theta: 10000           positional_encoding: rope's base
 *   rope_scaling: {type: linear | llama3, factor, low_freq_factor,
 *                  high_freq_factor, original_max_position_embeddings}
 *
 * Read after the layout's implications (a key given wins). */
#ifndef ATTNSCOPE_MODEL_ARCH_H
#define ATTNSCOPE_MODEL_ARCH_H

#include "model.h"
#include "formats/ydoc.h"

/* Reads those keys of the top mapping r into c.  Returns 0, or -1 with e
 * naming file:line and the key. */
int model_arch_parse(struct config *c, const struct ydoc *d, const struct ynode *r,
		     struct err *e);

/* Checks the combination (head counts divide, rope's head_dim even, …);
 * what names the source in messages.  Returns 0 or -1 with e set. */
int model_arch_check(const struct config *c, const char *what, struct err *e);

#endif
