/* test_lazy.c - a lazy trace read in any order gives the full pass's
 * stages bit for bit, holds at most TRACE_LAZY_KEEP layers, keeps the
 * pinned one, and a pointer stays valid until another layer is read.
 * (The same stages, file against file, for every shipped model and the
 * Hugging Face families: tests/lazy_trace.test.) */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "engine/forward.h"
#include "engine/input.h"
#include "engine/trace.h"

#define MODELS ATTNSCOPE_SRCDIR "/models/"

static struct trace *pass(const struct model *m, const char *sentence, const char *target,
			  int mode)
{
	struct pass_input in;
	struct pass_opts o;
	struct err e = { "" };
	pass_opts_default(&o);
	o.trace_mode = mode;
	if (input_build(m, sentence, target, &o, &in, &e)) {
		tap_ok(0, "input_build: %s", e.msg);
		return NULL;
	}
	struct trace *t = forward_run(m, &in, &o, NULL, &e);
	input_free(&in);
	if (!t)
		tap_ok(0, "forward_run: %s", e.msg);
	return t;
}

/* Reads lazy's stages in the order ord[0..n) and compares each with full's;
 * returns the first differing stage, or -1. */
static int compare(const struct trace *full, const struct trace *lazy, const int *ord, int n)
{
	for (int k = 0; k < n; k++) {
		const struct stage *a = &full->stages[ord[k]], *b = &lazy->stages[ord[k]];
		const void *pb = stage_data(b);
		if (strcmp(a->name, b->name) || !pb ||
		    memcmp(stage_data(a), pb, stage_numel(a) * 4))
			return ord[k];
		if (trace_groups_live(lazy) > TRACE_LAZY_KEEP)
			return ord[k];
	}
	return -1;
}

static void orders(const char *file, const char *sentence, const char *target)
{
	struct err e = { "" };
	struct model *m = model_load(file, &e);
	if (!tap_ok(m != NULL, "load %s", strrchr(file, '/') + 1)) {
		printf("# %s\n", e.msg);
		return;
	}
	struct trace *full = pass(m, sentence, target, TRACE_FULL);
	struct trace *lazy = pass(m, sentence, target, TRACE_LAZY);
	if (!full || !lazy)
		goto out;
	tap_ok(!trace_is_lazy(full) && trace_is_lazy(lazy) && full->n == lazy->n,
	       "%s: full and lazy traces have the same %d stages", m->cfg.name, full->n);
	tap_ok(trace_bytes(lazy) < trace_bytes(full),
	       "%s: the lazy trace holds less (%zu bytes against %zu)", m->cfg.name,
	       trace_bytes(lazy), trace_bytes(full));
	const int n = full->n;
	int *ord = malloc((size_t)n * sizeof *ord);
	for (int i = 0; i < n; i++)
		ord[i] = n - 1 - i;
	int bad = compare(full, lazy, ord, n);
	tap_ok(bad < 0, "%s: read backwards, every stage equal, at most %d layers held",
	       m->cfg.name, TRACE_LAZY_KEEP);
	if (bad >= 0)
		printf("# first difference: %s\n", full->stages[bad].name);
	unsigned r = 12345;
	for (int i = n - 1; i > 0; i--) {   /* a seeded shuffle */
		r = r * 1103515245u + 12345u;
		int j = (int)((r >> 8) % (unsigned)(i + 1)), x = ord[i];
		ord[i] = ord[j];
		ord[j] = x;
	}
	long before = trace_refills(lazy);
	bad = compare(full, lazy, ord, n);
	tap_ok(bad < 0 && trace_refills(lazy) > before,
	       "%s: read in a random order (%ld layers computed again), every stage equal",
	       m->cfg.name, trace_refills(lazy) - before);
	/* the pinned layer stays while the others are read */
	int w0 = trace_index(lazy, "decoder.0.self_attn.weights");
	if (w0 < 0)
		w0 = trace_index(lazy, "encoder.0.self_attn.weights");
	const float *p = stage_f32(&lazy->stages[w0]);
	trace_pin(lazy, w0);
	before = trace_refills(lazy);
	for (int i = 0; i < n; i++)
		stage_data(&lazy->stages[i]);
	tap_ok(lazy->stages[w0].data == p && trace_refills(lazy) > before,
	       "%s: the pinned layer is held while every other is read", m->cfg.name);
	trace_pin(lazy, -1);
	free(ord);
out:
	trace_free(full);
	trace_free(lazy);
	model_free(m);
}

/* stage_pool, which the overviews of long matrices draw: a 3 × 5 matrix
 * with two masked cells pooled into 2 × 2 blocks (rows {0} {1,2}, columns
 * {0,1} {2,3,4}), by hand: max 2 5 12 15; mean of the finite values 1.5 4
 * 29/3 11. */
static void pooling(void)
{
	const float ninf = -INFINITY;
	const float m[15] = { 1, 2, 3, 4, 5, 6, ninf, 8, 9, 10, 11, 12, 13, ninf, 15 };
	const float want_max[4] = { 2, 5, 12, 15 }, want_mean[4] = { 1.5f, 4, 29.0f / 3, 11 };
	float got[4];
	stage_pool(m, 3, 5, 2, 2, 0, got);
	tap_close(got, want_max, 4, 0, "stage_pool: the max of each block");
	stage_pool(m, 3, 5, 2, 2, 1, got);
	tap_close(got, want_mean, 4, 1e-6, "stage_pool: the mean of each block's finite values");
}

int main(void)
{
	pooling();
	orders(MODELS "en-pt-tiny.yaml", "i love you very much", "eu te amo muito");
	orders(MODELS "en-pt-small.yaml", "your cat is a lovely cat", NULL);
	orders(MODELS "base.yaml", "your cat is a lovely cat", "seu gato");
	return tap_done();
}
