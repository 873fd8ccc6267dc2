/* dump.h - a trace written as one safetensors file (DESIGN.md "The trace").
 *
 * Tensor names are the stage names; __metadata__ holds src.tokens,
 * tgt.tokens, labels (space-separated), the model and the pass options. */
#ifndef ATTNSCOPE_DUMP_H
#define ATTNSCOPE_DUMP_H

#include "model.h"
#include "trace.h"
#include "base/err.h"

/* Writes the stages whose names match one of the comma-separated globs of
 * stages (fnmatch(3): `*` matches dots too; NULL: every stage) to path,
 * a stage at a time: a lazy trace computes each layer when the file
 * reaches it and drops it after, so the file is never all in memory.  A
 * glob that matches no stage is an error. */
int dump_write(const struct trace *t, const struct model *m, const char *path,
	       const char *stages, struct err *e);

#endif
