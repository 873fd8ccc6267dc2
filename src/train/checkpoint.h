/* checkpoint.h - training checkpoints.
 *
 * The weights file holds exactly the model's tensors under their contract
 * names (DESIGN.md), F32, so model_load reads it as `weights:`, and any
 * training snapshots (F16, snapshot.{STEP}.NAME, which model_load passes
 * over); its __metadata__ records the step ("attnscope.step") and how
 * training ran.
 * model_load rejects tensors it does not expect, so the optimizer state
 * lives in a second safetensors file beside it (ckpt_state_path): Adam's
 * moments as "adam.m.NAME" / "adam.v.NAME" and where training stands.
 * Both are written to PATH.tmp and renamed, so an interrupted write leaves
 * the previous file whole. */
#ifndef ATTNSCOPE_CHECKPOINT_H
#define ATTNSCOPE_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/model.h"

/* Where training stands after `step` updates. */
struct ckpt_state {
	long step;
	int epoch;            /* the epoch in progress */
	int batch;            /* the next batch of that epoch */
	uint64_t seed;
};

/* "X.safetensors" -> "X.optim.safetensors" (else "X.optim"); malloc'd. */
char *ckpt_state_path(const char *weights_path);

/* Writes m's tensors plus metadata pairs (keys[i], vals[i]). */
int ckpt_save_weights(const struct model *m, const char *path,
		      const char *const *keys, const char *const *vals, int nmeta,
		      struct err *e);

/* Training snapshots (engine/snapshot.h) to keep beside the weights: n
 * copies of m's tensors, data[k] all of them as F16 in m's tensor order (2
 * little-endian bytes a value), written as "snapshot.{step[k]}." + name,
 * with the steps in the metadata "attnscope.snapshots" ("0 3 10 ...") and
 * figures[k] as "attnscope.snapshot.{step}". */
struct ckpt_snaps {
	int n;
	const long *step;
	unsigned char *const *data;
	const char *const *figures;
};
/* ckpt_save_weights with the snapshots s (NULL: none). */
int ckpt_save_snaps(const struct model *m, const char *path,
		    const char *const *keys, const char *const *vals, int nmeta,
		    const struct ckpt_snaps *s, struct err *e);
/* Reads snapshot `step` of path into out (F16 as above, 2 bytes for every
 * parameter of m) and its figures metadata into fig (fig[0] = 0 when the
 * file has none).  Returns 0, or -1 with e naming path. */
int ckpt_load_snap(const struct model *m, const char *path, long step,
		   unsigned char *out, char *fig, size_t figlen, struct err *e);
/* Reads every tensor of m from path (names and shapes must match, no extra
 * tensors) into m's writable tensors.  *step gets "attnscope.step" (−1 when
 * absent). */
int ckpt_load_weights(struct model *m, const char *path, long *step,
		      struct err *e);

/* A checkpoint average in the state file (trainavg.h): the plan as
 * "attnscope.average" ("K EVERY LAST COUNT"), the running sum as
 * "avg.sum.NAME" and, once the weights file holds the mean, the last
 * step's own weights as "raw.NAME"; one float per parameter in m's tensor
 * order, raw NULL when there are none. */
struct ckpt_avg {
	int k, every; long last;
	int count;
	float *sum, *raw;
};

/* Adam moments m1, m2: one float per parameter, in m's tensor order; avg
 * NULL: no average. */
int ckpt_save_state(const struct model *m, const char *path, const float *m1,
		    const float *m2, const struct ckpt_state *s,
		    const struct ckpt_avg *avg, struct err *e);
int ckpt_load_state(const struct model *m, const char *path, float *m1,
		    float *m2, struct ckpt_state *s, struct err *e);
/* Reads the average of the state file at path into a (a->sum and a->raw
 * point to room for every parameter; a->raw becomes NULL when the file has
 * no raw weights).  Returns 0, 1 when the file holds no average, or -1
 * with e naming path. */
int ckpt_load_avg(const struct model *m, const char *path, struct ckpt_avg *a,
		  struct err *e);

#endif
