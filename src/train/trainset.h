/* trainset.h - a corpus of sentence pairs as token ids, cut into padded
 * mini-batches.
 *
 * Pairs are tokenized exactly as the program tokenizes a sentence
 * (input_build): the source wrapped as <s> words </s>, the decoder input
 * <s> + target, the labels target + </s>.  Words outside the model's
 * vocabularies become <unk>; they are counted and the distinct ones kept
 * for the report.
 *
 * An epoch is a seeded permutation of the pairs, sorted by length so that a
 * batch holds pairs of similar length (little padding), cut into batches of
 * at most batch_tokens padded tokens (B × (S + T)), in shuffled order.  The
 * same seed and epoch give the same batches on every machine. */
#ifndef ATTNSCOPE_TRAINSET_H
#define ATTNSCOPE_TRAINSET_H

#include <stdint.h>

#include "backprop.h"
#include "base/err.h"
#include "engine/model.h"
#include "formats/corpus.h"

struct tpair {
	int32_t *src; int S;       /* encoder input (S = 0 for decoder-only) */
	int32_t *tgt; int T;       /* decoder input; labels are tgt[1..T) + </s> */
	const struct corpus_pair *cp;   /* its text, alignment and line */
};

struct trainset {
	struct corpus corpus;                 /* the pairs as read */
	struct tpair *p; int n;
	long src_tokens, tgt_tokens;          /* words, without specials */
	long unknown;                         /* word occurrences mapped to <unk> */
	char **unknown_words; int nunknown_words;   /* distinct, first seen first */
	int32_t src_pad, tgt_pad, eos, unk;   /* the model's specials' ids */
};

/* Reads a TSV corpus with corpus_read (english<TAB>portuguese[<TAB>align];
 * lines without a tab, with an empty side or a bad alignment are skipped,
 * counted and reported there) and tokenizes it for m.  Returns 0, or -1
 * with e naming the file (and line: a pair longer than max_len). */
int trainset_load(struct trainset *ts, const struct model *m, const char *path,
		  struct err *e);
void trainset_free(struct trainset *ts);

/* "12 words outside the vocabulary (3 distinct: foo, bar, baz)" into buf,
 * or "" when there are none. */
const char *trainset_unknown_summary(const struct trainset *ts, char *buf,
				     size_t bufsz);

/* The batches of one epoch: order[] is a permutation of the pair indices,
 * batch k holds order[start[k] .. start[k + 1]). */
struct epoch {
	int *order;
	int *start;                /* nbatches + 1 */
	int nbatches;
};
int trainset_epoch(const struct trainset *ts, uint64_t seed, int epoch,
		   int batch_tokens, struct epoch *ep, struct err *e);
void epoch_free(struct epoch *ep);

/* A padded batch of pairs; its buffers grow as needed and are reused. */
struct tbatch {
	struct bp_batch b;
	int32_t *src, *tgt, *lab;
	int *src_len, *tgt_len;
	size_t cap_src, cap_tgt; int cap_b;
	long src_tokens, tgt_tokens;   /* real tokens (with <s>, </s>) */
};
/* Fills tb with pairs idx[0..n).  Returns 0 or -1 (out of memory). */
int trainset_batch(const struct trainset *ts, const int *idx, int n,
		   struct tbatch *tb, struct err *e);
void tbatch_free(struct tbatch *tb);

#endif
