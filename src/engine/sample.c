/* sample.c - temperature, top-k, top-p and SplitMix64 (sample.h).
 *
 * Dimension names: V target vocabulary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

void sample_opts_default(struct sample_opts *o)
{
	o->temperature = 1.0;
	o->top_k = 0;
	o->top_p = 1.0;
	o->seed = 0;
}

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* qsort has no context argument: the key array of the sort in progress
 * (the engine sorts one step at a time, from one thread). */
static const double *sort_key;

static int by_prob(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	if (sort_key[i] != sort_key[j])
		return sort_key[i] < sort_key[j] ? 1 : -1;
	return i - j;
}

int sample_filter(const float *logp, int V, const int *skip, int nskip,
		  const struct sample_opts *o, double *pt, double *pc, int *order,
		  int *nallowed)
{
	/* pc serves as the "allowed" mark until step 5 */
	for (int j = 0; j < V; j++)
		pc[j] = 1.0;
	for (int s = 0; s < nskip; s++)
		if (skip[s] >= 0 && skip[s] < V)
			pc[skip[s]] = 0.0;
	int n = 0, best = -1;
	for (int j = 0; j < V; j++)
		if (pc[j] > 0) {
			order[n++] = j;
			if (best < 0 || logp[j] > logp[best])
				best = j;
		}
	*nallowed = n;
	if (n == 0) {
		memset(pt, 0, (size_t)V * sizeof *pt);
		return 0;
	}
	/* 2. temperature (in double, from the largest: no overflow) */
	const double T = o->temperature;
	for (int j = 0; j < V; j++)
		pt[j] = 0.0;
	if (!(T > 0)) {
		pt[best] = 1.0;
	} else {
		double mx = logp[best], z = 0;
		for (int k = 0; k < n; k++) {
			int j = order[k];
			pt[j] = exp(((double)logp[j] - mx) / T);
			z += pt[j];
		}
		for (int k = 0; k < n; k++)
			pt[order[k]] /= z;
	}
	/* most probable first; the log p decide where p_T underflows to 0 */
	double *key = malloc((size_t)V * sizeof *key);
	for (int k = 0; k < n; k++)
		if (key)
			key[order[k]] = T > 0 ? (double)logp[order[k]] : pt[order[k]];
	sort_key = key ? key : pt;
	qsort(order, (size_t)n, sizeof *order, by_prob);
	free(key);
	/* T = 0: the arg-max first whatever the sort made of the zeros */
	if (!(T > 0))
		for (int k = 0; k < n; k++)
			if (order[k] == best) {
				memmove(order + 1, order, (size_t)k * sizeof *order);
				order[0] = best;
				break;
			}
	/* 3. top-k */
	int kept = o->top_k > 0 && o->top_k < n ? o->top_k : n;
	/* 4. top-p over the top-k set, renormalised */
	double zk = 0;
	for (int k = 0; k < kept; k++)
		zk += pt[order[k]];
	if (o->top_p < 1.0 && zk > 0) {
		double cum = 0;
		int k = 0;
		while (k < kept) {
			cum += pt[order[k++]] / zk;
			if (cum >= o->top_p - 1e-9)
				break;
		}
		kept = k;
	}
	/* a token whose p_T is 0 (T = 0, or underflow) cannot be drawn */
	while (kept > 1 && !(pt[order[kept - 1]] > 0))
		kept--;
	/* 5. renormalise the kept set */
	double zc = 0;
	for (int k = 0; k < kept; k++)
		zc += pt[order[k]];
	for (int j = 0; j < V; j++)
		pc[j] = 0.0;
	for (int k = 0; k < kept; k++)
		pc[order[k]] = zc > 0 ? pt[order[k]] / zc : k == 0;
	return kept;
}

int sample_draw(const double *pc, const int *order, int nkept, double u)
{
	double cum = 0;
	for (int k = 0; k < nkept; k++) {
		cum += pc[order[k]];
		if (u < cum)
			return order[k];
	}
	return order[nkept > 0 ? nkept - 1 : 0];
}
