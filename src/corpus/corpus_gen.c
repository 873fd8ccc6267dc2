/* corpus_gen.c - expanding a grammar into training and held-out pairs.
 *
 * Templates are drawn by weight and derived with seeded random choices;
 * every new English sentence is placed in one split, keeping the splits
 * free of shared sentences: a pair whose Portuguese is already in one
 * split can only join that split.  A template that keeps producing
 * sentences already seen is retired.  When sampling cannot fill the
 * request, the whole grammar is enumerated: either the missing pairs come
 * from there (shuffled with the same generator), or the error states how
 * many distinct pairs the grammar can produce.
 *
 * Then the copies of repeat:, then the lines of join: (corpus_join.c),
 * drawn with the same generator: each is two distinct training pairs A
 * and B (never held-out ones, never the copies) and a connector drawn by
 * weight, written as A without its final mark (on each side its last word
 * when that is . ! or ?; the connector's after: lists the English marks it
 * may follow, its before: those B may end in), the connector's words,
 * then B.  The alignment is A's links but those of its removed marks, the
 * connector's words all with all, and B's links shifted past the two.  A line longer than max_words on either
 * side, whose English is already a sentence of the corpus (or a line made
 * before), or whose Portuguese is held out, is drawn again.  Without
 * join: nothing is drawn, so the corpus is what it was. */
#include <stdlib.h>
#include <string.h>

#include "corpus_gen.h"
#include "corpus_join.h"
#include "base/strtab.h"

#define RETIRE_AFTER 400          /* consecutive failures that retire a template */
#define ENUM_BUDGET 20000000L     /* derivations when enumerating everything */

enum { NONE = 0, TRAIN = 1, HELD = 2 };

struct seen {                     /* one English sentence met so far */
	const char *pt;           /* interned in gen.pt */
	int tmpl;
};

struct gen {
	const struct grammar *g;
	const struct corpus_gen_opts *o;
	struct corpus *train, *held;
	struct corpus_gen_stats *st;
	struct gr_rng rng;
	struct strtab en;         /* English -> index into seen */
	struct strtab pt;         /* Portuguese -> TRAIN / HELD / NONE */
	struct seen *seen;
	int nseen, capseen;
	struct err *e;
};

/* Offers a pair.  Returns 1 when placed, 0 when not new or not placeable,
 * -1 on error (two translations of one English sentence). */
static int offer(struct gen *x, int t, const char *en, const char *pt,
		 const char *align, int force_train)
{
	const struct grammar *g = x->g;
	int *idx = strtab_get(&x->en, en);
	if (idx) {
		const struct seen *s = &x->seen[*idx];
		if (strcmp(s->pt, pt) != 0)
			return err_set(x->e, "%s:%d: template %s: \"%s\" has two translations: "
				       "\"%s\" and \"%s\" (template %s, line %d); the corpus "
				       "must translate each English sentence one way",
				       grammar_file(g), grammar_template_line(g, t),
				       grammar_template_id(g, t), en, pt, s->pt,
				       grammar_template_id(g, s->tmpl),
				       grammar_template_line(g, s->tmpl));
		return 0;
	}
	int added;
	const char *ptkey;
	int *where = strtab_put(&x->pt, pt, NONE, &added, &ptkey);
	if (x->nseen == x->capseen) {
		int cap = x->capseen ? x->capseen * 2 : 4096;
		struct seen *s = realloc(x->seen, (size_t)cap * sizeof *s);
		if (!s)
			return err_set(x->e, "out of memory");
		x->seen = s;
		x->capseen = cap;
	}
	if (!where || !strtab_put(&x->en, en, x->nseen, &added, NULL))
		return err_set(x->e, "out of memory");
	x->seen[x->nseen].pt = ptkey;
	x->seen[x->nseen++].tmpl = t;

	int need_t = x->o->pairs - x->train->n, need_h = x->o->heldout - x->held->n;
	int split = NONE;
	if (force_train || *where == TRAIN)
		split = force_train || need_t > 0 ? TRAIN : NONE;
	else if (*where == HELD)
		split = need_h > 0 ? HELD : NONE;
	else if (need_h <= 0)
		split = need_t > 0 ? TRAIN : NONE;
	else if (need_t <= 0)
		split = HELD;
	else
		split = (int)gr_rng_below(&x->rng, (uint32_t)(need_t + need_h)) <
				need_h ? HELD : TRAIN;
	if (split == NONE)
		return 0;
	if (corpus_add(split == TRAIN ? x->train : x->held, en, pt, align, x->e))
		return -1;
	*where = split;
	x->st->used[t]++;
	return 1;
}

static int full(const struct gen *x)
{
	return x->train->n >= x->o->pairs && x->held->n >= x->o->heldout;
}

