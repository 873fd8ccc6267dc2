/* grammar_lex.c - the grammar's features and lexicon: word classes, their
 * form keys and entries, with every error naming file:line; and the small
 * helpers the rest of the loader (grammar.c) shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar_int.h"
#include "base/i18n.h"

/* ---- a bump allocator that owns everything the grammar allocates ---- */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void *gr_alloc(struct grammar *g, size_t n)
{
	struct arena_block *b = g->arena;
	n = (n + 15) & ~(size_t)15;
	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;
		struct arena_block *nb = malloc(sizeof *nb + size);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->size = size;
		nb->next = b;
		g->arena = b = nb;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

void gr_arena_free(struct grammar *g)
{
	for (struct arena_block *b = g->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	g->arena = NULL;
}

char *gr_strndup(struct grammar *g, const char *s, size_t n)
{
	char *p = gr_alloc(g, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

#define OOM(g, e) err_set(e, "%s: out of memory", (g)->file)

/* ---- small helpers ---- */

static const char *const SIDE[NSIDE] = { "en", "pt" };
/* TRANSLATORS: the languages of a grammar's two sides, in messages such as
 * "the %s side" and "(the %s word order)". */
static const char *const SIDE_NAME[NSIDE] = { N_("English"), N_("Portuguese") };

int gr_need(const struct grammar *g, const struct ynode *n,
		enum ynode_kind k, const char *what, struct err *e)
{
	if (n->kind != k)
		return err_set(e, "%s:%d: %s must be a %s, found a %s", g->file,
			       n->line, what, ynode_kind_name(k), ynode_kind_name(n->kind));
	return 0;
}

int gr_is_ident(const char *s, int upper)
{
	if (upper ? !(*s >= 'A' && *s <= 'Z') : !(*s >= 'a' && *s <= 'z'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* A byte of a letter: a-z or part of a multi-byte character (upper case
 * is refused on its own). */
static int ascii_letter_or_high(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* A word must come out of the word tokenizer unchanged: lower case, no
 * punctuation (but . , ? ! : ; and the apostrophe alone are words: the
 * tokenizer splits them off as tokens of their own, so "don ' t" is how
 * "don't" comes out of it; a hyphen between two letters stays in its word,
 * t-shirt), no spaces or control characters.  The reason completes
 * "word \"...\" " (translated where it is used). */
static const char *word_problem(const char *w)
{
	const unsigned char *p = (const unsigned char *)w;
	/* one punctuation mark is a token of its own: "where is it ?",
	 * "i don ' t know" */
	if (p[0] && !p[1] && strchr(".,?!:;'", p[0]))
		return NULL;
	if (!*p)
		/* TRANSLATORS: completes "word \"%s\" ..." */
		return N_("is empty");
	const unsigned char *start = p;
	for (; *p; p++) {
		unsigned c = *p;
		if (c == '-' && p > start && ascii_letter_or_high(p[-1]) &&
		    ascii_letter_or_high(p[1]))
			continue;
		if (c >= 'A' && c <= 'Z')
			/* TRANSLATORS: completes "word \"%s\" ..." */
			return N_("has an upper-case letter (the tokenizer lowercases)");
		if (c < 0x20 || c == 0x7f)
			/* TRANSLATORS: completes "word \"%s\" ..." */
			return N_("has a control character");
		if (c < 0x80 && ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
				 (c >= '[' && c <= '`') || (c >= '{' && c <= '~')))
			/* TRANSLATORS: completes "word \"%s\" ..." */
			return N_("has punctuation (the tokenizer splits it off)");
		if (c == 0xc3 && p[1] >= 0x80 && p[1] <= 0x9e && p[1] != 0x97)
			return N_("has an upper-case letter (the tokenizer lowercases)");
		if (c == 0xc2 && (p[1] == 0xa0 || p[1] == 0xa1 || p[1] == 0xab ||
				  p[1] == 0xbb || p[1] == 0xbf))
			/* TRANSLATORS: completes "word \"%s\" ..." */
			return N_("has punctuation or a no-break space");
		if (c == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0x93 || p[2] == 0x94 || p[2] == 0xa6 || p[2] == 0x98 ||
		     p[2] == 0x99 || p[2] == 0x9c || p[2] == 0x9d))
			return N_("has punctuation (the tokenizer splits it off)");
	}
	return NULL;
}

int gr_check_word(const struct grammar *g, int line, const char *w,
		      struct err *e)
{
	const char *why = word_problem(w);
	if (why)
		/* TRANSLATORS: the last %s says what is wrong with the word, e.g.
		 * "is empty" or "has a control character". */
		return err_set(e, "%s:%d: word \"%s\" %s", g->file, line, w, _(why));
	return 0;
}

/* Splits s at white space into words allocated in the arena. */
int gr_split_words(struct grammar *g, const char *s, size_t len,
		       const char ***out, int *nout, struct err *e)
{
	int n = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < len)
			n++;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
	}
	const char **w = gr_alloc(g, (size_t)(n ? n : 1) * sizeof *w);
	if (!w)
		return OOM(g, e);
	n = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		size_t st = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		if (i > st) {
			if (!(w[n] = gr_strndup(g, s + st, i - st)))
				return OOM(g, e);
			n++;
		}
	}
	*out = w;
	*nout = n;
	return 0;
}

int gr_find_symbol(const struct grammar *g, const char *name)
{
	for (int i = 0; i < g->nsyms; i++)
		if (strcmp(g->syms[i].name, name) == 0)
			return i;
	return -1;
}

static int find_value(const struct grammar *g, const char *v, int *feat)
{
	for (int f = 0; f < g->nfeat; f++)
		for (int k = 0; k < g->feat[f].nval; k++)
			if (strcmp(g->feat[f].val[k], v) == 0) {
				*feat = f;
				return k;
			}
	return -1;
}

int gr_find_feature(const struct grammar *g, const char *name)
{
	for (int f = 0; f < g->nfeat; f++)
		if (strcmp(g->feat[f].name, name) == 0)
			return f;
	return -1;
}

/* A key naming a feature: "n" (both sides), "en_t" or "pt_p" (one side).
 * Returns the feature index and sets *side (-1 for both), or -1. */
int gr_feature_key(const struct grammar *g, const char *key, int *side)
{
	*side = -1;
	for (int s = 0; s < NSIDE; s++)
		if (strncmp(key, SIDE[s], 2) == 0 && key[2] == '_') {
			*side = s;
			key += 3;
			break;
		}
	return gr_find_feature(g, key);
}

static void list_features(const struct grammar *g, const struct gr_feature *f,
			  char *buf, size_t n)
{
	(void)g;
	size_t at = 0;
	buf[0] = 0;
	for (int k = 0; k < f->nval && at + 1 < n; k++) {
		int r = snprintf(buf + at, n - at, "%s%s", k ? ", " : "", f->val[k]);
		if (r < 0)
			break;
		at += (size_t)r;
	}
}

/* The value(s) of feature f at node v: a scalar, or a list when choices is
 * set.  Fills a bit mask of value indices. */
int gr_feature_values(const struct grammar *g, const struct ynode *v, int f,
			  int choices, uint32_t *mask, struct err *e)
{
	const struct ynode *one = v;
	size_t n = 1;
	if (v->kind == Y_SEQ) {
		if (!choices)
			return err_set(e, "%s:%d: feature %s takes one value here, found a list",
				       g->file, v->line, g->feat[f].name);
		if (v->n == 0)
			return err_set(e, "%s:%d: empty list of values for feature %s",
				       g->file, v->line, g->feat[f].name);
		n = v->n;
	} else if (v->kind != Y_SCALAR) {
		if (choices)
			return err_set(e, "%s:%d: feature %s needs a value or a list, found a "
				       "mapping", g->file, v->line, g->feat[f].name);
		return err_set(e, "%s:%d: feature %s needs a value, found a mapping",
			       g->file, v->line, g->feat[f].name);
	}
	*mask = 0;
	for (size_t i = 0; i < n; i++) {
		if (v->kind == Y_SEQ)
			one = v->items[i];
		int ff = -1;
		int k = one->kind == Y_SCALAR ? find_value(g, one->str, &ff) : -1;
		if (k < 0 || ff != f) {
			char vals[256];
			list_features(g, &g->feat[f], vals, sizeof vals);
			return err_set(e, "%s:%d: \"%s\" is not a value of feature %s (%s)",
				       g->file, one->line,
				       one->kind == Y_SCALAR ? one->str : ynode_kind_name(one->kind),
				       g->feat[f].name, vals);
		}
		*mask |= 1u << k;
	}
	return 0;
}

/* ---- features ---- */

int gr_parse_features(struct grammar *g, const struct ynode *n, struct err *e)
{
	if (gr_need(g, n, Y_MAP, "features", e))
		return -1;
	if (n->n > GR_MAXFEAT)
		return err_set(e, "%s:%d: at most %d features", g->file, n->line, GR_MAXFEAT);
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		if (gr_need(g, k, Y_SCALAR, _("a feature name"), e))
			return -1;
		if (!gr_is_ident(k->str, 0) || strncmp(k->str, "en_", 3) == 0 ||
		    strncmp(k->str, "pt_", 3) == 0)
			return err_set(e, "%s:%d: feature name \"%s\" must be a lower-case "
				       "identifier not starting with en_ or pt_",
				       g->file, k->line, k->str);
		if (gr_find_feature(g, k->str) >= 0)
			return err_set(e, "%s:%d: feature %s defined twice", g->file,
				       k->line, k->str);
		if (gr_need(g, v, Y_SEQ, _("the values of a feature"), e))
			return -1;
		if (v->n < 1 || v->n > GR_MAXVAL)
			return err_set(e, "%s:%d: feature %s needs 1 to %d values", g->file,
				       v->line, k->str, GR_MAXVAL);
		struct gr_feature *f = &g->feat[g->nfeat];
		f->name = k->str;
		for (size_t j = 0; j < v->n; j++) {
			const struct ynode *x = v->items[j];
			int ff;
			if (gr_need(g, x, Y_SCALAR, _("a feature value"), e))
				return -1;
			if (!gr_is_ident(x->str, 0) || strcmp(x->str, "any") == 0)
				return err_set(e, "%s:%d: feature value \"%s\" must be a "
					       "lower-case identifier other than \"any\"",
					       g->file, x->line, x->str);
			if (find_value(g, x->str, &ff) >= 0)
				return err_set(e, "%s:%d: value \"%s\" used twice (values "
					       "name features, so they must be unique)",
					       g->file, x->line, x->str);
			for (int q = 0; q < (int)j; q++)
				if (strcmp(f->val[q], x->str) == 0)
					return err_set(e, "%s:%d: value \"%s\" used twice",
						       g->file, x->line, x->str);
			f->val[f->nval++] = x->str;
		}
		g->nfeat++;
	}
	return 0;
}

/* Inherent features (one value each) from the feature keys of map n into
 * env; other keys are left to the caller.  Returns -1 on a bad value. */
static int inherent_features(const struct grammar *g, const struct ynode *k,
			     const struct ynode *v, gr_env env, int *matched,
			     struct err *e)
{
	int side, f = gr_feature_key(g, k->str, &side);
	*matched = f >= 0;
	if (f < 0)
		return 0;
	uint32_t mask;
	if (gr_feature_values(g, v, f, 0, &mask, e))
		return -1;
	int val = __builtin_ctz(mask);
	for (int s = 0; s < NSIDE; s++)
		if (side < 0 || side == s)
			env[s][f] = (int8_t)val;
	return 0;
}

/* ---- the lexicon ---- */

static int parse_fkeys(struct grammar *g, const struct ynode *n, int side,
		       struct gr_class *c, struct err *e)
{
	if (gr_need(g, n, Y_SEQ, _("a list of form keys"), e))
		return -1;
	if (n->n == 0)
		return err_set(e, "%s:%d: class %s: no %s form keys", g->file, n->line,
			       c->name, _(SIDE_NAME[side]));
	c->keys[side] = gr_alloc(g, n->n * sizeof *c->keys[side]);
	if (!c->keys[side])
		return OOM(g, e);
	c->nkeys[side] = (int)n->n;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[i];
		struct gr_fkey *fk = &c->keys[side][i];
		if (gr_need(g, k, Y_SCALAR, _("a form key"), e))
			return -1;
		if (strcmp(k->str, "any") == 0)
			continue;
		/* components separated by '.', alternatives by '|' */
		char buf[256];
		if (k->len >= sizeof buf)
			return err_set(e, "%s:%d: form key too long", g->file, k->line);
		memcpy(buf, k->str, k->len + 1);
		char *save1 = NULL;
		for (char *comp = strtok_r(buf, ".", &save1); comp;
		     comp = strtok_r(NULL, ".", &save1)) {
			char *save2 = NULL;
			int cf = -1;
			uint32_t mask = 0;
			for (char *alt = strtok_r(comp, "|", &save2); alt;
			     alt = strtok_r(NULL, "|", &save2)) {
				int f, v = find_value(g, alt, &f);
				if (v < 0)
					return err_set(e, "%s:%d: form key \"%s\": \"%s\" is "
						       "not a feature value", g->file, k->line,
						       k->str, alt);
				if (cf >= 0 && f != cf)
					return err_set(e, "%s:%d: form key \"%s\": alternatives "
						       "%s must be values of one feature",
						       g->file, k->line, k->str, comp);
				cf = f;
				mask |= 1u << v;
			}
			if (cf < 0)
				return err_set(e, "%s:%d: form key \"%s\" has an empty part",
					       g->file, k->line, k->str);
			for (int q = 0; q < fk->nc; q++)
				if (fk->feat[q] == cf)
					return err_set(e, "%s:%d: form key \"%s\" names feature "
						       "%s twice", g->file, k->line, k->str,
						       g->feat[cf].name);
			fk->feat[fk->nc] = (uint8_t)cf;
			fk->mask[fk->nc] = mask;
			fk->nc++;
		}
		if (fk->nc == 0)
			return err_set(e, "%s:%d: empty form key", g->file, k->line);
	}
	return 0;
}

/* "cat/cats" -> forms; "-" is the empty form; one form stands for all. */
static int parse_forms(struct grammar *g, const struct gr_class *c, int side,
		       const struct ynode *v, struct gr_form **out, struct err *e)
{
	if (gr_need(g, v, Y_SCALAR, _("the forms of an entry"), e))
		return -1;
	int want = c->nkeys[side], n = 1;
	for (const char *p = v->str; *p; p++)
		n += *p == '/';
	if (n != want && n != 1)
		return err_set(e, P_("%s:%d: \"%s\" has %d %s form, class %s has %d "
				     "form keys (give %d forms separated by /, or one)",
				     "%s:%d: \"%s\" has %d %s forms, class %s has %d "
				     "form keys (give %d forms separated by /, or one)", n),
			       g->file, v->line, v->str, n, _(SIDE_NAME[side]), c->name, want,
			       want);
	struct gr_form *f = gr_alloc(g, (size_t)want * sizeof *f);
	if (!f)
		return OOM(g, e);
	const char *p = v->str;
	for (int i = 0; i < n; i++) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *a = p, *b = p + len;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (b - a == 1 && *a == '-') {
			f[i].nw = 0;
			f[i].w = NULL;
		} else {
			if (b == a)
				return err_set(e, "%s:%d: \"%s\": empty form (write - for "
					       "no words)", g->file, v->line, v->str);
			if (gr_split_words(g, a, (size_t)(b - a), &f[i].w, &f[i].nw, e))
				return -1;
			for (int w = 0; w < f[i].nw; w++)
				if (gr_check_word(g, v->line, f[i].w[w], e))
					return -1;
		}
		p += len + 1;
	}
	for (int i = n; i < want; i++)
		f[i] = f[0];
	*out = f;
	return 0;
}

