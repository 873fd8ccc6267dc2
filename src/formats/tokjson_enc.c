/* tokjson_enc.c - encoding with a tokenizer.json: added tokens, the
 * normalizer, the pre-tokenizer, the model (tokjson_model.c), the
 * post-processor.  The steps follow Hugging Face's tokenizers (its
 * AddedVocabulary and NormalizedString::split); and the small text
 * helpers of tokjson_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "tokjson_int.h"
#include "pretok.h"
#include "base/unicode.h"
#include "base/utf8.h"

int tokjson_plist_push(struct plist *l, const char *s, size_t len, int first, int32_t id)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		struct piece *nv = realloc(l->v, (size_t)cap * sizeof *nv);
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	char *c = malloc(len + 1);
	if (!c)
		return -1;
	memcpy(c, s, len);
	c[len] = 0;
	l->v[l->n++] = (struct piece){ c, len, first, id };
	return 0;
}

void tokjson_plist_free(struct plist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i].s);
	free(l->v);
	memset(l, 0, sizeof *l);
}

void tokjson_sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void tokjson_sb_cp(struct sbuf *b, uint32_t cp)
{
	char u[4];
	tokjson_sb_add(b, u, (size_t)utf8_encode(cp, u));
}

static int is_ws(uint32_t c) { return (uni_flags(c) & UNI_WS) != 0; }

uint32_t tokjson_cp_at(const char *s, size_t len, size_t i, int *l)
{
	uint32_t cp;
	*l = utf8_decode((const unsigned char *)s + i, len - i, &cp);
	return cp;
}

/* ---- added tokens ---- */

/* Whether the added token a matches s at i (s[0..len)), and where the
 * match with its lstrip/rstrip white space runs: [*from, *to). */
static int added_at(const struct tokjson_added *a, const char *s, size_t len, size_t i,
		    size_t lo, size_t *from, size_t *to)
{
	size_t cl = strlen(a->content);
	if (cl > len - i || memcmp(s + i, a->content, cl))
		return 0;
	size_t f = i, e = i + cl;
	if (a->single_word) {
		/* not inside a word: no letter, digit or _ touches it */
		uint32_t cp;
		int l;
		if (f > lo) {
			size_t p = f - 1;
			while (p > lo && ((unsigned char)s[p] & 0xC0) == 0x80)
				p--;
			cp = tokjson_cp_at(s, len, p, &l);
			if (cp == '_' || (uni_flags(cp) & (UNI_L | UNI_N)))
				return 0;
		}
		if (e < len) {
			cp = tokjson_cp_at(s, len, e, &l);
			if (cp == '_' || (uni_flags(cp) & (UNI_L | UNI_N)))
				return 0;
		}
	}
	if (a->lstrip)
		while (f > lo && strchr(" \t\n\r\v\f", s[f - 1]) && s[f - 1])
			f--;
	if (a->rstrip)
		while (e < len && strchr(" \t\n\r\v\f", s[e]) && s[e])
			e++;
	*from = f;
	*to = e;
	return 1;
}

/* Splits s[0..len) at the added tokens whose normalized flag is norm (the
 * longest at the leftmost place), appending the text between them and the
 * tokens to out. */
static int split_added(const struct tokjson *t, const char *s, size_t len, int first,
		       int norm, struct plist *out)
{
	size_t seg = 0;
	for (size_t i = 0; i < len;) {
		int best = -1;
		size_t bf = 0, bt = 0;
		/* every added token that starts at i, shortest first */
		int32_t node = 0;
		for (size_t j = i; j < len &&
		     (node = bytetrie_next(&t->added_trie, node, (unsigned char)s[j])) >= 0;) {
			int k = bytetrie_val(&t->added_trie, node);
			const struct tokjson_added *a = k >= 0 ? &t->added[k] : NULL;
			size_t f, e;
			j++;
			if (a && a->normalized == norm && added_at(a, s, len, i, seg, &f, &e)) {
				best = k;
				bf = f;
				bt = e;
			}
		}
		if (best < 0) {
			i++;
			continue;
		}
		if (bf > seg && tokjson_plist_push(out, s + seg, bf - seg, first && seg == 0, -1))
			return -1;
		if (tokjson_plist_push(out, s + bf, bt - bf, first && bf == 0, t->added[best].id))
			return -1;
		seg = i = bt;
	}
	if (seg < len && tokjson_plist_push(out, s + seg, len - seg, first && seg == 0, -1))
		return -1;
	return 0;
}

