/* trainavg.h - the checkpoint average a training run ends with
 * (train --average K), as the paper's base models: "a single model
 * obtained by averaging the last 5 checkpoints" (Vaswani et al. 2017, §6.1).
 *
 * The checkpoints are the weights every `every` steps (--eval-every), so
 * the average of a run of `last` steps is the mean of the weights after
 * steps last − (k−1)·every, …, last − every, last.  Their running sum is
 * kept in the optimizer state, so a run interrupted and resumed ends with
 * the same average; at the end the model holds the mean and the state file
 * keeps the last step's own weights (raw), which --resume trains on from. */
#ifndef ATTNSCOPE_TRAINAVG_H
#define ATTNSCOPE_TRAINAVG_H

#include <stddef.h>

#include "checkpoint.h"
#include "base/err.h"
#include "engine/model.h"

struct trainavg {
	int k, every; long last;  /* the plan; k 0: no average */
	int count;                /* checkpoints summed so far */
	float *sum;               /* [np] their sum, m's tensor order */
	float *raw;               /* [np] the last step's weights once applied */
	int applied;              /* the model holds the mean */
	size_t np;
};

/* Plans the mean of k checkpoints every `every` steps of a run of `last`
 * steps of a model of np weights (zeroed a).  Needs k ≥ 2, every ≥ 1 and
 * (k−1)·every < last (the first is after a step); returns 0, or -1 with e
 * saying why. */
int trainavg_plan(struct trainavg *a, size_t np, int k, int every, long last,
		  struct err *e);
/* Whether the weights after `step` are one of the plan's checkpoints. */
int trainavg_due(const struct trainavg *a, long step);
/* The step of the plan's first checkpoint: last − (k−1)·every. */
long trainavg_first(const struct trainavg *a);
/* Adds m's weights to the sum. */
void trainavg_add(struct trainavg *a, const struct model *m);
/* m's weights become the mean (the sum of all k over k); the weights they
 * were are kept in raw.  Needs all k summed; does nothing when applied. */
void trainavg_apply(struct trainavg *a, struct model *m);
/* m's weights become raw (a state's last-step weights, ckpt_load_avg). */
void trainavg_restore(struct model *m, const float *raw);
/* --resume at step `upto` from the state s read at path (ckpt_load_avg;
 * NULL: it had none): s must have summed its own plan's checkpoints up to
 * that step, and this plan's up to that step must be those (then the sum
 * is taken), else -1 with e naming path.  A plan with none up to `upto`
 * starts afresh. */
int trainavg_resume(struct trainavg *a, const struct ckpt_avg *s, const char *path,
		    long upto, struct err *e);
/* What ckpt_save_state writes of it (NULL when there is no plan). */
const struct ckpt_avg *trainavg_ckpt(const struct trainavg *a, struct ckpt_avg *c);
void trainavg_free(struct trainavg *a);

#endif
