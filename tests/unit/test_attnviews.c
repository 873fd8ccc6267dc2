/* test_attnviews.c - the views BertViz and Transformer Explainer users
 * expect (issue 16): the head view (lines).
 *
 * Text snapshots without colour; view_for picks the view from every stage
 * of an attention; the bar list's numbers are the selected head's weights
 * of the selected query (read back off the screen, against the stage);
 * hiding every head leaves no line; the selected query's label is drawn
 * in the cursor's style; nothing is drawn outside the view's rectangle at
 * any size and colour depth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "views/palette.h"

static const char SENTENCE[] = "your cat is a lovely cat";
static const char TARGET[] = "seu gato é um gato adorável";

static int snap(struct view_state *v, const char *name, int flags, int w, int h)
{
	v->flags = flags;
	char *txt = vt_render(v, w, h, DEPTH_NONE);
	int ok = vt_snapshot(name, txt);
	free(txt);
	return ok;
}

/* Cells holding a braille glyph (U+2801…U+28FF) in a canvas. */
static int braille_cells(const struct canvas *c)
{
	int n = 0;
	for (int i = 0; i < c->w * c->h; i++) {
		const unsigned char *g = (const unsigned char *)c->cells[i].glyph;
		n += g[0] == 0xE2 && (g[1] == 0xA0 || g[1] == 0xA1 || g[1] == 0xA2 ||
				      g[1] == 0xA3) && !(g[1] == 0xA0 && g[2] == 0x80);
	}
	return n;
}

static struct canvas *draw(struct view_state *v, int w, int h, enum depth d)
{
	struct canvas *c = canvas_new(w, h, d);
	view_clamp(v);
	view_for(v)->draw(v, c, (struct rect){ 0, 0, w, h });
	return c;
}

/* The number at the end of line y of text (0-based), or NAN; −1 when
 * the line ends in "masked". */
