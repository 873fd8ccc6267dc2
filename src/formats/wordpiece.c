/* wordpiece.c - BERT's BasicTokenizer and WordPiece (Hugging Face's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordpiece.h"
#include "base/ids.h"
#include "base/unicode.h"
#include "base/utf8.h"

const char *const WORDPIECE_SPECIALS[WP_NSPECIAL] = {
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
};

int wordpiece_init(struct wordpiece *w, const struct vocab *v, int lowercase,
		   struct err *e)
{
	memset(w, 0, sizeof *w);
	if (vocab_init(&w->vocab, (const char *const *)v->tok, v->n, "vocab.txt", e))
		return -1;
	w->lowercase = lowercase;
	for (int i = 0; i < WP_NSPECIAL; i++)
		w->special[i] = vocab_id(&w->vocab, WORDPIECE_SPECIALS[i]);
	return 0;
}

int wordpiece_load(struct wordpiece *w, const char *vocab_txt, int lowercase,
		   struct err *e)
{
	struct vocab v;
	if (vocab_load(&v, vocab_txt, e))
		return -1;
	int rc = wordpiece_init(w, &v, lowercase, e);
	vocab_free(&v);
	return rc;
}

void wordpiece_free(struct wordpiece *w)
{
	vocab_free(&w->vocab);
	memset(w, 0, sizeof *w);
}

int wordpiece_is_cont(const char *piece)
{
	return !strncmp(piece, WORDPIECE_PREFIX, 2) && piece[2];
}

/* ---- the BasicTokenizer's normalisation, on code points ---- */

struct cpbuf {
	uint32_t *v;
	size_t n, cap;
};

static int cp_push(struct cpbuf *b, uint32_t c)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint32_t *nv = realloc(b->v, cap * sizeof *nv);
		if (!nv)
			return -1;
		b->v = nv;
		b->cap = cap;
	}
	b->v[b->n++] = c;
	return 0;
}

