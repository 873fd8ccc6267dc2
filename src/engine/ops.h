/* ops.h - the numeric building blocks of the forward pass.
 *
 * Every matrix product goes through cblas_sgemm.  Shapes are row-major;
 * weights follow PyTorch: W is [out, in] and y = x·Wᵀ + b. */
#ifndef ATTNSCOPE_OPS_H
#define ATTNSCOPE_OPS_H

#include <stddef.h>

/* y[n, out] = x[n, in] · w[out, in]ᵀ + b[out] (b may be NULL).  Large
 * products are split by output columns over the engine's threads (pool.h),
 * each part a single-threaded sgemm. */
void op_linear(const float *x, int n, int in, const float *w, const float *b,
	       int out, float *y);

/* The same, then an activation on each part while it is in cache. */
enum op_act { OP_IDENTITY, OP_RELU, OP_GELU };
void op_linear_act(const float *x, int n, int in, const float *w, const float *b,
		   int out, float *y, enum op_act act);

/* For bench: op_meter(1) zeroes a count of the wall time and the FLOPs of
 * op_linear(_act)'s products and starts it, op_meter(0) stops it. */
void op_meter(int on);
void op_meter_read(double *ms, double *flops);

/* c[m, n] = alpha · a[m, k] · b[n, k]ᵀ, with leading dimensions. */
void op_matmul_nt(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k, float alpha);
/* c[m, n] = alpha · a[m, k] · b[k, n], with leading dimensions: at small
 * sizes OpenBLAS's kernel for this form is about twice the one for
 * a·bᵀ. */
void op_matmul_nn(const float *a, int lda, const float *b, int ldb, float *c,
		  int ldc, int m, int n, int k, float alpha);

/* Row-wise softmax in place over [rows, cols], with an exp of its own
 * (four at a time, within 1 ulp of glibc's expf; 0 below e^-87).  Entries
 * equal to -inf get weight 0.  A row that is entirely -inf (every key masked) becomes all
 * zeros: nothing is attended to, and weights·V gives a zero vector. */
void op_softmax_rows(float *x, int rows, int cols);

/* The same with glibc's expf, which op_softmax_rows's own exp matches
 * within 1 ulp at 2-4× its speed: the trainer's, because the shipped
 * models were trained with it, and `make` regenerates their weights byte
 * for byte. */
void op_softmax_rows_expf(float *x, int rows, int cols);

/* y = (x - mean) / sqrt(var + eps) · g + b per row of [n, d]; biased
 * variance, as torch.nn.LayerNorm. */
void op_layernorm(const float *x, int n, int d, const float *g, const float *b,
		  float eps, float *y);

/* sum = x + r, then y = op_layernorm(sum), row by row while the row is in
 * cache (the residual and the norm of a post-norm sublayer). */
void op_add_layernorm(const float *x, const float *r, int n, int d,
		      const float *g, const float *b, float eps, float *sum,
		      float *y);

/* One row of op_layernorm, and its mean and 1/sqrt(var + eps) (either
 * may be NULL): the trainer's forward, the same arithmetic. */
void op_layernorm_row(const float *x, int d, const float *g, const float *b,
		      float eps, float *y, float *mean, float *rstd);

/* y = (x - mean) / (std + eps) · g + b per row, std unbiased (d − 1): the
 * Annotated Transformer's LayerNorm. */
void op_layernorm_std(const float *x, int n, int d, const float *g,
		      const float *b, float eps, float *y);

/* y = x / √(mean(x²) + eps) · (offset + g) per row of [n, d]: RMSNorm
 * (Llama: offset 0; Gemma: offset 1); the mean of squares in double. */
void op_rmsnorm(const float *x, int n, int d, const float *g, float offset,
		float eps, float *y);

void op_relu(float *x, size_t n);
void op_silu(float *x, size_t n);     /* x·σ(x) = x / (1 + e^−x) */
/* y = a + b; y overlaps neither */
void op_add(const float *restrict a, const float *restrict b, float *restrict y,
	    size_t n);
void op_gelu(float *x, size_t n);     /* exact: x·Φ(x), with erf */
void op_gelu_new(float *x, size_t n); /* tanh approximation (GPT-2, minGPT) */

/* out[cols, rows] = a[rows, cols]ᵀ, in cache-sized blocks. */
void op_transpose(const float *a, int rows, int cols, float *out);

/* Sinusoidal positional encoding rows [n, d] (Vaswani et al. §3.5). */
void op_sinusoid(int n, int d, float *out);
/* Marian's arrangement of the same sinusoid: out[pos, i] = sin(pos /
 * 10000^(2i/d)) for i < ⌈d/2⌉, out[pos, ⌈d/2⌉ + i] = cos(…) after. */
void op_sinusoid_halves(int n, int d, float *out);

/* Triple loop reference for tests: c[m, n] = a[m, k] · b[n, k]ᵀ. */
void op_matmul_nt_naive(const float *a, const float *b, float *c, int m, int n,
			int k, float alpha);

/* Whether the log-probabilities lp [B, V] are distributions: no NaN, no
 * +inf, and a finite entry in every row (−inf is a token of probability
 * 0, as a bias of −inf makes it).  Logits that overflow to ±inf make every
 * entry NaN. */
int op_dist_finite(const float *lp, int B, int V);

#endif
