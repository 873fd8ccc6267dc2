/* test_explain.c - stage explanations, the explanation panel, colour schemes.
 *
 * Every stage of the traces of tests/data/tiny.yaml (encoder-decoder,
 * post-norm, teacher forced), tests/data/tiny-dec.yaml (decoder-only,
 * pre-norm, learned positions, GELU) and models/seed-toy.yaml has a
 * non-empty explanation of a known family; the families that must differ
 * (self vs cross-attention, post- vs pre-norm, ...) do; the panel draws
 * inside its rectangle at many sizes and depths; scheme names round-trip. */
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "views/explain.h"
#include "views/palette.h"

/* Checks every stage of t; returns the number without a good text. */
static int all_explained(const struct trace *t, const char *what)
{
	int bad = 0;
	for (int i = 0; i < t->n; i++) {
		const struct stage *s = &t->stages[i];
		const char *fam = explain_family(s);
		const char *txt = explain_text(s);
		if (!txt || strlen(txt) < 40 || !fam || strcmp(fam, "other") == 0) {
			printf("# %s: stage %s: family %s, text \"%s\"\n", what, s->name,
			       fam ? fam : "(null)", txt ? txt : "(null)");
			bad++;
		}
	}
	tap_ok(bad == 0 && t->n > 0, "%s: all %d stages explained", what, t->n);
	return bad;
}

static const char *fam_of(const struct trace *t, const char *name)
{
	const struct stage *s = trace_find(t, name);
	if (!s)
		printf("# no stage %s\n", name);
	return s ? explain_family(s) : "(missing)";
}

/* Draws the panel at (pad, pad) w×h inside a canvas pre-filled with '#';
 * checks nothing outside changed and, when there is room, that the title
 * and the formula's start show. */
static int panel_inside(const struct stage *s, int w, int h, enum depth d)
{
	const int pad = 3;
	struct canvas *c = canvas_new(w + 2 * pad, h + 2 * pad, d);
	if (!c)
		return 0;
	struct rect all = { 0, 0, c->w, c->h };
	canvas_fill(c, all, "#", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	struct rect r = { pad, pad, w, h };
	explain_draw(c, r, s);
	int ok = 1;
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			int in = x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
			const char *g = c->cells[(size_t)y * c->w + x].glyph;
			if (!in && strcmp(g, "#")) {
				printf("# %d×%d: cell (%d,%d) outside the panel is \"%s\"\n",
				       w, h, x - pad, y - pad, g);
				ok = 0;
			}
			if (in && strcmp(g, "#") == 0) {
				printf("# %d×%d: cell (%d,%d) inside the panel not drawn\n",
				       w, h, x - pad, y - pad);
				ok = 0;
			}
		}
	if (ok && w >= 40 && h >= 8) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		canvas_write_text(c, fp);
		fclose(fp);
		if (!strstr(buf, "what this stage does")) {
			printf("# %d×%d: no title\n", w, h);
			ok = 0;
		}
		char head[8];
		snprintf(head, sizeof head, "%.5s", s->formula);
		if (!strstr(buf, head)) {
			printf("# %d×%d: formula \"%s\" not shown\n", w, h, s->formula);
			ok = 0;
		}
		free(buf);
	}
	canvas_free(c);
	return ok;
}

/* The panel's text, wide enough for everything: the whole explanation must
 * be there (every word of it, in order, across the wrapped lines). */
static int panel_complete(const struct stage *s)
{
	struct canvas *c = canvas_new(60, 30, DEPTH_NONE);
	struct rect r = { 0, 0, 60, 30 };
	explain_draw(c, r, s);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	canvas_write_text(c, fp);
	fclose(fp);
	canvas_free(c);
	/* join the lines' inner text, frame stripped, into one string */
	char *joined = calloc(len + 1, 1);
	size_t jl = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = strstr(line, "│");
		if (!p)
			continue;
		p += strlen("│");
		char *e = strstr(p, "│");
		if (e)
			*e = 0;
		while (*p == ' ')
			p++;
		size_t n = strlen(p);
		while (n && p[n - 1] == ' ')
			n--;
		if (!n)
			continue;
		if (jl)
			joined[jl++] = ' ';
		memcpy(joined + jl, p, n);
		jl += n;
	}
	joined[jl] = 0;
	int ok = strstr(joined, explain_text(s)) != NULL;
	if (!ok)
		printf("# panel text \"%s\"\n# want \"%s\"\n", joined, explain_text(s));
	free(joined);
	free(buf);
	return ok;
}

