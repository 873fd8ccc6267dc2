/* weights.c - the tensors a configuration needs, and where they come from. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "ops.h"
#include "snapshot.h"
#include "weights.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "formats/tensorfile.h"

enum winit { WI_XAVIER, WI_ZERO, WI_ONE };

/* One tensor the configuration expects. */
struct want {
	char name[96];
	int ndim, shape[2];
	int required;         /* absent is an error */
	int in_random;        /* a random model creates it */
	enum winit init;
	const float **dest;
	int found;            /* index into m->tensors, or -1 */
	int is_bias;          /* all biases of a file are present, or none */
	int transposed;       /* the file stores it [in, out] (GPT-2's Conv1D) */
	int part_rows[TNAME_MAXPARTS];   /* rows of each part joined along the
	                                    first dimension (Q, K, V of
	                                    grouped-query attention); 0: equal */
};

struct wants {
	struct want *w;
	int n, cap;
};

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

static int build_wants(struct model *m, struct wants *ws)
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

static struct want *want_find(struct wants *ws, const char *name)
{
	for (int i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i].name, name) == 0)
			return &ws->w[i];
	return NULL;
}

static void shape_str(char *buf, size_t n, int ndim, const int *shape)
{
	if (ndim == 1)
		snprintf(buf, n, "[%d]", shape[0]);
	else
		snprintf(buf, n, "[%d, %d]", shape[0], shape[1]);
}

/* Appends a tensor to the model; takes data. */
static int add_tensor(struct model *m, struct want *w, float *data, int mapped)
{
	struct wtensor *t = &m->tensors[m->ntensors];
	if (!(t->name = strdup(w->name)))
		return -1;
	t->ndim = w->ndim;
	t->shape[0] = w->shape[0];
	t->shape[1] = w->ndim > 1 ? w->shape[1] : 1;
	t->data = data;
	t->mapped = mapped;
	w->found = m->ntensors++;
	return 0;
}

static size_t want_numel(const struct want *w)
{
	return (size_t)w->shape[0] * (w->ndim > 1 ? (size_t)w->shape[1] : 1);
}

/* ---- seeded random weights ---- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Seeded random weights cost memory and time in proportion to the
 * configuration alone, so a few lines of YAML could ask for terabytes: the
 * total is capped (2^28 parameters, 1 GiB of F32; the paper's big model
 * has 2.1e8).  Under the fuzzer the cap is 2^20: a mutant of base.yaml
 * would otherwise spend a second an input drawing 44 M numbers that teach
 * the fuzzer nothing, and the limit's own path is what it should reach. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define RANDOM_MAX_PARAMS ((size_t)1 << 20)
#else
#define RANDOM_MAX_PARAMS ((size_t)1 << 28)
#endif

static int bind_random(struct model *m, struct wants *ws, struct err *e)
{
	uint64_t state = m->cfg.seed;
	size_t total = 0;
	for (int i = 0; i < ws->n; i++)
		if (ws->w[i].in_random)
			total += want_numel(&ws->w[i]);   /* each < 2^37: no overflow */
	if (total > RANDOM_MAX_PARAMS)
		return err_set(e, "%s: init: random would make %zu parameters, more than the "
			       "limit of %zu (1 GiB)", m->path, total, RANDOM_MAX_PARAMS);
	for (int i = 0; i < ws->n; i++) {
		struct want *w = &ws->w[i];
		if (!w->in_random)
			continue;
		size_t n = want_numel(w);
		float *p = malloc(n * sizeof *p);
		if (!p)
			return err_set(e, "%s: out of memory for %s", m->path, w->name);
		if (w->init == WI_XAVIER) {
			/* Xavier/Glorot uniform: U(−a, a), a = √(6 / (fan_in + fan_out)) */
			double a = sqrt(6.0 / (w->shape[0] + w->shape[1]));
			for (size_t j = 0; j < n; j++) {
				double u = (double)(splitmix64(&state) >> 11) * 0x1.0p-53;
				p[j] = (float)((2 * u - 1) * a);
			}
		} else {
			float v = w->init == WI_ONE ? 1.0f : 0.0f;
			for (size_t j = 0; j < n; j++)
				p[j] = v;
		}
		if (add_tensor(m, w, p, 0)) {
			free(p);
			return err_set(e, "out of memory");
		}
	}
	return 0;
}

/* ---- inline tensors: name -> nested lists ---- */

