/* test_view_inspect_maskdiff.c - the cell inspector and the mask diff, headless.
 *
 * Model tests/data/tiny.yaml; "your cat is a lovely cat" → "seu gato é um
 * gato adorável", run twice: with the decoder's causal mask (on) and
 * without it (off).  Snapshots at 100×30 without colour, plus checks that
 * can fail on their own: the inspector's Σ q_a×k_a ÷ √dk is the stored
 * score, the mask diff's ON side has −∞ (×) exactly above the diagonal and
 * the OFF side none, and every size from 1×1 up draws inside its rect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "views/palette.h"

static const char *SRC = "your cat is a lovely cat";
static const char *TGT = "seu gato é um gato adorável";

/* The number after the first occurrence of key in text, or NAN. */
static double number_after(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;
	if (!p)
		return NAN;
	/* the views write a true minus sign (U+2212) */
	const char *q = p + strlen(key);
	int neg = strncmp(q, "−", 3) == 0;
	if (neg)
		q += 3;
	char *end;
	double x = strtod(q, &end);
	return end == q ? NAN : neg ? -x : x;
}

static float stored(const struct trace *t, const char *name, int h, int i, int j)
{
	const struct stage *s = trace_find(t, name);
	return stage_f32(s)[((size_t)h * s->shape[1] + i) * s->shape[2] + j];
}

/* For every head and cell of an attention block, the inspector's printed
 * q·k ÷ √dk and its "stored score" both match the .scores stage. */
static void check_sums(struct view_state *v, const char *prefix)
{
	char nm[96];
	snprintf(nm, sizeof nm, "%s.weights", prefix);
	if (vt_state(v, v->tr, v->m, nm)) {
		tap_ok(0, "%s: stage present", nm);
		return;
	}
	snprintf(nm, sizeof nm, "%s.q", prefix);
	const struct stage *q = trace_find(v->tr, nm);
	snprintf(nm, sizeof nm, "%s.scores", prefix);
	const struct stage *sc = trace_find(v->tr, nm);
	const int H = sc->shape[0], nq = sc->shape[1], nk = sc->shape[2];
	const double rdk = sqrt((double)q->shape[2]);
	int bad = 0, cells = 0;
	double worst = 0;
	v->mode = VM_INSPECT;
	for (int h = 0; h < H; h++)
		for (int i = 0; i < nq; i++)
			for (int j = 0; j < nk; j++) {
				v->head = h;
				v->row = i;
				v->col = j;
				char *txt = vt_render(v, 100, 30, DEPTH_NONE);
				double sum = number_after(txt, "q·k = ");
				double st = number_after(txt, "stored score ");
				float want = stored(v->tr, nm, h, i, j);
				/* printed to four significant digits (fmt_cell) */
				double d1 = fabs(sum / rdk - want), d2 = fabs(st - want);
				double tol = 5.01e-4 * fabs(want) + 1e-6;
				if (!(d1 <= tol) || !(d2 <= tol)) {
					if (!bad)
						printf("# %s h%d (%d,%d): sum %g / √dk = %g, "
						       "printed %g, stored %g\n", prefix,
						       h, i, j, sum, sum / rdk, st, want);
					bad++;
				}
				if (d1 > worst)
					worst = d1;
				cells++;
				free(txt);
			}
	tap_ok(bad == 0 && cells > 0,
	       "%s: printed Σ q_a×k_a ÷ √dk = stored score to 4 digits in %d cells (max diff %.2g)",
	       prefix, cells, worst);
}

/* Draws into a w×h rect of a larger canvas and checks nothing outside the
 * rect changed and the geometry lies inside it. */
static void check_inside(struct view_state *v, int w, int h, const char *what)
{
	struct rect r = { 3, 3, w, h };   /* where vt_outside puts the rect */
	int out = vt_outside(v, w, h, DEPTH_TRUE);
	int geom_ok = !v->geom.valid ||
		      (v->geom.x0 >= r.x && v->geom.y0 >= r.y &&
		       v->geom.x0 + v->geom.nc * v->geom.cw <= r.x + r.w &&
		       v->geom.y0 < r.y + r.h);
	tap_ok(out == 0 && geom_ok, "%s at %d×%d draws only inside its rect "
	       "(%d cells outside)", what, w, h, out);
	/* and without colour, straight into a canvas of that size */
	char *txt = vt_render(v, w, h, DEPTH_NONE);
	free(txt);
}

