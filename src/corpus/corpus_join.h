/* corpus_join.h - the joined training lines of a grammar's join: (the last
 * step of corpus_generate; corpus_gen.c's header states the rules). */
#ifndef ATTNSCOPE_CORPUS_JOIN_H
#define ATTNSCOPE_CORPUS_JOIN_H

#include "grammar.h"
#include "base/err.h"
#include "base/strtab.h"
#include "formats/corpus.h"

/* Appends grammar_join(g)->lines lines to train, each two of its first
 * ndistinct pairs (the distinct ones) joined by a connector, drawn with
 * rng.  A line whose English is in known (every English sentence the
 * generator met) or made before, or whose Portuguese is a sentence of
 * held, is not added.  Sets *added; returns 0, or -1 with e filled
 * (file:line of join: or of a connector) when the lines cannot be made.
 * Without join: it adds nothing and draws nothing from rng. */
int corpus_join(const struct grammar *g, struct corpus *train, int ndistinct,
		const struct corpus *held, const struct strtab *known,
		struct gr_rng *rng, int *added, struct err *e);

#endif
