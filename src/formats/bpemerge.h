/* bpemerge.h - the merges of a BPE model applied by rank, as Hugging
 * Face's tokenizers apply them (its BPE model's merge_word): of the
 * adjacent pairs of symbols that have a merge, the one of lowest rank
 * first (the leftmost of equal ranks), until none applies.  Shared by
 * GPT-2's vocab.json + merges.txt (gpt2bpe.h) and tokenizer.json
 * (tokjson.h).  Symbols are vocabulary ids. */
#ifndef ATTNSCOPE_BPEMERGE_H
#define ATTNSCOPE_BPEMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/ids.h"

struct bpemerge {
	int n;                   /* merges added (ranks 0 … n−1) */
	/* private: open-addressing hash (left id, right id) -> rank, product */
	uint64_t *key;
	int32_t *rank, *prod;
	size_t cap;
};

/* Room for up to nmerges merges.  Returns 0, or -1 when out of memory.
 * Free with bpemerge_free. */
int bpemerge_init(struct bpemerge *m, size_t nmerges);
void bpemerge_free(struct bpemerge *m);

/* Adds the merge (a, b) -> prod of the next rank; a pair given twice keeps
 * its last rank, as Hugging Face's map does.  At most the nmerges of
 * bpemerge_init: returns -1 past them. */
int bpemerge_add(struct bpemerge *m, int32_t a, int32_t b, int32_t prod);

/* The rank of the pair (a, b) with its product in *prod, or -1. */
int32_t bpemerge_rank(const struct bpemerge *m, int32_t a, int32_t b, int32_t *prod);

/* Merges the symbols sym[0..n) and appends what is left to o.  Costs
 * n log n.  Returns 0, or -1 when out of memory. */
int bpemerge_apply(const struct bpemerge *m, const int32_t *sym, size_t n, struct ids *o);

#endif
