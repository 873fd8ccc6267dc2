/* grammar_derive.c - one derivation of a grammar template: choose words,
 * agree them, put them in each language's order, align them, contract.
 *
 * A rule (template or phrase alternative) is expanded slot by slot in its
 * evaluation order.  Each slot's words are pushed on per-side word stacks;
 * the rule then copies them into its two word orders and records links
 * between positions local to its own output.  A phrase's output becomes a
 * slot of the rule above it, so links compose by offsetting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar_int.h"
#include "base/i18n.h"

/* ---- the chooser ---- */

int gr_chooser_init(struct gr_chooser *c, enum gr_mode mode, struct gr_rng *rng,
		    struct err *e)
{
	memset(c, 0, sizeof *c);
	c->mode = mode;
	c->rng = rng;
	c->cap = 256;
	c->val = calloc((size_t)c->cap, sizeof *c->val);
	c->nopt = calloc((size_t)c->cap, sizeof *c->nopt);
	if (!c->val || !c->nopt) {
		gr_chooser_free(c);
		return err_set(e, "out of memory");
	}
	return 0;
}

struct ctx;
static void ctx_free(struct ctx *x);

void gr_chooser_free(struct gr_chooser *c)
{
	ctx_free(c->scratch);
	c->scratch = NULL;
	free(c->val);
	free(c->nopt);
	c->val = c->nopt = NULL;
}

void gr_chooser_reset(struct gr_chooser *c)
{
	c->len = c->replay = 0;
}

int gr_chooser_next(struct gr_chooser *c)
{
	for (int k = c->len - 1; k >= 0; k--)
		if (c->val[k] + 1 < c->nopt[k]) {
			c->val[k]++;
			c->replay = k + 1;
			return 1;
		}
	return 0;
}

/* One choice among n > 0 options; -1 when out of memory. */
static int choose(struct gr_chooser *c, uint32_t n)
{
	if (n <= 1)
		return 0;
	if (c->mode == GR_RANDOM)
		return (int)gr_rng_below(c->rng, n);
	if (c->len == c->cap) {
		int cap = c->cap * 2;
		uint32_t *v = realloc(c->val, (size_t)cap * sizeof *v);
		if (v)
			c->val = v;
		uint32_t *o = realloc(c->nopt, (size_t)cap * sizeof *o);
		if (o)
			c->nopt = o;
		if (!v || !o)
			return -1;
		c->cap = cap;
	}
	uint32_t v = c->len < c->replay ? c->val[c->len] : 0;
	if (v >= n)   /* cannot happen: derivations replay deterministically */
		v = n - 1;
	c->val[c->len] = v;
	c->nopt[c->len] = n;
	c->len++;
	return (int)v;
}

/* ---- derivation state ---- */

struct word {
	const char *s;
	int cls;                  /* the class it came from, -1 for a literal */
};

struct link {
	int i, j;
};

struct ctx {
	const struct grammar *g;
	struct gr_chooser *ch;
	struct err *e;
	struct word *w[NSIDE];
	int nw[NSIDE], capw[NSIDE];
	struct link *l;
	int nl, capl;
	int *cand;
	long long work;           /* words pushed by every derivation so far */
};

/* What a slot produced. */
struct res {
	gr_env env;
	const char *key;
	int ws[NSIDE], wn[NSIDE];     /* its words on the word stacks */
	int ls, ln;                   /* its links (local positions) */
	int cross;                    /* a word class: all-to-all links */
};

static int push_word(struct ctx *x, int side, const char *s, int cls)
{
	if (x->nw[side] == x->capw[side]) {
		int cap = x->capw[side] ? x->capw[side] * 2 : 256;
		struct word *w = realloc(x->w[side], (size_t)cap * sizeof *w);
		if (!w)
			return err_set(x->e, "out of memory");
		x->w[side] = w;
		x->capw[side] = cap;
	}
	x->w[side][x->nw[side]].s = s;
	x->w[side][x->nw[side]++].cls = cls;
	x->work++;
	return 0;
}

