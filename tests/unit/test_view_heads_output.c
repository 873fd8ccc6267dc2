/* test_view_heads_output.c - the heads grid, the output distribution / loss and the
 * positional-encoding curves: text snapshots at 100×30 without colour, the
 * output view's ranking against the probs stage, and drawing at odd sizes
 * and colour depths (nothing written outside the view's rectangle). */
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"

static const char SENTENCE[] = "your cat is a lovely cat";
static const char TARGET[] = "seu gato é um gato adorável";

static int snap(struct view_state *v, const char *name, int flags)
{
	v->mode = (enum view_mode)flags;
	char *txt = vt_render(v, 100, 30, DEPTH_NONE);
	int ok = vt_snapshot(name, txt);
	free(txt);
	return ok;
}

/* Draws into a w×h rect of a larger canvas; no cell outside may change. */
static int draws_inside(struct view_state *v, int w, int h, enum depth d)
{
	return vt_outside(v, w, h, d) == 0;
}

static const struct {
	const char *stage;
	int flags;
	const char *what;
} CASES[] = {
	{ "encoder.0.self_attn.weights", VM_HEADS, "heads grid (weights)" },
	{ "decoder.0.self_attn.masked", VM_HEADS, "heads grid (masked)" },
	{ "decoder.1.cross_attn.weights", VM_HEADS, "heads grid (cross)" },
	{ "encoder.0.self_attn.q", VM_HEADS, "heads grid (q)" },
	{ "encoder.0.self_attn.weights", VM_MEAN, "mean over heads" },
	{ "logits", 0, "output (logits)" },
	{ "probs", 0, "output (probs)" },
	{ "loss", 0, "output (loss)" },
	{ "src.pos", VM_CURVES, "posenc (src)" },
	{ "tgt.pos", VM_CURVES, "posenc (tgt)" },
};

/* Distance, in shade levels, from the nearest glyph boundary of the
 * values a heads snapshot draws: level = 4·|v|/M (diverging, M the largest
 * finite |v| of the stage: one scale for all heads) or 4·v (weights),
 * boundaries at half-integers.  The snapshots are kernel-independent when
 * that distance is far above what float32 rounding can move a value:
 * 1e-4 levels is a change of 2.5e-5·M, about 420 float32 ulps of M,
 * where scores and weights differ across BLAS kernels by a few ulps
 * (observed margins: 3e-4 … 2e-3 levels).  mean: the weights averaged over
 * the heads, as the mean view draws them. */
static double boundary_margin(const struct stage *s, int diverging, int mean)
{
	const float *x = stage_f32(s);
	size_t n = stage_numel(s);
	double mx = 0, worst = 1;
	for (size_t i = 0; i < n; i++) {
		double a = x[i] < 0 ? -(double)x[i] : x[i];
		if (x[i] == x[i] && a < 3e38 && a > mx)
			mx = a;
	}
	const size_t per = mean ? n / (size_t)s->shape[0] : n;
	for (size_t i = 0; i < per; i++) {
		double v = x[i];
		if (mean) {
			v = 0;
			for (int h = 0; h < s->shape[0]; h++)
				v += x[(size_t)h * per + i];
			v /= s->shape[0];
		}
		double a = v < 0 ? -v : v;
		if (v != v || a >= 3e38)   /* −∞ (masked) has its own glyph */
			continue;
		double t = 4 * (diverging ? a / mx : v), f = t - (double)(long)t;
		double d = f > 0.5 ? f - 0.5 : 0.5 - f;
		if (d < worst)
			worst = d;
	}
	return worst;
}

