/* corpus_join.c - training lines of two sentences: a grammar's join:
 * draws two distinct training pairs A and B and a connector, and writes
 * A without its final mark, the connector's words, then B.
 *
 * The first pair is drawn among those whose final mark the connector may
 * follow (so no draw is wasted on a pair that cannot come first), the
 * second among all the others.  A line that is too long, already a
 * sentence of the corpus, made before, or whose Portuguese is held out is
 * dropped and another drawn, within a budget of tries (which a grammar
 * of few pairs soon exhausts: then the error says how many were made). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_join.h"

#define TRIES_PER_LINE 20         /* the budget: tries a line asked for, */
#define TRIES_EXTRA 10000L        /* plus these, */
#define TRIES_IN_VAIN 100000L     /* or these in a row that made nothing */

struct buf {
	char *s;
	size_t n, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p)
			return -1;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

/* Appends words separated by single spaces (one before the first unless
 * b is empty). */
static int buf_words(struct buf *b, const char *s, size_t n)
{
	if (!n)
		return 0;
	return (b->n && buf_add(b, " ", 1)) || buf_add(b, s, n) ? -1 : 0;
}

static int buf_link(struct buf *b, int i, int j)
{
	char t[32];
	int n = snprintf(t, sizeof t, "%s%d-%d", b->n ? " " : "", i, j);
	return buf_add(b, t, (size_t)n);
}

/* The length of s without its last word when that is a final mark; the
 * mark in *mark. */
static size_t cut_mark(const char *s, int *mark)
{
	const char *sp = strrchr(s, ' ');
	const char *last = sp ? sp + 1 : s;
	*mark = grammar_mark(last);
	if (*mark == GR_MARK_NONE)
		return strlen(s);
	return sp ? (size_t)(sp - s) : 0;
}

static int side_mark(const char *s)
{
	int m;
	cut_mark(s, &m);
	return m;
}

/* Writes the line of a + c + b into en, pt and al (emptied first). */
static int build(const struct corpus_pair *a, const struct gr_connector *c,
		 const struct corpus_pair *b, struct buf *en, struct buf *pt,
		 struct buf *al)
{
	int me, mp;
	size_t le = cut_mark(a->src, &me), lp = cut_mark(a->tgt, &mp);
	int ne = a->nsrc - (me != GR_MARK_NONE), np = a->ntgt - (mp != GR_MARK_NONE);
	en->n = pt->n = al->n = 0;
	if (buf_add(en, "", 0) || buf_add(pt, "", 0) || buf_add(al, "", 0) ||
	    buf_words(en, a->src, le) || buf_words(pt, a->tgt, lp))
		return -1;
	for (int k = 0; k < c->nw[0]; k++)
		if (buf_words(en, c->w[0][k], strlen(c->w[0][k])))
			return -1;
	for (int k = 0; k < c->nw[1]; k++)
		if (buf_words(pt, c->w[1][k], strlen(c->w[1][k])))
			return -1;
	if (buf_words(en, b->src, strlen(b->src)) || buf_words(pt, b->tgt, strlen(b->tgt)))
		return -1;
	/* A's links but those of its removed marks, the connector's all with
	   all, B's shifted: sorted by i then j as each part is */
	for (int k = 0; k < a->nalign; k++)
		if (a->align[2 * k] < ne && a->align[2 * k + 1] < np &&
		    buf_link(al, a->align[2 * k], a->align[2 * k + 1]))
			return -1;
	for (int i = 0; i < c->nw[0]; i++)
		for (int j = 0; j < c->nw[1]; j++)
			if (buf_link(al, ne + i, np + j))
				return -1;
	for (int k = 0; k < b->nalign; k++)
		if (buf_link(al, ne + c->nw[0] + b->align[2 * k],
			     np + c->nw[1] + b->align[2 * k + 1]))
			return -1;
	return 0;
}

int corpus_join(const struct grammar *g, struct corpus *train, int nd,
		const struct corpus *held, const struct strtab *known,
		struct gr_rng *rng, int *added, struct err *e)
{
	const struct gr_join *j = grammar_join(g);
	*added = 0;
	if (!j)
		return 0;
	if (nd < 2)
		return err_set(e, "%s:%d: join: needs at least two training pairs to "
			       "join (--pairs %d)", grammar_file(g), j->line, nd);

