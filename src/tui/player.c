/* player.c - lecture mode: each step of a lecture script sets the
 * stepper's state (sentence, masks, stage, head, cursor, view, caption). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "caption.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "common/options.h"

/* Step s's caption in the message language, its references filled in
 * from the pass on screen (a->lp.caption); a reference that does not resolve
 * (lecture_check lets none through) is said in the message line. */
static const char *fill_caption(struct app *a, const struct lstep *s)
{
	const char *text = _(s->caption);   /* po/lecture-captions.pot */
	struct caption_src src = { a->tr, s->stage, NULL, NULL, a->lp.deck, a->m, a->sentence };
	struct err e;
	if (a->ds.on) {
		src.greedy = &a->ds.res[0];
		src.beam = &a->ds.res[1];
	}
	if (caption_fill(text, &src, a->lp.caption, sizeof a->lp.caption, &e))
		app_msg(a, 1, "%s", e.msg);
	return a->lp.caption;
}

void app_lecture_go(struct app *a, int i)
{
	const struct lecture *l = a->lp.lec;
	struct view_state *v = &a->scr.v;
	if (i < 0 || i >= l->n) {
		app_msg(a, 0, i < 0 ? _("the first step of the lecture") :
			_("the end of the lecture (← goes back, q quits)"));
		return;
	}
	const struct lstep *s = &l->steps[i];
	a->lp.step = i;
	app_snapshot_reset(a);
	a->m = lecture_model(l, i);
	v->m = a->m;
	a->scr.show_training = 0;
	if (s->snapshot >= 0 && app_snapshot_load(a, s->snapshot))
		return;   /* the message says why (lecture_check loaded it once) */
	a->opts.causal = s->causal;
	a->opts.encoder_causal = s->encoder_causal;
	a->opts.ablate_head = -1;
	app_set_text(&a->sentence, s->sentence);
	app_set_text(&a->target, s->target);
	v->mode = VM_STAGE;
	v->heads_off = 0;
	a->scr.show_help = 0;
	int decoding = s->view == LV_DECODE || s->view == LV_COMPARE;
	if (a->ds.on) {
		a->ds.on = 0;
		v->dec = v->dec_other = NULL;
	}
	if (decoding) {
		a->ds.which = s->sample ? 2 : s->beam > 1;
		a->ds.so.temperature = s->temperature;
		a->ds.so.top_k = s->top_k;
		a->ds.so.top_p = s->top_p;
		a->ds.so.seed = (uint64_t)s->seed;
		a->ds.beam_w = lecture_beam_width(s);
		a->ds.alpha = s->alpha;
		a->ds.force_step[0] = a->ds.force_step[1] = a->ds.force_step[2] = -1;
		v->dec_step = s->dec_step;
		v->dec_hyp = v->dec_cand = 0;
		a->ds.on = 1;
		if (app_decode_all(a, a->sentence) || app_step_pass(a)) {
			a->ds.on = 0;
			return;
		}
		v->mode = s->view == LV_DECODE ? VM_DECODE : VM_COMPARE;
	} else if (app_recompute(a, a->sentence, a->target)) {
		return;
	}
	if (s->stage) {
		int k = trace_index(a->tr, s->stage);
		if (k >= 0)
			v->stage = k;
	}
	v->head = s->head;
	v->top = v->left = 0;
	if (s->row >= 0) {
		v->row = s->row;
		v->col = s->col;
	} else if (!decoding) {
		/* a step without a cursor starts at the first cell: going back
		 * must not keep a later step's cursor */
		v->row = v->col = 0;
		/* the curves without a cursor: the Annotated Transformer's dims
		 * 4–7, as the c key starts */
		const struct stage *st = app_stage(a);
		if (s->view == LV_CURVES && st->ndim == 2 && st->shape[1] >= 8)
			v->col = 4;
	}
	static const enum view_mode MODE[] = {
		[LV_STAGE] = VM_STAGE, [LV_HEADS] = VM_HEADS,
		[LV_MEAN] = VM_MEAN, [LV_INSPECT] = VM_INSPECT,
		[LV_MASKDIFF] = VM_MASK_DIFF, [LV_CURVES] = VM_CURVES,
		[LV_DECODE] = VM_DECODE, [LV_COMPARE] = VM_COMPARE,
		[LV_LINES] = VM_LINES, [LV_MODEL] = VM_MODEL, [LV_MAP] = VM_MAP,
		[LV_LENS] = VM_LENS, [LV_IMPORTANCE] = VM_IMPORTANCE,
	};
	v->mode = MODE[s->view];
	if (s->view == LV_MASKDIFF)
		app_recompute(a, a->sentence, a->target);   /* the other pass, too */
	view_clamp(v);
	a->scr.message = NULL;
	a->scr.caption = s->caption ? fill_caption(a, s) : NULL;
	a->scr.show_explain = s->explain;
	snprintf(a->scr.caption_title, sizeof a->scr.caption_title, "%d / %d%s%s",
		 i + 1, l->n, l->title ? " · " : "", l->title ? _(l->title) : "");
	a->scr.caption_page = 0;
	a->scr.show_stages = 0;   /* the breadcrumb again (below 120 columns) */
}

void app_lecture_advance(struct app *a, int dir)
{
	struct screen *s = &a->scr;
	/* a caption of several pages turns its pages first */
	if (dir > 0 && s->caption && s->caption_page + 1 < s->caption_pages) {
		s->caption_page++;
		return;
	}
	if (dir < 0 && s->caption && s->caption_page > 0) {
		s->caption_page--;
		return;
	}
	app_lecture_go(a, a->lp.step + dir);
}

/* --lecture FILE: check the whole script first, then play it. */
int app_lecture_run(struct app *a, struct cli *c)
{
	struct lecture l;
	struct err e;
	if (c->pot) {
		int r = lecture_load(&l, c->lecture, &e);
		if (!r)
			lecture_write_pot(&l, stdout);
		lecture_free(&l);
		return r ? cli_fail("%s", e.msg) : 0;
	}
	if (lecture_load(&l, c->lecture, &e) || lecture_check(&l, &e)) {
		lecture_free(&l);
		return cli_fail("%s", e.msg);
	}
	if (c->check) {
		char msg[1024];
		/* (the English says "steps" for one step too) */
		printf(P_("%s: %d steps, every stage, head and cursor exists\n",
			  "%s: %d steps, every stage, head and cursor exists\n", l.n),
		       safetext_copy(msg, sizeof msg, c->lecture, 0), l.n);
		lecture_free(&l);
		return 0;
	}
	a->lp.lec = &l;
	a->scr.lecture = 1;
	a->lp.play_ms = c->play_ms;
	a->m = lecture_model(&l, 0);
	a->scr.v.m = a->m;
	if (c->export_dir) {
		int r = app_lecture_export(a, c->export_dir);
		app_release(a);
		lecture_free(&l);
		return r;
	}
	app_lecture_go(a, 0);
	if (!a->tr) {
		lecture_free(&l);
		return cli_fail("%s", a->msg + 1);
	}
	int status = app_loop(a);
	app_snapshot_reset(a);
	lecture_free(&l);
	return status;
}
