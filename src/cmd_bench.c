/* cmd_bench.c - `attnscope bench`: median time of the traced forward pass,
 * its FLOP rate, and this machine's 1024³ sgemm rate measured in the same
 * run, so the ratio holds on a noisy machine. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "forward.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median GFLOP/s of C = A·B at n³. */
static double sgemm_gflops(int n, int reps)
{
	size_t sz = (size_t)n * n;
	float *a = malloc(sz * sizeof *a), *b = malloc(sz * sizeof *b),
	      *c = malloc(sz * sizeof *c);
	double *t = malloc((size_t)reps * sizeof *t), r = 0;
	if (a && b && c && t) {
		for (size_t i = 0; i < sz; i++) {
			a[i] = (float)((i * 7) % 13) / 13.0f;
			b[i] = (float)((i * 5) % 11) / 11.0f;
		}
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1,
			    a, n, b, n, 0, c, n);   /* warm-up */
		for (int i = 0; i < reps; i++) {
			double t0 = now_ms();
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
				    1, a, n, b, n, 0, c, n);
			t[i] = now_ms() - t0;
		}
		r = 2.0 * n * n * n / (median(t, reps) * 1e6);
	}
	free(a); free(b); free(c); free(t);
	return r;
}

/* Synthetic ids: <s>, ordinary tokens cycling through the vocabulary, </s>. */
static int fill_ids(struct pass_input *in, const struct model *m, int S, int T)
{
	in->S = in->src_len = S;
	in->T = in->tgt_len = T;
	in->src_ids = calloc((size_t)S + 1, sizeof *in->src_ids);
	in->tgt_ids = calloc((size_t)T + 1, sizeof *in->tgt_ids);
	in->src_tok = calloc((size_t)S + 1, sizeof *in->src_tok);
	in->tgt_tok = calloc((size_t)T + 1, sizeof *in->tgt_tok);
	if (!in->src_ids || !in->tgt_ids || !in->src_tok || !in->tgt_tok)
		return -1;
	const struct vocab *vs = &m->src_vocab, *vt = &m->tgt_vocab;
	for (int i = 0; i < S; i++) {
		int id = vs->n > TOK_NSPECIAL ? TOK_NSPECIAL + i % (vs->n - TOK_NSPECIAL) : TOK_UNK;
		in->src_ids[i] = id;
		if (!(in->src_tok[i] = strdup(vocab_str(vs, id))))
			return -1;
	}
	for (int i = 0; i < T; i++) {
		int id = i == 0 ? TOK_SOS :
			 vt->n > TOK_NSPECIAL ? TOK_NSPECIAL + (i * 3) % (vt->n - TOK_NSPECIAL) : TOK_UNK;
		in->tgt_ids[i] = id;
		if (!(in->tgt_tok[i] = strdup(vocab_str(vt, id))))
			return -1;
	}
	return 0;
}

int cmd_bench(struct cli *c)
{
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	const struct config *g = &m->cfg;
	int S = g->arch == ARCH_DEC_ONLY ? 0 : c->src_len;
	int T = g->arch == ARCH_ENC_ONLY ? 0 : c->tgt_len;
	if (S > g->max_len || T > g->max_len) {
		model_free(m);
		return cli_fail("lengths exceed the model's max_len %d", g->max_len);
	}
	struct pass_input in;
	memset(&in, 0, sizeof in);
	double *t = calloc((size_t)c->iters, sizeof *t);
	if (!t || fill_ids(&in, m, S, T)) {
		free(t);
		input_free(&in);
		model_free(m);
		return cli_fail("out of memory");
	}
	struct err e;
	size_t bytes = 0;
	int status = 0;
	/* as in the TUI, each pass reuses the previous trace's memory */
	struct trace *tr = trace_new();
	for (int i = -1; tr && i < c->iters; i++) {   /* i = -1 warms up */
		double t0 = now_ms();
		struct trace *r = forward_run(m, &in, &c->pass, tr, &e);
		double dt = now_ms() - t0;
		if (!r) {
			status = cli_fail("%s", e.msg);
			break;
		}
		bytes = trace_bytes(tr);
		if (i >= 0)
			t[i] = dt;
	}
	if (!tr)
		status = cli_fail("out of memory");
	trace_free(tr);
	if (!status) {
		double flops = forward_flops(m, S, T);
		double med = median(t, c->iters);
		double gf = flops / (med * 1e6);
		double peak = sgemm_gflops(1024, 9);
		printf("model=%s S=%d T=%d iters=%d\n", g->name, S, T, c->iters);
		printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f\n", med, t[0], t[c->iters - 1]);
		printf("flops=%.4g gflops=%.2f\n", flops, gf);
		printf("sgemm_1024_gflops=%.2f ratio=%.3f\n", peak, peak > 0 ? gf / peak : 0);
		printf("trace_bytes=%zu\n", bytes);
	}
	free(t);
	input_free(&in);
	model_free(m);
	return status;
}
