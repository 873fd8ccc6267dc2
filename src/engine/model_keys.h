/* model_keys.h - the model file's mappings read key by key (model.c and
 * its parts): unknown or repeated keys, integers in a range, booleans,
 * strings and names from a list, each error naming file:line and the key.
 * Each returns 0 (an absent key leaves *out as it was), or -1 with e set. */
#ifndef ATTNSCOPE_MODEL_KEYS_H
#define ATTNSCOPE_MODEL_KEYS_H

#include "base/err.h"
#include "formats/ydoc.h"

/* Every key of map must be in known[] (NULL-terminated) and given once;
 * where names the mapping ("tokenizer", ...), NULL for the file's top. */
int mkey_check(const struct ydoc *d, const struct ynode *map,
	       const char *const *known, const char *where, struct err *e);
int mkey_int(const struct ydoc *d, const struct ynode *map, const char *key,
	     long long lo, long long hi, int *out, struct err *e);
int mkey_bool(const struct ydoc *d, const struct ynode *map, const char *key,
	      int *out, struct err *e);
/* A scalar string, copied into *out (the old value freed). */
int mkey_str(const struct ydoc *d, const struct ynode *map, const char *key,
	     char **out, struct err *e);
/* One of names[] (NULL-terminated), matched exactly; *out its index. */
int mkey_enum(const struct ydoc *d, const struct ynode *map, const char *key,
	      const char *const *names, int *out, struct err *e);

#endif
