/* ops.c - BLAS-backed products and the row-wise operations. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "ops.h"

void op_linear(const float *x, int n, int in, const float *w, const float *b,
	       int out, float *y)
{
	if (b) {
		for (int i = 0; i < n; i++)
			memcpy(y + (size_t)i * out, b, (size_t)out * sizeof *y);
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, out, in, 1.0f,
		    x, in, w, in, b ? 1.0f : 0.0f, y, out);
}

void op_matmul_nt(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k, float alpha)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha,
		    a, lda, b, ldb, 0.0f, c, ldc);
}

void op_matmul_nn(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
		    a, lda, b, ldb, 0.0f, c, ldc);
}

void op_softmax_rows(float *x, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		float *row = x + (size_t)r * cols;
		float mx = -INFINITY;
		for (int j = 0; j < cols; j++)
			if (row[j] > mx)
				mx = row[j];
		if (mx == -INFINITY) {
			memset(row, 0, (size_t)cols * sizeof *row);
			continue;
		}
		double sum = 0;
		for (int j = 0; j < cols; j++) {
			row[j] = expf(row[j] - mx);
			sum += row[j];
		}
		float inv = (float)(1.0 / sum);
		for (int j = 0; j < cols; j++)
			row[j] *= inv;
	}
}

void op_layernorm(const float *x, int n, int d, const float *g, const float *b,
		  float eps, float *y)
{
	for (int i = 0; i < n; i++) {
		const float *xr = x + (size_t)i * d;
		float *yr = y + (size_t)i * d;
		double mean = 0, var = 0;
		for (int j = 0; j < d; j++)
			mean += xr[j];
		mean /= d;
		for (int j = 0; j < d; j++) {
			double c = xr[j] - mean;
			var += c * c;
		}
		var /= d;
		float inv = (float)(1.0 / sqrt(var + eps));
		for (int j = 0; j < d; j++) {
			float v = (float)(xr[j] - mean) * inv;
			yr[j] = v * (g ? g[j] : 1.0f) + (b ? b[j] : 0.0f);
		}
	}
}

void op_relu(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = x[i] > 0 ? x[i] : 0;
}

void op_gelu(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = 0.5f * x[i] * (1.0f + erff(x[i] * (float)M_SQRT1_2));
}

void op_sinusoid(int n, int d, float *out)
{
	for (int pos = 0; pos < n; pos++) {
		for (int i = 0; i < d; i += 2) {
			double a = pos / pow(10000.0, (double)i / d);
			out[(size_t)pos * d + i] = (float)sin(a);
			if (i + 1 < d)
				out[(size_t)pos * d + i + 1] = (float)cos(a);
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
