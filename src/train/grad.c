/* grad.c - training's layer operations: forward with saved statistics, and
 * backward.  See grad.h for the conventions (row-major, weights [out, in],
 * gradients accumulate). */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "grad.h"
#include "engine/ops.h"

void grad_linear(const float *dy, const float *x, const float *w, int n,
		 int in, int out, float *dx, float *dw, float *db)
{
	if (n <= 0)
		return;
	if (dx)   /* dx[n, in] += dy[n, out]·w[out, in] */
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, in, out,
			    1.0f, dy, out, w, in, 1.0f, dx, in);
	if (dw)   /* dw[out, in] += dy[n, out]ᵀ·x[n, in] */
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, n,
			    1.0f, dy, out, x, in, 1.0f, dw, in);
	if (db)
		for (int i = 0; i < n; i++) {
			const float *r = dy + (size_t)i * out;
			for (int j = 0; j < out; j++)
				db[j] += r[j];
		}
}

void grad_layernorm_fwd(const float *x, int n, int d, const float *g,
			const float *b, float eps, float *y, float *mean,
			float *rstd)
{
	for (int i = 0; i < n; i++)
		op_layernorm_row(x + (size_t)i * d, d, g, b, eps, y + (size_t)i * d,
				 mean + i, rstd + i);
}

void grad_layernorm_bwd(const float *dy, const float *x, const float *mean,
			const float *rstd, const float *g, int n, int d,
			float *dx, float *dg, float *db)
{
	for (int i = 0; i < n; i++) {
		const float *xr = x + (size_t)i * d, *dyr = dy + (size_t)i * d;
		const float mu = mean[i], rs = rstd[i];
		/* dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), dx̂ = dy·g */
		double s1 = 0, s2 = 0;
		for (int j = 0; j < d; j++) {
			float xh = (xr[j] - mu) * rs;
			float dxh = dyr[j] * (g ? g[j] : 1.0f);
			s1 += dxh;
			s2 += (double)dxh * xh;
			if (dg)
				dg[j] += dyr[j] * xh;
			if (db)
				db[j] += dyr[j];
		}
		if (!dx)
			continue;
		const float m1 = (float)(s1 / d), m2 = (float)(s2 / d);
		float *dxr = dx + (size_t)i * d;
		for (int j = 0; j < d; j++) {
			float xh = (xr[j] - mu) * rs;
			float dxh = dyr[j] * (g ? g[j] : 1.0f);
			dxr[j] += rs * (dxh - m1 - xh * m2);
		}
	}
}

void grad_act_fwd(enum activation a, const float *pre, float *y, size_t n)
{
	if (a == ACT_GELU) {
		memcpy(y, pre, n * sizeof *y);
		op_gelu(y, n);
		return;
	}
	/* op_relu's values (NaN and −0 give 0 there too), without a branch */
	for (size_t i = 0; i < n; i++)
		y[i] = fmaxf(pre[i], 0.0f);
}

void grad_act_bwd(enum activation a, const float *dy, const float *pre,
		  float *dpre, size_t n)
{
	if (a == ACT_RELU) {
		for (size_t i = 0; i < n; i++)   /* branch-free: signs are random */
			dpre[i] += dy[i] * (float)(pre[i] > 0);
		return;
	}
	/* d/dx x·Φ(x) = Φ(x) + x·φ(x) */
	const float inv_sqrt_2pi = 0.39894228040143267794f;
	for (size_t i = 0; i < n; i++) {
		float x = pre[i];
		float cdf = 0.5f * (1.0f + erff(x * (float)M_SQRT1_2));
		float pdf = inv_sqrt_2pi * expf(-0.5f * x * x);
		dpre[i] += dy[i] * (cdf + x * pdf);
	}
}

void grad_embed_fwd(const int32_t *ids, int B, int n, const float *table,
		    int d, float scale, const float *pos, float *out)
{
	for (int b = 0; b < B; b++)
		for (int i = 0; i < n; i++) {
			const float *e = table + (size_t)ids[(size_t)b * n + i] * d;
			const float *p = pos ? pos + (size_t)i * d : NULL;
			float *o = out + ((size_t)b * n + i) * d;
			for (int j = 0; j < d; j++)   /* (E·scale) + pos, as forward.c */
				o[j] = e[j] * scale + (p ? p[j] : 0.0f);
		}
}

void grad_embed_bwd(const float *dout, const int32_t *ids, int B, int n,
		    int d, float scale, float *dtable, float *dpos)
{
	for (int b = 0; b < B; b++)
		for (int i = 0; i < n; i++) {
			const float *g = dout + ((size_t)b * n + i) * d;
			if (dtable) {
				float *t = dtable + (size_t)ids[(size_t)b * n + i] * d;
				for (int j = 0; j < d; j++)
					t[j] += scale * g[j];
			}
			if (dpos) {
				float *p = dpos + (size_t)i * d;
				for (int j = 0; j < d; j++)
					p[j] += g[j];
			}
		}
}

static int masked(const struct grad_attn *a, int b, int i, int j)
{
	return j >= a->key_len[b] || (a->causal && j > i);
}

