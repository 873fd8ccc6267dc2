/* safetensors.c - reading the safetensors format (safetensors_write.c
 * writes it).
 *
 * The reader maps the whole file read-only, parses the JSON header with
 * ydoc (JSON is YAML flow style) and checks every number in it against the
 * file before a tensor is exposed: header inside the file, offsets inside the
 * data, byte spans equal to numel x dtype size, no overflow, no overlap, no
 * duplicate names.  The writer puts the data contiguously, in the order
 * tensors were added, after a header padded with spaces to a multiple of 8.
 * As with any mapping, a file truncated by someone else while it is mapped
 * raises SIGBUS on access; model files are not expected to change in place. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safetensors.h"
#include "safetensors_int.h"
#include "json.h"
#include "ydoc.h"
#include "base/i18n.h"
#include "base/safefile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c assumes a little-endian host"
#endif

/* The header is parsed whole (several times its size in memory), so it is
 * bounded by the same 16 MiB as a YAML file (the reference reader allows
 * 100 MB, but real headers are kilobytes: GPT-2's is 15 KB), and the
 * __metadata__ strings, which are kept, by 1 MiB in all. */
#define ST_MAX_HEADER (16ull << 20)
#define ST_MAX_META (1u << 20)

static const struct {
	const char *name;
	enum st_dtype dt;
	unsigned size;
} st_dtypes[] = {
	/* first seven in enum order: st_dtype_name and st_dtype_size index them */
	{ "F32", ST_F32, 4 }, { "F16", ST_F16, 2 }, { "BF16", ST_BF16, 2 },
	{ "F64", ST_F64, 8 }, { "I32", ST_I32, 4 }, { "I64", ST_I64, 8 },
	{ "I8", ST_I8, 1 },
	/* known, sized, but not converted */
	{ "U8", ST_OTHER, 1 }, { "BOOL", ST_OTHER, 1 },
	{ "I16", ST_OTHER, 2 }, { "U16", ST_OTHER, 2 }, { "U32", ST_OTHER, 4 },
	{ "U64", ST_OTHER, 8 }, { "C64", ST_OTHER, 8 },
	{ "F8_E4M3", ST_OTHER, 1 }, { "F8_E5M2", ST_OTHER, 1 },
	{ "F8_E8M0", ST_OTHER, 1 },
};
#define ST_NDTYPES (sizeof st_dtypes / sizeof st_dtypes[0])

const char *st_dtype_name(enum st_dtype d)
{
	if ((unsigned)d <= ST_I8)
		return st_dtypes[d].name;
	return d == ST_OTHER ? "OTHER" : "?";
}

unsigned st_dtype_size(enum st_dtype d)
{
	return (unsigned)d <= ST_I8 ? st_dtypes[d].size : 0;
}

