/* spm_norm.c - SentencePiece's normaliser: the precompiled charsmap (a
 * Darts-clone double-array trie of rules, charsmap.c) and the white space
 * rules, as the library's normalizer.cc applies them. */
#include <stdlib.h>
#include <string.h>

#include "spm_int.h"
#include "base/strbuf.h"
#include "base/i18n.h"
#include "base/utf8.h"

int spm_charsmap_init(struct spm *s, const void *blob, size_t len, const char **why)
{
	return charsmap_init(&s->priv->cm, blob, len, why);
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
	if ((n = charsmap_match(&s->priv->cm, text, len, 0, rep, rlen)))
		return n;   /* the longest rule (outside the strings: an empty one) */
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


static int put_ws(const struct spm *s, struct strbuf *o)
{
	return s->escape_whitespaces ? strbuf_put(o, SPM_SPACE, 3) : strbuf_put(o, " ", 1);
}

/* Appends rep[0..rlen) with its spaces escaped; *prev_space: whether it
 * ended in a space (unchanged when rep is empty). */
static int put_rule(const struct spm *s, struct strbuf *o, const char *rep, size_t rlen,
		    int *prev_space)
{
	if (*prev_space)
		while (rlen && rep[0] == ' ')
			rep++, rlen--;
	if (!rlen)
		return 0;
	for (size_t i = 0; i < rlen; i++)
		if (rep[i] == ' ' && s->escape_whitespaces ? put_ws(s, o) : strbuf_put(o, rep + i, 1))
			return -1;
	*prev_space = rep[rlen - 1] == ' ';
	return 0;
}

int spm_normalize(const struct spm *s, const char *text, size_t len, char **out,
		  size_t *outlen, int *invalid)
{
	struct strbuf o = { 0 };
	const char *rep;
	size_t rlen, k;
	int bad = 0;
	if (strbuf_put(&o, "", 0))
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
