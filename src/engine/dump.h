/* dump.h - a trace written as one safetensors file (DESIGN.md "The trace").
 *
 * Tensor names are the stage names; __metadata__ holds src.tokens,
 * tgt.tokens, labels (space-separated), the model and the pass options. */
#ifndef ATTNSCOPE_DUMP_H
#define ATTNSCOPE_DUMP_H

#include "model.h"
#include "trace.h"
#include "base/err.h"

int dump_write(const struct trace *t, const struct model *m, const char *path,
	       struct err *e);

#endif
