/* test_safetensors.c - safetensors reader, writer and hostile files.
 *
 * Files are built in a fresh directory under /tmp: writer round trips, a
 * hand-built file with F16/BF16/F64 values whose F32 images are known
 * exactly, and one file per way a header can lie.  Every hostile file must
 * give -1 with a one-line message naming the path and the problem. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/safetensors.h"
#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "../tmpfiles.h"

static void die(const char *what, const char *path)
{
	printf("Bail out! %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* Writes the 8-byte length field hlen, then hdr (padded with spaces so
 * that 8 + header is a multiple of 8 when pad8), then data. */
static void put_file(const char *path, uint64_t hlen, const char *hdr, int pad8,
		     const void *data, size_t dlen)
{
	FILE *fp = fopen(path, "wb");
	size_t len = strlen(hdr), pad = pad8 ? (8 - len % 8) % 8 : 0;
	unsigned char l8[8];
	if (hlen == UINT64_MAX)
		hlen = len + pad;
	for (int i = 0; i < 8; i++)
		l8[i] = (unsigned char)(hlen >> 8 * i);
	if (!fp)
		die("cannot create", path);
	fwrite(l8, 1, 8, fp);
	fwrite(hdr, 1, len, fp);
	for (size_t i = 0; i < pad; i++)
		putc(' ', fp);
	if (dlen)
		fwrite(data, 1, dlen, fp);
	if (fclose(fp))
		die("cannot write", path);
}

static void put_st(const char *path, const char *hdr, size_t dlen)
{
	static const unsigned char zeros[64];
	put_file(path, UINT64_MAX, hdr, 1, zeros, dlen);
}

/* st_open must fail with a one-line message containing the path and word,
 * and leave a struct that st_close accepts (twice). */
static void expect_fail(const char *path, const char *word, const char *what)
{
	struct st_file f;
	struct err e = { "" };
	memset(&f, 0xa5, sizeof f);
	int rc = st_open(&f, path, &e);
	int zeroed = rc == -1 && !f.map && !f.t && !f.n && !f.path && !f.nmeta;
	tap_ok(rc == -1 && zeroed && !strchr(e.msg, '\n'),
	       "%s: refused, struct zeroed, one line", what);
	printf("# %s\n", e.msg);
	if (rc == 0 || zeroed) {
		st_close(&f);
		st_close(&f);
	}
	tap_contains(e.msg, path, "  message names the path");
	tap_contains(e.msg, word, "  message says what is wrong");
}

static void hostile_header(const char *name, const char *hdr, size_t dlen,
			   const char *word)
{
	const char *p = tpath(name);
	put_st(p, hdr, dlen);
	expect_fail(p, word, name);
}

#define T(dt, shape, b, e) "{\"dtype\":\"" dt "\",\"shape\":" shape \
	",\"data_offsets\":[" #b "," #e "]}"

