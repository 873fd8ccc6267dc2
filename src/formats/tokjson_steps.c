/* tokjson_steps.c - reading a tokenizer.json's normalizer, pre-tokenizer,
 * post-processor and decoder into steps (tokjson.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "tokjson_int.h"
#include "pretok.h"
#include "ydoc.h"
#include "base/i18n.h"
#include "base/utf8.h"

/* A Split's or a Replace's pattern: {"String": s} or {"Regex": s}. */
static int read_pattern(struct rd *r, const struct ynode *x, const char **str, const char **re)
{
	const struct ynode *p = ynode_get(x, "pattern");
	*str = *re = NULL;
	if (!p || p->kind != Y_MAP || p->n != 1 || p->items[1]->kind != Y_SCALAR)
		return tokjson_fail(r, p ? p : x, "pattern: expected {\"String\": …} or {\"Regex\": …}");
	if (!strcmp(p->items[0]->str, "String"))
		*str = p->items[1]->str;
	else if (!strcmp(p->items[0]->str, "Regex"))
		*re = p->items[1]->str;
	else
		return tokjson_fail(r, p, "pattern: expected String or Regex, not %.40s", p->items[0]->str);
	return 0;
}

static struct tokjson_step *new_step(struct rd *r, const struct ynode *x,
				     struct tokjson_step *s, int *n, int kind)
{
	if (*n >= TOKJSON_MAX_STEPS) {
		tokjson_fail(r, x, "more than 8 steps in a sequence");
		return NULL;
	}
	memset(&s[*n], 0, sizeof s[*n]);
	s[*n].kind = kind;
	return &s[(*n)++];
}

static int set_strs(struct rd *r, struct tokjson_step *s, const char *a, const char *b)
{
	if ((a && !(s->a = tokjson_dup(r, a))) || (b && !(s->b = tokjson_dup(r, b))))
		return -1;
	return 0;
}

/* The value of one base64 character, or -1. */
static int b64(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 :
	       c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Precompiled's precompiled_charsmap: base64 of SentencePiece's blob
 * (null: no rules, the text as it is). */
static int read_charsmap(struct rd *r, const struct ynode *x)
{
	struct tokjson *t = r->t;
	const char *s, *why = NULL;
	if (tokjson_str(r, x, "precompiled_charsmap", &s))
		return -1;
	if (!s || !*s)
		return 0;
	if (t->charsmap.units)
		return tokjson_fail(r, x, "normalizer: more than one Precompiled");
	size_t n = strlen(s), o = 0;
	unsigned char *blob = malloc(n / 4 * 3 + 3);
	if (!blob)
		return err_set(r->e, "out of memory");
	uint32_t acc = 0;
	int bits = 0, bad = n % 4 != 0;
	for (size_t i = 0; i < n && !bad; i++) {
		int v = b64((unsigned char)s[i]);
		if (v < 0) {
			/* '=' only as the last one or two */
			bad = s[i] != '=' || i + 2 < n || (i + 1 < n && s[i + 1] != '=');
			break;
		}
		acc = acc << 6 | (uint32_t)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			blob[o++] = (unsigned char)(acc >> bits);
		}
	}
	int rc = bad ? tokjson_fail(r, x, "Precompiled: precompiled_charsmap is not base64") :
		 charsmap_init(&t->charsmap, blob, o, &why) ?
		 tokjson_fail(r, x, "Precompiled: precompiled_charsmap: %s", _(why)) : 0;
	free(blob);
	/* the replacements are text (Hugging Face refuses a charsmap whose
	 * strings are not UTF-8) */
	for (size_t k = 0; !rc && k < t->charsmap.nrepl; k += strlen(t->charsmap.repl + k) + 1)
		if (!utf8_valid(t->charsmap.repl + k))
			rc = tokjson_fail(r, x, "Precompiled: a replacement in precompiled_charsmap "
					  "is not UTF-8");
	return rc;
}

