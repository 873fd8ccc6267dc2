/* vocab.c - vocabularies and the word/char tokenizers (UTF-8 safe). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vocab.h"
#include "bpe.h"
#include "gpt2bpe.h"
#include "tokjson.h"
#include "wordpiece.h"
#include "spm.h"
#include "base/safefile.h"
#include "base/utf8.h"

/* The largest real vocabularies have about 2.6e5 tokens; the limit keeps
 * a hostile file's cost bounded (about 50 MB, a fraction of a second). */
#define VOCAB_MAX_TOKENS (1 << 20)
#define TOKEN_MAX_BYTES 256

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int vocab_index(struct vocab *v, const char *what, struct err *e)
{
	size_t ns = 16;
	while (ns < (size_t)v->n * 2)
		ns *= 2;
	v->slots = malloc(ns * sizeof *v->slots);
	if (!v->slots)
		return err_set(e, "%s: out of memory", what);
	v->nslots = ns;
	for (size_t i = 0; i < ns; i++)
		v->slots[i] = -1;
	for (int id = 0; id < v->n; id++) {
		size_t j = hash_str(v->tok[id]) & (ns - 1);
		while (v->slots[j] >= 0) {
			if (strcmp(v->tok[v->slots[j]], v->tok[id]) == 0)
				return err_set(e, "%s: token \"%s\" appears twice (ids %d and %d)",
					       what, v->tok[id], v->slots[j], id);
			j = (j + 1) & (ns - 1);
		}
		v->slots[j] = id;
	}
	return 0;
}

int vocab_init(struct vocab *v, const char *const *toks, int n,
	       const char *what, struct err *e)
{
	memset(v, 0, sizeof *v);
	for (int i = 0; i < n; i++)
		if (!toks[i])
			return err_set(e, "%s: no token has id %d", what, i);
	if (n <= 0)
		return err_set(e, "%s: vocabulary is empty", what);
	if (n > VOCAB_MAX_TOKENS)
		return err_set(e, "%s: vocabulary of %d tokens exceeds the limit of %d",
			       what, n, VOCAB_MAX_TOKENS);
	v->tok = calloc((size_t)n, sizeof *v->tok);
	if (!v->tok)
		return err_set(e, "%s: out of memory", what);
	v->n = n;
	for (int i = 0; i < n; i++) {
		if (!(v->tok[i] = strdup(toks[i]))) {
			vocab_free(v);
			return err_set(e, "%s: out of memory", what);
		}
	}
	if (vocab_index(v, what, e)) {
		vocab_free(v);
		return -1;
	}
	return 0;
}

int vocab_pad(struct vocab *v, int n, struct err *e)
{
	if (n <= v->n)
		return 0;
	/* the tokens as they are (vocab_init copies them), then placeholders */
	const char **all = calloc((size_t)n, sizeof *all);
	char *extra = malloc((size_t)(n - v->n) * 48);
	int rc = -1;
	if (!all || !extra) {
		free(all);
		free(extra);
		return err_set(e, "out of memory");
	}
	for (int i = 0; i < v->n; i++)
		all[i] = v->tok[i];
	for (int i = v->n; i < n; i++) {
		char *buf = extra + (size_t)(i - v->n) * 48;
		snprintf(buf, 48, "<unused:%d>", i);
		/* a tokenizer's own token of that spelling keeps it */
		for (int k = 0; vocab_id(v, buf) >= 0 && k < 100; k++)
			snprintf(buf, 48, "<unused:%d:%d>", i, k);
		all[i] = buf;
	}
	struct vocab nv;
	if (vocab_init(&nv, all, n, "vocabulary", e) == 0) {
		vocab_free(v);
		*v = nv;
		rc = 0;
	}
	free(all);
	free(extra);
	return rc;
}

/* Reads one line into buf[cap] without its newline.  Returns its length,
 * -1 at the end of the file, -2 when the line does not fit (the rest is
 * not read: a hostile file's one endless line costs nothing), -3 for a NUL
 * byte. */
