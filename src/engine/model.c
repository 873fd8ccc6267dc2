/* model.c - the YAML model file: configuration, vocabularies, then weights. */
#include <errno.h>
#include <math.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gguf_model.h"
#include "hf.h"
#include "base/recase.h"
#include "layout.h"
#include "model.h"
#include "model_keys.h"
#include "model_arch.h"
#include "model_tok.h"
#include "weights.h"
#include "base/path.h"
#include "formats/metapkl.h"
#include "formats/ydoc.h"

static const char *const TOP_KEYS[] = {
	"name", "description", "architecture", "d_model", "heads",
	"encoder_layers", "decoder_layers", "d_ff", "max_len", "norm",
	"norm_eps", "activation", "positional_encoding", "scale_embedding",
	"bias", "tokenizer", "weights", "tensors", "init", "examples",
	"training", "layout", "tensor_names", "ignore_tensors", "weights_key",
	"head", "snapshots", "norm_type", "ffn", "kv_heads", "head_dim", "qkv_bias",
	"qk_norm", "sliding_window", "rope_theta", "rope_scaling", NULL
};
static const char *const TOK_KEYS[] = {
	"type", "lowercase", "wrap_source", "source_vocab", "target_vocab",
	"specials", "merges", "source_merges", "target_merges", "proper_nouns",
	"model", "source_model", "target_model", "file", "config", NULL
};
static const char *const SPECIAL_KEYS[] = { "pad", "sos", "eos", "unk", NULL };
static const char *const INIT_KEYS[] = { "random", NULL };
static const char *const HEAD_KEYS[] = { "pool", "labels", "weight", "bias", NULL };
static const char *const POOL_NAMES[] = { "mean", "first", "last", NULL };
static const char *const SPECIAL_DEFAULT[] = { "<pad>", "<s>", "</s>", "<unk>" };

#define MODEL_MAX_DIM 65536
#define MODEL_MAX_LAYERS 256
#define MODEL_MAX_LEN (1 << 20)

static const char *const ARCH_NAMES[] = { "encoder-decoder", "decoder-only", "encoder-only", NULL };
static const char *const NORM_NAMES[] = { "post", "pre", "none", NULL };
static const char *const NORM_KIND_NAMES[] = { "layernorm", "layernorm_std", "rmsnorm",
					       "gemma_rmsnorm", NULL };
static const char *const ACT_NAMES[] = { "relu", "gelu", "gelu_new", "silu", "swiglu",
					  "geglu", NULL };
static const char *const PE_NAMES[] = { "sinusoidal", "learned", "none", "rope",
					"sinusoidal-halves", NULL };
static const char *const TOKTYPE_NAMES[] = { "word", "char", "bpe", "gpt2", "wordpiece",
					     "sentencepiece", "hf", NULL };

const char *arch_name(enum arch a) { return ARCH_NAMES[a]; }
const char *norm_name(enum norm_style n) { return NORM_NAMES[n]; }
const char *act_name(enum activation a) { return ACT_NAMES[a]; }
const char *norm_kind_name(enum norm_kind k) { return NORM_KIND_NAMES[k]; }
const char *pe_name(enum pe_kind p) { return PE_NAMES[p]; }
const char *tok_name(enum tok_type t) { return TOKTYPE_NAMES[t]; }

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A JSON vocabulary: a list of tokens (id = index) or an object token -> id. */
static int load_vocab_json(const char *path, struct vocab *v, struct err *e)
{
	struct ydoc j;
	if (ydoc_load(&j, path, e))
		return -1;
	const struct ynode *r = j.root;
	int rc = -1;
	const char **toks = NULL;
	size_t n = r ? r->n : 0;
	if (!r || (r->kind != Y_SEQ && r->kind != Y_MAP)) {
		err_set(e, "%s: a JSON vocabulary is a list of tokens or an object token -> id",
			path);
		goto out;
	}
	if (!(toks = calloc(n ? n : 1, sizeof *toks))) {
		err_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ynode *t = r->kind == Y_SEQ ? r->items[i] : r->items[2 * i];
		long long id = (long long)i;
		if (t->kind != Y_SCALAR || !t->len) {
			err_set(e, "%s:%d: every token must be a non-empty string", path, t->line);
			goto out;
		}
		if (r->kind == Y_MAP && ynode_int(&j, r->items[2 * i + 1], 0, (long long)n - 1,
						  &id, e)) {
			err_prefix(e, "%s: the ids must be 0 … %zu, each once", path, n - 1);
			goto out;
		}
		if (toks[id]) {
			err_set(e, "%s:%d: id %lld given twice", path, t->line, id);
			goto out;
		}
		toks[id] = t->str;
	}
	rc = vocab_init(v, toks, (int)n, path, e);
out:
	free(toks);
	ydoc_free(&j);
	return rc;
}

