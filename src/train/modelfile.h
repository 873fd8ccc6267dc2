/* modelfile.h - what training does to a model's YAML file: load its
 * configuration with fresh weights, and record how it was trained.
 *
 * Both work on the text line by line at the top level of the mapping (a
 * key at column 0 and the indented lines under it), so comments and the
 * author's layout survive. */
#ifndef ATTNSCOPE_MODELFILE_H
#define ATTNSCOPE_MODELFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/model.h"

/* Loads path's configuration and vocabularies with seeded random weights,
 * as if its weight source (weights:, tensors: or init:) read
 * `init: {random: seed}`.  The weights file need not exist.  The tensors
 * are malloc'd and writable.  Messages name path and its lines. */
struct model *modelfile_load_fresh(const char *path, uint64_t seed,
				   struct err *e);

/* Replaces path's top-level `training:` mapping (appended when absent) with
 * n "key: value" lines (values plain where YAML reads them back as the
 * same string, else double-quoted).  The file is rewritten through
 * PATH.tmp and a rename. */
int modelfile_set_training(const char *path, const char *const *keys,
			   const char *const *vals, int n, struct err *e);

/* Replaces path's top-level `snapshots:` list (appended when absent) with
 * the n lines given ("  - {step: 0, loss: 6.94}"), the same way; n = 0
 * removes the list (a file without one is left as it is). */
int modelfile_set_snapshots(const char *path, const char *const *lines, int n,
			    struct err *e);

/* Whether path's top-level weights: names file (the same device and
 * inode; relative names from path's folder): its snapshots: list must
 * describe the file that weights: names.  shown gets weights:'s value
 * ("" when it has none: tensors: or init:). */
int modelfile_weights_are(const char *path, const char *file, char *shown, size_t n);

#endif