static int read_line(FILE *fp, char *buf, int cap)
{
	int n = 0, c;
	while ((c = getc(fp)) != EOF && c != '\n') {
		if (c == 0)
			return -3;
		if (n == cap - 1)
			return -2;
		buf[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* "\n", "\t" and "\\" in place (a char vocabulary's newline and tab);
 * any other backslash stays as it is.  Returns the new length. */
static int unescape(char *s, int len)
{
	int o = 0;
	for (int i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len &&
		    (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
			i++;
			s[o++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : '\\';
		} else {
			s[o++] = s[i];
		}
	}
	s[o] = 0;
	return o;
}

int vocab_load(struct vocab *v, const char *path, struct err *e)
{
	memset(v, 0, sizeof *v);
	FILE *fp = safefile_fopen_read(path, e);   /* not /dev/zero, a pipe, ... */
	if (!fp)
		return -1;
	char line[TOKEN_MAX_BYTES + 8];
	int len;
	int n = 0, ncap = 0, lineno = 0, rc = -1;
	char **toks = NULL;
	while ((len = read_line(fp, line, (int)sizeof line)) != -1) {
		lineno++;
		/* a leading byte-order mark (Windows editors, Python's
		   utf-8-sig) is not part of the first token */
		if (lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
			memmove(line, line + 3, (size_t)len - 2);
			len -= 3;
		}
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = 0;
		if (len == 0) {
			err_set(e, "%s:%d: empty line (every line is one token)", path, lineno);
			goto out;
		}
		if (len == -3) {
			err_set(e, "%s:%d: NUL byte in token", path, lineno);
			goto out;
		}
		if (len == -2 || len > TOKEN_MAX_BYTES) {
			err_set(e, "%s:%d: token longer than %d bytes", path,
				lineno, TOKEN_MAX_BYTES);
			goto out;
		}
		len = unescape(line, len);
		if (n >= VOCAB_MAX_TOKENS) {
			err_set(e, "%s: more than %d tokens (the limit)", path,
				VOCAB_MAX_TOKENS);
			goto out;
		}
		if (n == ncap) {
			ncap = ncap ? ncap * 2 : 256;
			char **nt = realloc(toks, (size_t)ncap * sizeof *nt);
			if (!nt) {
				err_set(e, "%s: out of memory", path);
				goto out;
			}
			toks = nt;
		}
		if (!(toks[n] = strdup(line))) {
			err_set(e, "%s: out of memory", path);
			goto out;
		}
		n++;
	}
	if (ferror(fp)) {
		err_set(e, "%s: read error", path);
		goto out;
	}
	rc = vocab_init(v, (const char *const *)toks, n, path, e);
out:
	tokens_free(toks, n);
	fclose(fp);
	return rc;
}

void vocab_free(struct vocab *v)
{
	tokens_free(v->tok, v->n);
	free(v->slots);
	memset(v, 0, sizeof *v);
}

int vocab_id(const struct vocab *v, const char *tok)
{
	if (!v->nslots)
		return -1;
	size_t j = hash_str(tok) & (v->nslots - 1);
	while (v->slots[j] >= 0) {
		if (strcmp(v->tok[v->slots[j]], tok) == 0)
			return v->slots[j];
		j = (j + 1) & (v->nslots - 1);
	}
	return -1;
}

const char *vocab_str(const struct vocab *v, int id)
{
	return id >= 0 && id < v->n ? v->tok[id] : NULL;
}

int vocab_equal(const struct vocab *a, const struct vocab *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->tok[i], b->tok[i]) != 0)
			return 0;
	return 1;
}

void vocab_encode(const struct vocab *v, char *const *toks, int n,
		  int32_t *ids, int *unknown)
{
	int unk = 0;
	for (int i = 0; i < n; i++) {
		int id = vocab_id(v, toks[i]);
		if (id < 0) {
			id = TOK_UNK;
			unk++;
		}
		ids[i] = id;
	}
	if (unknown)
		*unknown = unk;
}

/* Lower case for ASCII, Latin-1 and Latin Extended-A (enough for the
 * languages of the shipped models; independent of the C locale). */
static uint32_t lower_cp(uint32_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c >= 0xC0 && c <= 0xDE && c != 0xD7)
		return c + 32;
	if (c == 0x178)          /* Ÿ */
		return 0xFF;
	if (c >= 0x100 && c <= 0x17E && c != 0x130 && c != 0x138 && c != 0x149 &&
	    c != 0x178) {
		int odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
		if (odd_upper ? (c & 1) : !(c & 1))
			return c + 1;
	}
	return c;
}

static int is_space_cp(uint32_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f' || c == 0xA0;
}

static int is_punct_cp(uint32_t c)
{
	if (c < 0x80)
		return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
		       (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
	switch (c) {
	case 0xA1: case 0xAB: case 0xBB: case 0xBF:          /* ¡ « » ¿ */
	case 0x2013: case 0x2014: case 0x2026:               /* – — … */
	case 0x2018: case 0x2019: case 0x201C: case 0x201D:  /* ‘ ’ “ ” */
		return 1;
	}
	return 0;
}

/* A letter: neither space, punctuation nor a digit. */
static int is_letter_cp(uint32_t c)
{
	return !is_space_cp(c) && !is_punct_cp(c) && !(c >= '0' && c <= '9');
}

/* Whether cp is a '-' joining the word so far (word[0..wlen), ending in a
 * letter) to a letter at next[0..left). */
static int inner_hyphen(uint32_t cp, const char *word, size_t wlen,
			const unsigned char *next, size_t left)
{
	uint32_t a, b;
	if (cp != '-' || !wlen || !left)
		return 0;
	size_t k = wlen - 1;
	while (k > 0 && ((unsigned char)word[k] & 0xC0) == 0x80)
		k--;
	utf8_decode((const unsigned char *)word + k, wlen - k, &a);
	utf8_decode(next, left, &b);
	return is_letter_cp(a) && is_letter_cp(b);
}

/* A growable list of token strings. */
struct toklist {
	char **t;
	int n, cap;
};

static int toklist_push(struct toklist *l, const char *s, size_t len)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **nt = realloc(l->t, (size_t)cap * sizeof *nt);
		if (!nt)
			return -1;
		l->t = nt;
		l->cap = cap;
	}
	char *c = malloc(len + 1);
	if (!c)
		return -1;
	memcpy(c, s, len);
	c[len] = 0;
	l->t[l->n++] = c;
	return 0;
}

int tokenize(const struct tokenizer_cfg *c, const char *text, char ***out,
	     int *invalid, struct err *e)
{
	struct toklist l = { 0 };
	size_t n = strlen(text);
	char word[TOKEN_MAX_BYTES + 8];
	size_t wlen = 0;
	int bad = 0, pending_space = 0;
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; i <= n;) {
		uint32_t cp = 0;
		int len = 1;
		if (i < n) {
			len = utf8_decode(s + i, n - i, &cp);
			if (cp == 0xFFFD && !(len == 3 && s[i] == 0xEF))
				bad++;
			if (c->lowercase)
				cp = lower_cp(cp);
		}
		int end = i == n;
		if (c->type == TOKENIZE_CHAR) {
			if (end)
				break;
			if (is_space_cp(cp)) {
				pending_space = l.n > 0;
			} else {
				if (pending_space && toklist_push(&l, " ", 1))
					goto oom;
				pending_space = 0;
				char buf[4];
				if (toklist_push(&l, buf, (size_t)utf8_encode(cp, buf)))
					goto oom;
			}
			i += (size_t)len;
			continue;
		}
		/* word mode: a word ends at space, punctuation or the end; a
		 * hyphen between two letters is part of the word (t-shirt,
		 * guarda-chuva), as a dictionary spells it */
		if (end || is_space_cp(cp) ||
		    (is_punct_cp(cp) && !inner_hyphen(cp, word, wlen, s + i + len, n - i - len))) {
			if (wlen && toklist_push(&l, word, wlen))
				goto oom;
			wlen = 0;
			if (!end && is_punct_cp(cp)) {
				char buf[4];
				if (toklist_push(&l, buf, (size_t)utf8_encode(cp, buf)))
					goto oom;
			}
		} else {
			char buf[4];
			int bl = utf8_encode(cp, buf);
			if (wlen + (size_t)bl > TOKEN_MAX_BYTES) {
				tokens_free(l.t, l.n);
				return err_set(e, "a word is longer than %d bytes",
					       TOKEN_MAX_BYTES);
			}
			memcpy(word + wlen, buf, (size_t)bl);
			wlen += (size_t)bl;
		}
		if (end)
			break;
		i += (size_t)len;
	}
	if (invalid)
		*invalid = bad;
	*out = l.t;
	return l.n;
oom:
	tokens_free(l.t, l.n);
	return err_set(e, "out of memory while tokenizing");
}

