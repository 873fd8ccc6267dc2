/* test_view_attention.c - the views BertViz and Transformer Explainer users
 * expect (issue 16): the head view (lines), the model view and the
 * architecture map.
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
#include "views/figure.h"
#include "views/palette.h"

static const char SENTENCE[] = "your cat is a lovely cat";
static const char TARGET[] = "seu gato é um gato adorável";

static int snap(struct view_state *v, const char *name, int flags, int w, int h)
{
	v->mode = (enum view_mode)flags;
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
		v.mode = VM_LINES;
		tap_ok(view_for(&v) == &lines_view, "VM_LINES on %s picks the head view", ATT[i]);
	}
	if (!vt_state(&v, t, m, "encoder.0.norm1")) {
		v.mode = VM_LINES;
		tap_ok(view_for(&v) != &lines_view, "VM_LINES on encoder.0.norm1 keeps its own view");
	}

	/* snapshots: encoder self, decoder self (causal), cross */
	if (!vt_state(&v, t, m, "encoder.1.self_attn.weights")) {
		v.head = 3;
		v.row = 5;
		v.col = 3;
		snap(&v, "lines_enc1_self", VM_LINES, 100, 24);
	}
	if (!vt_state(&v, t, m, "decoder.0.self_attn.weights")) {
		v.head = 1;
		v.row = 4;
		snap(&v, "lines_dec0_self", VM_LINES, 100, 24);
	}
	if (!vt_state(&v, t, m, "decoder.1.cross_attn.scores")) {
		v.head = 0;
		v.row = 2;
		snap(&v, "lines_dec1_cross", VM_LINES, 80, 20);
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
		v.mode = VM_LINES;
		v.head = BARS[k].head;
		v.row = BARS[k].row;
		char *txt = vt_render(&v, 110, 30, DEPTH_NONE);
		const int nk = s->shape[2];
		const float *w = view_slice(s, v.head) + (size_t)v.row * nk;   /* [nk] */
		double worst = 0, sum = 0;
		int found = 0, masked = 0;
		/* at 110×30 the keys sit from line 3 (under the title, the hint,
		 * the bars' heading), pitch lines apart: 26 lines for n tokens,
		 * at most 4 a token */
		const int n = s->shape[1] > nk ? s->shape[1] : nk;
		const int pitch = (26 - 1) / (n - 1) > 4 ? 4 : (26 - 1) / (n - 1);
		for (int j = 0; j < nk; j++) {
			double x = line_value(txt, 3 + pitch * j);
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
		v.mode = VM_LINES;
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
				v.mode = VM_LINES;
				v.row = 6;
				v.col = 2;
				bad += vt_outside(&v, SIZES[k][0], SIZES[k][1], DEPTHS[d]) != 0;
			}
	tap_ok(bad == 0, "the head view draws only inside its rectangle (%d bad cases)", bad);
}

/* The model view: snapshots (tiles with labels at 120×40, tiles at 80×19,
 * the table when the tiles do not fit across), every tile's entropy equal
 * to attn_entropy's, paging on a deep model, inside its rectangle. */
