/* weights_want.c - the tensors a configuration wants: their names, shapes
 * and initial values, and whether a file's tensor fits one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "weights_int.h"

static struct want *want_add(struct wants *ws, const float **dest, int required,
			     int in_random, enum winit init, int ndim, int d0,
			     int d1, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

static struct want *want_add(struct wants *ws, const float **dest, int required,
			     int in_random, enum winit init, int ndim, int d0,
			     int d1, const char *fmt, ...)
{
	if (ws->n == ws->cap) {
		int cap = ws->cap ? ws->cap * 2 : 64;
		struct want *nw = realloc(ws->w, (size_t)cap * sizeof *nw);
		if (!nw)
			return NULL;
		ws->w = nw;
		ws->cap = cap;
	}
	struct want *w = &ws->w[ws->n++];
	memset(w, 0, sizeof *w);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->name, sizeof w->name, fmt, ap);
	va_end(ap);
	w->ndim = ndim;
	w->shape[0] = d0;
	w->shape[1] = d1;
	w->required = required;
	w->in_random = in_random;
	w->init = init;
	w->dest = dest;
	w->found = -1;
	return w;
}

/* A linear layer "prefix.weight" [out, in] and "prefix.bias" [out]: the
 * bias when the model has biases (c->bias: all present or none), or
 * required when own_bias (Qwen2's Q, K, V without other biases). */
static struct want *want_linear_b(struct wants *ws, const struct config *c,
				  const float **w, const float **b, int out, int in,
				  const char *prefix, const char *wsuf, const char *bsuf,
				  int own_bias)
{
	struct want *ww = want_add(ws, w, 1, 1, WI_XAVIER, 2, out, in, "%s%s", prefix, wsuf);
	if (!ww)
		return NULL;
	if (!c->bias && !own_bias)
		return ww;
	struct want *wb = want_add(ws, b, 1, 1, WI_ZERO, 1, out, 0, "%s%s", prefix, bsuf);
	if (!wb)
		return NULL;
	wb->is_bias = !own_bias;
	return ww;
}

static int want_norm(struct wants *ws, const struct config *c, const float **g,
		     const float **b, int required, int in_random,
		     const char *prefix)
{
	const int d = c->d_model, rms = c->norm_kind == NK_RMS || c->norm_kind == NK_RMS1;
	/* Gemma's ·(1 + g) starts from g = 0 */
	if (!want_add(ws, g, required, in_random, c->norm_kind == NK_RMS1 ? WI_ZERO : WI_ONE,
		      1, d, 0, "%s.weight", prefix))
		return -1;
	if (rms)   /* RMSNorm has no bias */
		return 0;
	struct want *wb;
	if (c->bias && !(wb = want_add(ws, b, required, in_random, WI_ZERO, 1, d, 0,
				       "%s.bias", prefix)))
		return -1;
	if (c->bias)
		wb->is_bias = 1;
	return 0;
}

/* in_proj [qd + 2kvd, d] (rows Q, K, V: parts of unequal size under
 * grouped-query attention), out_proj [d, qd], and Qwen3's q/k norms. */
static int want_attn(struct wants *ws, const struct config *c,
		     struct attn_w *a, const char *prefix, int self)
{
	const int d = c->d_model, dk = cfg_dk(c), qd = c->heads * dk,
		  kvd = cfg_kv_heads(c) * dk;
	char p[96];
	snprintf(p, sizeof p, "%s.", prefix);
	struct want *w = want_linear_b(ws, c, &a->in_w, &a->in_b, qd + 2 * kvd, d, p,
				       "in_proj_weight", "in_proj_bias", c->qkv_bias);
	if (!w)
		return -1;
	if (kvd != qd) {   /* the bias (if any) follows the weight */
		for (struct want *x = w; x < ws->w + ws->n; x++) {
			x->part_rows[0] = qd;
			x->part_rows[1] = x->part_rows[2] = kvd;
		}
	}
	snprintf(p, sizeof p, "%s.out_proj", prefix);
	if (!want_linear_b(ws, c, &a->out_w, &a->out_b, d, qd, p, ".weight", ".bias",
			   c->out_bias))
		return -1;
	if (!c->qk_norm || !self)
		return 0;
	return want_add(ws, &a->q_norm, 1, 1, WI_ONE, 1, dk, 0, "%s.q_norm.weight", prefix) &&
	       want_add(ws, &a->k_norm, 1, 1, WI_ONE, 1, dk, 0, "%s.k_norm.weight", prefix)
	       ? 0 : -1;
}

