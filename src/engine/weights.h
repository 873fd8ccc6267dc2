/* weights.h - binds a model's tensors: from a safetensors file, from inline
 * `tensors:` in the YAML, or seeded random (Xavier-uniform) values.
 *
 * The list of tensors a configuration needs is built from the config
 * (DESIGN.md's PyTorch names); each found tensor's shape is checked
 * against it, and a missing required tensor or an unexpected one is an
 * error. */
#ifndef ATTNSCOPE_WEIGHTS_H
#define ATTNSCOPE_WEIGHTS_H

#include "model.h"
#include "formats/ydoc.h"

/* tensors is the `tensors:` mapping for inline weights (else NULL). */
int weights_bind(struct model *m, const struct ydoc *doc,
		 const struct ynode *tensors, struct err *e);

/* The same from a file the caller opened as f (a GGUF file's tensors,
 * gguf_model.c): its names mapped by m's layout; the caller closes f
 * afterwards (a mapping f holds is taken by m, as for a file opened
 * here).  m->cfg.weights_path names it in messages. */
struct st_file;
int weights_bind_st(struct model *m, struct st_file *f, struct err *e);

#endif
