/* test_ops.c - the numeric building blocks against references written here.
 *
 * Products are compared with triple loops in double precision (this file's
 * own, not only ops.c's naive one); softmax, LayerNorm, GELU and the
 * sinusoid against values worked out by hand or from their formulas in
 * double. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"
#include "engine/pool.h"
#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */

static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* Uniform in [-1, 1). */
static float frand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((double)(rng >> 11) * 0x1.0p-52 - 1.0);
}

static float *rand_buf(size_t n)
{
	float *p = malloc((n ? n : 1) * sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = frand();
	return p;
}

static void fill_nan(float *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = NAN;
}

static void test_linear(void)
{
	static const int sizes[][3] = {   /* n, in, out */
		{ 1, 1, 1 }, { 3, 5, 7 }, { 7, 5, 3 }, { 1, 64, 3 }, { 17, 33, 9 },
		{ 64, 64, 64 }, { 5, 512, 2 }, { 100, 3, 200 },
		/* pooled: tasks sized for the small-matrix kernel (n <= 16), the
		   last one partial; and an equal split */
		{ 4, 512, 1000 }, { 16, 2048, 300 }, { 16, 512, 2048 }, { 32, 512, 520 },
	};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s][0], in = sizes[s][1], out = sizes[s][2];
		float *x = rand_buf((size_t)n * in), *w = rand_buf((size_t)out * in);
		float *b = rand_buf((size_t)out);
		float *y = malloc((size_t)n * out * sizeof *y);
		float *ref = malloc((size_t)n * out * sizeof *ref);
		for (int use_b = 0; use_b < 2; use_b++) {
			for (int i = 0; i < n; i++)
				for (int o = 0; o < out; o++) {
					double acc = use_b ? b[o] : 0;
					for (int k = 0; k < in; k++)
						acc += (double)x[(size_t)i * in + k] *
						       w[(size_t)o * in + k];
					ref[(size_t)i * out + o] = (float)acc;
				}
			/* the output's old contents must not matter */
			fill_nan(y, (size_t)n * out);
			op_linear(x, n, in, w, use_b ? b : NULL, out, y);
			char what[96];
			snprintf(what, sizeof what, "op_linear n=%d in=%d out=%d bias %s",
				 n, in, out, use_b ? "given" : "NULL");
			tap_close(y, ref, (size_t)n * out, 1e-6 * in + 1e-6, what);
		}
		free(x); free(w); free(b); free(y); free(ref);
	}

	/* a hand example: x = [1 2], W = [[1 0], [0 1], [1 1]], b = [10 20 30] */
	const float x[2] = { 1, 2 }, w[6] = { 1, 0, 0, 1, 1, 1 }, b[3] = { 10, 20, 30 };
	float y[3];
	const float want[3] = { 11, 22, 33 };
	op_linear(x, 1, 2, w, b, 3, y);
	tap_close(y, want, 3, 0, "op_linear hand example y = x·Wᵀ + b (exact)");
}

