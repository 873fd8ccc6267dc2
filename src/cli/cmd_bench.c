/* cmd_bench.c - `attnscope bench`: median time of the traced forward pass,
 * its FLOP rate, and this machine's 1024³ sgemm rate measured in the same
 * run, so the ratio holds on a noisy machine. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "base/clock.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "engine/blas.h"
#include "engine/decode.h"
#include "engine/forward.h"
#include "engine/ops.h"
#include "engine/pool.h"
#include "train/checkpoint.h"
#include "views/screen.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The 1024³ sgemm that the pass is compared with, C = A·B, run as the
 * pass runs its products: on the engine's threads, each task a single-
 * threaded sgemm on a block of C's rows.  (OpenBLAS's own threads would
 * keep spinning after it and slow the pass that follows.)  Timed once per
 * call, so that bench can interleave it with the passes and both meet the
 * same machine: a shared machine's speed changes within seconds. */
struct sgemm_ref {
	int n, per;              /* per: rows of C per task */
	float *a, *b, *c;        /* [n, n] each */
};

static int sgemm_ref_init(struct sgemm_ref *r, int n)
{
	size_t sz = (size_t)n * n;
	r->n = n;
	r->per = (n + 2 * pool_threads() - 1) / (2 * pool_threads());
	r->a = malloc(sz * sizeof *r->a);
	r->b = malloc(sz * sizeof *r->b);
	r->c = malloc(sz * sizeof *r->c);
	if (!r->a || !r->b || !r->c)
		return -1;
	for (size_t i = 0; i < sz; i++) {
		r->a[i] = (float)((i * 7) % 13) / 13.0f;
		r->b[i] = (float)((i * 5) % 11) / 11.0f;
	}
	return 0;
}

static void sgemm_ref_task(void *arg, int t, int ntasks)
{
	const struct sgemm_ref *r = arg;
	const int n = r->n, i0 = t * r->per, m = i0 + r->per < n ? r->per : n - i0;
	if (m > 0)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, n, 1,
			    r->a + (size_t)i0 * n, n, r->b, n, 0, r->c + (size_t)i0 * n, n);
}

/* GFLOP/s of one product. */
static double sgemm_ref_run(struct sgemm_ref *r)
{
	const int n = r->n;
	double t0 = clock_ms();
	pool_run(sgemm_ref_task, r, (n + r->per - 1) / r->per);
	return 2.0 * n * n * n / ((clock_ms() - t0) * 1e6);
}

static void sgemm_ref_free(struct sgemm_ref *r)
{
	free(r->a);
	free(r->b);
	free(r->c);
}

double bench_sgemm_gflops(void)
{
	struct sgemm_ref r;
	double gf = sgemm_ref_init(&r, 1024) ? 0 : sgemm_ref_run(&r);
	sgemm_ref_free(&r);
	return gf;
}

/* Seconds of CPU this process has used, every thread. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Synthetic ids: <s>, ordinary tokens cycling through the vocabulary, </s>.
 * The decoder's prompt is its <s> (decoding starts after it, as input_build
 * sets it for an encoder-decoder). */
static int fill_ids(struct pass_input *in, const struct model *m, int S, int T)
{
	in->S = in->src_len = S;
	in->T = in->tgt_len = T;
	in->prompt = T > 0 ? 1 : 0;
	in->src_ids = calloc((size_t)S + 1, sizeof *in->src_ids);
	in->tgt_ids = calloc((size_t)T + 1, sizeof *in->tgt_ids);
	in->src_tok = calloc((size_t)S + 1, sizeof *in->src_tok);
	in->tgt_tok = calloc((size_t)T + 1, sizeof *in->tgt_tok);
	if (!in->src_ids || !in->tgt_ids || !in->src_tok || !in->tgt_tok)
		return -1;
	const struct vocab *vs = &m->src_vocab, *vt = &m->tgt_vocab;
	for (int i = 0; i < S; i++) {
		int id = vs->n > TOK_NSPECIAL ? TOK_NSPECIAL + i % (vs->n - TOK_NSPECIAL) : i % vs->n;
		in->src_ids[i] = id;
		if (!(in->src_tok[i] = strdup(vocab_str(vs, id))))
			return -1;
	}
	for (int i = 0; i < T; i++) {
		int id = i == 0 && m->tgt_sp[TOK_SOS] >= 0 ? m->tgt_sp[TOK_SOS] :
			 vt->n > TOK_NSPECIAL ? TOK_NSPECIAL + (i * 3) % (vt->n - TOK_NSPECIAL)
			 : (i * 3) % vt->n;
		in->tgt_ids[i] = id;
		if (!(in->tgt_tok[i] = strdup(vocab_str(vt, id))))
			return -1;
	}
	return 0;
}

