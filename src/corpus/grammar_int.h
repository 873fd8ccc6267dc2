/* grammar_int.h - the grammar's internal structures, shared by the loader
 * (grammar.c) and the derivation (grammar_derive.c) only. */
#ifndef ATTNSCOPE_GRAMMAR_INT_H
#define ATTNSCOPE_GRAMMAR_INT_H

#include <stdint.h>

#include "grammar.h"
#include "formats/ydoc.h"

enum { EN = 0, PT = 1, NSIDE = 2 };

#define GR_MAXFEAT 8      /* features in a grammar */
#define GR_MAXVAL 16      /* values of one feature */
#define GR_MAXSLOTS 16    /* slots in one rule */
#define GR_MAXOCC 4       /* occurrences of one slot on one side */
#define GR_MAXDIFFER 4    /* "differ:" slots of one slot */
#define GR_NOLINK (-2)    /* a slot without "link:" */
#define GR_MAXDEPTH 32    /* phrases inside phrases, classes through like:/union: */
#define GR_MAXWORDS 1024  /* words of one side of a derived sentence */
#define GR_MAXENTRIES (1 << 20)   /* entries of one class (unions add up) */
#define GR_MAXWEIGHT 1000000      /* weight: of a rule, a template or a join: connector */

/* An environment: per side, the value index of every feature, -1 unset. */
typedef int8_t gr_env[NSIDE][GR_MAXFEAT];

struct gr_feature {
	const char *name;
	const char *val[GR_MAXVAL];
	int nval;
};

/* A form key such as "past.p1|p3.sg": components, each a feature and the
 * set of its values that match.  No component ("any") matches everything. */
struct gr_fkey {
	int nc;
	uint8_t feat[GR_MAXFEAT];
	uint32_t mask[GR_MAXFEAT];
};

struct gr_form {
	const char **w;           /* nw words; nw == 0 for "-" */
	int nw;
};

struct gr_class;

struct gr_entry {
	int line, weight;         /* weight: how often it is drawn (default 1) */
	const char *key;          /* identity for "differ:" and "same:" */
	const char *label;        /* the English text, for messages */
	const struct gr_class *home;
	gr_env f;                 /* inherent features */
	struct gr_form *forms[NSIDE];   /* home->nkeys[side] forms */
};

struct gr_class {
	const char *name;
	int line, index;
	const struct ynode *node;
	struct gr_fkey *keys[NSIDE];
	int nkeys[NSIDE];
	gr_env f;                 /* features every entry has */
	struct gr_entry **entries;
	int nentries;
	int is_union, state;      /* state: 0 new, 1 resolving, 2 done */
	int article;              /* its words contract after a preposition */
};

/* Feature constraints: "n: [sg, pl]" chooses once for both sides;
 * "en_t: inf" sets one side. */
struct gr_fspec {
	uint32_t both[GR_MAXFEAT];
	uint32_t side[NSIDE][GR_MAXFEAT];
};

struct gr_slot {
	const char *name;
	int line, sym;
	struct gr_fspec spec;
	int agree;                /* slot index or -1 */
	uint32_t agree_mask;      /* features copied from it (bit per feature) */
	int differ[GR_MAXDIFFER], ndiffer;
	int same;                 /* slot whose key it shares, or -1 */
	int link;                 /* slot index, -1 for "none", GR_NOLINK */
	int count[NSIDE];         /* occurrences in each word order */
};

struct gr_tok {
	int slot;                 /* slot index, or -1 for a literal word */
	const char *word;         /* the literal */
	int link_slot;            /* "de=V": slot on the other side, or -1 */
	int link_tok;             /* "de=of": token index on the other side, or -1 */
	const char *link_name;    /* what follows '=', until resolved */
};

struct gr_req {
	const char *en, *pt;      /* pt may be NULL */
	int line;
};