static int parse_entry(struct grammar *g, struct gr_class *c,
		       const struct ynode *n, struct gr_entry *en, struct err *e)
{
	if (gr_need(g, n, Y_MAP, _("a word entry ({en: ..., pt: ...})"), e))
		return -1;
	en->line = n->line;
	en->weight = 1;
	en->home = c;
	memcpy(en->f, c->f, sizeof en->f);
	const struct ynode *forms[NSIDE] = { NULL, NULL };
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		int matched;
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "en") == 0) {
			forms[EN] = v;
		} else if (strcmp(k->str, "pt") == 0) {
			forms[PT] = v;
		} else if (strcmp(k->str, "key") == 0) {
			if (gr_need(g, v, Y_SCALAR, "key", e))
				return -1;
			en->key = v->str;
		} else if (strcmp(k->str, "weight") == 0) {
			long long w;
			if (ynode_int(&g->doc, v, 1, 1000, &w, e))
				return ynode_keyed(&g->doc, v, k->str, e);
			en->weight = (int)w;
		} else {
			if (inherent_features(g, k, v, en->f, &matched, e))
				return -1;
			if (!matched)
				return err_set(e, "%s:%d: unknown key \"%s\" in an entry of "
					       "class %s (expected en, pt, key, weight or a feature)",
					       g->file, k->line, k->str, c->name);
		}
	}
	for (int s = 0; s < NSIDE; s++) {
		if (!forms[s])
			return err_set(e, "%s:%d: entry of class %s has no %s: (%s forms)",
				       g->file, n->line, c->name, SIDE[s], _(SIDE_NAME[s]));
		if (parse_forms(g, c, s, forms[s], &en->forms[s], e))
			return -1;
	}
	en->label = forms[EN]->str;
	if (!en->key)
		en->key = en->label;
	return 0;
}

