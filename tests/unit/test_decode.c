/* test_decode.c - greedy and beam search against the traced forward pass.
 *
 * The cached decoder step must compute the same function as forward.c: the
 * probability recorded for each chosen token is compared with probs[t] of a
 * teacher-forced trace of the decoded output.  Greedy is also re-derived
 * independently by arg-max over repeated full passes (no cache at all). */
#include <math.h>
#include <stdio.h>
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

		/* teacher forcing on the output traces its loss: one −log p a
		 * decoder position (a decoder-only model's prompt too), those
		 * of the output's tokens (and of </s> when it ended) summing to
		 * −log p of the decoded sequence */
		input_build(m, s, NULL, &po, &tin, &e);
		decode_teacher_force(m, &tin, g.best, g.nbest, 0);
		t = forward_run(m, &tin, &po, NULL, &e);
		const struct stage *l = t ? trace_find(t, "loss") : NULL;
		const int p0 = (tin.prompt > 0 ? tin.prompt : 1) - 1;
		double sum = 0;
		for (int i = p0; l && i < p0 + g.nbest + !g.hit_max_len && i < l->shape[0]; i++)
			sum += stage_f32(l)[i];
		tap_ok(l && l->shape[0] == tin.T &&
		       fabs(sum + g.best_logp) < 1e-3 * (1 + fabs(g.best_logp)),
		       "teacher forcing on it: %d losses, the output's summing to %.4f = −log p %.4f",
		       l ? l->shape[0] : -1, sum, -g.best_logp);
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
	/* a caller's input that does not hold a prompt is refused, never
	   read outside its buffers (bench's synthetic ids once started at
	   position −1) */
	o.min_len = 0;
	int keep = in.prompt;
	in.prompt = 0;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "%s: prompt 0 is refused", path);
	tap_contains(e.msg, "prompt", "the message says what is missing");
	in.prompt = in.tgt_len + 1;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "%s: a prompt past the input is refused",
	       path);
	in.prompt = keep;
	int32_t id = in.tgt_ids[0];
	in.tgt_ids[0] = m->tgt_vocab.n;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "%s: a prompt id past the vocabulary is refused",
	       path);
	in.tgt_ids[0] = id;
	o.max_len = -1;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) < 0, "%s: a negative length limit is refused", path);
	/* the limit of DESIGN.md: P + N − 1 ≤ max_len */
	o.max_len = 10000;
	o.min_len = 10000;
	tap_ok(decode_run(m, &in, &po, &o, &r, &e) == 0 &&
	       in.prompt + r.nbest - 1 == m->cfg.max_len,
	       "%s: a prompt of %d takes %d new tokens (max_len %d)", path, in.prompt, r.nbest,
	       m->cfg.max_len);
	decode_result_free(&r);
	input_free(&in);
	model_free(m);
}

static double gnmt_lp(double alpha, int n)
{
	return pow((5.0 + n) / 6.0, alpha);
}

/* Decodes prompt with beam B on model m, at most max_len tokens (0: the
 * default limit); *r must be freed. */
static int run_n(const struct model *m, const char *prompt, int B, double alpha,
		 int until_limit, int max_len, struct decode_result *r)
{
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct err e;
	pass_opts_default(&po);
	if (input_build(m, prompt, NULL, &po, &in, &e))
		return -1;
	decode_opts_default(&o);
	o.beam = B;
	o.alpha = alpha;
	o.max_len = max_len;
	o.until_limit = until_limit;
	int rc = decode_run(m, &in, &po, &o, r, &e);
	input_free(&in);
	return rc;
}

static int run(const struct model *m, const char *prompt, int B, double alpha,
	       int until_limit, struct decode_result *r)
{
	return run_n(m, prompt, B, alpha, until_limit, 8, r);
}

static int output_is(const struct model *m, const struct decode_result *r, const char *want)
{
	char got[256] = "";
	size_t used = 0;
	for (int i = 0; i < r->nbest && used < sizeof got - 32; i++)
		used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", i ? " " : "",
					 vocab_str(&m->tgt_vocab, r->best[i]));
	return strcmp(got, want) == 0;
}

/* The stopping rule on a Markov chain whose numbers are known by hand
 * (tests/data/bigram.yaml says what the chain is). */
