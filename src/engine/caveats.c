/* caveats.c - what a model cannot know about a sentence (caveats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caveats.h"
#include "input.h"
#include "base/i18n.h"
#include "base/unicode.h"
#include "base/utf8.h"
#include "formats/vocab.h"

#define WORD_MAX 128
#define WORDS_MAX 256

/* The words of a text as typed, split at white space, with the
 * punctuation around each taken off ("“Lisbon,”" → "Lisbon"). */
struct words {
	char w[WORDS_MAX][WORD_MAX];
	int n;
};

static uint32_t cp_at(const char *s, int *len)
{
	uint32_t cp = 0;
	int k = utf8_decode((const unsigned char *)s, strlen(s), &cp);
	*len = k > 0 ? k : 1;
	return k > 0 ? cp : (unsigned char)*s;
}

static int is_word_cp(uint32_t cp)
{
	return (uni_flags(cp) & (UNI_L | UNI_N | UNI_MN)) != 0;
}

static void words_split(const char *text, struct words *ws)
{
	ws->n = 0;
	const char *p = text;
	while (*p && ws->n < WORDS_MAX) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		const char *e = p;
		while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')
			e++;
		/* trim what is not a letter or digit at both ends */
		const char *a = p, *b = e;
		int l;
		while (a < b && !is_word_cp(cp_at(a, &l)))
			a += l;
		const char *last = a;
		for (const char *q = a; q < b; q += l)
			if (is_word_cp(cp_at(q, &l)))
				last = q + l;
		b = last;
		if (b > a && (size_t)(b - a) < WORD_MAX) {
			memcpy(ws->w[ws->n], a, (size_t)(b - a));
			ws->w[ws->n++][b - a] = 0;
		}
		p = e;
	}
}

/* s in lower case into out (WORD_MAX bytes). */
static void lower(const char *s, char *out)
{
	size_t k = 0;
	int l;
	while (*s && k + 8 < WORD_MAX) {
		uint32_t cp = cp_at(s, &l), lo[4];
		int n = uni_lower(cp, lo);
		for (int i = 0; i < (n > 0 ? n : 1); i++)
			k += (size_t)utf8_encode(n > 0 ? lo[i] : cp, out + k);
		s += l;
	}
	out[k] = 0;
}

static int has_digit(const char *s)
{
	for (; *s; s++)
		if (*s >= '0' && *s <= '9')
			return 1;
	return 0;
}

/* Capitalised: its first letter changes in lower case. */
static int capitalised(const char *s)
{
	int l;
	uint32_t cp = cp_at(s, &l), lo[4];
	return (uni_flags(cp) & UNI_L) && uni_lower(cp, lo) == 1 && lo[0] != cp;
}

/* A name: capitalised, and not "I" ("I'm" splits at the apostrophe). */
static int is_name(const char *s)
{
	return capitalised(s) && strcmp(s, "I") != 0 && strncmp(s, "I'", 2) != 0 &&
	       strncmp(s, "I’", 4) != 0;
}

static int add(struct caveats *c, enum caveat_kind k, const char *word, struct err *e)
{
	static const char *const REASON[] = {
		[CAV_UNK] = N_("not in the model's vocabulary: it reads <unk>"),
		[CAV_UNSEEN] = N_("never a word of its training: it only knows the pieces"),
		[CAV_NUMBER] = N_("a number the translation drops or changes"),
		[CAV_NAME] = N_("a name the translation leaves out or changes"),
		[CAV_EMPTY] = N_("the model ends the sentence at once: it knows nothing to "
				 "translate"),
	};
	static const char *const TAG[] = {
		[CAV_UNK] = N_("unknown"), [CAV_UNSEEN] = N_("new word"),
		[CAV_NUMBER] = N_("number changed"), [CAV_NAME] = N_("name not kept"),
		[CAV_EMPTY] = N_("ends at once"),
	};
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->v[i].word, word) == 0)
			return 0;   /* one caveat a word */
	struct caveat *nv = realloc(c->v, (size_t)(c->n + 1) * sizeof *nv);
	if (!nv)
		return err_set(e, "out of memory");
	c->v = nv;
	if (!(nv[c->n].word = strdup(word)))
		return err_set(e, "out of memory");
	nv[c->n].kind = k;
	nv[c->n].reason = REASON[k];
	nv[c->n].tag = TAG[k];
	c->n++;
	return 0;
}