static int is_cjk(uint32_t c)
{
	return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
	       (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
	       (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
	       (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

static int is_space(uint32_t c)
{
	return c == '\t' || c == '\n' || c == '\r' || (uni_flags(c) & UNI_WS);
}

static int is_punct(uint32_t c)
{
	return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
	       (c >= 123 && c <= 126) || (uni_flags(c) & UNI_P8);
}

/* NFD of s[0..n) into out: each code point decomposed, then each run of
 * marks put in the order of their combining classes (a stable sort). */
static int nfd(const uint32_t *s, size_t n, struct cpbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t d[UNI_MAX_DECOMP];
		int k = uni_decompose(s[i], d);
		for (int j = 0; j < k; j++) {
			if (cp_push(out, d[j]))
				return -1;
			int cc = uni_ccc(d[j]);
			/* insertion: move the new mark before marks of a higher class */
			for (size_t p = out->n - 1; cc && p > 0; p--) {
				int pc = uni_ccc(out->v[p - 1]);
				if (pc <= cc)
					break;
				uint32_t t = out->v[p - 1];
				out->v[p - 1] = out->v[p];
				out->v[p] = t;
			}
		}
	}
	return 0;
}

/* Steps 2 of wordpiece.h on s[0..n) into out. */
static int normalise(const struct wordpiece *w, const uint32_t *s, size_t n,
		     struct cpbuf *out)
{
	struct cpbuf a = { 0 }, b = { 0 };
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = s[i];
		if (c == 0 || c == 0xFFFD ||
		    (c != '\t' && c != '\n' && c != '\r' && (uni_flags(c) & UNI_C8)))
			continue;
		if (is_space(c))
			c = ' ';
		if (is_cjk(c)) {
			if (cp_push(&a, ' ') || cp_push(&a, c) || cp_push(&a, ' '))
				goto out;
		} else if (cp_push(&a, c)) {
			goto out;
		}
	}
	if (!w->lowercase) {
		*out = a;
		return 0;
	}
	if (nfd(a.v, a.n, &b))
		goto out;
	for (size_t i = 0; i < b.n; i++) {
		if (uni_flags(b.v[i]) & UNI_MN8)
			continue;
		uint32_t lo[UNI_MAX_LOWER];
		int k = uni_lower(b.v[i], lo);
		for (int j = 0; j < k; j++)
			if (cp_push(out, lo[j]))
				goto out;
	}
	rc = 0;
out:
	free(a.v);
	free(b.v);
	return rc;
}

/* ---- WordPiece ---- */

/* The pieces of one word w[0..n) (code points) appended to o. */
static int wordpiece_word(const struct wordpiece *wp, const uint32_t *w, size_t n,
			  struct ids *o, struct err *e)
{
	int first = o->n;
	char buf[2 + 4 * WORDPIECE_MAX_CHARS + 1];
	if (n > WORDPIECE_MAX_CHARS)
		goto unk;
	for (size_t start = 0; start < n;) {
		size_t end = n;
		int id = -1;
		for (; end > start; end--) {
			size_t l = 0;
			if (start > 0) {
				memcpy(buf, WORDPIECE_PREFIX, 2);
				l = 2;
			}
			for (size_t k = start; k < end; k++)
				l += (size_t)utf8_encode(w[k], buf + l);
			buf[l] = 0;
			if ((id = vocab_id(&wp->vocab, buf)) >= 0)
				break;
		}
		if (id < 0)
			goto unk;
		if (ids_push(o, id))
			return err_set(e, "out of memory");
		start = end;
	}
	return 0;
unk:
	o->n = first;
	if (wp->special[WP_UNK] < 0)
		return err_set(e, "vocab.txt has no [UNK] for a word it cannot spell");
	if (ids_push(o, wp->special[WP_UNK]))
		return err_set(e, "out of memory");
	return 0;
}

/* Steps 2-4 on s[0..n). */
static int encode_segment(const struct wordpiece *w, const uint32_t *s, size_t n,
			  struct ids *o, struct err *e)
{
	struct cpbuf t = { 0 };
	if (normalise(w, s, n, &t)) {
		free(t.v);
		return err_set(e, "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; i < t.n && !rc;) {
		if (is_space(t.v[i])) {
			i++;
			continue;
		}
		if (is_punct(t.v[i])) {
			rc = wordpiece_word(w, t.v + i, 1, o, e);
			i++;
			continue;
		}
		size_t j = i;
		while (j < t.n && !is_space(t.v[j]) && !is_punct(t.v[j]))
			j++;
		rc = wordpiece_word(w, t.v + i, j - i, o, e);
		i = j;
	}
	free(t.v);
	return rc;
}

/* The special written at c[i..n), or -1. */
static int special_at(const struct wordpiece *w, const uint32_t *c, size_t i, size_t n)
{
	if (c[i] != '[')
		return -1;
	for (int k = 0; k < WP_NSPECIAL; k++) {
		const char *sp = WORDPIECE_SPECIALS[k];
		size_t l = strlen(sp);
		if (w->special[k] < 0 || i + l > n)
			continue;
		size_t j = 0;
		while (j < l && c[i + j] == (unsigned char)sp[j])
			j++;
		if (j == l)
			return k;
	}
	return -1;
}

int wordpiece_encode(const struct wordpiece *w, const char *text, int32_t **ids, int *n,
		     int *invalid, struct err *e)
{
	size_t len = strlen(text), nc = 0;
	uint32_t *c = malloc((len + 1) * sizeof *c);
	struct ids o = { 0 };
	if (!c)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < len;) {
		int l = utf8_decode((const unsigned char *)text + i, len - i, &c[nc]);
		if (c[nc] == 0xFFFD && !(l == 3 && !memcmp(text + i, "\xef\xbf\xbd", 3)))
			++*invalid;
		nc++;
		i += (size_t)l;
	}
	size_t seg = 0;
	for (size_t i = 0; i < nc;) {
		int k = special_at(w, c, i, nc);
		if (k < 0) {
			i++;
			continue;
		}
		if (encode_segment(w, c + seg, i - seg, &o, e) || ids_push(&o, w->special[k]))
			goto fail;
		i += strlen(WORDPIECE_SPECIALS[k]);
		seg = i;
	}
	if (encode_segment(w, c + seg, nc - seg, &o, e))
		goto fail;
	free(c);
	*ids = o.v;
	*n = o.n;
	return 0;
fail:
	if (!e->msg[0])
		err_set(e, "out of memory");
	free(c);
	free(o.v);
	return -1;
}

char *wordpiece_text(char *const *pieces, int n, char *buf, size_t cap)
{
	size_t o = 0;
	if (!cap)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *p = pieces[i];
		int cont = wordpiece_is_cont(p);
		if (cont)
			p += 2;
		size_t l = strlen(p), sp = !cont && i > 0;
		if (o + sp + l + 1 > cap) {
			size_t room = cap - 1 - o;
			if (sp && room) {
				buf[o++] = ' ';
				room--;
			}
			while (room > 0 && ((unsigned char)p[room] & 0xC0) == 0x80)
				room--;
			memcpy(buf + o, p, room);
			o += room;
			break;
		}
		if (sp)
			buf[o++] = ' ';
		memcpy(buf + o, p, l);
		o += l;
	}
	buf[o] = 0;
	return buf;
}
