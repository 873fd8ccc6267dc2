/* ops.c - BLAS-backed products and the row-wise operations. */
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops.h"
#include "pool.h"
#include "base/clock.h"

/* Tasks per thread for the row-wise operations: more than one, so that a
 * thread held up by the machine leaves its share to the others. */
#define TASKS_PER_THREAD 2

/* How y[n, out] = x[n, in]·w[out, in]ᵀ is cut into tasks, by blocks of
 * output columns in whole 16s (a cache line of floats, so tasks never
 * share a line of y): `nbig` tasks of `big` columns, then tasks of `per`.
 *
 * A product of at most ~2^19 multiply-adds goes to OpenBLAS's unpacked
 * small-matrix kernel, which with few rows of x (n <= 16: one query row
 * per beam while decoding, a short sentence) is 1.3-1.5× faster than the
 * packed one (0.3.21's Cooperlake kernels, CPU time, weights not in
 * cache); so such a product is split into equal tasks that size.
 *
 * Otherwise every task packs x again, so tasks are few: one a thread with
 * 7/8 of the columns, then one more a thread with the rest, which the
 * first threads done take, so that a thread the shared machine slows
 * holds up the product less.  On base (ratio to sgemm 1024, medians of
 * alternated runs): one task a thread beat two equal ones by 2.5% at
 * 64+64; this split beat one a thread by 1.5-9% in four sets of 8-12
 * runs at 64+64 (2.3% in the set of 12) and by 4% at 256+256, and was
 * 1.6% behind in one more set at 64+64. */
#define SMALL_PRODUCT (1 << 19)

struct split {
	int nbig, big, per;
};

static struct split cut(int n, int in, int out)
{
	const int k = pool_threads();
	struct split c = { 0, 0, 0 };
	if (n <= 16 && (double)n * in * 16 <= SMALL_PRODUCT) {
		c.per = (int)(SMALL_PRODUCT / ((double)n * in)) / 16 * 16;
	} else {
		c.big = (int)((double)out * 7 / (8.0 * k)) / 16 * 16;
		c.nbig = c.big > 0 ? k : 0;
		c.per = (out - c.nbig * c.big + k - 1) / k;
	}
	c.per = (c.per + 15) / 16 * 16;
	c.per = c.per < 16 ? 16 : c.per;
	return c;
}

static int split_tasks(const struct split *c, int out)
{
	const int rest = out - c->nbig * c->big;
	return c->nbig + (rest + c->per - 1) / c->per;
}

/* Task t's columns [*j0, *j1) */
static void split_cols(const struct split *c, int t, int out, int *j0, int *j1)
{
	const int lo = t < c->nbig ? t * c->big : c->nbig * c->big + (t - c->nbig) * c->per;
	const int hi = lo + (t < c->nbig ? c->big : c->per);
	*j0 = lo < out ? lo : out;
	*j1 = hi < out ? hi : out;
}

static void act_rows(float *y, int n, int ld, int cols, enum op_act act)
{
	for (int i = 0; i < n && act != OP_IDENTITY; i++) {
		if (act == OP_RELU)
			op_relu(y + (size_t)i * ld, (size_t)cols);
		else
			op_gelu(y + (size_t)i * ld, (size_t)cols);
	}
}

struct linear_job {
	const float *x, *w, *b;   /* [n, in], [out, in], [out] or NULL */
	float *y;                 /* [n, out] */
	int n, in, out;
	enum op_act act;
	struct split cut;
};

/* y[:, j0:j1] = act(x · w[j0:j1]ᵀ + b[j0:j1]) for task t: each task packs
 * only its own rows of w. */
static void linear_task(void *arg, int t, int ntasks)
{
	const struct linear_job *a = arg;
	int j0, j1;
	split_cols(&a->cut, t, a->out, &j0, &j1);
	if (j0 >= j1)
		return;
	const int m = j1 - j0;
	if (a->b)
		for (int i = 0; i < a->n; i++)
			memcpy(a->y + (size_t)i * a->out + j0, a->b + j0, (size_t)m * sizeof *a->y);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, a->n, m, a->in, 1.0f,
		    a->x, a->in, a->w + (size_t)j0 * a->in, a->in, a->b ? 1.0f : 0.0f,
		    a->y + j0, a->out);
	act_rows(a->y + j0, a->n, a->out, m, a->act);
}

