/* losscurve.c - the loss over the training snapshots as braille dots
 * (losscurve.h).  Display only: the losses are the figures train wrote. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "losscurve.h"
#include "base/utf8.h"

/* The braille dot bits of dot row r (0 top … 3 bottom) in the left and
 * the right column of a character (U+2800 + bits). */
static const unsigned LEFT[4] = { 0x01, 0x02, 0x04, 0x40 };
static const unsigned RIGHT[4] = { 0x08, 0x10, 0x20, 0x80 };

/* The dot row of loss x between lo (row 3) and hi (row 0). */
static int level(double x, double lo, double hi)
{
	if (!(hi > lo))
		return 3;
	int r = 3 - (int)floor((x - lo) / (hi - lo) * 3 + 0.5);
	return r < 0 ? 0 : r > 3 ? 3 : r;
}

int losscurve_text(const struct snapshot *s, int n, int mark, char *out,
		   size_t outsz, int *cells_bytes)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < n; i++)
		if (!isnan(s[i].loss)) {
			lo = s[i].loss < lo ? s[i].loss : lo;
			hi = s[i].loss > hi ? s[i].loss : hi;
		}
	size_t used = 0;
	if (outsz)
		out[0] = 0;
	for (int i = 0; i < n; i++) {
		unsigned bits = 0;
		if (!isnan(s[i].loss)) {
			bits |= LEFT[level(s[i].loss, lo, hi)];
			double nx = i + 1 < n && !isnan(s[i + 1].loss) ? s[i + 1].loss : NAN;
			if (!isnan(nx))
				bits |= RIGHT[level((s[i].loss + nx) / 2, lo, hi)];
		}
		if (i == mark)   /* a bar through the curve: seen without colour */
			bits |= LEFT[0] | LEFT[1] | LEFT[2] | LEFT[3];
		char ch[8];
		int k = utf8_encode(0x2800 + bits, ch);
		if (cells_bytes)
			cells_bytes[i] = (int)used;
		if (used + (size_t)k + 1 > outsz)
			return i;
		memcpy(out + used, ch, (size_t)k);
		used += (size_t)k;
		out[used] = 0;
	}
	if (cells_bytes)
		cells_bytes[n] = (int)used;
	return n;
}
