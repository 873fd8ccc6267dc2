/* gguf_model.c - a GGUF file (llama.cpp's, Ollama's blobs) as a model
 * (gguf_model.h): the config from gguf_map_config, the tensors dequantised
 * to F32 under their Hugging Face names and bound by the layouts llama and
 * phi3 as a Hugging Face folder's are (weights_bind_st), the tokenizer
 * from tokenizer.ggml.* (gguf_model_tok.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_map.h"
#include "gguf_model.h"
#include "layout.h"
#include "model_arch.h"
#include "weights.h"
#include "base/i18n.h"
#include "formats/gguf.h"
#include "formats/quant.h"
#include "formats/safetensors.h"

int gguf_model_is(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return (n > 5 && !strcmp(path + n - 5, ".gguf")) || (path && gguf_sniff(path));
}

/* What the pass does not compute, when the file asks for it. */
static int refuse(const struct gguf_config *g, const struct gguf_file *f, struct err *e)
{
	const char *path = f->path;
	if (gguf_tensor(f, "rope_factors_long.weight") || gguf_tensor(f, "rope_factors_short.weight"))
		return err_set(e, _("%s: Phi-3's LongRoPE scaling (rope_factors_long and _short) is "
				    "not implemented"), path);
	if (g->rope_scaling == GGUF_ROPE_YARN || g->rope_scaling == GGUF_ROPE_OTHER)
		return err_set(e, _("%s: rope scaling \"%s\" is not implemented (linear and "
				    "llama3's rope_freqs are)"), path, g->rope_scaling_name);
	if (g->rope_dim != g->head_dim)
		return err_set(e, _("%s: %" PRIu32 " rotary dimensions of a head of %" PRIu32
				    " (partial rotary embeddings) are not implemented"), path,
			       g->rope_dim, g->head_dim);
	if (g->value_dim != g->head_dim)
		return err_set(e, _("%s: value heads of %" PRIu32 " and key heads of %" PRIu32
				    " are not implemented (equal sizes are)"), path, g->value_dim,
			       g->head_dim);
	if (g->embedding_length > 1u << 20 || g->feed_forward_length > 1u << 24 ||
	    g->block_count > 1024 || g->head_count > 4096 || g->head_dim > 1u << 16 ||
	    g->vocab_size > 1u << 24)
		return err_set(e, _("%s: the model's sizes (d %" PRIu32 ", d_ff %" PRIu32
				    ", %" PRIu32 " layers, %" PRIu32 " heads of %" PRIu32
				    ", vocabulary %" PRIu32 ") are beyond what attnscope loads"),
			       path, g->embedding_length, g->feed_forward_length, g->block_count,
			       g->head_count, g->head_dim, g->vocab_size);
	return 0;
}

/* c from g: the fields hf_llama.c sets from a folder's config.json. */
static int config_from(struct config *c, const struct gguf_config *g, const struct gguf_file *f,
		       struct err *e)
{
	const int gemma = g->arch == GGUF_ARCH_GEMMA;
	if (refuse(g, f, e))
		return -1;
	c->layout = g->arch == GGUF_ARCH_PHI3 ? LAYOUT_PHI3 : LAYOUT_LLAMA;
	layout_imply(c->layout, c, 0);
	c->arch = ARCH_DEC_ONLY;
	c->d_model = (int)g->embedding_length;
	c->d_ff = (int)g->feed_forward_length;
	c->dec_layers = (int)g->block_count;
	c->heads = (int)g->head_count;
	c->kv_heads = (int)g->head_count_kv;
	c->head_dim = (int)g->head_dim;
	c->max_len = g->context_length > 1u << 24 ? 1 << 24 : (int)g->context_length;
	c->norm_eps = g->rms_eps;
	c->norm_kind = gemma ? NK_RMS1 : NK_RMS;
	c->act = gemma ? ACT_GELU_NEW : ACT_SILU;   /* Gemma's GeGLU: the tanh GELU */
	c->scale_embedding = gemma;                  /* Gemma: embeddings × √d */
	c->qkv_bias = g->attn_bias;
	c->out_bias = gguf_tensor(f, "blk.0.attn_output.bias") != NULL;
	c->ffn_bias = gguf_tensor(f, "blk.0.ffn_down.bias") != NULL;
	c->qk_norm = g->qk_norm;
	c->sliding_window = (int)(g->sliding_window > 1u << 30 ? 1u << 30 : g->sliding_window);
	c->window_from = 0;
	c->rope.theta = g->rope_freq_base;
	if (g->rope_scaling == GGUF_ROPE_LINEAR && g->rope_scaling_factor != 1.0f) {
		c->rope.scaling = ROPE_LINEAR;
		c->rope.factor = g->rope_scaling_factor;
	}
	c->tie_gen = g->tied ? 1 : 0;
	c->final_norm = -1;
	return model_arch_check(c, f->path, e);
}

