/* stage_weight.h - which of the model's weights a trace stage multiplies
 * by, and the type that weight had in its file (struct wtensor.dtype), so
 * that a view can say what quantisation did to the numbers on screen:
 * decoder.3.self_attn.v was computed with a Q6_K matrix, its q with Q4_K. */
#ifndef ATTNSCOPE_STAGE_WEIGHT_H
#define ATTNSCOPE_STAGE_WEIGHT_H

#include "model.h"
#include "trace.h"

/* The tensor stage `name` uses (a projection, a norm's gain, the embedding
 * or the generator), or NULL for a stage that uses none (scores, softmax,
 * the rotation, residual sums).  *part: which of the tensor's joined
 * parts (Q, K, V of in_proj; gate, up of a gated linear1), -1 for all. */
const struct wtensor *stage_weight_of(const struct model *m, const char *name, int *part);

/* The file dtype of that weight (of its part) into buf[cap] ("Q4_K"), or
 * "" when the stage uses none.  Returns buf. */
char *stage_weight_dtype(const struct model *m, const char *name, char *buf, size_t cap);

/* Fills every stage's wdtype (trace.h) from m. */
void stage_weight_fill(struct trace *t, const struct model *m);

#endif
