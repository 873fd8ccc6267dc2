/* tokjson_enc.c - encoding with a tokenizer.json: added tokens, the
 * normalizer, the pre-tokenizer, the model, the post-processor; and the
 * decoder.  The steps follow Hugging Face's tokenizers (its
 * AddedVocabulary, NormalizedString::split, BPE::merge_word,
 * Unigram::encode and the decoders' decode_chain). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "gpt2bpe.h"
#include "pretok.h"
#include "base/unicode.h"
#include "base/utf8.h"

/* A piece of text on its way through: its bytes (owned), whether it
 * starts at offset 0 of the text (Metaspace's prepend_scheme first), and
 * the id of the added token it is (-1: text to tokenize). */
struct piece {
	char *s;
	size_t len;
	int first;
	int32_t id;
};

struct plist {
	struct piece *v;
	int n, cap;
};

static int plist_push(struct plist *l, const char *s, size_t len, int first, int32_t id)
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

static void plist_free(struct plist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i].s);
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* A growable string. */
struct sbuf {
	char *s;
	size_t n, cap;
	int oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
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

static void sb_cp(struct sbuf *b, uint32_t cp)
{
	char u[4];
	sb_add(b, u, (size_t)utf8_encode(cp, u));
}

static int is_ws(uint32_t c) { return (uni_flags(c) & UNI_WS) != 0; }

static uint32_t cp_at(const char *s, size_t len, size_t i, int *l)
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
			cp = cp_at(s, len, p, &l);
			if (cp == '_' || (uni_flags(cp) & (UNI_L | UNI_N)))
				return 0;
		}
		if (e < len) {
			cp = cp_at(s, len, e, &l);
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
		size_t bf = 0, bt = 0, blen = 0;
		for (int k = 0; k < t->nadded; k++) {
			const struct tokjson_added *a = &t->added[k];
			size_t f, e;
			if (a->normalized != norm || (unsigned char)a->content[0] != (unsigned char)s[i])
				continue;
			if (added_at(a, s, len, i, seg, &f, &e) && strlen(a->content) > blen) {
				best = k;
				bf = f;
				bt = e;
				blen = strlen(a->content);
			}
		}
		if (best < 0) {
			i++;
			continue;
		}
		if (bf > seg && plist_push(out, s + seg, bf - seg, first && seg == 0, -1))
			return -1;
		if (plist_push(out, s + bf, bt - bf, first && bf == 0, t->added[best].id))
			return -1;
		seg = i = bt;
	}
	if (seg < len && plist_push(out, s + seg, len - seg, first && seg == 0, -1))
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
		c[(*n)++] = cp_at(s, len, i, &l);
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
			sb_cp(o, out[i]);
	}
	free(c);
	free(out);
	free(tmp);
}

static void replace_all(struct sbuf *o, const char *s, size_t len, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	for (size_t i = 0; i < len;) {
		if (al <= len - i && !memcmp(s + i, a, al)) {
			sb_add(o, b, bl);
			i += al;
		} else {
			sb_add(o, s + i, 1);
			i++;
		}
	}
}

/* One normalizer step on s[0..len) into o. */
static void norm_step(const struct tokjson_step *st, const char *s, size_t len,
		      struct sbuf *o)
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
			int k = uni_lower(cp_at(s, len, i, &l), lo);
			for (int j = 0; j < k; j++)
				sb_cp(o, lo[j]);
		}
		return;
	case TJ_PREPEND:
		if (len)
			sb_add(o, st->a, strlen(st->a));
		sb_add(o, s, len);
		return;
	case TJ_REPLACE:
		replace_all(o, s, len, st->a, st->b);
		return;
	case TJ_STRIP: {
		size_t f = 0, e = len;
		while (st->x && f < e && is_ws(cp_at(s, len, f, &l)))
			f += (size_t)l;
		while (st->y && e > f) {
			size_t p = e - 1;
			while (p > f && ((unsigned char)s[p] & 0xC0) == 0x80)
				p--;
			if (!is_ws(cp_at(s, len, p, &l)))
				break;
			e = p;
		}
		sb_add(o, s + f, e - f);
		return;
	}
	default:
		/* TJ_PRECOMPILED (T5): SentencePiece's charsmap is not read; the
		 * text stays as it is, which is what the charsmap (NFKC with
		 * SentencePiece's rules) gives for text already in NFKC */
		sb_add(o, s, len);
		return;
	}
}