static void model_tests(const struct model *m, const struct trace *t)
{
	struct view_state v;
	if (!vt_state(&v, t, m, "decoder.1.cross_attn.weights")) {
		v.mode = VM_MODEL;
		tap_ok(view_for(&v) == &modelview_view, "VM_MODEL on cross-attention picks the model view");
		v.head = 2;
		snap(&v, "model_cross_120x40", VM_MODEL, 120, 40);
		snap(&v, "model_cross_53x19", VM_MODEL, 53, 19);
		snap(&v, "model_cross_30x12", VM_MODEL, 30, 12);
	}
	if (!vt_state(&v, t, m, "encoder.0.self_attn.q")) {
		v.head = 1;
		snap(&v, "model_enc_80x24", VM_MODEL, 80, 24);
	}
	if (!vt_state(&v, t, m, "src.embed")) {
		v.mode = VM_MODEL;
		tap_ok(view_for(&v) != &modelview_view, "VM_MODEL on src.embed keeps its own view");
	}
	/* the titles' entropies against attn_entropy, every layer × head */
	if (!vt_state(&v, t, m, "decoder.0.self_attn.weights")) {
		v.mode = VM_MODEL;
		char *txt = vt_render(&v, 160, 60, DEPTH_NONE);
		int found = 0, bad = 0;
		for (int l = 0; l < 2; l++) {
			char nm[64];
			snprintf(nm, sizeof nm, "decoder.%d.self_attn.weights", l);
			const struct stage *s = trace_find(t, nm);
			for (int h = 0; s && h < s->shape[0]; h++) {
				char want[64];
				snprintf(want, sizeof want, "h%d %.2f", h,
					 attn_entropy(view_slice(s, h), s->shape[1], s->shape[2]));
				/* the line of layer l's tiles starts with "L<l>" */
				const char *e = NULL;
				for (const char *p = txt; p && *p && !e; ) {
					const char *nl = strchr(p, '\n');
					size_t len = nl ? (size_t)(nl - p) : strlen(p);
					char line[2048], lab[8];
					snprintf(line, sizeof line, "%.*s", (int)len, p);
					snprintf(lab, sizeof lab, "L%d ", l);
					const char *q = line;
					while (*q == ' ')
						q++;
					if (!strncmp(q, lab, strlen(lab)) && strstr(line, want))
						e = p;
					p = nl ? nl + 1 : NULL;
				}
				found += e != NULL;
				bad += e == NULL;
			}
		}
		tap_ok(found == 8 && bad == 0, "model view: the 8 tiles' titles give attn_entropy "
		       "(%d found, %d missing)", found, bad);
		free(txt);
	}
	static const int SIZES[][2] = { { 120, 40 }, { 53, 19 }, { 30, 8 }, { 12, 4 }, { 1, 1 } };
	static const enum depth DEPTHS[] = { DEPTH_NONE, DEPTH_8, DEPTH_256, DEPTH_TRUE };
	int bad = 0;
	for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES; k++)
		for (size_t d = 0; d < 4; d++) {
			if (vt_state(&v, t, m, "decoder.1.cross_attn.weights"))
				continue;
			v.mode = VM_MODEL;
			v.head = 3;
			bad += vt_outside(&v, SIZES[k][0], SIZES[k][1], DEPTHS[d]) != 0;
		}
	tap_ok(bad == 0, "the model view draws only inside its rectangle (%d bad cases)", bad);
}

/* The paper's base size: 6 layers × 8 heads; at 80×24 the layers page. */
static void model_base_tests(void)
{
	struct model *m = vt_model("models/base.yaml");
	if (!tap_ok(m != NULL, "load base.yaml"))
		return;
	struct trace *t = vt_pass(m, SENTENCE, NULL, NULL);
	struct view_state v;
	if (t && !vt_state(&v, t, m, "encoder.4.self_attn.weights")) {
		v.mode = VM_MODEL;
		v.head = 6;
		char *txt = vt_render(&v, 160, 30, DEPTH_NONE);
		tap_ok(strstr(txt, "6 layers × 8 heads") && strstr(txt, "L4") &&
		       !strstr(txt, "L0 ") && strstr(txt, " of 6"),
		       "base at 160×30: a page of the layers with layer 4, not layer 0");
		free(txt);
		txt = vt_render(&v, 53, 19, DEPTH_NONE);
		tap_ok(strstr(txt, "L0 ") && strstr(txt, "L5 "),
		       "base at 53×19: the layer × head table has every layer");
		free(txt);
		txt = vt_render(&v, 160, 80, DEPTH_NONE);
		int all = 1;
		for (int l = 0; l < 6; l++) {
			char lab[8];
			snprintf(lab, sizeof lab, "L%d", l);
			all &= strstr(txt, lab) != NULL;
		}
		tap_ok(all, "base at 160×80: every layer on one page");
		free(txt);
	}
	trace_free(t);
	model_free(m);
}

