/* gguf.c - the GGUF reader: header, metadata, tensor infos, all checked
 * against the file before use (gguf.h says what is refused). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguf.h"
#include "quant.h"
#include "base/i18n.h"
#include "base/safefile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gguf.c assumes a little-endian host"
#endif

#define GGUF_MAX_KEY 65535u    /* gguf.md: keys are at most 2^16 - 1 bytes */
#define GGUF_MAX_NAME 63u      /* ggml's GGML_MAX_NAME (64) less the NUL */
#define GGUF_MAX_NEST 8        /* arrays of arrays, this deep at most */
#define GGUF_SHOW 60           /* bytes of a key or name shown in messages */

/* the smallest encodings: a key/value (empty key, a u8), a tensor info
 * (empty name, n_dims 0), an array element of each type */
#define MIN_KV (8 + 4 + 1)
#define MIN_TINFO (8 + 4 + 4 + 8)

/* A reading position in the file. */
struct cur {
	const unsigned char *b;
	uint64_t len, pos;
	const char *path;
	struct err *e;
};

static const unsigned VSIZE[GGUF_NVTYPES] = {
	[GGUF_U8] = 1, [GGUF_I8] = 1, [GGUF_U16] = 2, [GGUF_I16] = 2, [GGUF_U32] = 4,
	[GGUF_I32] = 4, [GGUF_F32] = 4, [GGUF_BOOL] = 1, [GGUF_U64] = 8, [GGUF_I64] = 8,
	[GGUF_F64] = 8,
	/* strings and arrays: their smallest encoding (an empty one) */
	[GGUF_STRING] = 8, [GGUF_ARRAY] = 12,
};

const char *gguf_vtype_name(enum gguf_vtype t)
{
	static const char *const names[GGUF_NVTYPES] = {
		"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array",
		"u64", "i64", "f64",
	};
	return (unsigned)t < GGUF_NVTYPES ? names[t] : "?";
}

static int fail(struct cur *c, const char *what)
{
	return err_set(c->e, _("%s: %s at byte %" PRIu64), c->path, what, c->pos);
}

static uint64_t left(const struct cur *c)
{
	return c->len - c->pos;
}

static int take(struct cur *c, uint64_t n, const unsigned char **p, const char *what)
{
	if (n > left(c)) {
		char m[160];
		snprintf(m, sizeof m, _("file ends inside %s (%" PRIu64 " bytes needed, %" PRIu64
					" left)"), what, n, left(c));
		return fail(c, m);
	}
	if (p)
		*p = c->b + c->pos;
	c->pos += n;
	return 0;
}

static int rd32(struct cur *c, uint32_t *v, const char *what)
{
	const unsigned char *p = NULL;
	if (take(c, 4, &p, what))
		return -1;
	memcpy(v, p, 4);
	return 0;
}

static int rd64(struct cur *c, uint64_t *v, const char *what)
{
	const unsigned char *p = NULL;
	if (take(c, 8, &p, what))
		return -1;
	memcpy(v, p, 8);
	return 0;
}

static int rdstr(struct cur *c, struct gguf_str *s, uint64_t max, const char *what)
{
	uint64_t n;
	const unsigned char *p;
	if (rd64(c, &n, what))
		return -1;
	if (n > left(c)) {
		char m[200];
		c->pos -= 8;
		snprintf(m, sizeof m, _("%s of %" PRIu64 " bytes is longer than the %" PRIu64
					" bytes left in the file"), what, n, left(c) - 8);
		return fail(c, m);
	}
	if (n > max) {
		char m[160];
		c->pos -= 8;
		snprintf(m, sizeof m, _("%s of %" PRIu64 " bytes (at most %" PRIu64 ")"), what, n,
			 max);
		return fail(c, m);
	}
	take(c, n, &p, what);
	s->s = (const char *)p;
	s->len = n;
	return 0;
}

