/* decoding.c - the stepper's decoding: greedy, beam search and sampling
 * on the sentence, the step and hypothesis on screen, forcing a token. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "term.h"
#include "base/i18n.h"

/* Runs greedy, beam search and sampling on the sentence. */
int app_decode_all(struct app *a, const char *sentence)
{
	a->churn = 1;
	struct pass_input in;
	struct decode_opts o;
	struct decode_result r[3];
	struct err e;
	if (a->m->cfg.arch == ARCH_ENC_ONLY) {
		app_msg(a, 0, _("an encoder-only model has no decoder: there is nothing to decode"));
		return -1;
	}
	if (input_build(a->m, sentence, NULL, &a->opts, &in, &e)) {
		app_msg(a, 1, "%s", e.msg);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		decode_opts_default(&o);
		o.beam = k == 1 ? a->ds.beam_w : 1;
		o.alpha = a->ds.alpha;
		o.sample = k == 2;
		o.so = a->ds.so;
		o.force_step = a->ds.force_step[k];
		o.force_token = a->ds.force_token[k];
		o.force_hyp = a->ds.force_hyp[k];
		if (decode_run(a->m, &in, &a->opts, &o, &r[k], &e)) {
			for (int j = 0; j < k; j++)
				decode_result_free(&r[j]);
			input_free(&in);
			app_msg(a, 1, "%s", e.msg);
			return -1;
		}
	}
	input_free(&in);
	for (int k = 0; k < 3; k++) {
		decode_result_free(&a->ds.res[k]);
		a->ds.res[k] = r[k];
	}
	return 0;
}

/* What each row of the step's pass predicts, for the row labels
 * ("gato → é"): a row before the last predicts the next input token (the
 * search chose it at an earlier step); the last row, the token the search
 * chose at this step from hypothesis hyp (its kept candidate of best
 * score; none when the hypothesis was dropped). */
static void label_next(struct app *a, const struct decode_step *st, int hyp, int len)
{
	struct trace *t = a->tr;
	for (int i = 0; i + 1 < len && i + 1 < t->T; i++)
		if (trace_set_next(t, i, t->tgt_tokens[i + 1]))
			term_fatal("%s", _("out of memory"));
	const struct cand *best = NULL;
	for (int k = 0; k < st->ncands; k++) {
		const struct cand *cd = &st->cands[k];
		if (cd->parent == hyp && cd->kept && (!best || cd->score > best->score))
			best = cd;
	}
	if (best && len >= 1 &&
	    trace_set_next(t, len - 1, vocab_str(&a->m->tgt_vocab, best->token)))
		term_fatal("%s", _("out of memory"));
}

/* The pass of the step on screen: the followed hypothesis's decoder input
 * (<s> + its tokens so far); its last row is the step's distribution. */
int app_step_pass(struct app *a)
{
	struct view_state *v = &a->scr.v;
	const struct decode_result *r = &a->ds.res[a->ds.which];
	struct pass_input in;
	struct err e;
	char name[STAGE_NAME_MAX] = "";
	if (a->tr && a->tr->n)
		snprintf(name, sizeof name, "%s", a->tr->stages[v->stage].name);
	if (v->dec_step >= r->nsteps) v->dec_step = r->nsteps - 1;
	if (v->dec_step < 0) v->dec_step = 0;
	const struct decode_step *st = &r->steps[v->dec_step];
	if (v->dec_hyp >= st->nhyps) v->dec_hyp = st->nhyps - 1;
	if (v->dec_hyp < 0) v->dec_hyp = 0;
	const struct hyp *h = &st->hyps[v->dec_hyp];
	if (input_build(a->m, a->sentence, NULL, &a->opts, &in, &e)) {
		app_msg(a, 1, "%s", e.msg);
		return -1;
	}
	if (decode_set_target(a->m, &in, h->ids, h->n, a->opts.pad_target))
		term_fatal("%s", _("out of memory"));
	if (!a->tr && !(a->tr = trace_new()))
		term_fatal("%s", _("out of memory"));
	if (!forward_run(a->m, &in, &a->opts, a->tr, &e))
		term_fatal("%s", e.msg);
	int in_len = in.tgt_len;
	input_free(&in);
	label_next(a, st, v->dec_hyp, in_len);
	v->tr = a->tr;
	v->labels_own = 0;
	a->ins.pass_gen++;
	v->alt = NULL;
	v->dec = r;
	v->dec_other = &a->ds.res[a->ds.which == 1 ? 0 : 1];   /* greedy ↔ beam */
	v->dec_beam = a->ds.which == 1 ? a->ds.beam_w : 1;
	v->dec_alpha = a->ds.alpha;
	v->dec_sample = a->ds.which == 2 ? &a->ds.so : NULL;
	int i = *name ? trace_index(a->tr, name) : -1;
	v->stage = i >= 0 ? i : 0;
	v->row = in_len - 1;     /* the newest token: the row this step adds */
	return 0;
}