/* nanoGPT's meta.pkl: its itos (metapkl.h, the restricted unpickler). */
static int load_vocab_pkl(const char *path, struct vocab *v, struct err *e)
{
	char **toks = NULL;
	int n = 0;
	if (metapkl_load(path, &toks, &n, e))
		return -1;
	int rc = vocab_init(v, (const char *const *)toks, n, path, e);
	tokens_free(toks, n);
	return rc;
}

/* A vocabulary from a file name (text, JSON, nanoGPT's meta.pkl) or an
 * inline list of strings.  where receives what later messages about the
 * vocabulary name: its file, or "YAML:LINE: key" for an inline list. */
static int load_vocab(const struct ydoc *d, const struct ynode *n,
		      const char *yaml, const char *key, struct vocab *v,
		      char *where, size_t wsz, struct err *e)
{
	snprintf(where, wsz, "%s:%d: %s", d->file, n->line, key);
	if (n->kind == Y_SCALAR) {
		char *path = path_beside(yaml, n->str);
		if (!path)
			return err_set(e, "out of memory");
		snprintf(where, wsz, "%s", path);
		int rc;
		if (ends_with(path, ".json"))
			rc = load_vocab_json(path, v, e);
		else if (ends_with(path, ".pkl") || metapkl_sniff(path))
			rc = load_vocab_pkl(path, v, e);
		else
			rc = vocab_load(v, path, e);
		if (rc)
			err_prefix(e, "%s:%d: %s", d->file, n->line, key);
		free(path);
		return rc;
	}
	if (n->kind != Y_SEQ)
		return err_set(e, "%s:%d: %s must be a file name or a list of tokens",
			       d->file, n->line, key);
	const char **toks = calloc(n->n ? n->n : 1, sizeof *toks);
	if (!toks)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		if (n->items[i]->kind != Y_SCALAR || n->items[i]->len == 0) {
			int line = n->items[i]->line;
			free(toks);
			return err_set(e, "%s:%d: %s: every token must be a non-empty string",
				       d->file, line, key);
		}
		toks[i] = n->items[i]->str;
	}
	char what[PATH_MAX + 64];
	snprintf(what, sizeof what, "%s:%d: %s", d->file, n->line, key);
	int rc = vocab_init(v, toks, (int)n->n, what, e);
	free(toks);
	return rc;
}

/* The specials' ids in v (target: the target vocabulary) into ids[]:
 * found by name wherever they are; -1 for a special that is null.  A
 * special the YAML does not name must be in v under its default spelling,
 * unless v has none of the defaults (a vocabulary without specials, as a
 * character model's). */
static int find_specials(const struct model *m, const struct vocab *v,
			 int target, const char *where, int *ids,
			 struct err *e)
{
	/* the keys under tokenizer.specials */
	static const char *role[] = { "pad", "sos", "eos", "unk" };
	int defaults_found = 0;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		const char *sp = m->cfg.tok.specials[i];
		ids[i] = sp ? vocab_id(v, sp) : -1;
		defaults_found += !m->cfg.tok.specials_given[i] && ids[i] >= 0;
	}
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		const char *sp = m->cfg.tok.specials[i];
		if (sp && ids[i] < 0 && (m->cfg.tok.specials_given[i] || defaults_found))
			return target ?
				err_set(e, "%s: target vocabulary lacks the special token %s (%s; "
					"write %s: null if the model has none)",
					where, sp, role[i], role[i]) :
				err_set(e, "%s: source vocabulary lacks the special token %s (%s; "
					"write %s: null if the model has none)",
					where, sp, role[i], role[i]);
	}
	return 0;
}