/* Median ms to draw the stepper's screen (w × h, headless) on the decoder's
 * first self-attention weights, moving the cursor every frame; and median ms
 * of a recompute (the pass into the same trace) followed by one frame. */
static int bench_frames(const struct cli *c, const struct model *m,
			const struct pass_input *in, struct trace *tr)
{
	int w = c->width ? c->width : 200, h = c->height ? c->height : 60;
	struct canvas *cv = canvas_new(w, h, DEPTH_256);
	double *t = calloc((size_t)c->frames, sizeof *t);
	struct screen s;
	struct err e;
	memset(&s, 0, sizeof s);
	if (!cv || !t) {
		canvas_free(cv);
		free(t);
		return cli_fail("out of memory");
	}
	s.v.tr = tr;
	s.v.m = m;
	s.model_name = m->cfg.name;
	/* TRANSLATORS: shown as the sentence in the screen that `attnscope
	   bench` draws off screen: token ids made up for timing */
	s.sentence = _("(synthetic ids)");
	int idx = trace_index(tr, "decoder.0.self_attn.weights");
	s.v.stage = idx >= 0 ? idx : trace_index(tr, "encoder.0.self_attn.weights");
	if (s.v.stage < 0)
		s.v.stage = 0;
	int rows, cols;
	view_dims(&tr->stages[s.v.stage], &rows, &cols);
	for (int i = 0; i < c->frames; i++) {
		s.v.row = i % rows;
		s.v.col = (i * 7) % cols;
		double t0 = clock_ms();
		screen_draw(&s, cv);
		t[i] = clock_ms() - t0;
	}
	printf("frame: %d×%d on %s [%d×%d] median_ms=%.3f (%d frames)\n", w, h,
	       tr->stages[s.v.stage].name, rows, cols, bench_median(t, c->frames), c->frames);
	int n = c->frames < c->iters ? c->frames : c->iters, status = 0;
	for (int i = 0; i < n; i++) {
		double t0 = clock_ms();
		if (!forward_run(m, in, &c->pass, tr, &e)) {
			status = cli_fail("%s", e.msg);
			break;
		}
		s.v.stage = s.v.stage < tr->n ? s.v.stage : 0;
		screen_draw(&s, cv);
		t[i] = clock_ms() - t0;
	}
	if (!status)
		printf("recompute+frame: median_ms=%.3f (%d runs)\n", bench_median(t, n), n);
	canvas_free(cv);
	free(t);
	return status;
}

/* What a key in the stepper costs on the interactive size, 52+52
 * tokens (a long lecture sentence): a recompute (m/M/x: the pass into the
 * same trace, then one frame), the mask diff (the pass and the pass with
 * the causal mask flipped, then the frame of the diff view), and a step
 * (a frame after moving the cursor).  Medians of n runs. */
static int bench_interactive(const struct cli *c, const struct model *m)
{
	const struct config *g = &m->cfg;
	int len = g->max_len < 52 ? g->max_len : 52;
	int S = g->arch == ARCH_DEC_ONLY ? 0 : len, T = g->arch == ARCH_ENC_ONLY ? 0 : len;
	int n = c->frames < c->iters ? c->frames : c->iters;
	int w = c->width ? c->width : 200, h = c->height ? c->height : 60;
	struct pass_input in;
	struct pass_opts flip = c->pass;
	struct screen s;
	struct err e;
	int status = 1;
	memset(&in, 0, sizeof in);
	memset(&s, 0, sizeof s);
	snprintf(e.msg, sizeof e.msg, "out of memory");
	flip.causal = !flip.causal;
	struct trace *tr = trace_new(), *alt = trace_new();
	struct canvas *cv = canvas_new(w, h, DEPTH_256);
	double *t[3] = { calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double)),
			 calloc((size_t)n, sizeof(double)) };
	if (!tr || !alt || !cv || !t[0] || !t[1] || !t[2] || fill_ids(&in, m, S, T) ||
	    !forward_run(m, &in, &c->pass, tr, &e) || !forward_run(m, &in, &flip, alt, &e))
		goto out;
	s.v.m = m;
	s.model_name = g->name;
	s.sentence = _("(synthetic ids)");
	const char *name = T ? "decoder.0.self_attn.weights" : "encoder.0.self_attn.weights";
	for (int i = 0; i < n; i++) {
		/* recompute + frame */
		double t0 = clock_ms();
		if (!forward_run(m, &in, &c->pass, tr, &e))
			goto out;
		s.v.tr = tr;
		s.v.alt = NULL;
		s.v.mode = VM_STAGE;
		s.v.stage = trace_index(tr, name) >= 0 ? trace_index(tr, name) : 0;
		screen_draw(&s, cv);
		double t1 = clock_ms();
		/* mask diff: both passes, then the diff's frame */
		if (!forward_run(m, &in, &c->pass, tr, &e) || !forward_run(m, &in, &flip, alt, &e))
			goto out;
		s.v.alt = alt;
		s.v.mode = VM_MASK_DIFF;
		screen_draw(&s, cv);
		double t2 = clock_ms();
		/* a step: the cursor moves, one frame */
		s.v.alt = NULL;
		s.v.mode = VM_STAGE;
		s.v.row = i % len;
		s.v.col = (i * 7) % len;
		screen_draw(&s, cv);
		double t3 = clock_ms();
		t[0][i] = t1 - t0;
		t[1][i] = t2 - t1;
		t[2][i] = t3 - t2;
	}
	printf("interactive: S=%d T=%d recompute_frame_ms=%.2f mask_diff_ms=%.2f "
	       "step_ms=%.3f (%d runs)\n", S, T, bench_median(t[0], n), bench_median(t[1], n),
	       bench_median(t[2], n), n);
	status = 0;
