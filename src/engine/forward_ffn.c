/* forward_ffn.c - the feed-forward sublayer of the traced pass: hidden =
 * act(x·W₁ᵀ + b₁), out = hidden·W₂ᵀ + b₂, or the gated form (gate, up,
 * hidden = gate ⊙ up, out), each a stage of the trace.
 *
 * Dimension names as forward.c's: n rows (S or T), d d_model, F d_ff. */
#include <stdio.h>
#include <stddef.h>

#include "forward.h"
#include "ops.h"
#include "forward_int.h"

static const char F_GATE_SILU[] = "SiLU(x·W_gateᵀ)";
static const char F_GATE_GELU[] = "GELU(x·W_gateᵀ)";
static const char F_GATE_GELU_NEW[] = "GELU_tanh(x·W_gateᵀ)";
static const char F_GATE_RELU[] = "max(0, x·W_gateᵀ)";
static const char F_UP[] = "x·W_upᵀ";
static const char F_HIDDEN_GATED[] = "gate ⊙ up";
static const char F_FFN_DOWN[] = "hidden·W_downᵀ";
static const char F_HIDDEN_RELU[] = "max(0, x·W₁ᵀ + b₁)";
static const char F_HIDDEN_GELU[] = "GELU(x·W₁ᵀ + b₁)";
static const char F_HIDDEN_GELU_NEW[] = "GELU_tanh(x·W₁ᵀ + b₁)";
static const char F_HIDDEN_SILU[] = "SiLU(x·W₁ᵀ + b₁)";
static const char F_FFN_OUT[] = "hidden·W₂ᵀ + b₂";

/* The gated feed-forward: gate = act(x·W_gateᵀ), up = x·W_upᵀ, hidden =
 * gate ⊙ up, out = hidden·W_downᵀ (linear1 holds W_gate then W_up). */
static const float *ffn_gated(struct ctx *c, enum block blk, int layer,
			      const char *prefix, const struct layer_w *L,
			      const float *x, int n, enum axis ax)
{
	const struct config *cfg = &c->m->cfg;
	const int F = c->F, d = c->d;
	char nm[STAGE_NAME_MAX];
	snprintf(nm, sizeof nm, "%s.ffn.gate", prefix);
	float *gate = fwd_mat(c, SK_VECTORS, blk, layer, cfg->act == ACT_SILU ? F_GATE_SILU :
			  cfg->act == ACT_GELU ? F_GATE_GELU : cfg->act == ACT_GELU_NEW ?
			  F_GATE_GELU_NEW : F_GATE_RELU, n, ax, F, AX_NONE, nm);
	snprintf(nm, sizeof nm, "%s.ffn.up", prefix);
	float *up = fwd_mat(c, SK_VECTORS, blk, layer, F_UP, n, ax, F, AX_NONE, nm);
	snprintf(nm, sizeof nm, "%s.ffn.hidden", prefix);
	float *hid = fwd_mat(c, SK_VECTORS, blk, layer, F_HIDDEN_GATED, n, ax, F, AX_NONE, nm);
	snprintf(nm, sizeof nm, "%s.ffn.out", prefix);
	float *out = fwd_mat(c, SK_VECTORS, blk, layer, F_FFN_DOWN, n, ax, d, AX_NONE, nm);
	if (c->failed)
		return NULL;
	op_linear(x, n, d, L->l1_w, L->l1_b, F, gate);
	forward_act(cfg, gate, (size_t)n * F);
	op_linear(x, n, d, L->l1_w + (size_t)F * d, L->l1_b ? L->l1_b + F : NULL, F, up);
	for (size_t i = 0; i < (size_t)n * F; i++)
		hid[i] = gate[i] * up[i];
	op_linear(hid, n, F, L->l2_w, L->l2_b, d, out);
	return out;
}

const float *fwd_ffn(struct ctx *c, enum block blk, int layer, const char *prefix,
		     const struct layer_w *L, const float *x, int n, enum axis ax)
{
	char nm[STAGE_NAME_MAX];
	if (c->m->cfg.ffn_gated)
		return ffn_gated(c, blk, layer, prefix, L, x, n, ax);
	const enum activation act = c->m->cfg.act;
	snprintf(nm, sizeof nm, "%s.ffn.hidden", prefix);
	float *hid = fwd_mat(c, SK_VECTORS, blk, layer,
			 act == ACT_RELU ? F_HIDDEN_RELU : act == ACT_GELU ? F_HIDDEN_GELU :
			 act == ACT_SILU ? F_HIDDEN_SILU : F_HIDDEN_GELU_NEW,
			 n, ax, c->F, AX_NONE, nm);
	snprintf(nm, sizeof nm, "%s.ffn.out", prefix);
	float *out = fwd_mat(c, SK_VECTORS, blk, layer, F_FFN_OUT, n, ax, c->d, AX_NONE, nm);
	if (!hid || !out)
		return NULL;
	if (act == ACT_RELU || act == ACT_GELU) {   /* fused with the product */
		op_linear_act(x, n, c->d, L->l1_w, L->l1_b, c->F, hid,
			      act == ACT_GELU ? OP_GELU : OP_RELU);
	} else {
		op_linear(x, n, c->d, L->l1_w, L->l1_b, c->F, hid);
		forward_act(&c->m->cfg, hid, (size_t)n * c->F);
	}
	op_linear(hid, n, c->F, L->l2_w, L->l2_b, c->d, out);
	return out;
}