/* A merges file named by the scalar n (tokenizer type bpe). */
static int load_merges(const struct ydoc *d, const struct ynode *n,
		       const char *yaml, const char *key, struct bpe **out,
		       struct err *e)
{
	if (n->kind != Y_SCALAR || n->len == 0)
		return err_set(e, "%s:%d: %s must be a file name", d->file, n->line, key);
	char *path = path_beside(yaml, n->str);
	if (!path || !(*out = calloc(1, sizeof **out))) {
		free(path);
		return err_set(e, "out of memory");
	}
	int rc = bpe_load(*out, path, e);
	if (rc) {
		err_prefix(e, "%s:%d: %s", d->file, n->line, key);
		free(*out);
		*out = NULL;
	}
	free(path);
	return rc;
}

/* tokenizer: merges (both sides) or source_merges / target_merges. */
static int parse_merges(struct model *m, const struct ydoc *d,
			const struct ynode *tk, struct err *e)
{
	static const char *const key[] = { "merges", "source_merges", "target_merges" };
	const struct ynode *n[3];
	for (int i = 0; i < 3; i++)
		n[i] = ynode_get(tk, key[i]);
	if (m->cfg.tok.type != TOKENIZE_BPE) {
		for (int i = 0; i < 3; i++)
			if (n[i])
				return err_set(e, "%s:%d: tokenizer: %s needs type: bpe", d->file,
					       n[i]->line, key[i]);
		return 0;
	}
	if (n[0] && (n[1] || n[2]))
		return err_set(e, "%s:%d: tokenizer: give merges (both sides) or "
			       "source_merges/target_merges, not both", d->file, n[0]->line);
	if (!n[0] && !n[1] && !n[2])
		return err_set(e, "%s:%d: tokenizer: type bpe needs merges (or "
			       "source_merges and target_merges)", d->file, tk->line);
	if (n[0]) {
		if (load_merges(d, n[0], m->path, key[0], &m->src_bpe, e))
			return -1;
		m->tgt_bpe = m->src_bpe;
		return 0;
	}
	if (n[1] && load_merges(d, n[1], m->path, key[1], &m->src_bpe, e))
		return -1;
	if (n[2] && load_merges(d, n[2], m->path, key[2], &m->tgt_bpe, e))
		return -1;
	return 0;
}

/* A YAML null: ~, null, or nothing. */
static int is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && !n->quoted &&
	       (!n->len || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
		!strcmp(n->str, "Null") || !strcmp(n->str, "NULL"));
}

static int parse_strlist(const struct ydoc *d, const struct ynode *n,
			 const char *key, char ***out, int *count,
			 struct err *e);

static int parse_tokenizer(struct model *m, const struct ydoc *d,
			   const struct ynode *tk, struct err *e)
{
	struct config *c = &m->cfg;
	int t = c->tok.type;
	if (mkey_check(d, tk, TOK_KEYS, "tokenizer", e) ||
	    mkey_enum(d, tk, "type", TOKTYPE_NAMES, &t, e) ||
	    mkey_bool(d, tk, "lowercase", &c->tok.lowercase, e) ||
	    mkey_bool(d, tk, "wrap_source", &c->tok.wrap_source, e))
		return -1;
	c->tok.type = t;
	const struct ynode *pn = ynode_get(tk, "proper_nouns");
	if (pn && parse_strlist(d, pn, "tokenizer.proper_nouns", &c->proper, &c->nproper, e))
		return -1;
	const struct ynode *sp = ynode_get(tk, "specials");
	if (sp) {
		if (mkey_check(d, sp, SPECIAL_KEYS, "tokenizer.specials", e))
			return -1;
		for (int i = 0; i < TOK_NSPECIAL; i++) {
			const struct ynode *v = ynode_get(sp, SPECIAL_KEYS[i]);
			if (!v)
				continue;
			c->tok.specials_given[i] = 1;
			if (is_null(v)) {
				free(c->tok.specials[i]);
				c->tok.specials[i] = NULL;
			} else if (mkey_str(d, sp, SPECIAL_KEYS[i], &c->tok.specials[i], e)) {
				return -1;
			}
		}
	}
	if (c->tok.type == TOKENIZE_GPT2 || c->tok.type == TOKENIZE_WORDPIECE ||
	    c->tok.type == TOKENIZE_SPM || c->tok.type == TOKENIZE_HF)
		return model_tok_yaml(m, d, tk, e);
	const char *hfkey = ynode_get(tk, "file") ? "file" : ynode_get(tk, "config") ? "config" : NULL;
	if (hfkey)
		return err_set(e, "%s:%d: tokenizer: type %s does not take %s (type hf does)", d->file,
			       tk->line, tok_name(c->tok.type), hfkey);
	if (parse_merges(m, d, tk, e))
		return -1;
	const struct ynode *sv = ynode_get(tk, "source_vocab");
	const struct ynode *tv = ynode_get(tk, "target_vocab");
	if (!sv)
		return err_set(e, "%s:%d: tokenizer: missing required key source_vocab",
			       d->file, tk->line);
	char where[PATH_MAX + 64];
	if (load_vocab(d, sv, m->path, "source_vocab", &m->src_vocab, where, sizeof where, e) ||
	    find_specials(m, &m->src_vocab, 0, where, m->src_sp, e))
		return -1;
	if (tv) {
		if (load_vocab(d, tv, m->path, "target_vocab", &m->tgt_vocab, where, sizeof where,
			       e) ||
		    find_specials(m, &m->tgt_vocab, 1, where, m->tgt_sp, e))
			return -1;
	} else {
		m->shared_vocab = 1;
		if (vocab_init(&m->tgt_vocab, (const char *const *)m->src_vocab.tok,
			       m->src_vocab.n, m->path, e))
			return -1;
		memcpy(m->tgt_sp, m->src_sp, sizeof m->tgt_sp);
	}
	return 0;
}