/* ---- normalizer ---- */

/* The code points of s[0..len) into a malloc'd array (*n of them). */
static uint32_t *cps_of(const char *s, size_t len, size_t *n)
{
	uint32_t *c = malloc((len + 1) * sizeof *c);
	*n = 0;
	if (!c)
		return NULL;
	for (size_t i = 0; i < len;) {
		int l;
		c[(*n)++] = tokjson_cp_at(s, len, i, &l);
		i += (size_t)l;
	}
	return c;
}

static void normal_form(struct sbuf *o, const char *s, size_t len, int nfc)
{
	size_t n;
	uint32_t *c = cps_of(s, len, &n);
	uint32_t *out = malloc((n + 1) * UNI_MAX_DECOMP * sizeof *out);
	uint32_t *tmp = malloc((n + 1) * UNI_MAX_DECOMP * sizeof *tmp);
	if (!c || !out || !tmp) {
		o->oom = 1;
	} else {
		size_t m = nfc ? uni_nfc(c, n, out, tmp) : uni_nfd(c, n, out, tmp);
		for (size_t i = 0; i < m; i++)
			tokjson_sb_cp(o, out[i]);
	}
	free(c);
	free(out);
	free(tmp);
}

void tokjson_replace_all(struct sbuf *o, const char *s, size_t len, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	for (size_t i = 0; i < len;) {
		if (al <= len - i && !memcmp(s + i, a, al)) {
			tokjson_sb_add(o, b, bl);
			i += al;
		} else {
			tokjson_sb_add(o, s + i, 1);
			i++;
		}
	}
}

/* Whether cp stays in the grapheme of the character before it (Unicode's
 * Extend and SpacingMark): a mark, a variation selector, an emoji skin
 * tone, a zero-width (non-)joiner, Thai's and Lao's sara am. */
static int extends(uint32_t cp)
{
	return (uni_flags(cp) & (UNI_MN | UNI_MC)) || cp == 0x0E33 || cp == 0x0EB3 ||
	       (cp >= 0x20DD && cp <= 0x20E4) ||
	       cp == 0x0488 || cp == 0x0489 || (cp >= 0xA670 && cp <= 0xA672) ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF) ||
	       (cp >= 0x1F3FB && cp <= 0x1F3FF) || cp == 0x200C || cp == 0x200D;
}

/* Unicode's Prepend: the character after it is in its grapheme. */
static int prepend(uint32_t cp)
{
	return (cp >= 0x0600 && cp <= 0x0605) || cp == 0x06DD || cp == 0x070F || cp == 0x0890 ||
	       cp == 0x0891 || cp == 0x08E2 || cp == 0x110BD || cp == 0x110CD;
}

/* A grapheme of its own (Unicode's Control: controls, format characters,
 * the line and paragraph separators). */
static int control(uint32_t cp)
{
	return cp != 0x200C && cp != 0x200D && !prepend(cp) && !(cp >= 0xE000 && cp <= 0xF8FF) &&
	       cp < 0xF0000 && ((uni_flags(cp) & UNI_C) || cp == 0x2028 || cp == 0x2029);
}

/* Roughly Extended_Pictographic: what a joiner joins into one emoji. */
static int pictographic(uint32_t cp)
{
	return (cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0x2190 && cp <= 0x2BFF) ||
	       cp == 0xA9 || cp == 0xAE || cp == 0x203C || cp == 0x2049 || cp == 0x2122 ||
	       cp == 0x2139 || cp == 0x3030 || cp == 0x303D || cp == 0x3297 || cp == 0x3299;
}

