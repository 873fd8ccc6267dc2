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
#include "model_int.h"
#include "model_keys.h"
#include "model_arch.h"
#include "model_tok.h"
#include "weights.h"
#include "base/path.h"
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

const char *arch_name(enum arch a) { return ARCH_NAMES[a]; }
const char *norm_name(enum norm_style n) { return NORM_NAMES[n]; }
const char *act_name(enum activation a) { return ACT_NAMES[a]; }
const char *norm_kind_name(enum norm_kind k) { return NORM_KIND_NAMES[k]; }
const char *pe_name(enum pe_kind p) { return PE_NAMES[p]; }

/* One list of strings (examples, head.labels, tokenizer.proper_nouns). */
int model_parse_strlist(const struct ydoc *d, const struct ynode *n,
			const char *key, char ***out, int *count, struct err *e)
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
		return model_parse_strlist(d, n, key, out, count, e);
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
	return model_parse_strlist(d, l, "head.labels", &c->head.labels, &c->head.nlabels, e);
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

/* layout:, and which of the keys a layout implies the YAML gives. */
static int parse_layout(struct config *c, const struct ydoc *d, const struct ynode *r,
			struct err *e)
{
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
	return 0;
}

/* The shape of the network: name, architecture, sizes, norm, activation,
 * positions (and model_arch.c's keys), then what the layout implies. */
static int parse_dims(struct config *c, const struct ydoc *d, const struct ynode *r,
		      struct err *e)
{
	int a = ARCH_ENC_DEC, nrm = NORM_POST, act = ACT_RELU, pe = PE_SINUSOIDAL;

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
	return 0;
}

/* tokenizer (required), examples, training, snapshots, tensor_names,
 * ignore_tensors and head. */
static int parse_sections(struct model *m, const struct ydoc *d, const struct ynode *r,
			  struct err *e)
{
	struct config *c = &m->cfg;
	const struct ynode *n;
	if ((n = ynode_get(r, "tokenizer"))) {
		if (model_tokenizer_parse(m, d, n, e))
			return -1;
	} else {
		return err_set(e, "%s: missing required key \"tokenizer\" (with source_vocab)",
			       d->file);
	}
	if ((n = ynode_get(r, "examples")) &&
	    model_parse_strlist(d, n, "examples", &c->examples, &c->nexamples, e))
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
	return 0;
}

/* exactly one source of weights: weights (and weights_key), tensors or
 * init: {random: SEED}. */
static int parse_wsource(struct model *m, const struct ydoc *d, const struct ynode *r,
			 struct err *e)
{
	struct config *c = &m->cfg;
	const struct ynode *n;
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

static int parse_config(struct model *m, const struct ydoc *d, struct err *e)
{
	struct config *c = &m->cfg;
	const struct ynode *r = d->root;

	if (!r)
		return err_set(e, "%s: the file is empty", d->file);
	if (mkey_check(d, r, TOP_KEYS, NULL, e))
		return -1;
	if (parse_layout(c, d, r, e) || parse_dims(c, d, r, e) ||
	    parse_sections(m, d, r, e))
		return -1;
	return parse_wsource(m, d, r, e);
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
