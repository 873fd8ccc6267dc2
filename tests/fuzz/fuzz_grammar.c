/* fuzz_grammar.c - libFuzzer target: the corpus grammar's loader and its
 * derivation (src/corpus/grammar*.c).
 *
 * The input is a grammar file (examples/corpus/grammar.yaml's format).  It
 * is written to a file in a private temporary directory and loaded with
 * grammar_load, which checks it whole (symbols, slots, features, words,
 * nesting depth and the most words a template can make).  A grammar that
 * loads is derived from: seeded random derivations and the first
 * derivations of the exhaustive enumeration, template after template from
 * one the input picks, at most 48 derivations an input.  Besides
 * "no crash", every derived pair must keep within GR_MAXWORDS words a side,
 * count its words right and align only words that exist. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus/grammar.h"

#define MAXWORDS 1024   /* GR_MAXWORDS (src/corpus/grammar_int.h) */

static char dir[64], path[128];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof dir, "%s/attnscope-fuzz.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_grammar: mkdtemp");
		abort();
	}
	snprintf(path, sizeof path, "%s/grammar.yaml", dir);
	atexit(cleanup);
	return 0;
}

static int words(const char *s)
{
	int n = 0;
	for (const char *p = s; *p; p++)
		n += *p != ' ' && (p == s || p[-1] == ' ');
	return n;
}

/* The pair as grammar.h promises it. */
static void check_pair(const struct gr_pair *p)
{
	if (p->en_words > MAXWORDS || p->pt_words > MAXWORDS ||
	    words(p->en) != p->en_words || words(p->pt) != p->pt_words) {
		fprintf(stderr, "pair of %d/%d words: \"%s\" / \"%s\"\n", p->en_words,
			p->pt_words, p->en, p->pt);
		abort();
	}
	const char *a = p->align;
	while (*a) {
		char *end;
		long i = strtol(a, &end, 10);
		if (*end != '-')
			abort();
		long j = strtol(end + 1, &end, 10);
		if (i < 0 || i >= p->en_words || j < 0 || j >= p->pt_words) {
			fprintf(stderr, "link %ld-%ld outside %d/%d words\n", i, j,
				p->en_words, p->pt_words);
			abort();
		}
		a = *end == ' ' ? end + 1 : end;
		if (*end && *end != ' ')
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	struct err e;
	struct grammar *g = grammar_load(path, &e);
	if (!g)
		return 0;
	struct gr_rng rng;
	struct gr_chooser c;
	struct gr_pair p;
	memset(&p, 0, sizeof p);
	gr_rng_seed(&rng, size);
	/* A bounded budget of derivations an input, spread over the templates
	 * from one the input picks: a big grammar (the shipped one has dozens of
	 * templates) costs a few of them, not hundreds, so the fuzzer stays fast
	 * on the mutants of big seeds. */
	int nt = grammar_ntemplates(g), budget = 48;
	int t0 = nt > 0 ? (int)(size % (size_t)nt) : 0;
	for (int k = 0; k < nt && budget > 0; k++) {
		int t = (t0 + k) % nt;
		if (gr_chooser_init(&c, GR_RANDOM, &rng, &e) == 0) {
			for (int r = 0; r < 2 && budget > 0; r++, budget--)
				if (grammar_derive(g, t, &c, &p, &e) > 0)
					check_pair(&p);
			gr_chooser_free(&c);
		}
		if (gr_chooser_init(&c, GR_ENUMERATE, NULL, &e) == 0) {
			int r = 0;
			do {
				if (grammar_derive(g, t, &c, &p, &e) > 0)
					check_pair(&p);
				budget--;
			} while (++r < 4 && budget > 0 && gr_chooser_next(&c));
			gr_chooser_free(&c);
		}
	}
	gr_pair_free(&p);
	grammar_free(g);
	return 0;
}
