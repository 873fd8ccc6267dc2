/* grammar.c - loading and checking a bilingual template grammar: the
 * file's top level, phrases, templates and rewrite rules (the features and
 * the lexicon are read in grammar_lex.c, join: in grammar_join.c).
 *
 * Everything that can be checked without deriving a sentence is checked,
 * each error naming file:line: unknown keys, undefined symbols and slots,
 * feature values, slots that differ between the two word orders, cycles
 * among phrases, and words that the word tokenizer would split or change
 * (upper case, punctuation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar_int.h"
#include "base/i18n.h"

static const char *const SIDE[NSIDE] = { "en", "pt" };
/* TRANSLATORS: the languages of a grammar's two sides, in messages such as
 * "the %s side" and "(the %s word order)". */
static const char *const SIDE_NAME[NSIDE] = { N_("English"), N_("Portuguese") };

#define OOM(g, e) err_set(e, "%s: out of memory", (g)->file)

/* ---- rules: templates and the alternatives of phrases ---- */

static int slot_index(const struct gr_rule *r, const char *name)
{
	for (int i = 0; i < r->nslots; i++)
		if (strcmp(r->slots[i].name, name) == 0)
			return i;
	return -1;
}

static int slot_ref(const struct grammar *g, const struct gr_rule *r,
		    const struct gr_slot *s, const struct ynode *v, const char *what,
		    int *out, struct err *e)
{
	if (gr_need(g, v, Y_SCALAR, what, e))
		return -1;
	int i = slot_index(r, v->str);
	if (i < 0)
		return err_set(e, "%s:%d: %s %s: %s refers to undefined slot \"%s\"",
			       g->file, v->line, r->id, s->name, what, v->str);
	if (i == s - r->slots)
		return err_set(e, "%s:%d: %s %s: %s refers to the slot itself",
			       g->file, v->line, r->id, s->name, what);
	*out = i;
	return 0;
}

static int parse_fspec_key(const struct grammar *g, const struct ynode *k,
			   const struct ynode *v, struct gr_fspec *sp, int *matched,
			   struct err *e)
{
	int side, f = gr_feature_key(g, k->str, &side);
	*matched = f >= 0;
	if (f < 0)
		return 0;
	uint32_t mask;
	if (gr_feature_values(g, v, f, 1, &mask, e))
		return -1;
	if (side < 0)
		sp->both[f] = mask;
	else
		sp->side[side][f] = mask;
	return 0;
}

/* First pass over a slot: the symbol and the constraints; references to
 * other slots are resolved in slot_links once all slots are known. */
static int parse_slot(struct grammar *g, struct gr_rule *r, const struct ynode *k,
		      const struct ynode *v, struct gr_slot *s, struct err *e)
{
	if (gr_need(g, k, Y_SCALAR, _("a slot name"), e))
		return -1;
	if (!gr_is_ident(k->str, 1))
		return err_set(e, "%s:%d: %s: slot name \"%s\" must start with an "
			       "upper-case letter (words are lower case)", g->file,
			       k->line, r->id, k->str);
	s->name = k->str;
	s->line = k->line;
	s->agree = -1;
	s->same = -1;
	s->link = GR_NOLINK;
	const struct ynode *sym = NULL;
	if (v->kind == Y_SCALAR) {
		sym = v;
	} else if (v->kind == Y_MAP) {
		for (size_t i = 0; i < v->n; i++) {
			const struct ynode *kk = v->items[2 * i];
			int matched;
			if (gr_need(g, kk, Y_SCALAR, _("a key"), e))
				return -1;
			if (strcmp(kk->str, "sym") == 0) {
				sym = v->items[2 * i + 1];
			} else if (strcmp(kk->str, "agree") != 0 &&
				   strcmp(kk->str, "agree_on") != 0 &&
				   strcmp(kk->str, "differ") != 0 &&
				   strcmp(kk->str, "same") != 0 &&
				   strcmp(kk->str, "link") != 0) {
				if (parse_fspec_key(g, kk, v->items[2 * i + 1], &s->spec,
						    &matched, e))
					return -1;
				if (!matched)
					return err_set(e, "%s:%d: %s: unknown key \"%s\" in slot "
						       "%s (expected sym, agree, agree_on, "
						       "differ, same, link or a feature)", g->file,
						       kk->line, r->id, kk->str, s->name);
			}
		}
		if (!sym)
			return err_set(e, "%s:%d: %s: slot %s has no sym: (the symbol it "
				       "takes its words from)", g->file, v->line, r->id,
				       s->name);
	} else {
		return err_set(e, "%s:%d: %s: slot %s must be a symbol name or a "
			       "mapping, found a sequence", g->file, v->line, r->id, s->name);
	}
	if (gr_need(g, sym, Y_SCALAR, "sym", e))
		return -1;
	s->sym = gr_find_symbol(g, sym->str);
	if (s->sym < 0)
		return err_set(e, "%s:%d: %s: slot %s refers to undefined symbol \"%s\"",
			       g->file, sym->line, r->id, s->name, sym->str);
	return 0;
}

