/* forward.h - the traced forward pass.
 *
 * Runs the model on prepared ids and records every stage of DESIGN.md's
 * trace list, per head, without reusing a buffer inside the pass. */
#ifndef ATTNSCOPE_FORWARD_H
#define ATTNSCOPE_FORWARD_H

#include "input.h"
#include "model.h"
#include "trace.h"

/* Records a pass into reuse (emptied first, its memory kept) or, when
 * reuse is NULL, into a new trace.  Returns the trace, or NULL with e
 * filled (a new trace is then freed; reuse is left empty, still owned by
 * the caller). */
struct trace *forward_run(const struct model *m, const struct pass_input *in,
			  const struct pass_opts *o, struct trace *reuse,
			  struct err *e);

/* Whether forward_run records a lazy trace at these lengths (trace.h,
 * enum trace_mode): o->trace_mode, or with TRACE_AUTO when the layers'
 * attention matrices (scores, masked, weights: 12·h·n² bytes a layer)
 * would pass TRACE_LAZY_BYTES.  A lazy trace computes a layer's stages
 * again when they are read; it keeps m, which must outlive it. */
int forward_trace_lazy(const struct model *m, int S, int T, const struct pass_opts *o);

/* The model's norm (LayerNorm, or the Annotated Transformer's) of rows
 * x[n, d] into y (may be x); g, b may be NULL. */
void forward_norm(const struct config *c, const float *x, int n,
		  const float *g, const float *b, float *y);
/* The model's activation in place over x[n]. */
void forward_act(const struct config *c, float *x, size_t n);

/* The positional encoding the pass adds at positions 0…want−1, for the
 * curves of the PE view over more positions than a sentence has: a new
 * table [*n, d] (the caller frees it), *n = want, or fewer for a learned
 * table (its max_len rows); zeros without PE.  NULL when out of memory. */
float *forward_pe_table(const struct model *m, int want, int *n);

/* Floating-point operations of one pass at these lengths (multiply-add = 2). */
double forward_flops(const struct model *m, int S, int T);

#endif
