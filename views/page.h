/* page.h - the decoding page being drawn (views/decoding.c), as its beam
 * lattice and ranking (views/lattice.c) read it too, and the helpers both
 * read it with. */
#ifndef ATTNSCOPE_PAGE_H
#define ATTNSCOPE_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "canvas.h"
#include "view.h"
#include "engine/decode.h"
#include "formats/vocab.h"

#define TOKEN_MAX 12     /* columns for a token in tables */
#define SLOTS_MAX DECODE_MAX_BEAM

struct page {
	const struct decode_result *d;
	const struct vocab *voc;
	const struct tokenizer_cfg *tok;  /* for labels (tokens_label), or NULL */
	char **prompt; int np;   /* decoder input before the outputs: <s>, or
	                            <s> + the prompt of a decoder-only model */
	int N, s, hyp, beam;     /* steps, step on screen, followed slot, B */
	int cand;                /* selected candidate (for the what-if key) */
	double alpha;
	int *anc;                /* [s+1] followed hypothesis's slot per step */
	const struct sample_opts *so;   /* sampled with these (NULL: not) */
	char *sos[1];            /* the prompt of an encoder-decoder */
	double smoothing;        /* the model's training label smoothing (0:
	                            none): p tops out near 1 − ε */
	enum zoom zoom;          /* the view's (big: presenter, spread out) */
	int pitch;               /* lines a row of the input and the
	                            candidates takes (view_pitch) */
};

/* A token string's label (into buf when it is rewritten): GPT-2's pieces
 * as their text (tokens_label), others as they are. */
static inline const char *page_label(const struct page *P, const char *t, char *buf,
				     size_t n)
{
	return t && P->tok ? tokens_label(P->tok, t, buf, n) : t;
}

/* Token id's label (or "#id" when the vocabulary has none): the
 * vocabulary's string, GPT-2's pieces as their text (tokens_label). */
static inline const char *page_tok(const struct page *P, int32_t id, char *buf, size_t n)
{
	const char *t = P->voc ? vocab_str(P->voc, id) : NULL;
	if (t)
		return P->tok ? tokens_label(P->tok, t, buf, n) : t;
	snprintf(buf, n, "#%d", (int)id);
	return buf;
}

/* Finished entry f is visible at the page's step: </s> hypotheses from the
 * step they ended, the length-limited ones at the last step. */
static inline int page_fin_visible(const struct page *P, int f)
{
	if (P->d->hit_max_len)
		return P->s == P->N - 1;
	return P->d->finished[f].n <= P->s || P->s == P->N - 1;
}

/* Hypothesis `slot` of step `step`, or NULL. */
static inline const struct hyp *page_hyp(const struct page *P, int step, int slot)
{
	const struct decode_step *st = &P->d->steps[step];
	return slot >= 0 && slot < st->nhyps ? &st->hyps[slot] : NULL;
}

/* views/candidates.c, the page's part (b): how many candidates the
 * followed hypothesis has at the step on screen; the lines (b) takes with
 * nc rows of p lines and `under` lines under them (the legend, the note);
 * and its draw into r. */
int cands_of(const struct page *P);
int cands_lines(int nc, int p, int under);
void cands_draw(const struct page *P, struct canvas *c, struct rect r);

/* views/sampling.c: the candidates of a sampled step (p, p_T, p_cut,
 * the draw), in place of cands_draw's table. */
void sampling_draw_cands(const struct page *P, struct canvas *c, struct rect r);

#endif