static void check_sizes(struct view_state *v, const char *what)
{
	static const int sz[][2] = { { 1, 1 }, { 10, 5 }, { 30, 8 }, { 60, 18 },
				     { 59, 17 }, { 300, 100 }, { 0, 0 }, { 5, 0 } };
	for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
		check_inside(v, sz[i][0], sz[i][1], what);
}

static int count_in_half(const struct canvas *c, int left, int y0, int y1,
			 const char *g)
{
	int n = 0;
	for (int y = y0; y < y1 && y < c->h; y++)
		for (int x = left ? 0 : c->w / 2; x < (left ? c->w / 2 : c->w); x++)
			n += strcmp(c->cells[(size_t)y * c->w + x].glyph, g) == 0;
	return n;
}

/* The mask diff with the ON pass current: × exactly above the diagonal on
 * the left, none on the right. */
static void check_mask_triangle(struct view_state *v)
{
	struct canvas *c = canvas_new(100, 30, DEPTH_NONE);
	struct rect r = { 0, 0, 100, 30 };
	view_clamp(v);
	view_for(v)->draw(v, c, r);
	const struct grid_geom *g = &v->geom;
	if (!tap_ok(g->valid && g->x0 < 50, "mask diff: the current (ON) matrix "
		    "is drawn on the left and sets geom")) {
		canvas_free(c);
		return;
	}
	int wrong = 0, crosses = 0;
	for (int i = 0; i < g->nr; i++)
		for (int j = 0; j < g->nc; j++) {
			/* the × sits mid-cell, or first in a cell of numbers */
			int x = g->x0 + j * g->cw + (g->cw >= 7 ? 0 : g->cw / 2);
			int y = g->y0 + i / g->rh;
			const char *gl = c->cells[(size_t)y * c->w + x].glyph;
			int is_x = strcmp(gl, NEGINF_GLYPH) == 0;
			int want = g->left + j > g->top + i;
			wrong += is_x != want;
			crosses += is_x;
		}
	tap_ok(wrong == 0 && crosses > 0, "mask diff ON side: × exactly in the "
	       "upper triangle (%d ×, %d cells wrong)", crosses, wrong);
	int right = count_in_half(c, 0, g->y0, g->y0 + g->nr, NEGINF_GLYPH);
	tap_ok(right == 0, "mask diff OFF side: no × (found %d)", right);
	canvas_free(c);
}