static uint64_t st_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Length of the UTF-8 sequence at s with its code point, or 0 if invalid. */
int st_utf8(const unsigned char *s, uint32_t *cp)
{
	int n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 :
		s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
	uint32_t c = n == 1 ? s[0] : n == 2 ? s[0] & 0x1fu : n == 3 ? s[0] & 0xfu : s[0] & 7u;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* A name made safe for a one-line message: control bytes and invalid UTF-8
 * become '?', long names are cut. */
const char *st_show(const char *s, char *buf, size_t cap)
{
	size_t i = 0;
	uint32_t c;
	for (int n; *s && i + 8 < cap; s += n) {
		n = st_utf8((const unsigned char *)s, &c);
		if (n <= 1 || c < 0xa0) {
			buf[i++] = n == 1 && c >= 0x20 && c != 0x7f ? *s : '?';
			n = n ? n : 1;
		} else {
			memcpy(buf + i, s, (size_t)n);
			i += (size_t)n;
		}
	}
	if (*s)
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = 0;
	return buf;
}

/* ---- reading ---- */

void st_close(struct st_file *f)
{
	if (!f)
		return;
	for (int i = 0; f->t && i < f->n; i++)
		free(f->t[i].name), free(f->t[i].owned);
	free(f->t);
	for (int i = 0; i < f->nmeta; i++)
		free(f->meta_keys[i]), free(f->meta_vals[i]);
	free(f->meta_keys);
	free(f->meta_vals);
	if (f->map)
		munmap(f->map, f->maplen);
	for (int i = 0; i < f->nxmaps; i++)
		munmap(f->xmaps[i], f->xmaplens[i]);
	free(f->xmaps);
	free(f->xmaplens);
	free((char *)f->path);
	memset(f, 0, sizeof *f);
}

static int st_parse_meta(struct st_file *f, const struct ynode *m,
			 struct err *e)
{
	if (f->meta_keys)
		return err_set(e, "%s: duplicate \"__metadata__\"", f->path);
	if (m->kind != Y_MAP)
		return err_set(e, "%s: \"__metadata__\" is a %s, expected a JSON object",
			       f->path, ynode_kind_name(m->kind));
	size_t total = 0;
	for (size_t i = 0; i < 2 * m->n; i++)
		if (m->items[i]->kind == Y_SCALAR)
			total += m->items[i]->len;
	if (total > ST_MAX_META)
		return err_set(e, "%s: \"__metadata__\" holds %zu bytes of text, more than the "
			       "limit of %u", f->path, total, ST_MAX_META);
	f->meta_keys = calloc(m->n ? m->n : 1, sizeof *f->meta_keys);
	f->meta_vals = calloc(m->n ? m->n : 1, sizeof *f->meta_vals);
	if (!f->meta_keys || !f->meta_vals)
		return err_set(e, "%s: out of memory", f->path);
	for (size_t i = 0; i < m->n; i++) {
		const struct ynode *k = m->items[2 * i], *v = m->items[2 * i + 1];
		char nb[ST_SHOW];
		if (k->kind != Y_SCALAR)
			return err_set(e, "%s: \"__metadata__\" key %zu is a %s, expected a string",
				       f->path, i, ynode_kind_name(k->kind));
		if (v->kind != Y_SCALAR || !v->quoted)
			return err_set(e, "%s: \"__metadata__\" value of \"%s\" is not a string",
				       f->path, st_show(k->str, nb, sizeof nb));
		char *ks = strdup(k->str), *vs = ks ? strdup(v->str) : NULL;
		if (!vs) {
			free(ks);
			return err_set(e, "%s: out of memory", f->path);
		}
		f->meta_keys[f->nmeta] = ks;
		f->meta_vals[f->nmeta++] = vs;
	}
	return 0;
}

static void st_fmt_shape(const uint64_t *shape, size_t ndim, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	len += (size_t)snprintf(buf, cap, "[");
	for (size_t i = 0; i < ndim && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%" PRIu64,
					i ? ", " : "", shape[i]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
}

/* "PATH: tensor "NAME": what"; returns -1.  fmt comes translated. */
static int st_terr(struct err *e, const char *path, const char *name,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int st_terr(struct err *e, const char *path, const char *name,
		   const char *fmt, ...)
{
	char nb[ST_SHOW], what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return err_set(e, "%s: tensor \"%s\": %s", path, st_show(name, nb, sizeof nb), what);
}

/* Fills f->t[f->n] from one header entry; data[dlen] is the data section. */
static int st_parse_tensor(struct st_file *f, const struct ydoc *d,
			   const char *nm, const struct ynode *v,
			   const unsigned char *data, uint64_t dlen, struct err *e)
{
	struct st_tensor *t = &f->t[f->n];
	const char *p = f->path;
	char sb[ST_MAXDIM * 22 + 4];
	uint64_t b, en, need;

	if (v->kind != Y_MAP)
		return st_terr(e, p, nm, _("entry is a %s, expected a JSON object"),
			       ynode_kind_name(v->kind));
	const struct ynode *dt = ynode_get(v, "dtype"), *sh = ynode_get(v, "shape"),
			   *off = ynode_get(v, "data_offsets");
	const char *missing = !dt ? "dtype" : !sh ? "shape" : !off ? "data_offsets" : NULL;
	if (missing)
		return st_terr(e, p, nm, _("missing \"%s\""), missing);

	if (dt->kind != Y_SCALAR)
		return st_terr(e, p, nm, _("dtype is a %s, expected a string"),
			       ynode_kind_name(dt->kind));
	size_t k = 0;
	while (k < ST_NDTYPES && strcmp(dt->str, st_dtypes[k].name))
		k++;
	if (k == ST_NDTYPES)
		return st_terr(e, p, nm, _("unknown dtype \"%s\""), st_show(dt->str, sb, sizeof sb));
	t->dtype = st_dtypes[k].dt;
	snprintf(t->dtype_str, sizeof t->dtype_str, "%s", st_dtypes[k].name);

	if (sh->kind != Y_SEQ)
		return st_terr(e, p, nm, _("shape is a %s, expected a list"),
			       ynode_kind_name(sh->kind));
	if (sh->n > ST_MAXDIM)
		return st_terr(e, p, nm, _("shape has %zu dimensions, at most %d supported"),
			       sh->n, ST_MAXDIM);
	t->ndim = (int)sh->n;
	t->numel = 1;
	for (size_t i = 0; i < sh->n; i++) {
		if (ynode_u64(d, sh->items[i], &t->shape[i], NULL))
			return st_terr(e, p, nm, _("shape[%zu] is not an unsigned integer"), i);
		if (__builtin_mul_overflow(t->numel, t->shape[i], &t->numel)) {
			st_fmt_shape(t->shape, i + 1, sb, sizeof sb);
			return st_terr(e, p, nm, _("element count overflows 64 bits at shape %s"), sb);
		}
	}
	st_fmt_shape(t->shape, sh->n, sb, sizeof sb);

	if (off->kind != Y_SEQ || off->n != 2 || ynode_u64(d, off->items[0], &b, NULL) ||
	    ynode_u64(d, off->items[1], &en, NULL))
		return st_terr(e, p, nm, _("data_offsets must be a list of two unsigned integers"));
	if (b > en)
		return st_terr(e, p, nm, _("data_offsets [%" PRIu64 ", %" PRIu64
				 "]: begin is after end"), b, en);
	if (en > dlen)
		return st_terr(e, p, nm, _("data_offsets end %" PRIu64 " is past the end "
				 "of the data (%" PRIu64 " bytes)"), en, dlen);
	if (__builtin_mul_overflow(t->numel, (uint64_t)st_dtypes[k].size, &need))
		return st_terr(e, p, nm, _("byte size of %s %s overflows 64 bits"),
			       t->dtype_str, sb);
	if (need != en - b)
		/* TRANSLATORS: "F32 [2, 3] needs 24 bytes but data_offsets span 20" */
		return st_terr(e, p, nm, _("%s %s needs %" PRIu64 " bytes but data_offsets "
				 "span %" PRIu64), t->dtype_str, sb, need, en - b);
	t->bytes = data + b;
	t->nbytes = en - b;
	if (!(t->name = strdup(nm)))
		return err_set(e, "%s: out of memory", p);
	f->n++;
	return 0;
}

static int st_cmp_name(const void *a, const void *b)
{
	const struct st_tensor *x = *(const struct st_tensor *const *)a;
	const struct st_tensor *y = *(const struct st_tensor *const *)b;
	return strcmp(x->name, y->name);
}

static int st_cmp_range(const void *a, const void *b)
{
	const struct st_tensor *x = *(const struct st_tensor *const *)a;
	const struct st_tensor *y = *(const struct st_tensor *const *)b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->nbytes < y->nbytes ? -1 : x->nbytes > y->nbytes;
}

/* No two names equal, no two non-empty byte ranges overlapping. */
static int st_check_layout(struct st_file *f, const unsigned char *data,
			   struct err *e)
{
	const struct st_tensor **s = malloc((size_t)(f->n ? f->n : 1) * sizeof *s);
	char nb[ST_SHOW], nb2[ST_SHOW];
	int rc = 0;
	if (!s)
		return err_set(e, "%s: out of memory", f->path);
	for (int i = 0; i < f->n; i++)
		s[i] = &f->t[i];
	qsort(s, (size_t)f->n, sizeof *s, st_cmp_name);
	for (int i = 1; i < f->n && !rc; i++)
		if (!strcmp(s[i - 1]->name, s[i]->name))
			rc = err_set(e, "%s: duplicate tensor name \"%s\"", f->path,
			      st_show(s[i]->name, nb, sizeof nb));
	qsort(s, (size_t)f->n, sizeof *s, st_cmp_range);
	const struct st_tensor *last = NULL;   /* non-empty range ending last */
	for (int i = 0; i < f->n && !rc; i++) {
		if (!s[i]->nbytes)
			continue;
		if (last && s[i]->bytes < last->bytes + last->nbytes)
			rc = err_set(e, "%s: tensors \"%s\" [%td, %td) and \"%s\" [%td, %td) overlap",
				     f->path, st_show(last->name, nb, sizeof nb),
				     last->bytes - data, last->bytes + last->nbytes - data,
			      st_show(s[i]->name, nb2, sizeof nb2),
				     s[i]->bytes - data, s[i]->bytes + s[i]->nbytes - data);
		if (!last || s[i]->bytes + s[i]->nbytes > last->bytes + last->nbytes)
			last = s[i];
	}
	free(s);
	return rc;
}

static int st_is_float(enum st_dtype d)
{
	return d == ST_F32 || d == ST_F16 || d == ST_BF16 || d == ST_F64;
}

/* Each I8 tensor NAME with a float tensor NAME_scale gets its scales (one,
 * or one a row of NAME) and NAME_scale leaves the list.  A NAME_scale that
 * fits no I8 tensor stays an ordinary tensor; one whose count fits neither
 * way is an error. */
static int st_pair_scales(struct st_file *f, struct err *e)
{
	char nb[ST_SHOW], *want = NULL;
	size_t cap = 0;
	int rc = 0, nq = 0;
	for (int i = 0; i < f->n; i++)
		nq += f->t[i].dtype == ST_I8;
	if (!nq)
		return 0;
	const struct st_tensor **s = malloc((size_t)f->n * sizeof *s);
	char *gone = calloc((size_t)f->n, 1);
	if (!s || !gone) {
		free(s);
		free(gone);
		return err_set(e, "%s: out of memory", f->path);
	}
	for (int i = 0; i < f->n; i++)
		s[i] = &f->t[i];
	qsort(s, (size_t)f->n, sizeof *s, st_cmp_name);
	for (int i = 0; i < f->n && !rc; i++) {
		struct st_tensor *q = &f->t[i];
		if (q->dtype != ST_I8)
			continue;
		size_t l = strlen(q->name) + sizeof "_scale";
		if (l > cap) {
			char *w = realloc(want, l);
			if (!w) {
				rc = err_set(e, "%s: out of memory", f->path);
				break;
			}
			want = w, cap = l;
		}
		snprintf(want, l, "%s_scale", q->name);
		struct st_tensor key = { .name = want };
		const struct st_tensor *kp = &key, **hit =
			bsearch(&kp, s, (size_t)f->n, sizeof *s, st_cmp_name);
		if (!hit || !st_is_float((*hit)->dtype))
			continue;
		const struct st_tensor *c = *hit;
		uint64_t rows = q->ndim ? q->shape[0] : 1;
		int shaped = c->numel == 1 || (c->numel == rows && (c->ndim == 1 ||
			     (c->ndim == 2 && c->shape[1] == 1)));
		if (!shaped)
			rc = err_set(e, "%s: tensor \"%s\": %" PRIu64 " scales for an I8 tensor of "
				     "%" PRIu64 " rows (expected 1 or one a row, shape [rows] or "
				     "[rows, 1])", f->path, st_show(c->name, nb, sizeof nb),
				     c->numel, rows);
		q->scale = c->bytes;
		q->scale_dtype = c->dtype;
		q->nscale = c->numel;
		gone[c - f->t] = 1;
	}
	int k = 0;
	for (int i = 0; i < f->n; i++) {
		if (gone[i]) {
			free(f->t[i].name);
			free(f->t[i].owned);
			continue;
		}
		f->t[k++] = f->t[i];
	}
	f->n = k;
	free(want);
	free(gone);
	free(s);
	return rc;
}

static int st_parse(struct st_file *f, struct err *e)
{
	const unsigned char *base = f->map;
	uint64_t n = st_le64(base), avail = (uint64_t)f->maplen - 8;
	const char *p = f->path;

	if (n == 0)
		return err_set(e, "%s: header length is 0", p);
	if (n > avail)
		return err_set(e, "%s: header length %" PRIu64 " is larger than the %" PRIu64
			       " bytes that follow it (truncated or not safetensors?)", p, n, avail);
	if (n > ST_MAX_HEADER)
		return err_set(e, "%s: header length %" PRIu64 " exceeds the limit of %llu bytes",
			       p, n, ST_MAX_HEADER);

	/* ydoc's messages read "PATH: header:LINE: problem" */
	char what[sizeof e->msg];
	struct ydoc doc;
	/* TRANSLATORS: the JSON header of a safetensors file, named like a
	   file in messages: "model.safetensors: header:1: problem" */
	snprintf(what, sizeof what, _("%s: header"), p);
	/* strict JSON first: libyaml alone accepts YAML that is not JSON,
	   repeated keys inside an entry, and refuses surrogate-pair escapes */
	char *fixed;
	size_t flen, i0 = 0;
	while (i0 < n && strchr(" \t\r\n", base[8 + i0]))
		i0++;
	if (i0 == n || (base[8 + i0] != '{' && base[8 + i0] != '['))
		return err_set(e, "%s: header is not a JSON object (found %s)", p,
			       i0 == n ? _("nothing") : ynode_kind_name(Y_SCALAR));
	if (json_check(what, (const char *)base + 8, (size_t)n, JSON_TOP_DUPS_OK, &fixed,
		       &flen, e))
		return -1;
	int bad = fixed ? ydoc_parse_flags(&doc, what, fixed, flen, YDOC_TOP_DUPS_OK, e) :
		  ydoc_parse_flags(&doc, what, base + 8, (size_t)n, YDOC_TOP_DUPS_OK, e);
	free(fixed);
	if (bad)
		return -1;
	const struct ynode *root = doc.root;
	int rc = 0;
	if (!root || root->kind != Y_MAP)
		rc = err_set(e, "%s: header is not a JSON object (found %s)", p,
			     /* TRANSLATORS: "header is not a JSON object (found
				nothing)": the header holds no JSON value at all */
			     root ? ynode_kind_name(root->kind) : _("nothing"));
	else if (!(f->t = calloc(root->n ? root->n : 1, sizeof *f->t)))
		rc = err_set(e, "%s: out of memory", p);
	for (size_t i = 0; !rc && i < root->n; i++) {
		const struct ynode *k = root->items[2 * i], *v = root->items[2 * i + 1];
		if (k->kind != Y_SCALAR)
			rc = err_set(e, "%s: header key %zu is a %s, expected a string",
				     p, i, ynode_kind_name(k->kind));
		else if (strlen(k->str) != k->len)
			rc = err_set(e, "%s: header key %zu contains a NUL byte", p, i);
		else if (!strcmp(k->str, "__metadata__"))
			rc = st_parse_meta(f, v, e);
		else
			rc = st_parse_tensor(f, &doc, k->str, v, base + 8 + n, avail - n, e);
	}
	if (!rc)
		rc = st_check_layout(f, base + 8 + n, e);
	if (!rc)
		rc = st_pair_scales(f, e);
	ydoc_free(&doc);
	return rc;
}

int st_map(struct st_file *f, const char *path, uint64_t min_size,
	   const char *too_short, struct err *e)
{
	struct stat sb;
	void *map = MAP_FAILED;
	int fd, er = 0;
	const char *why = NULL;

	memset(f, 0, sizeof *f);
	if ((fd = safefile_open_read(path, e)) < 0)
		return -1;
	if (fstat(fd, &sb))
		er = errno;
	else if ((uint64_t)sb.st_size < min_size)
		why = too_short;
	else if ((uint64_t)sb.st_size > SIZE_MAX)
		why = _("file too large to map");
	else if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE,
			     fd, 0)) == MAP_FAILED)
		er = errno;
	close(fd);
	if (er || why)
		return err_set(e, "%s: %s", path, why ? why : strerror(er));
	f->map = map;
	f->maplen = (size_t)sb.st_size;
	if (!(f->path = strdup(path))) {
		st_close(f);
		return err_set(e, "%s: out of memory", path);
	}
	return 0;
}

