/* snapshot.h - training snapshots (DESIGN.md "Training snapshots"): copies
 * of the weights that `attnscope train --snapshots N` took on the way, kept
 * in the weights file as "snapshot.{STEP}." + the tensor's name (any float
 * dtype; train writes F16) and listed in the model's YAML:
 *
 *     snapshots:
 *       - {step: 0, loss: 6.9412, heldout_loss: 6.9387, heldout_exact_match: 0.0}
 *
 * step 0 is the random initialisation, the last one the trained weights;
 * loss is the mean cross-entropy (nats a token, no smoothing) on the first
 * training pairs, heldout_* on the first held-out pairs (the exact match
 * in percent, greedy).  The figures are optional. */
#ifndef ATTNSCOPE_SNAPSHOT_H
#define ATTNSCOPE_SNAPSHOT_H

#include "base/err.h"
#include "formats/safetensors.h"
#include "formats/ydoc.h"

struct snapshot {
	long step;
	double loss, heldout_loss, heldout_exact;   /* NaN where not recorded */
};

/* "snapshot.{STEP}." + name: the tensor's name in the weights file (buf
 * of n bytes; truncated names are not snapshot names). */
const char *snapshot_name(char *buf, size_t n, long step, const char *name);
/* Whether name is a snapshot's tensor ("snapshot.", digits, "."); then
 * *step is its step and *rest the model's name of the tensor. */
int snapshot_split(const char *name, long *step, const char **rest);

/* Reads the YAML's snapshots: list into a malloc'd array (steps from 0,
 * strictly increasing).  Errors name file:line. */
int snapshot_parse(const struct ydoc *d, const struct ynode *n,
		   struct snapshot **out, int *nout, struct err *e);

/* The tensors of a weights file that hold the weights at step (step < 0:
 * the trained ones, every tensor but the snapshots'): shallow copies of
 * t[] (names and bytes still belong to the file), named as the model
 * names them, in *out (malloc'd; free only the array).  A step the file
 * has no snapshot for is an error naming path and the steps it has. */
int snapshot_select(const struct st_tensor *t, int n, long step, const char *path,
		    struct st_tensor **out, int *nout, struct err *e);

#endif