static void check_stopping_rule(void)
{
	struct model *m = vt_model("tests/data/bigram.yaml");
	if (!tap_ok(m != NULL, "bigram model loads"))
		return;
	struct decode_result r;
	/* from "a": b d </s> has log p ln .9 + ln .99 + ln 1, length 3 */
	const double bd = log(0.9) + log(0.99), bd_score = bd / gnmt_lp(0.6, 3);
	static const int widths[] = { 1, 2, 3, 4, 8 };
	for (int k = 0; k < 5; k++) {
		int B = widths[k];
		if (run(m, "a", B, 0.6, 0, &r)) {
			tap_ok(0, "beam %d decodes the chain", B);
			continue;
		}
		/* the old rule (stop once B hypotheses finished) ended beam 2 at
		 * step 2 with "" (ln .06 = −2.81) while "b d" was alive */
		tap_ok(output_is(m, &r, "b d") && fabs(r.best_logp - bd) < 1e-5 &&
		       fabs(r.best_score - bd_score) < 1e-5,
		       "chain from a, beam %d: \"b d\" log p %.5f score %.5f (want %.5f %.5f)",
		       B, r.best_logp, r.best_score, bd, bd_score);
		tap_ok(B == 1 ? r.stop == DECODE_STOP_ENDED : r.stop == DECODE_STOP_BOUND,
		       "beam %d stops by %s", B, B == 1 ? "greedy's </s>" : "the bound");
		decode_result_free(&r);
	}
	/* from "f" at α = 0.6: "" ends first with ln .45 = −0.799 (greedy's
	 * answer), "g" is alive with ln .4 = −0.916: a worse current score, but
	 * g h </s> scores −0.916 ÷ lp(3) = −0.771.  A rule that compares the
	 * live hypotheses' current scores (or lp at their current length)
	 * stops and keeps ""; the bound log p ÷ lp(max_len) = −0.576 goes on. */
	const double gh = log(0.4) / gnmt_lp(0.6, 3);
	if (run(m, "f", 2, 0.6, 0, &r) == 0) {
		tap_ok(output_is(m, &r, "g h") && fabs(r.best_score - gh) < 1e-5,
		       "chain from f, beam 2, α 0.6: \"g h\" score %.5f (want %.5f)",
		       r.best_score, gh);
		decode_result_free(&r);
	}
	if (run(m, "f", 1, 0.6, 0, &r) == 0) {
		tap_ok(output_is(m, &r, "") && fabs(r.best_score - log(0.45)) < 1e-5,
		       "chain from f, greedy: \"\" score %.5f (want %.5f)", r.best_score,
		       log(0.45));
		decode_result_free(&r);
	}
	/* α = 0: scores are log p, which only falls: "" (ln .45) wins and the
	 * search stops after step 1, as soon as it finished */
	if (run(m, "f", 2, 0.0, 0, &r) == 0) {
		tap_ok(output_is(m, &r, "") && fabs(r.best_score - log(0.45)) < 1e-5 &&
		       r.nsteps == 1 && r.stop == DECODE_STOP_BOUND,
		       "chain from f, beam 2, α 0: \"\" after 1 step (%d), score %.5f",
		       r.nsteps, r.best_score);
		decode_result_free(&r);
	}
	model_free(m);
}

/* Stopping early must give what running to the length limit gives, and
 * beam k must score at least greedy on the held-out sample. */
static void check_early_stop(void)
{
	struct model *m = vt_model("models/en-pt-tiny.yaml");
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/en-pt-heldout-sample.tsv", vt_srcdir());
	FILE *f = fopen(path, "r");
	if (!tap_ok(m && f, "en-pt-tiny and the held-out sample load")) {
		if (f)
			fclose(f);
		model_free(m);
		return;
	}
	char line[1024];
	int n = 0, same = 0, early = 0, ge = 0, cmp = 0;
	static const int widths[] = { 2, 3, 4, 8 };
	while (fgets(line, sizeof line, f)) {
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		struct decode_result g;
		if (run_n(m, line, 1, 0.6, 0, 0, &g))
			continue;
		n++;
		for (int k = 0; k < 4; k++) {
			struct decode_result a, b;
			if (run_n(m, line, widths[k], 0.6, 0, 0, &a))
				continue;
			if (run_n(m, line, widths[k], 0.6, 1, 0, &b) == 0) {
				same += a.nbest == b.nbest && a.hit_max_len == b.hit_max_len &&
					!memcmp(a.best, b.best, (size_t)a.nbest * sizeof *a.best) &&
					fabs(a.best_score - b.best_score) < 1e-9;
				early += a.stop == DECODE_STOP_BOUND && a.nsteps < b.nsteps;
				decode_result_free(&b);
			}
			cmp++;
			ge += a.best_score >= g.best_score - 1e-5;
			decode_result_free(&a);
		}
		decode_result_free(&g);
	}
	fclose(f);
	tap_ok(n >= 40 && same == cmp,
	       "%d sentences × beams 2 3 4 8: stopping early = running to the limit in %d of %d "
	       "(%d stopped early)", n, same, cmp, early);
	tap_ok(early > 0, "the bound did stop some searches early (%d)", early);
	tap_ok(ge == cmp, "beam k scores at least greedy in %d of %d", ge, cmp);
	/* the sentence: beam 4 stopped with −1.755 below greedy's −1.103 */
	struct decode_result g, b4;
	if (run_n(m, "i like to eat apples", 1, 0.6, 0, 0, &g) == 0) {
		if (run_n(m, "i like to eat apples", 4, 0.6, 0, 0, &b4) == 0) {
			tap_ok(b4.best_score >= g.best_score - 1e-5,
			       "\"i like to eat apples\": beam 4 %.3f ≥ greedy %.3f",
			       b4.best_score, g.best_score);
			decode_result_free(&b4);
		}
		decode_result_free(&g);
	}
	model_free(m);
}

int main(void)
{
	check_stopping_rule();
	check_early_stop();
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
