/* quant.c - ggml's block formats and their dequantisation to F32.
 *
 * Written from the block layouts of ggml-common.h; each dequantiser does
 * the float operations of ggml's reference dequantize_row_* in the same
 * order (a scale times an integer, then minus a min, each rounded to F32),
 * so the results agree bit for bit.  Blocks are read byte by byte from the
 * mapping (GGUF aligns tensors to 32 bytes, not blocks to their struct
 * alignment).  The inner loops are plain loops over 16 or 32 values, which
 * the compiler vectorises without changing any rounding. */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "quant.h"
#include "base/i18n.h"

/* a product followed by a sum stays two roundings, as in ggml's C (GCC
 * keeps them apart in ISO C mode, -std=c11; clang needs telling) */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define QK_K 256

struct qtype {
	const char *name;
	unsigned block, size;
};

/* ggml-common.h: sizeof(block_*) and the values each block holds */
static const struct qtype TYPES[QUANT_NTYPES] = {
	[QUANT_F32] = { "F32", 1, 4 },         [QUANT_F16] = { "F16", 1, 2 },
	[QUANT_Q4_0] = { "Q4_0", 32, 18 },     [QUANT_Q4_1] = { "Q4_1", 32, 20 },
	[QUANT_Q5_0] = { "Q5_0", 32, 22 },     [QUANT_Q5_1] = { "Q5_1", 32, 24 },
	[QUANT_Q8_0] = { "Q8_0", 32, 34 },     [QUANT_Q8_1] = { "Q8_1", 32, 36 },
	[QUANT_Q2_K] = { "Q2_K", QK_K, 84 },   [QUANT_Q3_K] = { "Q3_K", QK_K, 110 },
	[QUANT_Q4_K] = { "Q4_K", QK_K, 144 },  [QUANT_Q5_K] = { "Q5_K", QK_K, 176 },
	[QUANT_Q6_K] = { "Q6_K", QK_K, 210 },  [QUANT_Q8_K] = { "Q8_K", QK_K, 292 },
	[QUANT_IQ2_XXS] = { "IQ2_XXS", QK_K, 66 }, [QUANT_IQ2_XS] = { "IQ2_XS", QK_K, 74 },
	[QUANT_IQ3_XXS] = { "IQ3_XXS", QK_K, 98 }, [QUANT_IQ1_S] = { "IQ1_S", QK_K, 50 },
	[QUANT_IQ4_NL] = { "IQ4_NL", 32, 18 }, [QUANT_IQ3_S] = { "IQ3_S", QK_K, 110 },
	[QUANT_IQ2_S] = { "IQ2_S", QK_K, 82 }, [QUANT_IQ4_XS] = { "IQ4_XS", QK_K, 136 },
	[QUANT_I8] = { "I8", 1, 1 },           [QUANT_I16] = { "I16", 1, 2 },
	[QUANT_I32] = { "I32", 1, 4 },         [QUANT_I64] = { "I64", 1, 8 },
	[QUANT_F64] = { "F64", 1, 8 },         [QUANT_IQ1_M] = { "IQ1_M", QK_K, 56 },
	[QUANT_BF16] = { "BF16", 1, 2 },       [QUANT_TQ1_0] = { "TQ1_0", QK_K, 54 },
	[QUANT_TQ2_0] = { "TQ2_0", QK_K, 66 }, [QUANT_MXFP4] = { "MXFP4", 32, 17 },
};

int quant_known(uint32_t id)
{
	return id < QUANT_NTYPES && TYPES[id].name != NULL;
}

const char *quant_name(uint32_t id)
{
	return quant_known(id) ? TYPES[id].name : "?";
}

unsigned quant_block_size(uint32_t id)
{
	return quant_known(id) ? TYPES[id].block : 0;
}

unsigned quant_type_size(uint32_t id)
{
	return quant_known(id) ? TYPES[id].size : 0;
}

int quant_can_dequant(uint32_t id)
{
	switch (id) {
	case QUANT_F32: case QUANT_F16: case QUANT_BF16:
	case QUANT_Q4_0: case QUANT_Q4_1: case QUANT_Q5_0: case QUANT_Q5_1: case QUANT_Q8_0:
	case QUANT_Q2_K: case QUANT_Q3_K: case QUANT_Q4_K: case QUANT_Q5_K: case QUANT_Q6_K:
		return 1;
	default:
		return 0;
	}
}

int quant_row_bytes(uint32_t id, uint64_t n, uint64_t *nbytes)
{
	if (!quant_known(id) || n % TYPES[id].block)
		return -1;
	uint64_t blocks = n / TYPES[id].block;
	if (blocks > UINT64_MAX / TYPES[id].size)
		return -1;
	*nbytes = blocks * TYPES[id].size;
	return 0;
}