static void test_matmul(void)
{
	static const int sizes[][3] = {   /* m, n, k */
		{ 1, 1, 1 }, { 2, 3, 4 }, { 4, 3, 2 }, { 9, 9, 16 }, { 31, 7, 13 },
		{ 64, 64, 8 },
	};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
		float alpha = s % 2 ? 0.5f : 1.0f;
		float *a = rand_buf((size_t)m * k), *b = rand_buf((size_t)n * k);
		float *c = malloc((size_t)m * n * sizeof *c), *cn = malloc((size_t)m * n * sizeof *cn);
		float *ref = malloc((size_t)m * n * sizeof *ref);
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				double acc = 0;
				for (int p = 0; p < k; p++)
					acc += (double)a[(size_t)i * k + p] * b[(size_t)j * k + p];
				ref[(size_t)i * n + j] = (float)(acc * alpha);
			}
		fill_nan(c, (size_t)m * n);
		op_matmul_nt(a, k, b, k, c, n, m, n, k, alpha);
		op_matmul_nt_naive(a, b, cn, m, n, k, alpha);
		char what[96];
		snprintf(what, sizeof what, "op_matmul_nt m=%d n=%d k=%d alpha=%g vs naive",
			 m, n, k, alpha);
		tap_close(c, cn, (size_t)m * n, 1e-6 * k + 1e-6, what);
		snprintf(what, sizeof what, "op_matmul_nt_naive m=%d n=%d k=%d vs this test's loop",
			 m, n, k);
		tap_close(cn, ref, (size_t)m * n, 1e-6, what);
		free(a); free(b); free(c); free(cn); free(ref);
	}

	/* leading dimensions: multiply sub-blocks of wider matrices, and write
	 * into a wider C without touching the columns beyond n */
	enum { M = 5, N = 4, K = 3, LDA = 7, LDB = 6, LDC = 9 };
	float *a = rand_buf((size_t)M * LDA), *b = rand_buf((size_t)N * LDB);
	float c[M * LDC], ref[M * LDC];
	for (int i = 0; i < M * LDC; i++)
		c[i] = ref[i] = -42.0f;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int p = 0; p < K; p++)
				acc += (double)a[i * LDA + p] * b[j * LDB + p];
			ref[i * LDC + j] = (float)(2 * acc);
		}
	op_matmul_nt(a, LDA, b, LDB, c, LDC, M, N, K, 2.0f);
	tap_close(c, ref, M * LDC, 1e-5, "op_matmul_nt with lda/ldb/ldc wider than the block");
	free(b);

	/* op_matmul_nn: c[m, n] = a[m, k] · b[k, n], b with ldb > n */
	b = rand_buf((size_t)K * LDB);
	for (int i = 0; i < M * LDC; i++)
		c[i] = ref[i] = -42.0f;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int p = 0; p < K; p++)
				acc += (double)a[i * LDA + p] * b[p * LDB + j];
			ref[i * LDC + j] = (float)acc;
		}
	op_matmul_nn(a, LDA, b, LDB, c, LDC, M, N, K, 1.0f);
	tap_close(c, ref, M * LDC, 1e-5, "op_matmul_nn with leading dimensions");
	free(a);
	free(b);

	/* hand example for nn: [[1 2], [3 4]] · [[5 6], [7 8]] = [[19 22], [43 50]] */
	const float a2[4] = { 1, 2, 3, 4 }, b2[4] = { 5, 6, 7, 8 };
	const float want[4] = { 19, 22, 43, 50 };
	float c2[4];
	op_matmul_nn(a2, 2, b2, 2, c2, 2, 2, 2, 2, 1.0f);
	tap_close(c2, want, 4, 0, "op_matmul_nn 2x2 hand example (exact)");
	const float half[4] = { 9.5f, 11, 21.5f, 25 };
	op_matmul_nn(a2, 2, b2, 2, c2, 2, 2, 2, 2, 0.5f);
	tap_close(c2, half, 4, 0, "op_matmul_nn with alpha 0.5: half of it (exact)");
	/* and nt: [[1 2], [3 4]] · [[5 6], [7 8]]ᵀ = [[17 23], [39 53]] */
	const float want_nt[4] = { 17, 23, 39, 53 };
	op_matmul_nt(a2, 2, b2, 2, c2, 2, 2, 2, 2, 1.0f);
	tap_close(c2, want_nt, 4, 0, "op_matmul_nt 2x2 hand example (exact)");
}

