/* spm_norm.c - SentencePiece's normaliser: the precompiled charsmap (a
 * Darts-clone double-array trie of rules) and the white space rules, as
 * the library's normalizer.cc applies them. */
#include <stdlib.h>
#include <string.h>

#include "spm_int.h"
#include "base/i18n.h"
#include "base/utf8.h"

/* The blob: a little-endian uint32 trie size in bytes, the trie's units
 * (uint32, little-endian), then the replacement strings, each ending in a
 * NUL; a unit's value is the offset of its replacement. */
int spm_charsmap_init(struct spm *s, const void *blob, size_t len, const char **why)
{
	const unsigned char *b = blob;
	struct spm_priv *v = s->priv;
	if (len <= 4) {
		*why = N_("shorter than its header");
		return -1;
	}
	uint32_t tsize = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24;
	if (tsize >= len - 4 || tsize % 4 || tsize == 0) {
		*why = N_("the trie's size does not fit the blob");
		return -1;
	}
	v->nunits = tsize / 4;
	v->nrepl = len - 4 - tsize;
	if (!(v->units = malloc(v->nunits * sizeof *v->units)) ||
	    !(v->repl = malloc(v->nrepl + 1))) {
		*why = N_("out of memory");
		return -1;
	}
	for (size_t i = 0; i < v->nunits; i++) {
		const unsigned char *u = b + 4 + 4 * i;
		v->units[i] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
			      (uint32_t)u[3] << 24;
	}
	memcpy(v->repl, b + 4 + tsize, v->nrepl);
	v->repl[v->nrepl] = 0;       /* a last string without its NUL ends here */
	return 0;
}

/* Darts-clone's unit fields. */
static int u_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static uint32_t u_value(uint32_t u) { return u & 0x7FFFFFFFu; }
static uint32_t u_label(uint32_t u) { return u & (0x80000000u | 0xFFu); }
static uint32_t u_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

/* The longest rule matching a prefix of text[0..len) (Darts'
 * commonPrefixSearch, the longest of its results): its length, and in
 * *value its replacement's offset; 0 when none (or the trie leads outside
 * itself: a broken trie matches nothing there).  A walk stops after
 * RULE_MAX bytes: real rules are a few characters, and a hostile trie
 * that loops would otherwise make normalising quadratic in the text. */
#define RULE_MAX 256
static size_t charsmap_match(const struct spm_priv *v, const char *text, size_t len,
			     uint32_t *value)
{
	size_t best = 0;
	uint32_t pos = u_offset(v->units[0]);
	for (size_t i = 0; i < len && i < RULE_MAX; i++) {
		unsigned char c = (unsigned char)text[i];
		pos ^= c;
		if (pos >= v->nunits)
			break;
		uint32_t u = v->units[pos];
		if (u_label(u) != c)
			break;
		pos ^= u_offset(u);
		if (pos >= v->nunits)
			break;
		if (u_has_leaf(u)) {
			best = i + 1;
			*value = u_value(v->units[pos]);
		}
	}
	return best;
}

/* One step of the normaliser (NormalizePrefix): the replacement text
 * (*rep, *rlen) of the prefix it consumes (returned). */
static size_t norm_prefix(const struct spm *s, const char *text, size_t len,
			  const char **rep, size_t *rlen, int *invalid)
{
	size_t n = spm_user_prefix(s, text, len);
	if (n) {
		*rep = text;
		*rlen = n;
		return n;
	}
	uint32_t value = 0;
	if (s->priv->units && (n = charsmap_match(s->priv, text, len, &value))) {
		if (value < s->priv->nrepl) {
			*rep = s->priv->repl + value;
			*rlen = strlen(*rep);
		} else {           /* outside the strings: as an empty rule */
			*rep = "";
			*rlen = 0;
		}
		return n;
	}
	uint32_t cp;
	int l = utf8_decode((const unsigned char *)text, len, &cp);
	if (cp == 0xFFFD && !(l == 3 && !memcmp(text, "\xef\xbf\xbd", 3))) {
		(*invalid)++;
		*rep = "\xef\xbf\xbd";
		*rlen = 3;
		return 1;
	}
	*rep = text;
	*rlen = (size_t)l;
	return (size_t)l;
}

struct nbuf {
	char *b;
	size_t n, cap;
};

static int nput(struct nbuf *o, const char *p, size_t len)
{
	if (o->n + len + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 64;
		while (cap < o->n + len + 1)
			cap *= 2;
		char *nb = realloc(o->b, cap);
		if (!nb)
			return -1;
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
	o->b[o->n] = 0;
	return 0;
}

static int put_ws(const struct spm *s, struct nbuf *o)
{
	return s->escape_whitespaces ? nput(o, SPM_SPACE, 3) : nput(o, " ", 1);
}

/* Appends rep[0..rlen) with its spaces escaped; *prev_space: whether it
 * ended in a space (unchanged when rep is empty). */
static int put_rule(const struct spm *s, struct nbuf *o, const char *rep, size_t rlen,
		    int *prev_space)
{
	if (*prev_space)
		while (rlen && rep[0] == ' ')
			rep++, rlen--;
	if (!rlen)
		return 0;
	for (size_t i = 0; i < rlen; i++)
		if (rep[i] == ' ' && s->escape_whitespaces ? put_ws(s, o) : nput(o, rep + i, 1))
			return -1;
	*prev_space = rep[rlen - 1] == ' ';
	return 0;
}

int spm_normalize(const struct spm *s, const char *text, size_t len, char **out,
		  size_t *outlen, int *invalid)
{
	struct nbuf o = { 0 };
	const char *rep;
	size_t rlen, k;
	int bad = 0;
	if (nput(&o, "", 0))
		return -1;
	/* leading white space */
	while (s->remove_extra_whitespaces && len &&
	       (k = norm_prefix(s, text, len, &rep, &rlen, &bad)) && rlen == 1 && rep[0] == ' ') {
		text += k;
		len -= k;
	}
	if (!len)
		goto done;
	bad = 0;
	if (!s->treat_whitespace_as_suffix && s->add_dummy_prefix && put_ws(s, &o))
		goto oom;
	int prev_space = s->remove_extra_whitespaces;
	while (len) {
		k = norm_prefix(s, text, len, &rep, &rlen, &bad);
		if (put_rule(s, &o, rep, rlen, &prev_space))
			goto oom;
		text += k;
		len -= k;
		if (!s->remove_extra_whitespaces)
			prev_space = 0;
	}
	/* trailing white space */
	if (s->remove_extra_whitespaces) {
		const char *sp = s->escape_whitespaces ? SPM_SPACE : " ";
		size_t sl = strlen(sp);
		while (o.n >= sl && !memcmp(o.b + o.n - sl, sp, sl))
			o.n -= sl;
		o.b[o.n] = 0;
	}
	if (s->treat_whitespace_as_suffix && s->add_dummy_prefix && put_ws(s, &o))
		goto oom;
done:
	if (invalid)
		*invalid += bad;
	*out = o.b;
	*outlen = o.n;
	return 0;
oom:
	free(o.b);
	return -1;
}