float quant_f16(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu;
	uint32_t bits;
	if (ex == 0x1f) {                 /* inf, or nan with its payload made
					     quiet, as ggml's conversions (F16C
					     or the float trick) make it */
		bits = sign | 0x7f800000u | man << 13 | (man ? 0x400000u : 0);
	} else if (ex) {
		bits = sign | (ex + 112) << 23 | man << 13;
	} else if (!man) {
		bits = sign;
	} else {                          /* subnormal: normalise */
		int e = 113;
		while (!(man & 0x400u)) {
			man <<= 1;
			e--;
		}
		bits = sign | (uint32_t)e << 23 | (man & 0x3ffu) << 13;
	}
	float v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

static inline uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline float half_at(const unsigned char *p)
{
	return quant_f16(le16(p));
}

/* ---- plain floats ---- */

static void deq_f32(const unsigned char *s, float *y, uint64_t n)
{
	memcpy(y, s, (size_t)n * sizeof *y);
}

/* F16 tensors convert through a table of all 65536 halves (256 KB, made
 * once): four times faster than quant_f16's branches on random halves. */
static float f16_table[1 << 16];
static pthread_once_t f16_once = PTHREAD_ONCE_INIT;

static void f16_fill(void)
{
	for (uint32_t h = 0; h < (1u << 16); h++)
		f16_table[h] = quant_f16((uint16_t)h);
}

static void deq_f16(const unsigned char *s, float *y, uint64_t n)
{
	pthread_once(&f16_once, f16_fill);
	for (uint64_t i = 0; i < n; i++)
		y[i] = f16_table[le16(s + 2 * i)];
}

static void deq_bf16(const unsigned char *s, float *y, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint32_t bits = (uint32_t)le16(s + 2 * i) << 16;
		memcpy(&y[i], &bits, sizeof bits);
	}
}

/* ---- blocks of 32: d (half) [m (half)] [qh (4 bytes)] qs (16 bytes) ---- */

static void deq_q4_0(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 18, y += 32) {
		const float d = half_at(b);
		const unsigned char *qs = b + 2;
		for (int j = 0; j < 16; j++) {
			y[j] = (float)((qs[j] & 0x0f) - 8) * d;
			y[j + 16] = (float)((qs[j] >> 4) - 8) * d;
		}
	}
}

static void deq_q4_1(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 20, y += 32) {
		const float d = half_at(b), m = half_at(b + 2);
		const unsigned char *qs = b + 4;
		for (int j = 0; j < 16; j++) {
			y[j] = (float)(qs[j] & 0x0f) * d + m;
			y[j + 16] = (float)(qs[j] >> 4) * d + m;
		}
	}
}

static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void deq_q5_0(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 22, y += 32) {
		const float d = half_at(b);
		const uint32_t qh = le32(b + 2);
		const unsigned char *qs = b + 6;
		for (int j = 0; j < 16; j++) {
			int h0 = (int)((qh >> j) << 4 & 0x10), h1 = (int)((qh >> (j + 12)) & 0x10);
			y[j] = (float)(((qs[j] & 0x0f) | h0) - 16) * d;
			y[j + 16] = (float)(((qs[j] >> 4) | h1) - 16) * d;
		}
	}
}

static void deq_q5_1(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 24, y += 32) {
		const float d = half_at(b), m = half_at(b + 2);
		const uint32_t qh = le32(b + 4);
		const unsigned char *qs = b + 8;
		for (int j = 0; j < 16; j++) {
			int h0 = (int)((qh >> j) << 4 & 0x10), h1 = (int)((qh >> (j + 12)) & 0x10);
			y[j] = (float)((qs[j] & 0x0f) | h0) * d + m;
			y[j + 16] = (float)((qs[j] >> 4) | h1) * d + m;
		}
	}
}

static void deq_q8_0(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 34, y += 32) {
		const float d = half_at(b);
		for (int j = 0; j < 32; j++)
			y[j] = (float)(int8_t)b[2 + j] * d;
	}
}

/* ---- super-blocks of 256 ---- */

/* Q2_K: scales[16] (4-bit scale | 4-bit min), qs[64], d, dmin */
static void deq_q2_k(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 84) {
		const unsigned char *sc = b, *q = b + 16;
		const float d = half_at(b + 80), min = half_at(b + 82);
		int is = 0;
		for (int n = 0; n < QK_K; n += 128, q += 32)
			for (int shift = 0; shift < 8; shift += 2)
				for (int half = 0; half < 2; half++, is++, y += 16) {
					const float dl = d * (float)(sc[is] & 0x0f);
					const float ml = min * (float)(sc[is] >> 4);
					for (int l = 0; l < 16; l++)
						y[l] = dl * (float)((q[l + 16 * half] >> shift) & 3) - ml;
				}
	}
}

/* Q3_K: hmask[32], qs[64], scales[12] (16 6-bit scales), d */
static void q3_scales(const unsigned char *s, int out[16])
{
	for (int j = 0; j < 16; j++) {
		int lo = j < 8 ? s[j] & 0x0f : s[j - 8] >> 4;
		int hi = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
		out[j] = (lo | hi << 4) - 32;
	}
}