static int slot_links(struct grammar *g, struct gr_rule *r, const struct ynode *v,
		      struct gr_slot *s, struct err *e)
{
	if (v->kind != Y_MAP)
		return 0;
	const struct ynode *on = ynode_get(v, "agree_on"), *x;
	if ((x = ynode_get(v, "agree")) && slot_ref(g, r, s, x, "agree", &s->agree, e))
		return -1;
	s->agree_mask = s->agree >= 0 ? (1u << g->nfeat) - 1 : 0;
	if (on) {
		if (s->agree < 0)
			return err_set(e, "%s:%d: %s: slot %s: agree_on without agree",
				       g->file, on->line, r->id, s->name);
		if (on->kind != Y_SEQ && on->kind != Y_SCALAR)
			return err_set(e, "%s:%d: agree_on must list features", g->file,
				       on->line);
		s->agree_mask = 0;
		size_t n = on->kind == Y_SEQ ? on->n : 1;
		for (size_t i = 0; i < n; i++) {
			const struct ynode *f = on->kind == Y_SEQ ? on->items[i] : on;
			int fi = f->kind == Y_SCALAR ? gr_find_feature(g, f->str) : -1;
			if (fi < 0)
				return err_set(e, "%s:%d: agree_on: \"%s\" is not a feature",
					       g->file, f->line,
					       f->kind == Y_SCALAR ? f->str : _("(list)"));
			s->agree_mask |= 1u << fi;
		}
	}
	if ((x = ynode_get(v, "differ"))) {
		size_t n = x->kind == Y_SEQ ? x->n : 1;
		if (n > GR_MAXDIFFER)
			return err_set(e, "%s:%d: at most %d differ: slots", g->file,
				       x->line, GR_MAXDIFFER);
		for (size_t i = 0; i < n; i++)
			if (slot_ref(g, r, s, x->kind == Y_SEQ ? x->items[i] : x, "differ",
				     &s->differ[s->ndiffer++], e))
				return -1;
	}
	if ((x = ynode_get(v, "same")) && slot_ref(g, r, s, x, "same", &s->same, e))
		return -1;
	if ((x = ynode_get(v, "link"))) {
		if (x->kind == Y_SCALAR && strcmp(x->str, "none") == 0)
			s->link = -1;
		else if (slot_ref(g, r, s, x, "link", &s->link, e))
			return -1;
	}
	return 0;
}

