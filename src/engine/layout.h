/* layout.h - how a checkpoint's tensor names map onto this document's.
 *
 * DESIGN.md "Checkpoints people already have": each layout is a table of
 * rules written after its family's source code (this document's name, with
 * {i} for the layer, -> the file's name, or several names joined along the
 * first dimension for separate Q/K/V projections), the buffers that family
 * keeps in its state_dict (ignored), and the configuration its code fixes.
 * Every layout also accepts the wrapper prefixes `module.` (DataParallel) and
 * `_orig_mod.` (torch.compile). */
#ifndef ATTNSCOPE_LAYOUT_H
#define ATTNSCOPE_LAYOUT_H

#include <stddef.h>

#include "model.h"

enum layout_kind {
	LAYOUT_NN_TRANSFORMER, LAYOUT_TUTORIAL, LAYOUT_ANNOTATED, LAYOUT_NANOGPT,
	LAYOUT_GPT2, LAYOUT_BERT, LAYOUT_LLAMA, LAYOUT_PHI3, LAYOUT_BART, LAYOUT_T5,
	LAYOUT_T5_GATED, LAYOUT_N
};

/* NULL-terminated names, in enum order (for the YAML key's check). */
extern const char *const LAYOUT_NAMES[];

/* Keys of the YAML that a layout may imply (bit per key). */
enum {
	IMPLY_ARCH = 1 << 0, IMPLY_NORM = 1 << 1, IMPLY_EPS = 1 << 2,
	IMPLY_ACT = 1 << 3, IMPLY_PE = 1 << 4, IMPLY_SCALE = 1 << 5,
	IMPLY_DFF = 1 << 6, IMPLY_NORM_TYPE = 1 << 7, IMPLY_FFN = 1 << 8,
	IMPLY_BIAS = 1 << 9,
};

/* Sets what layout's family fixes in c, for the keys whose bit is not in
 * given (a key the YAML gives wins).  d_ff is implied after d_model is read:
 * call again with IMPLY_DFF alone. */
void layout_imply(int layout, struct config *c, unsigned given);

/* The file names (1 or more parts) of this document's tensor doc under the
 * configuration's layout and tensor_names: writes up to TNAME_MAXPARTS
 * names of size LAYOUT_NAME_MAX into out and returns their count, 0 when
 * the name has no counterpart.  prefix (may be "") is put in front of
 * nn.Transformer names found under a common prefix. */
#define LAYOUT_NAME_MAX 160
int layout_file_names(const struct config *c, int layout, int use_tnames,
		      const char *prefix, const char *doc,
		      char out[][LAYOUT_NAME_MAX]);

/* A file name without its wrapper prefixes (module., _orig_mod.). */
const char *layout_strip(const char *name);

/* The name a layout's rules see: without wrapper prefixes and, for gpt2
 * and bert, without the model's own prefix (`transformer.`, `bert.`); old
 * BERT files' LayerNorm.gamma / .beta read as .weight / .bias.  Returns
 * name's tail or buf[LAYOUT_NAME_MAX] when rewritten. */
const char *layout_canon(int layout, const char *name, char *buf);

/* Whether the file stores this document's tensor doc transposed, [in, out]
 * (GPT-2's Conv1D). */
int layout_transposed(int layout, const char *doc);

/* Whether the (stripped) file name is a buffer of layout's family or
 * matches one of the configuration's ignore_tensors globs. */
int layout_ignored(const struct config *c, int layout, const char *name);

/* The common prefix under which names[0..n) hold this document's
 * nn.Transformer names ("transformer.", "model."), or "" (written into
 * buf[LAYOUT_NAME_MAX]). */
const char *layout_prefix(const char *const *names, int n, char *buf);

/* Whether a {i} pattern matches name (the layer is then in *layer). */
int layout_match(const char *pattern, const char *name, int *layer);

#endif