static int parse_inline(struct model *m, const struct ydoc *d,
			const struct ynode *tensors, struct wants *ws,
			struct err *e)
{
	if (tensors->kind != Y_MAP)
		return err_set(e, "%s:%d: tensors must be a mapping of name to nested lists",
			       d->file, tensors->line);
	for (size_t i = 0; i < tensors->n; i++) {
		const struct ynode *k = tensors->items[2 * i], *v = tensors->items[2 * i + 1];
		struct want *w = k->kind == Y_SCALAR ? want_find(ws, k->str) : NULL;
		if (!w && m->cfg.arch == ARCH_ENC_ONLY)
			return err_set(e, "%s:%d: unexpected tensor \"%.80s\" (not part of an %s model "
				       "with this configuration)", d->file, k->line,
				       k->kind == Y_SCALAR ? k->str : "?", arch_name(m->cfg.arch));
		if (!w)
			return err_set(e, "%s:%d: unexpected tensor \"%.80s\" (not part of a %s model "
				       "with this configuration)", d->file, k->line,
				       k->kind == Y_SCALAR ? k->str : "?", arch_name(m->cfg.arch));
		if (w->found >= 0)
			return err_set(e, "%s:%d: tensor %s given twice", d->file, k->line, w->name);
		size_t rows = w->ndim == 2 ? (size_t)w->shape[0] : 1;
		size_t cols = (size_t)(w->ndim == 2 ? w->shape[1] : w->shape[0]);
		char want_s[48];
		shape_str(want_s, sizeof want_s, w->ndim, w->shape);
		if (v->kind != Y_SEQ || (w->ndim == 2 ? v->n != rows : v->n != cols))
			return err_set(e, "%s:%d: tensor %s must be %s, found %s of %zu",
				       d->file, v->line, w->name, want_s,
				       ynode_kind_name(v->kind), v->kind == Y_SEQ ? v->n : 0);
		/* every row first: the size to allocate is then backed by nodes */
		for (size_t r = 0; r < rows; r++) {
			const struct ynode *row = w->ndim == 2 ? v->items[r] : v;
			if (row->kind != Y_SEQ || row->n != cols)
				return err_set(e, "%s:%d: tensor %s row %zu must have %zu numbers",
					       d->file, row->line, w->name, r, cols);
		}
		float *p = malloc(rows * cols * sizeof *p);
		if (!p)
			return err_set(e, "out of memory");
		for (size_t r = 0; r < rows; r++) {
			const struct ynode *row = w->ndim == 2 ? v->items[r] : v;
			for (size_t c = 0; c < cols; c++) {
				double x;
				if (ynode_float(d, row->items[c], &x, e)) {
					free(p);
					return err_prefix(e, "tensor %s", w->name);
				}
				p[r * cols + c] = (float)x;
			}
		}
		if (add_tensor(m, w, p, 0)) {
			free(p);
			return err_set(e, "out of memory");
		}
	}
	return 0;
}

/* ---- a weights file: the file's names mapped by the layout ---- */

/* Where one want's parts are among the file's tensors (-1: absent). */
struct wmatch {
	int nparts;
	int part[TNAME_MAXPARTS];
	char fname[TNAME_MAXPARTS][LAYOUT_NAME_MAX];
};

struct fnames {
	const struct st_tensor *t; int n;
	const char **canon;              /* the names without wrapper prefixes */
	char prefix[LAYOUT_NAME_MAX];    /* nn.Transformer's common prefix */
	int copy;                        /* no tensor in place (shards) */
};

static int fn_find(const struct fnames *F, const char *name)
{
	for (int i = 0; i < F->n; i++)
		if (strcmp(F->canon[i], name) == 0)
			return i;
	return -1;
}

/* Maps every want onto the file's tensors under layout (tensor_names
 * too when use_tn) and marks the claimed ones.  Returns the number of
 * problems: missing parts of wanted tensors and file tensors neither
 * claimed nor ignored.  *nobias: the file has none of the biases. */