static int parse_tokens(struct grammar *g, struct gr_rule *r, int side,
			const struct ynode *v, struct err *e)
{
	if (!v)
		return err_set(e, "%s:%d: %s has no %s: (the %s word order)", g->file,
			       r->line, r->id, SIDE[side], _(SIDE_NAME[side]));
	if (gr_need(g, v, Y_SCALAR, _("a word order"), e))
		return -1;
	const char **w;
	int n;
	if (gr_split_words(g, v->str, v->len, &w, &n, e))
		return -1;
	if (n == 0 || n > 64)
		return err_set(e, "%s:%d: %s: the %s side needs 1 to 64 words and slots",
			       g->file, v->line, r->id, _(SIDE_NAME[side]));
	r->toks[side] = gr_alloc(g, (size_t)n * sizeof *r->toks[side]);
	if (!r->toks[side])
		return OOM(g, e);
	r->ntoks[side] = n;
	for (int i = 0; i < n; i++) {
		struct gr_tok *t = &r->toks[side][i];
		t->link_slot = t->link_tok = -1;
		t->slot = -1;
		if (w[i][0] >= 'A' && w[i][0] <= 'Z') {
			t->slot = slot_index(r, w[i]);
			if (t->slot < 0)
				return err_set(e, "%s:%d: %s: \"%s\" in the %s side refers to "
					       "an undefined slot (declare it under slots:)",
					       g->file, v->line, r->id, w[i], _(SIDE_NAME[side]));
			struct gr_slot *s = &r->slots[t->slot];
			if (++s->count[side] > GR_MAXOCC)
				return err_set(e, "%s:%d: %s: slot %s used more than %d times",
					       g->file, v->line, r->id, s->name, GR_MAXOCC);
			continue;
		}
		char *eq = strchr(w[i], '=');
		t->word = w[i];
		if (eq) {
			*eq = 0;
			t->link_name = eq + 1;
			if (!eq[1])
				return err_set(e, "%s:%d: %s: \"%s=\" links to nothing", g->file,
					       v->line, r->id, w[i]);
		}
		if (gr_check_word(g, v->line, t->word, e))
			return -1;
	}
	return 0;
}

/* Resolves "word=X" links once both sides are read: X is a slot (upper
 * case) or a literal word of the other side. */
static int literal_links(struct grammar *g, struct gr_rule *r,
			 const struct ynode *const side_node[NSIDE], struct err *e)
{
	for (int side = 0; side < NSIDE; side++) {
		int other = 1 - side, line = side_node[side]->line;
		for (int i = 0; i < r->ntoks[side]; i++) {
			struct gr_tok *t = &r->toks[side][i];
			const char *x = t->link_name;
			if (t->slot >= 0 || !x)
				continue;
			if (x[0] >= 'A' && x[0] <= 'Z') {
				t->link_slot = slot_index(r, x);
				if (t->link_slot < 0)
					return err_set(e, "%s:%d: %s: \"%s=%s\" links to an "
						       "undefined slot", g->file, line, r->id,
						       t->word, x);
				if (!r->slots[t->link_slot].count[other])
					return err_set(e, "%s:%d: %s: \"%s=%s\": slot %s is not "
						       "in the %s side", g->file, line, r->id,
						       t->word, x, x, _(SIDE_NAME[other]));
				continue;
			}
			for (int k = 0; k < r->ntoks[other]; k++) {
				const struct gr_tok *o = &r->toks[other][k];
				if (o->slot >= 0 || strcmp(o->word, x) != 0)
					continue;
				if (t->link_tok >= 0)
					return err_set(e, "%s:%d: %s: \"%s=%s\": \"%s\" occurs "
						       "more than once in the %s side", g->file,
						       line, r->id, t->word, x, x,
						       _(SIDE_NAME[other]));
				t->link_tok = k;
			}
			if (t->link_tok < 0)
				return err_set(e, "%s:%d: %s: \"%s=%s\": no word \"%s\" in the "
					       "%s side", g->file, line, r->id, t->word, x, x,
					       _(SIDE_NAME[other]));
		}
	}
	return 0;
}

static int check_slots(struct grammar *g, struct gr_rule *r, struct err *e)
{
	for (int i = 0; i < r->nslots; i++) {
		struct gr_slot *s = &r->slots[i];
		int ce = s->count[EN], cp = s->count[PT];
		if (!ce && !cp)
			return err_set(e, "%s:%d: %s: slot %s is declared but used on "
				       "neither side", g->file, s->line, r->id, s->name);
		if (ce && cp) {
			if (ce != cp)
				return err_set(e, P_("%s:%d: %s: slot %s appears %d time in the "
						     "English side and %d in the Portuguese side",
						     "%s:%d: %s: slot %s appears %d times in the "
						     "English side and %d in the Portuguese side", ce),
					       g->file, s->line, r->id, s->name, ce, cp);
			if (s->link != GR_NOLINK)
				return err_set(e, "%s:%d: %s: slot %s is on both sides; link: "
					       "is only for a slot used on one side", g->file,
					       s->line, r->id, s->name);
			continue;
		}
		int side = ce ? EN : PT;
		if (s->link == GR_NOLINK)
			return err_set(e, "%s:%d: %s: slot %s appears in the %s side but not "
				       "in the %s side (the sides must use the same slots; "
				       "give link: SLOT or link: none for a one-sided word)",
				       g->file, s->line, r->id, s->name, _(SIDE_NAME[side]),
				       _(SIDE_NAME[1 - side]));
		if (s->link >= 0 && !r->slots[s->link].count[1 - side])
			return err_set(e, "%s:%d: %s: slot %s links to %s, which is not in "
				       "the %s side", g->file, s->line, r->id, s->name,
				       r->slots[s->link].name, _(SIDE_NAME[1 - side]));
	}
	return 0;
}

