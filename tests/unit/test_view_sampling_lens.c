/* test_view_sampling_lens.c - the decoding page while sampling, headless (issue 16).
 *
 * Model models/en-pt-tiny.yaml; "your cat is a lovely cat" sampled with
 * T = 2.5, top-p 0.9, seed 1.  A snapshot at 100×30 without colour, plus
 * checks that can fail on their own: the ◆ row is the token the record
 * says was drawn, its p, p_T and p_cut are the record's, the u line gives
 * the step's u and the kept count, ✗ marks exactly the candidates the cut
 * removed, and every size draws inside its rect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "engine/decode.h"
#include "engine/importance.h"
#include "engine/lens.h"
#include "formats/vocab.h"
#include "views/draw.h"
#include "views/explain.h"

static const char *SRC = "your cat is a lovely cat";

/* The first line containing a (after the sidebar), copied into buf. */
static const char *line_with(const char *text, const char *a, char *buf, size_t n)
{
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		snprintf(buf, n, "%.*s", (int)len, p);
		if (strstr(buf, a))
			return buf;
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

static int count(const char *text, const char *s)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}


/* The lens view on a teacher-forced pass: the grid's cells are the
 * engine's numbers, every position's detail names where its word appears,
 * a snapshot, and every size draws inside its rect. */
static void lens_checks(const struct model *m)
{
	struct trace *t = vt_pass(m, SRC, "seu gato é um gato adorável", NULL);
	struct lens l;
	struct err e;
	if (!tap_ok(t && lens_compute(m, t, &l, &e) == 0, "the lens of a teacher-forced pass"))
		return;
	tap_ok(l.L == 3 && l.T == 7 && l.K == 5, "3 rows (embedding, 2 layers) × 7 positions, top 5");
	/* the last row is the pass's own output */
	const struct stage *p = trace_find(t, "probs");
	int okl = 1;
	for (int i = 0; i < l.T; i++) {
		const float *r = stage_f32(p) + (size_t)i * l.V;
		const size_t at = (size_t)(l.L - 1) * l.T + i;
		okl &= fabsf(l.p_chosen[at] - r[l.chosen[i]]) < 1e-6f;
		okl &= fabsf(l.top_p[at * l.K] - r[l.top[at * l.K]]) < 1e-6f;
	}
	tap_ok(okl, "the last lens row is the pass's probs (p of the label and the top-1)");
	struct view_state v;
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	v.stage = trace_index(t, "probs");
	v.mode = VM_LENS;
	v.lens = &l;
	char *txt = vt_render(&v, 100, 40, DEPTH_NONE);
	/* the grid line of layer 1 (out): each visible cell's percentage is
	   the engine's p(chosen) */
	char line[512], pc[32];
	int okc = line_with(txt, "layer 1 (out)", line, sizeof line) != NULL;
	for (int i = 0; okc && i < 7 && 17 + 13 * (i + 1) <= 100; i++) {
		fmt_pct(pc, sizeof pc, l.p_chosen[(size_t)2 * l.T + i]);
		okc = strstr(line, pc) != NULL;
	}
	tap_ok(okc, "the grid's last row shows the engine's p(chosen) for every visible position");
	int okd = 1;
	for (int i = 0; i < l.T; i++) {
		char want[160], lab[96];
		trace_row_label(t, AX_TGT, i, lab, sizeof lab);
		if (l.appears[i] > 0)
			snprintf(want, sizeof want, "position %d “%s”: “%s” is the top guess from layer %d on",
				 i, lab, vocab_str(&m->tgt_vocab, l.chosen[i]), l.appears[i] - 1);
		else
			snprintf(want, sizeof want, "position %d “%s”: “%s” is", i, lab,
				 vocab_str(&m->tgt_vocab, l.chosen[i]));
		v.row = i;
		char *x = vt_render(&v, 120, 60, DEPTH_NONE);
		if (!strstr(x, want) && okd) {
			printf("# want \"%s\" in:\n%s", want, x);
			okd = 0;
		}
		free(x);
	}
	tap_ok(okd, "each position's detail says from which layer its word is the top guess");
	v.row = 0;
	vt_snapshot("lens", txt);
	free(txt);
	int sz_ok = 1;
	static const int sz[][2] = { { 1, 1 }, { 10, 5 }, { 30, 8 }, { 60, 18 }, { 80, 24 },
				     { 120, 40 }, { 300, 100 }, { 0, 5 } };
	for (int i = 0; i < 7; i++)
		for (size_t k = 0; k < sizeof sz / sizeof *sz; k++) {
			v.row = i;
			sz_ok &= vt_outside(&v, sz[k][0], sz[k][1], DEPTH_TRUE) == 0;
		}
	tap_ok(sz_ok, "the lens at sizes 1×1 … 300×100 draws only inside its rect");
	lens_free(&l);
	trace_free(t);
}

/* The importance table: a snapshot, the "matters most" head is the
 * engine's top one, every size inside its rect. */