/* The length in bytes of the grapheme at s[i] (of s[0..len)), as
 * tokjson.h says it is approximated (Unicode's rules GB3-GB5, GB9-GB9b,
 * GB11; not Hangul jamo and flags, whose graphemes are 6 bytes or more,
 * which Precompiled takes character by character anyway). */
static size_t grapheme(const char *s, size_t len, size_t i)
{
	int l;
	uint32_t cp = tokjson_cp_at(s, len, i, &l);
	size_t j = i + (size_t)l;
	if (cp == '\r' && j < len && s[j] == '\n')
		return 2;
	if (control(cp))
		return (size_t)l;
	while (prepend(cp) && j < len) {
		cp = tokjson_cp_at(s, len, j, &l);
		if (control(cp) || cp == '\r' || cp == '\n')
			return j - i;
		j += (size_t)l;
	}
	int emoji = pictographic(cp);
	while (j < len) {
		uint32_t nx = tokjson_cp_at(s, len, j, &l);
		if (!extends(nx))
			break;
		j += (size_t)l;
		if (nx == 0x200D && emoji && j < len &&
		    pictographic(tokjson_cp_at(s, len, j, &l)))
			j += (size_t)l;
	}
	return j - i;
}

/* Hugging Face's Precompiled normalizer: a grapheme of under 6 bytes
 * replaced whole by the shortest rule that starts it, else each character
 * by the rule of exactly it... or as it is. */
static void precompiled(const struct charsmap *cm, const char *s, size_t len,
			struct sbuf *o)
{
	const char *rep;
	size_t rl;
	for (size_t i = 0; i < len;) {
		size_t g = grapheme(s, len, i);
		if (g < 6 && charsmap_match(cm, s + i, g, 1, &rep, &rl)) {
			tokjson_sb_add(o, rep, rl);
			i += g;
			continue;
		}
		for (size_t k = i; k < i + g;) {
			int l;
			tokjson_cp_at(s, len, k, &l);
			if (charsmap_match(cm, s + k, (size_t)l, 1, &rep, &rl))
				tokjson_sb_add(o, rep, rl);
			else
				tokjson_sb_add(o, s + k, (size_t)l);
			k += (size_t)l;
		}
		i += g;
	}
}

/* One normalizer step on s[0..len) into o. */
static void norm_step(const struct tokjson_step *st, const struct charsmap *cm,
		      const char *s, size_t len, struct sbuf *o)
{
	int l;
	switch (st->kind) {
	case TJ_NFC:
	case TJ_NFD:
		normal_form(o, s, len, st->kind == TJ_NFC);
		return;
	case TJ_LOWER:
		for (size_t i = 0; i < len; i += (size_t)l) {
			uint32_t lo[UNI_MAX_LOWER];
			int k = uni_lower(tokjson_cp_at(s, len, i, &l), lo);
			for (int j = 0; j < k; j++)
				tokjson_sb_cp(o, lo[j]);
		}
		return;
	case TJ_PREPEND:
		if (len)
			tokjson_sb_add(o, st->a, strlen(st->a));
		tokjson_sb_add(o, s, len);
		return;
	case TJ_REPLACE:
		if (st->x) {
			/* " {2,}": each run of two or more spaces */
			for (size_t i = 0; i < len;) {
				size_t j = i;
				while (j < len && s[j] == ' ')
					j++;
				if (j - i >= 2)
					tokjson_sb_add(o, st->b, strlen(st->b));
				else
					tokjson_sb_add(o, s + i, j > i ? j - i : 1);
				i = j > i ? j : i + 1;
			}
			return;
		}
		tokjson_replace_all(o, s, len, st->a, st->b);
		return;
	case TJ_STRIP: {
		size_t f = 0, e = len;
		while (st->x && f < e && is_ws(tokjson_cp_at(s, len, f, &l)))
			f += (size_t)l;
		while (st->y && e > f) {
			size_t p = e - 1;
			while (p > f && ((unsigned char)s[p] & 0xC0) == 0x80)
				p--;
			if (!is_ws(tokjson_cp_at(s, len, p, &l)))
				break;
			e = p;
		}
		tokjson_sb_add(o, s + f, e - f);
		return;
	}
	default:
		precompiled(cm, s, len, o);
		return;
	}
}

