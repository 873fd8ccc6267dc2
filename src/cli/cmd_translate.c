/* cmd_translate.c - `attnscope translate`: greedy, beam-search or sampled
 * decoding, the output sentence, optionally every step as a table or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/caveats.h"
#include "engine/decode.h"
#include "engine/forward.h"
#include "formats/jsonout.h"
#include "views/canvas.h"

static void print_ids(const struct model *m, const int32_t *ids, int n)
{
	for (int i = 0; i < n; i++) {
		fputs(i ? " " : "", stdout);
		safetext_fputs(vocab_str(&m->tgt_vocab, ids[i]), stdout, 0);
	}
}

static void json_ids(struct jsonout *j, const struct model *m, const int32_t *ids, int n)
{
	putchar('[');
	for (int i = 0; i < n; i++) {
		if (i)
			putchar(',');
		jsonout_str(j, vocab_str(&m->tgt_vocab, ids[i]));
	}
	putchar(']');
}

/* The status of a candidate in the --steps table (translated; the JSON
 * output keeps the English words). */
static const char *cand_status(const struct cand *c)
{
	/* TRANSLATORS: status of a beam-search candidate (o candidato): it
	   ended with </s>, it stays in the beam, or it was dropped */
	return c->forced ? _("forced") : c->finished ? _("finished") : c->kept ? _("kept") :
	       _("pruned");
}

/* The same for sampling: drawn, or whether the cut kept it. */
static const char *cand_drawn(const struct cand *c)
{
	/* TRANSLATORS: status of a candidate when sampling: the draw chose it,
	   it could have been drawn (inside the top-k / top-p cut), or the cut
	   removed it */
	return c->forced ? _("forced") : c->drawn ? _("drawn") : c->prob_cut > 0 ?
	       _("in the cut") : _("cut off");
}

/* The decoder's prompt (<s>, or <s> + the sentence of a decoder-only
 * model) in front of every hypothesis. */
static void print_steps(const struct model *m, const struct pass_input *in,
			const struct decode_result *r, int topk, int sample)
{
	for (int s = 0; s < r->nsteps; s++) {
		const struct decode_step *st = &r->steps[s];
		/* TRANSLATORS: `attnscope translate --steps`: one decoding step */
		printf(_("step %d\n"), s + 1);
		for (int b = 0; b < st->nhyps; b++) {
			const struct hyp *h = &st->hyps[b];
			printf("  [%d] ", b);
			print_ids(m, in->tgt_ids, in->prompt);
			putchar(' ');
			print_ids(m, h->ids, h->n);
			printf("   (Σ log p %.3f)\n", h->logp);
			int shown = 0;
			for (int i = 0; i < st->ncands; i++) {
				const struct cand *c = &st->cands[i];
				if (c->parent != b)
					continue;
				if (shown >= topk && !c->kept)
					continue;
				char t[2048];   /* a token (≤ 256 bytes) made safe */
				safetext_copy(t, sizeof t, vocab_str(&m->tgt_vocab, c->token), 0);
				fputs("      ", stdout);
				utf8_fpad(stdout, t, 16, 0);
				if (sample)
					/* TRANSLATORS: one candidate of a sampling step: p, p
					   after temperature, p after the cut (renormalised),
					   status; keep "p=", "p_T=" and "p_cut=" */
					printf(_(" p=%.4f  p_T=%.4f  p_cut=%.4f  %s\n"), c->prob,
					       c->prob_t, c->prob_cut, cand_drawn(c));
				else
					/* TRANSLATORS: one candidate of a beam-search step: its
					   probability at this step, the sum of log p over the
					   steps so far, score (the length-normalized sum) and
					   status; keep "p=" and "Σ log p" */
					printf(_(" p=%.4f  Σ log p %.3f  score %.3f  %s\n"), c->prob,
					       c->logp, c->score, cand_status(c));
				shown++;
			}
		}
	}
}