static double line_value(const char *text, int y)
{
	const char *p = text;
	for (int i = 0; i < y && p; i++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return NAN;
	const char *e = strchr(p, '\n');
	char line[2048], *end;
	snprintf(line, sizeof line, "%.*s", e ? (int)(e - p) : (int)strlen(p), p);
	char *last = strrchr(line, ' ');
	if (!last)
		return NAN;
	if (!strcmp(last, " masked"))
		return -1;
	double x = strtod(last + 1, &end);
	return end == last + 1 || *end ? NAN : x;
}

static void lines_tests(const struct model *m, const struct trace *t)
{
	struct view_state v;

	/* every stage of an attention opens the head view; others do not */
	static const char *const ATT[] = {
		"encoder.0.self_attn.q", "encoder.0.self_attn.scores",
		"encoder.1.self_attn.weights", "decoder.0.self_attn.masked",
		"decoder.1.cross_attn.weights", "decoder.1.cross_attn.out",
	};
	for (size_t i = 0; i < sizeof ATT / sizeof *ATT; i++) {
		if (vt_state(&v, t, m, ATT[i]))
			continue;
		v.flags = VF_LINES;
		tap_ok(view_for(&v) == &lines_view, "VF_LINES on %s picks the head view", ATT[i]);
	}
	if (!vt_state(&v, t, m, "encoder.0.norm1")) {
		v.flags = VF_LINES;
		tap_ok(view_for(&v) != &lines_view, "VF_LINES on encoder.0.norm1 keeps its own view");
	}

	/* snapshots: encoder self, decoder self (causal), cross */
	if (!vt_state(&v, t, m, "encoder.1.self_attn.weights")) {
		v.head = 3;
		v.row = 5;
		v.col = 3;
		snap(&v, "lines_enc1_self", VF_LINES, 100, 24);
	}
	if (!vt_state(&v, t, m, "decoder.0.self_attn.weights")) {
		v.head = 1;
		v.row = 4;
		snap(&v, "lines_dec0_self", VF_LINES, 100, 24);
	}
	if (!vt_state(&v, t, m, "decoder.1.cross_attn.scores")) {
		v.head = 0;
		v.row = 2;
		snap(&v, "lines_dec1_cross", VF_LINES, 80, 20);
	}

	/* the bars are the selected head's weights of the selected query */
	static const struct { const char *stage; int head, row; } BARS[] = {
		{ "encoder.1.self_attn.weights", 3, 5 },
		{ "decoder.0.self_attn.weights", 2, 3 },
		{ "decoder.1.cross_attn.weights", 1, 6 },
	};
	for (size_t k = 0; k < sizeof BARS / sizeof *BARS; k++) {
		if (vt_state(&v, t, m, BARS[k].stage))
			continue;
		const struct stage *s = view_stage(&v);
		v.flags = VF_LINES;
		v.head = BARS[k].head;
		v.row = BARS[k].row;
		char *txt = vt_render(&v, 110, 30, DEPTH_NONE);
		const int nk = s->shape[2];
		const float *w = view_slice(s, v.head) + (size_t)v.row * nk;   /* [nk] */
		double worst = 0, sum = 0;
		int found = 0, masked = 0;
		/* at 110×30 the keys sit two lines apart from line 3 (the title,
		 * the hint, the bars' heading above them) */
		for (int j = 0; j < nk; j++) {
			double x = line_value(txt, 3 + 2 * j);
			sum += w[j];
			if (isnan(x))
				continue;
			found++;
			if (x == -1) {   /* a masked key: its weight is 0 */
				masked++;
				worst = w[j] != 0 ? 1 : worst;
				continue;
			}
			worst = fabs(x - w[j]) > worst ? fabs(x - w[j]) : worst;
		}
		tap_ok(found == nk && worst <= 0.0051 && fabs(sum - 1) < 1e-5,
		       "%s head %d query %d: %d bars equal the weights to 2 decimals, %d "
		       "masked keys with weight 0 (worst %.4f; the row sums to %.6f)",
		       BARS[k].stage, BARS[k].head, BARS[k].row, found, masked, worst, sum);
		free(txt);
	}

	/* hiding heads: every head hidden, no line; one shown, fewer lines */
	if (!vt_state(&v, t, m, "encoder.1.self_attn.weights")) {
		v.flags = VF_LINES;
		v.row = 2;
		struct canvas *c = draw(&v, 100, 24, DEPTH_TRUE);
		int all = braille_cells(c);
		canvas_free(c);
		v.heads_off = ~1ull;
		c = draw(&v, 100, 24, DEPTH_TRUE);
		int one = braille_cells(c);
		canvas_free(c);
		v.heads_off = ~0ull;
		c = draw(&v, 100, 24, DEPTH_TRUE);
		int none = braille_cells(c);
		canvas_free(c);
		tap_ok(all > one && one > 0 && none == 0,
		       "head toggles: %d line cells with every head, %d with head 0 only, "
		       "%d with none", all, one, none);
		v.heads_off = 0;

		/* the selected query is drawn in the cursor's style */
		v.row = 4;
		c = draw(&v, 100, 24, DEPTH_NONE);
		struct style cu = role_style(R_CURSOR, DEPTH_NONE);
		int hit = 0;
		for (int y = 0; y < c->h && !hit; y++)
			for (int x = 0; x + 1 < c->w && !hit; x++) {
				const struct cell *a = &c->cells[(size_t)y * c->w + x];
				hit = !strcmp(a->glyph, "a") && a->attr == cu.attr &&
				      !strcmp(c->cells[(size_t)y * c->w + x + 1].glyph, " ") &&
				      x < 20;
			}
		canvas_free(c);
		tap_ok(hit, "the selected query “a” (4) is drawn in the cursor's style");
	}

	/* never outside the rectangle, at any size and depth */
	static const int SIZES[][2] = { { 100, 24 }, { 53, 19 }, { 30, 8 }, { 12, 4 },
					{ 1, 1 }, { 200, 60 } };
	static const enum depth DEPTHS[] = { DEPTH_NONE, DEPTH_8, DEPTH_256, DEPTH_TRUE };
	int bad = 0;
	for (size_t i = 0; i < sizeof ATT / sizeof *ATT; i++)
		for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES; k++)
			for (size_t d = 0; d < 4; d++) {
				if (vt_state(&v, t, m, ATT[i]))
					continue;
				v.flags = VF_LINES;
				v.row = 6;
				v.col = 2;
				bad += vt_outside(&v, SIZES[k][0], SIZES[k][1], DEPTHS[d]) != 0;
			}
	tap_ok(bad == 0, "the head view draws only inside its rectangle (%d bad cases)", bad);
}

int main(void)
{
	struct model *m = vt_model("models/en-pt-tiny.yaml");
	if (!tap_ok(m != NULL, "load en-pt-tiny.yaml"))
		return tap_done();
	struct trace *t = vt_pass(m, SENTENCE, TARGET, NULL);
	if (!tap_ok(t != NULL, "forward pass with a target"))
		return tap_done();
	lines_tests(m, t);
	trace_free(t);
	model_free(m);
	return tap_done();
}