static void test_softmax(void)
{
	/* row 0: [1 2 3] -> e^-2, e^-1, 1 over their sum 1.5032147244080551
	 * row 1: [0 -inf 0] -> [0.5 0 0.5]
	 * row 2: all -inf -> zeros
	 * row 3: [1000 1000 -inf] -> [0.5 0.5 0] (no overflow)
	 * row 4: [-inf -inf 7] -> [0 0 1] */
	const float NI = -INFINITY;
	float x[15] = { 1, 2, 3, 0, NI, 0, NI, NI, NI, 1000, 1000, NI, NI, NI, 7 };
	const float want[15] = {
		0.09003057317038046f, 0.24472847105479764f, 0.6652409557748219f,
		0.5f, 0, 0.5f,
		0, 0, 0,
		0.5f, 0.5f, 0,
		0, 0, 1,
	};
	op_softmax_rows(x, 5, 3);
	tap_close(x, want, 3, 1e-7, "softmax [1 2 3] hand values");
	tap_close(x + 3, want + 3, 3, 1e-7, "softmax with a -inf entry: weight 0 there");
	tap_close(x + 6, want + 6, 3, 0, "softmax of an all -inf row: all zeros");
	int nan = 0;
	for (int i = 0; i < 15; i++)
		nan += isnan(x[i]) != 0;
	tap_ok(nan == 0, "softmax gives no NaN (found %d)", nan);
	tap_ok(x[6] == 0 && !signbit(x[6]) && x[7] == 0 && x[8] == 0,
	       "all -inf row is exactly +0");
	tap_close(x + 9, want + 9, 3, 1e-7, "softmax [1000 1000 -inf] does not overflow");
	tap_close(x + 12, want + 12, 3, 0, "softmax with one finite entry gives exactly 1");

	/* random rows, some entries masked: each row sums to 1, masked are 0 */
	enum { R = 37, C = 29 };
	float *r = rand_buf((size_t)R * C);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++) {
			r[i * C + j] *= 20;
			if ((i * 7 + j * 3) % 5 == 0 && j)
				r[i * C + j] = NI;
		}
	float *orig = malloc(sizeof(float) * R * C);
	memcpy(orig, r, sizeof(float) * R * C);
	op_softmax_rows(r, R, C);
	double worst = 0;
	int masked_bad = 0, order_bad = 0;
	for (int i = 0; i < R; i++) {
		double sum = 0;
		for (int j = 0; j < C; j++) {
			sum += r[i * C + j];
			if (isinf(orig[i * C + j]) && r[i * C + j] != 0)
				masked_bad++;
			/* softmax keeps the order of the scores */
			if (j && (orig[i * C + j] > orig[i * C + j - 1]) !=
				     (r[i * C + j] > r[i * C + j - 1]) &&
			    orig[i * C + j] != orig[i * C + j - 1])
				order_bad++;
		}
		if (fabs(sum - 1) > worst)
			worst = fabs(sum - 1);
	}
	tap_ok(worst < 1e-5, "random rows sum to 1 (max |sum-1| = %.3g)", worst);
	tap_ok(masked_bad == 0, "random rows: -inf entries get weight 0 (%d wrong)", masked_bad);
	tap_ok(order_bad == 0, "random rows: order of scores kept (%d wrong)", order_bad);
	free(r);
	free(orig);

	/* the engine's own exp against exp() in double: rows of every length
	   up to 70 (the blocks of four and their tails), scores spread over
	   [-100, 20] so that some weights fall below e^-87 (then 0) */
	double rel = 0, rel_libm = 0, tiny = 0;
	for (int c = 1; c <= 70; c++) {
		float a[70], b[70];
		double e[70], sum = 0;
		float mx = -INFINITY;
		for (int j = 0; j < c; j++) {
			a[j] = b[j] = (float)((j * 7919 + c * 104729) % 12000) / 100.0f - 100.0f;
			mx = a[j] > mx ? a[j] : mx;
		}
		for (int j = 0; j < c; j++)   /* the score less the max, in float as both do */
			sum += e[j] = exp((double)(a[j] - mx));
		op_softmax_rows(a, 1, c);
		op_softmax_rows_expf(b, 1, c);
		for (int j = 0; j < c; j++) {
			const double w = e[j] / sum;
			if (w < 1e-37) {   /* below the normal floats */
				tiny = fabs(a[j]) > tiny ? fabs(a[j]) : tiny;
				continue;
			}
			rel = fabs(a[j] - w) / w > rel ? fabs(a[j] - w) / w : rel;
			rel_libm = fabs(b[j] - w) / w > rel_libm ? fabs(b[j] - w) / w : rel_libm;
		}
	}
	tap_ok(rel < 3e-7, "softmax against exp() in double, lengths 1-70: max relative error %.3g", rel);
	tap_ok(rel_libm < 3e-7, "the expf softmax (the trainer's) likewise: %.3g", rel_libm);
	tap_ok(tiny < 1e-37, "weights below e^-87 of the largest are 0 or tiny (%.3g)", tiny);
	float nanrow[5] = { 1, NAN, 2, 3, 4 };
	op_softmax_rows(nanrow, 1, 5);
	tap_ok(isnan(nanrow[1]) && isnan(nanrow[4]),
	       "a NaN score makes the row NaN, as with expf (not silently 0)");
}