static int resolve(const struct config *c, const struct wants *ws, int layout,
		   int use_tn, const struct fnames *F, struct wmatch *mt,
		   int *claimed, int *nobias)
{
	const char *pfx = layout == LAYOUT_NN_TRANSFORMER ? F->prefix : "";
	int problems = 0, bias_found = 0;
	memset(claimed, 0, (size_t)F->n * sizeof *claimed);
	for (int i = 0; i < ws->n; i++) {
		struct wmatch *x = &mt[i];
		x->nparts = layout_file_names(c, layout, use_tn, pfx, ws->w[i].name, x->fname);
		for (int k = 0; k < x->nparts; k++)
			x->part[k] = fn_find(F, x->fname[k]);
		if (x->nparts == 1 && x->part[0] < 0 && *pfx) {   /* beside the prefix */
			char alt[TNAME_MAXPARTS][LAYOUT_NAME_MAX];
			if (layout_file_names(c, layout, use_tn, "", ws->w[i].name, alt) == 1 &&
			    (x->part[0] = fn_find(F, alt[0])) >= 0)
				memcpy(x->fname[0], alt[0], sizeof alt[0]);
		}
		for (int k = 0; k < x->nparts; k++)
			if (x->part[k] >= 0) {
				claimed[x->part[k]] = 1;
				bias_found |= ws->w[i].is_bias;
			}
	}
	for (int i = 0; i < ws->n; i++) {
		const struct want *w = &ws->w[i];
		int found = 0;
		for (int k = 0; k < mt[i].nparts; k++)
			found += mt[i].part[k] >= 0;
		if (found ? found < mt[i].nparts
			  : w->required && !(w->is_bias && !bias_found))
			problems++;
	}
	for (int i = 0; i < F->n; i++)
		if (!claimed[i] && !layout_ignored(c, layout, F->canon[i]))
			problems++;
	*nobias = !bias_found;
	return problems;
}

/* Whether layout fits the file's names, with what it implies (and
 * without the YAML's tensor_names); arch >= 0: as that architecture;
 * shapes: the shapes too. */
static int part_fits(const struct want *w, int nparts, int k, const struct st_tensor *t);

/* ... and with shapes: every tensor found has the shape it needs. */
static int shapes_fit(const struct wants *ws, const struct wmatch *mt, const struct fnames *F)
{
	for (int i = 0; i < ws->n; i++)
		for (int k = 0; k < mt[i].nparts; k++)
			if (mt[i].part[k] >= 0 &&
			    !part_fits(&ws->w[i], mt[i].nparts, k, &F->t[mt[i].part[k]]))
				return 0;
	return 1;
}

static int layout_fits(const struct model *m, int layout, int arch, const struct fnames *F,
		       int shapes)
{
	struct model tmp = *m;
	struct wants ws = { 0 };
	struct wmatch *mt = NULL;
	int fits = 0, nobias;
	layout_imply(layout, &tmp.cfg, m->cfg.given);
	if (arch >= 0)
		tmp.cfg.arch = (enum arch)arch;
	if (tmp.cfg.arch == ARCH_DEC_ONLY)
		tmp.cfg.enc_layers = 0;
	else if (tmp.cfg.arch == ARCH_ENC_ONLY)
		tmp.cfg.dec_layers = 0;
	tmp.enc = calloc((size_t)tmp.cfg.enc_layers + 1, sizeof *tmp.enc);
	tmp.dec = calloc((size_t)tmp.cfg.dec_layers + 1, sizeof *tmp.dec);
	int *cl = calloc((size_t)F->n + 1, sizeof *cl);
	if (tmp.enc && tmp.dec && cl && !build_wants(&tmp, &ws) &&
	    (mt = calloc((size_t)ws.n + 1, sizeof *mt)))
		fits = resolve(&tmp.cfg, &ws, layout, 0, F, mt, cl, &nobias) == 0 &&
		       (!shapes || shapes_fit(&ws, mt, F));
	free(mt);
	free(cl);
	free(ws.w);
	free(tmp.enc);
	free(tmp.dec);
	return fits;
}

/* A growing message (at most one err's worth). */
struct msgbuf {
	char s[sizeof ((struct err *)0)->msg];
	size_t n;
	int lines, dropped;
};

/* Appends one line (already made safe). */
static void put(struct msgbuf *b, const char *line)
{
	size_t l = strlen(line);
	if (b->n + l + 160 >= sizeof b->s) {   /* keep room for the last lines */
		b->dropped++;
		return;
	}
	if (b->lines++)
		b->s[b->n++] = '\n';
	memcpy(b->s + b->n, line, l + 1);
	b->n += l;
}

/* The lines of one kind of problem (unexpected, missing, misshapen), kept
 * so that a few of each come first and the rest after. */