int st_open(struct st_file *f, const char *path, struct err *e)
{
	if (st_map(f, path, 8, _("file is too short for safetensors (need at least 8 bytes)"), e))
		return -1;
	if (st_parse(f, e)) {
		st_close(f);
		return -1;
	}
	return 0;
}

const struct st_tensor *st_find(const struct st_file *f, const char *name)
{
	for (int i = 0; f && i < f->n; i++)
		if (!strcmp(f->t[i].name, name))
			return &f->t[i];
	return NULL;
}

const char *st_meta(const struct st_file *f, const char *key)
{
	for (int i = 0; f && i < f->nmeta; i++)
		if (!strcmp(f->meta_keys[i], key))
			return f->meta_vals[i];
	return NULL;
}

/* ---- conversion ---- */

static float st_f16(unsigned h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 0x1f,
		 man = h & 0x3ff, bits;
	float v;
	if (ex == 0) {                    /* zero or subnormal: man * 2^-24 */
		v = ldexpf((float)man, -24);
		return sign ? -v : v;
	}
	if (ex == 31)                     /* inf, or nan keeping its payload */
		bits = sign | 0x7f800000u | man << 13;
	else
		bits = sign | (ex + 112) << 23 | man << 13;
	memcpy(&v, &bits, sizeof v);
	return v;
}

