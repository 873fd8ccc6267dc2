/* bpe.h - byte-pair encoding (Sennrich, Haddow and Birch 2016), the subword
 * tokens of "Attention Is All You Need": learning the merges from word
 * counts and applying them to a word.
 *
 * Symbols are UTF-8 strings.  A word starts as its code points, the last
 * one carrying the end-of-word marker "</w>" ("cats" -> c a t s</w>); a
 * merge joins two adjacent symbols into one ("t" + "s</w>" -> "ts</w>").
 * The merges file is subword-nmt's: an optional "#version: 0.2" first
 * line, then one merge a line, its two symbols separated by one space
 * ("t s</w>"), in rank order (line order).
 *
 * Pieces, as the vocabulary and the model see them, are written in
 * subword-nmt's output convention: a piece that does not end its word
 * carries "@@" ("gat@@" "os"), a piece that ends it is written bare, so a
 * word kept whole reads as itself ("cat") and the pieces join back by
 * deleting "@@ " (bpe_join).  The end-of-word marker (rather than a
 * word-start one) keeps suffixes as pieces of their own — Portuguese and
 * English inflect at the end (gat@@ os, com@@ endo) — and it leaves whole
 * words unmarked in every view of the stepper. */
#ifndef ATTNSCOPE_BPE_H
#define ATTNSCOPE_BPE_H

#include <stdio.h>

#include "base/err.h"
#include "base/strtab.h"

#define BPE_EOW "</w>"
#define BPE_CONT "@@"
#define BPE_MAX_MERGES (1 << 20)

struct bpe {
	char **left, **right;     /* [n] the merges in rank order (owned) */
	int n;
	struct strtab rank;       /* "left right" -> rank */
	struct strtab product;    /* "leftright" -> the first rank making it */
};

struct vocab;

/* Reads a merges file.  Errors name the file and line. */
int bpe_load(struct bpe *b, const char *path, struct err *e);
void bpe_free(struct bpe *b);

/* Splits one word (UTF-8, no white space, at most 256 bytes) into pieces
 * by applying the merges greedily by rank: the adjacent pair of lowest
 * rank is merged everywhere in the word, then the next, until no pair has
 * a merge.  With a vocabulary v, a piece that v lacks is then split back
 * into the two symbols its merge joined, recursively, down to single code
 * points (subword-nmt's --vocabulary): merges whose product is rare in the
 * training text were never given a token.  *out receives n malloc'd pieces
 * (free with tokens_free).  Returns n >= 1, or -1. */
int bpe_apply(const struct bpe *b, const struct vocab *v, const char *word,
	      char ***out, struct err *e);

/* Word counts to learn from: words (each once) and their counts. */
struct bpe_counts {
	struct strtab index;      /* word -> position in word[] */
	char **word;
	long *count;
	int n, cap;
};

int bpe_counts_init(struct bpe_counts *c);
/* Adds count to word (copied). */
int bpe_counts_add(struct bpe_counts *c, const char *word, long count,
		   struct err *e);
void bpe_counts_free(struct bpe_counts *c);

/* Learns up to nmerges merges into b (initialised here).  Each step
 * merges the most frequent adjacent pair of symbols, counted over the
 * words weighted by their counts; ties go to the pair whose left symbol,
 * then right symbol, comes first in byte order (strcmp).  Learning stops
 * early when no pair occurs min_count times.  The result depends only on
 * the multiset of words, never on the order they were added or on hash
 * order. */
int bpe_learn(const struct bpe_counts *c, int nmerges, long min_count,
	      struct bpe *b, struct err *e);

/* Writes b as a merges file. */
int bpe_write(const struct bpe *b, const char *path, struct err *e);

/* Does piece continue into the next one (ends in "@@")? */
int bpe_is_cont(const char *piece);

#endif
