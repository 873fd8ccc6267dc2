/* hf.c - a Hugging Face model folder (DESIGN.md "Hugging Face model
 * folders"): config.json, model.safetensors or pytorch_model.bin, and the
 * tokenizer's files, read as a model of this document's names.
 *
 * The configuration keys are GPT2Config's and BertConfig's, with their
 * defaults where a key is missing (or null); the tensor names are mapped
 * by the layouts gpt2 and bert (layout.c).  Dimension names: d n_embd /
 * hidden_size, V vocab_size, L n_positions / max_position_embeddings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf.h"
#include "hf_int.h"
#include "layout.h"
#include "model_keys.h"
#include "model_tok.h"
#include "weights.h"
#include "formats/json.h"
#include "formats/ydoc.h"


#define HF_TYPES "gpt2, bert, llama, mistral, qwen2, qwen3, gemma, phi3, marian, t5, bart, mbart"

int hf_is_folder(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *hf_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static int readable(const char *dir, const char *name)
{
	char *p = hf_path(dir, name);
	int ok = p && access(p, R_OK) == 0;
	free(p);
	return ok;
}

/* A JSON null (or the key missing) reads as absent. */
const struct ynode *hf_key(const struct ynode *map, const char *k)
{
	const struct ynode *n = ynode_get(map, k);
	if (n && n->kind == Y_SCALAR && !n->quoted && strcmp(n->str, "null") == 0)
		return NULL;
	return n;
}

int hf_int(const struct ydoc *d, const char *k, long long lo, long long hi,
		   int *out, struct err *e)
{
	const struct ynode *n = hf_key(d->root, k);
	long long v;
	if (!n)
		return 0;
	if (ynode_int(d, n, lo, hi, &v, e))
		return ynode_keyed(d, n, k, e);
	*out = (int)v;
	return 0;
}

int hf_eps(const struct ydoc *d, const char *k, double *out, struct err *e)
{
	const struct ynode *n = hf_key(d->root, k);
	if (!n)
		return 0;
	if (ynode_float(d, n, out, e))
		return ynode_keyed(d, n, k, e);
	if (!(*out > 0 && *out < 1))
		return err_set(e, "%s:%d: %s must be in (0, 1)", d->file, n->line, k);
	return 0;
}

/* A flag of the config that changes the math and that the pass does not
 * implement: an error when it is set to `bad`. */
int hf_refuse(const struct ydoc *d, const char *k, int bad, struct err *e)
{
	const struct ynode *n = hf_key(d->root, k);
	int v;
	if (!n)
		return 0;
	if (ynode_bool(d, n, &v, e))
		return ynode_keyed(d, n, k, e);
	if (v == bad)
		return err_set(e, "%s:%d: %s: %s is not implemented (attnscope computes the "
			       "model without it)", d->file, n->line, k, bad ? "true" : "false");
	return 0;
}

/* activation_function / hidden_act: Hugging Face's ACT2FN names. */
int hf_act(const struct ydoc *d, const char *k, enum activation *out,
		   struct err *e)
{
	static const struct { const char *name; enum activation a; } ACTS[] = {
		{ "gelu", ACT_GELU }, { "gelu_new", ACT_GELU_NEW },
		{ "gelu_pytorch_tanh", ACT_GELU_NEW }, { "relu", ACT_RELU },
		{ "silu", ACT_SILU }, { "swish", ACT_SILU },
	};
	const struct ynode *n = hf_key(d->root, k);
	if (!n)
		return 0;
	const char *s = ynode_str(d, n, e);
	if (!s)
		return ynode_keyed(d, n, k, e);
	for (size_t i = 0; i < sizeof ACTS / sizeof *ACTS; i++)
		if (strcmp(s, ACTS[i].name) == 0) {
			*out = ACTS[i].a;
			return 0;
		}
	return err_set(e, "%s:%d: %s: \"%.40s\" is not implemented (gelu, gelu_new, "
		       "gelu_pytorch_tanh, relu and silu are)", d->file, n->line, k, s);
}

