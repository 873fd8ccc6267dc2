/* test_sample.c - sampling (src/engine/sample.h) against hand-derived
 * distributions, draw frequencies against the probabilities (a chi-square
 * check over many seeds), and decode_run --sample against greedy.
 *
 * The hand values: p = (0.5, 0.2, 0.15, 0.1, 0.05).
 *   T = 0.5: p² / Σp² = p² / 0.325 → 0.25/0.325 = 0.769231, 0.04/0.325 …
 *   T = 2:   √p / Σ√p (Σ√p = 2.081426) → 0.339718, 0.214856, …
 *   top-k 2: {0.5, 0.2} / 0.7
 *   top-p 0.8: cumulative 0.5, 0.7, 0.85 ≥ 0.8 → three kept, / 0.85
 *   top-p 0.7: 0.5, 0.7 ≥ 0.7 → two kept (equality keeps the set)
 *   top-k 3 then top-p 0.6: renormalised over 0.85: 0.588 < 0.6, then
 *     0.824 ≥ 0.6 → two kept */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "viewtest.h"
#include "engine/decode.h"
#include "engine/sample.h"

#define V 5
static const double P[V] = { 0.5, 0.2, 0.15, 0.1, 0.05 };

static int filt(const struct sample_opts *o, const int *skip, int nskip, double *pt,
		double *pc, int *order, int *nallowed)
{
	float lp[V];
	for (int j = 0; j < V; j++)
		lp[j] = (float)log(P[j]);
	return sample_filter(lp, V, skip, nskip, o, pt, pc, order, nallowed);
}

static int close_d(const double *got, const double *want, int n, double tol)
{
	for (int i = 0; i < n; i++)
		if (!(fabs(got[i] - want[i]) <= tol)) {
			printf("# [%d] got %.9f want %.9f\n", i, got[i], want[i]);
			return 0;
		}
	return 1;
}

