/* test_decode.c - greedy and beam search against the traced forward pass.
 *
 * The cached decoder step must compute the same function as forward.c: the
 * probability recorded for each chosen token is compared with probs[t] of a
 * teacher-forced trace of the decoded output.  Greedy is also re-derived
 * independently by arg-max over repeated full passes (no cache at all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "viewtest.h"
#include "engine/decode.h"

static int argmax_allowed(const float *row, int V)
{
	int best = -1;
	for (int j = 0; j < V; j++) {
		if (j == TOK_PAD || j == TOK_SOS)
			continue;
		if (best < 0 || row[j] > row[best])
			best = j;
	}
	return best;
}

/* Greedy by repeated full traced passes: feed <s> + output so far, take the
 * arg-max of the last row, until </s> or max steps. */
static int naive_greedy(const struct model *m, const char *sentence, int maxn,
			int32_t *out)
{
	struct pass_input in;
	struct pass_opts o;
	struct err e;
	pass_opts_default(&o);
	if (input_build(m, sentence, NULL, &o, &in, &e))
		return -1;
	int n = 0;
	while (n < maxn) {
		if (decode_set_target(m, &in, out, n, 0))
			break;
		struct trace *t = forward_run(m, &in, &o, NULL, &e);
		if (!t)
			break;
		const struct stage *p = trace_find(t, "probs");
		int V = p->shape[1], T = p->shape[0];
		int tok = argmax_allowed(stage_f32(p) + (size_t)(T - 1) * V, V);
		trace_free(t);
		if (tok == TOK_EOS)
			break;
		out[n++] = tok;
	}
	input_free(&in);
	return n;
}

static void check_model(const char *path, const char *const *sentences, int ns)
{
	struct model *m = vt_model(path);
	if (!tap_ok(m != NULL, "%s loads", path))
		return;
	for (int k = 0; k < ns; k++) {
		const char *s = sentences[k];
		struct pass_input in;
		struct pass_opts po;
		struct decode_opts o;
		struct decode_result g, b1, b4, nc;
		struct err e;
		pass_opts_default(&po);
		if (input_build(m, s, NULL, &po, &in, &e)) {
			tap_ok(0, "input %s: %s", s, e.msg);
			continue;
		}
		decode_opts_default(&o);
		o.max_len = 12;
		int rc = decode_run(m, &in, &po, &o, &g, &e);
		tap_ok(rc == 0, "%s: greedy decodes \"%s\"", path, s);
		if (rc) {
			input_free(&in);
			continue;
		}
		/* the same as arg-max over full passes */
		int32_t naive[64];
		int nn = naive_greedy(m, s, 12, naive);
		tap_ok(nn == g.nbest && !memcmp(naive, g.best, (size_t)nn * sizeof *naive),
		       "%s: cached greedy = arg-max of full passes (%d tokens)", path, nn);

		/* recorded probabilities = the traced pass's probs */
		struct pass_input tin;
		pass_opts_default(&po);
		input_build(m, s, NULL, &po, &tin, &e);
		decode_set_target(m, &tin, g.best, g.nbest, 0);
		struct trace *t = forward_run(m, &tin, &po, NULL, &e);
		const struct stage *p = t ? trace_find(t, "probs") : NULL;
		float got[64], want[64];
		int nstep = g.nsteps < 64 ? g.nsteps : 64, row0 = tin.T - 1 - g.nbest;
		for (int i = 0; p && i < nstep && i < g.nbest; i++) {
			const struct cand *kept = NULL;
			for (int j = 0; j < g.steps[i].ncands; j++)
				if (g.steps[i].cands[j].kept)
					kept = &g.steps[i].cands[j];
			got[i] = kept ? kept->prob : -1;
			want[i] = stage_f32(p)[(size_t)(row0 + i) * p->shape[1] + g.best[i]];
		}
		if (p)
			tap_close(got, want, (size_t)(nstep < g.nbest ? nstep : g.nbest), 1e-5,
				  "step probabilities match the traced pass");
		trace_free(t);
		input_free(&tin);

		/* beam 1 = greedy; beam 4 scores at least greedy's */
		o.beam = 1;
		decode_run(m, &in, &po, &o, &b1, &e);
		tap_ok(b1.nbest == g.nbest && !memcmp(b1.best, g.best, (size_t)g.nbest * 4),
		       "beam 1 gives the greedy output");
		o.beam = 4;
		decode_run(m, &in, &po, &o, &b4, &e);
		double gscore = g.best_logp / pow((5.0 + g.nbest + !g.hit_max_len) / 6.0, o.alpha);
		/* (batched rows round differently: allow float noise) */
		tap_ok(b4.best_score >= gscore - 1e-5,
		       "beam 4 score %.4f ≥ greedy score %.4f", b4.best_score, gscore);
		o.no_cache = 1;
		decode_run(m, &in, &po, &o, &nc, &e);
		tap_ok(nc.nbest == b4.nbest && !memcmp(nc.best, b4.best, (size_t)b4.nbest * 4) &&
		       fabs(nc.best_logp - b4.best_logp) < 1e-4,
		       "recomputing without the cache gives the same beam result");
		/* every step keeps at most B live hypotheses */
		int okb = 1;
		for (int i = 0; i < b4.nsteps; i++)
			okb &= b4.steps[i].nhyps <= 4;
		tap_ok(okb, "at most 4 live hypotheses per step");
		decode_result_free(&g);
		decode_result_free(&b1);
		decode_result_free(&b4);
		decode_result_free(&nc);
		input_free(&in);
	}
	/* bad input */
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct decode_result r;
	struct err e;
	pass_opts_default(&po);
	input_build(m, sentences[0], NULL, &po, &in, &e);
	decode_opts_default(&o);
	o.beam = 0;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "beam 0 is refused");
	tap_contains(e.msg, "beam", "the message names the beam");
	o.beam = 1;
	o.max_len = 2;
	o.min_len = 2;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) == 0 && r.hit_max_len && r.nbest == 2,
	       "the length limit without </s> is flagged");
	decode_result_free(&r);
	input_free(&in);
	model_free(m);
}

int main(void)
{
	static const char *const enc_dec[] = { "your cat is a lovely cat", "i love you very much", "cat" };
	static const char *const dec[] = { "your cat", "i love" };
	check_model("tests/data/tiny.yaml", enc_dec, 3);
	check_model("tests/data/tiny-dec.yaml", dec, 2);

	/* an encoder-only model cannot decode */
	struct model *m = vt_model("models/seed-toy.yaml");
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct decode_result r;
	struct err e;
	pass_opts_default(&po);
	decode_opts_default(&o);
	if (m && input_build(m, "your cat is", NULL, &po, &in, &e) == 0) {
		tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "encoder-only: decode refused");
		tap_contains(e.msg, "encoder-only", "and the message says why");
		input_free(&in);
	}
	model_free(m);
	return tap_done();
}
