/* test_gguf.c - the GGUF reader on files built in memory, the typed
 * getters, and the un-permutation of llama's Q/K rows on hand-derived
 * cases. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "engine/gguf_map.h"
#include "formats/gguf.h"
#include "formats/quant.h"

/* a little-endian byte buffer */
struct buf {
	unsigned char b[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void str(struct buf *b, const char *s)
{
	u64(b, strlen(s));
	put(b, s, strlen(s));
}

static void header(struct buf *b, uint64_t nt, uint64_t nkv)
{
	b->n = 0;
	put(b, "GGUF", 4);
	u32(b, 3);
	u64(b, nt);
	u64(b, nkv);
}

static int opens(struct buf *b, struct gguf_file *f, struct err *e)
{
	return gguf_open_buffer(f, b->b, b->n, "mem.gguf", e) == 0;
}

static void test_metadata(void)
{
	struct buf b;
	struct gguf_file f;
	struct err e;
	header(&b, 0, 5);
	str(&b, "a.u32"); u32(&b, GGUF_U32); u32(&b, 7);
	str(&b, "a.i8"); u32(&b, GGUF_I8); put(&b, "\xfe", 1);
	str(&b, "a.f64"); u32(&b, GGUF_F64); { double d = 0.5; put(&b, &d, 8); }
	/* an array of two arrays of u16 */
	str(&b, "a.nested"); u32(&b, GGUF_ARRAY); u32(&b, GGUF_ARRAY); u64(&b, 2);
	u32(&b, GGUF_U16); u64(&b, 1); put(&b, "\x01\x00", 2);
	u32(&b, GGUF_U16); u64(&b, 0);
	str(&b, "a.strs"); u32(&b, GGUF_ARRAY); u32(&b, GGUF_STRING); u64(&b, 2);
	str(&b, "x"); str(&b, "yz");
	if (!tap_ok(opens(&b, &f, &e), "metadata of every kind opens"))
		printf("# %s\n", e.msg);
	uint32_t u = 0;
	int32_t i = 0;
	float x = 0;
	tap_ok(gguf_get_u32(&f, "a.u32", &u, &e) == 1 && u == 7, "u32");
	tap_ok(gguf_get_i32(&f, "a.i8", &i, &e) == 1 && i == -2, "an i8 read as i32");
	tap_ok(gguf_get_u32(&f, "a.i8", &u, &e) == -1, "a negative value refused as u32: %s",
	       e.msg);
	tap_ok(gguf_get_f32(&f, "a.f64", &x, &e) == 1 && x == 0.5f, "f64 read as f32");
	tap_ok(gguf_get_u32(&f, "absent", &u, &e) == 0, "an absent key");
	struct gguf_str *s = NULL;
	uint64_t n = 0;
	tap_ok(gguf_get_strs(&f, "a.strs", &s, &n, &e) == 1 && n == 2 && s[1].len == 2 &&
	       !memcmp(s[1].s, "yz", 2), "an array of strings");
	free(s);
	tap_ok(gguf_get_strs(&f, "a.nested", &s, &n, &e) == -1, "nested arrays are not strings: %s",
	       e.msg);
	gguf_close(&f);
}

static void test_refused(void)
{
	struct buf b;
	struct gguf_file f;
	struct err e;
	header(&b, 0, 2);
	str(&b, "k"); u32(&b, GGUF_U8); put(&b, "\x01", 1);
	str(&b, "k"); u32(&b, GGUF_U8); put(&b, "\x02", 1);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "duplicated metadata key \"k\""), "%s", e.msg);
	header(&b, 1ull << 40, 0);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "tensor count"), "%s", e.msg);
	header(&b, 0, 1);
	u64(&b, 1ull << 40);
	u64(&b, 0);
	u64(&b, 0);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "longer than"), "%s", e.msg);
	header(&b, 0, 1);
	str(&b, "k"); u32(&b, 13); put(&b, "\x01", 1);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "unknown value type 13"), "%s", e.msg);
	header(&b, 1, 0);
	str(&b, "t"); u32(&b, 1); u64(&b, 32); u32(&b, 4); u64(&b, 0);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "unknown type id 4"), "%s", e.msg);
	header(&b, 1, 0);
	str(&b, "t"); u32(&b, 5); u64(&b, 1); u64(&b, 1); u64(&b, 1); u64(&b, 1); u64(&b, 1);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "5 dimensions"), "%s", e.msg);
	header(&b, 1, 0);
	str(&b, "t"); u32(&b, 2); u64(&b, 1ull << 62); u64(&b, 1ull << 62); u32(&b, 0);
	u64(&b, 0);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "overflow"), "%s", e.msg);
	header(&b, 1, 0);
	str(&b, "t"); u32(&b, 1); u64(&b, 33); u32(&b, QUANT_Q4_0); u64(&b, 0);
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "whole blocks"), "%s", e.msg);
	header(&b, 2, 0);   /* two tensors, data past the end and overlapping */
	str(&b, "t"); u32(&b, 1); u64(&b, 8); u32(&b, 0); u64(&b, 0);
	str(&b, "u"); u32(&b, 1); u64(&b, 8); u32(&b, 0); u64(&b, 0);
	while (b.n % 32)
		put(&b, "", 1);
	b.n += 32;
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "overlap"), "%s", e.msg);
	b.n -= 8;
	tap_ok(!opens(&b, &f, &e) && strstr(e.msg, "past the end"), "%s", e.msg);
}

static void test_unpermute(void)
{
	/* two heads of 4 rows (one column): llama.cpp's permute puts HF rows
	   0 2 1 3 | 4 6 5 7 at GGUF rows 0..7 */
	float d[8] = { 0, 2, 1, 3, 4, 6, 5, 7 }, tmp[8];
	gguf_unpermute_rows(d, tmp, 8, 1, 2);
	int good = 1;
	for (int i = 0; i < 8; i++)
		good &= d[i] == (float)i;
	tap_ok(good, "un-permuted two heads of 4 rows");
	/* one head of 6 rows, two columns: HF rows 0 3 1 4 2 5 */
	float e[12] = { 0, 10, 3, 13, 1, 11, 4, 14, 2, 12, 5, 15 }, t2[12];
	gguf_unpermute_rows(e, t2, 6, 2, 1);
	good = 1;
	for (int i = 0; i < 6; i++)
		good &= e[2 * i] == (float)i && e[2 * i + 1] == (float)(10 + i);
	tap_ok(good, "un-permuted one head of 6 rows of 2 columns");
}

static void test_f16(void)
{
	tap_ok(quant_f16(0x3c00) == 1.0f && quant_f16(0xc000) == -2.0f, "halves 1 and -2");
	tap_ok(quant_f16(0x0001) == 0x1p-24f && quant_f16(0x03ff) == 0x3ffp-24f,
	       "subnormal halves");
	tap_ok(quant_f16(0x7bff) == 65504.0f && isinf(quant_f16(0x7c00)), "65504 and inf");
	float nan = quant_f16(0x7c01);   /* a signalling NaN half, payload 1 */
	uint32_t bits;
	memcpy(&bits, &nan, 4);
	tap_ok(bits == 0x7fc02000u, "a signalling NaN half becomes quiet with its payload "
	       "(0x%08x)", (unsigned)bits);
}

int main(void)
{
	test_metadata();
	test_refused();
	test_unpermute();
	test_f16();
	return tap_done();
}
