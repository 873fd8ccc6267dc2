/* test_bpe.c - byte-pair encoding: learning, applying, joining back.
 *
 * The expected merges of the small corpus below (Sennrich et al. 2016's
 * own example: low 5, lower 2, newest 6, widest 3) are derived by hand in
 * the comment of test_learn, counting pairs step by step with ties broken
 * by byte order; nothing here is computed by the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "../tmpfiles.h"
#include "formats/bpe.h"
#include "formats/vocab.h"

static const char *const WORDS[] = { "low", "lower", "newest", "widest" };
static const long COUNTS[] = { 5, 2, 6, 3 };

/* Hand-derived (</w> is attached to the last letter of a word):
 *  counts: e s 9, s t</w> 9, w e 8, l o 7, e w 6, n e 6, o w</w> 5, ...
 *  1  e s        9 (tie with s t</w>: "e" < "s")
 *  2  es t</w>   9
 *  3  l o        7
 *  4  e w        6 (ties n e, w est</w>: "e" < "n" < "w")
 *  5  ew est</w> 6 (tie n ew: "ew" < "n")
 *  6  n ewest</w> 6
 *  7  lo w</w>   5
 *  8  d est</w>  3 (ties i d, w i: "d" < "i" < "w")
 *  9  i dest</w> 3 (tie w i)
 * 10  w idest</w> 3
 * 11  e r</w>    2 (ties lo w, w e: "e" < "lo" < "w")
 * 12  lo w       2 (tie w er</w>)
 * 13  low er</w> 2
 * then every word is one symbol: learning stops. */
static const char *const WANT[][2] = {
	{ "e", "s" }, { "es", "t</w>" }, { "l", "o" }, { "e", "w" },
	{ "ew", "est</w>" }, { "n", "ewest</w>" }, { "lo", "w</w>" },
	{ "d", "est</w>" }, { "i", "dest</w>" }, { "w", "idest</w>" },
	{ "e", "r</w>" }, { "lo", "w" }, { "low", "er</w>" },
};
#define NWANT 13

static int learn(const int *order, int nmerges, long min_count, struct bpe *b)
{
	struct bpe_counts c;
	struct err e = { "" };
	bpe_counts_init(&c);
	for (int i = 0; i < 4; i++) {
		/* each count added one at a time, in the given word order */
		for (long k = 0; k < COUNTS[order[i]]; k++)
			bpe_counts_add(&c, WORDS[order[i]], 1, &e);
	}
	int rc = bpe_learn(&c, nmerges, min_count, b, &e);
	if (rc)
		printf("# %s\n", e.msg);
	bpe_counts_free(&c);
	return rc;
}

static int same_merges(const struct bpe *b, const char *const (*want)[2], int n,
		       const char *what)
{
	int ok = b->n == n;
	for (int i = 0; ok && i < n; i++)
		ok = strcmp(b->left[i], want[i][0]) == 0 && strcmp(b->right[i], want[i][1]) == 0;
	tap_ok(ok, "%s: %d merges as derived by hand", what, n);
	if (!ok)
		for (int i = 0; i < b->n; i++)
			printf("# got %d: %s %s\n", i + 1, b->left[i], b->right[i]);
	return ok;
}

static void test_learn(void)
{
	static const int ORDER[] = { 0, 1, 2, 3 }, SHUFFLED[] = { 3, 1, 0, 2 };
	struct bpe a, b;
	if (learn(ORDER, 100, 2, &a) == 0) {
		same_merges(&a, WANT, NWANT, "learn (stops when all words are whole)");
		bpe_free(&a);
	}
	if (learn(SHUFFLED, 100, 2, &b) == 0) {
		same_merges(&b, WANT, NWANT, "learn from the words in another order");
		bpe_free(&b);
	}
	if (learn(ORDER, 4, 2, &a) == 0) {
		same_merges(&a, WANT, 4, "learn --merges 4 stops after 4");
		bpe_free(&a);
	}
	if (learn(ORDER, 100, 3, &a) == 0) {
		same_merges(&a, WANT, 10, "min count 3 stops before the count-2 pairs");
		bpe_free(&a);
	}
}

static void expect_pieces_v(const struct bpe *b, const struct vocab *v,
			    const char *word, const char *const *want, int nwant,
			    const char *what)
{
	char **p = NULL;
	struct err e = { "" };
	int n = bpe_apply(b, v, word, &p, &e);
	int ok = n == nwant;
	for (int i = 0; ok && i < n; i++)
		ok = strcmp(p[i], want[i]) == 0;
	tap_ok(ok, "%s: \"%s\" -> %d pieces", what, word, nwant);
	if (!ok) {
		printf("# got %d:", n);
		for (int i = 0; i < n; i++)
			printf(" [%s]", p[i]);
		printf(" %s\n", n < 0 ? e.msg : "");
	}
	if (n > 0)
		tokens_free(p, n);
}