out:
	if (status)
		cli_fail("%s", e.msg);
	for (int i = 0; i < 3; i++)
		free(t[i]);
	canvas_free(cv);
	trace_free(tr);
	trace_free(alt);
	input_free(&in);
	return status;
}

/* Beam search of exactly N output tokens (</s> held back until N) with
 * the key/value cache and with the decoder recomputed every step. */
static int bench_decode(const struct cli *c, const struct model *m,
			const struct pass_input *in)
{
	struct decode_opts o;
	struct decode_result r;
	struct err e;
	int n = c->max_out ? c->max_out : 48, reps = c->iters < 5 ? c->iters : 5;
	int done = n;
	double t[2][5];
	decode_opts_default(&o);
	o.beam = c->beam;
	o.min_len = o.max_len = n;
	for (int k = 0; k < 2; k++) {
		o.no_cache = k;
		/* recomputing is only the yardstick of the speedup, and slow */
		for (int i = 0; i < (k ? 1 : reps); i++) {
			if (decode_run(m, in, &c->pass, &o, &r, &e))
				return cli_fail("%s", e.msg);
			t[k][i] = r.ms;
			done = r.nsteps;   /* fewer than n when max_len is shorter */
			decode_result_free(&r);
		}
	}
	double a = bench_median(t[0], reps), b = t[1][0];
	printf("decode: beam=%d tokens=%d cached_ms=%.1f recomputed_ms=%.1f speedup=%.2f\n",
	       c->beam, done, a, b, a > 0 ? b / a : 0);
	return 0;
}

/* The timings of the passes: each pass's ms, its products' ms and the rest,
 * the sgemm measured after it; c->iters of each. */
struct pass_times {
	double *t, *gf_ref, *t_prod, *t_rest;
	double cpu, prod_flops;   /* CPU seconds of all passes; FLOPs of one pass's products */
	size_t bytes;             /* the trace's */
};

/* c->iters passes after a warm-up, as in the TUI each reusing the previous
 * trace's memory; after each pass, one 1024³ sgemm: the yardstick,
 * measured beside it.  0, or cli_fail's status. */
static int bench_passes(const struct cli *c, const struct model *m,
			const struct pass_input *in, struct trace *tr, struct pass_times *pt)
{
	struct err e;
	struct sgemm_ref ref;
	int status = 0;
	if (sgemm_ref_init(&ref, 1024) || !pt->gf_ref || !pt->t_prod || !pt->t_rest)
		status = cli_fail("out of memory");
	for (int i = -1; !status && tr && i < c->iters; i++) {   /* i = -1 warms up */
		double c0 = cpu_s(), t0 = clock_ms();
		op_meter(1);
		struct trace *r = forward_run(m, in, &c->pass, tr, &e);
		op_meter(0);
		double dt = clock_ms() - t0;
		if (!r) {
			status = cli_fail("%s", e.msg);
			break;
		}
		pt->bytes = trace_bytes(tr);
		if (i >= 0) {
			pt->t[i] = dt;
			pt->cpu += cpu_s() - c0;
			op_meter_read(&pt->t_prod[i], &pt->prod_flops);
			pt->t_rest[i] = dt - pt->t_prod[i];
		}
		double ref_gf = sgemm_ref_run(&ref);
		if (i >= 0)
			pt->gf_ref[i] = ref_gf;
	}
	sgemm_ref_free(&ref);
	return status;
}

/* The report of the passes: the model, the load, the BLAS, the medians,
 * the rates and the ratio to the sgemm. */