static void test_layernorm(void)
{
	/* x = [1 2 3 4]: mean 2.5, biased variance 1.25, so
	 * y = (x - 2.5)/√1.25 = ±0.4472135954999579·{3, 1} */
	const float x[8] = { 1, 2, 3, 4, 5, 5, 5, 5 };
	const float one[4] = { 1, 1, 1, 1 }, zero[4] = { 0, 0, 0, 0 };
	float y[8];
	const float want[4] = { -1.3416407864998738f, -0.4472135954999579f,
				0.4472135954999579f, 1.3416407864998738f };
	op_layernorm(x, 1, 4, one, zero, 0.0f, y);
	tap_close(y, want, 4, 1e-6, "layernorm [1 2 3 4], g=1 b=0 eps=0");

	/* with eps: y = (x - 2.5)/√(1.25 + 0.75) = (x - 2.5)/√2 */
	const float want_eps[4] = { -1.0606601717798212f, -0.35355339059327373f,
				    0.35355339059327373f, 1.0606601717798212f };
	op_layernorm(x, 1, 4, one, zero, 0.75f, y);
	tap_close(y, want_eps, 4, 1e-6, "layernorm eps=0.75 enters under the root");

	/* gain and shift: g = [2 1 0 -1], b = [0 1 2 3] */
	const float g[4] = { 2, 1, 0, -1 }, b[4] = { 0, 1, 2, 3 };
	const float want_gb[4] = { -2.6832815729997477f, 0.5527864045000421f, 2.0f,
				   1.6583592135001262f };
	op_layernorm(x, 1, 4, g, b, 0.0f, y);
	tap_close(y, want_gb, 4, 1e-6, "layernorm y·g + b per column");

	/* two rows at once, eps = 1e-5: row 0 is (x - 2.5)/√1.25001·g + b;
	 * a constant row gives b, not NaN */
	const float want_gb5[4] = { -2.6832708399378538f, 0.552788193343691f, 2.0f,
				    1.6583645800310731f };
	op_layernorm(x, 2, 4, g, b, 1e-5f, y);
	tap_close(y + 4, b, 4, 0, "layernorm of a constant row is b (no NaN)");
	tap_close(y, want_gb5, 4, 1e-6, "layernorm row 0 with eps=1e-5, beside row 1");

	/* shift invariance: LN(x + 1000) = LN(x) (variance in double) */
	const float xs[4] = { 1001, 1002, 1003, 1004 };
	op_layernorm(xs, 1, 4, one, zero, 0.0f, y);
	tap_close(y, want, 4, 1e-5, "layernorm [1001..1004] = layernorm [1..4]");
}