/* rope_freqs.weight: one factor a dimension pair, into c->rope. */
static int rope_factors(struct config *c, const struct gguf_file *f, struct err *e)
{
	const struct gguf_tensor *t = gguf_tensor(f, "rope_freqs.weight");
	const int half = cfg_dk(c) / 2;
	if (!t)
		return 0;
	if (t->ndim != 1 || t->numel != (uint64_t)half)
		return err_set(e, _("%s: tensor \"rope_freqs.weight\" has %" PRIu64 " values; the "
				    "heads of %d dimensions need %d"), f->path, t->numel, cfg_dk(c),
			       half);
	if (!(c->rope.freq_factors = malloc((size_t)half * sizeof(float))))
		return err_set(e, _("out of memory"));
	c->rope.nfreq_factors = half;
	if (quant_dequant(t->type, t->data, c->rope.freq_factors, t->numel, e))
		return err_prefix(e, "%s: tensor \"rope_freqs.weight\"", f->path);
	for (int j = 0; j < half; j++)
		if (!(c->rope.freq_factors[j] > 0) || c->rope.freq_factors[j] > 1e30f)
			return err_set(e, _("%s: tensor \"rope_freqs.weight\": factor %d is %g, "
					    "not a positive number"), f->path, j,
				       (double)c->rope.freq_factors[j]);
	return 0;
}

/* One GGUF tensor as the st_file's: its values come from convert. */
struct src {
	const struct gguf_file *f;
	const struct gguf_config *g;
	const struct gguf_tensor *t;
};

static int convert(const struct st_tensor *t, float *out, struct err *e)
{
	const struct src *s = t->convert_arg;
	return gguf_map_tensor_into(s->f, s->g, s->t, out, e);
}

/* tensor i of f as an st_tensor named hf (dequantised when bound). */
static int as_st(struct st_tensor *o, struct src *s, const char *hf, struct err *e)
{
	const struct gguf_tensor *t = s->t;
	memset(o, 0, sizeof *o);
	if (!quant_can_dequant(t->type))
		return err_set(e, _("%s: tensor \"%s\" is of type %s, which attnscope does not "
				    "dequantise (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, "
				    "Q2_K … Q6_K are)"), s->f->path, t->name, quant_name(t->type));
	if (!(o->name = strdup(hf)))
		return err_set(e, _("out of memory"));
	o->dtype = ST_OTHER;
	o->ndim = t->ndim;
	for (int d = 0; d < t->ndim; d++)
		o->shape[d] = t->ne[t->ndim - 1 - d];
	o->numel = t->numel;
	o->bytes = t->data;
	o->nbytes = t->nbytes;
	snprintf(o->dtype_str, sizeof o->dtype_str, "%s", quant_name(t->type));
	o->convert = convert;
	o->convert_arg = s;
	return 0;
}

/* MemAvailable + SwapFree of /proc/meminfo in bytes, or 0 when unknown. */
static double available(void)
{
	FILE *fp = fopen("/proc/meminfo", "r");
	char l[256];
	double kb, sum = 0;
	int got = 0;
	if (!fp)
		return 0;
	while (fgets(l, sizeof l, fp))
		if (sscanf(l, "MemAvailable: %lf kB", &kb) == 1 ||
		    sscanf(l, "SwapFree: %lf kB", &kb) == 1) {
			sum += kb * 1024;
			got++;
		}
	fclose(fp);
	return got ? sum : 0;
}