/* bench's meter (op_meter): one thread calls op_linear_act at a time */
static struct {
	int on;
	double ms, flops;
} meter;

void op_meter(int on)
{
	meter.on = on;
	if (on)
		meter.ms = meter.flops = 0;
}

void op_meter_read(double *ms, double *flops)
{
	*ms = meter.ms;
	*flops = meter.flops;
}

static void linear_run(struct linear_job *a)
{
	const int n = a->n, in = a->in, out = a->out;
	/* below ~0.25 M multiply-adds a second thread costs more than it gives */
	if ((double)n * in * out >= 1 << 18 && out > 16) {
		a->cut = cut(n, in, out);
		pool_run(linear_task, a, split_tasks(&a->cut, out));
	} else {
		linear_task(a, 0, 1);
	}
}

void op_linear_act(const float *x, int n, int in, const float *w, const float *b,
		   int out, float *y, enum op_act act)
{
	struct linear_job a = { x, w, b, y, n, in, out, act, { 0, 0, out } };
	if (meter.on) {
		const double t0 = clock_ms();
		linear_run(&a);
		meter.ms += clock_ms() - t0;
		meter.flops += 2.0 * n * in * out;
	} else {
		linear_run(&a);
	}
}

void op_linear(const float *x, int n, int in, const float *w, const float *b,
	       int out, float *y)
{
	op_linear_act(x, n, in, w, b, out, y, OP_IDENTITY);
}

void op_matmul_nt(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k, float alpha)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha,
		    a, lda, b, ldb, 0.0f, c, ldc);
}

void op_matmul_nn(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k, float alpha)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha,
		    a, lda, b, ldb, 0.0f, c, ldc);
}

/* Sums over eight running totals, so that no addition waits for the one
 * before it (a single double total is one 4-cycle add per element); in
 * double, as before, so the float results are the same but for the last
 * bit of a rare row.  Blocks of 8 with a fixed trip count: what -O2
 * vectorises. */
enum { LANES = 8 };

static double lanes_total(const double s[LANES])
{
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static double sum_f(const float *x, int n)
{
	double s[LANES] = { 0 };
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int k = 0; k < LANES; k++)
			s[k] += x[j + k];
	for (; j < n; j++)
		s[j % LANES] += x[j];
	return lanes_total(s);
}

/* a = x + r, and sum_f(a) while a is in registers (the same sum) */
static double add_sum_f(const float *restrict x, const float *restrict r,
			float *restrict a, int n)
{
	double s[LANES] = { 0 };
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int k = 0; k < LANES; k++) {
			a[j + k] = x[j + k] + r[j + k];
			s[k] += a[j + k];
		}
	for (; j < n; j++) {
		a[j] = x[j] + r[j];
		s[j % LANES] += a[j];
	}
	return lanes_total(s);
}

/* Σ (x − mu)² */
static double sum_sq_dev(const float *x, int n, double mu)
{
	double s[LANES] = { 0 };
	int j = 0;
	for (; j + LANES <= n; j += LANES)
		for (int k = 0; k < LANES; k++) {
			const double c = x[j + k] - mu;
			s[k] += c * c;
		}
	for (; j < n; j++) {
		const double c = x[j] - mu;
		s[j % LANES] += c * c;
	}
	return lanes_total(s);
}

static float max_f(const float *x, int n)
{
	float m[LANES];
	int j = 0;
	for (int k = 0; k < LANES; k++)
		m[k] = -INFINITY;
	for (; j + LANES <= n; j += LANES)
		for (int k = 0; k < LANES; k++)
			m[k] = x[j + k] > m[k] ? x[j + k] : m[k];
	for (; j < n; j++)
		m[0] = x[j] > m[0] ? x[j] : m[0];
	for (int k = 1; k < LANES; k++)
		m[0] = m[k] > m[0] ? m[k] : m[0];
	return m[0];
}

