/* train.h - training a model on a corpus: mini-batches, Adam with the
 * paper's warm-up schedule, gradient clipping, held-out accuracy,
 * checkpoints and resuming.
 *
 * The learning rate at step s (from 1) is
 *     lr = lr_scale · d_model^−0.5 · min(s^−0.5, s · warmup^−1.5)
 * (Vaswani et al. 2017, §5.3); Adam uses β1 0.9, β2 0.98, ε 1e-9 with bias
 * correction.  Gradients are clipped to a global L2 norm.  Everything that
 * is random (initial weights, batch order) follows the seed, so a run is
 * reproducible on the same machine and BLAS with the same thread count.
 *
 * Parallelism is over data: each batch is shared out to `threads` workers
 * (one training pass each, BLAS single-threaded inside), whose gradients
 * are summed weighted by their token counts.
 *
 * Checkpoints (checkpoint.h) are written at every evaluation, at the end,
 * and when stop is raised (Ctrl-C).  A periodic checkpoint is written only
 * after the next batch's loss has been seen finite, so when the loss turns
 * NaN the file on disk holds the last good weights. */
#ifndef ATTNSCOPE_TRAIN_H
#define ATTNSCOPE_TRAIN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct train_opts {
	const char *model;           /* YAML: configuration and vocabularies */
	const char *corpus;          /* TSV english<TAB>portuguese[<TAB>align] */
	const char *out;             /* weights checkpoint (safetensors) */
	const char *heldout;         /* TSV for exact-match accuracy, or NULL */
	const char *resume;          /* checkpoint to continue from, or NULL */
	long steps;                  /* total updates */
	int batch_tokens;            /* padded tokens B·(S + T) per batch at most */
	int warmup;                  /* warm-up steps */
	int eval_every;              /* held-out evaluation period (0: end only) */
	int eval_size;               /* held-out pairs per periodic evaluation */
	int record;                  /* write the training: record into model */
	int snapshots;               /* keep this many log-spaced snapshots (0: none;
	                                engine/snapshot.h, trainsnap.h) */
	int average;                 /* end with the mean of the last this many
	                                checkpoints, eval_every apart (0: none;
	                                trainavg.h) */
	double lr_scale, smoothing, clip;   /* clip 0: none */
	uint64_t seed;
	int threads;                 /* workers sharing each batch (1 … 16) */
	int redraw;                  /* progress redrawn in place (a tty) */
	FILE *log;                   /* progress and reports */
	volatile sig_atomic_t *stop; /* raised asynchronously: save and stop */
};
void train_opts_default(struct train_opts *o);

enum train_status {
	TRAIN_DONE = 0,
	TRAIN_FAILED = 1,            /* e says why */
	TRAIN_STOPPED = 2,           /* stop was raised; checkpoint saved */
	TRAIN_NAN = 3,               /* the loss became NaN; e names the step */
};

enum train_status train_run(const struct train_opts *o, struct err *e);

/* The learning rate at step (from 1). */
double train_lr(int d_model, double lr_scale, int warmup, long step);

#endif
