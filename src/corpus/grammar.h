/* grammar.h - a bilingual template grammar and the derivation of sentence
 * pairs with their gold word alignment.
 *
 * The grammar (examples/corpus/grammar.yaml documents the format in its
 * header) has four parts:
 *
 *   features   named features and their values (g: [m, f], n: [sg, pl] ...);
 *              the first value is the default when a form needs an unset one
 *   lexicon    word classes: each lists its English and Portuguese form keys
 *              ("pres.p3.sg", "m.pl", "past.p1|p3.sg", "any") and entries
 *              whose "/"-separated forms follow those keys, with inherent
 *              features (a noun's gender)
 *   phrases    symbols with alternative rules, each a small template
 *   templates  sentences: slots (a symbol plus feature constraints,
 *              agreement with another slot, "differ" from or the "same" key as
 *              another slot) and
 *              the two word orders, e.g.  en: S V O D   pt: S O V D
 *
 * plus post-editing rules (Portuguese preposition + article contractions,
 * English a -> an) and, optionally, join: (connectors that make a training
 * line of two training pairs).  A derivation is driven by a chooser:
 * random (seeded, integer-only, the same on every machine) or exhaustive
 * enumeration.
 *
 * Alignment: every English word of a slot is aligned with every Portuguese
 * word of the same slot (the i-th English occurrence with the i-th
 * Portuguese one); a slot that appears on one side only aligns through
 * "link: OTHER"; a literal "de=of" or "de=V" aligns with the literal "of"
 * or the slot V of the other side; a contraction takes the union of the
 * alignments of the words it merges. */
#ifndef ATTNSCOPE_GRAMMAR_H
#define ATTNSCOPE_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* xoshiro256** seeded through splitmix64: integer-only, so the same seed
 * gives the same corpus on every machine and C library. */
struct gr_rng {
	uint64_t s[4];
};
void gr_rng_seed(struct gr_rng *r, uint64_t seed);
uint64_t gr_rng_next(struct gr_rng *r);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint32_t gr_rng_below(struct gr_rng *r, uint32_t n);

/* The choices of one derivation.  Random mode draws from rng; enumeration
 * mode replays a prefix and takes the first option of every new choice, so
 * that gr_chooser_next() steps through all derivations like an odometer. */
enum gr_mode { GR_RANDOM, GR_ENUMERATE };

struct gr_chooser {
	enum gr_mode mode;
	struct gr_rng *rng;       /* GR_RANDOM */
	/* GR_ENUMERATE: choice k took val[k] of nopt[k] options */
	uint32_t *val, *nopt;
	int len, replay, cap;
	/* optional: only entries whose English words all lie in this
	 * NULL-terminated word list are chosen (searching for a sentence) */
	const char *const *only_words;
	void *scratch;            /* private: the derivation's buffers */
};

/* Sets up a chooser; free it with gr_chooser_free. */
int gr_chooser_init(struct gr_chooser *c, enum gr_mode mode, struct gr_rng *rng,
		    struct err *e);
void gr_chooser_free(struct gr_chooser *c);
/* Enumeration: moves to the next derivation; returns 0 when all are done. */
int gr_chooser_next(struct gr_chooser *c);
/* Enumeration: starts over at the first derivation. */
void gr_chooser_reset(struct gr_chooser *c);
/* Words the derivations made with c have produced so far: a measure of
 * their cost, which bounds searches (GR_SEARCH_WORK). */
long long gr_chooser_work(const struct gr_chooser *c);
#define GR_SEARCH_WORK 5000000LL    /* words: a fraction of a second */

/* One derived pair: space-separated words and "i-j" alignment pairs
 * (sorted by i then j).  The buffers are reused between derivations. */
struct gr_pair {
	char *en, *pt, *align;
	size_t en_cap, pt_cap, align_cap;
	int en_words, pt_words;
};
void gr_pair_free(struct gr_pair *p);

struct grammar;

/* Loads and checks a grammar: undefined symbols, slots that do not match
 * between the two sides, unknown keys and feature values, and words the
 * word tokenizer would split or change are all errors with file:line. */
struct grammar *grammar_load(const char *path, struct err *e);
void grammar_free(struct grammar *g);

const char *grammar_file(const struct grammar *g);
int grammar_ntemplates(const struct grammar *g);
const char *grammar_template_id(const struct grammar *g, int t);
int grammar_template_line(const struct grammar *g, int t);
int grammar_template_weight(const struct grammar *g, int t);
/* How many lines of the training file each of its pairs fills (repeat:,
 * default 1): the phrases students write most, seen as often as they are
 * met, though the grammar has only a few of them. */
int grammar_template_repeat(const struct grammar *g, int t);
/* Line of the top-level "templates:" key (for grammar-wide messages). */
int grammar_templates_line(const struct grammar *g);

/* Sentences a template must produce ("require:"), with the expected
 * Portuguese or NULL. */
int grammar_nrequired(const struct grammar *g, int t);
void grammar_required(const struct grammar *g, int t, int i, const char **en,
		      const char **pt, int *line);

/* join: (optional): training lines made of two training pairs with a
 * connector between them (corpus_gen.c says how).  A sentence's final
 * mark is its last word when that is . ! or ?, else GR_MARK_NONE. */
enum { GR_MARK_NONE, GR_MARK_DOT, GR_MARK_BANG, GR_MARK_QUESTION, GR_NMARKS };
/* The mark of a last word w: GR_MARK_DOT, _BANG, _QUESTION or _NONE. */
int grammar_mark(const char *w);

struct gr_connector {
	const char **w[2];        /* words: [0] English, [1] Portuguese */
	int nw[2];                /* 1 or more each */
	int weight, line;
	unsigned after;           /* bit m set: may follow a sentence of mark m */
	unsigned before;          /* bit m set: the second may end in mark m */
};

struct gr_join {
	int line;                 /* of the join: key */
	int lines;                /* joined lines wanted */
	int max_words;            /* words a side at most; 0 no limit */
	struct gr_connector *with;
	int nwith;
	long total_weight;
};

/* The grammar's join:, or NULL without one (owned by the grammar). */
const struct gr_join *grammar_join(const struct grammar *g);

/* Derives one pair from template t.  Returns 1 with out filled, 0 when the
 * choices led to a dead end (no entry meets the constraints), -1 on a
 * grammar error (e filled with file:line). */
int grammar_derive(const struct grammar *g, int t, struct gr_chooser *c,
		   struct gr_pair *out, struct err *e);

/* Searches template t for a derivation whose English is exactly en.
 * Returns 1 (out filled), 0 (none), -1 on error. */
int grammar_find(const struct grammar *g, int t, const char *en,
		 struct gr_pair *out, struct err *e);

#endif
