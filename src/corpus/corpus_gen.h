/* corpus_gen.h - a grammar (grammar.h) expanded into the training and
 * held-out splits of a parallel corpus (formats/corpus.h). */
#ifndef ATTNSCOPE_CORPUS_GEN_H
#define ATTNSCOPE_CORPUS_GEN_H

#include <stdint.h>

#include "grammar.h"
#include "base/err.h"
#include "formats/corpus.h"

/* Expanding a grammar: options and what happened. */
struct corpus_gen_opts {
	int pairs;                /* distinct training pairs wanted */
	int heldout;              /* distinct held-out pairs wanted */
	uint64_t seed;
};

struct corpus_gen_stats {
	int ntemplates;
	int *used;                /* [ntemplates] pairs from each (owned) */
	int nrequired;            /* required pairs put in training */
	int ncopies;              /* lines added by repeat: (train->n counts them) */
	int njoined;              /* lines added by join: (train->n counts them) */
	long derivations;         /* derivations tried */
	int exhaustive;           /* the grammar had to be enumerated */
};

/* Expands grammar g into train and held (initialised here): distinct
 * pairs, no sentence (on either side) shared between the splits, every
 * template's require: sentences in train first, then the copies of
 * repeat: and the joined lines of join: (corpus_gen.c says how), both in
 * train only.  Deterministic for a seed.
 * Returns 0, or -1 with e filled (file:line): a required sentence the
 * template cannot produce, an English sentence with two translations, a
 * grammar that cannot produce enough distinct pairs (the message says how
 * many it can), or join: lines that cannot be made.  Free stats->used
 * with free(). */
int corpus_generate(const struct grammar *g, const struct corpus_gen_opts *o,
		    struct corpus *train, struct corpus *held,
		    struct corpus_gen_stats *stats, struct err *e);

#endif