static int add_required(struct gen *x, struct gr_pair *p)
{
	const struct grammar *g = x->g;
	for (int t = 0; t < grammar_ntemplates(g); t++)
		for (int i = 0; i < grammar_nrequired(g, t); i++) {
			const char *en, *pt;
			int line;
			grammar_required(g, t, i, &en, &pt, &line);
			int r = grammar_find(g, t, en, p, x->e);
			if (r < 0)
				return -1;
			if (r == 0)
				return err_set(x->e, "%s:%d: template %s cannot produce the "
					       "required sentence \"%s\"", grammar_file(g), line,
					       grammar_template_id(g, t), en);
			if (pt && strcmp(pt, p->pt) != 0)
				return err_set(x->e, "%s:%d: template %s translates \"%s\" as "
					       "\"%s\", not the required \"%s\"", grammar_file(g),
					       line, grammar_template_id(g, t), en, p->pt, pt);
			r = offer(x, t, p->en, p->pt, p->align, 1);
			if (r < 0)
				return -1;
			x->st->nrequired += r;
		}
	if (x->train->n > x->o->pairs)
		return err_set(x->e, "%s:%d: the grammar requires %d sentences in training, "
			       "more than the %d training pairs asked for", grammar_file(g),
			       grammar_templates_line(g), x->train->n, x->o->pairs);
	return 0;
}

static int sample(struct gen *x, struct gr_pair *p)
{
	const struct grammar *g = x->g;
	int nt = grammar_ntemplates(g);
	int *fails = calloc((size_t)nt, sizeof *fails);
	char *active = malloc((size_t)nt);
	struct gr_chooser c;
	if (!fails || !active || gr_chooser_init(&c, GR_RANDOM, &x->rng, x->e)) {
		free(fails);
		free(active);
		return err_set(x->e, "out of memory");
	}
	long total = 0;
	for (int t = 0; t < nt; t++) {
		active[t] = 1;
		total += grammar_template_weight(g, t);
	}
	long want = (long)x->o->pairs + x->o->heldout;
	long budget = 50 * want + 100000;
	int rc = 0;
	while (!full(x) && total > 0 && budget-- > 0) {
		long w = (long)gr_rng_below(&x->rng, (uint32_t)total);
		int t = 0;
		for (;; t++)
			if (active[t] && (w -= grammar_template_weight(g, t)) < 0)
				break;
		x->st->derivations++;
		int r = grammar_derive(g, t, &c, p, x->e);
		if (r > 0)
			r = offer(x, t, p->en, p->pt, p->align, 0);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r > 0) {
			fails[t] = 0;
		} else if (++fails[t] >= RETIRE_AFTER) {
			active[t] = 0;
			total -= grammar_template_weight(g, t);
		}
	}
	gr_chooser_free(&c);
	free(fails);
	free(active);
	return rc;
}

struct kept {
	char *en, *pt, *align;
	int tmpl;
};

static void kept_free(struct kept *k, int n)
{
	for (int i = 0; i < n; i++) {
		free(k[i].en);
		free(k[i].pt);
		free(k[i].align);
	}
	free(k);
}

/* Enumerates every derivation of every template; new pairs are kept,
 * shuffled, and offered.  It stops early once it holds twice what is
 * missing (sampling only fails on small grammars, but a pathological one
 * must not fill the memory).  *complete tells whether the enumeration
 * finished, *distinct how many distinct English sentences it and the
 * sampling met. */