static int push_link(struct ctx *x, int i, int j)
{
	if (x->nl == x->capl) {
		int cap = x->capl ? x->capl * 2 : 256;
		struct link *l = realloc(x->l, (size_t)cap * sizeof *l);
		if (!l)
			return err_set(x->e, "out of memory");
		x->l = l;
		x->capl = cap;
	}
	x->l[x->nl].i = i;
	x->l[x->nl++].j = j;
	return 0;
}

/* Picks one set bit of mask (a choice when there are several). */
static int pick_value(struct ctx *x, uint32_t mask)
{
	int n = __builtin_popcount(mask);
	int k = choose(x->ch, (uint32_t)n);
	if (k < 0)
		return err_set(x->e, "out of memory");
	for (int v = 0; v < GR_MAXVAL; v++)
		if ((mask >> v) & 1 && k-- == 0)
			return v;
	return 0;
}

/* Applies feature constraints.  A single value sets the feature; a list
 * chooses one of its values, unless the feature already has one of them
 * (from the enclosing slot or from agreement), which is kept. */
static int apply_spec(struct ctx *x, const struct gr_fspec *sp, gr_env env)
{
	for (int f = 0; f < x->g->nfeat; f++) {
		uint32_t m = sp->both[f];
		if (m) {
			int ve = env[EN][f], vp = env[PT][f];
			int keep = __builtin_popcount(m) > 1 && ve >= 0 && vp >= 0 &&
				   ((m >> ve) & 1) && ((m >> vp) & 1);
			if (!keep) {
				int v = pick_value(x, m);
				if (v < 0)
					return -1;
				env[EN][f] = env[PT][f] = (int8_t)v;
			}
		}
		for (int s = 0; s < NSIDE; s++) {
			m = sp->side[s][f];
			if (!m)
				continue;
			int cur = env[s][f];
			if (__builtin_popcount(m) > 1 && cur >= 0 && ((m >> cur) & 1))
				continue;
			int v = pick_value(x, m);
			if (v < 0)
				return -1;
			env[s][f] = (int8_t)v;
		}
	}
	return 0;
}

/* A phrase's rule fits its slot when each feature the slot has already
 * set (n: pl) is one the rule allows: "np_thing" under "n: pl" cannot
 * take its rule "f: {n: sg}" (a fork), which would set sg below a plural
 * verb (a fork aren't hot). */
static int spec_fits(const struct grammar *g, const struct gr_fspec *sp,
		     gr_env inherit)
{
	for (int f = 0; f < g->nfeat; f++)
		for (int s = 0; s < NSIDE; s++) {
			uint32_t m = sp->both[f] | sp->side[s][f];
			int v = inherit[s][f];
			if (m && v >= 0 && !((m >> v) & 1))
				return 0;
		}
	return 1;
}

static void env_text(const struct grammar *g, const int8_t *env, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (int f = 0; f < g->nfeat && at + 1 < n; f++) {
		int r = snprintf(buf + at, n - at, "%s%s=%s", at ? " " : "", g->feat[f].name,
				 env[f] >= 0 ? g->feat[f].val[env[f]] : _("(unset)"));
		if (r < 0)
			break;
		at += (size_t)r;
	}
}

/* The first form key of class c that the environment matches; unset
 * features take their first value. */
static int select_form(const struct grammar *g, const struct gr_class *c, int side,
		       const int8_t *env)
{
	for (int k = 0; k < c->nkeys[side]; k++) {
		const struct gr_fkey *fk = &c->keys[side][k];
		int ok = 1;
		for (int q = 0; ok && q < fk->nc; q++) {
			int v = env[fk->feat[q]];
			ok = (fk->mask[q] >> (v < 0 ? 0 : v)) & 1;
		}
		if (ok)
			return k;
	}
	(void)g;
	return -1;
}

