/* torchsave.c - reading torch.save files into an st_file (torchsave.h).
 *
 * torch.save pickles each tensor as
 *   torch._utils._rebuild_tensor_v2(STORAGE, offset, size, stride,
 *                                   requires_grad, backward_hooks[, meta])
 * where STORAGE is a persistent id ('storage', torch.FloatStorage, KEY,
 * location, numel) naming FOLDER/data/KEY; nn.Parameters wrap that in
 * torch._utils._rebuild_parameter(tensor, requires_grad, hooks), and
 * state_dicts are collections.OrderedDict with a _metadata attribute set by
 * BUILD.  Those globals, torch.Size and a few data-only constructors whose
 * result is kept opaque (torch.device, numpy scalars and arrays) are all
 * the hooks below know. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torchsave.h"
#include "pickle.h"
#include "base/safefile.h"
#include "zipfile.h"
#include "base/i18n.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "torchsave.c assumes a little-endian host"
#endif

static const struct ts_dtype {
	const char *storage, *name;
	enum st_dtype dt;
	unsigned size;
} TS_DTYPES[] = {
	{ "FloatStorage", "F32", ST_F32, 4 }, { "HalfStorage", "F16", ST_F16, 2 },
	{ "BFloat16Storage", "BF16", ST_BF16, 2 }, { "DoubleStorage", "F64", ST_F64, 8 },
	{ "LongStorage", "I64", ST_I64, 8 }, { "IntStorage", "I32", ST_I32, 4 },
	{ "ShortStorage", "I16", ST_OTHER, 2 }, { "CharStorage", "I8", ST_OTHER, 1 },
	{ "ByteStorage", "U8", ST_OTHER, 1 }, { "BoolStorage", "BOOL", ST_OTHER, 1 },
	{ "ComplexFloatStorage", "C64", ST_OTHER, 8 },
	{ "ComplexDoubleStorage", "C128", ST_OTHER, 16 },
	{ "UntypedStorage", "U8", ST_OTHER, 1 },
};
#define TS_NDTYPES (int)(sizeof TS_DTYPES / sizeof *TS_DTYPES)

/* the hooks' codes for globals; storage types are C_STORAGE + index */
enum { C_REBUILD_V2 = 1, C_REBUILD, C_PARAM, C_PARAM_STATE, C_FROM_TYPE,
       C_TENSOR_TYPE, C_SIZE, C_OPAQUE, C_STORAGE = 100 };
/* PK_EXT tags */
enum { X_STORAGE = 1, X_TENSOR };

struct ts_storage {
	const unsigned char *data;    /* numel elements of TS_DTYPES[dt] */
	uint64_t numel;
	int dt;
	char key[40];                 /* for messages */
};

struct ts_tensor {
	const struct ts_storage *st;
	uint64_t offset;              /* in elements */
	int ndim;
	uint64_t shape[ST_MAXDIM], stride[ST_MAXDIM];
};

struct ts_ctx {
	const struct zipfile *z;
	const char *prefix;           /* "FOLDER/" */
	size_t plen;
};

static int ts_global(void *ctx, const char *m, const char *n)
{
	(void)ctx;
	static const struct { const char *m, *n; int code; } known[] = {
		{ "torch._utils", "_rebuild_tensor_v2", C_REBUILD_V2 },
		{ "torch._utils", "_rebuild_tensor", C_REBUILD },
		{ "torch._utils", "_rebuild_parameter", C_PARAM },
		{ "torch._utils", "_rebuild_parameter_with_state", C_PARAM_STATE },
		{ "torch._tensor", "_rebuild_from_type_v2", C_FROM_TYPE },
		{ "torch._utils", "_rebuild_from_type_v2", C_FROM_TYPE },
		{ "torch._tensor", "Tensor", C_TENSOR_TYPE },
		{ "torch", "Tensor", C_TENSOR_TYPE },
		{ "torch.nn.parameter", "Parameter", C_TENSOR_TYPE },
		{ "torch", "Size", C_SIZE },
		/* data-only constructors: kept as opaque values, never called */
		{ "torch", "device", C_OPAQUE },
		{ "numpy.core.multiarray", "scalar", C_OPAQUE },
		{ "numpy.core.multiarray", "_reconstruct", C_OPAQUE },
		{ "numpy._core.multiarray", "scalar", C_OPAQUE },
		{ "numpy._core.multiarray", "_reconstruct", C_OPAQUE },
		{ "numpy", "dtype", C_OPAQUE },
		{ "builtins", "complex", C_OPAQUE },
		{ "builtins", "slice", C_OPAQUE },
		{ "builtins", "bytearray", C_OPAQUE },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(m, known[i].m) && !strcmp(n, known[i].n))
			return known[i].code;
	if (!strcmp(m, "torch"))
		for (int i = 0; i < TS_NDTYPES; i++)
			if (!strcmp(n, TS_DTYPES[i].storage))
				return C_STORAGE + i;
	return 0;
}