/* The corpus words beside the model (NAME.words.txt), or 0 without. */
static int load_words(const struct model *m, struct vocab *v, struct err *e)
{
	char path[4096];
	const char *p = m->path ? m->path : "";
	size_t len = strlen(p);
	if (len > 5 && strcmp(p + len - 5, ".yaml") == 0)
		len -= 5;
	else if (len > 4 && strcmp(p + len - 4, ".yml") == 0)
		len -= 4;
	else
		return 0;
	if (len + 11 >= sizeof path)
		return 0;
	snprintf(path, sizeof path, "%.*s.words.txt", (int)len, p);
	if (access(path, F_OK) != 0)
		return 0;
	return vocab_load(v, path, e) ? -1 : 1;
}

/* Whether every letter-and-digit run of word (lower case) is a corpus
 * word: "don't" is "don" and "t", as the corpus splits it. */
static int seen_in(const struct vocab *v, const char *word)
{
	char lw[WORD_MAX], run[WORD_MAX];
	lower(word, lw);
	const char *p = lw;
	int l;
	while (*p) {
		size_t k = 0;
		while (*p && is_word_cp(cp_at(p, &l)) && k + l < WORD_MAX) {
			memcpy(run + k, p, (size_t)l);
			k += (size_t)l;
			p += l;
		}
		run[k] = 0;
		if (k && vocab_id(v, run) < 0)
			return 0;
		while (*p && !is_word_cp(cp_at(p, &l)))
			p += l;
	}
	return 1;
}

/* Whether ws holds word (case left as it is, or ignored). */
static int holds(const struct words *ws, const char *word, int nocase)
{
	char a[WORD_MAX], b[WORD_MAX];
	if (nocase)
		lower(word, a);
	for (int i = 0; i < ws->n; i++) {
		if (!nocase && strcmp(ws->w[i], word) == 0)
			return 1;
		if (nocase && (lower(ws->w[i], b), strcmp(a, b) == 0))
			return 1;
	}
	return 0;
}

/* The caveats the output shows: numbers changed, names left out, an
 * empty translation. */
static int output_caveats(const struct model *m, const char *sentence,
			  const struct words *src, const int32_t *out, int nout,
			  struct caveats *c, struct err *e)
{
	struct words *dst = malloc(sizeof *dst);
	char *text = malloc(8192);
	if (!dst || !text) {
		free(dst);
		free(text);
		return err_set(e, "out of memory");
	}
	model_target_text(m, out, nout, sentence, text, 8192);
	words_split(text, dst);
	/* names the output does not repeat, against the capitalised words it
	 * has of its own (Lisbon → Lisboa): more of the first, and some name
	 * was left out or changed */
	int missing = 0, own = 0, rc = 0;
	for (int i = 1; i < src->n; i++)
		missing += is_name(src->w[i]) && !holds(dst, src->w[i], 1);
	for (int i = 1; i < dst->n; i++) {
		int again = 0;
		for (int j = 1; j < i && !again; j++)
			again = strcmp(dst->w[j], dst->w[i]) == 0;
		own += !again && capitalised(dst->w[i]) && !holds(src, dst->w[i], 1);
	}
	for (int i = 0; i < src->n && !rc; i++) {
		const char *w = src->w[i];
		if (has_digit(w) && !holds(dst, w, 0))
			rc = add(c, CAV_NUMBER, w, e);
		else if (i > 0 && is_name(w) && missing > own && !holds(dst, w, 1))
			rc = add(c, CAV_NAME, w, e);
	}
	if (!rc && nout == 0 && src->n > 0)
		rc = add(c, CAV_EMPTY, "", e);
	free(text);
	free(dst);
	return rc;
}

int caveats_find(const struct model *m, const char *sentence, const int32_t *out,
		 int nout, struct caveats *c, struct err *e)
{
	struct pass_input in;
	struct pass_opts o;
	struct vocab v;
	memset(&v, 0, sizeof v);
	pass_opts_default(&o);
	if (input_build(m, sentence, NULL, &o, &in, e))
		return -1;
	int rc = 0;
	for (int i = 0; i < in.nunknown && !rc; i++)
		rc = add(c, CAV_UNK, in.unknown[i], e);
	input_free(&in);
	struct words *src = malloc(sizeof *src);
	if (!rc && !src)
		rc = err_set(e, "out of memory");
	if (!rc)
		words_split(sentence, src);
	int have = rc ? 0 : load_words(m, &v, e);
	if (have < 0)
		rc = -1;
	for (int i = 0; have > 0 && !rc && i < src->n; i++)
		if (!has_digit(src->w[i]) && !seen_in(&v, src->w[i]))
			rc = add(c, CAV_UNSEEN, src->w[i], e);
	if (have > 0)
		vocab_free(&v);
	/* (a translation repeats numbers and names; a continuation need not) */
	if (!rc && out && nout >= 0 && m->cfg.arch == ARCH_ENC_DEC)
		rc = output_caveats(m, sentence, src, out, nout, c, e);
	free(src);
	return rc;
}

void caveats_free(struct caveats *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->v[i].word);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}