/* A model whose F32 weights cannot fit is refused before the first
 * allocation, not killed by the kernel halfway through the load. */
static int fits(const struct gguf_file *f, struct err *e)
{
	double need = 0, have = available();
	for (size_t i = 0; i < f->nt; i++)
		need += (double)f->t[i].numel * 4;
	if (have > 0 && need > have)
		return err_set(e, _("%s: the weights take %.1f GB as F32 and %.1f GB of memory are "
				    "available (attnscope computes in F32: see `attnscope info`)"),
			       f->path, need / 1e9, have / 1e9);
	return 0;
}

/* The tensors under their Hugging Face names, bound by m's layout. */
static int bind(struct model *m, const struct gguf_file *f, const struct gguf_config *g,
		struct err *e)
{
	struct st_file sf = { 0 };
	struct src *src = calloc(f->nt + 1, sizeof *src);
	int rc = -1;
	sf.path = f->path;
	if (!src || !(sf.t = calloc(f->nt + 1, sizeof *sf.t))) {
		err_set(e, _("out of memory"));
		goto out;
	}
	for (size_t i = 0; i < f->nt; i++) {
		char hf[96];
		int r = gguf_map_name(g, f->t[i].name, hf, sizeof hf, e);
		if (r < 0) {
			err_prefix(e, "%s", f->path);
			goto out;
		}
		if (r == 0)   /* rope_freqs.weight: read into the config */
			continue;
		src[sf.n] = (struct src){ f, g, &f->t[i] };
		if (as_st(&sf.t[sf.n], &src[sf.n], hf, e))
			goto out;
		sf.n++;
	}
	rc = weights_bind_st(m, &sf, e);
out:
	for (int i = 0; sf.t && i < sf.n; i++)
		free(sf.t[i].name);
	free(sf.t);
	free(src);
	return rc;
}

/* The model's name: general.name, else the file's name. */
static int set_name(struct model *m, const struct gguf_config *g, const char *path,
		    struct err *e)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!(m->path = strdup(path)) || !(m->cfg.weights_path = strdup(path)) ||
	    !(m->cfg.name = strdup(*g->name ? g->name : base)))
		return err_set(e, _("out of memory"));
	return 0;
}

static int load(struct model *m, const struct gguf_file *f, struct err *e)
{
	struct gguf_config g;
	if (gguf_map_config(f, &g, e) || fits(f, e) || set_name(m, &g, f->path, e) ||
	    config_from(&m->cfg, &g, f, e) || rope_factors(&m->cfg, f, e) ||
	    gguf_model_tok(m, f, e))
		return -1;
	if ((uint32_t)m->src_vocab.n < g.vocab_size &&   /* rows no token names */
	    (vocab_pad(&m->src_vocab, (int)g.vocab_size, e) ||
	     vocab_pad(&m->tgt_vocab, (int)g.vocab_size, e)))
		return -1;
	if ((uint32_t)m->src_vocab.n != g.vocab_size)
		return err_set(e, _("%s: %s.vocab_size is %" PRIu32 ", and the tokenizer has %d "
				    "tokens"), f->path, g.arch_name, g.vocab_size, m->src_vocab.n);
	return bind(m, f, &g, e);
}

struct model *gguf_model_load(const char *path, struct err *e)
{
	struct gguf_file f;
	struct model *m = calloc(1, sizeof *m);
	if (!m) {
		err_set(e, _("out of memory"));
		return NULL;
	}
	m->cfg.bias = 0;
	m->cfg.tie_gen = -1;
	m->cfg.final_norm = -1;
	m->cfg.snapshot = -1;   /* a GGUF file has no training snapshots */
	m->cfg.gguf = 1;
	if (gguf_open(&f, path, e)) {
		model_free(m);
		return NULL;
	}
	int rc = load(m, &f, e);
	gguf_close(&f);
	if (rc) {
		model_free(m);
		return NULL;
	}
	return m;
}