int main(void)
{
	struct model *m = vt_model("tests/data/tiny.yaml");
	if (!tap_ok(m != NULL, "load tiny.yaml"))
		return tap_done();
	struct trace *t = vt_pass(m, SENTENCE, TARGET, NULL);
	if (!tap_ok(t != NULL, "forward pass with a target"))
		return tap_done();
	struct view_state v;

	/* the views are the ones view_for picks */
	vt_state(&v, t, m, "encoder.0.self_attn.weights");
	v.mode = VM_HEADS;
	tap_ok(view_for(&v) == &heads_view, "VM_HEADS on weights picks heads_view");
	vt_state(&v, t, m, "probs");
	tap_ok(view_for(&v) == &output_view, "probs picks output_view");
	vt_state(&v, t, m, "src.pos");
	v.mode = VM_CURVES;
	tap_ok(view_for(&v) == &posenc_view, "VM_CURVES on src.pos picks posenc_view");

	/* snapshots at 100×30 without colour */
	if (!vt_state(&v, t, m, "encoder.0.self_attn.weights")) {
		v.head = 1;
		v.row = 2;
		v.col = 5;
		snap(&v, "heads_weights", VM_HEADS);
		tap_ok(v.geom.valid && v.geom.cw >= 1 && v.geom.nr == t->S &&
		       v.geom.nc == t->S, "heads grid sets geom for the selected tile");
		v.head = 0;
		snap(&v, "heads_mean", VM_MEAN);
		tap_ok(v.geom.valid, "mean over heads sets geom");
	}
	if (!vt_state(&v, t, m, "decoder.0.self_attn.masked")) {
		v.head = 3;
		snap(&v, "heads_masked", VM_HEADS);
	}
	if (!vt_state(&v, t, m, "probs")) {
		v.row = 2;
		snap(&v, "output_probs", 0);
	}
	if (!vt_state(&v, t, m, "logits")) {
		v.row = 4;
		snap(&v, "output_logits", 0);
	}
	if (!vt_state(&v, t, m, "loss")) {
		v.row = 1;
		snap(&v, "output_loss", 0);
	}
	if (!vt_state(&v, t, m, "src.pos")) {
		v.row = 3;
		snap(&v, "posenc_src", VM_CURVES);
	}

	/* the heads snapshots' cells sit far from every shade boundary (the
	 * legends' tie cells are handled by vt_snapshot) */
	static const struct { const char *stage; int div, mean; } DRAWN[] = {
		{ "encoder.0.self_attn.weights", 0, 0 },
		{ "encoder.0.self_attn.weights", 0, 1 },
		{ "decoder.0.self_attn.masked", 1, 0 },
	};
	for (size_t k = 0; k < sizeof DRAWN / sizeof *DRAWN; k++) {
		const struct stage *s = trace_find(t, DRAWN[k].stage);
		double mg = s && s->ndim == 3 ? boundary_margin(s, DRAWN[k].div, DRAWN[k].mean) : 0;
		tap_ok(mg >= 1e-4, "%s%s: every drawn value %.2g shade levels or more from a "
		       "glyph boundary (need 1e-4)", DRAWN[k].stage,
		       DRAWN[k].mean ? " (mean over heads)" : "", mg);
	}

	/* the output view's first bar is the arg-max of the probs row */
	const struct stage *ps = trace_find(t, "probs");
	if (tap_ok(ps && ps->ndim == 2, "probs stage is [T, V]")) {
		const int V = ps->shape[1];
		for (int row = 0; row < ps->shape[0]; row++) {
			const float *p = stage_f32(ps) + (size_t)row * V;
			int best = 0;
			for (int j = 1; j < V; j++)
				if (p[j] > p[best])
					best = j;
			vt_state(&v, t, m, "probs");
			v.row = row;
			char *txt = vt_render(&v, 100, 30, DEPTH_NONE);
			/* the line of rank 1: "  1 TOKEN ..." after the header */
			char want[128];
			snprintf(want, sizeof want, "│   1 %s ", m->tgt_vocab.tok[best]);
			int ok = strstr(txt, want) != NULL;
			tap_ok(ok, "position %d: top bar is the arg-max “%s”", row,
			       m->tgt_vocab.tok[best]);
			if (!ok)
				printf("# rendered:\n%s", txt);
			free(txt);
		}
	}

	/* the loss view's mean matches the stage (labels: target + </s>) */
	const struct stage *ls = trace_find(t, "loss");
	if (tap_ok(ls != NULL, "loss stage present")) {
		double sum = 0;
		for (int i = 0; i < ls->shape[0]; i++)
			sum += stage_f32(ls)[i];
		char want[64];
		snprintf(want, sizeof want, "mean loss %.3f over %d positions",
			 sum / ls->shape[0], ls->shape[0]);
		vt_state(&v, t, m, "loss");
		char *txt = vt_render(&v, 100, 30, DEPTH_NONE);
		tap_contains(txt, want, "loss view shows the mean over positions");
		free(txt);
	}

	/* odd sizes and colour depths: no crash, nothing outside the rect */
	static const int SIZES[][2] = { { 1, 1 }, { 10, 5 }, { 60, 18 },
					{ 300, 100 }, { 2, 40 }, { 120, 3 } };
	static const enum depth DEPTHS[] = { DEPTH_NONE, DEPTH_8, DEPTH_256, DEPTH_TRUE };
	for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
		int bad = 0;
		for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++)
			for (size_t di = 0; di < sizeof DEPTHS / sizeof DEPTHS[0]; di++) {
				if (vt_state(&v, t, m, CASES[k].stage)) {
					bad++;
					continue;
				}
				v.mode = (enum view_mode)CASES[k].flags;
				v.row = 3;
				v.col = 7;
				v.head = 2;
				if (!draws_inside(&v, SIZES[si][0], SIZES[si][1], DEPTHS[di])) {
					printf("# %s wrote outside %dx%d at depth %d\n",
					       CASES[k].what, SIZES[si][0], SIZES[si][1],
					       (int)DEPTHS[di]);
					bad++;
				}
			}
		tap_ok(bad == 0, "%s: 1×1 … 300×100 at every depth, clipped", CASES[k].what);
	}

	/* a 0-row rectangle draws nothing and does not crash */
	{
		struct canvas *c = canvas_new(20, 5, DEPTH_TRUE);
		struct rect r = { 0, 0, 20, 0 };
		int ok = 1;
		for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
			if (vt_state(&v, t, m, CASES[k].stage))
				continue;
			v.mode = (enum view_mode)CASES[k].flags;
			canvas_clear(c);
			view_for(&v)->draw(&v, c, r);
			for (int i = 0; i < c->w * c->h; i++)
				ok &= strcmp(c->cells[i].glyph, " ") == 0;
		}
		canvas_free(c);
		tap_ok(ok, "a 0-row rectangle draws nothing");
	}

	/* a long sequence: the grid clips, the mean covers it */
	{
		char longs[2048] = "";
		for (int i = 0; i < 40; i++)
			strcat(longs, i % 2 ? "cat " : "your ");
		struct trace *lt = vt_pass(m, longs, TARGET, NULL);
		if (tap_ok(lt != NULL, "forward pass on 42 source tokens")) {
			int ok = 1;
			vt_state(&v, lt, m, "encoder.1.self_attn.weights");
			v.row = 30;
			v.col = 35;
			v.mode = VM_HEADS;
			ok &= draws_inside(&v, 60, 18, DEPTH_NONE);
			ok &= v.geom.valid && v.row >= v.geom.top &&
			      v.row < v.geom.top + v.geom.nr &&
			      v.col >= v.geom.left && v.col < v.geom.left + v.geom.nc;
			v.mode = VM_MEAN;
			ok &= draws_inside(&v, 60, 18, DEPTH_TRUE);
			tap_ok(ok, "long sequence: cursor stays in the visible tile");
			trace_free(lt);
		}
	}

	trace_free(t);
	model_free(m);
	return tap_done();
}