/* The normalizer on one piece (in place). */
static int normalize(const struct tokjson *t, struct piece *p)
{
	for (int k = 0; k < t->nnorm; k++) {
		struct sbuf o = { 0 };
		sb_add(&o, "", 0);
		norm_step(&t->norm[k], p->s, p->len, &o);
		if (o.oom) {
			free(o.s);
			return -1;
		}
		free(p->s);
		p->s = o.s;
		p->len = o.n;
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
		    plist_push(out, p->s + sp[i].from, sp[i].to - sp[i].from,
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
		int mt = is_match(cp_at(p->s, p->len, i, &l));
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
	sb_add(&o, "", 0);
	if (st->kind == TJ_BYTELEVEL) {
		if (st->x && (p->len == 0 || p->s[0] != ' '))
			sb_add(&o, " ", 1);
		sb_add(&o, p->s, p->len);
	} else {
		size_t rl = strlen(st->a);
		int starts = p->len >= 1 && (p->s[0] == ' ' ||
					     (p->len >= rl && !memcmp(p->s, st->a, rl)));
		if (!starts && (st->x == TJ_PREPEND_ALWAYS || (st->x == TJ_PREPEND_FIRST && p->first)))
			sb_add(&o, st->a, rl);
		replace_all(&o, p->s, p->len, " ", st->a);
	}
	if (o.oom) {
		free(o.s);
		return -1;
	}
	free(p->s);
	p->s = o.s;
	p->len = o.n;
	return 0;
}

/* ByteLevel's mapping of a piece's bytes to GPT-2's byte characters. */
static int to_byte_chars(struct piece *p)
{
	struct sbuf o = { 0 };
	sb_add(&o, "", 0);
	for (size_t i = 0; i < p->len; i++)
		sb_cp(&o, pretok_byte_cp((unsigned char)p->s[i]));
	if (o.oom) {
		free(o.s);
		return -1;
	}
	free(p->s);
	p->s = o.s;
	p->len = o.n;
	return 0;
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
	if (plist_push(&cur, p->s, p->len, p->first, -1))
		return -1;
	for (int k = 0; k < t->npre; k++) {
		struct plist next = { 0 };
		for (int i = 0; i < cur.n; i++)
			if (pre_step(&t->pre[k], &cur.v[i], &next)) {
				plist_free(&next);
				plist_free(&cur);
				return -1;
			}
		plist_free(&cur);
		cur = next;
	}
	for (int i = 0; i < cur.n; i++)
		if (cur.v[i].len && plist_push(out, cur.v[i].s, cur.v[i].len, cur.v[i].first, -1)) {
			plist_free(&cur);
			return -1;
		}
	plist_free(&cur);
	return 0;
}

/* ---- the models ---- */

/* The symbols of a BPE word: a character each (its piece), else its
 * bytes' <0xXX> pieces (byte_fallback), else the unknown piece (a run of
 * them one, fuse_unk), else nothing (Hugging Face's BPE::merge_word). */
static int bpe_symbols(const struct tokjson *t, const struct piece *p, int32_t *sym, size_t *ns)
{
	char ch[8];
	int l, last_unk = 0;
	*ns = 0;
	for (size_t i = 0; i < p->len; i += (size_t)l) {
		cp_at(p->s, p->len, i, &l);
		memcpy(ch, p->s + i, (size_t)l);
		ch[l] = 0;
		int32_t id = vocab_id(&t->vocab, ch);
		if (id >= 0) {
			sym[(*ns)++] = id;
			last_unk = 0;
			continue;
		}
		int bytes = t->byte_fallback;
		for (int k = 0; bytes && k < l; k++)
			bytes = t->byte_tok[(unsigned char)ch[k]] >= 0;
		if (bytes) {
			for (int k = 0; k < l; k++)
				sym[(*ns)++] = t->byte_tok[(unsigned char)ch[k]];
			last_unk = 0;
			continue;
		}
		if (t->unk_id < 0)
			continue;
		if (!(t->fuse_unk && last_unk))
			sym[(*ns)++] = t->unk_id;
		last_unk = 1;
	}
	return 0;
}

static int bpe_word(const struct tokjson *t, const struct piece *p, struct ids *o)
{
	if (t->ignore_merges) {
		int32_t id = vocab_id(&t->vocab, p->s);
		if (id >= 0)
			return ids_push(o, id);
	}
	size_t ns;
	int32_t *sym = malloc((p->len * 4 + 1) * sizeof *sym);
	if (!sym)
		return -1;
	bpe_symbols(t, p, sym, &ns);
	int rc = bpemerge_apply(&t->merges, sym, ns, o);
	free(sym);
	return rc;
}

/* Unigram: the pieces of best total score (Viterbi over the byte
 * positions; a character no piece starts with is the unknown piece, of
 * score min_score − 10, consecutive unknowns fused; with byte_fallback its
 * bytes' <0xXX> pieces instead), as Hugging Face's Unigram::encode. */
static int unigram_word(const struct tokjson *t, const struct piece *p, struct ids *o)
{
	size_t n = p->len;
	double *best = malloc((n + 1) * sizeof *best);
	int32_t *bid = malloc((n + 1) * sizeof *bid);
	size_t *from = malloc((n + 1) * sizeof *from);
	int rc = -1;
	if (!best || !bid || !from)
		goto out;
	best[0] = 0;
	for (size_t i = 1; i <= n; i++)
		best[i] = -1e300;
	char buf[TOKJSON_MAX_PIECE];
	for (size_t i = 0; i < n; i++) {
		int l;
		if (((unsigned char)p->s[i] & 0xC0) == 0x80 || best[i] <= -1e300)
			continue;
		cp_at(p->s, n, i, &l);
		int found_char = 0;
		for (size_t e = i + 1; e <= n && e - i < sizeof buf && (int)(e - i) <= t->maxlen; e++) {
			if (e < n && ((unsigned char)p->s[e] & 0xC0) == 0x80)
				continue;
			memcpy(buf, p->s + i, e - i);
			buf[e - i] = 0;
			int32_t id = vocab_id(&t->vocab, buf);
			if (id < 0 || id >= t->nscore)
				continue;
			found_char |= e - i == (size_t)l;
			if (best[i] + t->score[id] > best[e]) {
				best[e] = best[i] + t->score[id];
				bid[e] = id;
				from[e] = i;
			}
		}
		if (!found_char && best[i] + t->min_score - 10 > best[i + (size_t)l]) {
			best[i + (size_t)l] = best[i] + t->min_score - 10;
			bid[i + (size_t)l] = -1;    /* unknown */
			from[i + (size_t)l] = i;
		}
	}
	/* back from the end, then out in order */
	size_t k = 0;
	struct ids rev = { 0 };
	for (size_t e = n; e > 0; e = from[e], k++)
		if (ids_push(&rev, (int32_t)e))
			goto out;
	int last_unk = 0;
	for (int i = rev.n - 1; i >= 0; i--) {
		size_t e = (size_t)rev.v[i], s = from[e];
		if (bid[e] >= 0) {
			last_unk = 0;
			if (ids_push(o, bid[e]))
				goto out_rev;
			continue;
		}
		int bytes = t->byte_fallback;
		for (size_t q = s; bytes && q < e; q++)
			bytes = t->byte_tok[(unsigned char)p->s[q]] >= 0;
		for (size_t q = s; bytes && q < e; q++)
			if (ids_push(o, t->byte_tok[(unsigned char)p->s[q]]))
				goto out_rev;
		if (!bytes && t->unk_id >= 0 && !last_unk && ids_push(o, t->unk_id))
			goto out_rev;
		last_unk = !bytes;
	}
	rc = 0;
out_rev:
	free(rev.v);
out:
	free(best);
	free(bid);
	free(from);
	return rc;
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
		plist_free(&words);
		if (pre_tokenize(t, &segs.v[i], &words))
			goto out;
		for (int w = 0; w < words.n; w++)
			if (t->model == TOKJSON_BPE ? bpe_word(t, &words.v[w], o) :
						      unigram_word(t, &words.v[w], o))
				goto out;
	}
	rc = 0;
out:
	plist_free(&segs);
	plist_free(&words);
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
	sb_add(&clean, "", 0);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)text + i, len - i, &cp);
		if (cp == 0xFFFD && !(l == 3 && !memcmp(text + i, "\xef\xbf\xbd", 3)))
			++*invalid;
		sb_cp(&clean, cp);
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
	plist_free(&segs);
	*ids = o.v;
	*n = o.n;
	return 0;
