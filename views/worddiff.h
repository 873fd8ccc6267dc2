/* worddiff.h - two token sequences aligned as a diff of words: the
 * shortest edit script (same, substituted, inserted, deleted) with as many
 * tokens kept as possible, for the compare page (views/compare.c). */
#ifndef ATTNSCOPE_WORDDIFF_H
#define ATTNSCOPE_WORDDIFF_H

#include <stdint.h>

enum wd_kind { WD_SAME, WD_SUB, WD_DEL, WD_INS };

/* One row of the alignment: a position of a (−1 for an insertion) and of
 * b (−1 for a deletion). */
struct wd_op {
	enum wd_kind kind;
	int ia, ib;
};

/* Aligns a[na] with b[nb] into ops (room for na + nb rows): fewest edits
 * (a substitution counts as one), and among those the most tokens the
 * same.  Returns the number of rows, or -1 on out-of-memory. */
int worddiff_run(const int32_t *a, int na, const int32_t *b, int nb, struct wd_op *ops);

#endif
