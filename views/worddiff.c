/* worddiff.c - the word diff of two outputs (worddiff.h): Levenshtein's
 * table over tokens, each cell the (edits, −same) pair compared in that
 * order, then the path back from the end.
 *
 * Dimension names: na, nb the two lengths; the table is [na+1, nb+1]. */
#include <stdlib.h>

#include "worddiff.h"

int worddiff_run(const int32_t *a, int na, const int32_t *b, int nb, struct wd_op *ops)
{
	const int W = nb + 1;
	int *cost = malloc((size_t)(na + 1) * W * sizeof *cost);   /* edits */
	int *keep = malloc((size_t)(na + 1) * W * sizeof *keep);   /* tokens the same */
	if (!cost || !keep) {
		free(cost);
		free(keep);
		return -1;
	}
#define C(i, j) cost[(size_t)(i) * W + (j)]
#define K(i, j) keep[(size_t)(i) * W + (j)]
	/* better(c1, k1, c2, k2): fewer edits, then more kept */
#define BETTER(c1, k1, c2, k2) ((c1) < (c2) || ((c1) == (c2) && (k1) > (k2)))
	for (int i = 0; i <= na; i++)
		for (int j = 0; j <= nb; j++) {
			if (i == 0 || j == 0) {
				C(i, j) = i + j;
				K(i, j) = 0;
				continue;
			}
			int same = a[i - 1] == b[j - 1];
			int bc = C(i - 1, j - 1) + !same, bk = K(i - 1, j - 1) + same;
			if (BETTER(C(i - 1, j) + 1, K(i - 1, j), bc, bk)) {
				bc = C(i - 1, j) + 1;
				bk = K(i - 1, j);
			}
			if (BETTER(C(i, j - 1) + 1, K(i, j - 1), bc, bk)) {
				bc = C(i, j - 1) + 1;
				bk = K(i, j - 1);
			}
			C(i, j) = bc;
			K(i, j) = bk;
		}
	/* back from the end, preferring the diagonal on ties */
	int n = 0, i = na, j = nb;
	while (i > 0 || j > 0) {
		if (i > 0 && j > 0) {
			int same = a[i - 1] == b[j - 1];
			if (C(i, j) == C(i - 1, j - 1) + !same && K(i, j) == K(i - 1, j - 1) + same) {
				ops[n++] = (struct wd_op){ same ? WD_SAME : WD_SUB, i - 1, j - 1 };
				i--;
				j--;
				continue;
			}
		}
		if (i > 0 && C(i, j) == C(i - 1, j) + 1 && K(i, j) == K(i - 1, j)) {
			ops[n++] = (struct wd_op){ WD_DEL, i - 1, -1 };
			i--;
		} else {
			ops[n++] = (struct wd_op){ WD_INS, -1, j - 1 };
			j--;
		}
	}
#undef C
#undef K
#undef BETTER
	free(cost);
	free(keep);
	for (int k = 0; k < n / 2; k++) {
		struct wd_op t = ops[k];
		ops[k] = ops[n - 1 - k];
		ops[n - 1 - k] = t;
	}
	return n;
}
