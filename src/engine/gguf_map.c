/* gguf_map.c - a GGUF file's config and tensors in Hugging Face's terms
 * (gguf_map.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_map.h"
#include "base/i18n.h"
#include "formats/quant.h"

static const char *const ARCHS[] = { "llama", "qwen2", "qwen3", "gemma", "phi3" };

/* <arch>.suffix into buf */
static const char *akey(const struct gguf_config *c, const char *suffix, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s.%s", c->arch_name, suffix);
	return buf;
}

/* A required u32 <arch>.suffix, not zero. */
static int need_u32(const struct gguf_file *f, const struct gguf_config *c, const char *suffix,
		    uint32_t *v, struct err *e)
{
	char k[96];
	int r = gguf_get_u32(f, akey(c, suffix, k, sizeof k), v, e);
	if (r < 0)
		return -1;
	if (r == 0)
		return err_set(e, _("%s: metadata %s is missing"), f->path, k);
	if (*v == 0)
		return err_set(e, _("%s: metadata %s is 0"), f->path, k);
	return 0;
}

/* An optional <arch>.suffix: r < 0 is an error, else *v keeps its default. */
static int opt_u32(const struct gguf_file *f, const struct gguf_config *c, const char *suffix,
		   uint32_t *v, struct err *e)
{
	char k[96];
	return gguf_get_u32(f, akey(c, suffix, k, sizeof k), v, e) < 0 ? -1 : 0;
}

static int opt_f32(const struct gguf_file *f, const struct gguf_config *c, const char *suffix,
		   float *v, struct err *e)
{
	char k[96];
	return gguf_get_f32(f, akey(c, suffix, k, sizeof k), v, e) < 0 ? -1 : 0;
}

