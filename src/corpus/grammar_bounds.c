/* grammar_bounds.c - what a grammar can make at most, checked when it is
 * loaded: how deep its phrases nest and how many words a template's
 * sentence can have (grammar_int.h: GR_MAXDEPTH, GR_MAXWORDS). */
#include <stdint.h>

#include "grammar_int.h"
#include "base/i18n.h"

/* The most words class c can put on one side. */
static uint32_t class_maxw(const struct gr_class *c, int side)
{
	uint32_t m = 0;
	for (int i = 0; i < c->nentries; i++) {
		const struct gr_entry *en = c->entries[i];
		for (int k = 0; k < en->home->nkeys[side]; k++)
			if ((uint32_t)en->forms[side][k].nw > m)
				m = (uint32_t)en->forms[side][k].nw;
	}
	return m;
}

/* The most words rule r can put on one side (saturating at UINT32_MAX):
 * literals count one, slots what their symbol can make.  Its phrases must
 * be checked already. */
static uint32_t rule_maxw(const struct grammar *g, const struct gr_rule *r, int side)
{
	uint64_t n = 0;
	for (int t = 0; t < r->ntoks[side]; t++) {
		const struct gr_tok *tk = &r->toks[side][t];
		if (tk->slot < 0) {
			n++;
			continue;
		}
		const struct gr_symbol *s = &g->syms[r->slots[tk->slot].sym];
		n += s->kind == SYM_PHRASE ? g->phrases[s->idx].maxw[side] :
		     class_maxw(&g->classes[s->idx], side);
		if (n > UINT32_MAX)
			return UINT32_MAX;
	}
	return (uint32_t)n;
}

/* A phrase must not contain itself (derivations stay finite), nor nest
 * more than GR_MAXDEPTH phrases (the derivation recurses once a level, and
 * so does this check: depth bounds both).  Computes p->height and
 * p->maxw. */
int gr_phrase_check(struct grammar *g, struct gr_phrase *p, int depth, struct err *e)
{
	if (p->state == 2) {
		if (depth + p->height > GR_MAXDEPTH)
			goto deep;
		return 0;
	}
	if (p->state == 1)
		return err_set(e, "%s:%d: phrase %s contains itself (recursion is not "
			       "supported)", g->file, p->line, p->name);
	if (depth >= GR_MAXDEPTH)
		goto deep;
	p->state = 1;
	int h = 0;
	for (int i = 0; i < p->nrules; i++)
		for (int k = 0; k < p->rules[i].nslots; k++) {
			const struct gr_symbol *s = &g->syms[p->rules[i].slots[k].sym];
			if (s->kind != SYM_PHRASE)
				continue;
			struct gr_phrase *q = &g->phrases[s->idx];
			if (gr_phrase_check(g, q, depth + 1, e))
				return -1;
			h = q->height > h ? q->height : h;
		}
	p->height = h + 1;
	for (int side = 0; side < NSIDE; side++) {
		p->maxw[side] = 0;
		for (int i = 0; i < p->nrules; i++) {
			uint32_t w = rule_maxw(g, &p->rules[i], side);
			p->maxw[side] = w > p->maxw[side] ? w : p->maxw[side];
		}
	}
	p->state = 2;
	return 0;
deep:
	return err_set(e, "%s:%d: phrase %s: phrases nest more than %d deep", g->file,
		       p->line, p->name, GR_MAXDEPTH);
}

/* A template's sentences must stay within GR_MAXWORDS words a side (phrases
 * that double at every level would otherwise ask for 2^40 words). */
int gr_template_size(const struct grammar *g, const struct gr_rule *r, struct err *e)
{
	for (int side = 0; side < NSIDE; side++) {
		uint32_t w = rule_maxw(g, r, side);
		if (w > GR_MAXWORDS) {
			if (w == UINT32_MAX)
				return err_set(e, "%s:%d: %s can make sentences of more than %u words "
					       "(at most %d)", g->file, r->line, r->id, w, GR_MAXWORDS);
			return err_set(e, "%s:%d: %s can make sentences of %u words (at most %d)",
				       g->file, r->line, r->id, w, GR_MAXWORDS);
		}
	}
	return 0;
}