void app_decode_start(struct app *a)
{
	if (!a->ds.on) {
		a->ds.on = 1;
		a->scr.v.dec_step = a->scr.v.dec_hyp = a->scr.v.dec_cand = 0;
		if (app_decode_all(a, a->sentence) || app_step_pass(a)) {
			a->ds.on = 0;
			return;
		}
	}
	a->scr.v.mode = VM_DECODE;
}

void app_decode_stop(struct app *a)
{
	struct view_state *v = &a->scr.v;
	if (!a->ds.on)
		return;
	a->ds.on = 0;
	view_mode_off(v, VM_DECODE, VM_COMPARE);
	v->dec = v->dec_other = NULL;
	v->dec_sample = NULL;
	for (int k = 0; k < 3; k++)
		decode_result_free(&a->ds.res[k]);
	app_recompute(a, a->sentence, a->target);
}

void app_decode_reset(struct app *a)
{
	struct view_state *v = &a->scr.v;
	if (!a->ds.on)
		return;
	int page = ((v->mode == VM_DECODE || v->mode == VM_COMPARE)) != 0;
	a->ds.on = 0;
	view_mode_off(v, VM_DECODE, VM_COMPARE);
	v->dec = v->dec_other = NULL;
	v->dec_sample = NULL;
	v->dec_step = v->dec_hyp = v->dec_cand = 0;
	for (int k = 0; k < 3; k++) {
		decode_result_free(&a->ds.res[k]);
		a->ds.force_step[k] = -1;
	}
	a->ds.reopen = page;
}

/* Actions that need decoding start it first. */
static int need_decoding(struct app *a)
{
	if (!a->ds.on)
		app_decode_start(a);
	return a->ds.on;
}

/* # and * while sampling: another seed, the next top-k.  Returns -1 when
 * nothing changed (the message says why). */
/* A message that says a setting (numbers only, no user text), with the
 * message language's decimal separator ("temperatura 0,8"). */
