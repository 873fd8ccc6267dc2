/* decoding.h - what the decoding page (views/decoding.c) hands its beam
 * lattice and ranking (views/lattice.c): the page being drawn and the
 * helpers both read it with. */
#ifndef ATTNSCOPE_DECODING_H
#define ATTNSCOPE_DECODING_H

#include <stddef.h>
#include <stdint.h>

#include "canvas.h"
#include "decode.h"
#include "view.h"

#define TOKEN_MAX 12     /* columns for a token in tables */
#define SLOTS_MAX DECODE_MAX_BEAM

struct page {
	const struct decode_result *d;
	const struct vocab *voc;
	char **prompt; int np;   /* decoder input before the outputs: <s>, or
	                            <s> + the prompt of a decoder-only model */
	int N, s, hyp, beam;     /* steps, step on screen, followed slot, B */
	int cand;                /* selected candidate (for the what-if key) */
	double alpha;
	int *anc;                /* [s+1] followed hypothesis's slot per step */
	char *sos[1];            /* the prompt of an encoder-decoder */
};

/* Token id's text (or "#id" when the vocabulary has none) */
const char *page_tok(const struct page *P, int32_t id, char *buf, size_t n);
/* Finished entry f is shown at the page's step. */
int page_fin_visible(const struct page *P, int f);

/* (c) the beam lattice: its width in columns, the rows it needs at least and
 * would like (with the ranking under it unless rank_beside), and drawing it
 * (the ranking beside it in the last rank_w columns when rank_w > 0). */
int lattice_width(const struct page *P);
void lattice_rows(const struct page *P, int rank_beside, int *min, int *want);
void lattice_draw(const struct page *P, struct canvas *c, struct rect r, int rank_w);
/* The finished hypotheses ranked by score: rows needed, and drawing them. */
int ranking_rows(const struct page *P);
void ranking_draw(const struct page *P, struct canvas *c, struct rect r);

#endif