/* e^v for four v at a time, within 1 ulp of glibc's expf (8.1e-8
 * relative over [-90, 0]): v = k·ln 2 + r with |r| <= ln 2 / 2 (Cody and
 * Waite's two-part ln 2), e^r by Cephes's degree-6 polynomial, 2^k put
 * into the exponent bits.  Below -87 (e^-87 is near the smallest normal
 * float) it gives 0, so e^-inf = 0 for a masked key; a NaN stays NaN.
 * GCC's and clang's vector types: SSE2 on any x86-64. */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) v4f exp4(v4f v)
{
	const v4f lo = { -87.0f, -87.0f, -87.0f, -87.0f };
	const v4f magic = { 12582912.0f, 12582912.0f, 12582912.0f, 12582912.0f };   /* 1.5·2^23 */
	const v4i under = v < lo;
	v = (v4f)(((v4i)v & ~under) | ((v4i)lo & under));
	const v4f t = v * 1.44269504088896341f + magic;
	const v4f k = t - magic;                      /* round(v·log2 e) */
	v4f r = v - k * 0.693359375f;
	r = r + k * 2.12194440e-4f;
	v4f p = r * 1.9875691500e-4f + 1.3981999507e-3f;
	p = p * r + 8.3334519073e-3f;
	p = p * r + 4.1665795894e-2f;
	p = p * r + 1.6666665459e-1f;
	p = p * r + 5.0000001201e-1f;
	p = p * r * r + r + 1.0f;
	/* the same k as an int, biased into the exponent: 2^k (unsigned, so
	   that a NaN's garbage bits shift without overflow) */
	const v4u n = (v4u)t - (v4u)magic;
	const v4f s = (v4f)((n + 127u) << 23);
	return (v4f)((v4i)(p * s) & ~under);
}

/* x[j] = e^(x[j] − mx) */
static void exp_shift(float *x, int n, float mx)
{
	int j = 0;
	for (; j + 4 <= n; j += 4) {
		v4f v;
		memcpy(&v, x + j, sizeof v);
		v = exp4(v - mx);
		memcpy(x + j, &v, sizeof v);
	}
	if (j < n) {   /* the last 1-3, through a padded block */
		float b[4] = { 0 };
		v4f v;
		memcpy(b, x + j, (size_t)(n - j) * sizeof *x);
		memcpy(&v, b, sizeof v);
		v = exp4(v - mx);
		memcpy(b, &v, sizeof v);
		memcpy(x + j, b, (size_t)(n - j) * sizeof *x);
	}
}

static void softmax_rows(float *x, int rows, int cols, int libm)
{
	for (int r = 0; r < rows; r++) {
		float *row = x + (size_t)r * cols;
		const float mx = max_f(row, cols);
		if (mx == -INFINITY) {
			memset(row, 0, (size_t)cols * sizeof *row);
			continue;
		}
		if (libm)
			for (int j = 0; j < cols; j++)
				row[j] = expf(row[j] - mx);
		else
			exp_shift(row, cols, mx);
		const float inv = (float)(1.0 / sum_f(row, cols));
		int j = 0;
		for (; j + LANES <= cols; j += LANES)   /* blocks: -O2 vectorises */
			for (int k = 0; k < LANES; k++)
				row[j + k] *= inv;
		for (; j < cols; j++)
			row[j] *= inv;
	}
}

void op_softmax_rows(float *x, int rows, int cols)
{
	softmax_rows(x, rows, cols, 0);
}

void op_softmax_rows_expf(float *x, int rows, int cols)
{
	softmax_rows(x, rows, cols, 1);
}

/* y = (x − mean)·inv·g + b for one row (g, b may be NULL): inv is
 * 1/√(var + eps) for torch's LayerNorm, 1/(√var + eps) with the unbiased
 * var for the Annotated Transformer's. */
static void norm_row(const float *restrict x, int d, double mu, float inv,
		     const float *restrict g, const float *restrict b,
		     float *restrict y)
{
	int j = 0;
	if (g && b)   /* the usual case, in blocks that -O2 vectorises */
		for (; j + LANES <= d; j += LANES)
			for (int k = 0; k < LANES; k++) {
				const float v = (float)(x[j + k] - mu) * inv;
				y[j + k] = v * g[j + k] + b[j + k];
			}
	for (; j < d; j++) {
		const float v = (float)(x[j] - mu) * inv;
		y[j] = v * (g ? g[j] : 1.0f) + (b ? b[j] : 0.0f);
	}
}