static void expect_pieces(const struct bpe *b, const char *word,
			  const char *const *want, int nwant, const char *what)
{
	expect_pieces_v(b, NULL, word, want, nwant, what);
}

#define TOKS(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof (const char *const[]){ __VA_ARGS__ } / sizeof(const char *))

static void test_apply(void)
{
	/* a merges file written by hand, with subword-nmt's header line */
	write_file(tpath("m.txt"),
		   "#version: 0.2\n"
		   "e s\nes t</w>\nl o\ne w\new est</w>\nn ewest</w>\nlo w</w>\n"
		   "d est</w>\ni dest</w>\nw idest</w>\ne r</w>\nlo w\nlow er</w>\n");
	struct bpe b;
	struct err e = { "" };
	if (!tap_ok(bpe_load(&b, tpath("m.txt"), &e) == 0 && b.n == 13,
		    "bpe_load reads 13 merges")) {
		printf("# %s\n", e.msg);
		return;
	}
	expect_pieces(&b, "low", TOKS("low"), "a learned word is one piece");
	expect_pieces(&b, "newest", TOKS("newest"), "a learned word is one piece");
	expect_pieces(&b, "lower", TOKS("lower"), "a learned word is one piece");
	/* lowest: l o w e s t</w> -> (1) l o w es t</w> -> (2) l o w est</w>
	   -> (3) lo w est</w>; no merge "w est</w>" or "lo w" before rank 12:
	   (12) low est</w>; "low est</w>" is no merge */
	expect_pieces(&b, "lowest", TOKS("low@@", "est"), "an unseen word");
	/* newer: n e w e r</w> -> (4) n ew e r</w> -> (11) n ew er</w> */
	expect_pieces(&b, "newer", TOKS("n@@", "ew@@", "er"), "an unseen word");
	/* wide: w i d e</w> -> no pair has a merge ("d e</w>" is none) */
	expect_pieces(&b, "wide", TOKS("w@@", "i@@", "d@@", "e"), "no merge applies");
	/* "eses": e s e s</w> -> (1) both "e s" at once: es e s</w>?  The
	   second pair is "e s</w>", not "e s": es e s</w>; nothing else */
	expect_pieces(&b, "eses", TOKS("es@@", "e@@", "s"), "a merge never crosses </w>");
	/* "eses" again with a pair occurring twice: esest -> e s e s t</w> ->
	   (1) es es t</w> (both) -> (2) es est</w> */
	expect_pieces(&b, "esest", TOKS("es@@", "est"), "a merge applies at every occurrence");
	expect_pieces(&b, "a", TOKS("a"), "one letter");
	/* UTF-8: a code point is never split (ç = C3 A7, ã = C3 A3) */
	expect_pieces(&b, "\xc3\xa7\xc3\xa3o", TOKS("\xc3\xa7@@", "\xc3\xa3@@", "o"),
		      "code points, not bytes");
	/* with a vocabulary: low@@ (merge 12, "lo w") is not in it, so it
	   splits back into lo@@ w@@; lo@@ (merge 3) is not either: l@@ o@@ */
	struct vocab v;
	const char *toks[] = { "<pad>", "<s>", "</s>", "<unk>", "l@@", "o@@", "w@@", "est" };
	if (vocab_init(&v, toks, 8, "v", &e) == 0) {
		expect_pieces_v(&b, &v, "lowest", TOKS("l@@", "o@@", "w@@", "est"),
				"pieces outside the vocabulary split back to letters");
		vocab_free(&v);
	}
	const char *toks2[] = { "<pad>", "<s>", "</s>", "<unk>", "lo@@", "w@@", "est" };
	if (vocab_init(&v, toks2, 7, "v", &e) == 0) {
		expect_pieces_v(&b, &v, "lowest", TOKS("lo@@", "w@@", "est"),
				"split back only as far as the vocabulary needs");
		/* newest is one merge product but missing: n ewest -> n ew est
		   -> n e w est (ew@@ missing too); no letter is refused */
		expect_pieces_v(&b, &v, "newest", TOKS("n@@", "e@@", "w@@", "est"),
				"a missing whole word splits back");
		vocab_free(&v);
	}
	bpe_free(&b);

	static const struct { const char *text, *err; } BAD[] = {
		{ "e s\nfoo\n", "m.txt:2: a merge is two symbols" },
		{ "e s\ne  s\n", "m.txt:2: a merge is two symbols" },
		{ "e s\ne s\n", "m.txt:2: the merge \"e s\" appears twice" },
		{ " s\n", "m.txt:1: a merge is two symbols" },
	};
	for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
		write_file(tpath("m.txt"), BAD[i].text);
		int rc = bpe_load(&b, tpath("m.txt"), &e);
		tap_ok(rc == -1 && strstr(e.msg, BAD[i].err), "bad merges file %zu: %s", i,
		       BAD[i].err);
		if (rc == 0)
			bpe_free(&b);
		else if (!strstr(e.msg, BAD[i].err))
			printf("# got: %s\n", e.msg);
	}
	tap_ok(bpe_load(&b, tpath("nonexistent.txt"), &e) == -1 &&
	       strstr(e.msg, "nonexistent.txt"), "a missing merges file is an error");
}