/* Does word w (or what a -> an makes of it) occur in the search list? */
static int word_allowed(const struct grammar *g, const char *const *only, const char *w)
{
	for (int i = 0; only[i]; i++) {
		if (strcmp(only[i], w) == 0)
			return 1;
		for (int v = 0; v < g->nvowel; v++)
			if (strcmp(g->vowel[v].w, w) == 0 && strcmp(g->vowel[v].out, only[i]) == 0)
				return 1;
	}
	return 0;
}

static int entry_allowed(const struct grammar *g, const struct gr_entry *en,
			 const char *const *only)
{
	const struct gr_class *c = en->home;
	for (int k = 0; k < c->nkeys[EN]; k++) {
		const struct gr_form *f = &en->forms[EN][k];
		int ok = 1;
		for (int i = 0; ok && i < f->nw; i++)
			ok = word_allowed(g, only, f->w[i]);
		if (ok)
			return 1;
	}
	return 0;
}

static int expand_rule(struct ctx *x, const struct gr_rule *r, gr_env inherit,
		       struct res *out);

/* Keys are identities separated by '/' ("us/me" for "we"); two entries are
 * the same for "differ:" and "same:" when they share one. */
static int keys_overlap(const char *a, const char *b)
{
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, "/");
		for (const char *q = b; *q;) {
			size_t m = strcspn(q, "/");
			if (m == n && memcmp(p, q, n) == 0)
				return 1;
			q += m + (q[m] == '/');
		}
		p += n + (p[n] == '/');
	}
	return 0;
}

/* Whether a candidate with this key may fill slot s: it shares none with
 * the slots s differs from and one with the slot it is the same as. */
static int keys_allowed(const struct gr_slot *s, const char *key, const struct res *done)
{
	for (int d = 0; d < s->ndiffer; d++)
		if (keys_overlap(key, done[s->differ[d]].key))
			return 0;
	return s->same < 0 || keys_overlap(key, done[s->same].key);
}

static int expand_class(struct ctx *x, const struct gr_rule *r,
			const struct gr_slot *s, const struct gr_class *c,
			const struct res *done, gr_env env, struct res *out)
{
	const struct grammar *g = x->g;
	int n = 0, total = 0;
	for (int i = 0; i < c->nentries; i++) {
		const struct gr_entry *en = c->entries[i];
		int ok = 1;
		for (int side = 0; ok && side < NSIDE; side++)
			for (int f = 0; ok && f < g->nfeat; f++)
				ok = en->f[side][f] < 0 || env[side][f] < 0 ||
				     en->f[side][f] == env[side][f];
		ok = ok && keys_allowed(s, en->key, done);
		/* a slot of the Portuguese only (link:) shows no English word */
		if (ok && x->ch->only_words && s->count[EN] > 0)
			ok = entry_allowed(g, en, x->ch->only_words);
		if (ok) {
			x->cand[n++] = i;
			total += en->weight;
		}
	}
	if (n == 0)
		return 0;
	/* enumeration visits every entry once; sampling follows the weights */
	int k = choose(x->ch, (uint32_t)(x->ch->mode == GR_ENUMERATE ? n : total));
	if (k < 0)
		return err_set(x->e, "out of memory");
	if (x->ch->mode != GR_ENUMERATE) {
		int i = 0;
		while (k >= c->entries[x->cand[i]]->weight)
			k -= c->entries[x->cand[i++]]->weight;
		k = i;
	}
	const struct gr_entry *en = c->entries[x->cand[k]];
	for (int side = 0; side < NSIDE; side++)
		for (int f = 0; f < g->nfeat; f++)
			if (env[side][f] < 0)
				env[side][f] = en->f[side][f];
	memcpy(out->env, env, sizeof out->env);
	out->key = en->key;
	out->cross = 1;
	out->ln = 0;
	for (int side = 0; side < NSIDE; side++) {
		int form = select_form(g, en->home, side, env[side]);
		if (form < 0) {
			char feats[256];
			env_text(g, env[side], feats, sizeof feats);
			return err_set(x->e, "%s:%d: %s, slot %s: entry \"%s\" (line %d, class "
				       "%s) has no %s form for %s", g->file, s->line, r->id,
				       s->name, en->label, en->line, en->home->name,
				       side == EN ? _("English") : _("Portuguese"), feats);
		}
		const struct gr_form *fm = &en->forms[side][form];
		out->ws[side] = x->nw[side];
		out->wn[side] = fm->nw;
		for (int i = 0; i < fm->nw; i++)
			if (push_word(x, side, fm->w[i], en->home->index))
				return -1;
	}
	return 1;
}

