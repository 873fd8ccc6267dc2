/* cmd_bench_long.c - `attnscope bench --file FILE`: what the stepper costs
 * on a long prompt (issue 42).  Medians of --iters runs of each:
 *   open     tokenizing the file and the traced pass, as the stepper opens
 *            (a lazy trace past TRACE_LAZY_BYTES), each followed by the
 *            1024³ sgemm that rates the machine in the same run
 *   step     a frame after moving the cursor on the last layer's attention
 *   heads    a frame of all its heads; model: a frame of the model view
 *   layer    another layer's attention weights read (a lazy trace computes
 *            that layer again) and drawn, a different layer each run
 * and the trace's bytes after the open and the process's peak resident
 * size (getrusage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "commands.h"
#include "base/clock.h"
#include "engine/forward.h"
#include "views/screen.h"

/* Milliseconds of CPU this process has used, every thread: what a loaded
 * machine distorts least. */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Median ms of n frames of s's screen, the cursor moved before each. */
static double frames(struct screen *s, struct canvas *cv, int n, double *t)
{
	int rows = view_stage(&s->v)->shape[1], cols = view_stage(&s->v)->shape[2];
	for (int i = 0; i < n; i++) {
		s->v.row = (i * 37) % rows;
		s->v.col = (i * 11) % cols;
		view_clamp(&s->v);
		double t0 = clock_ms();
		trace_pin(s->v.tr, s->v.stage);
		screen_draw(s, cv);
		t[i] = clock_ms() - t0;
	}
	return bench_median(t, n);
}

/* The opens: input and pass, a fresh trace each time (kept: the last). */
static struct trace *opens(const struct cli *c, const struct model *m, int n, double *t,
			   double *gf, double *cpu, int *T)
{
	struct trace *tr = NULL;
	for (int i = 0; i < n; i++) {
		struct pass_input in;
		struct err e;
		trace_free(tr);
		double t0 = clock_ms(), c0 = cpu_ms();
		if (input_build(m, c->sentence, NULL, &c->pass, &in, &e)) {
			cli_fail("%s", e.msg);
			return NULL;
		}
		tr = forward_run(m, &in, &c->pass, NULL, &e);
		t[i] = clock_ms() - t0;
		cpu[i] = cpu_ms() - c0;
		*T = m->cfg.arch == ARCH_ENC_ONLY ? in.S : in.T;
		input_free(&in);
		if (!tr) {
			cli_fail("%s", e.msg);
			return NULL;
		}
		gf[i] = bench_sgemm_gflops();
	}
	return tr;
}

int bench_long(const struct cli *c, const struct model *m, double load_ms)
{
	const int n = c->iters, nf = c->frames ? c->frames : 20;
	const char *blk = m->cfg.arch == ARCH_ENC_ONLY ? "encoder" : "decoder";
	const int L = m->cfg.arch == ARCH_ENC_ONLY ? m->cfg.enc_layers : m->cfg.dec_layers;
	double *t = calloc((size_t)(n > nf ? n : nf), sizeof *t), *gf = calloc((size_t)n, sizeof *gf);
	double *cpu = calloc((size_t)(n > nf ? n : nf), sizeof *cpu);
	struct canvas *cv = canvas_new(c->width ? c->width : 200, c->height ? c->height : 60,
				       DEPTH_256);
	int T = 0, status = 1;
	struct trace *tr = t && gf && cpu && cv ? opens(c, m, n, t, gf, cpu, &T) : NULL;
	if (!tr)
		goto out;
	size_t bytes = trace_bytes(tr);
	double open = bench_median(t, n), rate = bench_median(gf, n);
	double fl = forward_flops(m, m->cfg.arch == ARCH_ENC_ONLY ? T : 0, T);
	if (trace_is_lazy(tr) && m->cfg.arch != ARCH_ENC_ONLY)   /* the output waits */
		fl -= 2.0 * T * m->cfg.d_model * m->tgt_vocab.n;
	printf("model=%s T=%d L=%d load_ms=%.0f trace=%s trace_bytes=%zu\n", m->cfg.name, T, L,
	       load_ms, trace_is_lazy(tr) ? "lazy" : "full", bytes);
	printf("open_ms=%.0f (median of %d) open_cpu_ms=%.0f open_gflop=%.1f gflops=%.2f "
	       "sgemm_1024_gflops=%.2f ratio=%.3f\n", open, n, bench_median(cpu, n), fl / 1e9,
	       fl / (open * 1e6), rate, rate > 0 ? fl / (open * 1e6) / rate : 0);
	struct screen s;
	char name[STAGE_NAME_MAX];
	memset(&s, 0, sizeof s);
	s.v.tr = tr;
	s.v.m = m;
	s.model_name = m->cfg.name;
	s.sentence = c->sentence;
	snprintf(name, sizeof name, "%s.%d.self_attn.weights", blk, L - 1);
	if ((s.v.stage = trace_index(tr, name)) < 0)
		goto out;
	printf("step_ms=%.2f", frames(&s, cv, nf, t));
	s.v.mode = VM_HEADS;
	printf(" all_heads_ms=%.2f", frames(&s, cv, nf, t));
	s.v.mode = VM_MODEL;
	printf(" model_view_ms=%.2f (%d frames %dx%d, %s)\n", frames(&s, cv, nf, t), nf, cv->w,
	       cv->h, name);
	s.v.mode = VM_STAGE;
	int k = 0;
	for (; k < n && k < L - 1; k++) {   /* layers 0, 1, ...: not held */
		snprintf(name, sizeof name, "%s.%d.self_attn.weights", blk, k);
		s.v.stage = trace_index(tr, name);
		double t0 = clock_ms(), c0 = cpu_ms();
		if (!stage_data(&tr->stages[s.v.stage]))
			break;
		screen_draw(&s, cv);
		t[k] = clock_ms() - t0;
		cpu[k] = cpu_ms() - c0;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("other_layer_ms=%.0f other_layer_cpu_ms=%.0f (median of %d layers computed again: "
	       "%ld) peak_rss_mb=%.0f\n", k ? bench_median(t, k) : 0, k ? bench_median(cpu, k) : 0, k,
	       trace_refills(tr), ru.ru_maxrss / 1024.0);
	status = 0;
out:
	trace_free(tr);
	canvas_free(cv);
	free(t);
	free(gf);
	free(cpu);
	return status;
}