void grad_attn_fwd(const struct grad_attn *a, const float *q, int ldq,
		   const float *k, int ldk, const float *v, int ldv,
		   float *att, float *ctx)
{
	const int nq = a->nq, nk = a->nk, dk = a->dk, d = a->h * a->dk;
	const float scale = 1.0f / sqrtf((float)dk);
	const size_t qk = (size_t)nq * nk;
	/* the per-head products are small: threads cost more than they give */
	int threads = openblas_get_num_threads();
	openblas_set_num_threads(1);
	for (int b = 0; b < a->B; b++)
		for (int hh = 0; hh < a->h; hh++) {
			const float *qb = q + (size_t)b * nq * ldq + hh * dk;
			const float *kb = k + (size_t)b * nk * ldk + hh * dk;
			const float *vb = v + (size_t)b * nk * ldv + hh * dk;
			float *A = att + ((size_t)b * a->h + hh) * qk;
			if (nk > 0 && dk > 0)
				op_matmul_nt(qb, ldq, kb, ldk, A, nk, nq, nk, dk, scale);
			for (int i = 0; i < nq; i++)
				for (int j = 0; j < nk; j++)
					if (masked(a, b, i, j))
						A[(size_t)i * nk + j] = -INFINITY;
			op_softmax_rows_expf(A, nq, nk);
			float *cb = ctx + (size_t)b * nq * d + hh * dk;
			if (nk > 0)
				op_matmul_nn(A, nk, vb, ldv, cb, d, nq, dk, nk, 1.0f);
			else
				for (int i = 0; i < nq; i++)
					memset(cb + (size_t)i * d, 0, (size_t)dk * sizeof *cb);
		}
	openblas_set_num_threads(threads);
}

void grad_attn_bwd(const struct grad_attn *a, const float *dctx,
		   const float *q, int ldq, const float *k, int ldk,
		   const float *v, int ldv, const float *att, float *dq,
		   float *dk, float *dv, float *scratch)
{
	const int nq = a->nq, nk = a->nk, dkk = a->dk, d = a->h * a->dk;
	const float scale = 1.0f / sqrtf((float)dkk);
	const size_t qk = (size_t)nq * nk;
	if (nq <= 0 || nk <= 0 || dkk <= 0)
		return;
	int threads = openblas_get_num_threads();
	openblas_set_num_threads(1);
	for (int b = 0; b < a->B; b++)
		for (int hh = 0; hh < a->h; hh++) {
			const size_t qo = (size_t)b * nq * ldq + hh * dkk;
			const size_t ko = (size_t)b * nk * ldk + hh * dkk;
			const size_t vo = (size_t)b * nk * ldv + hh * dkk;
			const float *A = att + ((size_t)b * a->h + hh) * qk;
			const float *dc = dctx + (size_t)b * nq * d + hh * dkk;
			float *dS = scratch;
			/* dA[nq, nk] = dctx·vᵀ */
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nq, nk, dkk,
				    1.0f, dc, d, v + vo, ldv, 0.0f, dS, nk);
			/* dv[nk, dk] += Aᵀ·dctx */
			if (dv)
				cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, dkk, nq,
					    1.0f, A, nk, dc, d, 1.0f, dv + vo, ldv);
			/* softmax backward: dS = A ⊙ (dA − Σ_j A·dA); masked → 0 */
			for (int i = 0; i < nq; i++) {
				const float *ar = A + (size_t)i * nk;
				float *sr = dS + (size_t)i * nk;
				double dot = 0;
				for (int j = 0; j < nk; j++)
					dot += (double)ar[j] * sr[j];
				for (int j = 0; j < nk; j++)
					sr[j] = ar[j] * (sr[j] - (float)dot);
			}
			/* dq += scale·dS·k, dk += scale·dSᵀ·q */
			if (dq)
				cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nq, dkk, nk,
					    scale, dS, nk, k + ko, ldk, 1.0f, dq + qo, ldq);
			if (dk)
				cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, dkk, nq,
					    scale, dS, nk, q + qo, ldq, 1.0f, dk + ko, ldk);
		}
	openblas_set_num_threads(threads);
}

double grad_xent(const float *logits, const int32_t *labels, int n, int V,
		 float eps, float scale, float *dlogits, double *smoothed)
{
	double nll = 0, sm = 0;
	for (int i = 0; i < n; i++) {
		if (labels[i] < 0)
			continue;
		const float *r = logits + (size_t)i * V;
		float mx = -INFINITY;
		for (int j = 0; j < V; j++)
			mx = r[j] > mx ? r[j] : mx;
		double sum = 0, sumlog = 0;
		for (int j = 0; j < V; j++) {
			sum += exp((double)r[j] - mx);
			sumlog += (double)r[j];
		}
		const double lse = mx + log(sum);
		/* −log p(label), and the mean of −log p_j over the vocabulary */
		const double l = lse - r[labels[i]];
		const double u = lse - sumlog / V;
		nll += l;
		sm += (1.0 - eps) * l + eps * u;
		if (!dlogits)
			continue;
		float *g = dlogits + (size_t)i * V;
		const float unif = eps / (float)V;
		for (int j = 0; j < V; j++) {
			float p = (float)exp((double)r[j] - lse);
			g[j] += (p - unif) * scale;
		}
		g[labels[i]] -= (1.0f - eps) * scale;
	}
	if (smoothed)
		*smoothed = sm;
	return nll;
}
