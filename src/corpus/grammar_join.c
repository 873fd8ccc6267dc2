/* grammar_join.c - the grammar's optional top-level join: (the lines,
 * their longest side and the connectors drawn between two training
 * pairs; corpus_gen.c makes the lines).
 *
 *   join:
 *     lines: 12000
 *     max_words: 24
 *     with:
 *       - {en: ", but", pt: ", mas", weight: 2, after: [".", ""]}
 *
 * Each connector's words pass the grammar's word check; after: lists the
 * final marks (".", "!", "?", "" for none) of the first sentence it may
 * follow, by default [".", "!", ""]; before: those the second may end
 * in, by default all four. */
#include <string.h>

#include "grammar_int.h"
#include "base/i18n.h"

#define MAXCONN 256       /* connectors (their weights add up in a long) */
#define MAXCONNWORDS 8    /* words of one side of a connector */

#define OOM(g, e) err_set(e, "%s: out of memory", (g)->file)

int grammar_mark(const char *w)
{
	if (w[0] && !w[1])
		switch (w[0]) {
		case '.': return GR_MARK_DOT;
		case '!': return GR_MARK_BANG;
		case '?': return GR_MARK_QUESTION;
		}
	return GR_MARK_NONE;
}

/* after: or before: (key), a final mark or a list of them, into bits */
static int parse_marks(const struct grammar *g, const struct ynode *v, const char *key,
		       unsigned *after, struct err *e)
{
	if (v->kind == Y_MAP)
		return gr_need(g, v, Y_SEQ, key, e);
	size_t n = v->kind == Y_SEQ ? v->n : 1;
	*after = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *m = v->kind == Y_SEQ ? v->items[i] : v;
		if (gr_need(g, m, Y_SCALAR, _("a final mark"), e))
			return -1;
		int k = grammar_mark(m->str);
		if (k == GR_MARK_NONE && m->str[0])
			return err_set(e, "%s:%d: join: %s: \"%s\" is not a final mark "
				       "(expected \".\", \"!\", \"?\", or \"\" for a sentence "
				       "that ends in a word)", g->file, m->line, key, m->str);
		*after |= 1u << k;
	}
	if (!*after)
		return err_set(e, "%s:%d: join: %s: lists no final mark", g->file,
			       v->line, key);
	return 0;
}

static int parse_connector(struct grammar *g, const struct ynode *n,
			   struct gr_connector *c, struct err *e)
{
	static const char *const SIDE[NSIDE] = { "en", "pt" };
	const struct ynode *side[NSIDE] = { NULL, NULL };
	if (gr_need(g, n, Y_MAP, _("a connector ({en: ..., pt: ...})"), e))
		return -1;
	c->line = n->line;
	c->weight = 1;
	c->after = 1u << GR_MARK_DOT | 1u << GR_MARK_BANG | 1u << GR_MARK_NONE;
	c->before = (1u << GR_NMARKS) - 1;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "en") == 0) {
			side[EN] = v;
		} else if (strcmp(k->str, "pt") == 0) {
			side[PT] = v;
		} else if (strcmp(k->str, "weight") == 0) {
			long long w;
			if (ynode_int(&g->doc, v, 1, GR_MAXWEIGHT, &w, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			c->weight = (int)w;
		} else if (strcmp(k->str, "after") == 0) {
			if (parse_marks(g, v, "after", &c->after, e))
				return -1;
		} else if (strcmp(k->str, "before") == 0) {
			if (parse_marks(g, v, "before", &c->before, e))
				return -1;
		} else {
			return err_set(e, "%s:%d: unknown key \"%s\" in a join: connector "
				       "(expected en, pt, weight, after, before)", g->file, k->line,
				       k->str);
		}
	}
	for (int s = 0; s < NSIDE; s++) {
		if (!side[s])
			return err_set(e, "%s:%d: join: connector without %s:", g->file,
				       n->line, SIDE[s]);
		if (gr_need(g, side[s], Y_SCALAR, _("a connector's words"), e) ||
		    gr_split_words(g, side[s]->str, side[s]->len, &c->w[s], &c->nw[s], e))
			return -1;
		if (c->nw[s] < 1 || c->nw[s] > MAXCONNWORDS)
			return err_set(e, "%s:%d: join: a connector needs 1 to %d words a "
				       "side, found %d in %s:", g->file, side[s]->line,
				       MAXCONNWORDS, c->nw[s], SIDE[s]);
		for (int i = 0; i < c->nw[s]; i++)
			if (gr_check_word(g, side[s]->line, c->w[s][i], e))
				return -1;
	}
	return 0;
}

int gr_parse_join(struct grammar *g, const struct ynode *n, int line, struct err *e)
{
	if (gr_need(g, n, Y_MAP, "join", e))
		return -1;
	struct gr_join *j = gr_alloc(g, sizeof *j);
	if (!j)
		return OOM(g, e);
	j->line = line;
	const struct ynode *lines = NULL, *with = NULL;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		long long x;
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "lines") == 0) {
			if (ynode_int(&g->doc, v, 1, 10000000, &x, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			j->lines = (int)x;
			lines = v;
		} else if (strcmp(k->str, "max_words") == 0) {
			if (ynode_int(&g->doc, v, 1, 1000000, &x, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			j->max_words = (int)x;
		} else if (strcmp(k->str, "with") == 0) {
			with = v;
		} else {
			return err_set(e, "%s:%d: unknown key \"%s\" in join (expected "
				       "lines, max_words, with)", g->file, k->line, k->str);
		}
	}
	if (!lines || !with)
		return err_set(e, "%s:%d: join: needs lines: (how many) and with: (the "
			       "connectors)", g->file, line);
	if (gr_need(g, with, Y_SEQ, "with", e))
		return -1;
	if (with->n == 0)
		return err_set(e, "%s:%d: join: with: lists no connector", g->file,
			       with->line);
	if (with->n > MAXCONN)
		return err_set(e, "%s:%d: join: at most %d connectors", g->file,
			       with->line, MAXCONN);
	j->with = gr_alloc(g, with->n * sizeof *j->with);
	if (!j->with)
		return OOM(g, e);
	for (size_t i = 0; i < with->n; i++) {
		if (parse_connector(g, with->items[i], &j->with[i], e))
			return -1;
		j->total_weight += j->with[i].weight;
		j->nwith++;
	}
	g->join = j;
	return 0;
}

const struct gr_join *grammar_join(const struct grammar *g) { return g->join; }
