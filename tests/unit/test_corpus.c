/* test_corpus.c - the TSV corpus reader: good lines load with their
 * alignments; lines without a tab, with an empty side or with a malformed
 * alignment are skipped, counted and their first line numbers kept; the
 * writer round-trips; vocabularies are ordered by count, then bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "formats/corpus.h"

static char dir[256];

/* Writes text to dir/name and returns the path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		printf("# cannot write %s\n", path);
		return path;
	}
	fputs(text, f);
	fclose(f);
	return path;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

static int align_is(const struct corpus_pair *p, const int *want, int n)
{
	if (p->nalign != n)
		return 0;
	for (int i = 0; i < 2 * n; i++)
		if (p->align[i] != want[i])
			return 0;
	return 1;
}

static void test_bad_lines(void)
{
	const char *text =
		"the cat\to gato\t0-0 1-1\n"                       /*  1 good */
		"no tab here\n"                                    /*  2 no tab */
		"\n"                                               /*  3 blank */
		"the dog\to cachorro\n"                            /*  4 good, no alignment */
		" \to gato\t\n"                                    /*  5 empty side */
		"a cat\tum gato\t0-0 1-x\n"                        /*  6 bad alignment */
		"a cat\tum gato\t0-0 2-1\n"                        /*  7 i out of range */
		"a cat\tum gato\t0-0 1-2\n"                        /*  8 j out of range */
		"i love you very much\teu te amo muito\t0-0 1-2 2-1 3-3 4-3\r\n" /* 9 CRLF */
		"x\t\t\n"                                          /* 10 empty side */
		"a\tb\t0-0\textra\n"                               /* 11 a fourth column */
		"one more without a tab\n"                         /* 12 no tab */
		"a cat\tum gato\t\n"                               /* 13 good, nothing aligned */
		"a cat\tum gato\t0--1\n"                           /* 14 bad alignment */
		"a cat\tum gato\t-0-1\n"                           /* 15 bad alignment */
		"in the house\tna casa\t0-0 1-0 2-1";              /* 16 good, no final newline */
	const char *path = write_file("bad.tsv", text);
	struct corpus c;
	struct err e = { "" };
	int rc = corpus_read(path, &c, &e);
	tap_ok(rc == 0, "corpus_read skips bad lines instead of failing%s%s",
	       rc ? ": " : "", rc ? e.msg : "");
	tap_ok(c.n == 5, "5 good pairs kept (got %d)", c.n);
	tap_ok(c.lines == 16, "16 lines read (got %d)", c.lines);
	tap_ok(c.nbad[CORPUS_NO_TAB] == 2 && c.bad_line[CORPUS_NO_TAB][0] == 2 &&
	       c.bad_line[CORPUS_NO_TAB][1] == 12,
	       "lines without a tab: 2, at lines 2 and 12 (got %d: %d %d)",
	       c.nbad[CORPUS_NO_TAB], c.bad_line[CORPUS_NO_TAB][0],
	       c.bad_line[CORPUS_NO_TAB][1]);
	tap_ok(c.nbad[CORPUS_EMPTY_SIDE] == 2 && c.bad_line[CORPUS_EMPTY_SIDE][0] == 5 &&
	       c.bad_line[CORPUS_EMPTY_SIDE][1] == 10,
	       "lines with an empty side: 2, at lines 5 and 10 (got %d: %d %d)",
	       c.nbad[CORPUS_EMPTY_SIDE], c.bad_line[CORPUS_EMPTY_SIDE][0],
	       c.bad_line[CORPUS_EMPTY_SIDE][1]);
	const int want_bad[CORPUS_FIRST_BAD] = { 6, 7, 8, 11, 14 };
	int ok = c.nbad[CORPUS_BAD_ALIGN] == 6;
	for (int i = 0; i < CORPUS_FIRST_BAD; i++)
		ok = ok && c.bad_line[CORPUS_BAD_ALIGN][i] == want_bad[i];
	tap_ok(ok, "malformed alignments: 6, the first five at lines 6 7 8 11 14 "
	       "(got %d: %d %d %d %d %d)", c.nbad[CORPUS_BAD_ALIGN],
	       c.bad_line[CORPUS_BAD_ALIGN][0], c.bad_line[CORPUS_BAD_ALIGN][1],
	       c.bad_line[CORPUS_BAD_ALIGN][2], c.bad_line[CORPUS_BAD_ALIGN][3],
	       c.bad_line[CORPUS_BAD_ALIGN][4]);
	if (c.n == 5) {
		const struct corpus_pair *p = c.pairs;
		tap_str(p[0].src, "the cat", "pair 1 English");
		tap_str(p[0].tgt, "o gato", "pair 1 Portuguese");
		tap_ok(align_is(&p[0], (const int[]){ 0, 0, 1, 1 }, 2) && p[0].line == 1,
		       "pair 1: alignment 0-0 1-1, line 1");
		tap_ok(p[1].nalign == -1 && p[1].align == NULL && p[1].line == 4,
		       "pair 2 (line 4): no alignment column gives nalign -1");
		tap_str(p[2].tgt, "eu te amo muito", "CRLF: the \\r is dropped");
		tap_ok(align_is(&p[2], (const int[]){ 0, 0, 1, 2, 2, 1, 3, 3, 4, 3 }, 5),
		       "pair 3: 'very much' -> 'muito' is 3-3 4-3");
		tap_ok(p[2].nsrc == 5 && p[2].ntgt == 4, "pair 3: 5 and 4 words (got %d, %d)",
		       p[2].nsrc, p[2].ntgt);
		tap_ok(p[3].nalign == 0 && p[3].line == 13,
		       "pair 4 (line 13): an empty alignment column gives nalign 0");
		tap_ok(align_is(&p[4], (const int[]){ 0, 0, 1, 0, 2, 1 }, 3) && p[4].line == 16,
		       "pair 5: contraction 'in the' -> 'na' is 0-0 1-0; no final newline");
	}

	/* round trip through the writer */
	char out[512];
	snprintf(out, sizeof out, "%s/out.tsv", dir);
	tap_ok(corpus_write_tsv(&c, out, &e) == 0, "corpus_write_tsv");
	char *got = read_all(out);
	tap_str(got, "the cat\to gato\t0-0 1-1\n"
		"the dog\to cachorro\n"
		"i love you very much\teu te amo muito\t0-0 1-2 2-1 3-3 4-3\n"
		"a cat\tum gato\t\n"
		"in the house\tna casa\t0-0 1-0 2-1\n", "written TSV keeps the kept lines");
	free(got);
	corpus_free(&c);
}