uint16_t st_f16_from_f32(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof x);
	uint32_t sign = (x >> 16) & 0x8000u, ex = (x >> 23) & 0xffu, man = x & 0x7fffffu;
	if (ex == 0xff)                   /* inf, or a quiet nan */
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | man >> 13 : 0));
	int he = (int)ex - 112;           /* the half's biased exponent */
	if (he >= 31)
		return (uint16_t)(sign | 0x7c00u);
	uint32_t h, rem, half;
	if (he <= 0) {                    /* subnormal half: m · 2^-24 */
		int shift = 14 - he;
		if (ex == 0 || shift > 24)
			return (uint16_t)sign;
		man |= 0x800000u;
		h = man >> shift;
		rem = man & ((1u << shift) - 1);
		half = 1u << (shift - 1);
	} else {
		h = (uint32_t)he << 10 | man >> 13;
		rem = man & 0x1fffu;
		half = 0x1000u;
	}
	if (rem > half || (rem == half && (h & 1)))
		h++;                      /* a carry into the exponent is right */
	return (uint16_t)(sign | h);
}

/* Element i of a float array of dtype d at b, as F32. */
static float st_float_at(enum st_dtype d, const unsigned char *b, uint64_t i)
{
	uint32_t bits;
	uint64_t w;
	double v;
	float x;
	switch (d) {
	case ST_F32:
		memcpy(&x, b + 4 * i, sizeof x);
		return x;
	case ST_F16:
		return st_f16(b[2 * i] | (unsigned)b[2 * i + 1] << 8);
	case ST_BF16:
		bits = ((uint32_t)b[2 * i] | (uint32_t)b[2 * i + 1] << 8) << 16;
		memcpy(&x, &bits, sizeof x);
		return x;
	default: /* ST_F64, rounded to nearest; from FLT_MAX + ulp/2 up: inf */
		w = st_le64(b + 8 * i);
		memcpy(&v, &w, sizeof v);
		return fabs(v) < 0x1.ffffffp127 || isnan(v) ? (float)v :
		       v > 0 ? INFINITY : -INFINITY;
	}
}