static int want_layer(struct wants *ws, const struct config *c,
		      struct layer_w *L, const char *stack, int i, int cross)
{
	char p[96];
	const int d = c->d_model, F = c->d_ff;
	snprintf(p, sizeof p, "%s.layers.%d.self_attn", stack, i);
	if (want_attn(ws, c, &L->self, p, 1))
		return -1;
	if (cross) {
		snprintf(p, sizeof p, "%s.layers.%d.multihead_attn", stack, i);
		if (want_attn(ws, c, &L->cross, p, 0))
			return -1;
	}
	/* gated: linear1 holds W_gate then W_up */
	snprintf(p, sizeof p, "%s.layers.%d.linear1", stack, i);
	if (!want_linear_b(ws, c, &L->l1_w, &L->l1_b, c->ffn_gated ? 2 * F : F, d, p,
			   ".weight", ".bias", c->ffn_bias))
		return -1;
	snprintf(p, sizeof p, "%s.layers.%d.linear2", stack, i);
	if (!want_linear_b(ws, c, &L->l2_w, &L->l2_b, d, F, p, ".weight", ".bias",
			   c->ffn_bias))
		return -1;
	if (c->norm == NORM_NONE)
		return 0;
	const float **g[3] = { &L->n1_w, &L->n2_w, &L->n3_w };
	const float **b[3] = { &L->n1_b, &L->n2_b, &L->n3_b };
	for (int k = 0; k < (cross ? 3 : 2); k++) {
		snprintf(p, sizeof p, "%s.layers.%d.norm%d", stack, i, k + 1);
		if (want_norm(ws, c, g[k], b[k], 1, 1, p))
			return -1;
	}
	return 0;
}

/* layout bert: the token types, the input norm and the masked-LM head
 * (optional: BertModel has none). */
static int want_bert(struct wants *ws, struct model *m)
{
	const struct config *c = &m->cfg;
	const int d = c->d_model;
	int ok = !!want_add(ws, &m->type_embed, 1, 1, WI_XAVIER, 2, c->type_vocab, d,
			    "type_embed.weight");
	ok &= !want_norm(ws, c, &m->in_norm_w, &m->in_norm_b, 1, 1, "input_norm");
	ok &= !!want_add(ws, &m->mlm_w, 0, 1, WI_XAVIER, 2, d, d, "mlm.dense.weight");
	ok &= !!want_add(ws, &m->mlm_b, 0, 1, WI_ZERO, 1, d, 0, "mlm.dense.bias");
	ok &= !want_norm(ws, c, &m->mlm_norm_w, &m->mlm_norm_b, 0, 1, "mlm.norm");
	return ok ? 0 : -1;
}

