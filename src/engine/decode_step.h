/* decode_step.h - the key/value-cache step of the decoder (decode_step.c),
 * internal to decode.c's search.
 *
 * Dimension names: B live hypotheses, t position, S source length, d
 * d_model, h heads, dk = d/h, F d_ff, V target vocabulary, Ld decoder
 * layers, Tc cache capacity (positions).
 *
 * Ownership: dec_init allocates every buffer of the struct (memory is the
 * caller's, read only); dec_free releases them, also after a failed
 * dec_init. */
#ifndef ATTNSCOPE_DECODE_STEP_H
#define ATTNSCOPE_DECODE_STEP_H

#include <stdint.h>

#include "model.h"
#include "trace.h"

struct dec {
	const struct model *m;
	int d, h, dk, F, V, Ld, S, src_len, cross;
	int hkv, qd, kvd;      /* key/value heads, h·dk, h_kv·dk */
	int bcap, tcap;
	const float *memory;   /* [S, d] */
	float *ck, *cv;        /* cross keys/values [Ld, S, kvd] */
	float *kc, *vc;        /* self cache [Ld, bcap, tcap, kvd] (keys rotated) */
	float *kc2, *vc2;      /* the same, for reordering */
	float *x, *u, *y, *cat;   /* [bcap, d], [bcap, d], [bcap, d], [bcap, qd] */
	float *qkv;            /* [bcap, qd + 2kvd] */
	float *hid, *up;       /* [bcap, max(F, V)], [bcap, F] (gated) */
	float *sc;             /* [max(tcap, S)] */
	float *inv;            /* [dk/2] rotary frequencies, or NULL */
	float *relb;           /* [h, tcap] T5's bias of a key n positions
	                          before the query (causal buckets), or NULL */
	const struct pass_opts *po;   /* the what-if ablation of a head */
};

/* D for m with at most bcap hypotheses of tcap positions; memory [S, d]
 * (src_len of its rows real) for an encoder-decoder, else NULL.  Returns
 * 0, or -1 when out of memory. */
int dec_init(struct dec *D, const struct model *m, const float *memory, int S,
	     int src_len, int bcap, int tcap);
void dec_free(struct dec *D);
/* Position t for B hypotheses whose tokens at t are tok[B]: appends to the
 * self cache and writes log-probabilities [B, V] into out. */
void dec_step(struct dec *D, int B, int t, const int32_t *tok, float *out);
/* The first n prompt tokens ids[n] of a decoder-only model into the cache
 * of hypothesis 0 at once; 0, or -1 when out of memory (then feed them
 * with dec_step). */
int dec_prefill(struct dec *D, const int32_t *ids, int n);
/* Makes hypothesis b's cache (b < B) a copy of parent[b]'s, positions
 * 0…t. */
void dec_reorder(struct dec *D, const int *parent, int B, int t);

#endif