static void setting_msg(struct app *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void setting_msg(struct app *a, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	app_msg(a, 0, "%s", i18n_decimals(buf));
}

static int sampling_key(struct app *a, enum action act)
{
	if (a->ds.which != 2) {
		app_msg(a, 0, _("T switches to sampling first"));
		return -1;
	}
	if (act == A_RESEED) {
		a->ds.so.seed++;
	} else {
		static const int K[] = { 0, 1, 2, 3, 5, 10, 20, 50 };
		int i = 0;
		while (i < 8 && K[i] != a->ds.so.top_k)
			i++;
		a->ds.so.top_k = K[(i + 1) % 8];
	}
	if (app_decode_all(a, a->sentence))
		return -1;
	if (act == A_RESEED)
		app_msg(a, 0, _("sampling: seed %llu"), (unsigned long long)a->ds.so.seed);
	else
		app_msg(a, 0, _("sampling: top-k %d (0: no cut)"), a->ds.so.top_k);
	return 0;
}

/* + and -: the beam width, or the temperature while sampling. */
static int width_key(struct app *a, enum action act)
{
	if (a->ds.which == 2) {
		double t = a->ds.so.temperature + (act == A_BEAM_MORE ? 0.1 : -0.1);
		if (t < -1e-9 || t > 5 + 1e-9) {
			app_msg(a, 0, _("the temperature stays within 0…5"));
			return -1;
		}
		a->ds.so.temperature = t < 1e-9 ? 0 : t;
		if (app_decode_all(a, a->sentence))
			return -1;
		setting_msg(a, _("sampling: temperature %.1f"), a->ds.so.temperature);
		return 0;
	}
	int w = a->ds.beam_w + (act == A_BEAM_MORE ? 1 : -1);
	if (w < 2 || w > 16) {
		app_msg(a, 0, _("beam width stays within 2…16 here (b switches to greedy)"));
		return -1;
	}
	a->ds.beam_w = w;
	a->ds.which = 1;
	if (app_decode_all(a, a->sentence))
		return -1;
	app_msg(a, 0, _("beam width %d"), w);
	return 0;
}

/* ( and ): the length penalty α, or top-p while sampling. */
static int alpha_key(struct app *a, enum action act)
{
	if (a->ds.which == 2) {
		double p = a->ds.so.top_p + (act == A_ALPHA_UP ? 0.05 : -0.05);
		if (p < 0.05 - 1e-9 || p > 1 + 1e-9) {
			app_msg(a, 0, _("top-p stays within 0.05…1"));
			return -1;
		}
		a->ds.so.top_p = p > 1 ? 1 : p;
		if (app_decode_all(a, a->sentence))
			return -1;
		setting_msg(a, _("sampling: top-p %.2f (1: no cut)"), a->ds.so.top_p);
		return 0;
	}
	double al = a->ds.alpha + (act == A_ALPHA_UP ? 0.1 : -0.1);
	if (al < -1e-9 || al > 2.0 + 1e-9) {
		app_msg(a, 0, _("α stays within 0…2"));
		return -1;
	}
	a->ds.alpha = al < 1e-9 ? 0 : al;
	if (app_decode_all(a, a->sentence))
		return -1;
	setting_msg(a, _("length penalty α = %.1f"), a->ds.alpha);
	return 0;
}

/* f: force the selected candidate at the step on screen; the forced token
 * continues the followed hypothesis, which is followed on. */
static int force_key(struct app *a)
{
	struct view_state *v = &a->scr.v;
	const struct decode_step *st = &a->ds.res[a->ds.which].steps[v->dec_step];
	int k = 0, tok = -1;
	for (int i = 0; i < st->ncands; i++)
		if (st->cands[i].parent == v->dec_hyp && k++ == v->dec_cand)
			tok = st->cands[i].token;
	if (tok < 0) {
		app_msg(a, 0, _("select a candidate with ↑/↓ first"));
		return -1;
	}
	a->ds.force_step[a->ds.which] = v->dec_step;
	a->ds.force_token[a->ds.which] = tok;
	a->ds.force_hyp[a->ds.which] = v->dec_hyp;
	if (app_decode_all(a, a->sentence))
		return -1;
	app_msg(a, 0, _("what-if: step %d forced to “%s”; decoding continues from there "
			"(F undoes)"), v->dec_step + 1, vocab_str(&a->m->tgt_vocab, tok));
	return 0;
}

void app_decode_action(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (!need_decoding(a))
		return;
	const struct decode_result *r = &a->ds.res[a->ds.which];
	switch (act) {
	case A_STEP_NEXT:
		if (v->dec_step + 1 < r->nsteps)
			v->dec_step++;
		else
			app_msg(a, 0, r->hit_max_len ?
				_("the last step: the length limit was reached without </s>") :
				_("the last step: the best hypothesis ended with </s>"));
		break;
	case A_STEP_PREV: if (v->dec_step > 0) v->dec_step--; break;
	case A_STEP_LAST: v->dec_step = r->nsteps - 1; break;
	case A_BEAM_TOGGLE: a->ds.which = a->ds.which == 1 ? 0 : 1; break;
	case A_SAMPLE:
		a->ds.which = a->ds.which == 2 ? 0 : 2;
		if (a->ds.which == 2)
			setting_msg(a, _("sampling: T=%g, top-k %d, top-p %g, seed %llu "
					"(+ - temperature, ( ) top-p, * top-k, # another seed; T: greedy)"),
				a->ds.so.temperature, a->ds.so.top_k, a->ds.so.top_p,
				(unsigned long long)a->ds.so.seed);
		if (v->mode == VM_COMPARE)
			v->mode = VM_DECODE;
		break;
	case A_RESEED:
	case A_TOPK:
		if (sampling_key(a, act))
			return;
		break;
	case A_BEAM_MORE:
	case A_BEAM_LESS:
		if (width_key(a, act))
			return;
		break;
	case A_ALPHA_UP:
	case A_ALPHA_DOWN:
		if (alpha_key(a, act))
			return;
		break;
	case A_COMPARE:
		if (a->ds.which == 2) {
			app_msg(a, 0, _("the comparison is greedy ↔ beam: T leaves sampling"));
			return;
		}
		v->mode = v->mode == VM_COMPARE ? VM_DECODE : VM_COMPARE;
		break;
	case A_FORCE:
		if (force_key(a))
			return;
		break;
	case A_UNFORCE:
		a->ds.force_step[a->ds.which] = -1;
		if (app_decode_all(a, a->sentence))
			return;
		break;
	default:
		break;
	}
	app_step_pass(a);
}