/* op_layernorm_row once the mean is known */
static void layernorm_row_mu(const float *x, int d, double mu, const float *g,
			     const float *b, float eps, float *y, float *mean,
			     float *rstd)
{
	const float inv = (float)(1.0 / sqrt(sum_sq_dev(x, d, mu) / d + eps));
	norm_row(x, d, mu, inv, g, b, y);
	if (mean)
		*mean = (float)mu;
	if (rstd)
		*rstd = inv;
}

void op_layernorm_row(const float *x, int d, const float *g, const float *b,
		      float eps, float *y, float *mean, float *rstd)
{
	layernorm_row_mu(x, d, sum_f(x, d) / d, g, b, eps, y, mean, rstd);
}

struct ln_job {
	const float *x, *r, *g, *b;   /* [n, d], [n, d] or NULL, [d], [d] (g, b may be NULL) */
	float *sum, *y;               /* [n, d]: x + r (when r), LayerNorm of it */
	int n, d, per;                /* per: rows per task */
	float eps;
};

static void layernorm_task(void *arg, int t, int ntasks)
{
	const struct ln_job *a = arg;
	const int d = a->d, i1 = (t + 1) * a->per < a->n ? (t + 1) * a->per : a->n;
	for (int i = t * a->per; i < i1; i++) {
		const float *x = a->x + (size_t)i * d;
		float *y = a->y + (size_t)i * d;
		if (a->r) {   /* the add and the mean's sum in one loop */
			float *sum = a->sum + (size_t)i * d;
			const double mu = add_sum_f(x, a->r + (size_t)i * d, sum, d) / d;
			layernorm_row_mu(sum, d, mu, a->g, a->b, a->eps, y, NULL, NULL);
		} else {
			op_layernorm_row(x, d, a->g, a->b, a->eps, y, NULL, NULL);
		}
	}
}

static void layernorm_rows(struct ln_job *a)
{
	if ((size_t)a->n * a->d >= 1 << 12 && a->n > 1) {
		int k = pool_threads() * TASKS_PER_THREAD;
		a->per = (a->n + k - 1) / k;
		pool_run(layernorm_task, a, (a->n + a->per - 1) / a->per);
	} else {
		layernorm_task(a, 0, 1);
	}
}

void op_layernorm(const float *x, int n, int d, const float *g, const float *b,
		  float eps, float *y)
{
	struct ln_job a = { x, NULL, g, b, NULL, y, n, d, n, eps };
	layernorm_rows(&a);
}

void op_add_layernorm(const float *x, const float *r, int n, int d,
		      const float *g, const float *b, float eps, float *sum,
		      float *y)
{
	struct ln_job a = { x, r, g, b, sum, y, n, d, n, eps };
	layernorm_rows(&a);
}

void op_layernorm_std(const float *x, int n, int d, const float *g,
		      const float *b, float eps, float *y)
{
	for (int i = 0; i < n; i++) {
		const float *xr = x + (size_t)i * d;
		const double mu = sum_f(xr, d) / d;
		const double ss = sum_sq_dev(xr, d, mu);
		const double var = d > 1 ? ss / (d - 1) : 0;   /* unbiased, as torch.std */
		norm_row(xr, d, mu, (float)(1.0 / (sqrt(var) + eps)), g, b, y + (size_t)i * d);
	}
}

void op_gelu_new(float *x, size_t n)
{
	/* 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³), written as
	 * x / (1 + e^(−2u)) (the same function; one expf instead of a double
	 * tanh: GPT-2 small has 1.2 M of them per 32-token pass) */
	const float k2 = 2 * 0.7978845608028654f;
	for (size_t i = 0; i < n; i++) {
		const float v = x[i];
		x[i] = v / (1.0f + expf(-k2 * (v + 0.044715f * v * v * v)));
	}
}

/* Loops over blocks of 16 with a fixed trip count: what -O2 vectorises. */
void op_relu(float *x, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		for (int k = 0; k < 16; k++)
			x[i + k] = x[i + k] > 0 ? x[i + k] : 0;
	for (; i < n; i++)
		x[i] = x[i] > 0 ? x[i] : 0;
}