/* *out = v as a non-negative integer. */
static int nonneg(const struct pk_value *v, uint64_t *out)
{
	if (v->kind != PK_INT || v->i < 0)
		return -1;
	*out = (uint64_t)v->i;
	return 0;
}

static struct pk_value *ts_fail(struct pk *p, struct err *e, const char *what)
{
	err_set(e, "%s: %s", pk_what(p), what);
	return NULL;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, ...) and
 * _rebuild_tensor(storage, offset, size, stride) */
static struct pk_value *rebuild(struct pk *p, int code, const struct pk_value *a,
				struct err *e)
{
	if (a->kind != PK_TUPLE || (code == C_REBUILD ? a->n != 4 : a->n < 4 || a->n > 7))
		return ts_fail(p, e, _("tensor rebuilt with an unexpected argument list"));
	const struct pk_value *st = a->items[0], *sz = a->items[2], *sd = a->items[3];
	if (st->kind != PK_EXT || st->tag != X_STORAGE)
		return ts_fail(p, e, _("tensor rebuilt from something that is not a storage"));
	if (sz->kind != PK_TUPLE || sd->kind != PK_TUPLE || sz->n != sd->n)
		return ts_fail(p, e, _("tensor size and stride are not tuples of one length"));
	if (sz->n > ST_MAXDIM)
		return ts_fail(p, e, _("tensor has more than 8 dimensions"));
	struct ts_tensor *t = calloc(1, sizeof *t);
	struct pk_value *v = t ? pk_new(p, PK_EXT, e) : NULL;
	if (!v) {
		free(t);
		return t ? NULL : ts_fail(p, e, _("out of memory"));
	}
	v->tag = X_TENSOR;
	v->ext = t;
	t->st = st->ext;
	t->ndim = (int)sz->n;
	if (nonneg(a->items[1], &t->offset))
		return ts_fail(p, e, _("tensor storage offset is not a non-negative integer"));
	for (int i = 0; i < t->ndim; i++)
		if (nonneg(sz->items[i], &t->shape[i]) || nonneg(sd->items[i], &t->stride[i]))
			return ts_fail(p, e, _("tensor size or stride is not a non-negative integer"));
	return v;
}

static int is_tensor(const struct pk_value *v)
{
	return v->kind == PK_EXT && v->tag == X_TENSOR;
}

