/* inside.c - the stepper's logit lens (L) and head importance (I): the
 * engine computes them for the pass on screen (src/engine/lens.h,
 * importance.h), views/lens.c and views/importance.c draw them.  Both are
 * computed again when the pass changes (a new sentence, target, mask,
 * what-if or decoding step: a->ins.pass_gen), before the screen is drawn. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "term.h"
#include "base/i18n.h"

/* The labels of the pass on screen: the target, else the model's own
 * translation (the stepper's teacher forcing), as app.c's run_into. */
static int importance_of(struct app *a, struct err *e)
{
	struct pass_input in;
	const int own = a->own.ok && !*a->target;
	if (input_build(a->m, a->sentence, *a->target ? a->target : NULL, &a->opts, &in, e))
		return -1;
	if (own && decode_teacher_force(a->m, &in, a->own.ids, a->own.n, a->opts.pad_target))
		term_fatal("%s", _("out of memory"));
	int rc = importance_run(a->m, &in, &a->opts, &a->ins.imp, e);
	input_free(&in);
	return rc;
}

void app_inside_sync(struct app *a)
{
	struct view_state *v = &a->scr.v;
	struct err e;
	if ((v->mode == VM_LENS) && (!v->lens || a->ins.lens_gen != a->ins.pass_gen)) {
		lens_free(&a->ins.lens);
		v->lens = NULL;
		if (lens_compute(a->m, a->tr, &a->ins.lens, &e)) {
			v->mode = VM_STAGE;
			app_msg(a, 1, "%s", e.msg);
		} else {
			v->lens = &a->ins.lens;
			a->ins.lens_gen = a->ins.pass_gen;
		}
	}
	if ((v->mode == VM_IMPORTANCE) && (!v->imp || a->ins.imp_gen != a->ins.pass_gen)) {
		importance_free(&a->ins.imp);
		v->imp = NULL;
		if (importance_of(a, &e)) {
			v->mode = VM_STAGE;
			app_msg(a, 1, "%s", e.msg);
		} else {
			v->imp = &a->ins.imp;
			a->ins.imp_gen = a->ins.pass_gen;
		}
	}
}

/* The output stage: the lens's positions are its rows (↑↓ pick one). */
static void go_output(struct app *a)
{
	int i = trace_index(a->tr, "probs");
	if (i >= 0 && a->scr.v.stage != i) {
		int row = a->scr.v.row;
		app_go_stage(a, i);
		a->scr.v.row = row;
	}
}

void app_inside_toggle(struct app *a, enum view_mode m)
{
	struct view_state *v = &a->scr.v;
	if (a->m->cfg.arch == ARCH_ENC_ONLY) {
		app_msg(a, 0, m == VM_LENS ?
			_("an encoder-only model has no decoder layers for the logit lens") :
			_("an encoder-only model has no labels to score its heads with"));
		return;
	}
	if (v->mode == m) {
		v->mode = VM_STAGE;
		return;
	}
	v->mode = m;
	if (m == VM_LENS) {
		go_output(a);
		app_msg(a, 0, "%s", _("logit lens: ↑↓ a position · each layer's output through the "
				      "final norm and the generator (y closes)"));
	} else {
		app_msg(a, 0, "%s", _("head importance: each head zeroed in turn, the whole pass "
				      "again (I closes)"));
	}
	a->ins.lens_gen = a->ins.imp_gen = -1;
	app_inside_sync(a);
}

void app_inside_free(struct app *a)
{
	lens_free(&a->ins.lens);
	importance_free(&a->ins.imp);
	a->scr.v.lens = NULL;
	a->scr.v.imp = NULL;
}