/* The line of text holding the lit box ("▶ … ◀"), or "". */
static void lit_line(const char *txt, char *out, size_t n)
{
	out[0] = 0;
	for (const char *b = txt; *b; ) {
		const char *e = strchr(b, '\n');
		size_t len = e ? (size_t)(e - b) : strlen(b);
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)len, b);
		if (strstr(line, "▶ ") && strstr(line, " ◀")) {
			snprintf(out, n, "%s", line);
			return;
		}
		if (!e)
			break;
		b = e + 1;
	}
}

/* The map: the box of each stage lit (the paper's Figure 1, hand-listed),
 * the layer in the stack's title, clicks lead to a stage of the box, the
 * three architectures, the mini map, inside its rectangle. */
static void map_tests(const struct model *m, const struct trace *t)
{
	struct view_state v;
	static const struct { const char *stage, *box, *title; } LIT[] = {
		{ "src.ids", "Input Embedding", NULL },
		{ "src.pos", "Positional Encoding", NULL },
		{ "encoder.0.self_attn.scores", "Multi-Head Attention", "Encoder · layer 0 of 2" },
		{ "encoder.1.norm1", "Add & Norm", "Encoder · layer 1 of 2" },
		{ "encoder.1.ffn.hidden", "Feed Forward", "Encoder · layer 1 of 2" },
		{ "tgt.embed", "Output Embedding", NULL },
		{ "decoder.0.self_attn.masked", "Masked Multi-Head Attention", "Decoder · layer 0 of 2" },
		{ "decoder.1.cross_attn.weights", "Multi-Head Attention", "Decoder · layer 1 of 2" },
		{ "decoder.1.norm3", "Add & Norm", "Decoder · layer 1 of 2" },
		{ "logits", "Linear", NULL },
		{ "probs", "Softmax", NULL },
		{ "loss", "Softmax", NULL },
	};
	for (size_t i = 0; i < sizeof LIT / sizeof *LIT; i++) {
		if (vt_state(&v, t, m, LIT[i].stage))
			continue;
		v.mode = VM_MAP;
		char *txt = vt_render(&v, 100, 40, DEPTH_NONE);
		char line[1024];
		lit_line(txt, line, sizeof line);
		tap_ok(view_for(&v) == &map_view && strstr(line, LIT[i].box) &&
		       (!LIT[i].title || strstr(txt, LIT[i].title)),
		       "map: %s lights “%s”%s%s (lit: %s)", LIT[i].stage, LIT[i].box,
		       LIT[i].title ? " under " : "", LIT[i].title ? LIT[i].title : "", line);
		free(txt);
	}
	if (!vt_state(&v, t, m, "decoder.1.cross_attn.weights")) {
		snap(&v, "map_cross_100x36", VM_MAP, 100, 36);
		snap(&v, "map_cross_53x19", VM_MAP, 53, 19);
		/* every click target leads to a stage; the one on the lit box
		 * to a stage of cross-attention in layer 1 */
		v.mode = VM_MAP;
		struct canvas *c = draw(&v, 100, 36, DEPTH_NONE);
		int ok = v.nmap_hits >= 15, lit = 0;
		for (int i = 0; i < v.nmap_hits; i++) {
			const struct map_hit *h = &v.map_hits[i];
			ok &= h->stage >= 0 && h->stage < t->n && h->r.w > 0;
			const struct cell *cl = &c->cells[(size_t)h->r.y * c->w + h->r.x];
			if (!strcmp(cl->glyph, "▶")) {
				lit++;
				ok &= !strncmp(t->stages[h->stage].name, "decoder.1.cross_attn.", 21);
			}
		}
		canvas_free(c);
		tap_ok(ok && lit == 1, "map: %d click targets, the lit one leads into "
		       "decoder.1.cross_attn", v.nmap_hits);
	}
	/* the mini map for the sidebar */
	if (!vt_state(&v, t, m, "encoder.1.ffn.out")) {
		struct canvas *c = canvas_new(24, 20, DEPTH_NONE);
		v.nmap_hits = 0;
		int used = map_draw_mini(&v, c, (struct rect){ 0, 0, 24, 20 });
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		canvas_write_text(c, fp);
		fclose(fp);
		canvas_free(c);
		tap_ok(used > 0 && used <= 20 && v.nmap_hits >= 15, "mini map: %d lines, %d targets",
		       used, v.nmap_hits);
		vt_snapshot("map_mini_24", buf);
		free(buf);
	}
	int bad = 0;
	static const int SIZES[][2] = { { 100, 36 }, { 53, 19 }, { 30, 8 }, { 12, 4 }, { 1, 1 } };
	for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES; k++)
		for (int d = 0; d < 2; d++) {
			if (vt_state(&v, t, m, "decoder.0.add2"))
				continue;
			v.mode = VM_MAP;
			bad += vt_outside(&v, SIZES[k][0], SIZES[k][1], d ? DEPTH_TRUE : DEPTH_NONE) != 0;
		}
	tap_ok(bad == 0, "the map draws only inside its rectangle (%d bad cases)", bad);
}

