/* gguf_get.c - typed getters for GGUF metadata (gguf.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"
#include "base/i18n.h"

/* An integer value of type t at p, widened: *neg set for a negative one,
 * *mag its magnitude.  Returns -1 when t is not an integer type. */
static int int_at(enum gguf_vtype t, const unsigned char *p, int *neg, uint64_t *mag)
{
	int64_t s;
	uint64_t u;
	int8_t s8; int16_t s16; int32_t s32; uint16_t u16; uint32_t u32;
	switch (t) {
	case GGUF_U8: u = p[0]; goto unsig;
	case GGUF_U16: memcpy(&u16, p, 2); u = u16; goto unsig;
	case GGUF_U32: memcpy(&u32, p, 4); u = u32; goto unsig;
	case GGUF_U64: memcpy(&u, p, 8); goto unsig;
	case GGUF_I8: memcpy(&s8, p, 1); s = s8; break;
	case GGUF_I16: memcpy(&s16, p, 2); s = s16; break;
	case GGUF_I32: memcpy(&s32, p, 4); s = s32; break;
	case GGUF_I64: memcpy(&s, p, 8); break;
	default: return -1;
	}
	*neg = s < 0;
	*mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
	return 0;
unsig:
	*neg = 0;
	*mag = u;
	return 0;
}

static int wrong(const struct gguf_file *f, const struct gguf_kv *kv, const char *want,
		 struct err *e)
{
	/* TRANSLATORS: the types are GGUF's (u32, string, array, ...) */
	return err_set(e, _("%s: metadata %s is of type %s, expected %s"), f->path, kv->key,
		       gguf_vtype_name(kv->type), want);
}

static int range(const struct gguf_file *f, const struct gguf_kv *kv, const char *want,
		 struct err *e)
{
	return err_set(e, _("%s: metadata %s is out of range for %s"), f->path, kv->key, want);
}

/* An integer in [lo, hi] (lo <= 0). */
static int get_int(const struct gguf_file *f, const char *key, int64_t lo, uint64_t hi,
		   const char *want, int *neg, uint64_t *mag, struct err *e)
{
	const struct gguf_kv *kv = gguf_find(f, key);
	if (!kv)
		return 0;
	if (int_at(kv->type, kv->val, neg, mag))
		return wrong(f, kv, want, e);
	if ((*neg && *mag > (uint64_t)0 - (uint64_t)lo) || (!*neg && *mag > hi))
		return range(f, kv, want, e);
	return 1;
}

int gguf_get_u32(const struct gguf_file *f, const char *key, uint32_t *v, struct err *e)
{
	int neg, r;
	uint64_t mag;
	if ((r = get_int(f, key, 0, UINT32_MAX, "u32", &neg, &mag, e)) == 1)
		*v = (uint32_t)mag;
	return r;
}

int gguf_get_i32(const struct gguf_file *f, const char *key, int32_t *v, struct err *e)
{
	int neg, r;
	uint64_t mag;
	if ((r = get_int(f, key, INT32_MIN, INT32_MAX, "i32", &neg, &mag, e)) == 1)
		*v = neg ? (int32_t)(-(int64_t)mag) : (int32_t)mag;
	return r;
}

int gguf_get_u64(const struct gguf_file *f, const char *key, uint64_t *v, struct err *e)
{
	int neg, r;
	uint64_t mag;
	if ((r = get_int(f, key, 0, UINT64_MAX, "u64", &neg, &mag, e)) == 1)
		*v = mag;
	return r;
}

int gguf_get_f32(const struct gguf_file *f, const char *key, float *v, struct err *e)
{
	const struct gguf_kv *kv = gguf_find(f, key);
	int neg;
	uint64_t mag;
	double d;
	if (!kv)
		return 0;
	if (kv->type == GGUF_F32) {
		memcpy(v, kv->val, 4);
	} else if (kv->type == GGUF_F64) {
		memcpy(&d, kv->val, 8);
		*v = (float)d;
	} else if (!int_at(kv->type, kv->val, &neg, &mag)) {
		*v = neg ? -(float)mag : (float)mag;
	} else {
		return wrong(f, kv, "f32", e);
	}
	return 1;
}

int gguf_get_bool(const struct gguf_file *f, const char *key, int *v, struct err *e)
{
	const struct gguf_kv *kv = gguf_find(f, key);
	if (!kv)
		return 0;
	if (kv->type != GGUF_BOOL)
		return wrong(f, kv, "bool", e);
	*v = kv->val[0] != 0;
	return 1;
}

int gguf_get_str(const struct gguf_file *f, const char *key, struct gguf_str *v, struct err *e)
{
	const struct gguf_kv *kv = gguf_find(f, key);
	if (!kv)
		return 0;
	if (kv->type != GGUF_STRING)
		return wrong(f, kv, "string", e);
	memcpy(&v->len, kv->val, 8);
	v->s = (const char *)kv->val + 8;
	return 1;
}