struct kind {
	char **l;
	int n, cap;
};

static void kind_say(struct kind *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kind_say(struct kind *k, const char *fmt, ...)
{
	char raw[512], line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, _(fmt), ap);
	va_end(ap);
	safetext_copy(line, sizeof line, raw, 0);   /* names from the file */
	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 16;
		char **l = realloc(k->l, (size_t)cap * sizeof *l);
		if (!l)
			return;
		k->l = l;
		k->cap = cap;
	}
	if ((k->l[k->n] = strdup(line)))
		k->n++;
}

static void kind_free(struct kind *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->l[i]);
	free(k->l);
}

static void st_shape_str(char *buf, size_t n, const struct st_tensor *t)
{
	snprintf(buf, n, "[");
	for (int k = 0; k < t->ndim; k++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%llu", k ? ", " : "",
			 (unsigned long long)t->shape[k]);
	snprintf(buf + strlen(buf), n - strlen(buf), "]");
}

/* The rows of part k of nparts of want w. */
static int part_rows(const struct want *w, int nparts, int k)
{
	return nparts > 1 && w->part_rows[k] ? w->part_rows[k] : w->shape[0] / nparts;
}

/* Part k of nparts of want w: its shape fits (learned positions may hold
 * more rows than max_len). */
static int part_fits(const struct want *w, int nparts, int k, const struct st_tensor *t)
{
	if (w->ndim == 1 && t->ndim == 2 && t->shape[0] == 1 && nparts == 1)   /* [1, n]: */
		return t->shape[1] == (uint64_t)w->shape[0];   /* final_logits_bias */
	if (t->ndim != w->ndim || (!w->part_rows[0] && w->shape[0] % nparts))
		return 0;
	if (w->transposed)   /* [in, out] */
		return nparts == 1 && t->shape[0] == (uint64_t)w->shape[1] &&
		       t->shape[1] == (uint64_t)w->shape[0];
	uint64_t rows = (uint64_t)part_rows(w, nparts, k);
	if (strstr(w->name, "pos_embed.weight") ? t->shape[0] < rows : t->shape[0] != rows)
		return 0;
	return w->ndim == 1 || t->shape[1] == (uint64_t)w->shape[1];
}

/* How many lines of each kind come before the rest. */
#define MISMATCH_FIRST 3

static const char *const ARCH_WORDS[] = { "encoder-decoder", "decoder-only", "encoder-only" };

/* What would fit instead, into k: another layout (its names), and when
 * the names do not fit as they are (names), another architecture (the
 * YAML forgot architecture: or gave the wrong one), names and shapes,
 * with the layout it needs when the layout alone does not do. */
static void suggest(const struct model *m, const struct fnames *F, const char *path,
		    int names, struct kind *k)
{
	const struct config *c = &m->cfg;
	int fits[LAYOUT_N] = { 0 };
	for (int L = 0; L < LAYOUT_N; L++)
		if (L != c->layout && (fits[L] = layout_fits(m, L, -1, F, 0)))
			kind_say(k, N_("%s: these names fit layout: %s"), path, LAYOUT_NAMES[L]);
	for (int A = 0; A < 3 && names; A++)
		for (int L = 0; L < LAYOUT_N; L++) {
			if (A == (int)c->arch || fits[L] || !layout_fits(m, L, A, F, 1))
				continue;
			if (L == c->layout)
				kind_say(k, N_("%s: these tensors fit architecture: %s"), path,
					 ARCH_WORDS[A]);
			else
				kind_say(k, N_("%s: these tensors fit layout: %s with architecture: %s"),
					 path, LAYOUT_NAMES[L], ARCH_WORDS[A]);
		}
}

