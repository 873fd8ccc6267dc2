/* hf_llama.c - config.json of today's decoder-only families (DESIGN.md
 * "The models people run today"): LlamaConfig, MistralConfig, Qwen2Config,
 * Qwen3Config, GemmaConfig and Phi3Config, each with its defaults where a
 * key is missing or null, as their configuration_<family>.py have them.
 *
 * Every family is pre-RMSNorm, rotary, gated (SwiGLU; Gemma GeGLU with
 * the tanh GELU) and decoder-only; they differ in biases (Qwen2's Q, K, V),
 * q/k norms (Qwen3), the sliding window (Mistral, Phi-3, Qwen2/3 when
 * use_sliding_window), Gemma's √d embedding scale and ·(1 + g) norms, and
 * Phi-3's fused projections. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hf_int.h"
#include "layout.h"
#include "model_arch.h"

struct family {
	const char *type;
	int vocab, d, F, layers, heads, kv_heads, head_dim, max_len, window;
	double eps;
	enum activation act;
	int tie, qkv_bias, qk_norm, gemma, phi3;
};

static const struct family FAMILIES[] = {
	{ "llama", 32000, 4096, 11008, 32, 32, 0, 0, 2048, 0, 1e-6, ACT_SILU, 0, 0, 0, 0, 0 },
	{ "mistral", 32000, 4096, 14336, 32, 32, 8, 0, 131072, 4096, 1e-6, ACT_SILU, 0, 0, 0, 0, 0 },
	{ "qwen2", 151936, 4096, 22016, 32, 32, 32, 0, 32768, 4096, 1e-6, ACT_SILU, 0, 1, 0, 0, 0 },
	{ "qwen3", 151936, 4096, 22016, 32, 32, 32, 128, 32768, 4096, 1e-6, ACT_SILU, 0, 0, 1, 0, 0 },
	{ "gemma", 256000, 3072, 24576, 28, 16, 16, 256, 8192, 0, 1e-6, ACT_GELU_NEW, 1, 0, 0, 1, 0 },
	{ "phi3", 32064, 3072, 8192, 32, 32, 0, 0, 4096, 0, 1e-5, ACT_SILU, 0, 0, 0, 0, 1 },
};

static const struct family *family(const char *type)
{
	for (size_t i = 0; i < sizeof FAMILIES / sizeof *FAMILIES; i++)
		if (strcmp(type, FAMILIES[i].type) == 0)
			return &FAMILIES[i];
	return NULL;
}

int hf_llama_family(const char *type)
{
	return type && family(type) != NULL;
}

static int get_float(const struct ydoc *d, const struct ynode *map, const char *k,
		     double *out, struct err *e)
{
	const struct ynode *n = hf_key(map, k);
	if (!n)
		return 0;
	if (ynode_float(d, n, out, e))
		return ynode_keyed(d, n, k, e);
	if (!(*out > 0) || !isfinite(*out))
		return err_set(e, "%s:%d: %s must be a positive number", d->file, n->line, k);
	return 0;
}

/* rope_scaling: null, {"rope_type"|"type": "default" | "linear" | "llama3",
 * ...}; any other type is not implemented. */
static int rope_scaling(struct config *c, const struct ydoc *d, struct err *e)
{
	const struct ynode *n = hf_key(d->root, "rope_scaling");
	if (!n)
		return 0;
	if (n->kind != Y_MAP)
		return err_set(e, "%s:%d: rope_scaling must be an object or null", d->file, n->line);
	const struct ynode *t = hf_key(n, "rope_type") ? hf_key(n, "rope_type") : hf_key(n, "type");
	const char *s = t && t->kind == Y_SCALAR ? t->str : "default";
	struct rope_cfg *r = &c->rope;
	if (strcmp(s, "default") == 0)
		return 0;
	if (strcmp(s, "linear") == 0)
		r->scaling = ROPE_LINEAR;
	else if (strcmp(s, "llama3") == 0)
		r->scaling = ROPE_LLAMA3;
	else
		return err_set(e, "%s:%d: rope_scaling: type \"%.40s\" is not implemented "
			       "(linear and llama3 are)", d->file, (t ? t : n)->line, s);
	double orig = 0;
	if (get_float(d, n, "factor", &r->factor, e) ||
	    get_float(d, n, "low_freq_factor", &r->low_freq, e) ||
	    get_float(d, n, "high_freq_factor", &r->high_freq, e) ||
	    get_float(d, n, "original_max_position_embeddings", &orig, e))
		return -1;
	r->orig_max = (int)orig;
	if (!(r->factor > 0))
		return err_set(e, "%s:%d: rope_scaling needs a factor", d->file, n->line);
	if (r->scaling == ROPE_LLAMA3 && (!(r->high_freq > r->low_freq) || r->orig_max < 1))
		return err_set(e, "%s:%d: rope_scaling of type llama3 needs low_freq_factor < "
			       "high_freq_factor and original_max_position_embeddings",
			       d->file, n->line);
	return 0;
}

