/* test_view_decoding.c - the decoding page and the greedy/beam comparison,
 * headless.
 *
 * Model tests/data/tiny.yaml; "your cat is a lovely cat" decoded greedily
 * and with beam 3, at most 6 tokens (the random model never says </s>, so
 * both stop at the limit).  Snapshots at 100×30 without colour, plus checks
 * that can fail on their own: the newest decoder-input row (▸) of step s has
 * s+1 tokens counting <s>, and they are the followed hypothesis's; greedy's
 * kept (✓ … arg-max) candidate is the record's most probable one; the
 * length-limit warning shows at the last step only; the comparison reads
 * the same whichever search is "on screen"; and every size from 1×1 up draws
 * inside its rect. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "engine/decode.h"
#include "formats/vocab.h"

static const char *SRC = "your cat is a lovely cat";

/* The line of text that starts with prefix (first), copied into buf. */
static const char *line_starting(const char *text, const char *prefix,
				 char *buf, size_t n)
{
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(buf, n, "%.*s", (int)len, p);
			return buf;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* The first line containing both a and b. */
static const char *line_with(const char *text, const char *a, const char *b,
			     char *buf, size_t n)
{
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		snprintf(buf, n, "%.*s", (int)len, p);
		if (strstr(buf, a) && strstr(buf, b))
			return buf;
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* Splits the newest input row "▸ 3  <s> adorável adorável  → …" into the
 * tokens between the step number and "→".  Returns the count. */
static int row_tokens(const char *line, char toks[][64], int cap)
{
	const char *p = line + strlen("▸");
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')   /* the step number */
		p++;
	const char *end = strstr(p, "→");
	if (!end)
		end = p + strlen(p);
	int n = 0;
	while (p < end && n < cap) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		const char *q = p;
		while (q < end && *q != ' ')
			q++;
		snprintf(toks[n++], 64, "%.*s", (int)(q - p), p);
		p = q;
	}
	return n;
}

/* Every step: the ▸ row has s+1 tokens, <s> first, then the followed
 * hypothesis's outputs. */
static void check_rows(struct view_state *v, const struct model *m, const char *what)
{
	int bad = 0;
	for (int s = 0; s < v->dec->nsteps; s++) {
		v->dec_step = s;
		char *txt = vt_render(v, 100, 30, DEPTH_NONE);
		char line[512], toks[64][64];
		int n = line_starting(txt, "▸", line, sizeof line) ?
			row_tokens(line, toks, 64) : -1;
		const struct hyp *h = &v->dec->steps[s].hyps[v->dec_hyp < v->dec->steps[s].nhyps ?
							     v->dec_hyp : 0];
		int ok = n == s + 1 && !strcmp(toks[0], "<s>");
		for (int i = 1; ok && i < n; i++)
			ok = !strcmp(toks[i], vocab_str(&m->tgt_vocab, h->ids[i - 1]));
		if (!ok && !bad++)
			printf("# %s step %d: newest row \"%s\" has %d tokens, want %d\n",
			       what, s, n >= 0 ? line : "(none)", n, s + 1);
		free(txt);
	}
	tap_ok(bad == 0, "%s: the ▸ row of step s has s+1 tokens (<s> + the "
	       "hypothesis) at all %d steps", what, v->dec->nsteps);
}

/* Greedy: the ✓ arg-max candidate is the most probable recorded one. */
static void check_argmax(struct view_state *v, const struct model *m)
{
	int bad = 0;
	for (int s = 0; s < v->dec->nsteps; s++) {
		const struct decode_step *st = &v->dec->steps[s];
		int best = -1;
		for (int i = 0; i < st->ncands; i++)
			if (st->cands[i].parent == 0 &&
			    (best < 0 || st->cands[i].prob > st->cands[best].prob))
				best = i;
		v->dec_step = s;
		char *txt = vt_render(v, 100, 30, DEPTH_NONE);
		char line[512], got[64] = "";
		if (line_with(txt, "✓ ", "arg-max", line, sizeof line))
			sscanf(strstr(line, "✓ ") + strlen("✓ "), "%63s", got);
		const char *want = best >= 0 ? vocab_str(&m->tgt_vocab, st->cands[best].token) : "?";
		if (strcmp(got, want) && !bad++)
			printf("# step %d: ✓ arg-max is \"%s\", the record's most probable "
			       "is \"%s\"\n", s, got, want);
		free(txt);
	}
	tap_ok(bad == 0, "greedy: the ✓ arg-max candidate is the most probable "
	       "one at every step");
}

/* Draws into a w×h rect inside a larger canvas filled with "#" and checks
 * nothing outside the rect changed; then straight into a w×h canvas. */
static int draws_inside(struct view_state *v, int w, int h)
{
	int out = vt_outside(v, w, h, DEPTH_TRUE);
	free(vt_render(v, w, h, DEPTH_NONE));
	if (out)
		printf("# %d×%d step %d: %d cells written outside\n", w, h,
		       v->dec_step, out);
	return out == 0;
}

static void check_sizes(struct view_state *v, const char *what)
{
	static const int sz[][2] = { { 1, 1 }, { 10, 5 }, { 30, 8 }, { 60, 18 },
				     { 59, 17 }, { 100, 30 }, { 250, 70 },
				     { 300, 100 }, { 0, 0 }, { 5, 0 }, { 0, 5 } };
	int ok = 1;
	for (int s = 0; s < v->dec->nsteps; s++)
		for (size_t i = 0; i < sizeof sz / sizeof *sz; i++) {
			v->dec_step = s;
			ok &= draws_inside(v, sz[i][0], sz[i][1]);
		}
	tap_ok(ok, "%s: every step at sizes 1×1 … 300×100 draws only inside its rect",
	       what);
}

static void snap(struct view_state *v, int step, const char *name)
{
	v->dec_step = step;
	char *txt = vt_render(v, 100, 30, DEPTH_NONE);
	vt_snapshot(name, txt);
	free(txt);
}

int main(void)
{
	struct model *m = vt_model("tests/data/tiny.yaml");
	if (!tap_ok(m != NULL, "tiny model loads"))
		return tap_done();
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct decode_result g, b;
	struct err e;
	pass_opts_default(&po);
	if (!tap_ok(input_build(m, SRC, NULL, &po, &in, &e) == 0, "input builds"))
		return tap_done();
	decode_opts_default(&o);
	o.max_len = 6;
	o.beam = 1;
	int rc = decode_run(m, &in, &po, &o, &g, &e);
	o.beam = 3;
	rc |= decode_run(m, &in, &po, &o, &b, &e);
	if (!tap_ok(rc == 0, "greedy and beam 3 decode"))
		return tap_done();
	tap_ok(g.hit_max_len && b.hit_max_len && g.nsteps == 6 && b.nsteps == 6,
	       "both stop at the length limit after 6 steps");
	struct trace *t = vt_pass(m, SRC, NULL, NULL);
	if (!tap_ok(t != NULL, "a pass to stand behind the views"))
		return tap_done();

	struct view_state v;
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	v.stage = 0;
	v.mode = VM_DECODE;
	v.dec_alpha = o.alpha;
	char *txt, line[512];

	/* --- greedy --- */
	v.dec = &g;
	v.dec_other = &b;
	v.dec_beam = 1;
	tap_ok(view_for(&v) == &decoding_view, "VM_DECODE picks the decoding page");
	snap(&v, 0, "decode_greedy_s0");
	snap(&v, 2, "decode_greedy_s2");
	snap(&v, g.nsteps - 1, "decode_greedy_last");
	v.dec_step = 2;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "step 3 of 6 · greedy", "greedy status line");
	tap_ok(!strstr(txt, "length limit"), "no length-limit warning before the last step");
	free(txt);
	v.dec_step = g.nsteps - 1;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "stopped at the length limit without </s>",
		     "the last step says the limit stopped it");
	free(txt);
	check_rows(&v, m, "greedy");
	check_argmax(&v, m);
	check_sizes(&v, "greedy page");

	/* --- beam --- */
	v.dec = &b;
	v.dec_other = &g;
	v.dec_beam = 3;
	v.dec_hyp = 0;
	snap(&v, 0, "decode_beam_s0");
	snap(&v, 2, "decode_beam_s2");
	snap(&v, b.nsteps - 1, "decode_beam_last");
	v.dec_step = 2;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "step 3 of 6 · beam 3, α=0.6", "beam status line");
	{
		/* every pruned candidate of step 3 is listed (or counted) */
		int np = 0;
		for (int i = 0; i < b.steps[2].ncands; i++)
			np += !b.steps[2].cands[i].kept;
		char want[64];
		snprintf(want, sizeof want, "✗ pruned at step 3: %d", np);
		tap_contains(txt, want, "the lattice counts step 3's pruned candidates");
	}
	free(txt);
	v.dec_step = b.nsteps - 1;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	{
		/* the ranking's first line is the best, with its score */
		char want[32];
		snprintf(want, sizeof want, "%.3f", fabs(b.best_score));
		tap_ok(line_with(txt, " 1 ", want, line, sizeof line) != NULL,
		       "final ranking: #1 has the best score −%s", want);
	}
	free(txt);
	check_rows(&v, m, "beam, hypothesis 0");
	v.dec_hyp = 2;
	check_rows(&v, m, "beam, hypothesis 2");
	check_sizes(&v, "beam page");
	v.dec_hyp = 0;

	/* --- comparison --- */
	v.mode = VM_COMPARE;
	v.dec = &g;
	v.dec_other = &b;
	v.dec_beam = 1;
	v.dec_step = 2;
	tap_ok(view_for(&v) == &compare_view, "VM_COMPARE picks the comparison");
	char *cg = vt_render(&v, 100, 30, DEPTH_NONE);
	vt_snapshot("decode_compare", cg);
	{
		char want[128], a[32], bb[32];
		snprintf(a, sizeof a, "%.2f", fabs(b.best_score));
		snprintf(bb, sizeof bb, "%.2f", fabs(g.best_score));
		snprintf(want, sizeof want, "beam found a higher-scoring translation: "
			 "−%s vs greedy's −%s", a, bb);
		tap_contains(cg, want, "the verdict names both scores");
		/* the first position where the outputs differ is marked */
		int k = 0;
		while (k < g.nbest && k < b.nbest && g.best[k] == b.best[k])
			k++;
		snprintf(want, sizeof want, "%4d", k + 1);
		tap_ok(line_with(cg, want, "◀ first difference", line, sizeof line) &&
		       strstr(line, vocab_str(&m->tgt_vocab, b.best[k])),
		       "the first difference is at position %d", k + 1);
	}
	v.dec = &b;
	v.dec_other = &g;
	v.dec_beam = 3;
	char *cb = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_str(cb, cg, "the comparison is the same with beam on screen");
	v.dec_beam = 0;   /* unknown: inferred from the record */
	free(cb);
	cb = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_str(cb, cg, "… and with the beam width inferred");
	free(cb);
	free(cg);
	v.dec_beam = 3;
	check_sizes(&v, "comparison");
	v.dec_other = NULL;
	txt = vt_render(&v, 100, 30, DEPTH_NONE);
	tap_contains(txt, "run the greedy search too", "without the other search: says so");
	free(txt);
	check_sizes(&v, "comparison without the other search");

	trace_free(t);
	decode_result_free(&g);
	decode_result_free(&b);
	input_free(&in);
	model_free(m);
	return tap_done();
}