static void hand_cases(void)
{
	struct sample_opts o;
	double pt[V], pc[V];
	int order[V], na, n;

	sample_opts_default(&o);
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	tap_ok(n == 5 && na == 5 && close_d(pt, P, V, 1e-6) && close_d(pc, P, V, 1e-6),
	       "T = 1, no cut: the model's distribution, all five kept");
	tap_ok(order[0] == 0 && order[1] == 1 && order[4] == 4, "most probable first");

	o.temperature = 0.5;
	filt(&o, NULL, 0, pt, pc, order, &na);
	const double t05[V] = { 0.25 / 0.325, 0.04 / 0.325, 0.0225 / 0.325, 0.01 / 0.325,
				0.0025 / 0.325 };
	tap_ok(close_d(pt, t05, V, 1e-6), "T = 0.5: p² / Σ p² (sharper)");
	o.temperature = 2;
	filt(&o, NULL, 0, pt, pc, order, &na);
	double s = 0, t2[V];
	for (int j = 0; j < V; j++)
		s += sqrt(P[j]);
	for (int j = 0; j < V; j++)
		t2[j] = sqrt(P[j]) / s;
	tap_ok(close_d(pt, t2, V, 1e-6) && fabs(t2[0] - 0.339718) < 1e-6,
	       "T = 2: √p / Σ √p (flatter)");
	o.temperature = 0;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	const double one[V] = { 1, 0, 0, 0, 0 };
	tap_ok(n == 1 && order[0] == 0 && close_d(pt, one, V, 0) && close_d(pc, one, V, 0),
	       "T = 0: all the mass on the arg-max");

	sample_opts_default(&o);
	o.top_k = 2;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	const double k2[V] = { 0.5 / 0.7, 0.2 / 0.7, 0, 0, 0 };
	tap_ok(n == 2 && close_d(pc, k2, V, 1e-6) && close_d(pt, P, V, 1e-6),
	       "top-k 2: the two most probable, renormalised (p_T unchanged)");
	o.top_k = 0;
	o.top_p = 0.8;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	const double p8[V] = { 0.5 / 0.85, 0.2 / 0.85, 0.15 / 0.85, 0, 0 };
	tap_ok(n == 3 && close_d(pc, p8, V, 1e-6), "top-p 0.8: three tokens (0.85 ≥ 0.8)");
	o.top_p = 0.7;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	tap_ok(n == 2 && close_d(pc, k2, V, 1e-6), "top-p 0.7: two tokens (0.7 reaches 0.7)");
	o.top_p = 0.3;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	tap_ok(n == 1 && close_d(pc, one, V, 0), "top-p 0.3: the arg-max alone");
	o.top_k = 3;
	o.top_p = 0.6;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	tap_ok(n == 2 && close_d(pc, k2, V, 1e-6),
	       "top-k 3 then top-p 0.6 over the renormalised three: two tokens");
	o.top_k = 0;
	o.top_p = 1;
	o.temperature = 0.5;
	o.top_p = 0.8;
	n = filt(&o, NULL, 0, pt, pc, order, &na);
	const double tp[V] = { 0.25 / 0.29, 0.04 / 0.29, 0, 0, 0 };
	tap_ok(n == 2 && close_d(pc, tp, V, 1e-6),
	       "temperature before the cut: T 0.5 then top-p 0.8 keeps 0.769 + 0.123");

	sample_opts_default(&o);
	const int skip[2] = { 0, 7 };   /* 7: outside the vocabulary, ignored */
	n = filt(&o, skip, 2, pt, pc, order, &na);
	const double sk[V] = { 0, 0.4, 0.3, 0.2, 0.1 };
	tap_ok(n == 4 && na == 4 && order[0] == 1 && close_d(pt, sk, V, 1e-6),
	       "a token never emitted gets 0, the rest renormalised (0.2/0.5 …)");

	/* ties: the lower id first, as greedy */
	float lt[4] = { -2.0f, -1.0f, -1.0f, -3.0f };
	sample_opts_default(&o);
	o.temperature = 0;
	int ord[4];
	double a[4], b[4];
	n = sample_filter(lt, 4, NULL, 0, &o, a, b, ord, &na);
	tap_ok(n == 1 && ord[0] == 1 && b[1] == 1, "T = 0 on a tie takes the lower id");
	o.temperature = 1;
	o.top_k = 1;
	n = sample_filter(lt, 4, NULL, 0, &o, a, b, ord, &na);
	tap_ok(n == 1 && ord[0] == 1 && ord[1] == 2, "top-k 1 on a tie keeps the lower id");

	/* the draw walks the kept set, most probable first */
	sample_opts_default(&o);
	filt(&o, NULL, 0, pt, pc, order, &na);
	tap_ok(sample_draw(pc, order, 5, 0.0) == 0 && sample_draw(pc, order, 5, 0.4999) == 0 &&
	       sample_draw(pc, order, 5, 0.5001) == 1 && sample_draw(pc, order, 5, 0.6999) == 1 &&
	       sample_draw(pc, order, 5, 0.7001) == 2 && sample_draw(pc, order, 5, 0.9999) == 4,
	       "u picks the token where the running sum of p passes it");
}

static void prng(void)
{
	/* SplitMix64's reference outputs for seed 0 (Vigna's splitmix64.c) */
	struct rng r;
	rng_seed(&r, 0);
	uint64_t a = rng_next(&r), b = rng_next(&r), c = rng_next(&r);
	tap_ok(a == 0xe220a8397b1dcdafull && b == 0x6e789e6aa1b965f4ull &&
	       c == 0x06c45d188009454full, "SplitMix64 seed 0: e220a839…, 6e789e6a…, 06c45d18…");
	rng_seed(&r, 42);
	double u = rng_uniform(&r);
	tap_ok(u >= 0 && u < 1 && fabs(u - (double)(0xbdd732262feb6e95ull >> 11) * 0x1.0p-53) == 0,
	       "u = (z >> 11) · 2⁻⁵³ (seed 42: %.6f)", u);
}