static int read_normalizer_one(struct rd *r, const struct ynode *x, const char *ty)
{
	struct tokjson *t = r->t;
	const char *a, *b;
	struct tokjson_step *s;
	int kind = !strcmp(ty, "NFC") ? TJ_NFC : !strcmp(ty, "NFD") ? TJ_NFD :
		   !strcmp(ty, "Lowercase") ? TJ_LOWER : !strcmp(ty, "Prepend") ? TJ_PREPEND :
		   !strcmp(ty, "Replace") ? TJ_REPLACE : !strcmp(ty, "Strip") ? TJ_STRIP :
		   !strcmp(ty, "Precompiled") ? TJ_PRECOMPILED : -1;
	if (kind < 0)
		return tokjson_fail(r, x, "normalizer %.40s is not read", ty);
	if (!(s = new_step(r, x, t->norm, &t->nnorm, kind)))
		return -1;
	switch (kind) {
	case TJ_PREPEND:
		if (tokjson_str(r, x, "prepend", &a))
			return -1;
		return set_strs(r, s, a ? a : "", NULL);
	case TJ_REPLACE:
		if (read_pattern(r, x, &a, &b) || tokjson_str(r, x, "content", &ty))
			return -1;
		/* T5's files (transformers' SpmConverter): runs of spaces as one */
		if (b && !strcmp(b, " {2,}")) {
			s->x = 1;
			a = " ";
		}
		if (!a || !*a)
			return tokjson_fail(r, x, "normalizer Replace: the regex \"%.60s\" is not "
					    "read (a String pattern and \" {2,}\" are)", b ? b : "");
		return set_strs(r, s, a, ty ? ty : "");
	case TJ_STRIP:
		return tokjson_bool(r, x, "strip_left", 1, &s->x) ||
		       tokjson_bool(r, x, "strip_right", 1, &s->y);
	case TJ_PRECOMPILED:
		return read_charsmap(r, x);
	default:
		return 0;
	}
}

static int read_behavior(struct rd *r, const struct ynode *x, int *out)
{
	const char *bh;
	static const char *const names[] = { "Removed", "Isolated", "MergedWithPrevious",
					      "MergedWithNext", "Contiguous" };
	int inv;
	if (tokjson_str(r, x, "behavior", &bh) || tokjson_bool(r, x, "invert", 0, &inv))
		return -1;
	if (inv)
		return tokjson_fail(r, x, "pre_tokenizer Split: invert true is not read");
	for (int i = 0; i < 5; i++)
		if (bh && !strcmp(bh, names[i])) {
			*out = i;
			return 0;
		}
	return tokjson_fail(r, x, "pre_tokenizer Split: behavior %.40s is not read", bh ? bh : "null");
}

static int read_split(struct rd *r, const struct ynode *x)
{
	struct tokjson *t = r->t;
	const char *str, *re;
	int bh = 0;
	if (read_pattern(r, x, &str, &re) || read_behavior(r, x, &bh))
		return -1;
	int k = re ? pretok_find(re) : -1;
	if (re && k < 0)
		return tokjson_fail(r, x, "pre_tokenizer Split: the regex \"%.120s\" is none of those read "
			    "(GPT-2's, Llama 3's, Qwen2's)", re);
	if (str && !*str)
		return tokjson_fail(r, x, "pre_tokenizer Split: an empty pattern");
	struct tokjson_step *s = new_step(r, x, t->pre, &t->npre, re ? TJ_SPLIT_RE : TJ_SPLIT_STR);
	if (!s)
		return -1;
	s->x = k;
	s->y = bh;
	return str ? set_strs(r, s, str, NULL) : 0;
}

static int read_metaspace(struct rd *r, const struct ynode *x, struct tokjson_step *s)
{
	const char *rep, *scheme;
	int aps;
	if (tokjson_str(r, x, "replacement", &rep) || tokjson_str(r, x, "prepend_scheme", &scheme) ||
	    tokjson_bool(r, x, "add_prefix_space", 1, &aps) || tokjson_bool(r, x, "split", 1, &s->y))
		return -1;
	if (!rep || !*rep)
		return tokjson_fail(r, x, "Metaspace: expected a replacement");
	/* older files say add_prefix_space instead of prepend_scheme */
	s->x = !scheme ? (aps ? TJ_PREPEND_ALWAYS : TJ_PREPEND_NEVER) :
	       !strcmp(scheme, "always") ? TJ_PREPEND_ALWAYS :
	       !strcmp(scheme, "first") ? TJ_PREPEND_FIRST :
	       !strcmp(scheme, "never") ? TJ_PREPEND_NEVER : -1;
	if (s->x < 0)
		return tokjson_fail(r, x, "Metaspace: prepend_scheme %.40s is not read", scheme);
	return set_strs(r, s, rep, NULL);
}