int main(void)
{
	struct model *m = vt_model("tests/data/tiny.yaml");
	if (!tap_ok(m != NULL, "tiny model loads"))
		return tap_done();
	struct pass_opts on, off;
	pass_opts_default(&on);
	pass_opts_default(&off);
	on.causal = 1;
	off.causal = 0;
	struct trace *ton = vt_pass(m, SRC, TGT, &on);
	struct trace *toff = vt_pass(m, SRC, TGT, &off);
	if (!tap_ok(ton && toff, "two passes (causal on and off)"))
		return tap_done();
	struct view_state v;
	char *txt;

	/* --- inspector --- */
	vt_state(&v, ton, m, "decoder.0.self_attn.weights");
	v.mode = VM_INSPECT;
	v.head = 1;
	v.row = 2;   /* "gato" */
	v.col = 1;   /* "seu" */
	tap_ok(view_for(&v) == &inspect_view, "VM_INSPECT picks the inspector");
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	vt_snapshot("inspect_dec0_self", txt);
	tap_contains(txt, "query: decoder token “gato → é”", "self: query named, with the word it predicts");
	tap_contains(txt, "key: decoder token “seu”", "self: key named");
	tap_contains(txt, "+ mask 0", "self: visible key has mask 0");
	tap_ok(v.geom.valid && v.geom.nr == 1 && v.geom.top == 2 &&
	       v.geom.nc == 7, "inspector geom is the weight strip of the row");
	free(txt);

	v.col = 5;   /* a future key */
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "+ mask −∞ (future key: causal mask)",
		     "self: a future key is masked and says why");
	tap_contains(txt, "weight 0 (masked: no rank)", "self: its weight is 0, and it has no rank");
	tap_ok(!strstr(txt, "(rank "), "self: a masked key is not ranked");
	free(txt);

	vt_state(&v, ton, m, "decoder.1.cross_attn.weights");
	v.mode = VM_INSPECT;
	v.head = 1;
	v.row = 2;   /* "gato" */
	v.col = 2;   /* "cat" */
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	vt_snapshot("inspect_dec1_cross", txt);
	tap_contains(txt, "query: decoder token “gato → é”", "cross: query is a decoder token, with the word it predicts");
	tap_contains(txt, "key: source token “cat”", "cross: key is a source token");
	tap_contains(txt, "cross-attention", "cross: says cross-attention");
	free(txt);

	/* the same through the scores stage */
	vt_state(&v, ton, m, "decoder.1.cross_attn.scores");
	v.mode = VM_INSPECT;
	tap_ok(view_for(&v) == &inspect_view, "the inspector shows for .scores too");

	v.tr = ton;
	check_sums(&v, "decoder.0.self_attn");
	check_sums(&v, "decoder.1.cross_attn");
	check_sums(&v, "encoder.1.self_attn");

	vt_state(&v, ton, m, "decoder.1.cross_attn.weights");
	v.mode = VM_INSPECT;
	v.head = 3;
	v.row = 6;
	v.col = 7;
	check_sizes(&v, "inspector");

	/* --- mask diff --- */
	vt_state(&v, ton, m, "decoder.0.self_attn.weights");
	v.alt = toff;
	v.mode = VM_MASK_DIFF;
	v.head = 0;
	v.row = 2;
	v.col = 1;
	tap_ok(view_for(&v) == &maskdiff_view, "VM_MASK_DIFF picks the mask diff");
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	vt_snapshot("maskdiff_dec0_self", txt);
	tap_contains(txt, "with the causal mask", "ON side titled: with the mask");
	tap_contains(txt, "without the causal mask", "OFF side titled: without");
	tap_ok(!strstr(txt, "this pass") && !strstr(txt, "other pass"),
	       "no 'this pass / other pass'");
	{
		/* the total variation distance of the cursor row, as printed */
		const struct stage *pa = trace_find(ton, "probs");
		const struct stage *pb = trace_find(toff, "probs");
		int V = pa->shape[1];
		double tv = 0;
		for (int j = 0; j < V; j++)
			tv += fabs(stage_f32(pa)[2 * V + j] - stage_f32(pb)[2 * V + j]);
		tv *= 0.5;
		double got = number_after(txt, "½·Σ|p−q| = ");
		tap_ok(fabs(got - tv) <= 1e-4, "mask diff: total variation %g "
		       "(want %g)", got, tv);
	}
	free(txt);
	check_mask_triangle(&v);
	check_sizes(&v, "mask diff");

	/* the OFF pass on screen: ON still on the left, titles follow opts */
	vt_state(&v, toff, m, "decoder.0.self_attn.weights");
	v.alt = ton;
	v.mode = VM_MASK_DIFF;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "without the causal mask", "OFF current: titled by its opts");
	tap_contains(txt, "with the causal mask", "ON other: titled by its opts");
	tap_ok(v.geom.valid && v.geom.x0 >= 50, "OFF current: geom on the right");
	free(txt);

	/* encoder stage: the decoder mask does not change it */
	vt_state(&v, ton, m, "encoder.0.self_attn.weights");
	v.alt = toff;
	v.mode = VM_MASK_DIFF;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "does not reach the encoder", "encoder: explained");
	tap_contains(txt, "max |Δ| 0)", "encoder: both sides equal");
	free(txt);

	/* no other pass */
	vt_state(&v, ton, m, "decoder.0.self_attn.weights");
	v.alt = NULL;
	v.mode = VM_MASK_DIFF;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "needs the other pass", "no alt: says so");
	tap_ok(v.geom.valid, "no alt: the current head is still drawn");
	free(txt);
	check_sizes(&v, "mask diff without alt");

	trace_free(ton);
	trace_free(toff);
	model_free(m);
	return tap_done();
}