static struct pk_value *ts_reduce(struct pk *p, void *ctx, struct pk_value *f,
				  struct pk_value *a, struct err *e)
{
	(void)ctx;
	switch (f->tag) {
	case C_REBUILD_V2:
	case C_REBUILD:
		return rebuild(p, f->tag, a, e);
	case C_PARAM:
	case C_PARAM_STATE:
		/* _rebuild_parameter(tensor, requires_grad, hooks[, state]) */
		if (a->kind != PK_TUPLE || a->n < 1 || !is_tensor(a->items[0]))
			return ts_fail(p, e, _("parameter rebuilt from something that is not a tensor"));
		return a->items[0];
	case C_FROM_TYPE: {
		/* _rebuild_from_type_v2(func, type, args, state): a tensor with
		 * Python attributes; the attributes are dropped */
		if (a->kind != PK_TUPLE || a->n != 4 || a->items[0]->kind != PK_GLOBAL ||
		    a->items[1]->kind != PK_GLOBAL || a->items[1]->tag != C_TENSOR_TYPE ||
		    a->items[0]->tag == C_FROM_TYPE)
			return ts_fail(p, e, _("tensor subclass rebuilt with unexpected arguments"));
		return ts_reduce(p, ctx, a->items[0], a->items[2], e);
	}
	case C_SIZE:
		if (a->kind != PK_TUPLE || a->n != 1 || a->items[0]->kind != PK_TUPLE)
			return ts_fail(p, e, _("torch.Size with unexpected arguments"));
		return a->items[0];
	case C_OPAQUE: {
		struct pk_value *v = pk_new(p, PK_OBJECT, e);
		if (v && !(v->s = strdup(f->s)))
			return ts_fail(p, e, _("out of memory"));
		if (v)
			v->len = strlen(v->s);
		return v;
	}
	default: {
		char msg[160];
		snprintf(msg, sizeof msg, _("refusing to call %.100s"), f->s);
		return ts_fail(p, e, msg);
	}
	}
}

/* ('storage', torch.XStorage, KEY, location, numel) -> FOLDER/data/KEY */
static struct pk_value *ts_persid(struct pk *p, void *vctx, struct pk_value *pid,
				  struct err *e)
{
	const struct ts_ctx *c = vctx;
	char name[512];
	uint64_t numel, nbytes;
	if (pid->kind != PK_TUPLE || pid->n != 5 || pid->items[0]->kind != PK_STR ||
	    strcmp(pid->items[0]->s, "storage") || pid->items[1]->kind != PK_GLOBAL ||
	    pid->items[1]->tag < C_STORAGE || pid->items[2]->kind != PK_STR ||
	    nonneg(pid->items[4], &numel))
		return ts_fail(p, e, _("persistent id is not a storage reference "
				       "('storage', type, key, location, size)"));
	const struct ts_dtype *dt = &TS_DTYPES[pid->items[1]->tag - C_STORAGE];
	const char *key = pid->items[2]->s;
	if ((size_t)snprintf(name, sizeof name, "%sdata/%s", c->prefix, key) >= sizeof name)
		return ts_fail(p, e, _("storage key too long"));
	const struct zip_entry *ent = zip_find(c->z, name);
	if (!ent) {
		char msg[600];
		snprintf(msg, sizeof msg, _("storage \"%.60s\" is not in the archive"), key);
		return ts_fail(p, e, msg);
	}
	if (__builtin_mul_overflow(numel, (uint64_t)dt->size, &nbytes) || nbytes != ent->size) {
		char msg[300];
		snprintf(msg, sizeof msg, _("storage \"%.60s\" declares %" PRIu64 " elements of %s "
			 "but holds %" PRIu64 " bytes"), key, numel, dt->name, ent->size);
		return ts_fail(p, e, msg);
	}
	struct ts_storage *s = calloc(1, sizeof *s);
	struct pk_value *v = s ? pk_new(p, PK_EXT, e) : NULL;
	if (!v) {
		free(s);
		return s ? NULL : ts_fail(p, e, _("out of memory"));
	}
	v->tag = X_STORAGE;
	v->ext = s;
	s->data = ent->data;
	s->numel = numel;
	s->dt = pid->items[1]->tag - C_STORAGE;
	snprintf(s->key, sizeof s->key, "%s", key);
	return v;
}

/* ---- the state_dict into the st_file ---- */

static void fmt_dims(const uint64_t *d, int n, char *buf, size_t cap)
{
	size_t k = (size_t)snprintf(buf, cap, "[");
	for (int i = 0; i < n && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu64, i ? ", " : "", d[i]);
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
}

