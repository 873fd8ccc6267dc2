/* unicode.h - the Unicode character data the Hugging Face tokenizers need:
 * general categories as flags, White_Space, canonical decomposition (NFD),
 * composition (NFC) and lower-casing of one code point.
 *
 * The tables (unicode_tab.h) are generated from the machine's Unicode data
 * by unicode_gen.py beside this file; rerun it to move to a newer Unicode. */
#ifndef ATTNSCOPE_UNICODE_H
#define ATTNSCOPE_UNICODE_H

#include <stddef.h>
#include <stdint.h>

enum {
	UNI_L = 1,      /* letter: Lu Ll Lt Lm Lo (\p{L}) */
	UNI_N = 2,      /* number: Nd Nl No (\p{N}) */
	UNI_P = 4,      /* punctuation: Pc Pd Ps Pe Pi Pf Po */
	UNI_C = 8,      /* other: Cc Cf Cs Co (not the unassigned Cn) */
	UNI_MN = 16,    /* non-spacing mark */
	UNI_WS = 32,    /* White_Space */
	/* P, C and Mn as Unicode 8.0 had them (unassigned then: none of
	 * them), the tables Hugging Face's BERT tokenizer reads */
	UNI_P8 = 64, UNI_C8 = 128, UNI_MN8 = 256,
	UNI_MC = 512    /* spacing mark (Mc) */
};

/* The UNI_* flags of cp (0 for a symbol, a separator that
 * is not white space...). */
unsigned uni_flags(uint32_t cp);
/* Canonical combining class (0 for most). */
int uni_ccc(uint32_t cp);
/* The full canonical decomposition of cp into out[cap] (Hangul syllables
 * by the algorithm); cp itself when it has none, or when it was assigned
 * after Unicode 8.0 (U+11938 only), as Hugging Face's tables have it.  Returns the count (at
 * most UNI_MAX_DECOMP). */
#define UNI_MAX_DECOMP 8
int uni_decompose(uint32_t cp, uint32_t *out);
/* The full lower-case mapping of cp into out (at most UNI_MAX_LOWER code
 * points; cp itself when it has none).  Returns the count. */
#define UNI_MAX_LOWER 4
int uni_lower(uint32_t cp, uint32_t *out);
/* The primary composite of the pair (a, b) (Hangul by the algorithm), or
 * 0 when canonical composition does not join them. */
uint32_t uni_compose(uint32_t a, uint32_t b);
/* NFC of in[0..n) into out, which must have room for n * UNI_MAX_DECOMP
 * code points (tmp as many, scratch): the full canonical decomposition,
 * the marks in canonical order, then canonical composition.  Returns the
 * count. */
size_t uni_nfc(const uint32_t *in, size_t n, uint32_t *out, uint32_t *tmp);
/* NFD likewise: the decomposition with the marks in canonical order. */
size_t uni_nfd(const uint32_t *in, size_t n, uint32_t *out, uint32_t *tmp);
/* The Unicode version of the tables ("14.0.0"). */
const char *uni_version(void);

#endif