/* p's text becomes o's (which it takes); -1 when o ran out of memory. */
static int piece_take(struct piece *p, struct sbuf *o)
{
	if (o->oom) {
		free(o->s);
		return -1;
	}
	free(p->s);
	p->s = o->s;
	p->len = o->n;
	return 0;
}

/* The normalizer on one piece (in place). */
static int normalize(const struct tokjson *t, struct piece *p)
{
	for (int k = 0; k < t->nnorm; k++) {
		struct sbuf o = { 0 };
		tokjson_sb_add(&o, "", 0);
		norm_step(&t->norm[k], &t->charsmap, p->s, p->len, &o);
		if (piece_take(p, &o))
			return -1;
	}
	return 0;
}

/* ---- pre-tokenizer ---- */

/* Intervals of a piece: [from, to) and whether it is a match of the
 * split's pattern. */
struct span { size_t from, to; int match; };

/* The pieces of p that a split's behavior keeps from the spans sp[n]
 * (covering p in order), appended to out (Hugging Face's
 * NormalizedString::split). */
static int split_by(const struct piece *p, struct span *sp, int n, int behavior,
		    struct plist *out)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		struct span s = sp[i];
		int prev_match = m > 0 && sp[m - 1].match;
		switch (behavior) {
		case TJ_REMOVED:
			if (s.match)
				continue;
			break;
		case TJ_CONTIGUOUS:
			if (s.match && prev_match) {
				sp[m - 1].to = s.to;
				continue;
			}
			break;
		case TJ_MERGED_PREV:
			if (s.match && m > 0 && !prev_match) {
				sp[m - 1].to = s.to;
				sp[m - 1].match = 1;  /* the next match stands alone */
				continue;
			}
			break;
		case TJ_MERGED_NEXT:
			if (!s.match && prev_match) {
				sp[m - 1].to = s.to;
				sp[m - 1].match = 0;
				continue;
			}
			break;
		default:
			break;
		}
		sp[m++] = s;
	}
	for (int i = 0; i < m; i++)
		if (sp[i].to > sp[i].from &&
		    tokjson_plist_push(out, p->s + sp[i].from, sp[i].to - sp[i].from,
			       p->first && sp[i].from == 0, -1))
			return -1;
	return 0;
}

/* The spans of p: matches where is_match says a code point matches, a
 * run of them one match (run) or each alone. */
static int spans_by_class(const struct piece *p, int (*is_match)(uint32_t), int run,
			  struct span **out, int *n)
{
	struct span *sp = malloc((p->len + 1) * sizeof *sp);
	int l, k = 0;
	if (!sp)
		return -1;
	for (size_t i = 0; i < p->len; i += (size_t)l) {
		int mt = is_match(tokjson_cp_at(p->s, p->len, i, &l));
		if (k && sp[k - 1].match == mt && (!mt || run))
			sp[k - 1].to = i + (size_t)l;
		else
			sp[k++] = (struct span){ i, i + (size_t)l, mt };
	}
	*out = sp;
	*n = k;
	return 0;
}

/* The spans of p for a known regex: every code point is in a match. */
static int spans_by_regex(const struct piece *p, enum pretok_regex kind, struct span **out,
			  int *n)
{
	size_t nc;
	uint32_t *c = cps_of(p->s, p->len, &nc);
	struct span *sp = malloc((nc + 1) * sizeof *sp);
	int k = 0;
	if (!c || !sp) {
		free(c);
		free(sp);
		return -1;
	}
	size_t off = 0;
	for (size_t i = 0; i < nc;) {
		size_t l = pretok_next(kind, c, i, nc), bytes = 0;
		for (size_t j = i; j < i + l; j++) {
			char u[4];
			bytes += (size_t)utf8_encode(c[j], u);
		}
		sp[k++] = (struct span){ off, off + bytes, 1 };
		off += bytes;
		i += l;
	}
	free(c);
	*out = sp;
	*n = k;
	return 0;
}

