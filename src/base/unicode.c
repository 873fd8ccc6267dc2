/* unicode.c - lookups in the generated Unicode tables (unicode_tab.h). */
#include "unicode.h"

struct uni_range { uint32_t first, last; int value; };
struct uni_map { uint32_t cp; int off, n; };
struct uni_pair { uint32_t a, b, c; };

#include "unicode_tab.h"

/* Hangul syllables: L V (T), Unicode 3.12 */
enum { SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7, LCOUNT = 19,
       VCOUNT = 21, TCOUNT = 28, NCOUNT = VCOUNT * TCOUNT, SCOUNT = LCOUNT * NCOUNT };

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

uint32_t uni_compose(uint32_t a, uint32_t b)
{
	if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
		return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
	if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 && b > TBASE &&
	    b < TBASE + TCOUNT)
		return a + (b - TBASE);
	size_t lo = 0, hi = NELEM(UNI_COMPOSE);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct uni_pair *p = &UNI_COMPOSE[mid];
		if (a < p->a || (a == p->a && b < p->b))
			hi = mid;
		else if (a > p->a || b > p->b)
			lo = mid + 1;
		else
			return p->c;
	}
	return 0;
}

/* Sorts the marks c[0..n) by combining class, stably (canonical
 * ordering): insertion for a few, else by counting, so that a hostile run
 * of 100,000 marks costs linear time.  tmp has room for n. */
static void order_marks(uint32_t *c, size_t n, uint32_t *tmp)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = c[i];
			int k = uni_ccc(x);
			size_t j = i;
			for (; j > 0 && uni_ccc(c[j - 1]) > k; j--)
				c[j] = c[j - 1];
			c[j] = x;
		}
		return;
	}
	size_t count[257] = { 0 };
	for (size_t i = 0; i < n; i++)
		count[uni_ccc(c[i]) + 1]++;
	for (int k = 1; k < 257; k++)
		count[k] += count[k - 1];
	for (size_t i = 0; i < n; i++)
		tmp[count[uni_ccc(c[i])]++] = c[i];
	for (size_t i = 0; i < n; i++)
		c[i] = tmp[i];
}

size_t uni_nfd(const uint32_t *in, size_t n, uint32_t *out, uint32_t *tmp)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += (size_t)uni_decompose(in[i], out + m);
	/* canonical ordering of each run of marks */
	for (size_t i = 0; i < m;) {
		if (!uni_ccc(out[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < m && uni_ccc(out[j]))
			j++;
		if (j - i > 1)
			order_marks(out + i, j - i, tmp);
		i = j;
	}
	return m;
}

size_t uni_nfc(const uint32_t *in, size_t n, uint32_t *out, uint32_t *tmp)
{
	size_t m = uni_nfd(in, n, out, tmp);
	/* canonical composition (Unicode 3.11) */
	if (!m)
		return 0;
	size_t w = 1, starter = 0;
	int last = uni_ccc(out[0]) ? 256 : 0;
	for (size_t r = 1; r < m; r++) {
		uint32_t ch = out[r], comp;
		int cc = uni_ccc(ch);
		if ((last < cc || last == 0) && last != 256 &&
		    (comp = uni_compose(out[starter], ch))) {
			out[starter] = comp;
			continue;
		}
		if (cc == 0) {
			starter = w;
			last = 0;
		} else {
			last = cc;
		}
		out[w++] = ch;
	}
	return w;
}

const char *uni_version(void)
{
	return UNI_VERSION;
}