/* One step of the search: its hypotheses and candidates. */
static void json_step(struct jsonout *j, const struct model *m, const struct cli *c,
		      const struct decode_step *st)
{
	putchar('{');
	if (c->sample) {
		printf("\"u\":");
		jsonout_num(j, "u", 9, st->u);
		printf(",\"allowed\":%d,\"kept\":%d,", st->nallowed, st->nkept);
	}
	printf("\"hypotheses\":[");
	for (int b = 0; b < st->nhyps; b++) {
		printf("%s{\"tokens\":", b ? "," : "");
		json_ids(j, m, st->hyps[b].ids, st->hyps[b].n);
		jsonout_field(j, "log_prob", 6, st->hyps[b].logp);
		putchar('}');
	}
	printf("],\"candidates\":[");
	for (int i = 0; i < st->ncands; i++) {
		const struct cand *cd = &st->cands[i];
		printf("%s{\"from\":%d,\"token\":", i ? "," : "", cd->parent);
		jsonout_str(j, vocab_str(&m->tgt_vocab, cd->token));
		jsonout_field(j, "prob", 6, cd->prob);
		jsonout_field(j, "log_prob", 6, cd->logp);
		jsonout_field(j, "score", 6, cd->score);
		printf(",\"status\":\"%s\"%s", cd->finished ? "finished" : cd->kept ? "kept" : "pruned",
		       cd->forced ? ",\"forced\":true" : "");
		if (c->sample) {
			jsonout_field(j, "prob_t", 6, cd->prob_t);
			jsonout_field(j, "prob_cut", 6, cd->prob_cut);
			printf(",\"drawn\":%s", cd->drawn ? "true" : "false");
		}
		putchar('}');
	}
	printf("]}");
}

static const char *const CAVEAT_KIND[] = { "unknown", "unseen", "number", "name", "empty" };

/* The caveats (caveats.h) as "warnings" items, {"word", "kind", "reason"}
 * with the reason in English, into a string (malloc'd; NULL when out of
 * memory). */
static char *json_caveats(const struct caveats *cv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct jsonout w = { f, 0, "" };
	for (int i = 0; i < cv->n; i++) {
		fprintf(f, "%s{\"word\":", i ? "," : "");
		jsonout_str(&w, cv->v[i].word);
		fprintf(f, ",\"kind\":\"%s\",\"reason\":", CAVEAT_KIND[cv->v[i].kind]);
		jsonout_str(&w, cv->v[i].reason);
		fputc('}', f);
	}
	fclose(f);
	return buf;
}

/* "greedy": greedy's output next to beam search's, so that the two scores
 * can be compared (beam search ranks by the score, not Σ log p). */
static void json_greedy(struct jsonout *j, const struct model *m, const struct cli *c,
			const struct decode_result *g)
{
	char text[4096];
	printf(",\"greedy\":{\"output\":");
	json_ids(j, m, g->best, g->nbest);
	printf(",\"text\":");
	jsonout_str(j, model_target_text(m, g->best, g->nbest, c->sentence, text, sizeof text));
	jsonout_field(j, "log_prob", 6, g->best_logp);
	jsonout_field(j, "score", 6, g->best_score);
	putchar('}');
}

/* Returns the count of numbers that were not finite (written as null). */
static int print_json(const struct model *m, const struct cli *c,
		      const struct pass_input *in, const struct decode_result *r,
		      const struct caveats *cv, const struct decode_result *greedy)
{
	struct jsonout j;
	jsonout_begin(&j, stdout);
	printf("\"model\":");
	jsonout_str(&j, m->cfg.name);
	printf(",\"sentence\":");
	jsonout_str(&j, c->sentence);
	/* the pieces the encoder reads, or a decoder-only model's prompt */
	char **src = in->src_len ? in->src_tok : in->tgt_tok;
	int nsrc = in->src_len ? in->src_len : in->prompt;
	printf(",\"source\":[");
	for (int i = 0; i < nsrc; i++) {
		if (i)
			putchar(',');
		jsonout_str(&j, src[i]);
	}
	printf("],\"mode\":\"%s\",\"beam\":%d", c->sample ? "sample" :
	       c->beam > 1 ? "beam" : "greedy", c->beam ? c->beam : 1);
	jsonout_field(&j, "alpha", JSONOUT_G, c->alpha);
	if (c->sample) {
		jsonout_field(&j, "temperature", JSONOUT_G, c->temperature);
		printf(",\"top_k\":%d", c->top_k);
		jsonout_field(&j, "top_p", JSONOUT_G, c->top_p);
		printf(",\"seed\":%llu", c->seed);
	}
	printf(",\"output\":");
	json_ids(&j, m, r->best, r->nbest);
	char text[4096];
	printf(",\"text\":");
	jsonout_str(&j, model_target_text(m, r->best, r->nbest, c->sentence, text, sizeof text));
	printf(",\"unknown\":[");
	for (int i = 0; i < in->nunknown; i++) {
		if (i)
			putchar(',');
		jsonout_str(&j, in->unknown[i]);
	}
	printf("]");
	if (greedy)
		json_greedy(&j, m, c, greedy);
	static const char *const stop[] = { "ended", "bound", "limit" };
	jsonout_field(&j, "log_prob", 6, r->best_logp);
	jsonout_field(&j, "score", 6, r->best_score);
	printf(",\"reached_max_len\":%s,\"stop\":\"%s\"", r->hit_max_len ? "true" : "false",
	       stop[r->stop]);
	jsonout_field(&j, "ms", 3, r->ms);
	printf(",\"steps\":[");
	for (int s = 0; s < r->nsteps; s++) {
		if (s)
			putchar(',');
		json_step(&j, m, c, &r->steps[s]);
	}
	printf("],\"finished\":[");
	for (int i = 0; i < r->nfinished; i++) {
		printf("%s{\"tokens\":", i ? "," : "");
		json_ids(&j, m, r->finished[i].ids, r->finished[i].n);
		jsonout_field(&j, "log_prob", 6, r->finished[i].logp);
		jsonout_field(&j, "score", 6, r->finished[i].score);
		putchar('}');
	}
	putchar(']');
	char *items = json_caveats(cv);
	int bad = jsonout_end_warnings(&j, items ? items : "");
	free(items);
	return bad;
}