/* Want i's problems (missing parts, wrong shapes) into miss and shape. */
static void want_problems(const struct want *w, const struct wmatch *x, const struct fnames *F,
			  int nobias, const char *path, struct kind *miss, struct kind *shape)
{
	char s1[96], s2[96];
	shape_str(s2, sizeof s2, w->ndim, w->shape);
	if (!x->nparts && w->required)
		kind_say(miss, N_("%s: missing tensor %s %s"), path, w->name, s2);
	for (int k = 0; k < x->nparts; k++) {
		int p = x->part[k];
		if (p < 0 && x->nparts > 1)
			kind_say(miss, N_("%s: missing tensor %s (part %d of %d of %s %s)"), path,
				 x->fname[k], k + 1, x->nparts, w->name, s2);
		else if (p < 0 && w->required && !(w->is_bias && nobias) &&
			 strcmp(w->name, x->fname[k]) == 0)
			kind_say(miss, N_("%s: missing tensor %s %s"), path, w->name, s2);
		else if (p < 0 && w->required && !(w->is_bias && nobias))
			kind_say(miss, N_("%s: missing tensor %s %s (as %s in the file)"), path,
				 w->name, s2, x->fname[k]);
		else if (p >= 0 && !part_fits(w, x->nparts, k, &F->t[p])) {
			st_shape_str(s1, sizeof s1, &F->t[p]);
			if (x->nparts > 1) {
				int rows = part_rows(w, x->nparts, k);
				if (w->ndim == 1)
					snprintf(s2, sizeof s2, "[%d]", rows);
				else
					snprintf(s2, sizeof s2, "[%d, %d]", rows, w->shape[1]);
			}
			if (w->transposed)   /* as the file stores it */
				snprintf(s2, sizeof s2, "[%d, %d]", w->shape[1], w->shape[0]);
			kind_say(shape, N_("%s: tensor %s has shape %s; %s needs %s"), path,
				 F->t[p].name, s1, w->name, s2);
		}
	}
}

/* Lists every mismatch into e: the counts, what would fit, a few of each
 * kind (unexpected, missing, misshapen), then the rest of each: the
 * message buffer fills, and what helps must come before it does. */
static int mismatch(const struct model *m, const struct wants *ws,
		    const struct fnames *F, const struct wmatch *mt,
		    const int *claimed, int nobias, struct err *e)
{
	const struct config *c = &m->cfg;
	const char *path = c->weights_path;
	struct msgbuf *b = calloc(1, sizeof *b);
	struct kind k[4] = { { 0 } };   /* unexpected, missing, shape, suggestions */
	char s1[96];
	if (!b)
		return err_set(e, "out of memory");
	for (int i = 0; i < F->n; i++)
		if (!claimed[i] && !layout_ignored(c, c->layout, F->canon[i])) {
			st_shape_str(s1, sizeof s1, &F->t[i]);
			kind_say(&k[0], N_("%s: unexpected tensor %s %s"), path, F->t[i].name, s1);
		}
	for (int i = 0; i < ws->n; i++)
		want_problems(&ws->w[i], &mt[i], F, nobias, path, &k[1], &k[2]);
	suggest(m, F, path, k[0].n + k[1].n > 0, &k[3]);
	if (k[0].n + k[1].n + k[2].n + k[3].n > 1) {   /* one problem: one line */
		char head[512], line[1024];
		snprintf(head, sizeof head, _("%s: the tensors do not fit the model (layout %s): "
					      "%d unexpected, %d missing, %d of the wrong shape"),
			 path, LAYOUT_NAMES[c->layout], k[0].n, k[1].n, k[2].n);
		put(b, safetext_copy(line, sizeof line, head, 0));
	}
	for (int i = 0; i < k[3].n; i++)
		put(b, k[3].l[i]);
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < k[j].n && i < MISMATCH_FIRST; i++)
			put(b, k[j].l[i]);
	for (int j = 0; j < 3; j++)
		for (int i = MISMATCH_FIRST; i < k[j].n; i++)
			put(b, k[j].l[i]);
	if (b->dropped) {   /* put kept room for this line */
		char more[128];
		snprintf(more, sizeof more, _("… and %d more"), b->dropped);
		snprintf(b->s + b->n, sizeof b->s - b->n, "\n%s", more);
		b->lines++;
	}
	for (int j = 0; j < 4; j++)
		kind_free(&k[j]);
	err_set(e, "%s", b->s);
	e->lines = b->lines > 1;
	free(b);
	return -1;
}

