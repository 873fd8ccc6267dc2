/* corpus.h - parallel corpora: the TSV format, its reader and writer, and
 * the vocabularies made from them.  (Expanding a grammar into a corpus is
 * corpus/corpus_gen.h.)
 *
 * TSV format, one pair a line (UTF-8, '\n', a trailing '\r' is dropped):
 *
 *     english<TAB>portuguese<TAB>alignment
 *
 * Sentences are words separated by single spaces (lower case in generated
 * corpora; a punctuation mark . , ? ! : ; is a word of its own).  The alignment is a space-separated
 * list of "i-j" pairs: English word i is aligned with Portuguese word j,
 * both 0-based; a word may be aligned with several ("very much" -> "muito"
 * is "3-3 4-3" in "i love you very much").  The third column may be absent
 * (no alignment) or empty (nothing aligned).  Blank lines are ignored.
 *
 * Vocabulary files: one token a line; <pad>, <s>, </s>, <unk> first (ids
 * 0-3, DESIGN.md), then the corpus tokens by descending count, ties in
 * byte order (strcmp: no locale). */
#ifndef ATTNSCOPE_CORPUS_H
#define ATTNSCOPE_CORPUS_H

#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct corpus_pair {
	char *src, *tgt;          /* the sentences (owned) */
	int nsrc, ntgt;           /* their words (split at white space) */
	int32_t *align;           /* [nalign][2]: (i, j) pairs, or NULL (owned) */
	int nalign;               /* -1: the line had no alignment column */
	int line;                 /* line in the file it was read from, or 0 */
};

/* Kinds of bad lines corpus_read skips. */
enum corpus_bad { CORPUS_NO_TAB, CORPUS_EMPTY_SIDE, CORPUS_BAD_ALIGN, CORPUS_CONTROL,
		  CORPUS_NBAD };
#define CORPUS_FIRST_BAD 5    /* bad line numbers remembered per kind */

struct corpus {
	struct corpus_pair *pairs;
	int n, cap;
	int lines;                /* lines read (corpus_read) */
	int nbad[CORPUS_NBAD];    /* lines skipped, per kind */
	int bad_line[CORPUS_NBAD][CORPUS_FIRST_BAD];   /* the first of them */
};

/* Reads a TSV corpus into c (initialised here).  Lines without a tab, with
 * an empty side, with a control character other than TAB (NUL, a CR that
 * does not end the line, ESC, DEL...: text that would not read back the
 * same), or with a malformed alignment (not "i-j", or an index out
 * of range for its sentence) are skipped, counted in c->nbad with their
 * first line numbers, and reported as one warning per kind on stderr.
 * Returns 0, or -1 (e filled) when the file cannot be read or has no
 * usable pair.  Free c with corpus_free, also after an error. */
int corpus_read(const char *path, struct corpus *c, struct err *e);
void corpus_free(struct corpus *c);

/* Appends a pair (copied).  align is an alignment string as in the TSV,
 * or NULL.  Returns 0, or -1 on a malformed alignment or out of memory. */
int corpus_add(struct corpus *c, const char *src, const char *tgt,
	       const char *align, struct err *e);

/* Appends a copy of pair i (its sentences and alignment). */
int corpus_repeat(struct corpus *c, int i, struct err *e);

/* Writes c in the TSV format (to path through safefile, or to f). */
int corpus_write_tsv(const struct corpus *c, const char *path, struct err *e);
void corpus_print_tsv(const struct corpus *c, FILE *f);

/* Writes the vocabulary of one side (0 source, 1 target) of c; *ntok, if
 * given, receives the number of lines written (specials included). */
int corpus_write_vocab(const struct corpus *c, int side, const char *path,
		       int *ntok, struct err *e);
/* The same to f; -1 with e set only when out of memory. */
int corpus_print_vocab(const struct corpus *c, int side, FILE *f, int *ntok, struct err *e);

#endif