static int parse_strlist(const struct ydoc *d, const struct ynode *n,
			 const char *key, char ***out, int *count,
			 struct err *e)
{
	if (n->kind != Y_SEQ)
		return err_set(e, "%s:%d: %s must be a list of strings", d->file,
			       n->line, key);
	*out = calloc(n->n ? n->n : 1, sizeof **out);
	if (!*out)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		const char *s = ynode_str(d, n->items[i], e);
		if (!s)
			return ynode_keyed(d, n->items[i], key, e);
		if (!((*out)[i] = strdup(s)))
			return err_set(e, "out of memory");
		*count = (int)i + 1;
	}
	return 0;
}

/* One string or a list of strings (ignore_tensors). */
static int parse_globs(const struct ydoc *d, const struct ynode *n,
		       const char *key, char ***out, int *count, struct err *e)
{
	if (n->kind != Y_SCALAR)
		return parse_strlist(d, n, key, out, count, e);
	if (!(*out = calloc(1, sizeof **out)) || !((*out)[0] = strdup(n->str)))
		return err_set(e, "out of memory");
	*count = 1;
	return 0;
}

/* tensor_names: this document's name -> the file's name, or a list of
 * names joined along the first dimension (separate Q, K, V). */
static int parse_tnames(struct config *c, const struct ydoc *d,
			const struct ynode *n, struct err *e)
{
	if (n->kind != Y_MAP)
		return err_set(e, "%s:%d: tensor_names must be a mapping of this document's "
			       "names to the file's", d->file, n->line);
	if (!(c->tnames = calloc(n->n ? n->n : 1, sizeof *c->tnames)))
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		struct tname *t = &c->tnames[c->ntnames];
		if (k->kind != Y_SCALAR || !k->len)
			return err_set(e, "%s:%d: tensor_names: keys must be tensor names",
				       d->file, k->line);
		if (!(t->doc = strdup(k->str)))
			return err_set(e, "out of memory");
		c->ntnames++;
		size_t np = v->kind == Y_SEQ ? v->n : 1;
		if (v->kind == Y_MAP || np < 1 || np > TNAME_MAXPARTS)
			return err_set(e, "%s:%d: tensor_names: %s must name one tensor of the file, "
				       "or a list of 2 or 3 joined along the first dimension",
				       d->file, v->line, k->str);
		for (size_t j = 0; j < np; j++) {
			const struct ynode *f = v->kind == Y_SEQ ? v->items[j] : v;
			if (f->kind != Y_SCALAR || !f->len)
				return err_set(e, "%s:%d: tensor_names: %s must name tensors of the file",
					       d->file, f->line, k->str);
			if (!(t->file[j] = strdup(f->str)))
				return err_set(e, "out of memory");
			t->nparts = (int)j + 1;
		}
	}
	return 0;
}

