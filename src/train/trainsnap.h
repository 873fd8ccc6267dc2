/* trainsnap.h - the snapshots a training run keeps (train --snapshots N;
 * the file side is engine/snapshot.h): the plan of log-spaced steps, the
 * F16 copies of the weights with their figures, and the YAML's
 * snapshots: list.
 *
 * Taking a snapshot reads the weights and changes nothing of the run: the
 * losses come from a training pass of its own (never backward), the
 * held-out exact match from the caller's greedy evaluation, so a run with
 * --snapshots ends with the same weights as one without. */
#ifndef ATTNSCOPE_TRAINSNAP_H
#define ATTNSCOPE_TRAINSNAP_H

#include <stddef.h>

#include "checkpoint.h"
#include "trainset.h"
#include "base/err.h"
#include "engine/model.h"

/* Training pairs the snapshot's loss is measured on (the corpus's first). */
#define TRAINSNAP_LOSS_PAIRS 256

struct trainsnap {
	long *step; int n;        /* the plan: step[0] = 0 ... step[n-1] = the last */
	int taken;                /* step[0 .. taken) are held */
	unsigned char **data;     /* [n] F16 of every parameter, m's tensor order */
	char (*fig)[160];         /* [n] "loss: 6.9412, heldout_loss: ..." */
	size_t np;                /* parameters */
	struct backprop *bp;      /* the losses' own pass */
	struct tbatch tb;
};

/* The n steps of the plan for a run of `steps` updates into out[n]:
 * round((steps + 1)^(k / (n − 1))) − 1 for k = 0 … n − 1, each at least one
 * past the one before (so 0 first and `steps` last).  Needs 2 ≤ n ≤
 * steps + 1; returns 0, or -1 with e saying why. */
int trainsnap_steps(int n, long steps, long *out, struct err *e);

/* Plans n snapshots of a run of `steps` updates of m (zeroed s). */
int trainsnap_plan(struct trainsnap *s, const struct model *m, int n, long steps,
		   struct err *e);
/* Whether step is the plan's next snapshot. */
int trainsnap_due(const struct trainsnap *s, long step);
/* Takes the next snapshot of m: the weights, the mean cross-entropy on the
 * first training pairs and on held's first held_n (held NULL: none), and
 * the held-out exact match in percent (exact < 0: not measured). */
int trainsnap_take(struct trainsnap *s, const struct model *m,
		   const struct trainset *train, const struct trainset *held, int held_n,
		   double exact, struct err *e);
/* --resume from the checkpoint at path, at step `upto`: its snapshots up
 * to that step are kept, the plan's later ones follow (the same plan when
 * the run resumed had the same --steps; else, e.g. 100 steps resumed to
 * 200, its 0 2 5 15 39 100 and then 200). */
int trainsnap_resume(struct trainsnap *s, const struct model *m, const char *path,
		     long upto, struct err *e);
/* The snapshots taken, as ckpt_save_snaps writes them (figures points into
 * figs[n], which the caller provides). */
void trainsnap_ckpt(const struct trainsnap *s, struct ckpt_snaps *c,
		    const char **figs);
/* Writes the snapshots taken into yaml's snapshots: list. */
int trainsnap_record(const struct trainsnap *s, const char *yaml, struct err *e);
void trainsnap_free(struct trainsnap *s);

#endif