/* Pearson's χ² of counts against n·p over the categories with n·p ≥ 5
 * (the rest pooled into one); *df gets the degrees of freedom. */
static double chi2(const int *count, const double *p, int k, int n, int *df)
{
	double x = 0, pool_e = 0;
	int pool_c = 0, cats = 0;
	for (int j = 0; j < k; j++) {
		double e = n * p[j];
		if (e >= 5) {
			x += (count[j] - e) * (count[j] - e) / e;
			cats++;
		} else {
			pool_e += e;
			pool_c += count[j];
		}
	}
	if (pool_e >= 1) {
		x += (pool_c - pool_e) * (pool_c - pool_e) / pool_e;
		cats++;
	}
	*df = cats - 1;
	return x;
}

/* χ² critical values at 0.1% (df 1…12) */
static const double CRIT[13] = { 0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32,
				 26.12, 27.88, 29.59, 31.26, 32.91 };

static void frequencies(void)
{
	/* the first draw of seeds 0 … N−1, with and without a cut */
	struct sample_opts o;
	double pt[V], pc[V];
	int order[V], na;
	for (int cut = 0; cut < 2; cut++) {
		sample_opts_default(&o);
		if (cut) {
			o.temperature = 2;
			o.top_p = 0.75;
		}
		int n = filt(&o, NULL, 0, pt, pc, order, &na);
		int count[V] = { 0 }, N = 20000, df;
		for (int seed = 0; seed < N; seed++) {
			struct rng r;
			rng_seed(&r, (uint64_t)seed);
			count[sample_draw(pc, order, n, rng_uniform(&r))]++;
		}
		double x = chi2(count, pc, V, N, &df);
		int outside = 0;
		for (int j = 0; j < V; j++)
			outside += pc[j] == 0 ? count[j] : 0;
		tap_ok(df >= 1 && x < CRIT[df] && outside == 0,
		       "%s: draw frequencies of %d seeds match p_cut (χ² %.2f < %.2f, df %d; "
		       "%d draws outside the cut)", cut ? "T 2, top-p 0.75" : "T 1", N, x,
		       CRIT[df], df, outside);
		printf("# counts %d %d %d %d %d\n", count[0], count[1], count[2], count[3], count[4]);
	}
}

static int run_sample(const struct model *m, const char *s, int sample, double T, int k,
		      double p, uint64_t seed, struct decode_result *r)
{
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct err e;
	pass_opts_default(&po);
	if (input_build(m, s, NULL, &po, &in, &e))
		return -1;
	decode_opts_default(&o);
	o.max_len = 12;
	o.sample = sample;
	o.so.temperature = T;
	o.so.top_k = k;
	o.so.top_p = p;
	o.so.seed = seed;
	int rc = decode_run(m, &in, &po, &o, r, &e);
	if (rc)
		printf("# decode: %s\n", e.msg);
	input_free(&in);
	return rc;
}

static int same_result(const struct decode_result *a, const struct decode_result *b)
{
	return a->nbest == b->nbest && !memcmp(a->best, b->best, (size_t)a->nbest * 4) &&
	       a->best_logp == b->best_logp && a->best_score == b->best_score &&
	       a->nsteps == b->nsteps;
}

