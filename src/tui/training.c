/* training.c - training time in the stepper: < and > load the model's
 * previous or next training snapshot (engine/snapshot.h) and run the same
 * sentence again; the stage, head, cursor and view stay where they are.
 *
 * a->m is the model on screen: the one loaded (by the command line or the
 * lecture, which own it) or a->tt.snap, a snapshot of it owned here. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "base/i18n.h"

/* The model the snapshots belong to (never freed here). */
static struct model *base(const struct app *a)
{
	return a->tt.base ? a->tt.base : a->m;
}

/* Training time's stops: the snapshots, the trained weights standing for
 * the last one, unless they are the mean of the last checkpoints (train
 * --average): then the last snapshot is that step's own weights, and the
 * trained weights come after it. */
static int nstops(const struct config *c)
{
	return c->nsnaps + (c->avg_k > 0);
}

/* The index of what is on screen among the stops: the snapshot loaded
 * (its place in cfg.snaps), or the trained weights as the last. */
static int position(const struct model *m)
{
	const struct config *c = &m->cfg;
	if (c->snapshot < 0)
		return nstops(c) - 1;
	int i = model_snapshot_index(m, c->snapshot);
	return i;
}

void app_snapshot_reset(struct app *a)
{
	if (a->tt.snap) {
		a->m = a->tt.base;
		model_free(a->tt.snap);
		a->tt.snap = NULL;
		a->own.ok = 0;   /* it was that model's translation */
	}
	a->tt.base = NULL;
	a->scr.v.m = a->m;
}

int app_snapshot_load(struct app *a, long step)
{
	struct model *b = base(a);
	struct err e;
	if (step == b->cfg.snapshot) {   /* what was loaded: no copy needed */
		app_snapshot_reset(a);
		a->m = b;
	} else {
		struct model *m = model_load_snapshot(b->path, step, &e);
		if (!m) {
			app_msg(a, 1, "%s", e.msg);
			return -1;
		}
		struct model *old = a->tt.snap;
		a->tt.base = b;
		a->tt.snap = m;
		a->m = m;
		model_free(old);
	}
	a->own.ok = 0;
	a->scr.v.m = a->m;
	a->scr.show_training = 1;
	return 0;
}

void app_snapshot_step(struct app *a, int delta)
{
	const struct model *b = base(a);
	const struct config *c = &b->cfg;
	if (c->nsnaps < 2) {
		app_msg(a, 0, "%s", _("this model has no training snapshots (train it with "
				      "--snapshots N)"));
		return;
	}
	int i = position(a->m);
	if (i < 0)   /* a snapshot the YAML does not list: from the start */
		i = delta > 0 ? -1 : nstops(c);
	int j = i + delta, n = nstops(c);
	if (j < 0 || j >= n) {
		app_msg(a, 0, "%s", j < 0 ? _("the first training snapshot: the random "
					      "initialisation") :
			_("the last training snapshot: the trained weights"));
		a->scr.show_training = 1;
		return;
	}
	/* the last stop is the trained weights themselves, as trained (the
	   file's copy of that step may be stored smaller: F16, or I8 with
	   scales), also when the stepper opened on a snapshot */
	long step = j == n - 1 ? -1 : c->snaps[j].step;
	if (app_snapshot_load(a, step))
		return;
	if (app_recompute(a, a->sentence, a->target)) {
		/* the message says why; the pass on screen stays the old one's */
		return;
	}
	a->scr.message = NULL;
}