void tokens_free(char **toks, int n)
{
	if (!toks)
		return;
	for (int i = 0; i < n; i++)
		free(toks[i]);
	free(toks);
}

int tokenize_bpe(const struct tokenizer_cfg *c, const struct bpe *b,
		 const struct vocab *v, const char *text, char ***out, int *invalid, struct err *e)
{
	char **words;
	int nw = tokenize(c, text, &words, invalid, e);
	if (nw < 0 || !b || c->type == TOKENIZE_CHAR) {
		if (nw >= 0)
			*out = words;
		return nw;
	}
	struct toklist l = { 0 };
	for (int i = 0; i < nw; i++) {
		char **p;
		int np = bpe_apply(b, v, words[i], &p, e);
		if (np < 0)
			goto fail;
		for (int k = 0; k < np; k++)
			if (toklist_push(&l, p[k], strlen(p[k]))) {
				tokens_free(p, np);
				err_set(e, "out of memory while tokenizing");
				goto fail;
			}
		tokens_free(p, np);
	}
	tokens_free(words, nw);
	*out = l.t;
	return l.n;
fail:
	tokens_free(words, nw);
	tokens_free(l.t, l.n);
	return -1;
}

static int glued_punct(const char *t)
{
	return t[0] && !t[1] && strchr(".,?!:;", t[0]);
}

