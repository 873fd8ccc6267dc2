/* model_keys.c - reading the keys of a model file's mappings, each problem
 * an error naming file:line and the key (model_keys.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_keys.h"

/* where: the key of the mapping ("tokenizer", ...), NULL for the file's
 * top level (the messages then say "the model file"). */
int mkey_check(const struct ydoc *d, const struct ynode *map,
	       const char *const *known, const char *where,
	       struct err *e)
{
	if (map->kind != Y_MAP)
		return where ? err_set(e, "%s:%d: %s must be a mapping, found a %s",
				       d->file, map->line, where, ynode_kind_name(map->kind))
			     : err_set(e, "%s:%d: the model file must be a mapping, found a %s",
				       d->file, map->line, ynode_kind_name(map->kind));
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->items[2 * i];
		if (k->kind != Y_SCALAR)
			return where ? err_set(e, "%s:%d: keys in %s must be plain words",
					       d->file, k->line, where)
				     : err_set(e, "%s:%d: keys in the model file must be plain words",
					       d->file, k->line);
		int found = 0;
		for (const char *const *p = known; *p; p++)
			found |= strcmp(*p, k->str) == 0;
		if (!found)
			return where ? err_set(e, "%s:%d: unknown key \"%.60s\" in %s",
					       d->file, k->line, k->str, where)
				     : err_set(e, "%s:%d: unknown key \"%.60s\" in the model file",
					       d->file, k->line, k->str);
		for (size_t j = 0; j < i; j++)
			if (map->items[2 * j]->kind == Y_SCALAR &&
			    strcmp(map->items[2 * j]->str, k->str) == 0)
				return err_set(e, "%s:%d: key \"%s\" given twice (first at line %d)",
					       d->file, k->line, k->str,
					       map->items[2 * j]->line);
	}
	return 0;
}

int mkey_int(const struct ydoc *d, const struct ynode *map,
	     const char *key, long long lo, long long hi, int *out,
	     struct err *e)
{
	const struct ynode *n = ynode_get(map, key);
	long long v;
	if (!n)
		return 0;
	if (ynode_int(d, n, lo, hi, &v, e))
		return ynode_keyed(d, n, key, e);
	*out = (int)v;
	return 0;
}

int mkey_bool(const struct ydoc *d, const struct ynode *map,
	      const char *key, int *out, struct err *e)
{
	const struct ynode *n = ynode_get(map, key);
	if (n && ynode_bool(d, n, out, e))
		return ynode_keyed(d, n, key, e);
	return 0;
}

/* Scalar string value for key (or NULL when absent); *bad on wrong kind. */
int mkey_str(const struct ydoc *d, const struct ynode *map,
	     const char *key, char **out, struct err *e)
{
	const struct ynode *n = ynode_get(map, key);
	if (!n)
		return 0;
	const char *s = ynode_str(d, n, e);
	if (!s)
		return ynode_keyed(d, n, key, e);
	free(*out);
	if (!(*out = strdup(s)))
		return err_set(e, "out of memory");
	return 0;
}

/* Chooses one of names[] for key; names are matched exactly. */
int mkey_enum(const struct ydoc *d, const struct ynode *map,
	      const char *key, const char *const *names, int *out,
	      struct err *e)
{
	const struct ynode *n = ynode_get(map, key);
	if (!n)
		return 0;
	const char *s = ynode_str(d, n, e);
	if (!s)
		return ynode_keyed(d, n, key, e);
	char list[256] = "";
	for (int i = 0; names[i]; i++) {
		if (strcmp(names[i], s) == 0) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 i ? " | " : "", names[i]);
	}
	return err_set(e, "%s:%d: %s must be %s, found \"%.40s\"", d->file,
		       n->line, key, list, s);
}