/* want w's data from its parts (joined along the first dimension). */
static int load_want(struct model *m, struct want *w, const struct wmatch *x,
		     const struct fnames *F, struct err *e)
{
	const char *path = m->cfg.weights_path;
	const struct st_tensor *t0 = &F->t[x->part[0]];
	size_t numel = want_numel(w);
	float *p;
	int mapped = x->nparts == 1 && st_is_f32_inplace(t0) && !w->transposed && !F->copy;
	if (w->transposed) {   /* the file's [in, out] as [out, in] */
		const float *src = (const float *)(uintptr_t)t0->bytes;
		float *tmp = NULL;
		if (!(p = malloc(numel * sizeof *p)))
			return err_set(e, "%s: out of memory for %s", path, w->name);
		if (!st_is_f32_inplace(t0)) {
			if (!(tmp = malloc(numel * sizeof *tmp)) || st_to_f32(t0, tmp, e)) {
				free(p);
				free(tmp);
				return tmp ? err_prefix(e, "%s", path)
					   : err_set(e, "%s: out of memory for %s", path, w->name);
			}
			src = tmp;
		}
		op_transpose(src, w->shape[1], w->shape[0], p);
		free(tmp);
	} else if (mapped) {
		p = (float *)(uintptr_t)t0->bytes;
	} else {
		size_t off = 0;
		if (!(p = malloc(numel * sizeof *p)))
			return err_set(e, "%s: out of memory for %s", path, w->name);
		const size_t cols = w->ndim > 1 ? (size_t)w->shape[1] : 1;
		for (int k = 0; k < x->nparts; k++) {
			const struct st_tensor *t = &F->t[x->part[k]];
			size_t part = (size_t)part_rows(w, x->nparts, k) * cols;
			if (t->numel == part) {
				if (st_to_f32(t, p + off, e)) {
					free(p);
					return err_prefix(e, "%s", path);
				}
			} else {   /* more rows than needed (positions): the first ones */
				float *all = malloc(t->numel * sizeof *all);
				if (!all || st_to_f32(t, all, e)) {
					free(p);
					free(all);
					return all ? err_prefix(e, "%s", path)
						   : err_set(e, "%s: out of memory for %s", path, w->name);
				}
				memcpy(p + off, all, part * sizeof *p);
				free(all);
			}
			off += part;
		}
	}
	char *dt = m->cfg.wdtype;   /* the dtypes met, in order */
	for (int k = 0; k < x->nparts; k++) {
		const char *s = F->t[x->part[k]].dtype_str, *f = strstr(dt, s);
		size_t l = strlen(s);
		if (!(f && (f == dt || f[-1] == '+') && (!f[l] || f[l] == '+')) &&
		    strlen(dt) + l + 2 < sizeof m->cfg.wdtype)
			snprintf(dt + strlen(dt), sizeof m->cfg.wdtype - strlen(dt), "%s%s",
				 *dt ? "+" : "", s);
	}
	if (add_tensor(m, w, p, mapped)) {
		if (!mapped)
			free(p);
		return err_set(e, "out of memory");
	}
	return 0;
}

/* "K EVERY LAST", what train --average writes into the weights file's
 * metadata once they are the mean of the checkpoints of steps
 * LAST − (K−1)·EVERY … LAST; the stepper's header says so.  Anything else
 * is no average. */
static void read_average(struct config *c, const char *v)
{
	int k, every, used = 0;
	long last;
	if (v && sscanf(v, "%d %d %ld%n", &k, &every, &last, &used) == 3 && !v[used] &&
	    k >= 2 && every >= 1 && last <= 1000000000L && last - (long)(k - 1) * every >= 1) {
		c->avg_k = k;
		c->avg_first = last - (long)(k - 1) * every;
		c->avg_last = last;
	}
}

/* Wants that a tensor_names mapping points at the same file tensor (a
 * generator hand-mapped onto the embedding: weight tying) share one copy
 * of it: the later one points at the earlier one's data and does not own
 * it (mapped), so memory and info's parameter count see one tensor. */
static void share_tied(struct model *m, const struct wants *ws, const struct wmatch *mt)
{
	for (int j = 0; j < ws->n; j++) {
		if (mt[j].nparts != 1 || mt[j].part[0] < 0 || ws->w[j].found < 0 ||
		    ws->w[j].transposed)
			continue;
		for (int i = 0; i < j; i++) {
			if (mt[i].nparts != 1 || mt[i].part[0] != mt[j].part[0] ||
			    ws->w[i].found < 0 || ws->w[i].transposed ||
			    want_numel(&ws->w[i]) != want_numel(&ws->w[j]))
				continue;
			struct wtensor *a = &m->tensors[ws->w[i].found];
			struct wtensor *b = &m->tensors[ws->w[j].found];
			if (b->data == a->data)
				break;
			if (!b->mapped)
				free(b->data);
			b->data = a->data;
			b->mapped = 1;   /* not b's to free */
			*ws->w[j].dest = a->data;
			break;
		}
	}
}

