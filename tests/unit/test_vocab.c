/* test_vocab.c - vocabularies and the word/char tokenizers.
 *
 * Expected token lists are spelled out by hand, with the UTF-8 bytes of
 * every non-ASCII letter written as escapes (É = C3 89, é = C3 A9, ...),
 * so that the comparison does not depend on the code under test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "formats/vocab.h"

#define FFFD "\xef\xbf\xbd"

/* Tokenizes text and compares with want[0..nwant) and the invalid count. */
static void expect_tokens(const struct tokenizer_cfg *c, const char *text,
			  const char *const *want, int nwant, int want_invalid,
			  const char *what)
{
	char **got = NULL;
	int invalid = -1;
	struct err e = { "" };
	int n = tokenize(c, text, &got, &invalid, &e);
	int ok = n == nwant;
	for (int i = 0; ok && i < n; i++)
		ok = strcmp(got[i], want[i]) == 0;
	tap_ok(ok, "%s: %d tokens", what, nwant);
	if (!ok) {
		printf("# got %d:", n);
		for (int i = 0; i < n; i++)
			printf(" [%s]", got[i]);
		printf("%s%s\n# want %d:", n < 0 ? " error: " : "", n < 0 ? e.msg : "", nwant);
		for (int i = 0; i < nwant; i++)
			printf(" [%s]", want[i]);
		printf("\n");
	}
	tap_ok(invalid == want_invalid, "%s: %d invalid UTF-8 bytes (got %d)", what,
	       want_invalid, invalid);
	if (n > 0)
		tokens_free(got, n);
}

#define TOKS(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof (const char *const[]){ __VA_ARGS__ } / sizeof(const char *))

static void test_vocab_table(void)
{
	struct vocab v;
	struct err e = { "" };
	const char *toks[] = { "<pad>", "<s>", "</s>", "<unk>", "cat", "gato", "\xc3\xa9" };
	int rc = vocab_init(&v, toks, 7, "v.txt", &e);
	tap_ok(rc == 0 && v.n == 7, "vocab_init of 7 distinct tokens");
	if (rc) {
		printf("# %s\n", e.msg);
		return;
	}
	tap_ok(vocab_id(&v, "<pad>") == 0 && vocab_id(&v, "<s>") == 1 &&
	       vocab_id(&v, "</s>") == 2 && vocab_id(&v, "<unk>") == 3,
	       "vocab_id of the specials is 0..3");
	tap_ok(vocab_id(&v, "gato") == 5, "vocab_id(gato) = 5 (got %d)", vocab_id(&v, "gato"));
	tap_ok(vocab_id(&v, "\xc3\xa9") == 6, "vocab_id(é) = 6");
	tap_ok(vocab_id(&v, "dog") == -1, "vocab_id of an absent token is -1");
	tap_ok(vocab_id(&v, "Cat") == -1, "vocab_id is case-sensitive");
	tap_ok(vocab_id(&v, "") == -1, "vocab_id of \"\" is -1");
	tap_str(vocab_str(&v, 4), "cat", "vocab_str(4) = cat");
	tap_str(vocab_str(&v, 0), "<pad>", "vocab_str(0) = <pad>");
	tap_ok(vocab_str(&v, 7) == NULL && vocab_str(&v, -1) == NULL,
	       "vocab_str out of range is NULL");
	/* the strings were copied */
	tap_ok(vocab_str(&v, 4) != toks[4], "vocab_init copies the strings");

	const char *sent[] = { "cat", "dog", "gato", "<s>", "Cat", "dog" };
	int32_t ids[6];
	int unknown = -1;
	vocab_encode(&v, (char *const *)sent, 6, ids, &unknown);
	int32_t want[6] = { 4, 3, 5, 1, 3, 3 };
	tap_ok(memcmp(ids, want, sizeof ids) == 0, "vocab_encode maps unknown to 3");
	if (memcmp(ids, want, sizeof ids))
		printf("# got %d %d %d %d %d %d\n", ids[0], ids[1], ids[2], ids[3],
		       ids[4], ids[5]);
	tap_ok(unknown == 3, "vocab_encode counts 3 unknown tokens (got %d)", unknown);
	vocab_encode(&v, (char *const *)sent, 1, ids, &unknown);
	tap_ok(unknown == 0 && ids[0] == 4, "vocab_encode resets the count (got %d)", unknown);
	vocab_free(&v);
	tap_ok(v.n == 0 && v.tok == NULL, "vocab_free clears");
	tap_ok(vocab_id(&v, "cat") == -1, "vocab_id on a freed vocab is -1");

	const char *dup[] = { "<pad>", "<s>", "</s>", "<unk>", "a", "b", "a" };
	e.msg[0] = 0;
	rc = vocab_init(&v, dup, 7, "dup.txt", &e);
	tap_ok(rc == -1, "vocab_init refuses a duplicate");
	printf("# %s\n", e.msg);
	tap_contains(e.msg, "dup.txt", "  message names the vocabulary");
	tap_contains(e.msg, "\"a\"", "  message names the token");
	tap_contains(e.msg, "4 and 6", "  message gives both ids");
	tap_ok(v.tok == NULL && v.n == 0, "  the struct is left empty");
	vocab_free(&v);   /* must be harmless */

	e.msg[0] = 0;
	tap_ok(vocab_init(&v, dup, 0, "none.txt", &e) == -1, "vocab_init of 0 tokens refused");
	tap_contains(e.msg, "empty", "  says empty");

	/* a larger table: every id found again (hash collisions and wrap) */
	enum { N = 3000 };
	char **big = malloc(N * sizeof *big);
	for (int i = 0; i < N; i++) {
		big[i] = malloc(16);
		snprintf(big[i], 16, "w%d", i);
	}
	rc = vocab_init(&v, (const char *const *)big, N, "big", &e);
	int bad = rc ? 0 : -1;
	for (int i = 0; !rc && i < N && bad < 0; i++)
		if (vocab_id(&v, big[i]) != i)
			bad = i;
	tap_ok(rc == 0 && bad < 0, "3000-token vocab: vocab_id(w_i) = i for all i");
	if (bad >= 0)
		printf("# vocab_id(%s) = %d\n", big[bad], vocab_id(&v, big[bad]));
	tap_ok(!rc && vocab_id(&v, "w3000") == -1, "3000-token vocab: w3000 absent");
	/* a duplicate far apart */
	snprintf(big[2999], 16, "w17");
	vocab_free(&v);
	e.msg[0] = 0;
	tap_ok(vocab_init(&v, (const char *const *)big, N, "big", &e) == -1,
	       "duplicate at ids 17 and 2999 found");
	tap_contains(e.msg, "17 and 2999", "  message gives both ids");
	for (int i = 0; i < N; i++)
		free(big[i]);
	free(big);
}