/* head: {pool, labels, weight, bias} of an encoder-only classifier. */
static int parse_head(struct config *c, const struct ydoc *d,
		      const struct ynode *n, struct err *e)
{
	int pool = POOL_MEAN;
	const struct ynode *l;
	if (mkey_check(d, n, HEAD_KEYS, "head", e) ||
	    mkey_enum(d, n, "pool", POOL_NAMES, &pool, e) ||
	    mkey_str(d, n, "weight", &c->head.weight, e) ||
	    mkey_str(d, n, "bias", &c->head.bias, e))
		return -1;
	c->head.pool = pool;
	if (c->arch != ARCH_ENC_ONLY)
		return err_set(e, "%s:%d: head: only an encoder-only model ends in a classifier",
			       d->file, n->line);
	if (!(l = ynode_get(n, "labels")) || l->kind != Y_SEQ || !l->n)
		return err_set(e, "%s:%d: head needs labels: a list of the classes' names",
			       d->file, n->line);
	if (!c->head.weight)
		return err_set(e, "%s:%d: head needs weight: the file's name of the "
			       "classifier's weight [classes, d_model]", d->file, n->line);
	return parse_strlist(d, l, "head.labels", &c->head.labels, &c->head.nlabels, e);
}

/* `training:` is a flat mapping of facts about how a model was made; kept
 * as "key: value" lines for `attnscope info`. */
static int parse_training(struct model *m, const struct ydoc *d,
			  const struct ynode *n, struct err *e)
{
	if (n->kind != Y_MAP)
		return err_set(e, "%s:%d: training must be a mapping", d->file, n->line);
	m->cfg.info = calloc(n->n ? n->n : 1, sizeof *m->cfg.info);
	if (!m->cfg.info)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		if (k->kind != Y_SCALAR || v->kind != Y_SCALAR)
			return err_set(e, "%s:%d: training: values must be plain scalars",
				       d->file, k->line);
		size_t len = k->len + v->len + 3;
		char *s = malloc(len);
		if (!s)
			return err_set(e, "out of memory");
		snprintf(s, len, "%s: %s", k->str, v->str);
		m->cfg.info[m->cfg.ninfo++] = s;
		if (strcmp(k->str, "label_smoothing") == 0) {
			char *end;
			double x = strtod(v->str, &end);
			if (end == v->str || *end || !(x >= 0 && x < 1))
				return err_set(e, "%s:%d: training.label_smoothing must be a "
					       "number within 0…1, not \"%.30s\"", d->file,
					       v->line, v->str);
			m->cfg.label_smoothing = x;
		}
	}
	return 0;
}