static void decoding(const char *path, const char *const *sent, int ns)
{
	struct model *m = vt_model(path);
	if (!tap_ok(m != NULL, "%s loads", path))
		return;
	for (int i = 0; i < ns; i++) {
		struct decode_result g, t0, k1, a, b;
		if (run_sample(m, sent[i], 0, 1, 0, 1, 0, &g))
			continue;
		run_sample(m, sent[i], 1, 0, 0, 1, 5, &t0);
		run_sample(m, sent[i], 1, 1.5, 1, 1, 9, &k1);
		tap_ok(same_result(&g, &t0) && same_result(&g, &k1),
		       "%s \"%s\": temperature 0 and top-k 1 give greedy's output, log p and score",
		       path, sent[i]);
		run_sample(m, sent[i], 1, 1.2, 0, 0.95, 123, &a);
		run_sample(m, sent[i], 1, 1.2, 0, 0.95, 123, &b);
		int same = same_result(&a, &b);
		for (int s = 0; same && s < a.nsteps; s++)
			same = a.steps[s].u == b.steps[s].u;
		tap_ok(same, "%s \"%s\": the same seed gives the same output", path, sent[i]);
		/* the drawn token is the one the output has, and log p sums the
		   model's log p of the drawn tokens */
		double lp = 0;
		int okd = 1;
		for (int s = 0; s < a.nsteps; s++) {
			int nd = 0;
			for (int c = 0; c < a.steps[s].ncands; c++) {
				const struct cand *cd = &a.steps[s].cands[c];
				if (cd->drawn) {
					nd++;
					okd &= cd->kept && cd->prob_cut > 0;
					okd &= s < a.nbest ? cd->token == a.best[s] : cd->finished;
					lp += log(cd->prob);
				}
			}
			okd &= nd == 1;
		}
		tap_ok(okd && fabs(lp - a.best_logp) < 1e-4,
		       "one token drawn a step, inside the cut, the output's; Σ log p %.4f = %.4f",
		       lp, a.best_logp);
		decode_result_free(&g);
		decode_result_free(&t0);
		decode_result_free(&k1);
		decode_result_free(&a);
		decode_result_free(&b);
	}
	/* the first token's frequencies over seeds against the recorded step */
	struct decode_result r;
	enum { N = 3000 };
	int cnt[64] = { 0 }, tok[64], nt = 0;
	double p[64];
	for (int seed = 0; seed < N; seed++) {
		if (run_sample(m, sent[0], 1, 1.0, 4, 1, (uint64_t)seed, &r))
			break;
		const struct decode_step *st = &r.steps[0];
		if (seed == 0)
			for (int c = 0; c < st->ncands && nt < 64; c++, nt++) {
				tok[nt] = st->cands[c].token;
				p[nt] = st->cands[c].prob_cut;
			}
		for (int c = 0; c < st->ncands; c++)
			if (st->cands[c].drawn)
				for (int j = 0; j < nt; j++)
					cnt[j] += tok[j] == st->cands[c].token;
		decode_result_free(&r);
	}
	int df, total = 0;
	for (int j = 0; j < nt; j++)
		total += cnt[j];
	double x = chi2(cnt, p, nt, N, &df);
	tap_ok(total == N && df >= 1 && df <= 12 && x < CRIT[df],
	       "%s: first-token draws of %d seeds (top-k 4) match the step's p_cut (χ² %.2f, df %d)",
	       path, N, x, df);
	/* bad options */
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct err e;
	pass_opts_default(&po);
	input_build(m, sent[0], NULL, &po, &in, &e);
	decode_opts_default(&o);
	o.sample = 1;
	o.beam = 3;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0 && strstr(e.msg, "beam"),
	       "sampling with a beam is refused: %s", e.msg);
	o.beam = 1;
	o.so.top_p = 0;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0 && strstr(e.msg, "top-p"),
	       "top-p 0 is refused: %s", e.msg);
	o.so.top_p = 1;
	o.so.temperature = -1;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0 && strstr(e.msg, "temperature"),
	       "a negative temperature is refused");
	input_free(&in);
	model_free(m);
}

int main(void)
{
	hand_cases();
	prng();
	frequencies();
	static const char *const enpt[] = { "i love you very much", "your cat is a lovely cat" };
	decoding("models/en-pt-tiny.yaml", enpt, 2);
	static const char *const dec[] = { "your cat", "i love" };
	decoding("tests/data/tiny-dec.yaml", dec, 2);
	return tap_done();
}
