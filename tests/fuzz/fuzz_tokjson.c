/* fuzz_tokjson.c - libFuzzer target: the tokenizer.json reader.
 *
 * The input is a tokenizer.json, then optionally a NUL byte and a text.
 * When the file reads (tokjson_parse), the text (or a fixed sentence with
 * emoji, digits, white space runs and the file's first added token) is
 * encoded with and without what the post-processor adds, and decoded;
 * every piece is labelled.  Besides "no crash": every id is inside the
 * vocabulary, the ids with the post-processor are the ids without it with
 * pre_ids in front and post_ids behind, and the decoded text and the
 * labels are valid UTF-8.  (An error may quote the file's text, a newline
 * too: messages are made safe where they are printed, base/safetext.h.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/tokjson.h"

static const char SENTENCE[] = "Hello world! It's 2024: naïve café 😀  \n\n  x\t42 ";

static void check_text(const struct tokjson *t, const char *text)
{
	struct err e;
	int32_t *a = NULL, *b = NULL;
	int na = 0, nb = 0, inv = 0;
	if (tokjson_encode(t, text, 0, &a, &na, &inv, &e) ||
	    tokjson_encode(t, text, 1, &b, &nb, &inv, &e)) {
		free(a);
		free(b);
		return;   /* out of memory */
	}
	if (nb != na + t->npre_ids + t->npost_ids ||
	    (na && memcmp(b + t->npre_ids, a, (size_t)na * sizeof *a)) ||
	    (t->npre_ids && memcmp(b, t->pre_ids, (size_t)t->npre_ids * sizeof *a)) ||
	    (t->npost_ids &&
	     memcmp(b + t->npre_ids + na, t->post_ids, (size_t)t->npost_ids * sizeof *a))) {
		fprintf(stderr, "the post-processor's ids are not around the text's\n");
		abort();
	}
	char **p = malloc(((size_t)nb + 1) * sizeof *p);
	for (int i = 0; i < nb; i++) {
		if (b[i] < 0 || b[i] >= t->vocab.n) {
			fprintf(stderr, "id %d outside the vocabulary of %d\n", b[i], t->vocab.n);
			abort();
		}
		if (p)
			p[i] = (char *)vocab_str(&t->vocab, b[i]);
		char lb[64];
		if (!utf8_valid(tokjson_label(t, vocab_str(&t->vocab, b[i]), lb, sizeof lb))) {
			fprintf(stderr, "a label is not UTF-8\n");
			abort();
		}
	}
	if (p) {
		char buf[4096];
		if (!utf8_valid(tokjson_text(t, p, nb, buf, sizeof buf))) {
			fprintf(stderr, "the decoded text is not UTF-8\n");
			abort();
		}
	}
	free(p);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, 0, size);
	size_t jl = nul ? (size_t)(nul - (const char *)data) : size;
	struct tokjson t;
	struct err e;
	if (tokjson_parse(&t, "fuzz.json", (const char *)data, jl, NULL, NULL, 0, &e))
		return 0;
	char *text = NULL;
	if (nul) {
		size_t tl = size - jl - 1;
		text = malloc(tl + 1);
		if (text) {
			memcpy(text, nul + 1, tl);
			text[tl] = 0;   /* the text stops at a NUL, as a C string does */
		}
	}
	check_text(&t, text ? text : SENTENCE);
	if (!text && t.nadded) {
		char s[2 * TOKJSON_MAX_PIECE + 8];
		snprintf(s, sizeof s, "a%s b%s", t.added[0].content, t.added[t.nadded - 1].content);
		check_text(&t, s);
	}
	free(text);
	tokjson_free(&t);
	return 0;
}