/* GPT2Config (its defaults are GPT-2 small's). */
static int parse_gpt2(struct config *c, const struct ydoc *d, int *vocab,
		      struct err *e)
{
	int inner = 0;
	*vocab = 50257;
	c->arch = ARCH_DEC_ONLY;
	c->d_model = 768;
	c->heads = 12;
	c->dec_layers = 12;
	c->max_len = 1024;
	c->norm = NORM_PRE;
	c->norm_eps = 1e-5;
	c->act = ACT_GELU_NEW;
	c->layout = LAYOUT_GPT2;
	if (hf_int(d, "vocab_size", 1, 1 << 24, vocab, e) ||
	    hf_int(d, "n_embd", 1, HF_MAX_DIM, &c->d_model, e) ||
	    hf_int(d, "n_head", 1, HF_MAX_DIM, &c->heads, e) ||
	    hf_int(d, "n_layer", 1, HF_MAX_LAYERS, &c->dec_layers, e) ||
	    hf_int(d, "n_ctx", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_int(d, "n_positions", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_int(d, "n_inner", 1, HF_MAX_DIM * 16, &inner, e) ||
	    hf_eps(d, "layer_norm_epsilon", &c->norm_eps, e) ||
	    hf_act(d, "activation_function", &c->act, e) ||
	    hf_refuse(d, "scale_attn_weights", 0, e) ||
	    hf_refuse(d, "scale_attn_by_inverse_layer_idx", 1, e) ||
	    hf_refuse(d, "reorder_and_upcast_attn", 1, e) ||
	    hf_refuse(d, "add_cross_attention", 1, e))
		return -1;
	c->d_ff = inner ? inner : 4 * c->d_model;
	return 0;
}

/* BertConfig (its defaults are bert-base's). */
static int parse_bert(struct config *c, const struct ydoc *d, int *vocab,
		      struct err *e)
{
	*vocab = 30522;
	c->arch = ARCH_ENC_ONLY;
	c->d_model = 768;
	c->heads = 12;
	c->enc_layers = 12;
	c->d_ff = 3072;
	c->max_len = 512;
	c->type_vocab = 2;
	c->norm = NORM_POST;
	c->norm_eps = 1e-12;
	c->act = ACT_GELU;
	c->layout = LAYOUT_BERT;
	if (hf_int(d, "vocab_size", 1, 1 << 24, vocab, e) ||
	    hf_int(d, "hidden_size", 1, HF_MAX_DIM, &c->d_model, e) ||
	    hf_int(d, "num_attention_heads", 1, HF_MAX_DIM, &c->heads, e) ||
	    hf_int(d, "num_hidden_layers", 1, HF_MAX_LAYERS, &c->enc_layers, e) ||
	    hf_int(d, "intermediate_size", 1, HF_MAX_DIM * 16, &c->d_ff, e) ||
	    hf_int(d, "max_position_embeddings", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_int(d, "type_vocab_size", 1, 1 << 16, &c->type_vocab, e) ||
	    hf_eps(d, "layer_norm_eps", &c->norm_eps, e) ||
	    hf_act(d, "hidden_act", &c->act, e) ||
	    hf_refuse(d, "is_decoder", 1, e) ||
	    hf_refuse(d, "add_cross_attention", 1, e))
		return -1;
	const struct ynode *n = hf_key(d->root, "position_embedding_type");
	const char *s = n ? ynode_str(d, n, e) : "absolute";
	if (!s)
		return ynode_keyed(d, n, "position_embedding_type", e);
	if (strcmp(s, "absolute") != 0)
		return err_set(e, "%s:%d: position_embedding_type: \"%.40s\" is not implemented "
			       "(absolute is)", d->file, n->line, s);
	return 0;
}

/* BERT's do_lower_case from tokenizer_config.json: true when the key or
 * the file is missing (Hugging Face's default). */
static int lower_case(const char *dir, int *out, struct err *e)
{
	char *p = hf_path(dir, "tokenizer_config.json");
	struct ydoc d;
	*out = 1;
	if (!p)
		return err_set(e, "out of memory");
	if (access(p, R_OK) != 0) {
		free(p);
		return 0;
	}
	int rc = ydoc_load(&d, p, e);
	if (!rc) {
		const struct ynode *n = d.root && d.root->kind == Y_MAP ?
					hf_key(d.root, "do_lower_case") : NULL;
		if (n && ynode_bool(&d, n, out, e))
			rc = ynode_keyed(&d, n, "do_lower_case", e);
		ydoc_free(&d);
	}
	free(p);
	return rc;
}

/* The tokenizer (model_tok.h) from the folder's files: GPT-2's vocab.json +
 * merges.txt, BERT's vocab.txt. */
static int tokenizer(struct model *m, const char *dir, int gpt2, struct err *e)
{
	char *v = hf_path(dir, gpt2 ? "vocab.json" : "vocab.txt");
	char *mg = gpt2 ? hf_path(dir, "merges.txt") : NULL;
	int rc = -1, lower;
	if (!v || (gpt2 && !mg))
		err_set(e, "out of memory");
	else if (access(v, R_OK) != 0 || (gpt2 && access(mg, R_OK) != 0))
		err_set(e, "%s: %s (the tokenizer's vocabulary of a %s folder)",
			access(v, R_OK) != 0 ? v : mg, strerror(errno), gpt2 ? "gpt2" : "bert");
	else if (gpt2)
		rc = model_tok_gpt2(m, v, mg, e);
	else if (!lower_case(dir, &lower, e))
		rc = model_tok_wordpiece(m, v, lower, e);
	m->cfg.tok.wrap_source = 1;
	free(v);
	free(mg);
	return rc;
}

/* A BERT's masked-LM head comes whole or not at all: without it the pass
 * ends at memory, and nothing is tied. */
static int bert_head(struct model *m, struct err *e)
{
	const int parts = !!m->mlm_w + !!m->mlm_b + !!m->mlm_norm_w + !!m->mlm_norm_b;
	if (parts == 4)
		return 0;
	if (parts)
		return err_set(e, "%s: the masked-LM head (cls.predictions.transform.*) needs "
			       "dense.weight, dense.bias, LayerNorm.weight and LayerNorm.bias",
			       m->cfg.weights_path);
	if (m->gen_b || !m->gen_tied)
		return err_set(e, "%s: cls.predictions.decoder or .bias without the masked-LM "
			       "head's transform (cls.predictions.transform.*)",
			       m->cfg.weights_path);
	m->gen_w = NULL;
	m->gen_tied = 0;
	return 0;
}

/* The tokenizer of a family of today: tokenizer.json (with
 * tokenizer_config.json), else vocab.json + merges.txt as GPT-2's. */
static int tokenizer_modern(struct model *m, const char *dir, struct err *e)
{
	if (readable(dir, "tokenizer.json")) {
		char *tj = hf_path(dir, "tokenizer.json"), *tc = hf_path(dir, "tokenizer_config.json");
		int rc = tj && tc ? model_tok_tokjson(m, tj, readable(dir, "tokenizer_config.json") ?
						       tc : NULL, e) : err_set(e, "out of memory");
		free(tj);
		free(tc);
		return rc;
	}
	if (readable(dir, "vocab.json") && readable(dir, "merges.txt"))
		return tokenizer(m, dir, 1, e);
	return err_set(e, "%s: no tokenizer (tokenizer.json, or vocab.json and merges.txt)",
		       dir);
}

/* config.json (strict JSON) into c by its model_type; *vocab its
 * vocab_size. */
static int read_config(struct config *c, const char *cfg, int *vocab, struct hf_ids *ids,
		       struct err *e)
{
	struct ydoc d;
	int rc = -1;
	if (access(cfg, R_OK) != 0)
		return err_set(e, "%s: %s (a model folder holds Hugging Face's config.json)", cfg,
			       strerror(errno));
	if (json_load(&d, cfg, e))
		return -1;
	const struct ynode *t = d.root && d.root->kind == Y_MAP ? hf_key(d.root, "model_type") : NULL;
	const char *type = t && t->kind == Y_SCALAR ? t->str : NULL;
	if (!d.root || d.root->kind != Y_MAP)
		err_set(e, "%s: config.json must be a JSON object", cfg);
	else if (!type)
		err_set(e, "%s: missing model_type (%s)", cfg, HF_TYPES);
	else if (strcmp(type, "gpt2") && strcmp(type, "bert") && !hf_llama_family(type) &&
		 !hf_translators_family(type))
		err_set(e, "%s:%d: model_type \"%.40s\" is not one attnscope reads (%s)",
			cfg, t->line, type, HF_TYPES);
	else if (!(c->hf_type = strdup(type)))
		err_set(e, "out of memory");
	else if (!strcmp(type, "gpt2") ? !parse_gpt2(c, &d, vocab, e) :
		 !strcmp(type, "bert") ? !parse_bert(c, &d, vocab, e) :
		 hf_translators_family(type) ? !hf_translators_config(c, &d, type, vocab, ids, e) :
		 !hf_llama_config(c, &d, type, vocab, e))
		rc = 0;
	ydoc_free(&d);
	if (!rc && c->d_model % c->heads && !c->head_dim)
		rc = err_set(e, "%s: the width %d is not divisible by the %d heads", cfg,
			     c->d_model, c->heads);
	return rc;
}

/* The weights' file: model.safetensors, its shards' index, or
 * pytorch_model.bin. */
static int weights_file(struct config *c, const char *dir, struct err *e)
{
	static const char *const names[] = {
		"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (readable(dir, names[i])) {
			c->wsrc = W_FILE;
			return (c->weights_path = hf_path(dir, names[i])) ? 0 :
			       err_set(e, "out of memory");
		}
	if (readable(dir, "pytorch_model.bin.index.json"))
		return err_set(e, "%s: the weights are pytorch_model.bin shards, which attnscope "
			       "does not read (save them as safetensors)", dir);
	return err_set(e, "%s: no weights (model.safetensors, model.safetensors.index.json "
		       "or pytorch_model.bin)", dir);
}

static int load(struct model *m, const char *dir, struct err *e)
{
	struct config *c = &m->cfg;
	char *cfg = hf_path(dir, "config.json");
	int rc, vocab = 0;
	struct hf_ids ids;
	if (!cfg)
		return err_set(e, "out of memory");
	rc = read_config(c, cfg, &vocab, &ids, e);
	const int modern = !rc && hf_llama_family(c->hf_type);
	if (!rc && hf_translators_family(c->hf_type))
		rc = hf_translators_tokenizer(m, dir, &ids, vocab, e);
	else if (!rc)
		rc = modern ? tokenizer_modern(m, dir, e) : tokenizer(m, dir, c->layout == LAYOUT_GPT2, e);
	if (!rc && modern && m->src_vocab.n < vocab)   /* rows the tokenizer never gives */
		rc = vocab_pad(&m->src_vocab, vocab, e) || vocab_pad(&m->tgt_vocab, vocab, e);
	if (!rc && vocab != m->src_vocab.n)
		rc = err_set(e, "%s: vocab_size is %d, and the tokenizer's vocabulary has %d "
			     "tokens", cfg, vocab, m->src_vocab.n);
	free(cfg);
	if (rc || weights_file(c, dir, e) || weights_bind(m, NULL, NULL, e))
		return -1;
	return c->layout == LAYOUT_BERT ? bert_head(m, e) : 0;
}

struct model *hf_load(const char *dir, struct err *e)
{
	struct model *m = calloc(1, sizeof *m);
	const char *base = strrchr(dir, '/');
	while (base && !base[1] && base > dir) {   /* "dir/" */
		const char *p = base - 1;
		while (p > dir && *p != '/')
			p--;
		base = *p == '/' ? p : NULL;
	}
	if (!m || !(m->path = strdup(dir)) ||
	    !(m->cfg.name = strdup(base ? base + 1 : dir))) {
		model_free(m);
		err_set(e, "out of memory");
		return NULL;
	}
	char *slash = strchr(m->cfg.name, '/');
	if (slash && slash != m->cfg.name)
		*slash = 0;
	m->cfg.bias = 1;
	m->cfg.tie_gen = -1;   /* as the files have it (the families of today say) */
	m->cfg.final_norm = -1;
	m->cfg.pe = PE_LEARNED;
	m->cfg.scale_embedding = 0;
	m->cfg.snapshot = -1;   /* the weights as trained (a folder has no snapshots) */
	if (load(m, dir, e)) {
		model_free(m);
		return NULL;
	}
	return m;
}