int gr_class_ref(struct grammar *g, const struct ynode *n, const char *what,
		     struct gr_class **out, struct err *e)
{
	if (gr_need(g, n, Y_SCALAR, what, e))
		return -1;
	int s = gr_find_symbol(g, n->str);
	if (s < 0)
		return err_set(e, "%s:%d: %s refers to undefined symbol \"%s\"", g->file,
			       n->line, what, n->str);
	if (g->syms[s].kind != SYM_CLASS)
		return err_set(e, "%s:%d: %s \"%s\" is a phrase, not a word class",
			       g->file, n->line, what, n->str);
	*out = &g->classes[g->syms[s].idx];
	return 0;
}

/* depth: classes being resolved around this one (like:/union: chains
 * recurse here; GR_MAXDEPTH bounds the stack). */
static int resolve_class(struct grammar *g, struct gr_class *c, int depth, struct err *e);

/* A union class: the entries of its member classes, in order. */
static int resolve_union(struct grammar *g, struct gr_class *c, const struct ynode *uni,
			 int depth, struct err *e)
{
	if (gr_need(g, uni, Y_SEQ, "union", e))
		return -1;
	int total = 0;
	struct gr_class **mem = gr_alloc(g, (uni->n ? uni->n : 1) * sizeof *mem);
	if (!mem)
		return OOM(g, e);
	for (size_t i = 0; i < uni->n; i++) {
		if (gr_class_ref(g, uni->items[i], "union", &mem[i], e) ||
		    resolve_class(g, mem[i], depth + 1, e))
			return -1;
		total += mem[i]->nentries;
		if (total > GR_MAXENTRIES)
			return err_set(e, "%s:%d: class %s: the union has more than %d entries",
				       g->file, uni->line, c->name, GR_MAXENTRIES);
	}
	c->is_union = 1;
	c->entries = gr_alloc(g, (size_t)(total ? total : 1) * sizeof *c->entries);
	if (!c->entries)
		return OOM(g, e);
	for (size_t i = 0; i < uni->n; i++)
		for (int k = 0; k < mem[i]->nentries; k++)
			c->entries[c->nentries++] = mem[i]->entries[k];
	return 0;
}