/* A learned position table saved as a parameter of shape [1, L, d] (a
 * batch dimension of 1: nn.Parameter(torch.zeros(1, L, d))) is [L, d]:
 * the same numbers in the same order, read as such (t is the file's
 * tensors as selected, a copy). */
static void squeeze_positions(const struct wants *ws, const struct wmatch *mt,
			      struct st_tensor *t)
{
	for (int i = 0; i < ws->n; i++) {
		if (strcmp(ws->w[i].name, "pos_embed.weight") || mt[i].nparts != 1 ||
		    mt[i].part[0] < 0)
			continue;
		struct st_tensor *p = &t[mt[i].part[0]];
		if (p->ndim == 3 && p->shape[0] == 1) {
			p->ndim = 2;
			p->shape[0] = p->shape[1];
			p->shape[1] = p->shape[2];
		}
	}
}

static int bind_file(struct model *m, struct wants *ws, struct err *e)
{
	struct st_file f;
	struct fnames F = { 0 };
	struct wmatch *mt = NULL;
	int *claimed = NULL, rc = -1, nobias;
	struct st_tensor *sel = NULL;   /* the tensors of the step asked for */
	char *cbuf = NULL;   /* rewritten names (layout_canon) */
	if (tensorfile_open(&f, m->cfg.weights_path, m->cfg.weights_key, e))
		return -1;
	if (snapshot_select(f.t, f.n, m->cfg.snapshot, m->cfg.weights_path, &sel, &F.n, e))
		goto out;
	F.t = sel;
	F.copy = f.nxmaps > 0;
	F.canon = calloc((size_t)F.n + 1, sizeof *F.canon);
	claimed = calloc((size_t)F.n + 1, sizeof *claimed);
	mt = calloc((size_t)ws->n + 1, sizeof *mt);
	if (!F.canon || !claimed || !mt) {
		err_set(e, "out of memory");
		goto out;
	}
	const int own = m->cfg.layout == LAYOUT_GPT2 || m->cfg.layout == LAYOUT_BERT ||
			m->cfg.layout == LAYOUT_LLAMA || m->cfg.layout == LAYOUT_PHI3 ||
			m->cfg.layout == LAYOUT_BART;
	if (own && !(cbuf = calloc((size_t)F.n + 1, LAYOUT_NAME_MAX))) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int i = 0; i < F.n; i++)
		F.canon[i] = own ? layout_canon(m->cfg.layout, sel[i].name,
						cbuf + (size_t)i * LAYOUT_NAME_MAX)
				 : layout_strip(sel[i].name);
	int bi = fn_find(&F, "cls.predictions.decoder.bias");
	if (m->cfg.layout == LAYOUT_BERT && bi >= 0 && fn_find(&F, "cls.predictions.bias") < 0)
		F.canon[bi] = "cls.predictions.bias";   /* the same storage, its other name */
	int ei = fn_find(&F, "encoder.embed_tokens.weight");   /* a file that kept the */
	if (m->cfg.layout >= LAYOUT_BART && ei >= 0 && fn_find(&F, "shared.weight") < 0)
		F.canon[ei] = "shared.weight";   /* encoder's copy of shared, not shared */
	layout_prefix(F.canon, F.n, F.prefix);
	int problems = resolve(&m->cfg, ws, m->cfg.layout, 1, &F, mt, claimed, &nobias);
	squeeze_positions(ws, mt, sel);
	for (int i = 0; i < ws->n; i++)
		for (int k = 0; k < mt[i].nparts; k++)
			if (mt[i].part[k] >= 0 &&
			    !part_fits(&ws->w[i], mt[i].nparts, k, &F.t[mt[i].part[k]]))
				problems++;
	if (problems) {
		mismatch(m, ws, &F, mt, claimed, nobias, e);
		goto out;
	}
	for (int i = 0; i < ws->n; i++) {
		struct want *w = &ws->w[i];
		if (w->is_bias && nobias)
			w->required = 0;     /* nn.Linear(bias=False): zero */
		if (mt[i].nparts && mt[i].part[0] >= 0 && load_want(m, w, &mt[i], &F, e))
			goto out;
	}
	share_tied(m, ws, mt);
	read_average(&m->cfg, st_meta(&f, "attnscope.average"));
	/* the mapping now belongs to the model */
	m->map = f.map;
	m->maplen = f.maplen;
	f.map = NULL;
	rc = 0;