/* Decodes c->sentence; on success *in holds the source and r the result. */
int cli_decode(struct cli *c, const struct model *m, struct pass_input *in,
	       struct decode_result *r)
{
	struct err e;
	struct decode_opts o;
	if (!c->sentence)
		return cli_fail("no sentence given (e.g. attnscope %s \"%s\")", c->cmd,
				m->cfg.nexamples ? m->cfg.examples[0] : "i love you very much");
	if (m->cfg.arch == ARCH_ENC_ONLY)
		return cli_fail("%s: an encoder-only model has no decoder: nothing to decode", m->path);
	if (input_build(m, c->sentence, NULL, &c->pass, in, &e))
		return cli_fail("%s", e.msg);
	char buf[1024];
	if (in->nunknown)
		warn_msg("%s", input_unknown_summary(in, buf, sizeof buf));
	if (in->ndropped)
		warn_msg("%s", input_dropped_summary(in, buf, sizeof buf));
	decode_opts_default(&o);
	o.beam = c->beam ? c->beam : 1;
	o.alpha = c->alpha;
	o.max_len = c->max_out;
	o.sample = c->sample;
	o.so.temperature = c->temperature;
	o.so.top_k = c->top_k;
	o.so.top_p = c->top_p;
	o.so.seed = c->seed;
	if (decode_run(m, in, &c->pass, &o, r, &e)) {
		input_free(in);
		return cli_fail("%s", e.msg);
	}
	if (r->hit_max_len && m->tgt_sp[TOK_EOS] >= 0)   /* (no </s> to wait for) */
		warn_msg("stopped at the length limit (%d tokens) without </s>", r->nbest);
	return 0;
}

/* A classifier (an encoder-only model with a head): the label
 * distribution, most likely first; --json: output (the top label),
 * labels and probs in the head's order. */