/* The spans of p around each occurrence of str. */
static int spans_by_string(const struct piece *p, const char *str, struct span **out, int *n)
{
	size_t sl = strlen(str);
	struct span *sp = malloc((2 * p->len + 2) * sizeof *sp);
	int k = 0;
	size_t gap = 0;
	if (!sp)
		return -1;
	for (size_t i = 0; i < p->len;) {
		if (sl <= p->len - i && !memcmp(p->s + i, str, sl)) {
			if (i > gap)
				sp[k++] = (struct span){ gap, i, 0 };
			sp[k++] = (struct span){ i, i + sl, 1 };
			i += sl;
			gap = i;
		} else {
			i++;
		}
	}
	if (gap < p->len)
		sp[k++] = (struct span){ gap, p->len, 0 };
	*out = sp;
	*n = k;
	return 0;
}

static int is_num(uint32_t c) { return (uni_flags(c) & UNI_N) != 0; }

/* A piece rewritten by a pre-tokenizer, before it splits: ByteLevel's
 * prefix space, Metaspace's replacement and prefix. */
static int rewrite(const struct tokjson_step *st, struct piece *p)
{
	struct sbuf o = { 0 };
	tokjson_sb_add(&o, "", 0);
	if (st->kind == TJ_BYTELEVEL) {
		if (st->x && (p->len == 0 || p->s[0] != ' '))
			tokjson_sb_add(&o, " ", 1);
		tokjson_sb_add(&o, p->s, p->len);
	} else {
		size_t rl = strlen(st->a);
		int starts = p->len >= 1 && (p->s[0] == ' ' ||
					     (p->len >= rl && !memcmp(p->s, st->a, rl)));
		if (!starts && (st->x == TJ_PREPEND_ALWAYS || (st->x == TJ_PREPEND_FIRST && p->first)))
			tokjson_sb_add(&o, st->a, rl);
		tokjson_replace_all(&o, p->s, p->len, " ", st->a);
	}
	return piece_take(p, &o);
}

/* ByteLevel's mapping of a piece's bytes to GPT-2's byte characters. */
static int to_byte_chars(struct piece *p)
{
	struct sbuf o = { 0 };
	tokjson_sb_add(&o, "", 0);
	for (size_t i = 0; i < p->len; i++)
		tokjson_sb_cp(&o, pretok_byte_cp((unsigned char)p->s[i]));
	return piece_take(p, &o);
}

/* One pre-tokenizer step on p, its pieces appended to out. */
static int pre_step(const struct tokjson_step *st, struct piece *p, struct plist *out)
{
	struct span *sp = NULL;
	int n = 0, rc = -1;
	int bh = TJ_ISOLATED;
	switch (st->kind) {
	case TJ_SPLIT_RE:
		rc = spans_by_regex(p, (enum pretok_regex)st->x, &sp, &n);
		bh = st->y;
		break;
	case TJ_SPLIT_STR:
		rc = spans_by_string(p, st->a, &sp, &n);
		bh = st->y;
		break;
	case TJ_DIGITS:
		rc = spans_by_class(p, is_num, !st->x, &sp, &n);
		break;
	case TJ_WSSPLIT:
		rc = spans_by_class(p, is_ws, 1, &sp, &n);
		bh = TJ_REMOVED;
		break;
	case TJ_BYTELEVEL:
		if (rewrite(st, p))
			return -1;
		rc = st->y ? spans_by_regex(p, PRETOK_GPT2, &sp, &n) : 0;
		if (!st->y && !rc) {
			/* one piece: mapped to byte characters below */
			sp = malloc(sizeof *sp);
			rc = sp ? 0 : -1;
			if (sp)
				sp[n++] = (struct span){ 0, p->len, 0 };
		}
		break;
	case TJ_METASPACE:
		if (rewrite(st, p))
			return -1;
		if (st->y) {
			rc = spans_by_string(p, st->a, &sp, &n);
			bh = TJ_MERGED_NEXT;
		} else {
			sp = malloc(sizeof *sp);
			rc = sp ? 0 : -1;
			if (sp)
				sp[n++] = (struct span){ 0, p->len, 0 };
		}
		break;
	default:
		return -1;
	}
	int from = out->n;
	if (!rc)
		rc = split_by(p, sp, n, bh, out);
	free(sp);
	for (int i = from; !rc && st->kind == TJ_BYTELEVEL && i < out->n; i++)
		rc = to_byte_chars(&out->v[i]);
	return rc;
}