int gguf_get_cstr(const struct gguf_file *f, const char *key, char *buf, size_t cap,
		  struct err *e)
{
	struct gguf_str s = { NULL, 0 };
	int r = gguf_get_str(f, key, &s, e);
	if (r != 1)
		return r;
	if (s.len >= cap || memchr(s.s, 0, (size_t)s.len))
		return err_set(e, _("%s: metadata %s: a string of %" PRIu64 " bytes, expected at "
				    "most %zu and no NUL"), f->path, key, s.len, cap ? cap - 1 : 0);
	memcpy(buf, s.s, (size_t)s.len);
	buf[s.len] = 0;
	return 1;
}

/* An array whose elements pass ok(); its kv in *kv. */
static int get_arr(const struct gguf_file *f, const char *key, const struct gguf_kv **kv,
		   int (*ok)(enum gguf_vtype), const char *want, struct err *e)
{
	*kv = gguf_find(f, key);
	if (!*kv)
		return 0;
	if ((*kv)->type != GGUF_ARRAY || !ok((*kv)->elem)) {
		if ((*kv)->type != GGUF_ARRAY)
			return wrong(f, *kv, want, e);
		return err_set(e, _("%s: metadata %s is an array of %s, expected %s"), f->path,
			       key, gguf_vtype_name((*kv)->elem), want);
	}
	return 1;
}

static int is_str(enum gguf_vtype t) { return t == GGUF_STRING; }
static int is_float(enum gguf_vtype t) { return t == GGUF_F32 || t == GGUF_F64; }
static int is_int(enum gguf_vtype t)
{
	return t <= GGUF_I32 ? t != GGUF_F32 : t == GGUF_U64 || t == GGUF_I64;
}

static void *alloc_n(const struct gguf_file *f, uint64_t n, size_t size, struct err *e)
{
	/* n was checked against the file when it was read: n * size fits */
	void *p = malloc((size_t)(n ? n : 1) * size);
	if (!p)
		err_set(e, _("%s: out of memory"), f->path);
	return p;
}

int gguf_get_strs(const struct gguf_file *f, const char *key, struct gguf_str **out,
		  uint64_t *n, struct err *e)
{
	const struct gguf_kv *kv;
	int r = get_arr(f, key, &kv, is_str, _("an array of strings"), e);
	if (r != 1)
		return r;
	struct gguf_str *s = alloc_n(f, kv->n, sizeof *s, e);
	if (!s)
		return -1;
	const unsigned char *p = kv->val;
	for (uint64_t i = 0; i < kv->n; i++) {   /* lengths checked by gguf_open */
		memcpy(&s[i].len, p, 8);
		s[i].s = (const char *)p + 8;
		p += 8 + s[i].len;
	}
	*out = s;
	*n = kv->n;
	return 1;
}

int gguf_get_floats(const struct gguf_file *f, const char *key, float **out, uint64_t *n,
		    struct err *e)
{
	const struct gguf_kv *kv;
	int r = get_arr(f, key, &kv, is_float, _("an array of floats"), e);
	if (r != 1)
		return r;
	float *v = alloc_n(f, kv->n, sizeof *v, e);
	if (!v)
		return -1;
	for (uint64_t i = 0; i < kv->n; i++) {
		if (kv->elem == GGUF_F32) {
			memcpy(&v[i], kv->val + 4 * i, 4);
		} else {
			double d;
			memcpy(&d, kv->val + 8 * i, 8);
			v[i] = (float)d;
		}
	}
	*out = v;
	*n = kv->n;
	return 1;
}

int gguf_get_ints(const struct gguf_file *f, const char *key, int32_t **out, uint64_t *n,
		  struct err *e)
{
	static const unsigned size[GGUF_NVTYPES] = {
		[GGUF_U8] = 1, [GGUF_I8] = 1, [GGUF_U16] = 2, [GGUF_I16] = 2, [GGUF_U32] = 4,
		[GGUF_I32] = 4, [GGUF_U64] = 8, [GGUF_I64] = 8,
	};
	const struct gguf_kv *kv;
	int r = get_arr(f, key, &kv, is_int, _("an array of integers"), e);
	if (r != 1)
		return r;
	int32_t *v = alloc_n(f, kv->n, sizeof *v, e);
	if (!v)
		return -1;
	for (uint64_t i = 0; i < kv->n; i++) {
		int neg;
		uint64_t mag;
		int_at(kv->elem, kv->val + size[kv->elem] * i, &neg, &mag);
		if (mag > (neg ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX)) {
			free(v);
			return err_set(e, _("%s: metadata %s: element %" PRIu64 " is out of range "
					    "for i32"), f->path, key, i);
		}
		v[i] = neg ? (int32_t)(-(int64_t)mag) : (int32_t)mag;
	}
	*out = v;
	*n = kv->n;
	return 1;
}
