/* fuzz_tokenize.c - libFuzzer target: the word, char and bpe tokenizers,
 * vocab_encode, tokens_join and input_build.
 *
 * Input byte 0 chooses the options (bit 0 char mode, bit 1 lowercase,
 * bit 2 wrap_source, bits 3-4 and 5-6 padding, bit 7 BPE pieces with the
 * merges of tests/data/bpe-toy.merges.txt); the rest is the sentence, and
 * after a TAB byte the target.  Properties checked: every token is
 * non-empty, valid UTF-8 and at most 256 bytes + 4; ids are in range; a
 * vocabulary made of the distinct tokens maps each token back to itself;
 * BPE pieces join back to the words they came from (with and without a
 * vocabulary to split back to), only a word's last piece lacks "@@". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/input.h"
#include "engine/model.h"
#include "formats/vocab.h"

static struct model *m;
static struct bpe merges;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err e;
	if (!(m = model_load(ATTNSCOPE_SRCDIR "/tests/data/tiny.yaml", &e))) {
		fprintf(stderr, "fuzz_tokenize: %s\n", e.msg);
		abort();
	}
	if (bpe_load(&merges, ATTNSCOPE_SRCDIR "/tests/data/bpe-toy.merges.txt", &e)) {
		fprintf(stderr, "fuzz_tokenize: %s\n", e.msg);
		abort();
	}
	return 0;
}

/* Whether s is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
static int valid_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned c = *s;
		int n = c < 0x80 ? 0 : c >= 0xC2 && c < 0xE0 ? 1 : c >= 0xE0 && c < 0xF0 ? 2 :
			c >= 0xF0 && c < 0xF5 ? 3 : -1;
		if (n < 0)
			return 0;
		uint32_t cp = n == 0 ? c : n == 1 ? c & 0x1F : n == 2 ? c & 0x0F : c & 0x07;
		for (int i = 1; i <= n; i++) {
			if ((s[i] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i] & 0x3F);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		s += n + 1;
	}
	return 1;
}

static void check_tokens(char **toks, int n)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(toks[i]);
		if (len == 0 || len > 260 || !valid_utf8((const unsigned char *)toks[i])) {
			fprintf(stderr, "bad token %d of %d (%zu bytes)\n", i, n, len);
			abort();
		}
	}
	/* distinct tokens as a vocabulary: each maps back to its id */
	char **uniq = malloc((size_t)(n + 1) * sizeof *uniq);
	int nu = 0;
	for (int i = 0; i < n; i++) {
		int dup = 0;
		for (int j = 0; j < nu && !dup; j++)
			dup = !strcmp(uniq[j], toks[i]);
		if (!dup)
			uniq[nu++] = toks[i];
	}
	struct vocab v;
	struct err e;
	if (nu && !vocab_init(&v, (const char *const *)uniq, nu, "fuzz", &e)) {
		int32_t *ids = malloc((size_t)n * sizeof *ids);
		int unk = -1;
		vocab_encode(&v, toks, n, ids, &unk);
		for (int i = 0; i < n; i++)
			if (ids[i] < 0 || ids[i] >= nu || strcmp(vocab_str(&v, ids[i]), toks[i])) {
				fprintf(stderr, "token %d maps to id %d\n", i, ids[i]);
				abort();
			}
		if (unk != 0)
			abort();
		free(ids);
		vocab_free(&v);
	}
	free(uniq);
	/* and through the model's vocabulary: ids in range */
	int32_t *ids = malloc((size_t)(n + 1) * sizeof *ids);
	int unk = 0;
	vocab_encode(&m->src_vocab, toks, n, ids, &unk);
	for (int i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= m->src_vocab.n)
			abort();
	if (unk < 0 || unk > n)
		abort();
	free(ids);
}

/* The words of text, split into pieces (with or without the model's
 * vocabulary), join back to the same text as the words themselves. */
static void check_bpe(const struct tokenizer_cfg *c, const char *text,
		      const struct vocab *v)
{
	struct tokenizer_cfg wc = *c, bc = *c;
	wc.type = TOKENIZE_WORD;
	bc.type = TOKENIZE_BPE;
	char **w = NULL, **p = NULL;
	struct err e;
	int nw = tokenize(&wc, text, &w, NULL, &e);
	int np = tokenize_bpe(&bc, &merges, v, text, &p, NULL, &e);
	if ((nw < 0) != (np < 0))
		abort();
	if (nw < 0)
		return;
	check_tokens(p, np);
	if (np < nw)
		abort();
	/* every word ends with a piece without "@@" */
	int words = 0;
	for (int i = 0; i < np; i++)
		words += !bpe_is_cont(p[i]);
	if (words != nw || (np && bpe_is_cont(p[np - 1])))
		abort();
	size_t cap = strlen(text) * 2 + 16;
	char *a = malloc(cap), *b = malloc(cap);
	tokens_join(&wc, w, nw, a, cap);
	tokens_join(&bc, p, np, b, cap);
	if (strcmp(a, b)) {
		fprintf(stderr, "pieces join to \"%s\", words to \"%s\"\n", b, a);
		abort();
	}
	free(a);
	free(b);
	tokens_free(w, nw);
	tokens_free(p, np);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;

	struct tokenizer_cfg c = m->cfg.tok;
	c.type = flags & 1 ? TOKENIZE_CHAR : TOKENIZE_WORD;
	c.lowercase = !!(flags & 2);
	c.wrap_source = !!(flags & 4);
	char **toks = NULL;
	int invalid = -1;
	struct err e;
	int n = tokenize(&c, text, &toks, &invalid, &e);
	if (n >= 0) {
		if (invalid < 0 || (size_t)invalid > size)
			abort();
		check_tokens(toks, n);
		tokens_free(toks, n);
	}

	if (flags & 0x80 && c.type == TOKENIZE_WORD) {
		check_bpe(&c, text, NULL);
		check_bpe(&c, text, &m->src_vocab);
		c.type = TOKENIZE_BPE;
	}

	/* the whole input path, with the tiny model's vocabularies */
	char *tab = strchr(text, '\t');
	if (tab)
		*tab = 0;
	struct tokenizer_cfg saved = m->cfg.tok;
	m->cfg.tok.type = c.type;
	m->cfg.tok.lowercase = c.lowercase;
	m->cfg.tok.wrap_source = c.wrap_source;
	if (c.type == TOKENIZE_BPE)
		m->src_bpe = m->tgt_bpe = &merges;
	struct pass_opts o;
	pass_opts_default(&o);
	o.pad_to = (flags >> 3 & 3) * 7;
	o.pad_target = (flags >> 5 & 3) * 5;
	struct pass_input in;
	if (!input_build(m, text, tab ? tab + 1 : NULL, &o, &in, &e)) {
		char buf[256];
		input_unknown_summary(&in, buf, sizeof buf);
		if (in.S > m->cfg.max_len || in.T > m->cfg.max_len)
			abort();
		for (int i = 0; i < in.S; i++)
			if (in.src_ids[i] < 0 || in.src_ids[i] >= m->src_vocab.n)
				abort();
		for (int i = 0; i < in.T; i++)
			if (in.tgt_ids[i] < 0 || in.tgt_ids[i] >= m->tgt_vocab.n)
				abort();
		input_free(&in);
	}
	m->cfg.tok = saved;
	m->src_bpe = m->tgt_bpe = NULL;
	free(text);
	return 0;
}