/* n elements of es bytes, src stepping by stride elements, to dst. */
static void copy_row(unsigned char *dst, const unsigned char *src, uint64_t n,
		     uint64_t stride, unsigned es)
{
	switch (es) {
#define ROW(T) \
	for (uint64_t i = 0; i < n; i++) \
		memcpy(dst + i * sizeof(T), src + i * stride * sizeof(T), sizeof(T)); \
	break;
	case 1: ROW(uint8_t)
	case 2: ROW(uint16_t)
	case 4: ROW(uint32_t)
	case 8: ROW(uint64_t)
#undef ROW
	default:
		for (uint64_t i = 0; i < n; i++)
			memcpy(dst + i * es, src + i * stride * es, es);
	}
}

/* Copies a strided tensor (numel > 0) into row-major order, a row of the
 * last dimension at a time. */
static void gather(unsigned char *out, const unsigned char *base, const struct ts_tensor *t,
		   unsigned es, uint64_t numel)
{
	uint64_t idx[ST_MAXDIM] = { 0 }, off = 0;
	const int last = t->ndim - 1;
	const uint64_t n = last >= 0 ? t->shape[last] : 1, step = last >= 0 ? t->stride[last] : 1;
	for (uint64_t k = 0; k < numel; k += n) {
		copy_row(out + k * es, base + off * es, n, step, es);
		for (int d = last - 1; d >= 0; d--) {
			if (++idx[d] < t->shape[d]) {
				off += t->stride[d];
				break;
			}
			off -= (idx[d] - 1) * t->stride[d];
			idx[d] = 0;
		}
	}
}

/* Strides under which no two elements share a place: sorted by stride,
 * each dimension steps past everything the smaller ones reach. */
static int no_alias(const struct ts_tensor *t)
{
	int ord[ST_MAXDIM], n = 0;
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i] > 1)
			ord[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t->stride[ord[j]] < t->stride[ord[j - 1]]; j--) {
			int x = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	uint64_t reach = 0;   /* largest offset the smaller dimensions reach */
	for (int i = 0; i < n; i++) {
		const uint64_t s = t->stride[ord[i]];
		if (s <= reach)
			return 0;
		reach += (t->shape[ord[i]] - 1) * s;   /* within the storage: no overflow */
	}
	return 1;
}

static int fill_tensor(struct st_file *f, const char *name, const struct ts_tensor *t,
		       struct err *e)
{
	struct st_tensor *o = &f->t[f->n];
	const struct ts_dtype *dt = &TS_DTYPES[t->st->dt];
	const unsigned es = dt->size;
	char sb[ST_MAXDIM * 22 + 4], db[ST_MAXDIM * 22 + 4];
	uint64_t numel = 1, last = t->offset, contig = 1;
	int dense = 1;
	fmt_dims(t->shape, t->ndim, sb, sizeof sb);
	fmt_dims(t->stride, t->ndim, db, sizeof db);
	for (int i = 0; i < t->ndim; i++)
		if (__builtin_mul_overflow(numel, t->shape[i], &numel))
			return err_set(e, "%s: tensor \"%.80s\": element count of %s overflows",
				       f->path, name, sb);
	/* the last element must lie inside the storage */
	for (int i = 0; numel && i < t->ndim; i++) {
		uint64_t span;
		if (__builtin_mul_overflow(t->shape[i] - 1, t->stride[i], &span) ||
		    __builtin_add_overflow(last, span, &last))
			last = UINT64_MAX;
	}
	if (numel && last >= t->st->numel)
		return err_set(e, "%s: tensor \"%.80s\" %s (offset %" PRIu64 ", strides %s) "
			       "reaches element %" PRIu64 " of storage \"%s\", which holds %" PRIu64,
			       f->path, name, sb, t->offset, db, last, t->st->key, t->st->numel);
	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->shape[i] != 1 && t->stride[i] != contig)
			dense = 0;
		contig *= t->shape[i];
	}
	memset(o, 0, sizeof *o);
	o->dtype = dt->dt;
	snprintf(o->dtype_str, sizeof o->dtype_str, "%s", dt->name);
	o->ndim = t->ndim;
	memcpy(o->shape, t->shape, sizeof o->shape);
	o->numel = numel;
	o->nbytes = numel * es;         /* <= the storage's bytes */
	if (!numel || dense) {
		o->bytes = t->st->data + (numel ? t->offset * es : 0);
	} else {
		if (!no_alias(t))
			return err_set(e, "%s: tensor \"%.80s\" %s: strides %s make elements share "
				       "storage (an expanded view); save a copy (.clone())",
				       f->path, name, sb, db);
		if (!(o->owned = malloc((size_t)o->nbytes)))
			return err_set(e, "%s: out of memory for tensor \"%.80s\"", f->path, name);
		gather(o->owned, t->st->data + t->offset * es, t, es, numel);
		o->bytes = o->owned;
	}
	if (!(o->name = strdup(name)))
		return err_set(e, "%s: out of memory", f->path);
	f->n++;
	return 0;
}