static int classify(struct cli *c, const struct model *m)
{
	struct trace *t = cli_run_pass(c, m);
	if (!t)
		return 1;
	const struct stage *ps = trace_find(t, "class_probs");
	const struct stage *ls = trace_find(t, "class_logits");
	const int C = m->cfg.head.nlabels;
	const float *p = stage_f32(ps), *lg = stage_f32(ls);   /* [C] */
	int best = 0, finite = 1;
	for (int i = 0; i < C; i++)
		finite &= isfinite(p[i]) && isfinite(lg[i]);
	if (!finite) {
		trace_free(t);
		return cli_fail("%s: the class probabilities are not finite (logits that "
				"overflow to ±inf, or NaN): no label", m->path);
	}
	for (int i = 1; i < C; i++)
		best = p[i] > p[best] ? i : best;
	if (c->json) {
		struct jsonout j;
		jsonout_begin(&j, stdout);
		printf("\"model\":");
		jsonout_str(&j, m->cfg.name);
		printf(",\"sentence\":");
		jsonout_str(&j, c->sentence);
		printf(",\"output\":");
		jsonout_str(&j, m->cfg.head.labels[best]);
		printf(",\"labels\":[");
		for (int i = 0; i < C; i++) {
			printf("%s", i ? "," : "");
			jsonout_str(&j, m->cfg.head.labels[i]);
		}
		printf("],\"probs\":[");
		for (int i = 0; i < C; i++) {
			printf("%s", i ? "," : "");
			jsonout_num(&j, "probs", 6, p[i]);
		}
		printf("],\"logits\":[");
		for (int i = 0; i < C; i++) {
			printf("%s", i ? "," : "");
			jsonout_num(&j, "logits", 6, lg[i]);
		}
		putchar(']');
		jsonout_end(&j);
	} else {
		int done[256] = { 0 };
		for (int k = 0; k < C && k < 256; k++) {
			int j = -1;
			for (int i = 0; i < C && i < 256; i++)
				if (!done[i] && (j < 0 || p[i] > p[j]))
					j = i;
			done[j] = 1;
			utf8_fpad(stdout, m->cfg.head.labels[j], 16, 0);
			/* TRANSLATORS: `translate` on a classifier: one label's
			   probability and logit (after the label's name) */
			printf(_(" %7.3f%%  logit %.4f\n"), 100.0 * p[j], lg[j]);
		}
	}
	trace_free(t);
	return 0;
}

/* On stderr, one line a caveat (the <unk> words have had theirs). */
static void warn_caveats(const struct caveats *cv)
{
	for (int i = 0; i < cv->n; i++) {
		if (cv->v[i].kind == CAV_UNK)
			continue;
		char w[256];
		if (cv->v[i].kind == CAV_EMPTY)
			warn_msg("%s", _(cv->v[i].reason));
		else
			warn_msg("“%s”: %s", safetext_copy(w, sizeof w, cv->v[i].word, 0),
				 _(cv->v[i].reason));
	}
}

/* Greedy search on the same source (for --json next to a beam search). */
static int greedy_run(const struct cli *c, const struct model *m,
		      const struct pass_input *in, struct decode_result *g)
{
	struct decode_opts o;
	struct err e;
	decode_opts_default(&o);
	o.alpha = c->alpha;
	o.max_len = c->max_out;
	return decode_run(m, in, &c->pass, &o, g, &e);
}

int cmd_translate(struct cli *c)
{
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	if (m->cfg.head.nlabels) {
		int st = classify(c, m);
		model_free(m);
		return st;
	}
	struct pass_input in;
	struct decode_result r;
	int status = cli_decode(c, m, &in, &r);
	struct caveats cv = { NULL, 0 };
	struct decode_result g;
	int have_g = 0;
	if (status == 0) {
		/* NaN weights are loaded (with a warning) to be looked at; a
		 * translation from them, or from logits that overflowed, is none */
		const int broken = r.nonfinite_step >= 0;
		struct err e;
		if (!broken && caveats_find(m, c->sentence, r.best, r.nbest, &cv, &e))
			warn_msg("%s", e.msg);
		warn_caveats(&cv);
		if (c->json && c->beam > 1 && !c->sample && !broken)
			have_g = greedy_run(c, m, &in, &g) == 0;
		if (c->json) {
			/* still a JSON document: its numbers null, with "warnings" */
			if (print_json(m, c, &in, &r, &cv, have_g ? &g : NULL) && !broken)
				warn_msg("some numbers of the result were not finite: written as null");
		} else if (!broken) {
			if (c->steps)
				print_steps(m, &in, &r, 5, c->sample);
			char text[4096];
			safetext_fputs(model_target_text(m, r.best, r.nbest, c->sentence, text, sizeof text), stdout, 0);
			printf("%s\n", r.hit_max_len && m->tgt_sp[TOK_EOS] >= 0 ?
			       _("   [no </s>: stopped at the length limit]") : "");
		}
		if (broken)
			status = cli_fail("%s: the next-token distribution is not finite at step %d "
					  "(logits that overflow to ±inf, or NaN): no translation",
					  m->path, r.nonfinite_step + 1);
		decode_result_free(&r);
		input_free(&in);
	}
	if (have_g)
		decode_result_free(&g);
	caveats_free(&cv);
	model_free(m);
	return status;
}