/* Evaluation order: a slot after the slots it agrees with, differs from or
 * shares a key with. */
static int order_slots(struct grammar *g, struct gr_rule *r, struct err *e)
{
	int done[GR_MAXSLOTS] = { 0 }, n = 0;
	while (n < r->nslots) {
		int progress = 0;
		for (int i = 0; i < r->nslots; i++) {
			const struct gr_slot *s = &r->slots[i];
			if (done[i])
				continue;
			int ready = (s->agree < 0 || done[s->agree]) &&
				    (s->same < 0 || done[s->same]);
			for (int k = 0; k < s->ndiffer; k++)
				ready = ready && done[s->differ[k]];
			if (ready) {
				done[i] = 1;
				r->order[n++] = i;
				progress = 1;
			}
		}
		if (!progress)
			return err_set(e, "%s:%d: %s: the slots' agree:/differ:/same: references "
				       "form a cycle", g->file, r->line, r->id);
	}
	return 0;
}

static int parse_require(struct grammar *g, struct gr_rule *r,
			 const struct ynode *v, struct err *e)
{
	if (gr_need(g, v, Y_SEQ, "require", e))
		return -1;
	r->req = gr_alloc(g, (v->n ? v->n : 1) * sizeof *r->req);
	if (!r->req)
		return OOM(g, e);
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *x = v->items[i];
		struct gr_req *q = &r->req[r->nreq++];
		q->line = x->line;
		if (x->kind == Y_SCALAR) {
			q->en = x->str;
			continue;
		}
		if (gr_need(g, x, Y_MAP, _("a required sentence"), e))
			return -1;
		for (size_t k = 0; k < x->n; k++) {
			const struct ynode *kk = x->items[2 * k], *vv = x->items[2 * k + 1];
			if (gr_need(g, kk, Y_SCALAR, _("a key"), e) ||
			    gr_need(g, vv, Y_SCALAR, _("a sentence"), e))
				return -1;
			if (strcmp(kk->str, "en") == 0)
				q->en = vv->str;
			else if (strcmp(kk->str, "pt") == 0)
				q->pt = vv->str;
			else
				return err_set(e, "%s:%d: unknown key \"%s\" in require "
					       "(expected en, pt)", g->file, kk->line, kk->str);
		}
		if (!q->en)
			return err_set(e, "%s:%d: required sentence without en:", g->file,
				       x->line);
	}
	return 0;
}

