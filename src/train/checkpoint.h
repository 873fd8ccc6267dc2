/* checkpoint.h - training checkpoints.
 *
 * The weights file holds exactly the model's tensors under their contract
 * names (DESIGN.md), F32, so model_load reads it as `weights:`; its
 * __metadata__ records the step ("attnscope.step") and how training ran.
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
/* Reads every tensor of m from path (names and shapes must match, no extra
 * tensors) into m's writable tensors.  *step gets "attnscope.step" (−1 when
 * absent). */
int ckpt_load_weights(struct model *m, const char *path, long *step,
		      struct err *e);

/* Adam moments m1, m2: one float per parameter, in m's tensor order. */
int ckpt_save_state(const struct model *m, const char *path, const float *m1,
		    const float *m2, const struct ckpt_state *s, struct err *e);
int ckpt_load_state(const struct model *m, const char *path, float *m1,
		    float *m2, struct ckpt_state *s, struct err *e);

#endif
