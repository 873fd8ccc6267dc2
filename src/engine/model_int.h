/* model_int.h - the parts of the model YAML's reader (model.c) that its
 * files share.  Internal to src/engine. */
#ifndef ATTNSCOPE_MODEL_INT_H
#define ATTNSCOPE_MODEL_INT_H

#include "model.h"
#include "formats/ydoc.h"

/* The list of strings n (key names it in messages) into *out (strdup'd,
 * the caller frees them), *count of them so far even on error.  Returns
 * 0, or -1 with e set. */
int model_parse_strlist(const struct ydoc *d, const struct ynode *n,
			const char *key, char ***out, int *count, struct err *e);

/* The tokenizer: mapping tk of m's YAML d (model_tokenizer.c): m's
 * tokenizer, vocabularies and specials' ids.  Returns 0, or -1 with e
 * set. */
int model_tokenizer_parse(struct model *m, const struct ydoc *d,
			  const struct ynode *tk, struct err *e);

#endif