static void test_activations(void)
{
	/* exact GELU: 0.5·x·(1 + erf(x/√2)), in double */
	const float xs[] = { 0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -3.0f, 3.0f, 10.0f, -10.0f };
	enum { NX = sizeof xs / sizeof *xs };
	float y[NX], want[NX];
	memcpy(y, xs, sizeof y);
	for (int i = 0; i < NX; i++)
		want[i] = (float)(0.5 * xs[i] * (1.0 + erf(xs[i] / sqrt(2.0))));
	op_gelu(y, NX);
	tap_close(y, want, NX, 1e-6, "gelu vs 0.5·x·(1+erf(x/√2)) in double");
	/* the same three by hand: Φ(1) = 0.8413447460685429 */
	const float hand[3] = { 0.0f, 0.8413447460685429f, -0.15865525393145707f };
	tap_close(y, hand, 3, 1e-6, "gelu(0) = 0, gelu(1) = 0.841345, gelu(-1) = -0.158655");
	/* not the tanh approximation: at x = 1 it gives 0.841192 */
	tap_ok(fabsf(y[1] - 0.8411919906082768f) > 1e-4,
	       "gelu is the erf form, not the tanh approximation");

	/* the tanh approximation (GPT-2's gelu_new), in double, from −20 to 20 */
	enum { NG = 4001 };
	static float g[NG], gw[NG];
	for (int i = 0; i < NG; i++) {
		double v = -20 + i * 0.01;
		g[i] = (float)v;
		gw[i] = (float)(0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
	}
	op_gelu_new(g, NG);
	double worst = 0;
	for (int i = 0; i < NG; i++) {
		double d = fabs((double)g[i] - gw[i]) / (1 + fabs((double)gw[i]));
		worst = d > worst ? d : worst;
	}
	tap_ok(worst < 1e-6, "gelu_new vs 0.5·x·(1+tanh(√(2/π)(x+0.044715x³))) in double on "
	       "[−20, 20]: max relative difference %.3g", worst);
	float one = 1.0f;
	op_gelu_new(&one, 1);
	tap_ok(fabsf(one - 0.8411919906082768f) < 1e-6, "gelu_new(1) = 0.841192 (%.7f)", one);

	float r[5] = { -2.0f, -0.0f, 0.0f, 0.5f, 3.0f };
	const float rw[5] = { 0, 0, 0, 0.5f, 3.0f };
	op_relu(r, 5);
	tap_close(r, rw, 5, 0, "relu");
}

static void test_sinusoid(void)
{
	enum { N = 50, D = 512 };
	float *pe = malloc(sizeof(float) * N * D);
	op_sinusoid(N, D, pe);
	float want0[D];
	for (int i = 0; i < D; i++)
		want0[i] = i % 2 ? 1.0f : 0.0f;
	tap_close(pe, want0, D, 0, "sinusoid pos 0 = [0 1 0 1 ...]");

	/* d = 4, pos 1: [sin 1, cos 1, sin 0.01, cos 0.01] (10000^(2/4) = 100) */
	float p4[3 * 4];
	op_sinusoid(3, 4, p4);
	const float want1[4] = { 0.8414709848078965f, 0.5403023058681398f,
				 0.009999833334166664f, 0.9999500004166653f };
	tap_close(p4 + 4, want1, 4, 1e-7, "sinusoid d=4 pos 1 hand values");
	/* pos 2: [sin 2, cos 2, sin 0.02, cos 0.02] */
	const float want2[4] = { 0.9092974268256817f, -0.4161468365471424f,
				 0.019998666693333080f, 0.9998000066665778f };
	tap_close(p4 + 8, want2, 4, 1e-7, "sinusoid d=4 pos 2 hand values");

	/* the whole d=512 table against the formula in double */
	float *ref = malloc(sizeof(float) * N * D);
	for (int p = 0; p < N; p++)
		for (int i = 0; i < D; i += 2) {
			double a = p / pow(10000.0, (double)i / D);
			ref[p * D + i] = (float)sin(a);
			ref[p * D + i + 1] = (float)cos(a);
		}
	tap_close(pe, ref, (size_t)N * D, 1e-6, "sinusoid d=512 table vs formula");
	/* the last pair's frequency is 1/10000^(510/512): pos 49 -> 49/9646.616 */
	double a = 49.0 / 9646.616199111995;
	const float last[2] = { (float)sin(a), (float)cos(a) };
	tap_close(pe + 49 * D + 510, last, 2, 1e-7, "sinusoid pos 49, i = 255 (hand)");
	free(ref);

	/* odd d: the last column is a sine */
	float p5[2 * 5];
	op_sinusoid(2, 5, p5);
	/* i = 4: 1/10000^(4/5) = 1/1584.893 */
	tap_ok(fabsf(p5[5 + 4] - (float)sin(1.0 / 1584.8931924611134)) < 1e-7,
	       "sinusoid odd d=5: last column pos 1 = sin(1/10000^0.8)");
	free(pe);
}

/* The products big enough to be split over the threads (pool.h): column
 * blocks whose last one is short, the activation on each block, and the
 * LayerNorm's row blocks, against double-precision loops written here. */
static void test_split(void)
{
	static const int sizes[][3] = {   /* n, in, out */
		{ 64, 512, 1000 }, { 3, 512, 2048 }, { 16, 64, 300 }, { 100, 40, 1537 },
	};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s][0], in = sizes[s][1], out = sizes[s][2];
		float *x = rand_buf((size_t)n * in), *w = rand_buf((size_t)out * in);
		float *b = rand_buf((size_t)out);
		float *y = malloc((size_t)n * out * sizeof *y);
		float *ref = malloc((size_t)n * out * sizeof *ref);
		for (int act = 0; act < 3; act++) {
			for (int i = 0; i < n; i++)
				for (int o = 0; o < out; o++) {
					double acc = b[o];
					for (int k = 0; k < in; k++)
						acc += (double)x[(size_t)i * in + k] *
						       w[(size_t)o * in + k];
					if (act == OP_RELU)
						acc = acc > 0 ? acc : 0;
					else if (act == OP_GELU)
						acc = 0.5 * acc * (1 + erf(acc / sqrt(2.0)));
					ref[(size_t)i * out + o] = (float)acc;
				}
			fill_nan(y, (size_t)n * out);
			op_linear_act(x, n, in, w, b, out, y, (enum op_act)act);
			char what[96];
			snprintf(what, sizeof what, "op_linear_act n=%d in=%d out=%d %s (%d threads)",
				 n, in, out, act == OP_RELU ? "relu" : act == OP_GELU ? "gelu" : "identity",
				 pool_threads());
			tap_close(y, ref, (size_t)n * out, 1e-6 * in + 1e-6, what);
		}
		free(x); free(w); free(b); free(y); free(ref);
	}

	const int n = 67, d = 512;
	float *x = rand_buf((size_t)n * d), *g = rand_buf(d), *b = rand_buf(d);
	float *y = malloc((size_t)n * d * sizeof *y), *ref = malloc((size_t)n * d * sizeof *ref);
	for (int i = 0; i < n; i++) {
		double mean = 0, var = 0;
		for (int j = 0; j < d; j++)
			mean += x[i * d + j];
		mean /= d;
		for (int j = 0; j < d; j++)
			var += (x[i * d + j] - mean) * (x[i * d + j] - mean);
		var /= d;
		for (int j = 0; j < d; j++)
			ref[i * d + j] = (float)((x[i * d + j] - mean) / sqrt(var + 1e-5) * g[j] + b[j]);
	}
	fill_nan(y, (size_t)n * d);
	op_layernorm(x, n, d, g, b, 1e-5f, y);
	tap_close(y, ref, (size_t)n * d, 1e-5, "layernorm of 67 rows × 512 in row blocks");
	memcpy(y, x, (size_t)n * d * sizeof *y);
	op_layernorm(y, n, d, g, b, 1e-5f, y);
	tap_close(y, ref, (size_t)n * d, 1e-5, "layernorm in place (x = y), as decode does");
	for (int i = 0; i < n * d; i++)
		ref[i] = x[i] + g[i % d];
	float *gg = malloc((size_t)n * d * sizeof *gg);
	for (int i = 0; i < n * d; i++)
		gg[i] = g[i % d];
	op_add(x, gg, y, (size_t)n * d - 5);
	tap_close(y, ref, (size_t)n * d - 5, 0, "op_add, a length that is no multiple of 16");
	free(x); free(g); free(b); free(y); free(ref); free(gg);
}

