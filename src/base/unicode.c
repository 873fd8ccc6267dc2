/* unicode.c - lookups in the generated Unicode tables (unicode_tab.h). */
#include "unicode.h"

struct uni_range { uint32_t first, last; int value; };
struct uni_map { uint32_t cp; int off, n; };

#include "unicode_tab.h"

#define NELEM(a) (sizeof (a) / sizeof (a)[0])

/* The value of the range holding cp in r[n] (sorted), or 0. */
static int range_value(const struct uni_range *r, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < r[mid].first)
			hi = mid;
		else if (cp > r[mid].last)
			lo = mid + 1;
		else
			return r[mid].value;
	}
	return 0;
}

static const struct uni_map *map_find(const struct uni_map *m, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < m[mid].cp)
			hi = mid;
		else if (cp > m[mid].cp)
			lo = mid + 1;
		else
			return &m[mid];
	}
	return NULL;
}

unsigned uni_flags(uint32_t cp)
{
	return (unsigned)range_value(UNI_FLAGS, NELEM(UNI_FLAGS), cp);
}

int uni_ccc(uint32_t cp)
{
	return cp < 0x300 ? 0 : range_value(UNI_CCC, NELEM(UNI_CCC), cp);
}

int uni_decompose(uint32_t cp, uint32_t *out)
{
	/* Hangul syllables: L V (T), Unicode 3.12 */
	enum { SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7,
	       VCOUNT = 21, TCOUNT = 28, NCOUNT = VCOUNT * TCOUNT, SCOUNT = 19 * NCOUNT };
	if (cp >= SBASE && cp < SBASE + SCOUNT) {
		uint32_t s = cp - SBASE;
		out[0] = LBASE + s / NCOUNT;
		out[1] = VBASE + (s % NCOUNT) / TCOUNT;
		if (s % TCOUNT == 0)
			return 2;
		out[2] = TBASE + s % TCOUNT;
		return 3;
	}
	const struct uni_map *m = cp < 0xC0 ? NULL : map_find(UNI_NFD, NELEM(UNI_NFD), cp);
	if (!m || m->n > UNI_MAX_DECOMP) {
		out[0] = cp;
		return 1;
	}
	for (int i = 0; i < m->n; i++)
		out[i] = UNI_NFD_POOL[m->off + i];
	return m->n;
}

int uni_lower(uint32_t cp, uint32_t *out)
{
	if (cp < 0x80) {
		out[0] = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
		return 1;
	}
	const struct uni_map *m = map_find(UNI_LOWER, NELEM(UNI_LOWER), cp);
	if (!m || m->n > UNI_MAX_LOWER) {
		out[0] = cp;
		return 1;
	}
	for (int i = 0; i < m->n; i++)
		out[i] = UNI_LOWER_POOL[m->off + i];
	return m->n;
}

const char *uni_version(void)
{
	return UNI_VERSION;
}
