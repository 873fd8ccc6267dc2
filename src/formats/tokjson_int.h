/* tokjson_int.h - what the files of the tokenizer.json reader share
 * (tokjson.c, tokjson_steps.c, tokjson_enc.c, tokjson_model.c,
 * tokjson_dec.c); not for the rest of the program, which uses tokjson.h. */
#ifndef ATTNSCOPE_TOKJSON_INT_H
#define ATTNSCOPE_TOKJSON_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tokjson.h"
#include "ydoc.h"
#include "base/ids.h"

/* the kinds of steps of struct tokjson_step */
enum tokjson_kind {
	/* normalizers */
	TJ_NFC, TJ_NFD, TJ_LOWER, TJ_PREPEND, TJ_REPLACE, TJ_STRIP, TJ_PRECOMPILED,
	/* pre-tokenizers (y: a split's behavior) */
	TJ_SPLIT_RE, TJ_SPLIT_STR, TJ_BYTELEVEL, TJ_METASPACE, TJ_DIGITS, TJ_WSSPLIT,
	/* decoders */
	TJ_DEC_BYTELEVEL, TJ_DEC_METASPACE, TJ_DEC_REPLACE, TJ_DEC_BYTEFALLBACK, TJ_DEC_FUSE,
	TJ_DEC_STRIP
};
/* a split's behavior, and Metaspace's prepend_scheme */
enum { TJ_REMOVED, TJ_ISOLATED, TJ_MERGED_PREV, TJ_MERGED_NEXT, TJ_CONTIGUOUS };
enum { TJ_PREPEND_ALWAYS, TJ_PREPEND_FIRST, TJ_PREPEND_NEVER };

/* ---- reading (tokjson.c) ---- */

/* The reader's state: the tokenizer being filled, the document read, where
 * errors go. */
struct rd {
	struct tokjson *t;
	const struct ydoc *d;
	struct err *e;
};

/* "file:line: message" for node n (line 1 without one); returns -1. */
int tokjson_fail(struct rd *r, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* n is absent or JSON null */
int tokjson_null(const struct ynode *n);
/* The string at key of map into *out (NULL when absent or null); -1 with
 * the error when it is something else.  The string is the document's. */
int tokjson_str(struct rd *r, const struct ynode *map, const char *key, const char **out);
/* The boolean at key of map into *out (def when absent or null). */
int tokjson_bool(struct rd *r, const struct ynode *map, const char *key, int def, int *out);
/* The whole number n, lo … hi, into *out; what names it in the error. */
int tokjson_int(struct rd *r, const struct ynode *n, long long lo, long long hi,
		const char *what, long long *out);
/* The "type" of an object, or NULL. */
const char *tokjson_type(const struct ynode *n);
/* strdup, or NULL with "out of memory" in r's error. */
char *tokjson_dup(struct rd *r, const char *s);

/* Appends id to v[*n] (the post-processor's ids: at most 64). */
int tokjson_push_id(struct rd *r, int32_t **v, int *n, int32_t id);
/* The normalizer, pre-tokenizer, post-processor and decoder of the
 * document's root (tokjson_steps.c). */
int tokjson_read_steps(struct rd *r, const struct ynode *root);

/* ---- encoding (tokjson_enc.c) ---- */

/* A piece of text on its way through: its bytes (owned, NUL-terminated),
 * whether it starts at offset 0 of the text (Metaspace's prepend_scheme
 * first), and the id of the added token it is (-1: text to tokenize). */
struct piece {
	char *s;
	size_t len;
	int first;
	int32_t id;
};

struct plist {
	struct piece *v;      /* [cap], the first n in use (owned) */
	int n, cap;
};

/* Appends a copy of s[0..len).  Returns -1 when out of memory. */
int tokjson_plist_push(struct plist *l, const char *s, size_t len, int first, int32_t id);
void tokjson_plist_free(struct plist *l);

/* A growable string; after an allocation fails, oom is set and nothing
 * more is added.  s is NUL-terminated once anything was added; free it. */
struct sbuf {
	char *s;
	size_t n, cap;
	int oom;
};

void tokjson_sb_add(struct sbuf *b, const char *s, size_t n);
void tokjson_sb_cp(struct sbuf *b, uint32_t cp);
/* The code point at s[i] (of s[0..len)), its length in *l (invalid: U+FFFD
 * of length 1). */
uint32_t tokjson_cp_at(const char *s, size_t len, size_t i, int *l);
/* s[0..len) with every a replaced by b, appended to o. */
void tokjson_replace_all(struct sbuf *o, const char *s, size_t len, const char *a,
			 const char *b);

/* The model on one pre-token, its ids appended to o (tokjson_model.c).
 * Return -1 when out of memory. */
int tokjson_bpe_word(const struct tokjson *t, const struct piece *p, struct ids *o);
int tokjson_unigram_word(const struct tokjson *t, const struct piece *p, struct ids *o);

#endif