static int read_pre_one(struct rd *r, const struct ynode *x, const char *ty)
{
	struct tokjson *t = r->t;
	struct tokjson_step *s;
	if (!strcmp(ty, "Split"))
		return read_split(r, x);
	int kind = !strcmp(ty, "ByteLevel") ? TJ_BYTELEVEL : !strcmp(ty, "Metaspace") ? TJ_METASPACE :
		   !strcmp(ty, "Digits") ? TJ_DIGITS : !strcmp(ty, "WhitespaceSplit") ? TJ_WSSPLIT : -1;
	if (kind < 0)
		return tokjson_fail(r, x, "pre_tokenizer %.40s is not read", ty);
	if (!(s = new_step(r, x, t->pre, &t->npre, kind)))
		return -1;
	switch (kind) {
	case TJ_BYTELEVEL:
		t->byte_level = 1;
		return tokjson_bool(r, x, "add_prefix_space", 1, &s->x) ||
		       tokjson_bool(r, x, "use_regex", 1, &s->y);
	case TJ_METASPACE:
		return read_metaspace(r, x, s);
	case TJ_DIGITS:
		return tokjson_bool(r, x, "individual_digits", 0, &s->x);
	default:
		return 0;
	}
}

static int read_decoder_one(struct rd *r, const struct ynode *x, const char *ty)
{
	struct tokjson *t = r->t;
	const char *a, *b;
	struct tokjson_step *s;
	int kind = !strcmp(ty, "ByteLevel") ? TJ_DEC_BYTELEVEL :
		   !strcmp(ty, "Metaspace") ? TJ_DEC_METASPACE :
		   !strcmp(ty, "Replace") ? TJ_DEC_REPLACE :
		   !strcmp(ty, "ByteFallback") ? TJ_DEC_BYTEFALLBACK :
		   !strcmp(ty, "Fuse") ? TJ_DEC_FUSE : !strcmp(ty, "Strip") ? TJ_DEC_STRIP : -1;
	if (kind < 0)
		return tokjson_fail(r, x, "decoder %.40s is not read", ty);
	if (!(s = new_step(r, x, t->dec, &t->ndec, kind)))
		return -1;
	long long v;
	switch (kind) {
	case TJ_DEC_METASPACE:
		return read_metaspace(r, x, s);
	case TJ_DEC_REPLACE:
		if (read_pattern(r, x, &a, &b) || tokjson_str(r, x, "content", &ty))
			return -1;
		if (!a || !*a)
			return tokjson_fail(r, x, "decoder Replace: only a String pattern is read");
		return set_strs(r, s, a, ty ? ty : "");
	case TJ_DEC_STRIP:
		if (tokjson_str(r, x, "content", &a))
			return -1;
		if (!a || utf8_decode((const unsigned char *)a, 4, (uint32_t[]){ 0 }) != (int)strlen(a))
			return tokjson_fail(r, x, "decoder Strip: content must be one character");
		if (set_strs(r, s, a, NULL) ||
		    tokjson_int(r, ynode_get(x, "start"), 0, 1 << 20, "Strip.start", &v))
			return -1;
		s->x = (int)v;
		if (tokjson_int(r, ynode_get(x, "stop"), 0, 1 << 20, "Strip.stop", &v))
			return -1;
		s->y = (int)v;
		return 0;
	default:
		return 0;
	}
}

/* ---- post-processor ---- */

int tokjson_push_id(struct rd *r, int32_t **v, int *n, int32_t id)
{
	if (*n >= 64)
		return err_set(r->e, "%s: the post-processor adds more than 64 tokens", r->t->file);
	int32_t *nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
	if (!nv)
		return err_set(r->e, "out of memory");
	nv[(*n)++] = id;
	*v = nv;
	return 0;
}

/* The ids of TemplateProcessing's special token named name. */
static int template_special(struct rd *r, const struct ynode *x, const char *name, int after)
{
	struct tokjson *t = r->t;
	const struct ynode *sp = ynode_get(x, "special_tokens");
	const struct ynode *st = sp && sp->kind == Y_MAP ? ynode_get(sp, name) : NULL;
	const struct ynode *ids = st && st->kind == Y_MAP ? ynode_get(st, "ids") : NULL;
	if (!ids || ids->kind != Y_SEQ)
		return tokjson_fail(r, x, "post_processor: the template's special token %.40s is not in "
			    "special_tokens", name);
	for (size_t i = 0; i < ids->n; i++) {
		long long id;
		if (tokjson_int(r, ids->items[i], 0, t->vocab.n - 1, "post_processor.ids", &id) ||
		    (after ? tokjson_push_id(r, &t->post_ids, &t->npost_ids, (int32_t)id) :
			     tokjson_push_id(r, &t->pre_ids, &t->npre_ids, (int32_t)id)))
			return -1;
	}
	return 0;
}