static void deq_q3_k(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 110) {
		const unsigned char *hm = b, *q = b + 32;
		const float d = half_at(b + 108);
		int sc[16], is = 0;
		unsigned m = 1;
		q3_scales(b + 96, sc);
		for (int n = 0; n < QK_K; n += 128, q += 32)
			for (int shift = 0; shift < 8; shift += 2, m <<= 1)
				for (int half = 0; half < 2; half++, is++, y += 16) {
					const float dl = d * (float)sc[is];
					const int o = 16 * half;
					for (int l = 0; l < 16; l++) {
						int v = ((q[l + o] >> shift) & 3) - ((hm[l + o] & m) ? 0 : 4);
						y[l] = dl * (float)v;
					}
				}
	}
}

/* the 6-bit scale and min of sub-block j of Q4_K and Q5_K */
static void scale_min_k4(int j, const unsigned char *q, int *sc, int *mn)
{
	if (j < 4) {
		*sc = q[j] & 63;
		*mn = q[j + 4] & 63;
	} else {
		*sc = (q[j + 4] & 0x0f) | (q[j - 4] >> 6) << 4;
		*mn = (q[j + 4] >> 4) | (q[j] >> 6) << 4;
	}
}

/* Q4_K: d, dmin, scales[12], qs[128]; Q5_K adds qh[32] before qs */
static void deq_q45_k(const unsigned char *b, float *y, uint64_t nb, int five)
{
	const unsigned bsize = five ? 176 : 144;
	for (uint64_t i = 0; i < nb; i++, b += bsize) {
		const float d = half_at(b), min = half_at(b + 2);
		const unsigned char *scales = b + 4, *qh = b + 16;
		const unsigned char *ql = five ? b + 48 : b + 16;
		unsigned u1 = 1, u2 = 2;
		for (int j = 0, is = 0; j < QK_K; j += 64, is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
			int sc, mn;
			scale_min_k4(is, scales, &sc, &mn);
			const float d1 = d * (float)sc, m1 = min * (float)mn;
			scale_min_k4(is + 1, scales, &sc, &mn);
			const float d2 = d * (float)sc, m2 = min * (float)mn;
			for (int l = 0; l < 32; l++) {
				int h = five && (qh[l] & u1) ? 16 : 0;
				y[l] = d1 * (float)((ql[l] & 0x0f) + h) - m1;
			}
			for (int l = 0; l < 32; l++) {
				int h = five && (qh[l] & u2) ? 16 : 0;
				y[32 + l] = d2 * (float)((ql[l] >> 4) + h) - m2;
			}
			y += 64;
		}
	}
}

/* Q6_K: ql[128], qh[64], scales[16] (int8), d */
static void deq_q6_k(const unsigned char *b, float *y, uint64_t nb)
{
	for (uint64_t i = 0; i < nb; i++, b += 210) {
		const unsigned char *ql = b, *qh = b + 128;
		const int8_t *sc = (const int8_t *)(b + 192);
		const float d = half_at(b + 208);
		for (int n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
			for (int l = 0; l < 32; l++) {
				const int is = l / 16;
				int q1 = ((ql[l] & 0x0f) | ((qh[l] >> 0) & 3) << 4) - 32;
				int q2 = ((ql[l + 32] & 0x0f) | ((qh[l] >> 2) & 3) << 4) - 32;
				int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
				int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
				/* ggml: d * sc[is] * q, left to right */
				y[l] = d * (float)sc[is] * (float)q1;
				y[l + 32] = d * (float)sc[is + 2] * (float)q2;
				y[l + 64] = d * (float)sc[is + 4] * (float)q3;
				y[l + 96] = d * (float)sc[is + 6] * (float)q4;
			}
	}
}

int quant_dequant(uint32_t id, const void *src, float *dst, uint64_t n, struct err *e)
{
	uint64_t nbytes;
	if (!quant_can_dequant(id))
		return err_set(e, _("cannot convert tensors of type %s (id %" PRIu32 ") to F32"),
			       quant_name(id), id);
	if (quant_row_bytes(id, n, &nbytes))
		return err_set(e, _("%" PRIu64 " values are not whole blocks of %u for type %s"),
			       n, TYPES[id].block, TYPES[id].name);
	const unsigned char *s = src;
	const uint64_t nb = n / TYPES[id].block;
	switch (id) {
	case QUANT_F32: deq_f32(s, dst, n); break;
	case QUANT_F16: deq_f16(s, dst, n); break;
	case QUANT_BF16: deq_bf16(s, dst, n); break;
	case QUANT_Q4_0: deq_q4_0(s, dst, nb); break;
	case QUANT_Q4_1: deq_q4_1(s, dst, nb); break;
	case QUANT_Q5_0: deq_q5_0(s, dst, nb); break;
	case QUANT_Q5_1: deq_q5_1(s, dst, nb); break;
	case QUANT_Q8_0: deq_q8_0(s, dst, nb); break;
	case QUANT_Q2_K: deq_q2_k(s, dst, nb); break;
	case QUANT_Q3_K: deq_q3_k(s, dst, nb); break;
	case QUANT_Q4_K: deq_q45_k(s, dst, nb, 0); break;
	case QUANT_Q5_K: deq_q45_k(s, dst, nb, 1); break;
	case QUANT_Q6_K: deq_q6_k(s, dst, nb); break;
	}
	return 0;
}