static void importance_checks(const struct model *m)
{
	struct pass_input in;
	struct pass_opts po;
	struct importance imp;
	struct err e;
	pass_opts_default(&po);
	input_build(m, SRC, "seu gato é um gato adorável", &po, &in, &e);
	if (!tap_ok(importance_run(m, &in, &po, &imp, &e) == 0 && imp.n == 24,
		    "importance of the 24 heads"))
		return;
	struct trace *t = vt_pass(m, SRC, "seu gato é um gato adorável", NULL);
	struct view_state v;
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	v.mode = VM_IMPORTANCE;
	v.imp = &imp;
	char *txt = vt_render(&v, 120, 30, DEPTH_NONE);
	const struct head_score *h = &imp.h[importance_top(&imp)];
	char want[128], line[512];
	snprintf(want, sizeof want, "matters most: %s %d %s-attention head %d",
		 h->block == BLK_ENCODER ? "encoder" : "decoder", h->layer, h->cross ? "cross" : "self",
		 h->head);
	tap_ok(line_with(txt, want, line, sizeof line) != NULL, "the view names the top head: %s", want);
	vt_snapshot("importance", txt);
	free(txt);
	int sz_ok = 1;
	static const int sz[][2] = { { 1, 1 }, { 10, 5 }, { 30, 8 }, { 60, 18 }, { 80, 24 },
				     { 120, 40 }, { 300, 100 } };
	for (size_t k = 0; k < sizeof sz / sizeof *sz; k++)
		sz_ok &= vt_outside(&v, sz[k][0], sz[k][1], DEPTH_TRUE) == 0;
	tap_ok(sz_ok, "the table at sizes 1×1 … 300×100 draws only inside its rect");
	importance_free(&imp);
	input_free(&in);
	trace_free(t);
}

int main(void)
{
	struct model *m = vt_model("models/en-pt-tiny.yaml");
	if (!tap_ok(m != NULL, "en-pt-tiny loads"))
		return tap_done();
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct decode_result r;
	struct err e;
	pass_opts_default(&po);
	input_build(m, SRC, NULL, &po, &in, &e);
	decode_opts_default(&o);
	o.sample = 1;
	o.so.temperature = 2.5;
	o.so.top_p = 0.9;
	o.so.seed = 1;
	if (!tap_ok(decode_run(m, &in, &po, &o, &r, &e) == 0 && r.nsteps >= 2, "sampling decodes"))
		return tap_done();
	struct trace *t = vt_pass(m, SRC, NULL, NULL);
	struct view_state v;
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	v.mode = VM_DECODE;
	v.dec = &r;
	v.dec_beam = 1;
	v.dec_alpha = o.alpha;
	v.dec_sample = &o.so;

	int bad = 0;
	for (int s = 0; s < r.nsteps; s++) {
		v.dec_step = s;
		char *txt = vt_render(&v, 100, 30, DEPTH_NONE);
		const struct decode_step *st = &r.steps[s];
		const struct cand *d = NULL;
		int ncut = 0;
		for (int i = 0; i < st->ncands; i++) {
			if (st->cands[i].drawn)
				d = &st->cands[i];
			ncut += st->cands[i].prob_cut == 0;
		}
		char line[512], want[128], pc[32], pt[32], p[32];
		const char *tok = vocab_str(&m->tgt_vocab, d->token);
		snprintf(want, sizeof want, "◆ %s ", tok);
		fmt_pct(p, sizeof p, d->prob);
		fmt_pct(pt, sizeof pt, d->prob_t);
		fmt_pct(pc, sizeof pc, d->prob_cut);
		int ok = line_with(txt, want, line, sizeof line) && strstr(line, p) &&
			 strstr(line, pt) && strstr(line, pc) && count(txt, "◆") == 2;
		char u[128];
		snprintf(u, sizeof u, "u = %.4f → “%s” · the cut keeps %d of %d tokens", st->u, tok,
			 st->nkept, st->nallowed);
		ok &= strstr(txt, u) != NULL;
		/* ✗ rows (the legend has one more) = candidates cut off */
		ok &= count(txt, "✗ ") - 1 == ncut;
		if (!ok && !bad++)
			printf("# step %d: drawn \"%s\" (p %s p_T %s p_cut %s, %d cut off):\n%s", s,
			       tok, p, pt, pc, ncut, txt);
		free(txt);
	}
	tap_ok(bad == 0, "every step: ◆ is the drawn token with the record's p, p_T, p_cut; "
	       "the u line and the ✗ rows are the record's");
	/* the cut shows: T 2.5, top-p 0.9 cuts some of the recorded five at
	   some step, and the drawn one outside the top five is added */
	int sz_ok = 1;
	static const int sz[][2] = { { 1, 1 }, { 10, 5 }, { 30, 8 }, { 60, 18 }, { 80, 24 },
				     { 120, 40 }, { 300, 100 }, { 0, 5 } };
	for (int s = 0; s < r.nsteps; s++)
		for (size_t i = 0; i < sizeof sz / sizeof *sz; i++) {
			v.dec_step = s;
			sz_ok &= vt_outside(&v, sz[i][0], sz[i][1], DEPTH_TRUE) == 0;
		}
	tap_ok(sz_ok, "every step at sizes 1×1 … 300×100 draws only inside its rect");
	v.dec_step = 1;
	char *txt = vt_render(&v, 100, 30, DEPTH_NONE);
	vt_snapshot("decoding-sample", txt);
	free(txt);
	const char *ex = explain_page_text("sample");
	tap_ok(ex && strstr(ex, "temperature") && explain_page_text("nothing") == NULL,
	       "the explanation panel has a text for the sampling page");
	trace_free(t);
	decode_result_free(&r);
	input_free(&in);
	lens_checks(m);
	importance_checks(m);
	model_free(m);
	return tap_done();
}