	/* the distinct training pairs by the final mark of their English */
	int cnt[GR_NMARKS] = { 0 }, start[GR_NMARKS], at[GR_NMARKS];
	int *bymark = malloc((size_t)nd * sizeof *bymark);
	long *ncand = calloc((size_t)j->nwith, sizeof *ncand);
	struct strtab made = { 0 }, held_pt = { 0 };   /* free when zeroed */
	struct buf en = { 0 }, pt = { 0 }, al = { 0 };
	int rc = -1;
	if (!bymark || !ncand || strtab_init(&made) || strtab_init(&held_pt)) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int i = 0; i < nd; i++)
		cnt[side_mark(train->pairs[i].src)]++;
	for (int m = 0, s = 0; m < GR_NMARKS; s += cnt[m++])
		start[m] = at[m] = s;
	for (int i = 0; i < nd; i++)
		bymark[at[side_mark(train->pairs[i].src)]++] = i;
	for (int c = 0; c < j->nwith; c++) {
		for (int m = 0; m < GR_NMARKS; m++)
			if (j->with[c].after & 1u << m)
				ncand[c] += cnt[m];
		if (!ncand[c]) {
			err_set(e, "%s:%d: join: no training pair ends in a final mark this "
				"connector may follow (after:)", grammar_file(g),
				j->with[c].line);
			goto out;
		}
	}

	for (int i = 0; i < held->n; i++) {
		int fresh;
		if (!strtab_put(&held_pt, held->pairs[i].tgt, 0, &fresh, NULL)) {
			err_set(e, "out of memory");
			goto out;
		}
	}

	long budget = (long)TRIES_PER_LINE * j->lines + TRIES_EXTRA, tries = 0, last = 0;
	while (*added < j->lines && tries < budget && tries - last < TRIES_IN_VAIN) {
		tries++;
		long w = (long)gr_rng_below(rng, (uint32_t)j->total_weight);
		int c = 0;
		while ((w -= j->with[c].weight) >= 0)
			c++;
		const struct gr_connector *cn = &j->with[c];
		long r = (long)gr_rng_below(rng, (uint32_t)ncand[c]);
		int a = -1;
		for (int m = 0; m < GR_NMARKS && a < 0; m++) {
			if (!(cn->after & 1u << m))
				continue;
			if (r < cnt[m])
				a = bymark[start[m] + r];
			else
				r -= cnt[m];
		}
		int b = (int)gr_rng_below(rng, (uint32_t)(nd - 1));
		if (b >= a)
			b++;
		const struct corpus_pair *pa = &train->pairs[a], *pb = &train->pairs[b];
		if (!(cn->before & 1u << side_mark(pb->src)))
			continue;
		int me = side_mark(pa->src), mp = side_mark(pa->tgt);
		int ne = pa->nsrc - (me != GR_MARK_NONE) + cn->nw[0] + pb->nsrc;
		int np = pa->ntgt - (mp != GR_MARK_NONE) + cn->nw[1] + pb->ntgt;
		if (j->max_words && (ne > j->max_words || np > j->max_words))
			continue;
		if (build(pa, cn, pb, &en, &pt, &al)) {
			err_set(e, "out of memory");
			goto out;
		}
		if (strtab_get(known, en.s) || strtab_get(&made, en.s) ||
		    strtab_get(&held_pt, pt.s))
			continue;
		int fresh;
		/* train->pairs may move: pa and pb are not used after this */
		if (!strtab_put(&made, en.s, 0, &fresh, NULL)) {
			err_set(e, "out of memory");
			goto out;
		}
		if (corpus_add(train, en.s, pt.s, al.s, e))
			goto out;
		++*added;
		last = tries;
	}
	if (*added < j->lines) {
		err_set(e, "%s:%d: join: made only %d of the %d joined lines in %ld tries "
			"(the others were longer than max_words, sentences of the corpus "
			"already, or made twice)", grammar_file(g), j->line, *added,
			j->lines, tries);
		goto out;
	}
	rc = 0;
out:
	strtab_free(&made);
	strtab_free(&held_pt);
	free(bymark);
	free(ncand);
	free(en.s);
	free(pt.s);
	free(al.s);
	return rc;
}