struct gr_rule {
	const char *id;           /* "template NAME" or "phrase NAME rule K" */
	const char *name;         /* templates: the bare id */
	int line, weight;
	int repeat;               /* templates: lines each training pair fills */
	struct gr_fspec spec;
	struct gr_slot *slots;
	int nslots;
	int order[GR_MAXSLOTS];   /* evaluation order: agree/differ targets first */
	struct gr_tok *toks[NSIDE];
	int ntoks[NSIDE];
	int head;                 /* phrases: the head slot; templates: -1 */
	struct gr_req *req;
	int nreq;
};

struct gr_phrase {
	const char *name;
	int line;
	struct gr_rule *rules;
	int nrules, total_weight;
	int state;                /* cycle check */
	int height;               /* phrase levels, itself included */
	uint32_t maxw[NSIDE];     /* words it can make at most (saturated) */
};

enum { SYM_CLASS, SYM_PHRASE };

struct gr_symbol {
	const char *name;
	int line, kind, idx;
};

struct gr_contraction {
	const char *a, *b, *out;
	int keep;                 /* b stays: "de seu: do seu" changes a only */
};

struct gr_vowel {
	const char *w, *out;
};

struct grammar {
	char *file;
	struct ydoc doc;
	void *arena;
	struct gr_feature feat[GR_MAXFEAT];
	int nfeat;
	struct gr_symbol *syms;
	int nsyms;
	struct gr_class *classes;
	int nclasses;
	struct gr_phrase *phrases;
	int nphrases;
	struct gr_rule *tmpl;
	int ntmpl, tmpl_line;
	struct gr_contraction *contr;
	int ncontr;
	struct gr_vowel *vowel;
	int nvowel;
	int max_entries;          /* the largest class, for candidate lists */
	struct gr_join *join;     /* join:, or NULL (in the arena) */
};

/* ---- shared by the loader's two files (grammar_lex.c) ---- */

/* Arena memory owned by the grammar, zeroed; freed by gr_arena_free. */
void *gr_alloc(struct grammar *g, size_t n);
char *gr_strndup(struct grammar *g, const char *s, size_t n);
void gr_arena_free(struct grammar *g);
/* -1 with "file:line: WHAT must be a KIND" unless n is of kind k. */
int gr_need(const struct grammar *g, const struct ynode *n, enum ynode_kind k,
	    const char *what, struct err *e);
/* [a-z][A-Za-z0-9_]* (upper: [A-Z]...). */
int gr_is_ident(const char *s, int upper);
/* -1 when the word tokenizer would change w (upper case, punctuation). */
int gr_check_word(const struct grammar *g, int line, const char *w, struct err *e);
/* Splits s[0..len) at white space into words in the arena. */
int gr_split_words(struct grammar *g, const char *s, size_t len,
		   const char ***out, int *nout, struct err *e);
int gr_find_symbol(const struct grammar *g, const char *name);
int gr_find_feature(const struct grammar *g, const char *name);
/* "n", "en_t", "pt_p": the feature index and *side (-1 both), or -1. */
int gr_feature_key(const struct grammar *g, const char *key, int *side);
/* The value(s) at v as a bit mask; a list only when choices is set. */
int gr_feature_values(const struct grammar *g, const struct ynode *v, int f,
		      int choices, uint32_t *mask, struct err *e);
int gr_parse_features(struct grammar *g, const struct ynode *n, struct err *e);
/* The word class named at n (for like:, union:, after:). */
int gr_class_ref(struct grammar *g, const struct ynode *n, const char *what,
		 struct gr_class **out, struct err *e);
/* Reads class c (resolving like: and union: first). */
int gr_resolve_class(struct grammar *g, struct gr_class *c, struct err *e);

/* grammar_join.c: reads the top-level join: (its value n, the key on
 * line) into g->join. */
int gr_parse_join(struct grammar *g, const struct ynode *n, int line, struct err *e);

/* grammar_bounds.c: a phrase must not contain itself nor nest more than
 * GR_MAXDEPTH deep (computes p->height and p->maxw); a template's
 * sentences stay within GR_MAXWORDS words a side.  0, or -1 with e set. */
int gr_phrase_check(struct grammar *g, struct gr_phrase *p, int depth, struct err *e);
int gr_template_size(const struct grammar *g, const struct gr_rule *r, struct err *e);

#endif