/* explain_note: what a teacher is asked about, on the shipped lecture
 * model (trained with label smoothing 0.1; layer 0 of its encoder gives
 * <s> nearly all the weight). */
static void notes(void)
{
	struct model *m = vt_model("models/en-pt-tiny.yaml");
	struct model *toy = vt_model("models/seed-toy.yaml");
	struct trace *t = m ? vt_pass(m, "your cat is a lovely cat", "seu gato é um gato adorável",
				      NULL) : NULL;
	if (!tap_ok(m && toy && t, "en-pt-tiny's pass runs"))
		return;
	struct view_state v;
	char buf[1024];
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	tap_ok(m->cfg.label_smoothing > 0.099 && m->cfg.label_smoothing < 0.101,
	       "en-pt-tiny's training: label_smoothing 0.1 is read");
	static const char *const OUT[] = { "probs", "logits", "loss" };
	for (int i = 0; i < 3; i++) {
		v.stage = trace_index(t, OUT[i]);
		explain_note(&v, buf, sizeof buf);
		tap_ok(strstr(buf, "label smoothing ε = 0.1") && strstr(buf, "near 90%"),
		       "%s: the note says label smoothing 0.1 caps p near 90%% (\"%.60s…\")",
		       OUT[i], buf);
	}
	v.stage = trace_index(t, "encoder.0.self_attn.weights");
	explain_note(&v, buf, sizeof buf);
	tap_ok(strstr(buf, "attention sink") != NULL, "encoder layer 0: an attention sink");
	v.stage = trace_index(t, "encoder.1.self_attn.weights");
	explain_note(&v, buf, sizeof buf);
	tap_ok(!*buf, "encoder layer 1 spreads its weight: no note");
	v.stage = trace_index(t, "src.embed");
	explain_note(&v, buf, sizeof buf);
	tap_ok(!*buf, "an embedding: no note");
	v.m = toy;   /* trained without a record of smoothing */
	v.stage = trace_index(t, "probs");
	explain_note(&v, buf, sizeof buf);
	tap_ok(!*buf, "a model without label smoothing: no note on probs");
	trace_free(t);
	model_free(m);
	model_free(toy);
}