int st_to_f32(const struct st_tensor *t, float *out, struct err *e)
{
	char nb[ST_SHOW];
	const unsigned char *b = t->bytes;
	unsigned size = st_dtype_size(t->dtype);
	uint64_t need;
	const char *nm = st_show(t->name ? t->name : "?", nb, sizeof nb);

	if (t->dtype == ST_I8 && !t->scale)
		return err_set(e, "tensor \"%s\" is I8 without its scales (a float tensor "
			       "\"%s_scale\")", nm, nm);
	if (!st_is_float(t->dtype) && t->dtype != ST_I8)
		return err_set(e, "unsupported dtype %s for tensor \"%s\" (expected F32, F16, BF16 or F64)",
			       t->dtype_str[0] ? t->dtype_str : st_dtype_name(t->dtype), nm);
	if (__builtin_mul_overflow(t->numel, (uint64_t)size, &need) || need != t->nbytes)
		return err_set(e, "tensor \"%s\": %" PRIu64 " bytes do not hold %" PRIu64
			       " %s values", nm, t->nbytes, t->numel, st_dtype_name(t->dtype));
	switch (t->dtype) {
	case ST_F32:
		if (t->nbytes)
			memcpy(out, b, (size_t)t->nbytes);
		break;
	case ST_I8: { /* one scale, or one a row (nscale rows of numel/nscale) */
		uint64_t cols = t->nscale > 1 ? t->numel / t->nscale : t->numel;
		for (uint64_t r = 0, i = 0; i < t->numel; r++) {
			float sc = st_float_at(t->scale_dtype, t->scale, t->nscale > 1 ? r : 0);
			for (uint64_t c = 0; c < cols; c++, i++)
				out[i] = (float)(int8_t)b[i] * sc;
		}
		break;
	}
	default:   /* F16, BF16, F64 */
		for (uint64_t i = 0; i < t->numel; i++)
			out[i] = st_float_at(t->dtype, b, i);
		break;
	}
	return 0;
}

int st_is_f32_inplace(const struct st_tensor *t)
{
	return t->dtype == ST_F32 && !t->owned &&
	       (uintptr_t)t->bytes % _Alignof(float) == 0;
}