char *tokens_join(const struct tokenizer_cfg *c, char *const *toks, int n,
		  char *buf, size_t cap)
{
	size_t used = 0;
	int glue = 1;             /* no space before the next token */
	int clock = 0;            /* the last token was the ':' of "7:30" */
	if (c->type == TOKENIZE_GPT2)
		return gpt2bpe_text(toks, n, buf, cap);
	if (c->type == TOKENIZE_WORDPIECE)
		return wordpiece_text(toks, n, buf, cap);
	if (c->type == TOKENIZE_SPM)
		return spm_text(toks, n, buf, cap);
	if (c->type == TOKENIZE_HF && c->hf)
		return tokjson_text(c->hf, toks, n, buf, cap);
	if (!cap)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *t = toks[i];
		size_t tl = strlen(t);
		int cont = c->type == TOKENIZE_BPE && bpe_is_cont(t);
		if (cont)
			tl -= 2;
		int space = c->type != TOKENIZE_CHAR && !glue && !glued_punct(t) &&
			    !(clock && t[0] >= '0' && t[0] <= '9');
		if (used + (size_t)space + tl + 1 > cap) {
			/* cut at a code point boundary */
			size_t room = cap - 1 - used;
			if (space && room > 0) {
				buf[used++] = ' ';
				room--;
			}
			while (room > 0 && ((unsigned char)t[room] & 0xC0) == 0x80)
				room--;
			memcpy(buf + used, t, room);
			used += room;
			break;
		}
		if (space)
			buf[used++] = ' ';
		memcpy(buf + used, t, tl);
		used += tl;
		glue = cont;
		/* a time's digits join across its colon: 7 : 30 -> 7:30 */
		clock = !space && tl == 1 && t[0] == ':' && used >= 2 &&
			buf[used - 2] >= '0' && buf[used - 2] <= '9';
	}
	buf[used] = 0;
	return buf;
}

char *tokens_label(const struct tokenizer_cfg *c, const char *tok, char *buf, size_t cap)
{
	if (c && c->type == TOKENIZE_GPT2)
		return gpt2bpe_label(tok, buf, cap);
	if (c && c->type == TOKENIZE_SPM)
		return spm_label(tok, buf, cap);
	if (c && c->type == TOKENIZE_HF && c->hf)
		return tokjson_label(c->hf, tok, buf, cap);
	if (cap)
		snprintf(buf, cap, "%s", tok);
	return buf;
}