/* A short description of a value for `info`. */
static void describe(const struct pk_value *v, char *buf, size_t cap)
{
	switch (v->kind) {
	case PK_NONE: snprintf(buf, cap, "None"); break;
	case PK_BOOL: snprintf(buf, cap, "bool %s", v->i ? "True" : "False"); break;
	case PK_INT: snprintf(buf, cap, "int %" PRId64, v->i); break;
	case PK_FLOAT: snprintf(buf, cap, "float %.9g", v->f); break;
	case PK_STR: {
		size_t k = (size_t)snprintf(buf, cap, "str \"");
		for (size_t i = 0; i < v->len && i < 40 && k + 5 < cap; i++)
			buf[k++] = v->s[i] >= 0x20 && v->s[i] < 0x7f ? v->s[i] : '?';
		snprintf(buf + k, cap - k, "%s\"", v->len > 40 ? "..." : "");
		break;
	}
	case PK_DICT: snprintf(buf, cap, "dict (%zu)", v->n / 2); break;
	case PK_LIST: case PK_TUPLE: case PK_SET: case PK_BYTES:
		snprintf(buf, cap, "%s (%zu)", pk_kind_name(v->kind),
			 v->kind == PK_BYTES ? v->len : v->n);
		break;
	case PK_GLOBAL: case PK_OBJECT:
		snprintf(buf, cap, "%s %.80s", pk_kind_name(v->kind), v->s);
		break;
	case PK_EXT: {
		if (is_tensor(v)) {
			const struct ts_tensor *t = v->ext;
			char sb[ST_MAXDIM * 22 + 4];
			fmt_dims(t->shape, t->ndim, sb, sizeof sb);
			snprintf(buf, cap, "tensor %s %s", TS_DTYPES[t->st->dt].name, sb);
		} else {
			snprintf(buf, cap, "storage");
		}
		break;
	}
	}
}

static int add_meta(struct st_file *f, const char *k1, const char *k2, const char *val,
		    struct err *e)
{
	char **nk = realloc(f->meta_keys, (size_t)(f->nmeta + 1) * sizeof *nk);
	if (nk)
		f->meta_keys = nk;
	char **nv = nk ? realloc(f->meta_vals, (size_t)(f->nmeta + 1) * sizeof *nv) : NULL;
	if (nv)
		f->meta_vals = nv;
	char *ks = nv ? malloc(strlen(k1) + strlen(k2) + 1) : NULL, *vs = ks ? strdup(val) : NULL;
	if (!vs) {
		free(ks);
		return err_set(e, "%s: out of memory", f->path);
	}
	strcpy(ks, k1);
	strcat(ks, k2);
	f->meta_keys[f->nmeta] = ks;
	f->meta_vals[f->nmeta++] = vs;
	return 0;
}

static int has_tensor(const struct pk_value *d)
{
	for (size_t i = 1; d && d->kind == PK_DICT && i < d->n; i += 2)
		if (is_tensor(d->items[i]))
			return 1;
	return 0;
}

/* Lists the top-level entries for an error: "a, b, c". */
static void entry_list(const struct pk_value *top, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = 0;
	for (size_t i = 0; top->kind == PK_DICT && i < top->n && k + 8 < cap; i += 2) {
		const struct pk_value *key = top->items[i];
		k += (size_t)snprintf(buf + k, cap - k, "%s%.40s", i ? ", " : "",
				      key->kind == PK_STR ? key->s : pk_kind_name(key->kind));
	}
}

