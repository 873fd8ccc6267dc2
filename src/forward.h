/* forward.h - the traced forward pass.
 *
 * Runs the model on prepared ids and records every stage of DESIGN.md's
 * trace list, per head, without reusing a buffer inside the pass. */
#ifndef ATTNSCOPE_FORWARD_H
#define ATTNSCOPE_FORWARD_H

#include "input.h"
#include "model.h"
#include "trace.h"

/* Returns a new trace (free with trace_free), or NULL with e filled. */
struct trace *forward_run(const struct model *m, const struct pass_input *in,
			  const struct pass_opts *o, struct err *e);

/* Floating-point operations of one pass at these lengths (multiply-add = 2). */
double forward_flops(const struct model *m, int S, int T);

#endif