static int read_arch(const struct gguf_file *f, struct gguf_config *c, struct err *e)
{
	char a[64];
	int r = gguf_get_cstr(f, "general.architecture", a, sizeof a, e);
	if (r < 0)
		return -1;
	if (r == 0)
		return err_set(e, _("%s: metadata general.architecture is missing"), f->path);
	for (size_t i = 0; i < sizeof ARCHS / sizeof *ARCHS; i++)
		if (!strcmp(a, ARCHS[i])) {
			c->arch = (enum gguf_arch)i;
			snprintf(c->arch_name, sizeof c->arch_name, "%s", ARCHS[i]);
			return 0;
		}
	for (char *p = a; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return err_set(e, _("%s: architecture \"%s\" is not read (llama, qwen2, qwen3, gemma, "
			    "phi3 are)"), f->path, a);
}

static int read_rope(const struct gguf_file *f, struct gguf_config *c, struct err *e)
{
	char k[96];
	c->rope_freq_base = 10000.0f;
	c->rope_scaling_factor = 1.0f;
	if (opt_f32(f, c, "rope.freq_base", &c->rope_freq_base, e) ||
	    opt_f32(f, c, "rope.scaling.factor", &c->rope_scaling_factor, e) ||
	    opt_u32(f, c, "rope.scaling.original_context_length", &c->rope_scaling_orig_ctx, e))
		return -1;
	int r = gguf_get_cstr(f, akey(c, "rope.scaling.type", k, sizeof k), c->rope_scaling_name,
			      sizeof c->rope_scaling_name, e);
	if (r < 0)
		return -1;
	const char *s = c->rope_scaling_name;
	c->rope_scaling = r == 0 || !strcmp(s, "none") ? GGUF_ROPE_NONE :
			  !strcmp(s, "linear") ? GGUF_ROPE_LINEAR :
			  !strcmp(s, "yarn") ? GGUF_ROPE_YARN : GGUF_ROPE_OTHER;
	c->has_rope_freqs = gguf_tensor(f, "rope_freqs.weight") != NULL;
	return 0;
}

static int read_vocab_size(const struct gguf_file *f, struct gguf_config *c, struct err *e)
{
	const struct gguf_kv *tok = gguf_find(f, "tokenizer.ggml.tokens");
	const struct gguf_tensor *emb = gguf_tensor(f, "token_embd.weight");
	c->vocab_size = 0;
	if (opt_u32(f, c, "vocab_size", &c->vocab_size, e))
		return -1;
	if (!c->vocab_size && tok && tok->type == GGUF_ARRAY && tok->n <= UINT32_MAX)
		c->vocab_size = (uint32_t)tok->n;
	if (!c->vocab_size && emb && emb->ne[1] <= UINT32_MAX)
		c->vocab_size = (uint32_t)emb->ne[1];
	if (!c->vocab_size)
		return err_set(e, _("%s: no vocabulary size (%s.vocab_size, tokenizer.ggml.tokens "
				    "or token_embd.weight)"), f->path, c->arch_name);
	return 0;
}

int gguf_map_config(const struct gguf_file *f, struct gguf_config *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->file_type = UINT32_MAX;
	if (read_arch(f, c, e) ||
	    gguf_get_cstr(f, "general.name", c->name, sizeof c->name, e) < 0 ||
	    gguf_get_u32(f, "general.file_type", &c->file_type, e) < 0 ||
	    need_u32(f, c, "context_length", &c->context_length, e) ||
	    need_u32(f, c, "embedding_length", &c->embedding_length, e) ||
	    need_u32(f, c, "block_count", &c->block_count, e) ||
	    need_u32(f, c, "feed_forward_length", &c->feed_forward_length, e) ||
	    need_u32(f, c, "attention.head_count", &c->head_count, e))
		return -1;
	c->head_count_kv = c->head_count;
	c->head_dim = c->embedding_length / c->head_count;
	c->rms_eps = 1e-5f;
	if (opt_u32(f, c, "attention.head_count_kv", &c->head_count_kv, e) ||
	    opt_u32(f, c, "attention.key_length", &c->head_dim, e))
		return -1;
	c->value_dim = c->head_dim;
	c->rope_dim = c->head_dim;
	if (opt_u32(f, c, "attention.value_length", &c->value_dim, e) ||
	    opt_u32(f, c, "rope.dimension_count", &c->rope_dim, e) ||
	    opt_f32(f, c, "attention.layer_norm_rms_epsilon", &c->rms_eps, e) ||
	    opt_u32(f, c, "attention.sliding_window", &c->sliding_window, e) ||
	    read_rope(f, c, e) || read_vocab_size(f, c, e))
		return -1;
	if (!c->head_count_kv || c->head_count % c->head_count_kv)
		return err_set(e, _("%s: %" PRIu32 " heads do not share %" PRIu32 " key/value heads "
				    "evenly"), f->path, c->head_count, c->head_count_kv);
	if (!c->head_dim || c->head_dim % 2 || c->rope_dim > c->head_dim || c->rope_dim % 2)
		return err_set(e, _("%s: head size %" PRIu32 " with %" PRIu32 " rotary dimensions "
				    "(an even size, rotary dimensions at most that)"), f->path,
			       c->head_dim, c->rope_dim);
	c->tied = gguf_tensor(f, "output.weight") == NULL;
	c->attn_bias = gguf_tensor(f, "blk.0.attn_q.bias") != NULL;
	c->qk_norm = gguf_tensor(f, "blk.0.attn_q_norm.weight") != NULL;
	return 0;
}

/* ---- names ---- */

struct namemap {
	const char *gguf, *hf;
	unsigned archs;              /* bit per enum gguf_arch; 0: all */
};

#define A(x) (1u << GGUF_ARCH_##x)

/* blk.{i}.<gguf>.{weight,bias} -> model.layers.{i}.<hf>.{weight,bias} */
static const struct namemap BLOCK[] = {
	{ "attn_norm", "input_layernorm", 0 },
	{ "ffn_norm", "post_attention_layernorm", 0 },
	{ "attn_q", "self_attn.q_proj", ~A(PHI3) },
	{ "attn_k", "self_attn.k_proj", ~A(PHI3) },
	{ "attn_v", "self_attn.v_proj", ~A(PHI3) },
	{ "attn_qkv", "self_attn.qkv_proj", A(PHI3) },
	{ "attn_output", "self_attn.o_proj", 0 },
	{ "attn_q_norm", "self_attn.q_norm", A(QWEN3) },
	{ "attn_k_norm", "self_attn.k_norm", A(QWEN3) },
	{ "ffn_gate", "mlp.gate_proj", ~A(PHI3) },
	{ "ffn_up", "mlp.up_proj", ~A(PHI3) },
	{ "ffn_up", "mlp.gate_up_proj", A(PHI3) },
	{ "ffn_down", "mlp.down_proj", 0 },
};

static const struct namemap TOP[] = {
	{ "token_embd.weight", "model.embed_tokens.weight", 0 },
	{ "output_norm.weight", "model.norm.weight", 0 },
	{ "output.weight", "lm_head.weight", 0 },
	{ "rope_freqs.weight", "", A(LLAMA) },
	{ "rope_factors_long.weight", "", A(PHI3) },
	{ "rope_factors_short.weight", "", A(PHI3) },
};

static int arch_ok(const struct namemap *m, enum gguf_arch a)
{
	return !m->archs || (m->archs & (1u << a));
}

static int not_ours(const struct gguf_config *c, const char *gname, struct err *e)
{
	char s[80];
	size_t k = 0;
	for (; gname[k] && k < sizeof s - 1; k++)
		s[k] = (unsigned char)gname[k] < 0x20 || (unsigned char)gname[k] >= 0x7f ? '?' :
		       gname[k];
	s[k] = 0;
	return err_set(e, _("tensor \"%s\" is not one of architecture %s"), s, c->arch_name);
}

int gguf_map_name(const struct gguf_config *c, const char *gname, char *hf, size_t cap,
		  struct err *e)
{
	for (size_t i = 0; i < sizeof TOP / sizeof *TOP; i++)
		if (!strcmp(gname, TOP[i].gguf) && arch_ok(&TOP[i], c->arch)) {
			snprintf(hf, cap, "%s", TOP[i].hf);
			return *TOP[i].hf ? 1 : 0;
		}
	unsigned layer;
	int n = 0;
	if (sscanf(gname, "blk.%u.%n", &layer, &n) != 1 || !n || gname[4] < '0' ||
	    gname[4] > '9' || layer >= c->block_count || (gname[4] == '0' && gname[5] != '.'))
		return not_ours(c, gname, e);
	const char *rest = gname + n, *dot = strrchr(rest, '.');
	if (!dot || (strcmp(dot, ".weight") && strcmp(dot, ".bias")))
		return not_ours(c, gname, e);
	for (size_t i = 0; i < sizeof BLOCK / sizeof *BLOCK; i++) {
		size_t l = strlen(BLOCK[i].gguf);
		if ((size_t)(dot - rest) == l && !strncmp(rest, BLOCK[i].gguf, l) &&
		    arch_ok(&BLOCK[i], c->arch)) {
			if ((size_t)snprintf(hf, cap, "model.layers.%u.%s%s", layer, BLOCK[i].hf,
					     dot) >= cap)
				return err_set(e, _("tensor name \"%s\": no room for its Hugging "
						    "Face name"), gname);
			return 1;
		}
	}
	return not_ours(c, gname, e);
}

/* ---- tensors ---- */

void gguf_unpermute_rows(float *data, float *tmp, uint64_t rows, uint64_t cols,
			 uint32_t n_head)
{
	const uint64_t dk = rows / n_head, half = dk / 2;
	for (uint64_t h = 0; h < n_head; h++)
		for (uint64_t i = 0; i < half; i++)
			for (uint64_t s = 0; s < 2; s++) {
				/* GGUF row h*dk + 2i + s is HF's h*dk + s*dk/2 + i */
				const float *src = data + (h * dk + 2 * i + s) * cols;
				memcpy(tmp + (h * dk + s * half + i) * cols, src, cols * sizeof *tmp);
			}
	memcpy(data, tmp, rows * cols * sizeof *data);
}

/* The heads whose rows llama.cpp permuted in t, or 0. */
static uint32_t permuted_heads(const struct gguf_config *c, const char *hfname)
{
	if (c->arch != GGUF_ARCH_LLAMA)
		return 0;
	if (strstr(hfname, ".self_attn.q_proj."))
		return c->head_count;
	if (strstr(hfname, ".self_attn.k_proj."))
		return c->head_count_kv;
	return 0;
}

static int unpermute(const struct gguf_file *f, const struct gguf_tensor *t,
		     struct gguf_hf_tensor *o, uint32_t heads, struct err *e)
{
	/* a weight [out, in] permutes its rows; a bias [out] its values */
	uint64_t rows = t->ndim >= 2 ? t->ne[1] : t->ne[0];
	uint64_t cols = t->ndim >= 2 ? t->ne[0] : 1;
	if (t->ndim > 2 || rows % ((uint64_t)heads * 2))
		return err_set(e, _("%s: tensor \"%s\": %" PRIu64 " rows are not %" PRIu32
				    " heads of an even size"), f->path, t->name, rows, heads);
	float *tmp = malloc((size_t)o->numel * sizeof *tmp + 1);
	if (!tmp)
		return err_set(e, _("%s: tensor \"%s\": out of memory"), f->path, t->name);
	gguf_unpermute_rows(o->data, tmp, rows, cols, heads);
	free(tmp);
	return 0;
}

int gguf_map_tensor(const struct gguf_file *f, const struct gguf_config *c,
		    const struct gguf_tensor *t, struct gguf_hf_tensor *o, struct err *e)
{
	memset(o, 0, sizeof *o);
	if (gguf_map_name(c, t->name, o->name, sizeof o->name, e) < 0)
		return err_prefix(e, "%s", f->path);
	o->src = t;
	o->ndim = t->ndim;
	for (int d = 0; d < t->ndim; d++)
		o->shape[d] = t->ne[t->ndim - 1 - d];
	o->numel = t->numel;
	if (t->numel > (SIZE_MAX - 1) / sizeof(float))
		return err_set(e, _("%s: tensor \"%s\" is too large for memory"), f->path, t->name);
	if (!(o->data = malloc((size_t)t->numel * sizeof(float) + 1)))
		return err_set(e, _("%s: tensor \"%s\": out of memory (%" PRIu64 " MB as F32)"),
			       f->path, t->name, t->numel * 4 >> 20);
	if (quant_dequant(t->type, t->data, o->data, t->numel, e)) {
		gguf_hf_tensor_free(o);
		return err_prefix(e, "%s: tensor \"%s\"", f->path, t->name);
	}
	uint32_t heads = permuted_heads(c, o->name);
	if (heads && unpermute(f, t, o, heads, e)) {
		gguf_hf_tensor_free(o);
		return -1;
	}
	size_t l = strlen(t->name);
	if (c->arch == GGUF_ARCH_GEMMA && l >= 11 && !strcmp(t->name + l - 11, "norm.weight"))
		for (uint64_t i = 0; i < o->numel; i++)
			o->data[i] -= 1.0f;
	return 0;
}

void gguf_hf_tensor_free(struct gguf_hf_tensor *t)
{
	if (t) {
		free(t->data);
		t->data = NULL;
	}
}