static int cmp_tname(const void *a, const void *b)
{
	return strcmp(((const struct st_tensor *)a)->name, ((const struct st_tensor *)b)->name);
}

/* Picks the state_dict out of top and fills f. */
static int ts_fill(struct st_file *f, const struct pk_value *top, const char *key,
		   struct err *e)
{
	static const char *const DEFAULT_KEYS[] = { "state_dict", "model_state_dict", "model" };
	const struct pk_value *sd = NULL;
	const char *sdkey = "";
	char list[300];
	if (top->kind == PK_OBJECT)
		return err_set(e, "%s: the file holds a %.80s object, not a state_dict (save "
			       "model.state_dict() rather than the model)", f->path, top->s);
	if (top->kind != PK_DICT)
		return err_set(e, "%s: the file holds a %s, not a state_dict or checkpoint dict",
			       f->path, pk_kind_name(top->kind));
	entry_list(top, list, sizeof list);
	if (key) {
		sd = pk_dict_get(top, key);
		if (!sd)
			return err_set(e, "%s: weights_key \"%.80s\": no such entry (the file has: %s)",
				       f->path, key, list);
		if (sd->kind != PK_DICT)
			return err_set(e, "%s: weights_key \"%.80s\": the entry is a %s, not a "
				       "state_dict", f->path, key, pk_kind_name(sd->kind));
		sdkey = key;
	} else {
		for (size_t i = 0; !sd && i < sizeof DEFAULT_KEYS / sizeof *DEFAULT_KEYS; i++) {
			const struct pk_value *v = pk_dict_get(top, DEFAULT_KEYS[i]);
			if (v && has_tensor(v))
				sd = v, sdkey = DEFAULT_KEYS[i];
		}
		if (!sd)
			sd = top;
	}
	if (!has_tensor(sd)) {
		const struct pk_value *m = pk_dict_get(top, "model");
		if (m && m->kind == PK_OBJECT)
			return err_set(e, "%s: entry \"model\" is a %.80s object, not a state_dict "
				       "(save model.state_dict() rather than the model)", f->path, m->s);
		return err_set(e, "%s: no tensors found in %s%s%s (the file has: %s)", f->path,
			       *sdkey ? "\"" : "", *sdkey ? sdkey : _("the top-level dict"),
			       *sdkey ? "\"" : "", list);
	}
	if (!(f->t = calloc(sd->n / 2 + 1, sizeof *f->t)))
		return err_set(e, "%s: out of memory", f->path);
	for (size_t i = 0; i + 1 < sd->n; i += 2) {
		const struct pk_value *k = sd->items[i], *v = sd->items[i + 1];
		if (!is_tensor(v))
			continue;
		if (k->kind != PK_STR || strlen(k->s) != k->len)
			return err_set(e, "%s: a tensor under a key that is not a plain string",
				       f->path);
		if (fill_tensor(f, k->s, v->ext, e))
			return -1;
	}
	/* names are unique (a dict), unless the pickle was made by hand */
	struct st_tensor *s = malloc((size_t)f->n * sizeof *s + 1);
	if (!s)
		return err_set(e, "%s: out of memory", f->path);
	memcpy(s, f->t, (size_t)f->n * sizeof *s);
	qsort(s, (size_t)f->n, sizeof *s, cmp_tname);
	for (int i = 1; i < f->n; i++)
		if (!strcmp(s[i - 1].name, s[i].name)) {
			err_set(e, "%s: tensor \"%.80s\" appears twice", f->path, s[i].name);
			free(s);
			return -1;
		}
	free(s);
	/* what else is there, for `info` */
	char what[200];
	if (add_meta(f, "torch:state_dict", "", sdkey, e))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const struct pk_value *d = pass ? sd : top;
		if (pass && sd == top)
			break;
		for (size_t i = 0; i + 1 < d->n; i += 2) {
			const struct pk_value *k = d->items[i], *v = d->items[i + 1];
			if ((!pass && v == sd) || (d == sd && is_tensor(v)) || k->kind != PK_STR ||
			    strlen(k->s) != k->len)
				continue;
			describe(v, what, sizeof what);
			if (add_meta(f, pass ? "torch:entry:state_dict." : "torch:entry:", k->s,
				     what, e))
				return -1;
		}
	}
	return 0;
}