/* pool_run runs every task exactly once, also from inside a task (then in
 * order on that thread) and for one task. */
struct count_job { int hits[200]; int nested; };

static void count_task(void *arg, int t, int nt)
{
	struct count_job *j = arg;
	__atomic_add_fetch(&j->hits[t], 1, __ATOMIC_RELAXED);
	if (j->nested && t == 0) {
		struct count_job *inner = calloc(1, sizeof *inner);
		pool_run(count_task, inner, 50);
		int ok = 1;
		for (int i = 0; i < 50; i++)
			ok &= inner->hits[i] == 1;
		__atomic_add_fetch(&j->nested, ok ? 1 : 100, __ATOMIC_RELAXED);
		free(inner);
	}
}

static void test_pool(void)
{
	for (int nt = 1; nt <= 200; nt += 199) {
		for (int rep = 0; rep < 3; rep++) {
			struct count_job *j = calloc(1, sizeof *j);
			j->nested = rep == 2;
			pool_run(count_task, j, nt);
			int ok = 1;
			for (int i = 0; i < 200; i++)
				ok &= j->hits[i] == (i < nt);
			tap_ok(ok && (!j->nested || j->nested == 2),
			       "pool_run of %d tasks runs each once%s", nt,
			       rep == 2 ? " (a nested run inside, in order)" : "");
			free(j);
		}
	}
}