static int parse_config(struct model *m, const struct ydoc *d, struct err *e)
{
	struct config *c = &m->cfg;
	const struct ynode *r = d->root;
	int a = ARCH_ENC_DEC, nrm = NORM_POST, act = ACT_RELU, pe = PE_SINUSOIDAL;

	if (!r)
		return err_set(e, "%s: the file is empty", d->file);
	if (mkey_check(d, r, TOP_KEYS, NULL, e))
		return -1;
	int lay = LAYOUT_NN_TRANSFORMER;
	if (mkey_enum(d, r, "layout", LAYOUT_NAMES, &lay, e))
		return -1;
	c->layout = lay;
	static const struct { const char *key; unsigned bit; } GIVEN[] = {
		{ "architecture", IMPLY_ARCH }, { "norm", IMPLY_NORM },
		{ "norm_eps", IMPLY_EPS }, { "activation", IMPLY_ACT },
		{ "positional_encoding", IMPLY_PE }, { "scale_embedding", IMPLY_SCALE },
		{ "d_ff", IMPLY_DFF }, { "norm_type", IMPLY_NORM_TYPE }, { "ffn", IMPLY_FFN },
		{ "bias", IMPLY_BIAS },
	};
	for (size_t i = 0; i < sizeof GIVEN / sizeof *GIVEN; i++)
		if (ynode_get(r, GIVEN[i].key))
			c->given |= GIVEN[i].bit;
	if (!ynode_get(r, "name"))
		return err_set(e, "%s:%d: missing required key \"name\"", d->file, r->line);
	if (mkey_str(d, r, "name", &c->name, e) ||
	    mkey_str(d, r, "description", &c->description, e) ||
	    mkey_enum(d, r, "architecture", ARCH_NAMES, &a, e) ||
	    mkey_int(d, r, "d_model", 1, MODEL_MAX_DIM, &c->d_model, e) ||
	    mkey_int(d, r, "heads", 1, MODEL_MAX_DIM, &c->heads, e) ||
	    mkey_int(d, r, "encoder_layers", 0, MODEL_MAX_LAYERS, &c->enc_layers, e) ||
	    mkey_int(d, r, "decoder_layers", 0, MODEL_MAX_LAYERS, &c->dec_layers, e) ||
	    mkey_int(d, r, "d_ff", 1, MODEL_MAX_DIM * 16, &c->d_ff, e) ||
	    mkey_int(d, r, "max_len", 1, MODEL_MAX_LEN, &c->max_len, e) ||
	    mkey_enum(d, r, "norm", NORM_NAMES, &nrm, e) ||
	    mkey_enum(d, r, "activation", ACT_NAMES, &act, e) ||
	    mkey_enum(d, r, "positional_encoding", PE_NAMES, &pe, e) ||
	    mkey_bool(d, r, "scale_embedding", &c->scale_embedding, e) ||
	    mkey_bool(d, r, "bias", &c->bias, e))
		return -1;
	c->arch = a;
	c->norm = nrm;
	c->act = act >= ACT_N ? (act == ACT_N ? ACT_SILU : ACT_GELU_NEW) : act;
	if (act >= ACT_N) {   /* swiglu, geglu: a gated feed-forward */
		c->ffn_gated = 1;
		c->given |= IMPLY_FFN;
	}
	c->pe = pe;
	layout_imply(c->layout, c, c->given);   /* what the YAML leaves out */
	if (model_arch_parse(c, d, r, e))
		return -1;
	const struct ynode *n;
	if ((n = ynode_get(r, "norm_eps"))) {
		if (ynode_float(d, n, &c->norm_eps, e))
			return ynode_keyed(d, n, "norm_eps", e);
		if (!(c->norm_eps > 0 && c->norm_eps < 1))
			return err_set(e, "%s:%d: norm_eps must be in (0, 1)", d->file, n->line);
	}
	if (c->d_model % c->heads && !c->head_dim)
		return err_set(e, "%s:%d: d_model %d is not divisible by heads %d",
			       d->file, (ynode_get(r, "heads") ? ynode_get(r, "heads") : r)->line,
			       c->d_model, c->heads);
	/* which stacks exist follows the architecture */
	if (c->arch == ARCH_DEC_ONLY) {
		if ((n = ynode_get(r, "encoder_layers")) && c->enc_layers)
			return err_set(e, "%s:%d: a decoder-only model has no encoder layers",
				       d->file, n->line);
		c->enc_layers = 0;
	} else if (c->arch == ARCH_ENC_ONLY) {
		if ((n = ynode_get(r, "decoder_layers")) && c->dec_layers)
			return err_set(e, "%s:%d: an encoder-only model has no decoder layers",
				       d->file, n->line);
		c->dec_layers = 0;
	}
	if ((n = ynode_get(r, "tokenizer"))) {
		if (parse_tokenizer(m, d, n, e))
			return -1;
	} else {
		return err_set(e, "%s: missing required key \"tokenizer\" (with source_vocab)",
			       d->file);
	}
	if ((n = ynode_get(r, "examples")) &&
	    parse_strlist(d, n, "examples", &c->examples, &c->nexamples, e))
		return -1;
	if ((n = ynode_get(r, "training")) && parse_training(m, d, n, e))
		return -1;
	if ((n = ynode_get(r, "snapshots")) &&
	    snapshot_parse(d, n, &c->snaps, &c->nsnaps, e))
		return -1;
	if ((n = ynode_get(r, "tensor_names")) && parse_tnames(c, d, n, e))
		return -1;
	if ((n = ynode_get(r, "ignore_tensors")) &&
	    parse_globs(d, n, "ignore_tensors", &c->ignore, &c->nignore, e))
		return -1;
	if ((n = ynode_get(r, "head")) && parse_head(c, d, n, e))
		return -1;

	/* exactly one source of weights */
	const struct ynode *wf = ynode_get(r, "weights"), *ti = ynode_get(r, "tensors"),
			   *in = ynode_get(r, "init");
	int nsrc = !!wf + !!ti + !!in;
	if (nsrc > 1)
		return err_set(e, "%s: give only one of weights, tensors and init", d->file);
	if (!nsrc)
		return err_set(e, "%s: missing required key: one of weights (file), "
			       "tensors (inline) or init: {random: SEED}", d->file);
	if (!wf && (n = ynode_get(r, "weights_key")))
		return err_set(e, "%s:%d: weights_key names an entry of a weights file; "
			       "give weights: too", d->file, n->line);
	if (wf) {
		const char *s = ynode_str(d, wf, e);
		if (!s)
			return ynode_keyed(d, wf, "weights", e);
		c->wsrc = W_FILE;
		if (!(c->weights_path = path_beside(m->path, s)))
			return err_set(e, "out of memory");
		if ((n = ynode_get(r, "weights_key"))) {
			const char *k = ynode_str(d, n, e);
			if (!k)
				return ynode_keyed(d, n, "weights_key", e);
			if (!(c->weights_key = strdup(k)))
				return err_set(e, "out of memory");
		}
	} else if (ti) {
		c->wsrc = W_INLINE;
	} else {
		long long seed;
		if (mkey_check(d, in, INIT_KEYS, "init", e))
			return -1;
		if (!(n = ynode_get(in, "random")))
			return err_set(e, "%s:%d: init needs random: SEED", d->file, in->line);
		if (ynode_int(d, n, 0, LLONG_MAX, &seed, e))
			return ynode_keyed(d, n, "init.random", e);
		c->wsrc = W_RANDOM;
		c->seed = (unsigned long long)seed;
	}
	return 0;
}