void op_add(const float *restrict a, const float *restrict b, float *restrict y,
	    size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		for (int k = 0; k < 16; k++)
			y[i + k] = a[i + k] + b[i + k];
	for (; i < n; i++)
		y[i] = a[i] + b[i];
}

void op_gelu(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = 0.5f * x[i] * (1.0f + erff(x[i] * (float)M_SQRT1_2));
}

void op_silu(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = x[i] / (1.0f + expf(-x[i]));
}

void op_rmsnorm(const float *x, int n, int d, const float *g, float offset,
		float eps, float *y)
{
	for (int i = 0; i < n; i++) {
		const float *r = x + (size_t)i * d;
		float *o = y + (size_t)i * d;
		double ss = 0;
		for (int j = 0; j < d; j++)
			ss += (double)r[j] * r[j];
		const float rs = (float)(1.0 / sqrt(ss / d + eps));
		for (int j = 0; j < d; j++)
			o[j] = r[j] * rs * (g ? offset + g[j] : 1.0f);
	}
}

void op_sinusoid(int n, int d, float *out)
{
	/* 10000^(2i/d) once per dimension pair, not once per position: the
	   same values (pos / p is the same division), d/2 calls of pow */
	for (int i = 0; i < d; i += 2) {
		const double p = pow(10000.0, (double)i / d);
		for (int pos = 0; pos < n; pos++) {
			const double a = pos / p;
			out[(size_t)pos * d + i] = (float)sin(a);
			if (i + 1 < d)
				out[(size_t)pos * d + i + 1] = (float)cos(a);
		}
	}
}

void op_sinusoid_halves(int n, int d, float *out)
{
	const int half = (d + 1) / 2;
	for (int i = 0; i < half; i++) {
		const double p = pow(10000.0, (double)(2 * i) / d);
		for (int pos = 0; pos < n; pos++) {
			const double a = pos / p;
			out[(size_t)pos * d + i] = (float)sin(a);
			if (half + i < d)
				out[(size_t)pos * d + half + i] = (float)cos(a);
		}
	}
}

void op_matmul_nt_naive(const float *a, const float *b, float *c, int m, int n,
			int k, float alpha)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;
			for (int p = 0; p < k; p++)
				s += (double)a[(size_t)i * k + p] * b[(size_t)j * k + p];
			c[(size_t)i * n + j] = (float)(s * alpha);
		}
}

struct transpose_job {
	const float *a;           /* [rows, cols] */
	float *out;               /* [cols, rows] */
	int rows, cols, per;      /* per: rows of a per task */
};

/* Rows [t·per, (t+1)·per) of a into their columns of out, in 32 × 32
 * blocks. */
static void transpose_task(void *arg, int t, int ntasks)
{
	enum { B = 32 };
	const struct transpose_job *j = arg;
	const int r0 = t * j->per, r1 = r0 + j->per < j->rows ? r0 + j->per : j->rows;
	for (int i0 = r0; i0 < r1; i0 += B)
		for (int c0 = 0; c0 < j->cols; c0 += B) {
			const int i1 = i0 + B < r1 ? i0 + B : r1;
			const int c1 = c0 + B < j->cols ? c0 + B : j->cols;
			for (int i = i0; i < i1; i++)
				for (int c = c0; c < c1; c++)
					j->out[(size_t)c * j->rows + i] = j->a[(size_t)i * j->cols + c];
		}
}

void op_transpose(const float *a, int rows, int cols, float *out)
{
	struct transpose_job j = { a, out, rows, cols, rows };
	if ((double)rows * cols < 1 << 18) {
		transpose_task(&j, 0, 1);
		return;
	}
	int k = pool_threads() * TASKS_PER_THREAD;
	j.per = ((rows + k - 1) / k + 31) / 32 * 32;
	pool_run(transpose_task, &j, (rows + j.per - 1) / j.per);
}

int op_dist_finite(const float *lp, int B, int V)
{
	for (size_t b = 0; b < (size_t)B; b++) {
		int any = 0;
		for (int j = 0; j < V; j++) {
			float x = lp[b * (size_t)V + j];
			if (isnan(x) || x == INFINITY)
				return 0;
			any |= isfinite(x);
		}
		if (!any)
			return 0;
	}
	return 1;
}