oom:
	free(clean.s);
	plist_free(&segs);
	free(o.v);
	return err_set(e, "out of memory");
}

/* ---- decode ---- */

/* <0xXX>: the byte, or -1 */
static int byte_piece(const char *s)
{
	unsigned v;
	char end;
	if (strlen(s) != 6 || strncmp(s, "<0x", 3) || s[5] != '>' ||
	    sscanf(s + 3, "%2x%c", &v, &end) != 2 || end != '>')
		return -1;
	return (int)v;
}

/* Whether every character of p is in GPT-2's byte map. */
static int all_bytes(const struct piece *p)
{
	int cl;
	for (size_t k = 0; k < p->len; k += (size_t)cl)
		if (pretok_cp_byte(cp_at(p->s, p->len, k, &cl)) < 0)
			return 0;
	return 1;
}

/* One decoder step over the tokens l (Hugging Face's decode_chain). */
static int dec_step(const struct tokjson_step *st, struct plist *l)
{
	struct plist out = { 0 };
	struct sbuf run = { 0 };
	int rc = 0;
	for (int i = 0; i < l->n && !rc; i++) {
		struct sbuf o = { 0 };
		const struct piece *p = &l->v[i];
		int b = -1;
		sb_add(&o, "", 0);
		switch (st->kind) {
		case TJ_DEC_BYTELEVEL:
			/* the tokens' bytes, joined: invalid UTF-8 mended below */
			sb_add(&run, "", 0);
			if (!all_bytes(p)) {
				/* a token with a character outside the map: as it is */
				sb_add(&run, p->s, p->len);
				break;
			}
			for (size_t k = 0; k < p->len;) {
				int cl;
				char c = (char)pretok_cp_byte(cp_at(p->s, p->len, k, &cl));
				sb_add(&run, &c, 1);
				k += (size_t)cl;
			}
			break;
		case TJ_DEC_METASPACE:
		case TJ_DEC_REPLACE: {
			const char *a = st->a, *to = st->kind == TJ_DEC_REPLACE ? st->b :
					     i == 0 && st->x != TJ_PREPEND_NEVER ? "" : " ";
			replace_all(&o, p->s, p->len, a, to);
			break;
		}
		case TJ_DEC_BYTEFALLBACK:
			if ((b = byte_piece(p->s)) >= 0) {
				char c = (char)b;
				sb_add(&run, &c, 1);
				sb_add(&run, "", 0);
			} else {
				sb_add(&o, p->s, p->len);
			}
			break;
		case TJ_DEC_FUSE:
			sb_add(&run, p->s, p->len);
			break;
		case TJ_DEC_STRIP: {
			size_t cl = strlen(st->a), f = 0, e = p->len;
			for (int k = 0; k < st->x && e - f >= cl && !memcmp(p->s + f, st->a, cl); k++)
				f += cl;
			for (int k = 0; k < st->y && e - f >= cl && !memcmp(p->s + e - cl, st->a, cl);
			     k++)
				e -= cl;
			sb_add(&o, p->s + f, e - f);
			break;
		}
		}
		/* a run of byte pieces ends: valid UTF-8 is one token, else a
		 * U+FFFD a byte */
		if (st->kind == TJ_DEC_BYTEFALLBACK && run.n && (b < 0 || i == l->n - 1)) {
			struct sbuf fb = { 0 };
			sb_add(&fb, "", 0);
			if (utf8_valid(run.s) && strlen(run.s) == run.n)
				sb_add(&fb, run.s, run.n);
			else
				for (size_t k = 0; k < run.n; k++)
					sb_add(&fb, "\xef\xbf\xbd", 3);
			rc |= fb.oom || plist_push(&out, fb.s, fb.n, 0, -1);
			free(fb.s);
			run.n = 0;
		}
		if (o.n || (st->kind != TJ_DEC_BYTELEVEL && st->kind != TJ_DEC_FUSE && b < 0))
			rc |= o.oom || plist_push(&out, o.s, o.n, 0, -1);
		free(o.s);
	}
	if ((st->kind == TJ_DEC_BYTELEVEL || st->kind == TJ_DEC_FUSE) && l->n) {
		if (st->kind == TJ_DEC_BYTELEVEL) {
			/* from_utf8_lossy: each invalid byte as U+FFFD */
			struct sbuf fb = { 0 };
			sb_add(&fb, "", 0);
			for (size_t k = 0; k < run.n;) {
				uint32_t cp;
				int cl = utf8_decode((const unsigned char *)run.s + k, run.n - k, &cp);
				sb_cp(&fb, cp);
				k += (size_t)cl;
			}
			rc |= fb.oom || plist_push(&out, fb.s, fb.n, 0, -1);
			free(fb.s);
		} else {
			rc |= run.oom || plist_push(&out, run.s ? run.s : "", run.n, 0, -1);
		}
	}
	free(run.s);
	plist_free(l);
	*l = out;
	return rc ? -1 : 0;
}