static void test_hostile(void)
{
	const char *p;
	static const unsigned char five[5] = { 1, 0, 0, 0, 0 };

	p = tpath("short.st");
	FILE *fp = fopen(p, "wb");
	if (!fp || fclose(fp))
		die("cannot create", p);
	expect_fail(p, "too short", "empty file");
	fp = fopen(p, "wb");
	if (!fp || fwrite(five, 1, 5, fp) != 5 || fclose(fp))
		die("cannot write", p);
	expect_fail(p, "too short", "5-byte file");

	p = tpath("huge_hlen.st");
	put_file(p, UINT64_C(1) << 63, "{}", 0, NULL, 0);
	expect_fail(p, "header length 9223372036854775808", "header length 2^63");
	p = tpath("long_hlen.st");
	put_file(p, 100, "{\"__metadata__\":{}}", 0, NULL, 0);
	expect_fail(p, "header length 100 is larger than the 19 bytes",
		    "header length beyond the file");
	p = tpath("zero_hlen.st");
	put_file(p, 0, "{}      ", 0, NULL, 0);
	expect_fail(p, "header length is 0", "header length 0");
	p = tpath("big_hlen.st");
	put_file(p, 101000000, "{}", 0, NULL, 0);
	if (truncate(p, 8 + 101000000))      /* sparse: costs no disk */
		die("cannot extend", p);
	expect_fail(p, "exceeds the limit", "header length over 100 MB");

	hostile_header("not_json.st", "hello world", 0, "not a JSON object");
	hostile_header("array.st", "[1, 2, 3]", 0, "not a JSON object");
	hostile_header("broken.st", "{\"a\": [1, 2", 0, ": header:");
	hostile_header("spaces.st", "        ", 0, "not a JSON object");
	hostile_header("alias.st", "{\"a\": &x " T("F32", "[1]", 0, 4) ", \"b\": *x}",
		       4, "alias");
	char deep[300];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	deep[200] = 0;
	hostile_header("deep.st", deep, 0, "nested deeper");

	hostile_header("past_end.st", "{\"a\":" T("F32", "[4]", 0, 16) "}", 8,
		       "past the end");
	hostile_header("one_gb.st", "{\"a\":" T("F32", "[268435456]", 0, 1073741824) "}",
		       8, "past the end");
	hostile_header("backwards.st", "{\"a\":" T("F32", "[2]", 8, 0) "}", 8,
		       "begin is after end");
	hostile_header("overlap.st", "{\"a\":" T("F32", "[2]", 0, 8) ",\"b\":"
		       T("F32", "[2]", 4, 12) "}", 12, "overlap");
	hostile_header("overlap2.st", "{\"b\":" T("F32", "[4]", 0, 16) ",\"a\":"
		       T("F32", "[1]", 4, 8) ",\"c\":" T("F32", "[0]", 16, 16) "}", 16,
		       "overlap");
	hostile_header("numel_overflow.st", "{\"a\":" T("F32",
		       "[4294967296,4294967296,2]", 0, 0) "}", 0, "overflows");
	hostile_header("bytes_overflow.st", "{\"a\":" T("F32",
		       "[4611686018427387904]", 0, 0) "}", 0, "overflows");
	hostile_header("u64_overflow.st", "{\"a\":" T("F32",
		       "[18446744073709551616]", 0, 0) "}", 0, "shape[0]");
	hostile_header("mismatch.st", "{\"a\":" T("F32", "[3]", 0, 8) "}", 8,
		       "needs 12 bytes but data_offsets span 8");
	hostile_header("mismatch16.st", "{\"a\":" T("F16", "[2,2]", 0, 16) "}", 16,
		       "F16 [2, 2] needs 8 bytes");
	hostile_header("ndim.st", "{\"a\":" T("F32", "[1,1,1,1,1,1,1,1,1]", 0, 4) "}",
		       4, "9 dimensions");
	hostile_header("dup.st", "{\"a\":" T("F32", "[1]", 0, 4) ",\"a\":"
		       T("F32", "[1]", 4, 8) "}", 8, "duplicate tensor name \"a\"");
	hostile_header("no_dtype.st", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}",
		       4, "missing \"dtype\"");
	hostile_header("no_shape.st", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}",
		       4, "missing \"shape\"");
	hostile_header("no_offsets.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4,
		       "missing \"data_offsets\"");
	hostile_header("dtype_map.st", "{\"a\":{\"dtype\":{},\"shape\":[1],"
		       "\"data_offsets\":[0,4]}}", 4, "dtype is a mapping");
	hostile_header("unknown_dtype.st", "{\"a\":" T("Q7", "[1]", 0, 4) "}", 4,
		       "unknown dtype \"Q7\"");
	hostile_header("shape_str.st", "{\"a\":" T("F32", "\"1\"", 0, 4) "}", 4,
		       "shape is a scalar");
	hostile_header("shape_neg.st", "{\"a\":" T("F32", "[-1]", 0, 4) "}", 4,
		       "shape[0] is not an unsigned integer");
	hostile_header("shape_float.st", "{\"a\":" T("F32", "[1.5]", 0, 4) "}", 4,
		       "shape[0]");
	hostile_header("offsets3.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
		       "\"data_offsets\":[0,4,8]}}", 8, "data_offsets must be");
	hostile_header("offsets_str.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
		       "\"data_offsets\":[\"0\",\"4\"]}}", 4, "data_offsets must be");
	hostile_header("entry_num.st", "{\"a\": 5}", 0, "expected a JSON object");
	hostile_header("key_seq.st", "{[1]: 5}", 0, "expected a string as an object key");
	hostile_header("nul_name.st", "{\"a\\u0000b\":" T("F32", "[1]", 0, 4) "}", 4,
		       "NUL");
	hostile_header("meta_num.st", "{\"__metadata__\":{\"k\":1}}", 0,
		       "value of \"k\" is not a string");
	hostile_header("meta_obj.st", "{\"__metadata__\":{\"k\":{\"x\":\"y\"}}}", 0,
		       "not a string");
	hostile_header("meta_list.st", "{\"__metadata__\":[\"a\"]}", 0,
		       "\"__metadata__\" is a sequence");
	hostile_header("meta_twice.st", "{\"__metadata__\":{},\"__metadata__\":{}}", 0,
		       "duplicate \"__metadata__\"");

	p = tpath("no_such_file.st");
	expect_fail(p, strerror(ENOENT), "missing file");
	expect_fail(tmpdir, "not a regular file", "a directory");
}

