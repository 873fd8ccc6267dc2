/* grammar_rng.c - the corpus generator's random numbers: xoshiro256**
 * seeded by splitmix64, the same sequence on every machine for a seed. */
#include <stdint.h>

#include "grammar.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void gr_rng_seed(struct gr_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t gr_rng_next(struct gr_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint32_t gr_rng_below(struct gr_rng *r, uint32_t n)
{
	/* reject the top partial block so every value is equally likely */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = gr_rng_next(r);
	while (x >= lim);
	return (uint32_t)(x % n);
}