/* What the pass does not implement, when a config sets it. */
static int unimplemented(const struct ydoc *d, struct err *e)
{
	const struct ynode *n = hf_key(d->root, "partial_rotary_factor");
	double f = 1;
	if (n && (ynode_float(d, n, &f, e) || f != 1))
		return err_set(e, "%s:%d: partial_rotary_factor: %s is not implemented (1 is)",
			       d->file, n->line, n->str ? n->str : "?");
	static const char *const flags[] = { "attn_logit_softcapping", "final_logit_softcapping",
					     "query_pre_attn_scalar", NULL };
	for (int i = 0; flags[i]; i++)
		if ((n = hf_key(d->root, flags[i])))
			return err_set(e, "%s:%d: %s is not implemented (a gemma2 or later key)",
				       d->file, n->line, flags[i]);
	return 0;
}

/* The sliding window (the family's default size, or the config's):
 * Mistral and Phi-3 on every layer; Qwen2/3 only with use_sliding_window,
 * from layer max_window_layers on. */
static int window(struct config *c, const struct ydoc *d, const struct family *f,
		  struct err *e)
{
	int use = 1, from = 0;
	c->sliding_window = f->window;
	if (!strncmp(f->type, "qwen", 4)) {
		use = 0;
		from = 28;
		const struct ynode *n = hf_key(d->root, "use_sliding_window");
		if (n && ynode_bool(d, n, &use, e))
			return ynode_keyed(d, n, "use_sliding_window", e);
		if (hf_int(d, "max_window_layers", 0, HF_MAX_LAYERS, &from, e))
			return -1;
	}
	if (ynode_get(d->root, "sliding_window") && !hf_key(d->root, "sliding_window"))
		c->sliding_window = 0;   /* "sliding_window": null */
	if (hf_int(d, "sliding_window", 1, 1 << 30, &c->sliding_window, e))
		return -1;
	if (!use)
		c->sliding_window = 0;
	c->window_from = from;
	return 0;
}

int hf_llama_config(struct config *c, const struct ydoc *d, const char *type, int *vocab,
		    struct err *e)
{
	const struct family *f = family(type);
	int tie = f->tie, attn_bias = 0, mlp_bias = 0;
	*vocab = f->vocab;
	c->arch = ARCH_DEC_ONLY;
	c->d_model = f->d;
	c->d_ff = f->F;
	c->dec_layers = f->layers;
	c->heads = f->heads;
	c->kv_heads = f->kv_heads;
	c->head_dim = f->head_dim;
	c->max_len = f->max_len;
	c->norm_eps = f->eps;
	c->act = f->act;
	c->layout = f->phi3 ? LAYOUT_PHI3 : LAYOUT_LLAMA;
	layout_imply(c->layout, c, 0);
	c->norm_eps = f->eps;
	c->norm_kind = f->gemma ? NK_RMS1 : NK_RMS;
	c->scale_embedding = f->gemma;   /* Gemma: embeddings × √d */
	c->qkv_bias = f->qkv_bias;
	c->qk_norm = f->qk_norm;
	c->rope.theta = 10000;
	const struct ynode *n;
	if (hf_int(d, "vocab_size", 1, 1 << 24, vocab, e) ||
	    hf_int(d, "hidden_size", 1, HF_MAX_DIM, &c->d_model, e) ||
	    hf_int(d, "intermediate_size", 1, HF_MAX_DIM * 16, &c->d_ff, e) ||
	    hf_int(d, "num_hidden_layers", 1, HF_MAX_LAYERS, &c->dec_layers, e) ||
	    hf_int(d, "num_attention_heads", 1, HF_MAX_DIM, &c->heads, e) ||
	    hf_int(d, "num_key_value_heads", 1, HF_MAX_DIM, &c->kv_heads, e) ||
	    hf_int(d, "head_dim", 1, HF_MAX_DIM, &c->head_dim, e) ||
	    hf_int(d, "max_position_embeddings", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_eps(d, "rms_norm_eps", &c->norm_eps, e) ||
	    hf_act(d, f->gemma && hf_key(d->root, "hidden_activation") ? "hidden_activation"
		   : "hidden_act", &c->act, e) ||
	    get_float(d, d->root, "rope_theta", &c->rope.theta, e) ||
	    rope_scaling(c, d, e) || unimplemented(d, e) || window(c, d, f, e))
		return -1;
	static const char *const flags[] = { "tie_word_embeddings", "attention_bias", "mlp_bias" };
	int *dst[] = { &tie, &attn_bias, &mlp_bias };
	for (int i = 0; i < 3; i++)
		if ((n = hf_key(d->root, flags[i])) && ynode_bool(d, n, dst[i], e))
			return ynode_keyed(d, n, flags[i], e);
	if (attn_bias)   /* Llama's and Qwen3's attention_bias: Q, K, V and O */
		c->qkv_bias = c->out_bias = 1;
	c->ffn_bias = mlp_bias;
	c->tie_gen = tie;
	return model_arch_check(c, d->file, e);
}