static int parse_rule(struct grammar *g, const struct ynode *n, int is_template,
		      const char *phrase, int index, struct gr_rule *r, struct err *e)
{
	char idbuf[160], num[16];
	if (gr_need(g, n, Y_MAP, is_template ? _("a template") : _("a phrase rule"), e))
		return -1;
	r->line = n->line;
	r->weight = 1;
	r->repeat = 1;
	r->head = -1;
	/* the id names the rule in messages; a template's name (its id:, else
	 * its number) is the same in every language */
	snprintf(num, sizeof num, "%d", index + 1);
	if (is_template)
		snprintf(idbuf, sizeof idbuf, _("template %d"), index + 1);
	else
		snprintf(idbuf, sizeof idbuf, _("phrase %s rule %d"), phrase, index + 1);
	const struct ynode *slots = NULL, *side[NSIDE] = { NULL, NULL }, *req = NULL;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		int matched;
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "slots") == 0) {
			slots = v;
		} else if (strcmp(k->str, "en") == 0) {
			side[EN] = v;
		} else if (strcmp(k->str, "pt") == 0) {
			side[PT] = v;
		} else if (strcmp(k->str, "weight") == 0) {
			long long w;
			if (ynode_int(&g->doc, v, 1, GR_MAXWEIGHT, &w, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			r->weight = (int)w;
		} else if (is_template && strcmp(k->str, "id") == 0) {
			if (gr_need(g, v, Y_SCALAR, "id", e))
				return -1;
			snprintf(idbuf, sizeof idbuf, _("template %s"), v->str);
			r->name = v->str;
		} else if (is_template && strcmp(k->str, "repeat") == 0) {
			long long w;
			if (ynode_int(&g->doc, v, 1, 100, &w, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			r->repeat = (int)w;
		} else if (is_template && strcmp(k->str, "require") == 0) {
			req = v;
		} else if (strcmp(k->str, "f") == 0) {
			if (gr_need(g, v, Y_MAP, "f", e))
				return -1;
			for (size_t q = 0; q < v->n; q++) {
				const struct ynode *fk = v->items[2 * q];
				if (gr_need(g, fk, Y_SCALAR, _("a feature"), e) ||
				    parse_fspec_key(g, fk, v->items[2 * q + 1], &r->spec,
						    &matched, e))
					return -1;
				if (!matched)
					return err_set(e, "%s:%d: \"%s\" is not a feature",
						       g->file, fk->line, fk->str);
			}
		} else {
			if (is_template)
				return err_set(e, "%s:%d: unknown key \"%s\" in a template "
					       "(expected id, weight, repeat, f, slots, en, pt, require)",
					       g->file, k->line, k->str);
			return err_set(e, "%s:%d: unknown key \"%s\" in a phrase rule "
				       "(expected weight, f, slots, en, pt)", g->file, k->line,
				       k->str);
		}
	}
	if (!(r->id = gr_strndup(g, idbuf, strlen(idbuf))))
		return OOM(g, e);
	if (!r->name && !(r->name = is_template ? gr_strndup(g, num, strlen(num)) : r->id))
		return OOM(g, e);
	if (!slots)
		return err_set(e, "%s:%d: %s has no slots:", g->file, n->line, r->id);
	if (gr_need(g, slots, Y_MAP, "slots", e))
		return -1;
	if (slots->n > GR_MAXSLOTS)
		return err_set(e, "%s:%d: %s: at most %d slots", g->file, slots->line,
			       r->id, GR_MAXSLOTS);
	r->slots = gr_alloc(g, (slots->n ? slots->n : 1) * sizeof *r->slots);
	if (!r->slots)
		return OOM(g, e);
	for (size_t i = 0; i < slots->n; i++) {
		const struct ynode *k = slots->items[2 * i];
		if (parse_slot(g, r, k, slots->items[2 * i + 1], &r->slots[i], e))
			return -1;
		if (slot_index(r, k->str) >= 0)
			return err_set(e, "%s:%d: %s: slot %s declared twice", g->file,
				       k->line, r->id, k->str);
		r->nslots++;
	}
	for (int i = 0; i < r->nslots; i++)
		if (slot_links(g, r, slots->items[2 * i + 1], &r->slots[i], e))
			return -1;
	for (int s = 0; s < NSIDE; s++)
		if (parse_tokens(g, r, s, side[s], e))
			return -1;
	if (literal_links(g, r, side, e) || check_slots(g, r, e) ||
	    order_slots(g, r, e))
		return -1;
	if (req && parse_require(g, r, req, e))
		return -1;
	return 0;
}

static int parse_phrase(struct grammar *g, struct gr_phrase *p,
			const struct ynode *n, struct err *e)
{
	if (gr_need(g, n, Y_MAP, _("a phrase"), e))
		return -1;
	const struct ynode *head = NULL, *rules = NULL;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i];
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "head") == 0)
			head = n->items[2 * i + 1];
		else if (strcmp(k->str, "rules") == 0)
			rules = n->items[2 * i + 1];
		else
			return err_set(e, "%s:%d: unknown key \"%s\" in phrase %s (expected "
				       "head, rules)", g->file, k->line, k->str, p->name);
	}
	if (!head || !rules)
		return err_set(e, "%s:%d: phrase %s needs head: (a slot name) and rules:",
			       g->file, n->line, p->name);
	if (gr_need(g, head, Y_SCALAR, "head", e) || gr_need(g, rules, Y_SEQ, "rules", e))
		return -1;
	if (rules->n == 0)
		return err_set(e, "%s:%d: phrase %s has no rules", g->file, rules->line,
			       p->name);
	p->rules = gr_alloc(g, rules->n * sizeof *p->rules);
	if (!p->rules)
		return OOM(g, e);
	for (size_t i = 0; i < rules->n; i++) {
		struct gr_rule *r = &p->rules[i];
		if (parse_rule(g, rules->items[i], 0, p->name, (int)i, r, e))
			return -1;
		p->nrules++;
		p->total_weight += r->weight;
		r->head = slot_index(r, head->str);
		if (r->head < 0)
			return err_set(e, "%s:%d: %s has no slot %s (the phrase's head)",
				       g->file, r->line, r->id, head->str);
	}
	return 0;
}