int main(void)
{
	struct model *tiny = vt_model("tests/data/tiny.yaml");
	struct model *dec = vt_model("tests/data/tiny-dec.yaml");
	struct model *toy = vt_model("models/seed-toy.yaml");
	if (!tap_ok(tiny && dec && toy, "models load"))
		return tap_done();
	struct pass_opts pad;
	pass_opts_default(&pad);
	pad.pad_to = 9;
	pad.pad_target = 9;
	struct trace *t1 = vt_pass(tiny, "your cat is a lovely cat",
				   "seu gato é um gato adorável", &pad);
	struct trace *t2 = vt_pass(dec, "your cat", NULL, NULL);
	struct trace *t3 = vt_pass(toy, "your cat is", NULL, NULL);
	if (!tap_ok(t1 && t2 && t3, "passes run"))
		return tap_done();

	/* 1. every stage has an explanation of a known family */
	all_explained(t1, "tiny (encoder-decoder, target)");
	all_explained(t2, "tiny-dec (decoder-only, pre-norm)");
	all_explained(t3, "seed-toy");
	tap_ok(trace_find(t1, "loss") && trace_find(t1, "memory"),
	       "tiny's trace has loss and memory");

	/* 2. the variants are told apart */
	static const struct {
		int t;
		const char *stage, *family;
	} FAM[] = {
		{ 1, "src.ids", "src.ids" }, { 1, "tgt.ids", "tgt.ids" },
		{ 1, "src.embed", "embed.scaled" }, { 1, "src.pos", "pos" },
		{ 1, "encoder.0.self_attn.scores", "scores" },
		{ 1, "encoder.0.self_attn.masked", "masked.enc" },
		{ 1, "decoder.0.self_attn.masked", "masked" },
		{ 1, "decoder.1.self_attn.weights", "weights" },
		{ 1, "decoder.0.cross_attn.q", "cross.q" },
		{ 1, "decoder.0.cross_attn.k", "cross.k" },
		{ 1, "decoder.0.cross_attn.scores", "cross.scores" },
		{ 1, "decoder.0.cross_attn.masked", "cross.masked" },
		{ 1, "decoder.0.cross_attn.weights", "cross.weights" },
		{ 1, "decoder.0.cross_attn.out", "cross.out" },
		{ 1, "encoder.0.add1", "add" }, { 1, "encoder.0.norm1", "norm" },
		{ 1, "decoder.1.norm3", "norm" },
		{ 1, "encoder.1.ffn.hidden", "ffn.hidden" },
		{ 1, "encoder.1.ffn.out", "ffn.out" },
		{ 1, "memory", "memory" }, { 1, "logits", "logits" },
		{ 1, "probs", "probs" }, { 1, "loss", "loss" },
		{ 2, "tgt.pos", "pos.learned" }, { 2, "tgt.embed", "embed.scaled" },
		{ 2, "decoder.0.norm1", "norm.pre" }, { 2, "decoder.0.add1", "add.pre" },
		{ 2, "decoder.0.ffn.hidden", "ffn.hidden.gelu" },
		{ 3, "encoder.0.self_attn.weights", "weights" },
		{ 3, "src.input", "input" },
	};
	const struct trace *tr[] = { NULL, t1, t2, t3 };
	int bad = 0;
	for (size_t i = 0; i < sizeof FAM / sizeof *FAM; i++) {
		const char *got = fam_of(tr[FAM[i].t], FAM[i].stage);
		if (strcmp(got, FAM[i].family)) {
			printf("# %s: family %s, want %s\n", FAM[i].stage, got, FAM[i].family);
			bad++;
		}
	}
	tap_ok(bad == 0, "families of %zu stages", sizeof FAM / sizeof *FAM);
	const struct stage *en = trace_find(t2, "decoder.norm");
	tap_ok(!en || strcmp(explain_family(en), "norm.final") == 0,
	       "a final norm is norm.final");
	tap_ok(strcmp(explain_text(trace_find(t1, "encoder.0.self_attn.scores")),
		      explain_text(trace_find(t1, "decoder.0.cross_attn.scores"))) != 0,
	       "cross-attention scores have their own text");
	tap_contains(explain_text(trace_find(t1, "decoder.0.cross_attn.weights")),
		     "encoder", "cross-attention weights name the encoder");
	tap_contains(explain_text(trace_find(t1, "encoder.0.self_attn.scores")),
		     "√dk", "scores explain √dk");
	tap_contains(explain_text(trace_find(t1, "decoder.0.self_attn.masked")),
		     "exp(−∞) = 0", "masked explains −∞");
	tap_contains(explain_text(trace_find(t1, "encoder.0.norm1")),
		     "batch norm", "norm compares with batch norm");

	/* an unknown stage still gets a text */
	struct stage odd = { .name = "something.else", .formula = "f(x)",
			     .kind = SK_VECTORS, .layer = -1 };
	tap_ok(explain_text(&odd) && *explain_text(&odd), "unknown stage: fallback text");

	/* 3. the panel */
	static const int SIZES[][2] = {
		{ 1, 1 }, { 2, 1 }, { 1, 5 }, { 5, 2 }, { 6, 3 }, { 7, 4 },
		{ 9, 3 }, { 12, 5 }, { 20, 6 }, { 30, 8 }, { 40, 8 }, { 44, 12 },
		{ 60, 10 }, { 80, 6 }, { 100, 30 }, { 3, 40 },
	};
	static const enum depth DEPTHS[] = { DEPTH_NONE, DEPTH_8, DEPTH_256, DEPTH_TRUE };
	static const char *const PANEL_STAGES[] = {
		"src.pos", "decoder.0.self_attn.masked", "decoder.1.cross_attn.weights",
		"encoder.0.norm1", "loss",
	};
	bad = 0;
	int n = 0;
	for (size_t k = 0; k < sizeof PANEL_STAGES / sizeof *PANEL_STAGES; k++) {
		const struct stage *s = trace_find(t1, PANEL_STAGES[k]);
		for (size_t i = 0; i < sizeof SIZES / sizeof *SIZES; i++)
			for (size_t d = 0; d < sizeof DEPTHS / sizeof *DEPTHS; d++, n++)
				if (!s || !panel_inside(s, SIZES[i][0], SIZES[i][1], DEPTHS[d]))
					bad++;
	}
	tap_ok(bad == 0, "panel stays inside its rectangle (%d draws)", n);
	tap_ok(panel_complete(trace_find(t1, "encoder.0.self_attn.scores")),
	       "a large panel shows the whole explanation");
	tap_ok(panel_complete(trace_find(t1, "decoder.0.norm2")),
	       "a large panel shows the whole explanation (norm)");
	/* a formula of wide characters wraps without splitting a glyph */
	struct stage wide = { .name = "src.ids", .formula = "注意力注意力注意力注意力",
			      .kind = SK_IDS, .layer = -1 };
	tap_ok(panel_inside(&wide, 9, 6, DEPTH_NONE) && panel_inside(&wide, 8, 6, DEPTH_NONE),
	       "wide formula wraps inside the panel");

	/* 4. colour schemes */
	bad = 0;
	for (int s = 0; s < SCHEME_COUNT; s++) {
		const char *nm = palette_scheme_name((enum scheme)s);
		if (!nm || palette_scheme_by_name(nm) != s) {
			printf("# scheme %d (%s) does not round-trip\n", s, nm ? nm : "(null)");
			bad++;
		}
	}
	tap_ok(bad == 0, "scheme names round-trip (%d schemes)", SCHEME_COUNT);
	tap_str(palette_scheme_name(SCHEME_DEFAULT), "default", "default scheme's name");
	tap_ok(palette_scheme_by_name("high-contrast") == SCHEME_HIGH_CONTRAST &&
	       palette_scheme_by_name("colorblind") == SCHEME_COLORBLIND,
	       "high-contrast and colorblind by name");
	tap_ok(palette_scheme_by_name("viridis-ish") == -1 &&
	       palette_scheme_by_name("") == -1 && palette_scheme_by_name(NULL) == -1 &&
	       palette_scheme_by_name("DEFAULT") == -1,
	       "unknown scheme names give -1");
	tap_ok(palette_scheme_name(SCHEME_COUNT) == NULL, "no name past the last scheme");

	/* the default's colours are unchanged; the others differ and the
	 * current scheme is what role_style and scale_color read */
	struct scale seq = { 0, 0, 1, NULL }, div = { 1, -1, 1, NULL };
	palette_set_scheme(SCHEME_DEFAULT);
	tap_ok(scale_color(&seq, 0) == RGB(68, 1, 84) && scale_color(&seq, 1) == RGB(253, 231, 37) &&
	       scale_color(&div, 0) == RGB(247, 247, 247) && scale_color(&div, -1) == RGB(5, 48, 97) &&
	       role_style(R_CURSOR, DEPTH_TRUE).bg == RGB(255, 215, 0) &&
	       scale_color(&div, -INFINITY) == RGB(60, 60, 60),
	       "default scheme keeps viridis, RdBu and its roles");
	palette_set_scheme(SCHEME_HIGH_CONTRAST);
	tap_ok(palette_scheme() == SCHEME_HIGH_CONTRAST &&
	       scale_color(&seq, 0) == RGB(44, 44, 44) && scale_color(&seq, 1) == RGB(255, 255, 0) &&
	       scale_color(&div, 0) == RGB(44, 44, 44) &&
	       role_style(R_TEXT, DEPTH_TRUE).bg == RGB(0, 0, 0) &&
	       scale_color(&div, -INFINITY) == NEGINF_BG &&
	       NEGINF_BG != scale_color(&div, 0),
	       "high-contrast: dark grey→yellow, dark grey centre (zero is not the black "
	       "background, issue 13)");
	palette_set_scheme(SCHEME_COLORBLIND);
	uint32_t pos = scale_color(&div, 1), neg = scale_color(&div, -1);
	tap_ok(scale_color(&seq, 0) == RGB(0, 34, 78) &&
	       ((pos >> 16) & 255) > (pos & 255) && (neg & 255) > ((neg >> 16) & 255),
	       "colorblind: cividis, blue − / orange +");
	tap_ok(role_style(R_CURSOR, DEPTH_NONE).attr & ATTR_REVERSE,
	       "without colour every scheme falls back to attributes");
	palette_set_scheme((enum scheme)99);
	tap_ok(palette_scheme() == SCHEME_DEFAULT, "an out-of-range scheme selects the default");

	notes();

	trace_free(t1);
	trace_free(t2);
	trace_free(t3);
	model_free(tiny);
	model_free(dec);
	model_free(toy);
	return tap_done();
}