static int read_template(struct rd *r, const struct ynode *x)
{
	const struct ynode *single = ynode_get(x, "single");
	int after = 0, seen = 0;
	if (!single || single->kind != Y_SEQ)
		return tokjson_fail(r, x, "post_processor: TemplateProcessing needs a list single");
	for (size_t i = 0; i < single->n; i++) {
		const struct ynode *it = single->items[i];
		if (it->kind != Y_MAP || it->n != 1 || it->items[1]->kind != Y_MAP)
			return tokjson_fail(r, it, "post_processor: expected {SpecialToken: …} or "
				    "{Sequence: …}");
		const char *k = it->items[0]->str, *id;
		if (tokjson_str(r, it->items[1], "id", &id))
			return -1;
		if (!id)
			return tokjson_fail(r, it, "post_processor: an item without an id");
		if (!strcmp(k, "Sequence")) {
			if (strcmp(id, "A") || seen)
				return tokjson_fail(r, it, "post_processor: the single template holds the "
					    "sequence %.40s (only one A is read)", id);
			seen = after = 1;
		} else if (!strcmp(k, "SpecialToken")) {
			if (template_special(r, x, id, after))
				return -1;
		} else {
			return tokjson_fail(r, it, "post_processor: a template item %.40s", k);
		}
	}
	if (!seen)
		return tokjson_fail(r, x, "post_processor: the single template has no $A");
	return 0;
}

/* RobertaProcessing and BertProcessing: {"cls": [tok, id], "sep": [tok, id]} */
static int read_cls_sep(struct rd *r, const struct ynode *x)
{
	struct tokjson *t = r->t;
	for (int k = 0; k < 2; k++) {
		const struct ynode *p = ynode_get(x, k ? "sep" : "cls");
		long long id;
		if (!p || p->kind != Y_SEQ || p->n != 2)
			return tokjson_fail(r, p ? p : x, "post_processor: expected %s: [token, id]",
				    k ? "sep" : "cls");
		if (tokjson_int(r, p->items[1], 0, t->vocab.n - 1, "post_processor.ids", &id) ||
		    (k ? tokjson_push_id(r, &t->post_ids, &t->npost_ids, (int32_t)id) :
			 tokjson_push_id(r, &t->pre_ids, &t->npre_ids, (int32_t)id)))
			return -1;
	}
	return 0;
}

static int read_post_one(struct rd *r, const struct ynode *x, const char *ty)
{
	if (!strcmp(ty, "ByteLevel"))
		return 0;          /* offsets only: no ids */
	if (!strcmp(ty, "TemplateProcessing"))
		return read_template(r, x);
	if (!strcmp(ty, "RobertaProcessing") || !strcmp(ty, "BertProcessing"))
		return read_cls_sep(r, x);
	return tokjson_fail(r, x, "post_processor %.40s is not read", ty);
}

/* The four parts of a tokenizer.json: each an object with a type, null,
 * or a Sequence of them (one level deep), read one step at a time. */
struct part {
	const char *key, *list;          /* "normalizer", "normalizers" */
	int (*one)(struct rd *, const struct ynode *, const char *type);
};

static int read_part(struct rd *r, const struct part *p, const struct ynode *x, int depth)
{
	const char *ty = tokjson_type(x);
	if (tokjson_null(x))
		return 0;
	if (!ty)
		return tokjson_fail(r, x, "%s: expected an object with a type", p->key);
	if (strcmp(ty, "Sequence") || depth >= 2)
		return p->one(r, x, ty);
	const struct ynode *l = ynode_get(x, p->list);
	if (!l || l->kind != Y_SEQ)
		return tokjson_fail(r, x, "%s: a Sequence needs a list %s", p->key, p->list);
	for (size_t i = 0; i < l->n; i++)
		if (read_part(r, p, l->items[i], depth + 1))
			return -1;
	return 0;
}

int tokjson_read_steps(struct rd *r, const struct ynode *root)
{
	static const struct part parts[] = {
		{ "normalizer", "normalizers", read_normalizer_one },
		{ "pre_tokenizer", "pretokenizers", read_pre_one },
		{ "post_processor", "processors", read_post_one },
		{ "decoder", "decoders", read_decoder_one },
	};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		if (read_part(r, &parts[i], ynode_get(root, parts[i].key), 0))
			return -1;
	return 0;
}