/* ---- rewrite rules ---- */

static int parse_rewrite(struct grammar *g, const struct ynode *n, struct err *e)
{
	if (gr_need(g, n, Y_MAP, "rewrite", e))
		return -1;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "en_before_vowel") == 0) {
			if (gr_need(g, v, Y_MAP, "en_before_vowel", e))
				return -1;
			g->vowel = gr_alloc(g, (v->n ? v->n : 1) * sizeof *g->vowel);
			if (!g->vowel)
				return OOM(g, e);
			for (size_t q = 0; q < v->n; q++) {
				const struct ynode *a = v->items[2 * q], *b = v->items[2 * q + 1];
				if (gr_need(g, a, Y_SCALAR, _("a word"), e) ||
				    gr_need(g, b, Y_SCALAR, _("a word"), e) ||
				    gr_check_word(g, a->line, a->str, e) ||
				    gr_check_word(g, b->line, b->str, e))
					return -1;
				g->vowel[g->nvowel].w = a->str;
				g->vowel[g->nvowel++].out = b->str;
			}
		} else if (strcmp(k->str, "pt_contractions") == 0) {
			const struct ynode *after = NULL, *pairs = NULL;
			if (gr_need(g, v, Y_MAP, "pt_contractions", e))
				return -1;
			for (size_t q = 0; q < v->n; q++) {
				const struct ynode *kk = v->items[2 * q];
				if (gr_need(g, kk, Y_SCALAR, _("a key"), e))
					return -1;
				if (strcmp(kk->str, "after") == 0)
					after = v->items[2 * q + 1];
				else if (strcmp(kk->str, "pairs") == 0)
					pairs = v->items[2 * q + 1];
				else
					return err_set(e, "%s:%d: unknown key \"%s\" in "
						       "pt_contractions (expected after, pairs)",
						       g->file, kk->line, kk->str);
			}
			if (!after || !pairs)
				return err_set(e, "%s:%d: pt_contractions needs after: (the "
					       "classes whose words contract) and pairs:",
					       g->file, v->line);
			if (gr_need(g, after, Y_SEQ, "after", e) || gr_need(g, pairs, Y_MAP, "pairs", e))
				return -1;
			for (size_t q = 0; q < after->n; q++) {
				struct gr_class *c;
				if (gr_class_ref(g, after->items[q], "after", &c, e))
					return -1;
				for (int m = 0; m < c->nentries; m++)
					((struct gr_class *)c->entries[m]->home)->article = 1;
			}
			g->contr = gr_alloc(g, (pairs->n ? pairs->n : 1) * sizeof *g->contr);
			if (!g->contr)
				return OOM(g, e);
			for (size_t q = 0; q < pairs->n; q++) {
				const struct ynode *a = pairs->items[2 * q],
						   *b = pairs->items[2 * q + 1];
				const char **w;
				int nw;
				if (gr_need(g, a, Y_SCALAR, _("two words"), e) ||
				    gr_need(g, b, Y_SCALAR, _("a word"), e) ||
				    gr_split_words(g, a->str, a->len, &w, &nw, e))
					return -1;
				if (nw != 2)
					return err_set(e, "%s:%d: contraction \"%s\" must be two "
						       "words (preposition article)", g->file,
						       a->line, a->str);
				const char **o;
				int no;
				if (gr_check_word(g, a->line, w[0], e) ||
				    gr_check_word(g, a->line, w[1], e) ||
				    gr_split_words(g, b->str, b->len, &o, &no, e))
					return -1;
				/* one word (de o: do), or the first changed and the
				   second kept (de seu: do seu) */
				if (!(no == 1 || (no == 2 && strcmp(o[1], w[1]) == 0)))
					return err_set(e, "%s:%d: contraction \"%s: %s\" must give one "
						       "word, or two ending in \"%s\"", g->file,
						       b->line, a->str, b->str, w[1]);
				if (gr_check_word(g, b->line, o[0], e))
					return -1;
				struct gr_contraction *c = &g->contr[g->ncontr++];
				c->a = w[0];
				c->b = w[1];
				c->out = o[0];
				c->keep = no == 2;
			}
		} else {
			return err_set(e, "%s:%d: unknown key \"%s\" in rewrite (expected "
				       "pt_contractions, en_before_vowel)", g->file, k->line,
				       k->str);
		}
	}
	return 0;
}