char *tokjson_text(const struct tokjson *t, char *const *pieces, int n, char *buf,
		   size_t cap)
{
	struct plist l = { 0 };
	int rc = 0;
	if (!cap)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = plist_push(&l, pieces[i], strlen(pieces[i]), 0, -1);
	for (int k = 0; k < t->ndec && !rc; k++)
		rc = dec_step(&t->dec[k], &l);
	size_t w = 0;
	for (int i = 0; i < l.n && !rc; i++) {
		/* valid UTF-8 out, cut at a code point */
		const char *s = l.v[i].s;
		size_t len = l.v[i].len;
		for (size_t k = 0; k < len;) {
			uint32_t cp;
			char u[4];
			int cl = utf8_decode((const unsigned char *)s + k, len - k, &cp);
			int ul = utf8_encode(cp, u);
			if (w + (size_t)ul + 1 > cap) {
				rc = 1;
				break;
			}
			memcpy(buf + w, u, (size_t)ul);
			w += (size_t)ul;
			k += (size_t)cl;
		}
	}
	buf[w] = 0;
	plist_free(&l);
	return buf;
}

/* ---- labels ---- */

static int is_added(const struct tokjson *t, const char *piece)
{
	int32_t id = vocab_id(&t->vocab, piece);
	for (int i = 0; id >= 0 && i < t->nadded; i++)
		if (t->added[i].id == id)
			return 1;
	return 0;
}