/* Links all words of range a on side sa with all words of range b. */
static int link_all(struct ctx *x, int sa, int a0, int an, int b0, int bn)
{
	for (int i = 0; i < an; i++)
		for (int j = 0; j < bn; j++)
			if (sa == EN ? push_link(x, a0 + i, b0 + j) : push_link(x, b0 + j, a0 + i))
				return -1;
	return 0;
}

/* Slot s of phrase p: one of its rules (every one in turn when
 * enumerating, by weight when sampling), expanded into *out; res: the
 * rule's slots so far (for keys_allowed).  Returns 1, 0 (no fit) or -1. */
static int expand_phrase(struct ctx *x, const struct gr_slot *s, const struct gr_phrase *p,
			 gr_env env, struct res *res, struct res *out)
{
	int k = 0;
	if (p->nrules > 1 && x->ch->mode == GR_ENUMERATE) {
		/* every rule once: weights only shape sampling */
		if ((k = choose(x->ch, (uint32_t)p->nrules)) < 0)
			return err_set(x->e, "out of memory");
	} else if (p->nrules > 1) {
		int w = choose(x->ch, (uint32_t)p->total_weight);
		if (w < 0)
			return err_set(x->e, "out of memory");
		while (w >= p->rules[k].weight)
			w -= p->rules[k++].weight;
	}
	int rc = expand_rule(x, &p->rules[k], env, out);
	if (rc > 0 && !keys_allowed(s, out->key, res))
		rc = 0;
	return rc;
}

/* Rule r's slots in its order of expansion, each into res[slot]: the env
 * base with the agreement asked for and the slot's spec, then a class's
 * entry or a phrase's rule.  Returns 1, 0 (no fit) or -1. */