static void config_defaults(struct config *c)
{
	/* the paper's base model (Vaswani et al. 2017, table 3) */
	c->arch = ARCH_ENC_DEC;
	c->d_model = 512;
	c->heads = 8;
	c->enc_layers = 6;
	c->dec_layers = 6;
	c->d_ff = 2048;
	c->max_len = 512;
	c->norm = NORM_POST;
	c->norm_eps = 1e-5;
	c->act = ACT_RELU;
	c->pe = PE_SINUSOIDAL;
	c->scale_embedding = 1;
	c->bias = 1;
	c->tie_gen = -1;
	c->tok.type = TOKENIZE_WORD;
	c->tok.lowercase = 1;
	c->tok.wrap_source = 1;
	c->snapshot = -1;
}

/* buf == NULL: read the YAML from path. */
static struct model *load(const char *path, const void *buf, size_t len,
			  long snapshot, struct err *e)
{
	struct model *m = calloc(1, sizeof *m);
	struct ydoc doc;
	if (!m || !(m->path = strdup(path))) {
		free(m);
		err_set(e, "out of memory");
		return NULL;
	}
	config_defaults(&m->cfg);
	m->cfg.snapshot = snapshot < 0 ? -1 : snapshot;
	for (int i = 0; i < TOK_NSPECIAL; i++)
		if (!(m->cfg.tok.specials[i] = strdup(SPECIAL_DEFAULT[i]))) {
			model_free(m);
			err_set(e, "out of memory");
			return NULL;
		}
	if (buf ? ydoc_parse(&doc, m->path, buf, len, e) : ydoc_load(&doc, m->path, e)) {
		model_free(m);
		return NULL;
	}
	int rc = parse_config(m, &doc, e);
	if (!rc)
		rc = weights_bind(m, &doc, ynode_get(doc.root, "tensors"), e);
	ydoc_free(&doc);
	if (rc) {
		model_free(m);
		return NULL;
	}
	return m;
}

struct model *model_load(const char *path, struct err *e)
{
	if (hf_is_folder(path))
		return hf_load(path, e);
	if (gguf_model_is(path))
		return gguf_model_load(path, e);
	return load(path, NULL, 0, -1, e);
}

struct model *model_load_snapshot(const char *path, long step, struct err *e)
{
	if (hf_is_folder(path)) {
		if (step >= 0) {
			err_set(e, "%s: a Hugging Face folder has no training snapshots", path);
			return NULL;
		}
		return hf_load(path, e);
	}
	if (gguf_model_is(path)) {
		if (step >= 0) {
			err_set(e, "%s: a GGUF file has no training snapshots", path);
			return NULL;
		}
		return gguf_model_load(path, e);
	}
	return load(path, NULL, 0, step, e);
}

struct model *model_load_buffer(const char *path, const void *buf, size_t len,
				struct err *e)
{
	return load(path, buf ? buf : "", len, -1, e);
}

