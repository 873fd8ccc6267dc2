/* json.h - a strict check of JSON text (RFC 8259) before ydoc reads it.
 *
 * ydoc reads JSON as YAML flow style (libyaml), which also accepts what
 * JSON does not: comments, single quotes, plain words, trailing commas,
 * anchors, "key: value" without quotes...  and refuses what JSON allows:
 * \ud83d\ude00, a surrogate pair written as two escapes (Python's
 * json.dumps default).  json_check accepts exactly JSON: one value, UTF-8,
 * no duplicate key in any object (PyTorch's safetensors reader refuses
 * them too), no lone surrogate escape, at most JSON_MAX_DEPTH nested
 * arrays and objects.  A text with surrogate pairs is rewritten for
 * libyaml, each pair as one \UXXXXXXXX escape. */
#ifndef ATTNSCOPE_JSON_H
#define ATTNSCOPE_JSON_H

#include <stddef.h>

#include "base/err.h"

#define JSON_MAX_DEPTH 64
/* flags: the caller checks the top-level object's keys itself (to name
 * them in its own words: "duplicate tensor name") */
#define JSON_TOP_DUPS_OK 1
/* flags: a file big by nature (tokenizer.json): up to JSON_BIG_MAX_NODES
 * values and keys instead of ydoc's YDOC_MAX_NODES (read it with
 * ydoc_parse_max) */
#define JSON_BIG 2
#define JSON_BIG_MAX_NODES (4u << 20)

/* Checks buf[0..len) (what names it in messages: "WHAT:LINE: problem").
 * Returns 0 with *out NULL when ydoc can read buf as it is, 0 with *out a
 * malloc'd rewrite of *outlen bytes when it had surrogate pairs, or -1
 * with e filled. */
int json_check(const char *what, const char *buf, size_t len, int flags, char **out,
	       size_t *outlen, struct err *e);

/* Reads the file path as strict JSON (json_check: a duplicate key, a
 * comment or YAML syntax is an error naming path and line) into doc
 * (ydoc_free frees it).  Returns 0, or -1 with e filled. */
struct ydoc;
int json_load(struct ydoc *doc, const char *path, struct err *e);

#endif