static void test_vocab_load(void)
{
	char dir[] = "/tmp/attnscope-vocab-XXXXXX";
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	char p1[64], p2[64];
	snprintf(p1, sizeof p1, "%s/crlf.txt", dir);
	snprintf(p2, sizeof p2, "%s/empty_line.txt", dir);
	FILE *fp = fopen(p1, "w");
	fputs("<pad>\r\n<s>\r\n</s>\r\n<unk>\r\nol\xc3\xa1\r\nfim", fp);
	fclose(fp);
	fp = fopen(p2, "w");
	fputs("<pad>\n<s>\n\n</s>\n", fp);
	fclose(fp);
	struct vocab v;
	struct err e = { "" };
	int rc = vocab_load(&v, p1, &e);
	tap_ok(rc == 0 && v.n == 6, "vocab_load: 6 lines, CRLF, no final newline (n=%d)",
	       rc ? -1 : v.n);
	if (!rc) {
		tap_ok(vocab_id(&v, "ol\xc3\xa1") == 4 && vocab_id(&v, "fim") == 5,
		       "vocab_load: \\r dropped, id = line number from 0");
		vocab_free(&v);
	}
	e.msg[0] = 0;
	tap_ok(vocab_load(&v, p2, &e) == -1, "vocab_load refuses an empty line");
	char want[80];
	snprintf(want, sizeof want, "%s:3:", p2);
	tap_contains(e.msg, want, "  message names file:line 3");
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}