/* op_transpose (GPT-2's Conv1D weights): every element where the index
 * arithmetic puts it, on the one-task and the pooled path, ragged edges. */
static void test_transpose(void)
{
	static const int dims[][2] = { { 1, 1 }, { 3, 70 }, { 33, 65 }, { 768, 401 }, { 401, 768 } };
	for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
		const int r = dims[k][0], c = dims[k][1];
		float *a = malloc((size_t)r * c * sizeof *a), *t = malloc((size_t)r * c * sizeof *t);
		for (int i = 0; i < r * c; i++)
			a[i] = (float)i;
		fill_nan(t, (size_t)r * c);
		op_transpose(a, r, c, t);
		int bad = 0;
		for (int i = 0; i < r; i++)
			for (int j = 0; j < c; j++)
				bad += t[(size_t)j * r + i] != (float)(i * c + j);
		tap_ok(bad == 0, "transpose [%d, %d]: %d elements misplaced", r, c, bad);
		free(a);
		free(t);
	}
}

/* op_dist_finite (issue 44): NaN or +inf anywhere, or a row with nothing
 * finite, is no distribution; -inf entries (probability 0) are fine. */
static void test_dist_finite(void)
{
	const float ok[6] = { -1.0f, -INFINITY, -0.5f, -2.0f, -0.1f, -INFINITY };
	float bad[6];
	tap_ok(op_dist_finite(ok, 2, 3), "dist_finite: -inf entries are a distribution");
	memcpy(bad, ok, sizeof bad);
	bad[4] = NAN;
	tap_ok(!op_dist_finite(bad, 2, 3), "dist_finite: a NaN in row 2 is not");
	memcpy(bad, ok, sizeof bad);
	bad[0] = INFINITY;
	tap_ok(!op_dist_finite(bad, 2, 3), "dist_finite: +inf is not");
	const float none[3] = { -INFINITY, -INFINITY, -INFINITY };
	tap_ok(!op_dist_finite(none, 1, 3), "dist_finite: a row of -inf only is not");
}

int main(void)
{
	test_dist_finite();
	test_linear();
	test_matmul();
	test_softmax();
	test_layernorm();
	test_activations();
	test_sinusoid();
	test_split();
	test_pool();
	test_transpose();
	return tap_done();
}