/* Round trip through the writer, then header layout and escaping. */
static void test_writer_roundtrip(void)
{
	static const float a[6] = { 1.5f, -2.0f, 0.1f, 3e38f, -0.0f, 1e-42f };
	static const int32_t ids[4] = { 0, -1, INT32_MAX, INT32_MIN };
	static const double dd[2] = { 0.25, -1e300 };
	static const float s0 = 42.0f;
	const uint64_t sa[2] = { 2, 3 }, si[1] = { 4 }, sd[1] = { 2 };
	const char *odd_name = "enc.layers.0 \"q\\k\"\n\t\x01\x7f \xc3\xa9 \xf0\x9f\x98\x80"
			       " \xc2\x85 \xe2\x80\xa8";
	const char *odd_val = "quote\" back\\ nl\n cr\r del\x7f \xef\xbb\xbf end";
	const char *p = tpath("rt.safetensors");
	struct err e = { "" };
	struct st_writer *w = st_writer_new();

	tap_ok(w != NULL, "st_writer_new");
	tap_ok(!st_writer_add(w, "a", ST_F32, 2, sa, a) &&
	       !st_writer_add(w, "ids", ST_I32, 1, si, ids) &&
	       !st_writer_add(w, "scalar", ST_F32, 0, NULL, &s0) &&
	       !st_writer_add(w, "empty", ST_F32, 1, (const uint64_t[]){ 0 }, NULL) &&
	       !st_writer_add(w, "d", ST_F64, 1, sd, dd) &&
	       !st_writer_add(w, odd_name, ST_I32, 1, (const uint64_t[]){ 1 }, ids),
	       "st_writer_add x6");
	tap_ok(!st_writer_meta(w, "format", "pt") &&
	       !st_writer_meta(w, odd_name, odd_val), "st_writer_meta x2");
	tap_ok(st_writer_write(w, p, &e) == 0, "st_writer_write: %s", e.msg);
	/* write again over the existing file */
	tap_ok(st_writer_write(w, p, &e) == 0, "st_writer_write replaces: %s", e.msg);
	st_writer_free(w);
	tap_ok(access(tpath("rt.safetensors.tmp"), F_OK) != 0, "no .tmp left behind");

	unsigned char l8[8] = { 0 };
	FILE *fp = fopen(p, "rb");
	if (!fp || fread(l8, 1, 8, fp) != 8)
		die("cannot read", p);
	fclose(fp);
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | l8[i];
	tap_ok((8 + n) % 8 == 0, "header padded: 8 + %" PRIu64 " is a multiple of 8", n);

	struct st_file f;
	int rc = st_open(&f, p, &e);
	tap_ok(rc == 0, "st_open round trip: %s", rc ? e.msg : "ok");
	if (rc)
		return;
	tap_ok(f.n == 6, "6 tensors (got %d)", f.n);
	const struct st_tensor *t = st_find(&f, "a");
	tap_ok(t && t->dtype == ST_F32 && t->ndim == 2 && t->shape[0] == 2 &&
	       t->shape[1] == 3 && t->numel == 6 && t->nbytes == 24,
	       "F32 [2, 3] header read back");
	if (t) {
		float out[6];
		tap_ok(st_is_f32_inplace(t), "F32 usable in place");
		tap_ok(memcmp(t->bytes, a, sizeof a) == 0, "F32 bytes identical");
		tap_ok(st_to_f32(t, out, &e) == 0 && memcmp(out, a, sizeof a) == 0,
		       "st_to_f32 on F32 is exact (incl. -0 and subnormal)");
	}
	t = st_find(&f, "ids");
	tap_ok(t && t->dtype == ST_I32 && t->numel == 4 &&
	       memcmp(t->bytes, ids, sizeof ids) == 0, "I32 read back exactly");
	if (t) {
		float out[4];
		int r = st_to_f32(t, out, &e);
		tap_ok(r == -1, "st_to_f32 refuses I32");
		tap_contains(e.msg, "unsupported dtype I32 for tensor \"ids\"",
			     "  message names dtype and tensor");
	}
	t = st_find(&f, "scalar");
	tap_ok(t && t->ndim == 0 && t->numel == 1 && t->nbytes == 4 &&
	       memcmp(t->bytes, &s0, 4) == 0, "0-d tensor: shape [], 1 element");
	t = st_find(&f, "empty");
	tap_ok(t && t->ndim == 1 && t->numel == 0 && t->nbytes == 0,
	       "empty tensor: shape [0]");
	t = st_find(&f, "d");
	if (t) {
		float out[2];
		tap_ok(st_to_f32(t, out, &e) == 0 && out[0] == 0.25f && isinf(out[1]) &&
		       out[1] < 0, "F64 written and narrowed (-1e300 -> -inf)");
	} else {
		tap_ok(0, "F64 tensor found");
	}
	t = st_find(&f, odd_name);
	tap_ok(t && t->numel == 1 && memcmp(t->bytes, ids, 4) == 0,
	       "name with quotes, controls, C1, U+2028, emoji survives");
	tap_str(st_meta(&f, "format"), "pt", "metadata format = pt");
	tap_str(st_meta(&f, odd_name), odd_val, "escaped metadata survives");
	tap_ok(st_meta(&f, "nope") == NULL && st_find(&f, "nope") == NULL,
	       "absent name and key give NULL");
	st_close(&f);
	st_close(&f);
	tap_ok(f.map == NULL && f.n == 0, "st_close zeroes, and twice is safe");

	/* every truncation of a valid file is refused */
	struct stat sb;
	if (stat(p, &sb))
		die("cannot stat", p);
	fp = fopen(p, "rb");
	unsigned char *all = malloc((size_t)sb.st_size);
	if (!fp || !all || fread(all, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size)
		die("cannot read", p);
	fclose(fp);
	const char *q = tpath("trunc.st");
	int bad = 0;
	for (off_t len = 0; len < sb.st_size; len++) {
		fp = fopen(q, "wb");
		if (!fp || (len && fwrite(all, 1, (size_t)len, fp) != (size_t)len) || fclose(fp))
			die("cannot write", q);
		if (st_open(&f, q, &e) == 0 || !strstr(e.msg, q)) {
			if (!bad++)
				printf("# truncated to %lld: %s\n", (long long)len, e.msg);
			st_close(&f);
		}
	}
	tap_ok(!bad, "all %lld truncations refused with the path (%d accepted)",
	       (long long)sb.st_size, bad);

	/* random byte flips never crash and never expose bytes outside */
	uint32_t seed = 12345;
	int opened = 0, outside = 0;
	for (int it = 0; it < 1500; it++) {
		unsigned char *m = malloc((size_t)sb.st_size);
		if (!m)
			die("out of memory", "");
		memcpy(m, all, (size_t)sb.st_size);
		for (int k = 0; k < 1 + it % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % (size_t)(8 + n);
			seed = seed * 1103515245u + 12345u;
			m[at] = "{}[]\",:0123456789 aFI"[(seed >> 8) % 21];
		}
		fp = fopen(q, "wb");
		if (!fp || fwrite(m, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size ||
		    fclose(fp))
			die("cannot write", q);
		free(m);
		if (st_open(&f, q, &e) == 0) {
			const unsigned char *lo = (const unsigned char *)f.map + 8 + n,
					    *hi = (const unsigned char *)f.map + f.maplen;
			for (int i = 0; i < f.n; i++)
				outside += f.t[i].bytes < lo || f.t[i].nbytes >
					   (uint64_t)(hi - f.t[i].bytes);
			opened++;
			st_close(&f);
		}
	}
	tap_ok(!outside, "1500 mutated headers: %d opened, none out of bounds", opened);
	free(all);
}

/* Hand-built file with half, bfloat16, double, unaligned F32 and I8. */
static void test_conversions(void)
{
	static const uint16_t h16[] = { 0x3c00, 0xc100, 0x7bff, 0x0001, 0x03ff,
					0x0400, 0x7c00, 0xfc00, 0x8000, 0x3555,
					0x7e00 };
	static const uint16_t b16[] = { 0x3f80, 0xc020, 0x477f, 0x0001, 0x7f80,
					0x7f7f, 0xff80 };
	static const double f64[] = { 1.0, -2.5, 65504.0, 1e-40, 1e300, -INFINITY,
				      0.1, -0.0 };
	static const float f32[] = { 1.0f, -2.5f, 65504.0f };
	volatile double v1 = 1e-40, v2 = 0.1;
	const float want16[] = { 1.0f, -2.5f, 65504.0f, 0x1p-24f, 0x1.ff8p-15f,
				 0x1p-14f, INFINITY, -INFINITY, -0.0f,
				 0.333251953125f };
	const float wantb[] = { 1.0f, -2.5f, 65280.0f, 0x1p-133f, INFINITY,
				0x1.fep127f, -INFINITY };
	const float want64[] = { 1.0f, -2.5f, 65504.0f, (float)v1, INFINITY,
				 -INFINITY, (float)v2, -0.0f };
	unsigned char data[120] = { 0 };
	size_t o = 0;
	for (size_t i = 0; i < 11; i++, o += 2)
		data[o] = (unsigned char)h16[i], data[o + 1] = (unsigned char)(h16[i] >> 8);
	for (size_t i = 0; i < 7; i++, o += 2)
		data[o] = (unsigned char)b16[i], data[o + 1] = (unsigned char)(b16[i] >> 8);
	for (size_t i = 0; i < 8; i++, o += 8) {   /* at 36: not 8-aligned */
		uint64_t bits;
		memcpy(&bits, &f64[i], 8);
		for (int k = 0; k < 8; k++)
			data[o + (size_t)k] = (unsigned char)(bits >> 8 * k);
	}
	memcpy(data + 101, f32, sizeof f32);          /* odd offset; gap at 100 */
	data[113] = 0xff, data[114] = 7;               /* I8 */

	const char *p = tpath("conv.safetensors");
	put_file(p, UINT64_MAX, "{\n  \"h\": " T("F16", "[11]", 0, 22) ",\n"
		 "  \"b\": " T("BF16", "[7]", 22, 36) ",\n"
		 "  \"d\": " T("F64", "[2, 4]", 36, 100) ",\n"
		 "  \"f\": " T("F32", "[3]", 101, 113) ",\n"
		 "  \"i8\": " T("I8", "[2]", 113, 115) ",\n"
		 "  \"__metadata__\": {\"format\": \"pt\", \"note\": \"1\"}\n}", 1,
		 data, 115);
	struct st_file f;
	struct err e = { "" };
	int rc = st_open(&f, p, &e);
	tap_ok(rc == 0, "hand-built file opens: %s", rc ? e.msg : "ok");
	if (rc)
		return;
	float out[11];
	const struct st_tensor *t = st_find(&f, "h");
	tap_ok(t && st_to_f32(t, out, &e) == 0, "F16 converts");
	if (t) {
		tap_close(out, want16, 10, 0, "F16 exact: 1, -2.5, 65504, subnormals, inf");
		tap_ok(signbit(out[8]) && isnan(out[10]), "F16 -0 keeps its sign, nan is nan");
	}
	t = st_find(&f, "b");
	tap_ok(t && st_to_f32(t, out, &e) == 0, "BF16 converts");
	if (t)
		tap_close(out, wantb, 7, 0, "BF16 exact: 1, -2.5, 65280, subnormal, inf, max");
	t = st_find(&f, "d");
	tap_ok(t && t->ndim == 2 && st_to_f32(t, out, &e) == 0, "F64 [2, 4] converts");
	if (t) {
		tap_close(out, want64, 8, 0, "F64 narrowed exactly (1e300 -> inf)");
		tap_ok(signbit(out[7]), "F64 -0 keeps its sign");
	}
	t = st_find(&f, "f");
	tap_ok(t && !st_is_f32_inplace(t), "F32 at an odd address is not used in place");
	tap_ok(t && st_to_f32(t, out, &e) == 0, "unaligned F32 converts");
	if (t)
		tap_close(out, f32, 3, 0, "unaligned F32 copied exactly");
	t = st_find(&f, "i8");
	tap_ok(t && t->dtype == ST_I8 && !t->scale && t->bytes[0] == 0xff && t->bytes[1] == 7,
	       "I8 without i8_scale opens as I8 with its bytes, no scales");
	if (t) {
		tap_ok(st_to_f32(t, out, &e) == -1, "st_to_f32 refuses I8 without scales");
		tap_contains(e.msg, "\"i8\" is I8 without its scales",
			     "  message names the tensor and what is missing");
	}
	tap_str(st_meta(&f, "note"), "1", "quoted number in metadata is a string");
	st_close(&f);

	/* compact JSON exactly as the reference writer emits it */
	p = tpath("compact.safetensors");
	put_file(p, UINT64_MAX, "{\"__metadata__\":{\"format\":\"pt\"},\"w\":"
		 T("F32", "[3]", 0, 12) "}", 1, f32, sizeof f32);
	rc = st_open(&f, p, &e);
	tap_ok(rc == 0 && f.n == 1 && st_is_f32_inplace(&f.t[0]) &&
	       memcmp(f.t[0].bytes, f32, 12) == 0, "compact JSON header reads: %s",
	       rc ? e.msg : "ok");
	st_close(&f);
	p = tpath("empty.safetensors");
	put_file(p, UINT64_MAX, "{}", 1, NULL, 0);
	rc = st_open(&f, p, &e);
	tap_ok(rc == 0 && f.n == 0 && f.nmeta == 0, "\"{}\" is a file with no tensors");
	st_close(&f);
}

static void expect_write_fail(struct st_writer *w, const char *path,
			      const char *word, const char *what)
{
	struct err e = { "" };
	tap_ok(st_writer_write(w, path, &e) == -1, "%s: write fails", what);
	printf("# %s\n", e.msg);
	tap_contains(e.msg, path, "  message names the path");
	tap_contains(e.msg, word, "  message says what is wrong");
	st_writer_free(w);
}

static void test_writer_errors(void)
{
	static const float x[4] = { 1, 2, 3, 4 };
	const uint64_t s4[1] = { 4 }, s9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct st_writer *w = st_writer_new();
	st_writer_add(w, "a", ST_F32, 1, s4, x);
	tap_ok(st_writer_add(w, "a", ST_F32, 1, s4, x) == -1, "duplicate add refused");
	expect_write_fail(w, tpath("w_dup.st"), "duplicate tensor name \"a\"",
			  "duplicate name");
	w = st_writer_new();
	tap_ok(st_writer_add(w, "o", ST_OTHER, 1, s4, x) == -1, "ST_OTHER refused");
	expect_write_fail(w, tpath("w_other.st"), "unsupported dtype", "ST_OTHER");
	w = st_writer_new();
	tap_ok(st_writer_add(w, "n", ST_F32, 9, s9, x) == -1, "9 dims refused");
	expect_write_fail(w, tpath("w_ndim.st"), "dimensions", "9 dims");
	w = st_writer_new();
	tap_ok(st_writer_add(w, "bad\xff", ST_F32, 1, s4, x) == -1, "bad UTF-8 refused");
	expect_write_fail(w, tpath("w_utf8.st"), "UTF-8", "bad UTF-8");
	w = st_writer_new();
	tap_ok(st_writer_add(w, "__metadata__", ST_F32, 1, s4, x) == -1,
	       "__metadata__ as a tensor name refused");
	expect_write_fail(w, tpath("w_meta.st"), "reserved", "reserved name");
	w = st_writer_new();
	st_writer_add(w, "a", ST_F32, 1, s4, x);
	expect_write_fail(w, tpath("no/such/dir/x.st"), strerror(ENOENT),
			  "missing directory");

	/* a full disk, played by RLIMIT_FSIZE */
	static float big[4096];
	const uint64_t sb[1] = { 4096 };
	struct rlimit old, lim;
	if (getrlimit(RLIMIT_FSIZE, &old))
		die("getrlimit", "");
	lim = old;
	lim.rlim_cur = 1024;
	signal(SIGXFSZ, SIG_IGN);
	w = st_writer_new();
	st_writer_add(w, "big", ST_F32, 1, sb, big);
	const char *p = tpath("w_full.st");
	if (setrlimit(RLIMIT_FSIZE, &lim))
		die("setrlimit", "");
	expect_write_fail(w, p, strerror(EFBIG), "file size limit");
	if (setrlimit(RLIMIT_FSIZE, &old))
		die("setrlimit", "");
	tap_ok(access(p, F_OK) != 0 && access(tpath("w_full.st.tmp"), F_OK) != 0,
	       "failed write leaves neither file nor .tmp");
}


/* The header is strict JSON (RFC 8259), as PyTorch's safetensors reads it:
 * no YAML syntax, no repeated key in any object; surrogate-pair escapes
 * (Python's json.dumps writes U+1F600 as \ud83d\ude00) are accepted, a
 * lone surrogate is not. */
static void test_strict_json(void)
{
	const char *ent = "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";
	char h[512];
	static const struct { const char *name, *fmt, *word; } bad[] = {
		{ "dup-field.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"dtype\":\"F32\"}}",
		  "duplicate key \"dtype\"" },
		{ "dup-tensor.st", "{\"a\":%s,\"a\":%s}", "duplicate tensor name \"a\"" },
		{ "dup-escaped.st", "{\"a\":%s,\"\\u0061\":%s}", "duplicate tensor name \"a\"" },
		{ "dup-meta.st", "{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"},\"a\":%s}",
		  "duplicate key \"k\"" },
		/* keys that are all empty: nothing in the key arena (found by fuzzing) */
		{ "dup-empty.st", "{\"a\":{\"\":[2],\"\":[0,8]}}", "duplicate key \"\"" },
		{ "yaml-plain.st", "{a: {dtype: F32, shape: [2], data_offsets: [0, 8]}}",
		  "expected a string as an object key" },
		{ "yaml-single.st", "{'a':%s}", "expected a string as an object key" },
		{ "yaml-comment.st", "{\"a\":%s} # x", "text after the JSON value" },
		{ "trailing-comma.st", "{\"a\":%s,}", "expected a string as an object key" },
		{ "trailing-comma2.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,],\"data_offsets\":[0,8]}}",
		  "expected a JSON value" },
		{ "yaml-anchor.st", "{\"a\":&x {\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		  "anchors and aliases" },
		{ "dup-shape.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"shape\":[2],\"data_offsets\":[0,8]}}",
		  "duplicate key \"shape\"" },
		{ "lone-high.st", "{\"__metadata__\":{\"e\":\"\\ud83d\"},\"a\":%s}", "high surrogate" },
		{ "lone-low.st", "{\"__metadata__\":{\"e\":\"\\ude00x\"},\"a\":%s}", "lone low surrogate" },
		{ "high-high.st", "{\"__metadata__\":{\"e\":\"\\ud83d\\ud83d\"},\"a\":%s}", "high surrogate" },
		{ "bad-utf8.st", "{\"__metadata__\":{\"e\":\"\xc3\x28\"},\"a\":%s}", "invalid UTF-8" },
		{ "ctrl.st", "{\"__metadata__\":{\"e\":\"a\tb\"},\"a\":%s}", "control character" },
		{ "hex-num.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0x2],\"data_offsets\":[0,8]}}",
		  "expected , or ] in an array" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(h, sizeof h, bad[i].fmt, ent, ent);
#pragma GCC diagnostic pop
		hostile_header(bad[i].name, h, 8, bad[i].word);
	}
	/* 65 nested arrays in the metadata: refused before libyaml sees it */
	char deep[256] = "{\"__metadata__\":";
	for (int i = 0; i < 65; i++)
		strcat(deep, "[");
	for (int i = 0; i < 65; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	hostile_header("deep2.st", deep, 0, "nested deeper than 64");

	/* accepted: surrogate pairs decode to the code point, in metadata and in
	   a tensor name; \/ and the other escapes */
	const char *p = tpath("surrogates.st");
	snprintf(h, sizeof h, "{\"__metadata__\":{\"e\":\"\\ud83d\\ude00 \\u00e9\\/\\\\\"},"
		 "\"x\\uD83D\\uDE00\":%s}", ent);
	put_st(p, h, 8);
	struct st_file f;
	struct err e;
	int rc = st_open(&f, p, &e);
	tap_ok(rc == 0, "surrogate-pair escapes are accepted%s%s", rc ? ": " : "", rc ? e.msg : "");
	if (rc == 0) {
		tap_ok(f.nmeta == 1 && !strcmp(f.meta_vals[0], "\xf0\x9f\x98\x80 \xc3\xa9/\\"),
		       "  \\ud83d\\ude00 is U+1F600 in UTF-8 (and \\u00e9, \\/, \\\\ decode)");
		tap_ok(f.n == 1 && !strcmp(f.t[0].name, "x\xf0\x9f\x98\x80"),
		       "  a tensor name with a pair (upper-case hex) decodes too");
		st_close(&f);
	}
	/* escaped quotes before a pair: the rewrite's counting pass once
	   skipped the escaped character only when writing, so it sized the
	   copy short (fuzz_safetensors, ASan: heap-buffer-overflow) */
	p = tpath("quotes-then-pair.st");
	snprintf(h, sizeof h, "{\"__metadata__\":{\"q\":\"[\\\"a\\\",\\\"b\\\"] \\\\\",\"e\":\"\\ud83d\\ude00\"},"
		 "\"a\":%s}", ent);
	put_st(p, h, 8);
	rc = st_open(&f, p, &e);
	tap_ok(rc == 0 && f.nmeta == 2, "escaped quotes and a surrogate pair%s%s", rc ? ": " : "",
	       rc ? e.msg : "");
	if (rc == 0) {
		int qi = !strcmp(f.meta_keys[0], "q") ? 0 : 1;
		tap_ok(!strcmp(f.meta_vals[qi], "[\"a\",\"b\"] \\") &&
		       !strcmp(f.meta_vals[1 - qi], "\xf0\x9f\x98\x80"), "  both read back unchanged");
		st_close(&f);
	}
	/* raw DEL, U+0085 (NEL), U+2028 and a BOM are JSON that YAML refuses raw */
	p = tpath("raw-yaml-unsafe.st");
	snprintf(h, sizeof h, "{\"__metadata__\":{\"e\":\"a\x7f\xc2\x85\xe2\x80\xa8\xef\xbb\xbf\xf0\x9f\x98\x80\\ud83d\\ude00\"},"
		 "\"a\":%s}", ent);
	put_st(p, h, 8);
	rc = st_open(&f, p, &e);
	tap_ok(rc == 0, "raw DEL, NEL, U+2028 and BOM in a string are accepted%s%s", rc ? ": " : "",
	       rc ? e.msg : "");
	if (rc == 0) {
		tap_ok(f.nmeta == 1 && !strcmp(f.meta_vals[0], "a\x7f\xc2\x85\xe2\x80\xa8\xef\xbb\xbf"
					       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"),
		       "  and read back unchanged");
		st_close(&f);
	}
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
}

/* I8 NAME with float scales NAME_scale (one a row, or one): st_open pairs
 * them, drops NAME_scale from the list and st_to_f32 gives int8 x scale,
 * exactly (the products are exact in F32).  Counts that fit neither way
 * are refused. */
static void test_q8(void)
{
	/* w: I8 [3, 2] = {-127, 1, 2, -3, 0, 127}; per-row F32 scales
	   {0.5, 0.25, 2}; v: I8 [4] with one F16 scale 1.5 (0x3e00);
	   lone_scale: F32 [2] that scales no I8 tensor */
	unsigned char d[48] = { 0x81, 1, 2, 0xfd, 0, 127 };
	const float sw[3] = { 0.5f, 0.25f, 2.0f }, lone[2] = { 7, 8 };
	memcpy(d + 8, sw, sizeof sw);
	d[20] = 0xff, d[21] = 2, d[22] = 0x80 + 1, d[23] = 3;   /* -1, 2, -127, 3 */
	d[24] = 0x00, d[25] = 0x3e;
	memcpy(d + 28, lone, sizeof lone);
	const char *p = tpath("q8.safetensors");
	put_file(p, UINT64_MAX, "{\"w\":" T("I8", "[3, 2]", 0, 6) ","
		 "\"w_scale\":" T("F32", "[3, 1]", 8, 20) ","
		 "\"v\":" T("I8", "[4]", 20, 24) ","
		 "\"v_scale\":" T("F16", "[]", 24, 26) ","
		 "\"lone_scale\":" T("F32", "[2]", 28, 36) "}", 1, d, 36);
	struct st_file f;
	struct err e = { "" };
	int rc = st_open(&f, p, &e);
	tap_ok(rc == 0, "I8 with scales opens: %s", rc ? e.msg : "ok");
	if (rc)
		return;
	tap_ok(f.n == 3 && !st_find(&f, "w_scale") && !st_find(&f, "v_scale") &&
	       st_find(&f, "lone_scale"), "the paired scales leave the list, a lone one stays");
	float out[6];
	const float ww[6] = { -63.5f, 0.5f, 0.5f, -0.75f, 0.0f, 254.0f },
		    wv[4] = { -1.5f, 3.0f, -190.5f, 4.5f };
	const struct st_tensor *t = st_find(&f, "w");
	tap_ok(t && t->scale && t->nscale == 3 && st_to_f32(t, out, &e) == 0,
	       "I8 [3, 2] with [3, 1] scales converts");
	if (t)
		tap_close(out, ww, 6, 0, "each row times its scale, exactly");
	t = st_find(&f, "v");
	tap_ok(t && t->nscale == 1 && st_to_f32(t, out, &e) == 0,
	       "I8 [4] with one F16 scale converts");
	if (t)
		tap_close(out, wv, 4, 0, "every value times the one scale");
	st_close(&f);

	p = tpath("q8bad.safetensors");
	put_file(p, UINT64_MAX, "{\"w\":" T("I8", "[3, 2]", 0, 6) ","
		 "\"w_scale\":" T("F32", "[2]", 8, 16) "}", 1, d, 16);
	expect_fail(p, "2 scales for an I8 tensor of 3 rows", "scales fitting neither way");
	p = tpath("q8bad2.safetensors");
	put_file(p, UINT64_MAX, "{\"w\":" T("I8", "[3, 2]", 0, 6) ","
		 "\"w_scale\":" T("F32", "[1, 3]", 8, 20) "}", 1, d, 20);
	expect_fail(p, "shape [rows] or [rows, 1]", "scales [1, 3] for 3 rows");
}

int main(void)
{
	strcpy(tmpdir, "/tmp/test_safetensors.XXXXXX");
	if (!mkdtemp(tmpdir))
		die("mkdtemp", tmpdir);
	struct st_file z;
	memset(&z, 0, sizeof z);
	st_close(&z);
	st_close(NULL);
	tap_ok(1, "st_close on a zeroed struct and NULL");

	test_writer_roundtrip();
	test_conversions();
	test_q8();
	test_hostile();
	test_strict_json();
	test_writer_errors();
	cleanup();
	return tap_done();
}