static void test_many_bad(void)
{
	const char *path = write_file("many.tsv",
		"a\n" "b\n" "c\n" "ok\tok\t0-0\n" "d\n" "e\n" "f\n" "g\n");
	struct corpus c;
	struct err e = { "" };
	int rc = corpus_read(path, &c, &e);
	tap_ok(rc == 0 && c.n == 1 && c.nbad[CORPUS_NO_TAB] == 7,
	       "7 lines without a tab are all counted (got %d)", c.nbad[CORPUS_NO_TAB]);
	tap_ok(c.bad_line[CORPUS_NO_TAB][0] == 1 && c.bad_line[CORPUS_NO_TAB][3] == 5 &&
	       c.bad_line[CORPUS_NO_TAB][4] == 6,
	       "only the first %d line numbers are kept: 1 2 3 5 6", CORPUS_FIRST_BAD);
	corpus_free(&c);
}

/* A control character other than TAB makes a line bad: a CR that does not
 * end the line, a NUL, an ESC.  (Found by fuzz_corpus: "o gato\r\r\n" kept
 * "o gato\r", which the written corpus read back as "o gato".) */
static void test_control(void)
{
	static const char text[] =
		"the cat\to gato\r\r\n"                         /* 1 CR inside */
		"the dog\to cachorro\r\n"                        /* 2 good (CRLF) */
		"a \033[31mred\033[0m cat\tum gato\n"               /* 3 ESC */
		"a cat\tum g\0ato\n"                             /* 4 NUL */
		"a\x7f cat\tum gato\t0-0\n";                     /* 5 DEL */
	char p[512];
	snprintf(p, sizeof p, "%s/control.tsv", dir);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(text, 1, sizeof text - 1, f) != sizeof text - 1 || fclose(f)) {
		tap_ok(0, "write %s", p);
		return;
	}
	struct corpus c;
	struct err e = { "" };
	int rc = corpus_read(p, &c, &e);
	tap_ok(rc == 0 && c.n == 1 && !strcmp(c.pairs[0].tgt, "o cachorro"),
	       "only the CRLF line is kept (got %d pairs)", c.n);
	tap_ok(c.nbad[CORPUS_CONTROL] == 4 && c.bad_line[CORPUS_CONTROL][0] == 1 &&
	       c.bad_line[CORPUS_CONTROL][1] == 3 && c.bad_line[CORPUS_CONTROL][2] == 4 &&
	       c.bad_line[CORPUS_CONTROL][3] == 5,
	       "lines with a control character: 4, at lines 1 3 4 5 (got %d)",
	       c.nbad[CORPUS_CONTROL]);
	corpus_free(&c);
	unlink(p);
}