out:
	free(F.canon);
	free(cbuf);
	free(claimed);
	free(mt);
	free(sel);
	st_close(&f);
	return rc;
}

int weights_bind(struct model *m, const struct ydoc *doc,
		 const struct ynode *tensors, struct err *e)
{
	const struct config *c = &m->cfg;
	struct wants ws = { 0 };
	int rc = -1;
	m->enc = calloc((size_t)c->enc_layers + 1, sizeof *m->enc);
	m->dec = calloc((size_t)c->dec_layers + 1, sizeof *m->dec);
	if (!m->enc || !m->dec || build_wants(m, &ws) ||
	    !(m->tensors = calloc((size_t)ws.n, sizeof *m->tensors))) {
		err_set(e, "out of memory");
		goto out;
	}
	if (c->snapshot >= 0 && c->wsrc == W_RANDOM) {
		err_set(e, "%s: no training snapshots: the weights are seeded random "
			"values, not a file", m->path);
		goto out;
	}
	if (c->snapshot >= 0 && c->wsrc == W_INLINE) {
		err_set(e, "%s: no training snapshots: the weights are inline tensors, "
			"not a file", m->path);
		goto out;
	}
	if (c->wsrc == W_RANDOM)
		rc = bind_random(m, &ws, e);
	else if (c->wsrc == W_INLINE)
		rc = parse_inline(m, doc, tensors, &ws, e);
	else
		rc = bind_file(m, &ws, e);
	if (rc)
		goto out;
	rc = -1;
	const char *from = c->wsrc == W_FILE ? c->weights_path : m->path;
	for (int i = 0; i < ws.n; i++) {
		struct want *w = &ws.w[i];
		if (w->found >= 0) {
			*w->dest = m->tensors[w->found].data;
		} else if (w->required) {
			char s[48];
			shape_str(s, sizeof s, w->ndim, w->shape);
			err_set(e, "%s: missing tensor %s %s", from, w->name, s);
			goto out;
		}
	}
	/* a final norm comes as weight and bias together (or without biases) */
	int biases = 0;
	for (int i = 0; i < ws.n; i++)
		biases |= ws.w[i].is_bias && ws.w[i].found >= 0;
	if (biases && (!m->enc_norm_w != !m->enc_norm_b || !m->dec_norm_w != !m->dec_norm_b)) {
		err_set(e, "%s: a final norm needs both .weight and .bias", from);
		goto out;
	}
	/* a tie shares one table between two vocabularies: valid only when
	   they are the same list (a longer target would read past the table,
	   a shorter one or other words would silently use the wrong rows) */
	const int same = m->shared_vocab || vocab_equal(&m->src_vocab, &m->tgt_vocab);
	if (c->arch != ARCH_ENC_ONLY && !m->tgt_embed) {
		if (!same) {
			err_set(e, "%s: missing tensor tgt_embed.weight [%d, %d] (it may be "
				"left out only when the target vocabulary is the source "
				"vocabulary: the same tokens in the same order)",
				from, m->tgt_vocab.n, c->d_model);
			goto out;
		}
		m->tgt_embed = m->src_embed;
	}
	if (c->arch == ARCH_ENC_ONLY)
		m->tgt_embed = same ? m->src_embed : NULL;
	if (c->tie_gen == 1 && m->gen_w)   /* tie_word_embeddings: the embedding */
		m->gen_w = NULL;   /* (a bias stays: Marian's final_logits_bias) */
	if (c->tie_gen == 0 && !m->gen_w) {
		err_set(e, "%s: missing tensor generator.weight [%d, %d] (lm_head.weight: the "
			"config says tie_word_embeddings false)", from, m->tgt_vocab.n, c->d_model);
		goto out;
	}
	if (!m->gen_w && !c->head.nlabels) {
		if (!m->tgt_embed) {
			err_set(e, "%s: missing tensor generator.weight [%d, %d] (an encoder-only "
				"model ties it to the source embedding only when the target "
				"vocabulary is the source vocabulary: the same tokens in the "
				"same order)", from, m->tgt_vocab.n, c->d_model);
			goto out;
		}
		m->gen_w = m->tgt_embed;
		m->gen_tied = 1;
	}
	if (c->wsrc != W_RANDOM)
		model_warn_nan(m);
	rc = 0;
out:
	free(ws.w);
	return rc;
}