static int expand_slots(struct ctx *x, const struct gr_rule *r, gr_env base,
			struct res *res)
{
	const struct grammar *g = x->g;
	for (int o = 0; o < r->nslots; o++) {
		int si = r->order[o];
		const struct gr_slot *s = &r->slots[si];
		gr_env env;
		memcpy(env, base, sizeof env);
		if (s->agree >= 0)
			for (int side = 0; side < NSIDE; side++)
				for (int f = 0; f < g->nfeat; f++)
					if ((s->agree_mask >> f) & 1 &&
					    res[s->agree].env[side][f] >= 0)
						env[side][f] = res[s->agree].env[side][f];
		if (apply_spec(x, &s->spec, env))
			return -1;
		const struct gr_symbol *sym = &g->syms[s->sym];
		int rc;
		if (sym->kind == SYM_CLASS) {
			rc = expand_class(x, r, s, &g->classes[sym->idx], res, env, &res[si]);
		} else {
			rc = expand_phrase(x, s, &g->phrases[sym->idx], env, res, &res[si]);
		}
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* Where a rule's words went on each side's word stack: its first word,
 * each slot's occurrences and each token, relative to the first. */
struct placed {
	int start[NSIDE], pos[GR_MAXSLOTS][NSIDE][GR_MAXOCC];
	int tokpos[NSIDE][64];
};

/* The two word orders: rule r's tokens, each a word or a slot's words
 * (copied from res), pushed on each side's stack.  0 or -1. */
static int place_words(struct ctx *x, const struct gr_rule *r, const struct res *res,
		       struct placed *p)
{
	for (int side = 0; side < NSIDE; side++) {
		int occ[GR_MAXSLOTS] = { 0 };
		p->start[side] = x->nw[side];
		for (int t = 0; t < r->ntoks[side]; t++) {
			const struct gr_tok *tk = &r->toks[side][t];
			int here = x->nw[side] - p->start[side];
			if (t < 64)
				p->tokpos[side][t] = here;
			if (tk->slot < 0) {
				if (push_word(x, side, tk->word, -1))
					return -1;
				continue;
			}
			const struct res *sr = &res[tk->slot];
			p->pos[tk->slot][side][occ[tk->slot]++] = here;
			for (int i = 0; i < sr->wn[side]; i++) {
				struct word w = x->w[side][sr->ws[side] + i];
				if (push_word(x, side, w.s, w.cls))
					return -1;
			}
		}
	}
	return 0;
}

/* The links between the two word orders, local to this rule's output: each
 * slot's between its English and Portuguese words (all to all for a
 * class's, its own for a phrase's) or to the slot it links to; then the
 * rule's own words', to a slot's words or a word of the other side. */
static int link_words(struct ctx *x, const struct gr_rule *r, const struct res *res,
		      const struct placed *p)
{
	for (int si = 0; si < r->nslots; si++) {
		const struct gr_slot *s = &r->slots[si];
		const struct res *sr = &res[si];
		if (s->count[EN] && s->count[PT]) {
			for (int k = 0; k < s->count[EN]; k++) {
				int pe = p->pos[si][EN][k], pp = p->pos[si][PT][k];
				if (sr->cross) {
					if (link_all(x, EN, pe, sr->wn[EN], pp, sr->wn[PT]))
						return -1;
				} else {
					for (int q = 0; q < sr->ln; q++) {
						struct link l = x->l[sr->ls + q];
						if (push_link(x, pe + l.i, pp + l.j))
							return -1;
					}
				}
			}
		} else if (s->link >= 0) {
			int side = s->count[EN] ? EN : PT;
			const struct res *tr = &res[s->link];
			for (int k = 0; k < s->count[side]; k++)
				if (link_all(x, side, p->pos[si][side][k], sr->wn[side],
					     p->pos[s->link][1 - side][0], tr->wn[1 - side]))
					return -1;
		}
	}
	for (int side = 0; side < NSIDE; side++)
		for (int t = 0; t < r->ntoks[side] && t < 64; t++) {
			const struct gr_tok *tk = &r->toks[side][t];
			if (tk->slot >= 0)
				continue;
			if (tk->link_slot >= 0) {
				const struct res *tr = &res[tk->link_slot];
				if (link_all(x, side, p->tokpos[side][t], 1,
					     p->pos[tk->link_slot][1 - side][0], tr->wn[1 - side]))
					return -1;
			} else if (tk->link_tok >= 0 && tk->link_tok < 64) {
				if (link_all(x, side, p->tokpos[side][t], 1,
					     p->tokpos[1 - side][tk->link_tok], 1))
					return -1;
			}
		}
	return 0;
}

static int expand_rule(struct ctx *x, const struct gr_rule *r, gr_env inherit,
		       struct res *out)
{
	const struct grammar *g = x->g;
	struct res res[GR_MAXSLOTS];
	gr_env base;
	memcpy(base, inherit, sizeof base);
	if (r->head >= 0 && !spec_fits(g, &r->spec, inherit))
		return 0;
	if (apply_spec(x, &r->spec, base))
		return -1;
	int rc = expand_slots(x, r, base, res);
	if (rc <= 0)
		return rc;
	struct placed p;
	if (place_words(x, r, res, &p))
		return -1;
	int ls = x->nl;
	if (link_words(x, r, res, &p))
		return -1;
	for (int side = 0; side < NSIDE; side++) {
		out->ws[side] = p.start[side];
		out->wn[side] = x->nw[side] - p.start[side];
	}
	out->ls = ls;
	out->ln = x->nl - ls;
	out->cross = 0;
	if (r->head >= 0) {
		memcpy(out->env, res[r->head].env, sizeof out->env);
		out->key = res[r->head].key;
	} else {
		memset(out->env, -1, sizeof out->env);
		out->key = "";
	}
	return 1;
}

/* ---- post-editing and output ---- */

static int is_vowel(char c)
{
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

static int link_cmp(const void *a, const void *b)
{
	const struct link *x = a, *y = b;
	return x->i != y->i ? (x->i > y->i) - (x->i < y->i) : (x->j > y->j) - (x->j < y->j);
}

static int put(char **buf, size_t *cap, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 128;
		while (c < *len + n + 1)
			c *= 2;
		char *b = realloc(*buf, c);
		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* writes u in decimal at b + n and returns the new length */
static size_t put_uint(char *b, size_t n, unsigned u)
{
	char d[12];
	int k = 0;
	do
		d[k++] = (char)('0' + u % 10);
	while (u /= 10);
	while (k)
		b[n++] = d[--k];
	return n;
}

static int join(struct ctx *x, const struct word *w, int n, char **buf, size_t *cap)
{
	size_t len = 0;
	if (put(buf, cap, &len, "", 0))
		return err_set(x->e, "out of memory");
	for (int i = 0; i < n; i++)
		if ((i && put(buf, cap, &len, " ", 1)) || put(buf, cap, &len, w[i].s, strlen(w[i].s)))
			return err_set(x->e, "out of memory");
	return 0;
}

static int finish(struct ctx *x, const struct res *top, struct gr_pair *out)
{
	const struct grammar *g = x->g;
	struct word *en = x->w[EN] + top->ws[EN], *pt = x->w[PT] + top->ws[PT];
	int ne = top->wn[EN], np = top->wn[PT];
	struct link *l = x->l + top->ls;
	int nl = top->ln;

	/* Portuguese: preposition + article -> one word (em o -> no), or a
	 * preposition that takes the article a possessive lacks (de seu -> do seu) */
	for (int i = 0; i + 1 < np; i++) {
		if (pt[i + 1].cls < 0 || !g->classes[pt[i + 1].cls].article)
			continue;
		for (int c = 0; c < g->ncontr; c++) {
			if (strcmp(g->contr[c].a, pt[i].s) || strcmp(g->contr[c].b, pt[i + 1].s))
				continue;
			pt[i].s = g->contr[c].out;
			pt[i].cls = -1;
			if (g->contr[c].keep)
				break;  /* de seu -> do seu: two words still */
			memmove(pt + i + 1, pt + i + 2, (size_t)(np - i - 2) * sizeof *pt);
			np--;
			for (int k = 0; k < nl; k++)
				if (l[k].j > i)
					l[k].j--;
			break;
		}
	}
	/* English: a -> an before a vowel */
	for (int i = 0; i + 1 < ne; i++)
		for (int v = 0; v < g->nvowel; v++)
			if (strcmp(g->vowel[v].w, en[i].s) == 0 && is_vowel(en[i + 1].s[0]))
				en[i].s = g->vowel[v].out;

	qsort(l, (size_t)nl, sizeof *l, link_cmp);
	if (join(x, en, ne, &out->en, &out->en_cap) || join(x, pt, np, &out->pt, &out->pt_cap))
		return -1;
	size_t len = 0;
	if (put(&out->align, &out->align_cap, &len, "", 0))
		return err_set(x->e, "out of memory");
	for (int k = 0; k < nl; k++) {
		char b[32];
		if (k && l[k].i == l[k - 1].i && l[k].j == l[k - 1].j)
			continue;
		/* by hand, not snprintf: a search formats millions of these */
		size_t n = 0;
		if (len)
			b[n++] = ' ';
		n = put_uint(b, n, (unsigned)l[k].i);
		b[n++] = '-';
		n = put_uint(b, n, (unsigned)l[k].j);
		if (put(&out->align, &out->align_cap, &len, b, n))
			return err_set(x->e, "out of memory");
	}
	out->en_words = ne;
	out->pt_words = np;
	return 1;
}

static int derive(const struct grammar *g, int t, struct gr_chooser *c,
		  struct gr_pair *out, struct ctx *x)
{
	struct res top;
	gr_env none;
	memset(none, -1, sizeof none);
	x->nw[EN] = x->nw[PT] = x->nl = 0;
	c->len = 0;
	int rc = expand_rule(x, &g->tmpl[t], none, &top);
	if (rc <= 0)
		return rc;
	return finish(x, &top, out);
}

static void ctx_free(struct ctx *x)
{
	if (!x)
		return;
	free(x->w[EN]);
	free(x->w[PT]);
	free(x->l);
	free(x->cand);
	free(x);
}

/* The chooser keeps the buffers of the derivation, so that millions of
 * derivations do not allocate. */
int grammar_derive(const struct grammar *g, int t, struct gr_chooser *c,
		   struct gr_pair *out, struct err *e)
{
	struct ctx *x = c->scratch;
	if (x && x->g != g) {
		ctx_free(x);
		c->scratch = x = NULL;
	}
	if (!x) {
		if (!(x = calloc(1, sizeof *x)) ||
		    !(x->cand = malloc((size_t)(g->max_entries ? g->max_entries : 1) *
				       sizeof *x->cand))) {
			free(x);
			return err_set(e, "out of memory");
		}
		x->g = g;
		c->scratch = x;
	}
	x->ch = c;
	x->e = e;
	return derive(g, t, c, out, x);
}

long long gr_chooser_work(const struct gr_chooser *c)
{
	const struct ctx *x = c->scratch;
	return x ? x->work : 0;
}

void gr_pair_free(struct gr_pair *p)
{
	free(p->en);
	free(p->pt);
	free(p->align);
	memset(p, 0, sizeof *p);
}

int grammar_find(const struct grammar *g, int t, const char *en,
		 struct gr_pair *out, struct err *e)
{
	/* the words of the sentence, as a NULL-terminated list */
	size_t len = strlen(en);
	char *copy = malloc(len + 1);
	const char **words = malloc((len / 2 + 2) * sizeof *words);
	int rc = 0, n = 0;
	if (!copy || !words) {
		free(copy);
		free(words);
		return err_set(e, "out of memory");
	}
	memcpy(copy, en, len + 1);
	/* each word once: the filter compares every candidate with the list */
	for (char *save = NULL, *w = strtok_r(copy, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		int k = 0;
		while (k < n && strcmp(words[k], w))
			k++;
		if (k == n)
			words[n++] = w;
	}
	words[n] = NULL;

	struct gr_chooser c;
	if (gr_chooser_init(&c, GR_ENUMERATE, NULL, e)) {
		free(copy);
		free(words);
		return -1;
	}
	c.only_words = words;
	/* the word filter keeps the search small, but a grammar can still
	   make 2^32 sentences of the sentence's words: the search is bounded
	   by the words it derives (GR_SEARCH_WORK), and running out of it
	   says so rather than "cannot produce" */
	long tried = 0;
	do {
		rc = grammar_derive(g, t, &c, out, e);
		if (rc < 0)
			break;
		if (rc > 0 && strcmp(out->en, en) == 0)
			break;
		rc = 0;
		tried++;
		if (gr_chooser_work(&c) > GR_SEARCH_WORK) {
			rc = err_set(e, "%s:%d: template %s: gave up searching for \"%.80s\" after %ld "
				     "derivations (%lld words): too many ways to derive its words",
				     g->file, g->tmpl[t].line, g->tmpl[t].name, en, tried,
				     gr_chooser_work(&c));
			break;
		}
	} while (gr_chooser_next(&c));
	gr_chooser_free(&c);
	free(copy);
	free(words);
	return rc;
}