static void test_errors(void)
{
	struct corpus c;
	struct err e = { "" };
	const char *path = write_file("nothing.tsv", "no tab\n\nstill none\n");
	int rc = corpus_read(path, &c, &e);
	tap_ok(rc == -1, "a file without one usable pair is an error");
	tap_contains(e.msg, "nothing.tsv", "the message names the file");
	tap_contains(e.msg, "no sentence pairs", "... and says why");
	corpus_free(&c);

	snprintf(e.msg, sizeof e.msg, "%s", "");
	char missing[512];
	snprintf(missing, sizeof missing, "%s/absent.tsv", dir);
	rc = corpus_read(missing, &c, &e);
	tap_ok(rc == -1, "a missing file is an error");
	tap_contains(e.msg, "absent.tsv", "the message names the missing file");
	corpus_free(&c);

	memset(&c, 0, sizeof c);
	tap_ok(corpus_add(&c, "a b", "c", "0-0 1-0", &e) == 0 && c.n == 1,
	       "corpus_add of a good pair");
	tap_ok(corpus_add(&c, "a b", "c", "0-1", &e) == -1 && c.n == 1,
	       "corpus_add refuses an index out of range");
	tap_ok(corpus_add(&c, "", "c", NULL, &e) == -1, "corpus_add refuses an empty side");
	corpus_free(&c);
}

static void test_vocab(void)
{
	struct corpus c;
	struct err e = { "" };
	memset(&c, 0, sizeof c);
	corpus_add(&c, "b a b", "x y", NULL, &e);
	corpus_add(&c, "c b a", "y <unk> z", NULL, &e);
	corpus_add(&c, "d", "\xc3\xa9 y", NULL, &e);
	char path[512];
	int n = 0;
	snprintf(path, sizeof path, "%s/src.txt", dir);
	int rc = corpus_write_vocab(&c, 0, path, &n, &e);
	tap_ok(rc == 0 && n == 8, "source vocabulary: 4 specials + 4 words (got %d)", n);
	char *got = read_all(path);
	tap_str(got, "<pad>\n<s>\n</s>\n<unk>\nb\na\nc\nd\n",
		"specials first, then by count, ties in byte order");
	free(got);
	snprintf(path, sizeof path, "%s/tgt.txt", dir);
	rc = corpus_write_vocab(&c, 1, path, &n, &e);
	tap_ok(rc == 0 && n == 8,
	       "target vocabulary: a special in the data is not repeated (got %d)", n);
	got = read_all(path);
	tap_str(got, "<pad>\n<s>\n</s>\n<unk>\ny\nx\nz\n\xc3\xa9\n",
		"UTF-8 words sort by bytes, after ASCII");
	free(got);
	corpus_free(&c);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/attnscope-corpus.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	test_bad_lines();
	test_many_bad();
	test_control();
	test_errors();
	test_vocab();
	const char *names[] = { "bad.tsv", "out.tsv", "many.tsv", "nothing.tsv",
				"src.txt", "tgt.txt" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return tap_done();
}
