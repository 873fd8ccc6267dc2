/* fuzz_spm.c - libFuzzer target: the SentencePiece reader (formats/spm.h).
 *
 * Each input is read twice.  As a .model file (spm_load_buffer): it loads,
 * or gives a one-line error naming the file; a model that loads encodes a
 * few fixed texts (accents, fullwidth forms, emoji, runs of spaces, an
 * invalid byte, a NUL) and its own first 64 bytes: every id in range, and
 * the ids decode.  As a text, encoded by the seed models llama.model (BPE,
 * byte fallback, no normalisation) and rules.model (unigram, a charsmap of
 * custom rules, a user-defined piece): ids in range, and with llama.model
 * a valid UTF-8 text without "▁" comes back from decode byte for byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/spm.h"

#define SEEDS ATTNSCOPE_SRCDIR "/tests/fuzz/corpus/spm/"

static struct spm *llama, *rules;

static struct spm *seed(const char *name)
{
	struct err e;
	char path[512];
	snprintf(path, sizeof path, SEEDS "%s", name);
	struct spm *s = spm_load(path, &e);
	if (!s) {
		fprintf(stderr, "fuzz_spm: %s\n", e.msg);
		abort();
	}
	return s;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	llama = seed("llama.model");
	rules = seed("rules.model");
	return 0;
}

/* Encodes text[0..len), checks the ids, decodes them; returns the decoded
 * text (malloc'd, length in *dlen) or NULL when the encoding gave an
 * error (out of memory only). */
static char *encode_check(const struct spm *s, const char *text, size_t len, size_t *dlen,
			  int *invalid)
{
	struct err e;
	int32_t *ids;
	const char **pieces;
	int n;
	*invalid = 0;
	if (spm_encode_pieces(s, text, len, &ids, &pieces, &n, invalid, &e))
		return NULL;
	for (int i = 0; i < n; i++) {
		if (ids[i] < 0 || ids[i] >= s->n || !pieces[i] || !pieces[i][0] ||
		    pieces[i] != spm_piece(s, ids[i])) {
			fprintf(stderr, "fuzz_spm: id %d at %d of %d\n", (int)ids[i], i, n);
			abort();
		}
	}
	char *d = spm_decode(s, ids, n, dlen, &e);
	if (!d) {
		fprintf(stderr, "fuzz_spm: decoding valid ids: %s\n", e.msg);
		abort();
	}
	free(ids);
	free(pieces);
	return d;
}

static void as_model(const uint8_t *data, size_t size)
{
	static const char *const texts[] = {
		"Hello world", "  olá,   mundo  ", "\xef\xbc\xa6\xef\xbc\xb5\xef\xbc\xac\xef\xbc\xac 123",
		"\xf0\x9f\x98\x80 \xef\xac\x81ne", "a\xff-b", "", " ", "x\ty\nz",
	};
	struct err e;
	struct spm *s = spm_load_buffer(data, size, "fuzz.model", &e);
	if (!s) {
		if (strncmp(e.msg, "fuzz.model: ", 12) || strchr(e.msg, '\n')) {
			fprintf(stderr, "fuzz_spm: error not one line naming the file: %s\n", e.msg);
			abort();
		}
		return;
	}
	size_t dlen;
	int invalid;
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		free(encode_check(s, texts[i], strlen(texts[i]), &dlen, &invalid));
	free(encode_check(s, "a\0b", 3, &dlen, &invalid));
	free(encode_check(s, (const char *)data, size < 64 ? size : 64, &dlen, &invalid));
	spm_free(s);
}

static void as_text(const uint8_t *data, size_t size)
{
	size_t dlen;
	int invalid;
	if (size > 4096)
		size = 4096;
	char *d = encode_check(llama, (const char *)data, size, &dlen, &invalid);
	/* no normalisation, every byte has a piece: the text comes back (but
	 * for a "▁" typed in it, which decodes as a space) */
	if (d && !invalid && !memmem(data, size, SPM_SPACE, 3) &&
	    (dlen != size || memcmp(d, data, size))) {
		fprintf(stderr, "fuzz_spm: llama.model does not give the text back (%zu bytes, "
			"%zu back)\n", size, dlen);
		abort();
	}
	free(d);
	free(encode_check(rules, (const char *)data, size, &dlen, &invalid));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_model(data, size);
	as_text(data, size);
	return 0;
}