/* ---- the whole file ---- */

static int add_symbols(struct grammar *g, const struct ynode *map, int kind,
		       struct err *e)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->items[2 * i];
		if (gr_need(g, k, Y_SCALAR, _("a symbol name"), e))
			return -1;
		if (!gr_is_ident(k->str, 0))
			return err_set(e, "%s:%d: symbol name \"%s\" must be a lower-case "
				       "identifier (upper case names slots)", g->file, k->line,
				       k->str);
		int s = gr_find_symbol(g, k->str);
		if (s >= 0)
			return err_set(e, "%s:%d: symbol %s is defined twice (also at line %d)",
				       g->file, k->line, k->str, g->syms[s].line);
		struct gr_symbol *sy = &g->syms[g->nsyms++];
		sy->name = k->str;
		sy->line = k->line;
		sy->kind = kind;
		if (kind == SYM_CLASS) {
			struct gr_class *c = &g->classes[g->nclasses];
			c->name = k->str;
			c->line = k->line;
			c->index = g->nclasses;
			c->node = map->items[2 * i + 1];
			sy->idx = g->nclasses++;
		} else {
			struct gr_phrase *p = &g->phrases[g->nphrases];
			p->name = k->str;
			p->line = k->line;
			sy->idx = g->nphrases++;
		}
	}
	return 0;
}