static void bench_report(const struct cli *c, const struct model *m, int S, int T,
			 double load_ms, struct pass_times *pt)
{
	const struct config *g = &m->cfg;
	double flops = forward_flops(m, S, T);
	double med = bench_median(pt->t, c->iters);   /* sorts t: t[0] is the least */
	double gf = flops / (med * 1e6);
	double peak = bench_median(pt->gf_ref, c->iters);
	struct blas_info b;
	blas_info_get(&b);
	char name[256];
	printf("model=%s S=%d T=%d iters=%d\n",
	       safetext_copy(name, sizeof name, g->name, 0), S, T, c->iters);
	/* the load (a GGUF file's dequantisation included) and the F32
	   weights it leaves in memory */
	printf("load_ms=%.0f weights_mb=%.1f params=%zu\n", load_ms,
	       (double)model_params(m, "") * 4 / 1048576.0, model_params(m, ""));
	/* chosen_by: the kernels are OpenBLAS's own choice, the
	   user's OPENBLAS_CORETYPE, or attnscope's correction */
	printf("blas=OpenBLAS version=%s core=%s chosen_by=%s", b.version, b.core,
	       b.from ? "attnscope" : b.user_core ? "user" : "openblas");
	if (b.from)
		printf(" corrected_from=%s", b.from);
	printf(" threads=%d parallel=%s library=%s\n", b.threads, b.parallel,
	       b.library);
	printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f\n", med, pt->t[0], pt->t[c->iters - 1]);
	printf("flops=%.4g gflops=%.2f\n", flops, gf);
	printf("sgemm_1024_gflops=%.2f ratio=%.3f\n", peak, peak > 0 ? gf / peak : 0);
	/* what the products alone reach: the ceiling of the ratio above */
	double pmed = bench_median(pt->t_prod, c->iters);
	double pgf = pmed > 0 ? pt->prod_flops / (pmed * 1e6) : 0;
	printf("products_ms=%.3f products_flops=%.4g products_gflops=%.2f"
	       " products_ratio=%.3f rest_ms=%.3f\n", pmed, pt->prod_flops, pgf,
	       peak > 0 ? pgf / peak : 0, bench_median(pt->t_rest, c->iters));
	/* CPU time is what a loaded machine distorts least */
	printf("cpu_ms=%.3f\n", pt->cpu * 1e3 / c->iters);   /* per pass, all threads */
	printf("trace_bytes=%zu\n", pt->bytes);
}

int cmd_bench(struct cli *c)
{
	double load0 = clock_ms();
	struct model *m = cli_load_model(c);
	const double load_ms = clock_ms() - load0;
	if (!m)
		return 1;
	if (c->sentence) {   /* --file: the stepper's costs on a long prompt */
		int r = bench_long(c, m, clock_ms() - load0);
		model_free(m);
		return r;
	}
	if (c->save_weights) {   /* e.g. for tests/bench/torch_base.py */
		struct err e;
		int r = ckpt_save_weights(m, c->save_weights, NULL, NULL, 0, &e);
		model_free(m);
		return r ? cli_fail("%s", e.msg) : 0;
	}
	const struct config *g = &m->cfg;
	if (c->beam && g->arch == ARCH_ENC_ONLY) {
		cli_fail("%s: an encoder-only model has no decoder: --beam has nothing to decode",
			 m->path);
		model_free(m);
		return 1;
	}
	int dflt = g->max_len < 64 ? g->max_len : 64;
	int S = g->arch == ARCH_DEC_ONLY ? 0 : c->src_len ? c->src_len : dflt;
	int T = g->arch == ARCH_ENC_ONLY ? 0 : c->tgt_len ? c->tgt_len : dflt;
	if (S > g->max_len || T > g->max_len) {
		cli_fail("lengths exceed the model's max_len %d", g->max_len);
		model_free(m);   /* g points into m */
		return 1;
	}
	struct pass_input in;
	memset(&in, 0, sizeof in);
	struct pass_times pt = { .t = calloc((size_t)c->iters, sizeof *pt.t) };
	if (!pt.t || fill_ids(&in, m, S, T)) {
		free(pt.t);
		input_free(&in);
		model_free(m);
		return cli_fail("out of memory");
	}
	struct trace *tr = trace_new();
	pt.gf_ref = calloc((size_t)c->iters, sizeof *pt.gf_ref);
	/* the pass's linear products (op_meter): their time, and the rest */
	pt.t_prod = calloc((size_t)c->iters, sizeof *pt.t_prod);
	pt.t_rest = calloc((size_t)c->iters, sizeof *pt.t_rest);
	int status = bench_passes(c, m, &in, tr, &pt);
	if (!tr && !status)
		status = cli_fail("out of memory");
	if (!status) {
		bench_report(c, m, S, T, load_ms, &pt);
		if (c->frames)
			status = bench_frames(c, m, &in, tr) || bench_interactive(c, m);
		if (c->beam && !status)
			status = bench_decode(c, m, &in);
	}
	free(pt.t);
	free(pt.gf_ref);
	free(pt.t_prod);
	free(pt.t_rest);
	trace_free(tr);
	input_free(&in);
	model_free(m);
	return status;
}