int model_snapshot_index(const struct model *m, long step)
{
	for (int i = 0; i < m->cfg.nsnaps; i++)
		if (m->cfg.snaps[i].step == step)
			return i;
	return -1;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	struct config *c = &m->cfg;
	free(c->name);
	free(c->description);
	free(c->weights_path);
	for (int i = 0; i < TOK_NSPECIAL; i++)
		free(c->tok.specials[i]);
	tokens_free(c->examples, c->nexamples);
	tokens_free(c->info, c->ninfo);
	free(c->snaps);
	for (int i = 0; i < c->ntnames; i++) {
		free(c->tnames[i].doc);
		for (int j = 0; j < TNAME_MAXPARTS; j++)
			free(c->tnames[i].file[j]);
	}
	free(c->tnames);
	tokens_free(c->ignore, c->nignore);
	tokens_free(c->head.labels, c->head.nlabels);
	tokens_free(c->proper, c->nproper);
	free(c->head.weight);
	free(c->head.bias);
	free(c->weights_key);
	free(c->hf_type);
	free(c->rope.freq_factors);
	vocab_free(&m->src_vocab);
	vocab_free(&m->tgt_vocab);
	if (m->tgt_bpe && m->tgt_bpe != m->src_bpe) {
		bpe_free(m->tgt_bpe);
		free(m->tgt_bpe);
	}
	if (m->src_bpe) {
		bpe_free(m->src_bpe);
		free(m->src_bpe);
	}
	model_tok_free(m);
	for (int i = 0; i < m->ntensors; i++) {
		free(m->tensors[i].name);
		if (!m->tensors[i].mapped)
			free(m->tensors[i].data);
	}
	free(m->tensors);
	free(m->enc);
	free(m->dec);
	if (m->map)
		munmap(m->map, m->maplen);
	free(m->path);
	free(m);
}

const struct wtensor *model_tensor(const struct model *m, const char *name)
{
	for (int i = 0; i < m->ntensors; i++)
		if (strcmp(m->tensors[i].name, name) == 0)
			return &m->tensors[i];
	return NULL;
}

void model_warn_nan(const struct model *m)
{
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		size_t n = (size_t)t->shape[0] * t->shape[1], bad = 0;
		for (size_t j = 0; j < n; j++)
			bad += !isfinite(t->data[j]);
		if (bad)
			warn_msg("%s: tensor %s has %zu NaN or infinite values",
				 m->cfg.wsrc == W_FILE ? m->cfg.weights_path : m->path,
				 t->name, bad);
	}
}

size_t model_params(const struct model *m, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		int again = 0;   /* one storage under two names (tied) counts once */
		for (int j = 0; j < i && !again; j++)
			again = m->tensors[j].data == t->data &&
				strncmp(m->tensors[j].name, prefix, pl) == 0;
		if (!again && strncmp(t->name, prefix, pl) == 0)
			n += (size_t)t->shape[0] * (t->ndim > 1 ? (size_t)t->shape[1] : 1);
	}
	return n;
}

const char *model_target_text(const struct model *m, const int32_t *ids, int n,
			      const char *typed, char *buf, size_t cap)
{
	const char *t[512];
	int k = n < 512 ? n : 512;
	for (int i = 0; i < k; i++)
		t[i] = vocab_str(&m->tgt_vocab, ids[i]);
	tokens_join(&m->cfg.tok, (char *const *)t, k, buf, cap);
	if (typed && m->cfg.tok.lowercase) {
		text_respell(buf, m->cfg.proper, m->cfg.nproper);
		text_recase(typed, buf);
	}
	return buf;
}

static int file_exists(const char *p)
{
	return access(p, R_OK) == 0;
}

int model_default_path(char *buf, size_t bufsz, struct err *e)
{
	static const char *const names[] = { "en-pt-small.yaml", "en-pt-tiny.yaml",
					      "seed-toy.yaml" };
	const char *env = getenv("ATTNSCOPE_MODEL");
	if (env && *env) {
		snprintf(buf, bufsz, "%s", env);
		return 0;
	}
	const char *dirs[] = { ATTNSCOPE_DATADIR "/models", ATTNSCOPE_SRCDIR "/models" };
	/* each directory in full before the next: the installed data first */
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
			snprintf(buf, bufsz, "%s/%s", dirs[i], names[n]);
			if (file_exists(buf))
				return 0;
		}
	return err_set(e, "no model found: set ATTNSCOPE_MODEL or pass --model FILE "
		       "(looked in %s/models and %s/models)", ATTNSCOPE_DATADIR,
		       ATTNSCOPE_SRCDIR);
}