static void test_word(void)
{
	struct tokenizer_cfg c = { .type = TOKENIZE_WORD, .lowercase = 1 };
	expect_tokens(&c, "hello, world!", TOKS("hello", ",", "world", "!"), 0,
		      "punctuation split off");
	expect_tokens(&c, "Hello World", TOKS("hello", "world"), 0, "ASCII lowercased");
	/* É C3 89 -> é C3 A9; Ç C3 87 -> ç C3 A7; Ã C3 83 -> ã C3 A3 */
	expect_tokens(&c, "\xc3\x89" "LAN \xc3\x87" "A \xc3\x83O",
		      TOKS("\xc3\xa9lan", "\xc3\xa7" "a", "\xc3\xa3o"), 0,
		      "Latin-1 capitals lowercased (\xc3\x89 \xc3\x87 \xc3\x83)");
	/* Latin Extended-A: Ł U+0141 -> ł U+0142, Ő U+0150 -> ő U+0151,
	 * Ž U+017D -> ž U+017E, and Ÿ U+0178 -> ÿ U+00FF (not U+0179 Ź) */
	expect_tokens(&c, "\xc5\x81\xc5\x90\xc5\xbd",
		      TOKS("\xc5\x82\xc5\x91\xc5\xbe"), 0,
		      "Latin Extended-A capitals lowercased (\xc5\x81 \xc5\x90 \xc5\xbd)");
	expect_tokens(&c, "\xc5\xb8", TOKS("\xc3\xbf"), 0,
		      "\xc5\xb8 (U+0178) lowercases to \xc3\xbf (U+00FF)");
	/* você é adorável: ê C3 AA, é C3 A9, á C3 A1 */
	expect_tokens(&c, "voc\xc3\xaa \xc3\xa9 ador\xc3\xa1vel",
		      TOKS("voc\xc3\xaa", "\xc3\xa9", "ador\xc3\xa1vel"), 0,
		      "UTF-8 words kept whole");
	expect_tokens(&c, "  a \t b\n\nc  ", TOKS("a", "b", "c"), 0, "white space runs");
	expect_tokens(&c, "", NULL, 0, 0, "empty text: no tokens");
	expect_tokens(&c, " \t\n", NULL, 0, 0, "only white space: no tokens");
	expect_tokens(&c, "don't (stop)...", TOKS("don", "'", "t", "(", "stop", ")", ".",
						  ".", "."), 0, "every punctuation mark a token");
	expect_tokens(&c, "My T-shirt, guarda-chuva!", TOKS("my", "t-shirt", ",", "guarda-chuva",
							   "!"), 0,
		      "a hyphen between two letters stays in its word");
	expect_tokens(&c, "3-2 a - b -x y- x--y", TOKS("3", "-", "2", "a", "-", "b", "-", "x", "y",
						      "-", "x", "-", "-", "y"), 0,
		      "any other hyphen is a token: by digits, spaces, ends, doubled");
	expect_tokens(&c, "bem-\xc3\xa9 \xc3\xa9-bem", TOKS("bem-\xc3\xa9", "\xc3\xa9-bem"), 0,
		      "a letter beyond ASCII on either side joins too");
	/* ¿ C2 BF and « C2 AB » C2 BB are punctuation too */
	expect_tokens(&c, "\xc2\xbfqu\xc3\xa9? \xc2\xab" "a\xc2\xbb",
		      TOKS("\xc2\xbf", "qu\xc3\xa9", "?", "\xc2\xab", "a", "\xc2\xbb"), 0,
		      "Spanish/Portuguese punctuation");
	expect_tokens(&c, "a\xff" "b c", TOKS("a" FFFD "b", "c"), 1,
		      "invalid byte FF becomes U+FFFD inside the word");
	expect_tokens(&c, "x \xc3", TOKS("x", FFFD), 1, "truncated sequence at the end");
	expect_tokens(&c, "\xc0\xaf", TOKS(FFFD FFFD), 2, "overlong C0 AF: two bad bytes");
	expect_tokens(&c, "\xed\xa0\x80", TOKS(FFFD FFFD FFFD), 3,
		      "UTF-16 surrogate D800: three bad bytes");
	expect_tokens(&c, "ok " FFFD, TOKS("ok", FFFD), 0,
		      "a real U+FFFD in the text is not counted as invalid");

	struct tokenizer_cfg keep = { .type = TOKENIZE_WORD, .lowercase = 0 };
	expect_tokens(&keep, "Hello \xc3\x89" "cole", TOKS("Hello", "\xc3\x89" "cole"), 0,
		      "lowercase: false keeps case");

	char *long_word = malloc(400);
	memset(long_word, 'a', 399);
	long_word[399] = 0;
	char **got = NULL;
	struct err e = { "" };
	int n = tokenize(&c, long_word, &got, NULL, &e);
	tap_ok(n == -1, "a 399-byte word is refused");
	tap_contains(e.msg, "longer than", "  message says too long");
	if (n > 0)
		tokens_free(got, n);
	free(long_word);
}

static void test_char(void)
{
	struct tokenizer_cfg c = { .type = TOKENIZE_CHAR, .lowercase = 1 };
	expect_tokens(&c, "ab", TOKS("a", "b"), 0, "char: one token per letter");
	expect_tokens(&c, "ab  c", TOKS("a", "b", " ", "c"), 0,
		      "char: a run of spaces is one \" \"");
	expect_tokens(&c, "a \t\n b", TOKS("a", " ", "b"), 0,
		      "char: mixed white space run is one \" \"");
	expect_tokens(&c, "A\xc3\x89!", TOKS("a", "\xc3\xa9", "!"), 0,
		      "char: code points, lowercased (\xc3\x89 -> \xc3\xa9)");
	/* 😀 U+1F600 = F0 9F 98 80 */
	expect_tokens(&c, "\xf0\x9f\x98\x80x", TOKS("\xf0\x9f\x98\x80", "x"), 0,
		      "char: a 4-byte code point is one token");
	expect_tokens(&c, "a\xffz", TOKS("a", FFFD, "z"), 1, "char: invalid byte -> U+FFFD");
	expect_tokens(&c, "", NULL, 0, 0, "char: empty text");
}

int main(void)
{
	test_vocab_table();
	test_vocab_load();
	test_word();
	test_char();
	return tap_done();
}
