/* pickle.h - a restricted unpickler: Python's pickle format as data only.
 *
 * pk_load runs the pickle machine (protocols 0-5, the opcodes that
 * pickle.dump of dicts, lists, tuples, strings and numbers and torch.save
 * emit) and builds a graph of values.  It never executes anything: a GLOBAL
 * is only a name, and what calling it means is up to the caller's hooks
 * (struct pk_hooks), which know a fixed list of names.  Without hooks no
 * global may be called.  The rules for names the hooks do not know:
 *
 *   - called with REDUCE (in Python: calling a function, e.g. os.system,
 *     builtins.eval): the whole pickle is refused, naming the global;
 *   - instantiated with NEWOBJ (in Python: cls.__new__(cls), then BUILD sets
 *     its state; argparse.Namespace, a dataclass): a PK_OBJECT that carries
 *     the class name and nothing else, which a caller may skip;
 *   - only named (pushed, never called): a PK_GLOBAL value.
 *
 * Values are owned by the struct pk and freed together by pk_free; the
 * graph may share values (memo) and even hold cycles, so walk it with a
 * depth limit.  Limits: the number of values and the memo are bounded by
 * the input's length, and every length is checked against the input. */
#ifndef ATTNSCOPE_PICKLE_H
#define ATTNSCOPE_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum pk_kind {
	PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_BYTES,
	PK_TUPLE, PK_LIST, PK_DICT, PK_SET,
	PK_GLOBAL,     /* a name that was not called (s: "module.name") */
	PK_OBJECT,     /* an instance of an unknown class (s: "module.name") */
	PK_EXT         /* made by a hook (tag and ext say what) */
};

struct pk_value {
	enum pk_kind kind;
	int tag;                       /* PK_GLOBAL: the hook's code (0 unknown); PK_EXT */
	union {
		int64_t i;             /* PK_INT, PK_BOOL */
		double f;              /* PK_FLOAT */
	};
	char *s; size_t len;           /* PK_STR, PK_BYTES, PK_GLOBAL, PK_OBJECT;
					  NUL-terminated, len without it */
	struct pk_value **items;       /* PK_TUPLE/LIST/SET: n items; PK_DICT: n/2
					  pairs, key then value, in insertion order */
	size_t n, cap;
	void *ext;                     /* PK_EXT: the hook's data, freed by pk_free */
};

struct pk;

/* What the caller's code gives names.  All callbacks may be NULL. */
struct pk_hooks {
	void *ctx;
	/* Code (> 0) of a global the caller understands, 0 for unknown. */
	int (*global)(void *ctx, const char *module, const char *name);
	/* REDUCE or NEWOBJ of a known global f (f->tag its code, f->s its
	 * name) with args (any value, usually a tuple): the result, or NULL
	 * with e filled. */
	struct pk_value *(*reduce)(struct pk *p, void *ctx, struct pk_value *f,
				   struct pk_value *args, struct err *e);
	/* BINPERSID / PERSID: the object for persistent id pid, or NULL with e. */
	struct pk_value *(*persid)(struct pk *p, void *ctx, struct pk_value *pid,
				   struct err *e);
};

/* Unpickles buf[0..len).  what names the pickle in messages ("ckpt.pt:
 * data.pkl"), which read "WHAT: offset N: problem".  Returns the top value
 * (owned by *pp, which the caller frees with pk_free, also after a failure)
 * or NULL with e filled. */
struct pk_value *pk_load(struct pk **pp, const char *what, const void *buf,
			 size_t len, const struct pk_hooks *hooks, struct err *e);
void pk_free(struct pk *p);

/* For hooks: a new value of kind (zeroed), owned by p; NULL when out of
 * memory or past the value limit (e filled). */
struct pk_value *pk_new(struct pk *p, enum pk_kind kind, struct err *e);
/* For hooks: the message prefix given to pk_load. */
const char *pk_what(const struct pk *p);

/* A dict's value for string key, or NULL (the last one set wins). */
struct pk_value *pk_dict_get(const struct pk_value *d, const char *key);
/* "dict", "str", ... for messages. */
const char *pk_kind_name(enum pk_kind k);

#endif