int wants_build(struct model *m, struct wants *ws)
{
	const struct config *c = &m->cfg;
	const int d = c->d_model;
	const int enc = c->arch != ARCH_DEC_ONLY, dec = c->arch != ARCH_ENC_ONLY;
	int ok = 1;
	ok &= !!want_add(ws, &m->src_embed, 1, 1, WI_XAVIER, 2, m->src_vocab.n, d,
			 "src_embed.weight");
	if (dec)
		ok &= !!want_add(ws, &m->tgt_embed, 0, !m->shared_vocab, WI_XAVIER, 2,
				 m->tgt_vocab.n, d, "tgt_embed.weight");
	if (c->pe == PE_LEARNED)
		ok &= !!want_add(ws, &m->pos_embed, 1, 1, WI_XAVIER, 2,
				 c->max_len + c->pos_offset, d, "pos_embed.weight");
	if (c->pe == PE_LEARNED && c->layout == LAYOUT_BART && enc && dec)
		ok &= !!want_add(ws, &m->tgt_pos_embed, 1, 1, WI_XAVIER, 2,   /* BART's own */
				 c->max_len + c->pos_offset, d, "tgt_pos_embed.weight");
	if (ok && c->embed_norm)   /* BART's layernorm_embedding, each side */
		ok &= !want_norm(ws, c, &m->in_norm_w, &m->in_norm_b, 1, 1, "input_norm") &&
		      !want_norm(ws, c, &m->tgt_in_norm_w, &m->tgt_in_norm_b, enc && dec, 1,
				 "tgt_input_norm");
	if (c->rel_buckets && enc)   /* T5: the first layer's tables [B, h] */
		ok &= !!want_add(ws, &m->enc_rel_bias, 1, 1, WI_XAVIER, 2, c->rel_buckets,
				 c->heads, "encoder.rel_bias.weight");
	if (c->rel_buckets && dec)
		ok &= !!want_add(ws, &m->dec_rel_bias, 1, 1, WI_XAVIER, 2, c->rel_buckets,
				 c->heads, "decoder.rel_bias.weight");
	for (int i = 0; ok && enc && i < c->enc_layers; i++)
		ok &= !want_layer(ws, c, &m->enc[i], "encoder", i, 0);
	if (ok && enc && c->norm != NORM_NONE)
		ok &= !want_norm(ws, c, &m->enc_norm_w, &m->enc_norm_b, 0,
				 c->norm == NORM_PRE, "encoder.norm");
	for (int i = 0; ok && dec && i < c->dec_layers; i++)
		ok &= !want_layer(ws, c, &m->dec[i], "decoder", i, c->arch == ARCH_ENC_DEC);
	if (ok && dec && c->norm != NORM_NONE)
		ok &= !want_norm(ws, c, &m->dec_norm_w, &m->dec_norm_b, 0,
				 c->norm == NORM_PRE, "decoder.norm");
	const int C = c->head.nlabels;
	if (C) {        /* a classifier: its head instead of a generator */
		ok &= !!want_add(ws, &m->head_w, 1, 1, WI_XAVIER, 2, C, d, "head.weight");
		if (c->head.bias)
			ok &= !!want_add(ws, &m->head_b, 1, 1, WI_ZERO, 1, C, 0, "head.bias");
		return ok ? 0 : -1;
	}
	/* (a seeded random encoder-only model whose target vocabulary is not
	   its source's cannot tie its generator: it gets one of its own) */
	const int own_gen = c->arch == ARCH_ENC_ONLY && !m->shared_vocab &&
			    !vocab_equal(&m->src_vocab, &m->tgt_vocab);
	ok &= !!want_add(ws, &m->gen_w, 0, own_gen, WI_XAVIER, 2, m->tgt_vocab.n, d,
			 "generator.weight");
	ok &= !!want_add(ws, &m->gen_b, 0, 0, WI_ZERO, 1, m->tgt_vocab.n, 0,
			 "generator.bias");
	if (ok && c->layout == LAYOUT_BERT)
		ok &= !want_bert(ws, m);
	for (int i = 0; ok && i < ws->n; i++)
		ws->w[i].transposed = layout_transposed(c->layout, ws->w[i].name);
	return ok ? 0 : -1;
}

void want_shape_str(char *buf, size_t n, int ndim, const int *shape)
{
	if (ndim == 1)
		snprintf(buf, n, "[%d]", shape[0]);
	else
		snprintf(buf, n, "[%d, %d]", shape[0], shape[1]);
}

size_t want_numel(const struct want *w)
{
	return (size_t)w->shape[0] * (w->ndim > 1 ? (size_t)w->shape[1] : 1);
}

/* The rows of part k of nparts of want w. */
int want_part_rows(const struct want *w, int nparts, int k)
{
	return nparts > 1 && w->part_rows[k] ? w->part_rows[k] : w->shape[0] / nparts;
}

/* Part k of nparts of want w: its shape fits (learned positions may hold
 * more rows than max_len). */
int want_part_fits(const struct want *w, int nparts, int k, const struct st_tensor *t)
{
	if (w->ndim == 1 && t->ndim == 2 && t->shape[0] == 1 && nparts == 1)   /* [1, n]: */
		return t->shape[1] == (uint64_t)w->shape[0];   /* final_logits_bias */
	if (t->ndim != w->ndim || (!w->part_rows[0] && w->shape[0] % nparts))
		return 0;
	if (w->transposed)   /* [in, out] */
		return nparts == 1 && t->shape[0] == (uint64_t)w->shape[1] &&
		       t->shape[1] == (uint64_t)w->shape[0];
	uint64_t rows = (uint64_t)want_part_rows(w, nparts, k);
	if (strstr(w->name, "pos_embed.weight") ? t->shape[0] < rows : t->shape[0] != rows)
		return 0;
	return w->ndim == 1 || t->shape[1] == (uint64_t)w->shape[1];
}
