/* weights.c - where the tensors a configuration wants come from: seeded
 * random values, inline YAML lists, or a file's tensors mapped by the layout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "ops.h"
#include "snapshot.h"
#include "weights.h"
#include "weights_int.h"
#include "formats/tensorfile.h"

static struct want *want_find(struct wants *ws, const char *name)
{
	for (int i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i].name, name) == 0)
			return &ws->w[i];
	return NULL;
}

/* Appends a tensor to the model; takes data.  dtype: its file's type. */
static int add_tensor(struct model *m, struct want *w, float *data, int mapped,
		      const char *dtype)
{
	struct wtensor *t = &m->tensors[m->ntensors];
	if (!(t->name = strdup(w->name)))
		return -1;
	snprintf(t->dtype, sizeof t->dtype, "%s", dtype);
	t->ndim = w->ndim;
	t->shape[0] = w->shape[0];
	t->shape[1] = w->ndim > 1 ? w->shape[1] : 1;
	t->data = data;
	t->mapped = mapped;
	w->found = m->ntensors++;
	return 0;
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
		if (add_tensor(m, w, p, 0, "F32")) {
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
		want_shape_str(want_s, sizeof want_s, w->ndim, w->shape);
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
		if (add_tensor(m, w, p, 0, "F32")) {
			free(p);
			return err_set(e, "out of memory");
		}
	}
	return 0;
}

/* ---- a weights file: the file's names mapped by the layout ---- */

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
int weights_resolve(const struct config *c, const struct wants *ws, int layout,
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

/* Adds the dtype s to the list dt[cap] ("BF16", "F32+F16") unless it is
 * there already. */
static void dtype_add(char *dt, size_t cap, const char *s)
{
	const char *f = strstr(dt, s);
	size_t l = strlen(s);
	if (!(f && (f == dt || f[-1] == '+') && (!f[l] || f[l] == '+')) &&
	    strlen(dt) + l + 2 < cap)
		snprintf(dt + strlen(dt), cap - strlen(dt), "%s%s", *dt ? "+" : "", s);
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
			size_t part = (size_t)want_part_rows(w, x->nparts, k) * cols;
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
	char own[24] = "";   /* this tensor's parts' dtypes, in part order */
	for (int k = 0; k < x->nparts; k++) {
		const char *s = F->t[x->part[k]].dtype_str;
		dtype_add(m->cfg.wdtype, sizeof m->cfg.wdtype, s);
		snprintf(own + strlen(own), sizeof own - strlen(own), "%s%s", k ? "+" : "", s);
	}
	if (add_tensor(m, w, p, mapped, own)) {
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

/* The weights file's tensors, or given's (opened by the caller, who
 * closes it). */
static int bind_file(struct model *m, struct wants *ws, struct st_file *given,
		     struct err *e)
{
	struct st_file opened, *fp = given ? given : &opened;
	struct fnames F = { 0 };
	struct wmatch *mt = NULL;
	int *claimed = NULL, rc = -1, nobias;
	struct st_tensor *sel = NULL;   /* the tensors of the step asked for */
	char *cbuf = NULL;   /* rewritten names (layout_canon) */
	if (!given && tensorfile_open(fp, m->cfg.weights_path, m->cfg.weights_key, e))
		return -1;
	if (snapshot_select(fp->t, fp->n, m->cfg.snapshot, m->cfg.weights_path, &sel, &F.n, e))
		goto out;
	F.t = sel;
	F.copy = fp->nxmaps > 0;
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
	int problems = weights_resolve(&m->cfg, ws, m->cfg.layout, 1, &F, mt, claimed, &nobias);
	squeeze_positions(ws, mt, sel);
	for (int i = 0; i < ws->n; i++)
		for (int k = 0; k < mt[i].nparts; k++)
			if (mt[i].part[k] >= 0 &&
			    !want_part_fits(&ws->w[i], mt[i].nparts, k, &F.t[mt[i].part[k]]))
				problems++;
	if (problems) {
		weights_mismatch(m, ws, &F, mt, claimed, nobias, e);
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
	read_average(&m->cfg, st_meta(fp, "attnscope.average"));
	/* the mapping now belongs to the model */
	m->map = fp->map;
	m->maplen = fp->maplen;
	fp->map = NULL;
	rc = 0;
out:
	free(F.canon);
	free(cbuf);
	free(claimed);
	free(mt);
	free(sel);
	if (!given)
		st_close(fp);
	return rc;
}

static int bind(struct model *m, const struct ydoc *doc, const struct ynode *tensors,
		struct st_file *given, struct err *e)
{
	const struct config *c = &m->cfg;
	struct wants ws = { 0 };
	int rc = -1;
	m->enc = calloc((size_t)c->enc_layers + 1, sizeof *m->enc);
	m->dec = calloc((size_t)c->dec_layers + 1, sizeof *m->dec);
	if (!m->enc || !m->dec || wants_build(m, &ws) ||
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
		rc = bind_file(m, &ws, given, e);
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
			want_shape_str(s, sizeof s, w->ndim, w->shape);
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

int weights_bind(struct model *m, const struct ydoc *doc,
		 const struct ynode *tensors, struct err *e)
{
	return bind(m, doc, tensors, NULL, e);
}

int weights_bind_st(struct model *m, struct st_file *f, struct err *e)
{
	m->cfg.wsrc = W_FILE;
	return bind(m, NULL, NULL, f, e);
}