/* Pieces join back to the text: words of many shapes, learned from a
 * corpus of their own, then applied to words it never saw. */
static void test_round_trip(void)
{
	static const char *const TRAIN[] = {
		"o gato preto dormiu na casa branca", "os gatos pretos dormiram",
		"eu gosto de comer maçãs", "ela está comendo uma maçã",
		"nós fomos à escola ontem", "você é meu irmão",
		"the cats are sleeping in the garden", "she is eating apples",
	};
	static const char *const TEXTS[] = {
		"as gatas brancas comeram", "coração", "o ônibus e o trem",
		"the sleeping cats ate the apples", "x", "ççç ããã",
		"onde está a biblioteca ?", "supercalifragilistic",
	};
	struct bpe_counts c;
	struct bpe b;
	struct err e = { "" };
	struct tokenizer_cfg tc = { .type = TOKENIZE_BPE, .lowercase = 1 };
	bpe_counts_init(&c);
	for (size_t i = 0; i < sizeof TRAIN / sizeof *TRAIN; i++) {
		char **w;
		int n = tokenize(&tc, TRAIN[i], &w, NULL, &e);
		for (int k = 0; k < n; k++)
			bpe_counts_add(&c, w[k], 1, &e);
		tokens_free(w, n);
	}
	if (!tap_ok(bpe_learn(&c, 60, 2, &b, &e) == 0 && b.n > 10, "learn 60 merges")) {
		bpe_counts_free(&c);
		return;
	}
	for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
		char **p;
		int n = tokenize_bpe(&tc, &b, NULL, TEXTS[i], &p, NULL, &e);
		char joined[512], want[512];
		tokens_join(&tc, p, n, joined, sizeof joined);
		/* what a reader writes: punctuation glued to the word before */
		snprintf(want, sizeof want, "%s", TEXTS[i]);
		char *q = strstr(want, " ?");
		if (q)
			memmove(q, q + 1, strlen(q));
		tap_str(joined, want, "pieces join back to the text");
		int cont_last = n > 0 && bpe_is_cont(p[n - 1]);
		tap_ok(!cont_last, "the last piece ends its word");
		tokens_free(p, n);
	}
	/* a word seen in training comes out whole */
	char **p;
	int n = tokenize_bpe(&tc, &b, NULL, "gatos", &p, NULL, &e);
	tap_ok(n >= 1 && n <= 2, "a frequent training word takes at most 2 pieces (%d)", n);
	tokens_free(p, n);
	bpe_free(&b);
	bpe_counts_free(&c);
}

static void test_join(void)
{
	struct tokenizer_cfg w = { .type = TOKENIZE_WORD }, bp = { .type = TOKENIZE_BPE },
			     ch = { .type = TOKENIZE_CHAR };
	char buf[64];
	char *t1[] = { "onde", "está", "a", "biblioteca", "?" };
	tap_str(tokens_join(&w, t1, 5, buf, sizeof buf), "onde está a biblioteca?",
		"word: ? glued to the word before");
	char *t2[] = { "gat@@", "os", ",", "cachorr@@", "os", "!" };
	tap_str(tokens_join(&bp, t2, 6, buf, sizeof buf), "gatos, cachorros!",
		"bpe: pieces and punctuation joined");
	tap_str(tokens_join(&w, t2, 6, buf, sizeof buf), "gat@@ os, cachorr@@ os!",
		"word: @@ is kept (not a BPE model)");
	char *t3[] = { "t", "e", " ", "a", "m", "o" };
	tap_str(tokens_join(&ch, t3, 6, buf, sizeof buf), "te amo", "char: concatenated");
	char *t4[] = { "cora\xc3\xa7\xc3\xa3o" };
	tap_str(tokens_join(&w, t4, 1, buf, 7), "cora\xc3\xa7", "cut at a code point");
	tap_str(tokens_join(&w, t1, 0, buf, sizeof buf), "", "no tokens");
	char *t5[] = { "o", "trem", "sai", "às", "5", ":", "2@@", "0", "." };
	tap_str(tokens_join(&bp, t5, 9, buf, sizeof buf), "o trem sai às 5:20.",
		"bpe: a time's minutes joined to its colon");
	char *t6[] = { "são", "12", ":", "45", ":", "nota", ":", "3" };
	tap_str(tokens_join(&w, t6, 8, buf, sizeof buf), "são 12:45: nota: 3",
		"word: only digits after a colon after digits join");
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_bpe.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_learn();
	test_apply();
	test_round_trip();
	test_join();
	unlink(tpath("m.txt"));
	rmdir(tmpdir);
	return tap_done();
}
