/* ydoc.h - a small read-only tree over one YAML (or JSON) document.
 *
 * libyaml's event stream is turned into nodes that remember their source
 * line, so that every later error can say "file:line".  Aliases are refused
 * (no billion-laughs), and depth and node count are bounded, so an untrusted
 * file costs bounded time and memory.  JSON is parsed as YAML flow style,
 * which is how safetensors headers are read.
 *
 * A key given twice in one mapping is an error, "file:LINE: key "k" given
 * twice (first at line N)", in every document the program reads (model
 * files, lectures, grammars...): readers would otherwise silently take
 * the first (ynode_get) or the last, and YAML itself (1.2) says keys are
 * unique.  The flags of ydoc_parse_flags change that for formats with a
 * rule of their own. */
#ifndef ATTNSCOPE_YDOC_H
#define ATTNSCOPE_YDOC_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Nodes in one document at most: 512 Ki, about 40 MB of tree. */
#define YDOC_MAX_NODES (1u << 19)

enum ynode_kind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ynode_kind kind;
	int line;                 /* 1-based line in the source */
	int quoted;               /* scalar was quoted ("..." or '...') */
	char *str;                /* Y_SCALAR: NUL-terminated value */
	size_t len;               /* Y_SCALAR: length in bytes */
	struct ynode **items;     /* Y_SEQ: n items; Y_MAP: 2n (key, value) */
	size_t n;
};

struct ydoc {
	struct ynode *root;
	const char *file;         /* name used in messages (not owned) */
	void *pool;               /* private */
};

/* Parses buf[0..len).  file names the source in messages.  Returns 0, or -1
 * with e filled.  The document must be freed with ydoc_free. */
int ydoc_parse(struct ydoc *doc, const char *file, const void *buf, size_t len,
	       struct err *e);
/* ydoc_parse with another node limit: for the few files that are big by
 * nature (a tokenizer.json of 262,144 pieces and 514,906 merges holds
 * about 2 M nodes, some 100 MB of tree). */
int ydoc_parse_max(struct ydoc *doc, const char *file, const void *buf, size_t len,
		   size_t max_nodes, struct err *e);
int ydoc_load(struct ydoc *doc, const char *path, struct err *e);
/* The bytes of a regular file of at most YDOC_MAX_FILE into *buf (malloc'd,
 * the caller frees) and *len.  Returns 0, or -1 with e naming path. */
int ydoc_read(const char *path, char **buf, size_t *len, struct err *e);

enum {
	/* the top-level mapping may repeat a key: the caller checks them and
	 * names them in its own words (safetensors: "duplicate tensor name") */
	YDOC_TOP_DUPS_OK = 1,
};
/* ydoc_parse with flags (0: ydoc_parse). */
int ydoc_parse_flags(struct ydoc *doc, const char *file, const void *buf, size_t len,
		     int flags, struct err *e);
void ydoc_free(struct ydoc *doc);

/* Value for key in a Y_MAP, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

/* Scalar conversions; each checks kind and range and reports file:line. */
int ynode_int(const struct ydoc *d, const struct ynode *n, long long lo,
	      long long hi, long long *out, struct err *e);
int ynode_u64(const struct ydoc *d, const struct ynode *n, uint64_t *out,
	      struct err *e);
int ynode_float(const struct ydoc *d, const struct ynode *n, double *out,
		struct err *e);
int ynode_bool(const struct ydoc *d, const struct ynode *n, int *out,
	       struct err *e);
/* Requires a scalar; returns its string (owned by the document) or NULL. */
const char *ynode_str(const struct ydoc *d, const struct ynode *n,
		      struct err *e);
/* Rewrites the error of a conversion above, "file:line: what", as
 * "file:line: key: what" (n the key's value); returns -1. */
int ynode_keyed(const struct ydoc *d, const struct ynode *n, const char *key,
		struct err *e);
/* "what" for messages: "mapping", "sequence" or "scalar". */
const char *ynode_kind_name(enum ynode_kind k);

#endif
