/* sample.h - drawing the next token: temperature, top-k, top-p, and a
 * seeded pseudo-random generator.
 *
 * One step's sampling distribution is made from the model's log p in this
 * order (the order of Hugging Face's logits warpers):
 *   1. tokens the decoder never emits (<pad>, <s>, </s> before min_len)
 *      get probability 0;
 *   2. temperature T: p_T(j) = exp(log p(j) / T) / Σ_i exp(log p(i) / T);
 *      T = 0 puts all the mass on the arg-max (the lowest id on a tie, as
 *      greedy takes it); T = 1 is the model's own distribution;
 *   3. top-k: only the K most probable tokens stay (K = 0: all);
 *   4. top-p (nucleus): of those, the smallest set of the most probable
 *      whose p_T, renormalised over the top-k set, sums to ≥ P (with a
 *      1e-9 tolerance for rounding); P = 1 keeps the whole set;
 *   5. tokens whose p_T is 0 leave the set (T = 0 keeps the arg-max
 *      alone), and the kept set is renormalised: p_cut(j) = p_T(j) /
 *      Σ_kept p_T.
 * Temperature keeps the order of the tokens, so "most probable" means the
 * same under p, p_T and p_cut: ties go to the lower id.
 *
 * The draw: one uniform u ∈ [0, 1) a step; the token is the first of the
 * kept set (most probable first) at which the running sum of p_cut
 * exceeds u (the last kept one if rounding leaves u beyond the sum).
 *
 * The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014; the seeder of xoshiro):
 *   state += 0x9E3779B97F4A7C15;
 *   z = state; z = (z ^ (z >> 30)) · 0xBF58476D1CE4E5B9;
 *   z = (z ^ (z >> 27)) · 0x94D049BB133111EB;  return z ^ (z >> 31)
 * with the state starting at the seed, and u = (z >> 11) · 2⁻⁵³.  The same
 * seed gives the same draws on every machine.
 *
 * Dimension names: V target vocabulary. */
#ifndef ATTNSCOPE_SAMPLE_H
#define ATTNSCOPE_SAMPLE_H

#include <stdint.h>

struct sample_opts {
	double temperature;   /* ≥ 0; 1: the model's distribution */
	int top_k;            /* 0: no cut */
	double top_p;         /* (0, 1]; 1: no cut */
	uint64_t seed;
};
void sample_opts_default(struct sample_opts *o);

struct rng { uint64_t s; };
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* A uniform number in [0, 1) from the next 53 bits. */
double rng_uniform(struct rng *r);

/* One step's distribution.  logp[V]: the model's log-probabilities;
 * allowed(j) is given as skip[]: nskip token ids that get probability 0
 * (ids outside 0…V−1 are ignored).  Writes pt[V] (after temperature),
 * pc[V] (after the cut, renormalised; 0 outside the kept set) and
 * order[V] (the allowed tokens, most probable first; *nallowed of them).
 * Returns how many tokens the cut keeps (they are order[0 … n−1]), at
 * least 1, or 0 when no token is allowed. */
int sample_filter(const float *logp, int V, const int *skip, int nskip,
		  const struct sample_opts *o, double *pt, double *pc, int *order,
		  int *nallowed);

/* The token drawn by u from the kept set order[0 … nkept) with pc. */
int sample_draw(const double *pc, const int *order, int nkept, double u);

#endif
