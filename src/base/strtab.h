/* strtab.h - a string -> int hash table with its own copies of the keys.
 *
 * Open addressing with FNV-1a; the iteration order (slot order) depends
 * only on the keys inserted and their order, never on addresses, so the
 * corpus tools stay deterministic. */
#ifndef ATTNSCOPE_STRTAB_H
#define ATTNSCOPE_STRTAB_H

#include <stddef.h>

struct strtab {
	const char **key;         /* cap slots, NULL when empty */
	int *val;
	size_t cap, n;
	void *mem;                /* private: blocks holding the keys */
};

int strtab_init(struct strtab *t);
void strtab_free(struct strtab *t);
/* The value of key, or NULL. */
int *strtab_get(const struct strtab *t, const char *key);
/* Inserts key (copied) with val if absent.  Returns a pointer to the value
 * (existing or new) and sets *added; NULL when out of memory.  *keyp, if
 * given, receives the table's copy of the key (stable until strtab_free). */
int *strtab_put(struct strtab *t, const char *key, int val, int *added,
		const char **keyp);

#endif