static int parse_grammar(struct grammar *g, struct err *e)
{
	const struct ynode *root = g->doc.root;
	const struct ynode *feat = NULL, *lex = NULL, *phr = NULL, *tmpl = NULL,
			   *rew = NULL, *join = NULL;
	int join_line = 0;
	if (!root)
		return err_set(e, "%s: empty grammar", g->file);
	if (gr_need(g, root, Y_MAP, _("the grammar"), e))
		return -1;
	for (size_t i = 0; i < root->n; i++) {
		const struct ynode *k = root->items[2 * i], *v = root->items[2 * i + 1];
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "features") == 0)
			feat = v;
		else if (strcmp(k->str, "lexicon") == 0)
			lex = v;
		else if (strcmp(k->str, "phrases") == 0)
			phr = v;
		else if (strcmp(k->str, "templates") == 0) {
			tmpl = v;
			g->tmpl_line = k->line;
		} else if (strcmp(k->str, "rewrite") == 0)
			rew = v;
		else if (strcmp(k->str, "join") == 0) {
			join = v;
			join_line = k->line;
		} else if (strcmp(k->str, "name") != 0 && strcmp(k->str, "description") != 0)
			return err_set(e, "%s:%d: unknown key \"%s\" (expected name, "
				       "description, features, lexicon, phrases, templates, "
				       "rewrite, join)", g->file, k->line, k->str);
	}
	if (!feat || !lex || !tmpl)
		return err_set(e, "%s:%d: a grammar needs features:, lexicon: and "
			       "templates:", g->file, root->line);
	if (gr_parse_features(g, feat, e))
		return -1;
	if (gr_need(g, lex, Y_MAP, "lexicon", e) || (phr && gr_need(g, phr, Y_MAP, "phrases", e)) ||
	    gr_need(g, tmpl, Y_SEQ, "templates", e))
		return -1;
	size_t nsym = lex->n + (phr ? phr->n : 0);
	g->syms = gr_alloc(g, (nsym ? nsym : 1) * sizeof *g->syms);
	g->classes = gr_alloc(g, (lex->n ? lex->n : 1) * sizeof *g->classes);
	g->phrases = gr_alloc(g, (phr && phr->n ? phr->n : 1) * sizeof *g->phrases);
	g->tmpl = gr_alloc(g, (tmpl->n ? tmpl->n : 1) * sizeof *g->tmpl);
	if (!g->syms || !g->classes || !g->phrases || !g->tmpl)
		return OOM(g, e);
	if (add_symbols(g, lex, SYM_CLASS, e) || (phr && add_symbols(g, phr, SYM_PHRASE, e)))
		return -1;
	for (int i = 0; i < g->nclasses; i++)
		if (gr_resolve_class(g, &g->classes[i], e))
			return -1;
	for (int i = 0; i < g->nphrases; i++)
		if (parse_phrase(g, &g->phrases[i], phr->items[2 * i + 1], e))
			return -1;
	for (int i = 0; i < g->nphrases; i++)
		if (gr_phrase_check(g, &g->phrases[i], 0, e))
			return -1;
	if (tmpl->n == 0)
		return err_set(e, "%s:%d: no templates", g->file, tmpl->line);
	for (size_t i = 0; i < tmpl->n; i++) {
		if (parse_rule(g, tmpl->items[i], 1, NULL, (int)i, &g->tmpl[i], e) ||
		    gr_template_size(g, &g->tmpl[i], e))
			return -1;
		for (size_t q = 0; q < i; q++)
			if (strcmp(g->tmpl[q].name, g->tmpl[i].name) == 0)
				return err_set(e, "%s:%d: %s defined twice (also at line %d)",
					       g->file, g->tmpl[i].line, g->tmpl[i].id,
					       g->tmpl[q].line);
		g->ntmpl++;
	}
	if (rew && parse_rewrite(g, rew, e))
		return -1;
	if (join && gr_parse_join(g, join, join_line, e))
		return -1;
	return 0;
}

struct grammar *grammar_load(const char *path, struct err *e)
{
	struct grammar *g = calloc(1, sizeof *g);
	if (!g || !(g->file = strdup(path))) {
		free(g);
		err_set(e, "%s: out of memory", path);
		return NULL;
	}
	if (ydoc_load(&g->doc, g->file, e) || parse_grammar(g, e)) {
		grammar_free(g);
		return NULL;
	}
	return g;
}

void grammar_free(struct grammar *g)
{
	if (!g)
		return;
	ydoc_free(&g->doc);
	gr_arena_free(g);
	free(g->file);
	free(g);
}

const char *grammar_file(const struct grammar *g) { return g->file; }
int grammar_ntemplates(const struct grammar *g) { return g->ntmpl; }
const char *grammar_template_id(const struct grammar *g, int t) { return g->tmpl[t].name; }
int grammar_template_line(const struct grammar *g, int t) { return g->tmpl[t].line; }
int grammar_template_weight(const struct grammar *g, int t) { return g->tmpl[t].weight; }
int grammar_template_repeat(const struct grammar *g, int t) { return g->tmpl[t].repeat; }
int grammar_templates_line(const struct grammar *g) { return g->tmpl_line; }
int grammar_nrequired(const struct grammar *g, int t) { return g->tmpl[t].nreq; }

void grammar_required(const struct grammar *g, int t, int i, const char **en,
		      const char **pt, int *line)
{
	const struct gr_req *q = &g->tmpl[t].req[i];
	*en = q->en;
	*pt = q->pt;
	*line = q->line;
}