/* A copy of s for messages, cut and made printable. */
static const char *shown(char *buf, size_t cap, struct gguf_str s)
{
	size_t k = 0;
	for (uint64_t i = 0; i < s.len && k + 4 < cap && i < GGUF_SHOW; i++) {
		unsigned char ch = (unsigned char)s.s[i];
		buf[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	if (s.len > GGUF_SHOW && k + 4 < cap) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
	return buf;
}

static char *dupstr(struct gguf_str s)
{
	char *p = malloc((size_t)s.len + 1);
	if (p) {
		memcpy(p, s.s, (size_t)s.len);
		p[s.len] = 0;
	}
	return p;
}

/* Skips over one value of type t, checking it; depth counts arrays. */
static int skip_value(struct cur *c, uint32_t t, int depth);

static int skip_array(struct cur *c, uint32_t *elem, uint64_t *n, int depth)
{
	char m[200];
	if (rd32(c, elem, _("an array's type")) || rd64(c, n, _("an array's count")))
		return -1;
	if (*elem >= GGUF_NVTYPES) {
		c->pos -= 12;
		snprintf(m, sizeof m, _("unknown array element type %" PRIu32), *elem);
		return fail(c, m);
	}
	if (*elem == GGUF_ARRAY && depth >= GGUF_MAX_NEST) {
		c->pos -= 12;
		snprintf(m, sizeof m, _("arrays nested more than %d deep"), GGUF_MAX_NEST);
		return fail(c, m);
	}
	/* every element takes at least VSIZE bytes: refuse a count that the
	   rest of the file cannot hold before walking it */
	if (*n > left(c) / VSIZE[*elem]) {
		c->pos -= 8;
		snprintf(m, sizeof m, _("array of %" PRIu64 " %s elements is longer than the %"
					PRIu64 " bytes left in the file"), *n,
			 gguf_vtype_name(*elem), left(c) - 8);
		return fail(c, m);
	}
	if (*elem != GGUF_STRING && *elem != GGUF_ARRAY)
		return take(c, *n * VSIZE[*elem], NULL, _("an array"));
	for (uint64_t i = 0; i < *n; i++)
		if (skip_value(c, *elem, depth + 1))
			return -1;
	return 0;
}

static int skip_value(struct cur *c, uint32_t t, int depth)
{
	struct gguf_str s;
	uint32_t elem;
	uint64_t n;
	const unsigned char *p;
	switch (t) {
	case GGUF_STRING:
		return rdstr(c, &s, UINT64_MAX, _("a string"));
	case GGUF_ARRAY:
		return skip_array(c, &elem, &n, depth);
	case GGUF_BOOL:
		if (take(c, 1, &p, _("a bool")))
			return -1;
		if (*p > 1) {
			c->pos--;
			return fail(c, _("a bool that is neither 0 nor 1"));
		}
		return 0;
	default:
		return take(c, VSIZE[t], NULL, _("a value"));
	}
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *q = realloc(*p, nc * size);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static int read_kv(struct gguf_file *f, struct cur *c, size_t *cap)
{
	struct gguf_str key;
	uint32_t t;
	char m[200], k[80];
	if (rdstr(c, &key, GGUF_MAX_KEY, _("a metadata key")) || rd32(c, &t, _("a value type")))
		return -1;
	if (t >= GGUF_NVTYPES) {
		c->pos -= 4;
		snprintf(m, sizeof m, _("unknown value type %" PRIu32 " of key \"%s\""), t,
			 shown(k, sizeof k, key));
		return fail(c, m);
	}
	if (grow((void **)&f->kv, cap, f->nkv, sizeof *f->kv))
		return err_set(c->e, _("%s: out of memory"), c->path);
	struct gguf_kv *kv = &f->kv[f->nkv];
	memset(kv, 0, sizeof *kv);
	kv->type = (enum gguf_vtype)t;
	kv->n = 1;
	uint64_t start = c->pos;
	if (t == GGUF_ARRAY) {
		uint32_t elem;
		if (skip_array(c, &elem, &kv->n, 1))
			return -1;
		kv->elem = (enum gguf_vtype)elem;
		start += 12;
	} else if (skip_value(c, t, 0)) {
		return -1;
	}
	kv->val = c->b + start;
	kv->nbytes = c->pos - start;
	if (!(kv->key = dupstr(key)))
		return err_set(c->e, _("%s: out of memory"), c->path);
	f->nkv++;
	return 0;
}

/* ne[0..ndim) and the type: element count and bytes without overflow, ne[0]
 * whole blocks. */
static int tensor_size(struct cur *c, struct gguf_tensor *t, const char *nm)
{
	char m[240];
	uint64_t rows = 1, rowbytes;
	for (int d = 1; d < GGUF_MAX_DIMS; d++) {
		if (t->ne[d] && rows > (uint64_t)INT64_MAX / t->ne[d])
			goto overflow;
		rows *= t->ne[d];
	}
	if (t->ne[0] > (uint64_t)INT64_MAX || (t->ne[0] && rows > (uint64_t)INT64_MAX / t->ne[0]))
		goto overflow;
	t->numel = rows * t->ne[0];
	if (quant_row_bytes(t->type, t->ne[0], &rowbytes)) {
		snprintf(m, sizeof m, _("tensor \"%s\": a row of %" PRIu64 " values is not whole "
					"blocks of %u for type %s"), nm, t->ne[0],
			 quant_block_size(t->type), quant_name(t->type));
		return fail(c, m);
	}
	if (rowbytes && rows > UINT64_MAX / rowbytes)
		goto overflow;
	t->nbytes = rows * rowbytes;
	return 0;
overflow:
	snprintf(m, sizeof m, _("tensor \"%s\": its dimensions overflow 64 bits"), nm);
	return fail(c, m);
}

static int read_tinfo(struct gguf_file *f, struct cur *c, size_t *cap)
{
	struct gguf_str name;
	uint32_t ndim, type;
	char m[240], nm[80];
	if (rdstr(c, &name, GGUF_MAX_NAME, _("a tensor name")))
		return -1;
	shown(nm, sizeof nm, name);
	if (rd32(c, &ndim, _("a tensor's n_dims")))
		return -1;
	if (ndim > GGUF_MAX_DIMS) {
		c->pos -= 4;
		snprintf(m, sizeof m, _("tensor \"%s\" has %" PRIu32 " dimensions (at most %d)"),
			 nm, ndim, GGUF_MAX_DIMS);
		return fail(c, m);
	}
	if (grow((void **)&f->t, cap, f->nt, sizeof *f->t))
		return err_set(c->e, _("%s: out of memory"), c->path);
	struct gguf_tensor *t = &f->t[f->nt];
	memset(t, 0, sizeof *t);
	t->ndim = (int)ndim;
	for (int d = 0; d < GGUF_MAX_DIMS; d++)
		t->ne[d] = 1;
	for (uint32_t d = 0; d < ndim; d++)
		if (rd64(c, &t->ne[d], _("a tensor's dimensions")))
			return -1;
	if (rd32(c, &type, _("a tensor's type")))
		return -1;
	if (!quant_known(type)) {
		c->pos -= 4;
		snprintf(m, sizeof m, _("tensor \"%s\" has an unknown type id %" PRIu32), nm, type);
		return fail(c, m);
	}
	t->type = type;
	if (tensor_size(c, t, nm) || rd64(c, &t->offset, _("a tensor's offset")))
		return -1;
	if (!(t->name = dupstr(name)))
		return err_set(c->e, _("%s: out of memory"), c->path);
	f->nt++;
	return 0;
}

/* sorting indices by key/name; the arrays being sorted are in a static for
 * qsort's comparator, set just before each sort (single-threaded use) */
static const struct gguf_file *sort_file;

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(sort_file->kv[*(const size_t *)a].key, sort_file->kv[*(const size_t *)b].key);
}

static int cmp_t(const void *a, const void *b)
{
	return strcmp(sort_file->t[*(const size_t *)a].name, sort_file->t[*(const size_t *)b].name);
}

static int cmp_off(const void *a, const void *b)
{
	const struct gguf_tensor *x = &sort_file->t[*(const size_t *)a],
				 *y = &sort_file->t[*(const size_t *)b];
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static size_t *sorted(const struct gguf_file *f, size_t n, int (*cmp)(const void *, const void *))
{
	size_t *ix = malloc((n ? n : 1) * sizeof *ix);
	if (!ix)
		return NULL;
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	sort_file = f;
	qsort(ix, n, sizeof *ix, cmp);
	return ix;
}

/* Duplicated keys and names, and the lookup indices. */
static int index_names(struct gguf_file *f, struct err *e)
{
	char k[80];
	if (!(f->kv_index = sorted(f, f->nkv, cmp_kv)) || !(f->t_index = sorted(f, f->nt, cmp_t)))
		return err_set(e, _("%s: out of memory"), f->path);
	for (size_t i = 1; i < f->nkv; i++) {
		const char *a = f->kv[f->kv_index[i]].key;
		if (!strcmp(a, f->kv[f->kv_index[i - 1]].key))
			return err_set(e, _("%s: duplicated metadata key \"%s\""), f->path,
				       shown(k, sizeof k, (struct gguf_str){ a, strlen(a) }));
	}
	for (size_t i = 1; i < f->nt; i++) {
		const char *a = f->t[f->t_index[i]].name;
		if (!strcmp(a, f->t[f->t_index[i - 1]].name))
			return err_set(e, _("%s: duplicated tensor name \"%s\""), f->path,
				       shown(k, sizeof k, (struct gguf_str){ a, strlen(a) }));
	}
	return 0;
}

const struct gguf_kv *gguf_find(const struct gguf_file *f, const char *key)
{
	size_t lo = 0, hi = f && f->kv_index ? f->nkv : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(key, f->kv[f->kv_index[mid]].key);
		if (!r)
			return &f->kv[f->kv_index[mid]];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct gguf_tensor *gguf_tensor(const struct gguf_file *f, const char *name)
{
	size_t lo = 0, hi = f && f->t_index ? f->nt : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, f->t[f->t_index[mid]].name);
		if (!r)
			return &f->t[f->t_index[mid]];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* general.alignment, then every tensor's data inside the file, aligned,
 * and no two overlapping. */
static int place_data(struct gguf_file *f, uint64_t end_of_infos, struct err *e)
{
	const struct gguf_kv *al = gguf_find(f, "general.alignment");
	f->alignment = GGUF_DEFAULT_ALIGNMENT;
	if (al) {
		uint32_t a;
		if (al->type != GGUF_U32)
			return err_set(e, _("%s: general.alignment is a %s, not a u32"), f->path,
				       gguf_vtype_name(al->type));
		memcpy(&a, al->val, 4);
		if (!a || (a & (a - 1)))
			return err_set(e, _("%s: general.alignment %" PRIu32 " is not a power of two"),
				       f->path, a);
		f->alignment = a;
	}
	uint64_t pad = (f->alignment - end_of_infos % f->alignment) % f->alignment;
	f->data_offset = end_of_infos + pad;
	uint64_t room = f->data_offset <= f->maplen ? f->maplen - f->data_offset : 0;
	if (f->nt && f->data_offset > f->maplen)
		return err_set(e, _("%s: the data section (byte %" PRIu64 ") starts past the end of "
				    "the file (%zu bytes)"), f->path, f->data_offset, f->maplen);
	for (size_t i = 0; i < f->nt; i++) {
		struct gguf_tensor *t = &f->t[i];
		char nm[80];
		shown(nm, sizeof nm, (struct gguf_str){ t->name, strlen(t->name) });
		if (t->offset % f->alignment)
			return err_set(e, _("%s: tensor \"%s\": offset %" PRIu64 " is not a multiple "
					    "of the alignment %" PRIu32), f->path, nm, t->offset,
				       f->alignment);
		if (t->offset > room || t->nbytes > room - t->offset)
			return err_set(e, _("%s: tensor \"%s\": its %" PRIu64 " bytes at data offset %"
					    PRIu64 " end past the end of the file (%" PRIu64
					    " bytes of data)"), f->path, nm, t->nbytes,
				       t->offset, room);
		t->data = (const unsigned char *)f->map + f->data_offset + t->offset;
	}
	size_t *ix = sorted(f, f->nt, cmp_off);
	if (!ix)
		return err_set(e, _("%s: out of memory"), f->path);
	for (size_t i = 1; i < f->nt; i++) {
		const struct gguf_tensor *a = &f->t[ix[i - 1]], *b = &f->t[ix[i]];
		if (a->offset + a->nbytes > b->offset) {
			char na[80], nb[80];
			err_set(e, _("%s: tensors \"%s\" and \"%s\" overlap"), f->path,
				shown(na, sizeof na, (struct gguf_str){ a->name, strlen(a->name) }),
				shown(nb, sizeof nb, (struct gguf_str){ b->name, strlen(b->name) }));
			free(ix);
			return -1;
		}
	}
	free(ix);
	return 0;
}

static int parse(struct gguf_file *f, struct err *e)
{
	struct cur c = { f->map, f->maplen, 0, f->path, e };
	uint32_t magic;
	uint64_t nt, nkv;
	size_t capkv = 0, capt = 0;
	char m[200];
	if (f->maplen < 4 || memcmp(f->map, "GGUF", 4))
		return err_set(e, _("%s: not a GGUF file (it does not start with \"GGUF\")"), f->path);
	rd32(&c, &magic, "");
	if (rd32(&c, &f->version, _("the version")))
		return -1;
	if (f->version != 2 && f->version != 3)
		return err_set(e, _("%s: GGUF version %" PRIu32 " (this program reads 2 and 3)"),
			       f->path, f->version);
	if (rd64(&c, &nt, _("the tensor count")) || rd64(&c, &nkv, _("the metadata count")))
		return -1;
	if (nkv > left(&c) / MIN_KV) {
		snprintf(m, sizeof m, _("metadata count %" PRIu64 " is more than the %" PRIu64
					" bytes left can hold"), nkv, left(&c));
		return fail(&c, m);
	}
	if (nt > left(&c) / MIN_TINFO) {
		snprintf(m, sizeof m, _("tensor count %" PRIu64 " is more than the %" PRIu64
					" bytes left can hold"), nt, left(&c));
		return fail(&c, m);
	}
	for (uint64_t i = 0; i < nkv; i++)
		if (read_kv(f, &c, &capkv))
			return -1;
	for (uint64_t i = 0; i < nt; i++)
		if (read_tinfo(f, &c, &capt))
			return -1;
	if (index_names(f, e))
		return -1;
	return place_data(f, c.pos, e);
}

static int set_path(struct gguf_file *f, const char *path, struct err *e)
{
	if (!(f->path = strdup(path)))
		return err_set(e, _("%s: out of memory"), path);
	return 0;
}

int gguf_open_buffer(struct gguf_file *f, const void *data, size_t len, const char *path,
		     struct err *e)
{
	memset(f, 0, sizeof *f);
	if (set_path(f, path, e))
		return -1;
	f->map = (void *)data;
	f->maplen = len;
	if (parse(f, e)) {
		f->map = NULL;
		gguf_close(f);
		return -1;
	}
	f->map = NULL;   /* not ours to unmap; data pointers stay valid */
	return 0;
}

int gguf_open(struct gguf_file *f, const char *path, struct err *e)
{
	struct stat sb;
	int fd, er = 0;
	memset(f, 0, sizeof *f);
	if ((fd = safefile_open_read(path, e)) < 0)
		return -1;
	void *map = MAP_FAILED;
	if (fstat(fd, &sb))
		er = errno;
	else if ((uint64_t)sb.st_size > SIZE_MAX)
		er = EFBIG;
	else if (sb.st_size == 0)
		map = NULL;
	else if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		er = errno;
	close(fd);
	if (er)
		return err_set(e, "%s: %s", path, strerror(er));
	if (set_path(f, path, e)) {
		if (map)
			munmap(map, (size_t)sb.st_size);
		return -1;
	}
	f->map = map;
	f->maplen = (size_t)sb.st_size;
	if (parse(f, e)) {
		gguf_close(f);
		return -1;
	}
	return 0;
}

void gguf_close(struct gguf_file *f)
{
	if (!f)
		return;
	if (f->map)
		munmap(f->map, f->maplen);
	for (size_t i = 0; i < f->nkv; i++)
		free(f->kv[i].key);
	for (size_t i = 0; i < f->nt; i++)
		free(f->t[i].name);
	free(f->kv);
	free(f->t);
	free(f->kv_index);
	free(f->t_index);
	free(f->path);
	memset(f, 0, sizeof *f);
}

int gguf_sniff(const char *path)
{
	struct err e;
	unsigned char b[4];
	int fd = safefile_open_read(path, &e);
	if (fd < 0)
		return 0;
	ssize_t k = read(fd, b, sizeof b);
	close(fd);
	return k == 4 && !memcmp(b, "GGUF", 4);
}