static int resolve_class(struct grammar *g, struct gr_class *c, int depth, struct err *e)
{
	if (c->state == 2)
		return 0;
	if (c->state == 1)
		return err_set(e, "%s:%d: class %s is defined through itself (like:/union:)",
			       g->file, c->line, c->name);
	if (depth >= GR_MAXDEPTH)
		return err_set(e, "%s:%d: class %s: like:/union: nest more than %d deep",
			       g->file, c->line, c->name, GR_MAXDEPTH);
	c->state = 1;
	const struct ynode *n = c->node, *like = NULL, *uni = NULL, *words = NULL;
	const struct ynode *fk[NSIDE] = { NULL, NULL }, *fmap = NULL;
	if (gr_need(g, n, Y_MAP, _("a word class"), e))
		return -1;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		if (gr_need(g, k, Y_SCALAR, _("a key"), e))
			return -1;
		if (strcmp(k->str, "en") == 0)
			fk[EN] = v;
		else if (strcmp(k->str, "pt") == 0)
			fk[PT] = v;
		else if (strcmp(k->str, "like") == 0)
			like = v;
		else if (strcmp(k->str, "union") == 0)
			uni = v;
		else if (strcmp(k->str, "words") == 0)
			words = v;
		else if (strcmp(k->str, "f") == 0)
			fmap = v;
		else
			return err_set(e, "%s:%d: unknown key \"%s\" in class %s (expected "
				       "en, pt, f, like, union or words)", g->file, k->line,
				       k->str, c->name);
	}
	memset(c->f, -1, sizeof c->f);
	if (uni) {
		if (like || words || fk[EN] || fk[PT] || fmap)
			return err_set(e, "%s:%d: class %s: a union takes no other keys",
				       g->file, uni->line, c->name);
		if (resolve_union(g, c, uni, depth, e))
			return -1;
	} else {
		if (like) {
			struct gr_class *base;
			if (gr_class_ref(g, like, "like", &base, e) ||
			    resolve_class(g, base, depth + 1, e))
				return -1;
			if (base->is_union)
				return err_set(e, "%s:%d: class %s: like: needs a class with "
					       "form keys, %s is a union", g->file, like->line,
					       c->name, base->name);
			for (int s = 0; s < NSIDE; s++) {
				c->keys[s] = base->keys[s];
				c->nkeys[s] = base->nkeys[s];
			}
			memcpy(c->f, base->f, sizeof c->f);
		}
		for (int s = 0; s < NSIDE; s++) {
			if (fk[s] && parse_fkeys(g, fk[s], s, c, e))
				return -1;
			if (!c->nkeys[s])
				return err_set(e, "%s:%d: class %s has no %s form keys (%s: "
					       "[...] or like: CLASS)", g->file, c->line, c->name,
					       _(SIDE_NAME[s]), SIDE[s]);
		}
		if (fmap) {
			if (gr_need(g, fmap, Y_MAP, "f", e))
				return -1;
			for (size_t i = 0; i < fmap->n; i++) {
				int matched;
				const struct ynode *k = fmap->items[2 * i];
				if (gr_need(g, k, Y_SCALAR, _("a feature name"), e) ||
				    inherent_features(g, k, fmap->items[2 * i + 1], c->f,
						      &matched, e))
					return -1;
				if (!matched)
					return err_set(e, "%s:%d: \"%s\" is not a feature",
						       g->file, k->line, k->str);
			}
		}
		if (!words)
			return err_set(e, "%s:%d: class %s has no words", g->file, c->line,
				       c->name);
		if (gr_need(g, words, Y_SEQ, "words", e))
			return -1;
		if (words->n == 0)
			return err_set(e, "%s:%d: class %s has no words", g->file,
				       words->line, c->name);
		c->entries = gr_alloc(g, words->n * sizeof *c->entries);
		struct gr_entry *ents = gr_alloc(g, words->n * sizeof *ents);
		if (!c->entries || !ents)
			return OOM(g, e);
		for (size_t i = 0; i < words->n; i++) {
			if (parse_entry(g, c, words->items[i], &ents[i], e))
				return -1;
			c->entries[c->nentries++] = &ents[i];
		}
	}
	if (c->nentries > g->max_entries)
		g->max_entries = c->nentries;
	c->state = 2;
	return 0;
}

int gr_resolve_class(struct grammar *g, struct gr_class *c, struct err *e)
{
	return resolve_class(g, c, 0, e);
}