static int enumerate(struct gen *x, struct gr_pair *p, int *complete, long *distinct)
{
	const struct grammar *g = x->g;
	struct kept *k = NULL;
	int nk = 0, capk = 0, rc = 0;
	long budget = ENUM_BUDGET;
	struct strtab fresh;
	struct gr_chooser c;
	if (strtab_init(&fresh))
		return err_set(x->e, "out of memory");
	if (gr_chooser_init(&c, GR_ENUMERATE, NULL, x->e)) {
		strtab_free(&fresh);
		return -1;
	}
	*complete = 1;
	*distinct = 0;
	x->st->exhaustive = 1;
	long missing = (long)x->o->pairs - x->train->n + x->o->heldout - x->held->n;
	long keep = 2 * missing + 1000;
	for (int t = 0; t < grammar_ntemplates(g) && !rc; t++) {
		gr_chooser_reset(&c);
		do {
			/* bounded in derivations and in the words they make (a
			   grammar of 2^32 long sentences would take minutes) */
			if (budget-- <= 0 || gr_chooser_work(&c) > 4 * GR_SEARCH_WORK) {
				*complete = 0;
				break;
			}
			x->st->derivations++;
			int r = grammar_derive(g, t, &c, p, x->e);
			if (r < 0) {
				rc = -1;
				break;
			}
			if (r == 0)
				continue;
			int *idx = strtab_get(&x->en, p->en);
			if (idx) {   /* seen while sampling: only check the translation */
				if (strcmp(x->seen[*idx].pt, p->pt) != 0 &&
				    offer(x, t, p->en, p->pt, p->align, 0) < 0) {
					rc = -1;
					break;
				}
				continue;
			}
			int added;
			int *v = strtab_put(&fresh, p->en, nk, &added, NULL);
			if (!v) {
				rc = err_set(x->e, "out of memory");
				break;
			}
			if (!added) {
				if (*v < nk && strcmp(k[*v].pt, p->pt) != 0) {
					rc = err_set(x->e, "%s:%d: template %s: \"%s\" has two "
						     "translations: \"%s\" and \"%s\" (template %s)",
						     grammar_file(g), grammar_template_line(g, t),
						     grammar_template_id(g, t), p->en, p->pt,
						     k[*v].pt, grammar_template_id(g, k[*v].tmpl));
					break;
				}
				continue;
			}
			if (nk >= keep) {
				*complete = 0;
				break;
			}
			if (nk == capk) {
				int cap = capk ? capk * 2 : 4096;
				struct kept *q = realloc(k, (size_t)cap * sizeof *q);
				if (!q) {
					rc = err_set(x->e, "out of memory");
					break;
				}
				k = q;
				capk = cap;
			}
			k[nk].en = strdup(p->en);
			k[nk].pt = strdup(p->pt);
			k[nk].align = strdup(p->align);
			k[nk].tmpl = t;
			if (!k[nk].en || !k[nk].pt || !k[nk].align) {
				nk++;
				rc = err_set(x->e, "out of memory");
				break;
			}
			nk++;
		} while (gr_chooser_next(&c));
		if (nk >= keep)
			break;
	}
	*distinct = (long)x->en.n + (long)fresh.n;
	/* Fisher-Yates with the corpus generator, then offer in that order */
	for (int i = nk - 1; !rc && i > 0; i--) {
		int j = (int)gr_rng_below(&x->rng, (uint32_t)(i + 1));
		struct kept tmp = k[i];
		k[i] = k[j];
		k[j] = tmp;
	}
	for (int i = 0; !rc && i < nk && !full(x); i++)
		if (offer(x, k[i].tmpl, k[i].en, k[i].pt, k[i].align, 0) < 0)
			rc = -1;
	kept_free(k, nk);
	strtab_free(&fresh);
	gr_chooser_free(&c);
	return rc;
}

/* The templates with repeat: N write each of their training pairs N times;
 * the copies follow the distinct pairs (the trainer shuffles). */
static int add_copies(struct gen *x)
{
	int n = x->train->n;
	for (int i = 0; i < n; i++) {
		const struct corpus_pair *p = &x->train->pairs[i];
		int t = x->seen[*strtab_get(&x->en, p->src)].tmpl;
		for (int k = 1; k < grammar_template_repeat(x->g, t); k++) {
			if (corpus_repeat(x->train, i, x->e))
				return -1;
			x->st->ncopies++;
		}
	}
	return 0;
}

int corpus_generate(const struct grammar *g, const struct corpus_gen_opts *o,
		    struct corpus *train, struct corpus *held,
		    struct corpus_gen_stats *st, struct err *e)
{
	struct gen x = { .g = g, .o = o, .train = train, .held = held, .st = st, .e = e };
	struct gr_pair p = { 0 };
	int rc = -1;
	memset(train, 0, sizeof *train);
	memset(held, 0, sizeof *held);
	memset(st, 0, sizeof *st);
	st->ntemplates = grammar_ntemplates(g);
	st->used = calloc((size_t)st->ntemplates, sizeof *st->used);
	if (!st->used || strtab_init(&x.en) || strtab_init(&x.pt)) {
		err_set(e, "out of memory");
		goto out;
	}
	gr_rng_seed(&x.rng, o->seed);
	if (add_required(&x, &p) || sample(&x, &p))
		goto out;
	if (!full(&x)) {
		int complete = 0;
		long distinct = 0;
		if (enumerate(&x, &p, &complete, &distinct))
			goto out;
		if (!full(&x)) {
			long want = (long)o->pairs + o->heldout;
			if (!complete)
				err_set(e, "%s:%d: found only %ld distinct pairs in %ld "
					"derivations; %ld requested (%d training + %d "
					"held-out)", grammar_file(g), grammar_templates_line(g),
					distinct, st->derivations, want, o->pairs, o->heldout);
			else if (distinct < want)
				err_set(e, "%s:%d: the grammar can produce only %ld distinct "
					"pairs; %ld requested (%d training + %d held-out)",
					grammar_file(g), grammar_templates_line(g), distinct,
					want, o->pairs, o->heldout);
			else
				err_set(e, "%s:%d: the grammar's %ld distinct pairs cannot be "
					"split into %d training and %d held-out pairs without "
					"sharing a Portuguese sentence (got %d + %d)",
					grammar_file(g), grammar_templates_line(g), distinct,
					o->pairs, o->heldout, train->n, held->n);
			goto out;
		}
	}
	int ndistinct = train->n;
	rc = add_copies(&x);
	if (!rc)
		rc = corpus_join(g, train, ndistinct, held, &x.en, &x.rng, &st->njoined, e);
out:
	gr_pair_free(&p);
	strtab_free(&x.en);
	strtab_free(&x.pt);
	free(x.seen);
	return rc;
}
