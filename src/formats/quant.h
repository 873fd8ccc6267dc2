/* quant.h - ggml's tensor types: their block sizes, and dequantisation of
 * rows to F32.
 *
 * A ggml type stores a row of n values (n a multiple of the type's block
 * size) as n / block blocks of type_size bytes each; the layouts are those
 * of ggml-common.h (all little-endian, scales as IEEE halves).  The
 * dequantisers give the same floats, bit for bit, as ggml's reference
 * dequantize_row_* (each product and sum rounded to F32 in ggml's order,
 * never fused into one FMA). */
#ifndef ATTNSCOPE_QUANT_H
#define ATTNSCOPE_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* ggml's type ids as GGUF files store them (ggml.h, enum ggml_type);
 * the ids missing here (4, 5, 31-33, 36-38) were removed from ggml. */
enum quant_type {
	QUANT_F32 = 0, QUANT_F16 = 1, QUANT_Q4_0 = 2, QUANT_Q4_1 = 3,
	QUANT_Q5_0 = 6, QUANT_Q5_1 = 7, QUANT_Q8_0 = 8, QUANT_Q8_1 = 9,
	QUANT_Q2_K = 10, QUANT_Q3_K = 11, QUANT_Q4_K = 12, QUANT_Q5_K = 13,
	QUANT_Q6_K = 14, QUANT_Q8_K = 15, QUANT_IQ2_XXS = 16, QUANT_IQ2_XS = 17,
	QUANT_IQ3_XXS = 18, QUANT_IQ1_S = 19, QUANT_IQ4_NL = 20, QUANT_IQ3_S = 21,
	QUANT_IQ2_S = 22, QUANT_IQ4_XS = 23, QUANT_I8 = 24, QUANT_I16 = 25,
	QUANT_I32 = 26, QUANT_I64 = 27, QUANT_F64 = 28, QUANT_IQ1_M = 29,
	QUANT_BF16 = 30, QUANT_TQ1_0 = 34, QUANT_TQ2_0 = 35, QUANT_MXFP4 = 39,
	QUANT_NTYPES = 40            /* ids from here on are unknown */
};

/* Whether id is a ggml type whose size this program knows (any of the
 * above); a file with another id is refused. */
int quant_known(uint32_t id);
/* "Q4_K", "F16", ...; "?" for an unknown id. */
const char *quant_name(uint32_t id);
/* Values per block (1, 32 or 256) and bytes per block; 0 if unknown. */
unsigned quant_block_size(uint32_t id);
unsigned quant_type_size(uint32_t id);
/* Whether quant_dequant converts id: F32, F16, BF16, Q4_0, Q4_1, Q5_0,
 * Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K. */
int quant_can_dequant(uint32_t id);
/* The bytes of n values of type id in *nbytes.  Returns 0, or -1 when the
 * type is unknown, n is not a multiple of the block size, or the size
 * overflows 64 bits. */
int quant_row_bytes(uint32_t id, uint64_t n, uint64_t *nbytes);

/* Dequantises n values (a multiple of the block size) of type id from src
 * (quant_row_bytes(id, n) bytes, any alignment) into dst[n].  Returns 0, or
 * -1 with e saying which type cannot be converted or why n does not fit. */
int quant_dequant(uint32_t id, const void *src, float *dst, uint64_t n, struct err *e);

/* An IEEE half (binary16) as F32, exactly; a NaN keeps its payload and
 * becomes quiet, as in ggml. */
float quant_f16(uint16_t h);

#endif
