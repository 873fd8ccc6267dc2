/* relpos.c - T5's relative position buckets. */
#include <math.h>

#include "relpos.h"

int relpos_bucket(int rel, int bidirectional, int nb, int max_dist)
{
	int ret = 0, n;
	if (bidirectional) {
		nb /= 2;
		ret = rel > 0 ? nb : 0;
		n = rel < 0 ? -rel : rel;
	} else {
		n = rel < 0 ? -rel : 0;
	}
	const int exact = nb / 2;
	if (n < exact)
		return ret + n;
	/* float32 throughout, as torch computes it: the truncation at the
	   bucket edges (n = 16, 32, 64 of the default table) depends on it */
	float f = logf((float)n / (float)exact) / (float)log((double)max_dist / exact) *
		  (float)(nb - exact);
	int large = exact + (int)f;
	return ret + (large < nb - 1 ? large : nb - 1);
}
