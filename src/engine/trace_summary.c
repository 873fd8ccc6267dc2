/* trace_summary.c - what a lazy trace keeps of a layer's attention weights
 * when it drops them: each head pooled to at most TRACE_THUMB ×
 * TRACE_THUMB (max and mean) and its entropy and pattern shares, so that
 * the model view draws every layer without computing any again.  One pass
 * over a head's weights computes all of them, the heads in parallel;
 * the numbers are those of weights_entropy, weights_share and stage_pool
 * (the same sums in the same order).
 *
 * Dimension names: h heads, n rows (queries), m columns (keys), pr × pc a
 * head's thumbnail. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "trace.h"

/* Rows r0..r1 of a [*, m] matrix pooled into pc column blocks: each
 * block's max into omax, the mean of its finite values into omean (-inf
 * when none is); either may be NULL. */
static void pool_rows(const float *w, int m, int r0, int r1, int pc, float *omax, float *omean)
{
	for (int j = 0; j < pc; j++) {
		const int c0 = (int)((long long)j * m / pc);
		int c1 = (int)((long long)(j + 1) * m / pc);
		c1 = c1 > c0 ? c1 : c0 + 1;
		float mx = -INFINITY;
		double sum = 0;
		long k = 0;
		for (int r = r0; r < r1; r++) {
			const float *row = w + (size_t)r * m;
			for (int c = c0; c < c1; c++) {
				const float x = row[c];
				mx = x > mx ? x : mx;
				if (isfinite(x)) {
					sum += x;
					k++;
				}
			}
		}
		if (omax)
			omax[j] = mx;
		if (omean)
			omean[j] = k ? (float)(sum / k) : -INFINITY;
	}
}

void stage_pool(const float *m, int rows, int cols, int pr, int pc, int mean, float *out)
{
	for (int i = 0; i < pr; i++) {
		const int r0 = (int)((long long)i * rows / pr);
		int r1 = (int)((long long)(i + 1) * rows / pr);
		r1 = r1 > r0 ? r1 : r0 + 1;
		float *o = out + (size_t)i * pc;
		pool_rows(m, cols, r0, r1, pc, mean ? NULL : o, mean ? o : NULL);
	}
}

const float *stage_thumb(const struct stage *s, int mean, int *pr, int *pc)
{
	if (!s->thumb)
		return NULL;
	*pr = s->thumb_r;
	*pc = s->thumb_c;
	return s->thumb + (mean ? (size_t)s->shape[0] * s->thumb_r * s->thumb_c : 0);
}

double weights_entropy(const float *w, int nq, int nk)
{
	double total = 0;
	int rows = 0;
	for (int i = 0; i < nq; i++) {
		double h = 0, sum = 0;
		for (int j = 0; j < nk; j++) {
			double p = w[(size_t)i * nk + j];
			sum += p;
			if (p > 0)
				h -= p * log2(p);
		}
		if (sum > 0.5) {   /* fully masked rows (all zero) do not count */
			total += h;
			rows++;
		}
	}
	return rows ? total / rows : 0;
}

/* Row r's largest weight: its column (the first of equals). */
static int row_best(const float *r, int nk)
{
	int best = 0;
	for (int j = 1; j < nk; j++)
		if (r[j] > r[best])
			best = j;
	return best;
}

double weights_share(const float *w, int nq, int nk, int kind)
{
	int hit = 0, rows = 0;
	for (int i = 0; i < nq; i++) {
		const float *r = w + (size_t)i * nk;
		int best = row_best(r, nk);
		if (r[best] <= 0 || (kind == 1 && i == 0))
			continue;
		rows++;
		hit += best == (kind == 0 ? i : kind == 1 ? i - 1 : 0) && r[best] >= 0.5f;
	}
	return rows ? (double)hit / rows : 0;
}

int stage_head_stats(const struct stage *s, int h, double *entropy, double share[3])
{
	if (!s->stats || h < 0 || h >= s->shape[0])
		return -1;
	*entropy = s->stats[4 * h];
	for (int k = 0; k < 3; k++)
		share[k] = s->stats[4 * h + 1 + k];
	return 0;
}

/* One stage's summary: a task per head (pool_run). */
struct summary_job {
	const float *w;          /* [h, n, m] */
	int n, m, pr, pc;
	float *tmax, *tmean;     /* [h, pr, pc] each */
	double *stats;           /* [h, 4] */
};

static void summary_task(void *arg, int hh, int ntasks)
{
	const struct summary_job *J = arg;
	const int n = J->n, m = J->m;
	const float *w = J->w + (size_t)hh * n * m;
	const size_t per = (size_t)J->pr * J->pc;
	double total = 0;
	int rows = 0, hit[3] = { 0, 0, 0 }, seen[3] = { 0, 0, 0 };
	(void)ntasks;
	for (int ib = 0; ib < J->pr; ib++) {
		const int r0 = (int)((long long)ib * n / J->pr);
		int r1 = (int)((long long)(ib + 1) * n / J->pr);
		r1 = r1 > r0 ? r1 : r0 + 1;
		pool_rows(w, m, r0, r1, J->pc, J->tmax + hh * per + (size_t)ib * J->pc,
			  J->tmean + hh * per + (size_t)ib * J->pc);
	}
	for (int i = 0; i < n; i++) {   /* weights_entropy's and _share's rows */
		const float *r = w + (size_t)i * m;
		double h = 0, sum = 0;
		for (int j = 0; j < m; j++) {
			double p = r[j];
			sum += p;
			if (p > 0)
				h -= p * log2(p);
		}
		if (sum > 0.5) {
			total += h;
			rows++;
		}
		int best = row_best(r, m);
		if (r[best] <= 0)
			continue;
		for (int kind = 0; kind < 3; kind++) {
			if (kind == 1 && i == 0)
				continue;
			seen[kind]++;
			hit[kind] += best == (kind == 0 ? i : kind == 1 ? i - 1 : 0) && r[best] >= 0.5f;
		}
	}
	J->stats[4 * hh] = rows ? total / rows : 0;
	for (int kind = 0; kind < 3; kind++)
		J->stats[4 * hh + 1 + kind] = seen[kind] ? (double)hit[kind] / seen[kind] : 0;
}

void trace_summarise(struct trace *t, int first, int last)
{
	for (int i = first; i < last; i++) {
		struct stage *s = &t->stages[i];
		if (s->thumb || s->kind != SK_WEIGHTS || s->ndim != 3 || !s->data)
			continue;
		const int h = s->shape[0], n = s->shape[1], m = s->shape[2];
		const int pr = n < TRACE_THUMB ? n : TRACE_THUMB, pc = m < TRACE_THUMB ? m : TRACE_THUMB;
		const size_t per = (size_t)pr * pc;
		s->thumb = malloc(2 * (size_t)h * per * sizeof *s->thumb);
		s->stats = malloc(4 * (size_t)h * sizeof *s->stats);
		if (!s->thumb || !s->stats) {   /* an overview without them reads the data */
			free(s->thumb);
			free(s->stats);
			s->thumb = NULL;
			s->stats = NULL;
			continue;
		}
		s->thumb_r = pr;
		s->thumb_c = pc;
		struct summary_job J = { s->data, n, m, pr, pc, s->thumb, s->thumb + h * per,
					 s->stats };
		pool_hot(1);
		pool_run(summary_task, &J, h);
		pool_hot(0);
	}
}