/* ---- the archive ---- */

int ts_sniff(const unsigned char *buf, size_t n)
{
	return n >= 4 && ((buf[0] == 'P' && buf[1] == 'K' && buf[2] < 8 && buf[3] < 8) ||
			  (buf[0] == 0x80 && buf[1] >= 2 && buf[1] <= 5));
}

/* FOLDER/ of FOLDER/data.pkl; *prefix points into the entry's name. */
static int find_folder(const char *path, const struct zipfile *z, const char **pkl,
		       size_t *plen, struct err *e)
{
	*pkl = NULL;
	for (int i = 0; i < z->n; i++) {
		const char *nm = z->e[i].name, *sl = strchr(nm, '/');
		int here = sl ? !strcmp(sl, "/data.pkl") : !strcmp(nm, "data.pkl");
		if (!here)
			continue;
		if (*pkl)
			return err_set(e, "%s: more than one data.pkl in the archive", path);
		*pkl = nm;
		*plen = sl ? (size_t)(sl - nm) + 1 : 0;
	}
	for (int i = 0; i < z->n; i++) {
		const char *sl = strchr(z->e[i].name, '/');
		if (sl && !strcmp(sl, "/constants.pkl"))
			return err_set(e, "%s: a TorchScript archive (torch.jit.save); attnscope reads "
				       "torch.save files of state_dicts", path);
	}
	if (*pkl)
		return 0;
	return err_set(e, "%s: a zip archive without data.pkl: not a torch.save file", path);
}

static int ts_read(struct st_file *f, const char *key, struct err *e)
{
	const unsigned char *buf = f->map;
	const char *path = f->path;
	if (f->maplen >= 2 && buf[0] == 0x80)
		return err_set(e, "%s: a pickle, not a zip archive: the legacy torch.save format "
			       "(PyTorch < 1.6 or _use_new_zipfile_serialization=False) is not read; "
			       "save it again with a current torch.save", path);
	struct zipfile z;
	if (zip_open(&z, path, buf, f->maplen, e))
		return -1;
	const char *pklname;
	size_t plen = 0;
	int rc = -1;
	struct pk *p = NULL;
	char prefix[300], name[340], what[400];
	if (find_folder(path, &z, &pklname, &plen, e))
		goto out;
	if (plen >= sizeof prefix) {
		err_set(e, "%s: archive folder name too long", path);
		goto out;
	}
	memcpy(prefix, pklname, plen);
	prefix[plen] = 0;
	snprintf(name, sizeof name, "%sbyteorder", prefix);
	const struct zip_entry *bo = zip_find(&z, name), *pkl = zip_find(&z, pklname);
	if (bo && !(bo->size == 6 && !memcmp(bo->data, "little", 6))) {
		err_set(e, "%s: byteorder is \"%.*s\": only little-endian files are read", path,
			bo->size < 16 ? (int)bo->size : 16, (const char *)bo->data);
		goto out;
	}
	if (!zip_crc_ok(pkl)) {
		err_set(e, "%s: %s fails its CRC-32 check (the file is damaged)", path, pklname);
		goto out;
	}
	struct ts_ctx ctx = { &z, prefix, plen };
	struct pk_hooks hooks = { &ctx, ts_global, ts_reduce, ts_persid };
	snprintf(what, sizeof what, "%s: %s", path, pklname);
	const struct pk_value *top = pk_load(&p, what, pkl->data, (size_t)pkl->size, &hooks, e);
	if (top)
		rc = ts_fill(f, top, key, e);
out:
	pk_free(p);
	zip_close(&z);
	return rc;
}

int ts_open(struct st_file *f, const char *path, const char *key, struct err *e)
{
	if (st_map(f, path, 4, _("file is too short for a torch.save archive"), e))
		return -1;
	if (ts_read(f, key, e)) {
		st_close(f);
		return -1;
	}
	return 0;
}