/* The visible mark of a character in a label, or NULL. */
static const char *mark_of(uint32_t cp)
{
	return cp == ' ' ? "\xe2\x90\xa3" : cp == '\n' ? "\xe2\x86\xb5" : cp == '\t' ? "\xe2\x87\xa5" :
	       NULL;
}

char *tokjson_label(const struct tokjson *t, const char *piece, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	if (is_added(t, piece) || (!t->byte_level && t->ndec == 0)) {
		snprintf(buf, cap, "%s", piece);
		return buf;
	}
	if (t->byte_level)
		return gpt2bpe_label(piece, buf, cap);
	int b = byte_piece(piece);
	char u[16];
	if (b >= 0) {
		const char *m = mark_of((uint32_t)b);
		if (m)
			snprintf(buf, cap, "%s", m);
		else if (b > 0x20 && b < 0x7F)
			snprintf(buf, cap, "%c", b);
		else
			snprintf(buf, cap, "\\x%02X", b);
		return buf;
	}
	/* the pieces' space mark (▁, or what the decoder replaces) as ␣ */
	const char *sp = "\xe2\x96\x81";
	for (int k = 0; k < t->ndec; k++)
		if ((t->dec[k].kind == TJ_DEC_REPLACE && !strcmp(t->dec[k].b, " ")) ||
		    t->dec[k].kind == TJ_DEC_METASPACE)
			sp = t->dec[k].a;
	size_t spl = strlen(sp), o = 0, len = strlen(piece);
	buf[0] = 0;
	for (size_t i = 0; i < len;) {
		int l;
		uint32_t cp = cp_at(piece, len, i, &l);
		const char *m = !strncmp(piece + i, sp, spl) ? mark_of(' ') : mark_of(cp);
		if (m)
			snprintf(u, sizeof u, "%s", m);
		else if (cp < 0x20 || cp == 0x7F)
			snprintf(u, sizeof u, "\\x%02X", (unsigned)cp);
		else
			u[utf8_encode(cp, u)] = 0;
		size_t ul = strlen(u);
		if (o + ul + 1 > cap)
			break;
		memcpy(buf + o, u, ul + 1);
		o += ul;
		i += !strncmp(piece + i, sp, spl) ? spl : (size_t)l;
	}
	return buf;
}