/* The pre-tokenizer on one piece: its pieces appended to out. */
static int pre_tokenize(const struct tokjson *t, const struct piece *p, struct plist *out)
{
	struct plist cur = { 0 };
	if (tokjson_plist_push(&cur, p->s, p->len, p->first, -1))
		return -1;
	for (int k = 0; k < t->npre; k++) {
		struct plist next = { 0 };
		for (int i = 0; i < cur.n; i++)
			if (pre_step(&t->pre[k], &cur.v[i], &next)) {
				tokjson_plist_free(&next);
				tokjson_plist_free(&cur);
				return -1;
			}
		tokjson_plist_free(&cur);
		cur = next;
	}
	for (int i = 0; i < cur.n; i++)
		if (cur.v[i].len && tokjson_plist_push(out, cur.v[i].s, cur.v[i].len, cur.v[i].first, -1)) {
			tokjson_plist_free(&cur);
			return -1;
		}
	tokjson_plist_free(&cur);
	return 0;
}

/* ---- encode ---- */

/* Normalizes, pre-tokenizes and tokenizes the text piece p into o. */
static int encode_text(const struct tokjson *t, struct piece *p, struct ids *o)
{
	struct plist segs = { 0 }, words = { 0 };
	int rc = -1;
	if (normalize(t, p) || split_added(t, p->s, p->len, p->first, 1, &segs))
		goto out;
	for (int i = 0; i < segs.n; i++) {
		if (segs.v[i].id >= 0) {
			if (ids_push(o, segs.v[i].id))
				goto out;
			continue;
		}
		tokjson_plist_free(&words);
		if (pre_tokenize(t, &segs.v[i], &words))
			goto out;
		for (int w = 0; w < words.n; w++)
			if (t->model == TOKJSON_BPE ? tokjson_bpe_word(t, &words.v[w], o) :
						      tokjson_unigram_word(t, &words.v[w], o))
				goto out;
	}
	rc = 0;
out:
	tokjson_plist_free(&segs);
	tokjson_plist_free(&words);
	return rc;
}

int tokjson_encode(const struct tokjson *t, const char *text, int add_special,
		   int32_t **ids, int *n, int *invalid, struct err *e)
{
	size_t len = strlen(text);
	struct sbuf clean = { 0 };
	struct plist segs = { 0 };
	struct ids o = { 0 };
	/* the text as Hugging Face sees it: invalid bytes become U+FFFD */
	tokjson_sb_add(&clean, "", 0);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)text + i, len - i, &cp);
		if (cp == 0xFFFD && !(l == 3 && !memcmp(text + i, "\xef\xbf\xbd", 3)))
			++*invalid;
		tokjson_sb_cp(&clean, cp);
		i += (size_t)l;
	}
	if (clean.oom || split_added(t, clean.s, clean.n, 1, 0, &segs))
		goto oom;
	for (int i = 0; add_special && i < t->npre_ids; i++)
		if (ids_push(&o, t->pre_ids[i]))
			goto oom;
	for (int i = 0; i < segs.n; i++)
		if (segs.v[i].id >= 0 ? ids_push(&o, segs.v[i].id) : encode_text(t, &segs.v[i], &o))
			goto oom;
	for (int i = 0; add_special && i < t->npost_ids; i++)
		if (ids_push(&o, t->post_ids[i]))
			goto oom;
	free(clean.s);
	tokjson_plist_free(&segs);
	*ids = o.v;
	*n = o.n;
	return 0;
oom:
	free(clean.s);
	tokjson_plist_free(&segs);
	free(o.v);
	return err_set(e, "out of memory");
}