/* A decoder-only and an encoder-only model: one stack each. */
static void map_arch_tests(void)
{
	static const struct { const char *model, *sentence, *stage, *snap; } A[] = {
		{ "tests/data/tiny-dec.yaml", "your cat", "decoder.0.ffn.out", "map_decoder_only" },
		{ "models/seed-toy.yaml", "your cat is", "encoder.0.self_attn.weights", "map_encoder_only" },
	};
	for (size_t i = 0; i < sizeof A / sizeof *A; i++) {
		struct model *m = vt_model(A[i].model);
		struct trace *t = m ? vt_pass(m, A[i].sentence, NULL, NULL) : NULL;
		struct view_state v;
		if (t && !vt_state(&v, t, m, A[i].stage))
			snap(&v, A[i].snap, VM_MAP, 60, 24);
		else
			tap_ok(0, "%s: a pass", A[i].model);
		trace_free(t);
		model_free(m);
	}
}

/* As figures (the SVG key, --lecture --export): tall enough for the
 * whole view (the map drew in 6 lines, the model view cut layer 1). */
static void figure_tests(const struct model *m, const struct trace *t)
{
	static const struct { int flag; const char *want[3]; } F[] = {
		{ VM_MAP, { "Softmax", "▶", "Input Embedding" } },
		{ VM_MODEL, { "L0 ", "L1 ", "layer 1 head 0" } },
		{ VM_LINES, { "head view", "</s>", "most weight on" } },
	};
	for (size_t i = 0; i < sizeof F / sizeof *F; i++) {
		struct view_state v;
		if (vt_state(&v, t, m, "decoder.1.cross_attn.weights"))
			continue;
		v.mode = (enum view_mode)F[i].flag;
		struct canvas *c = figure_new(&v, 120, DEPTH_NONE);
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		canvas_write_text(c, fp);
		fclose(fp);
		int ok = c != NULL;
		for (int k = 0; k < 3; k++)
			ok &= strstr(buf, F[i].want[k]) != NULL;
		tap_ok(ok, "figure of the %s view: whole (%s, %s, %s)", i == 0 ? "map" : i == 1 ?
		       "model" : "head", F[i].want[0], F[i].want[1], F[i].want[2]);
		if (!ok)
			printf("# %s\n", buf);
		free(buf);
		canvas_free(c);
	}
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
	model_tests(m, t);
	model_base_tests();
	map_tests(m, t);
	figure_tests(m, t);
	map_arch_tests();
	trace_free(t);
	model_free(m);
	return tap_done();
}
