/* strtab.c - a string -> int hash table (see strtab.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof *t);
	t->cap = 1024;
	t->key = calloc(t->cap, sizeof *t->key);
	t->val = calloc(t->cap, sizeof *t->val);
	if (!t->key || !t->val) {
		strtab_free(t);
		return -1;
	}
	return 0;
}

void strtab_free(struct strtab *t)
{
	for (struct block *b = t->mem, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->key);
	free(t->val);
	memset(t, 0, sizeof *t);
}

static size_t find(const struct strtab *t, const char *key)
{
	size_t i = (size_t)hash(key) & (t->cap - 1);
	while (t->key[i] && strcmp(t->key[i], key) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

int *strtab_get(const struct strtab *t, const char *key)
{
	if (!t->cap)
		return NULL;
	size_t i = find(t, key);
	return t->key[i] ? &t->val[i] : NULL;
}

static const char *copy_key(struct strtab *t, const char *key)
{
	size_t n = strlen(key) + 1;
	struct block *b = t->mem;
	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;
		struct block *nb = malloc(sizeof *nb + size);
		if (!nb)
			return NULL;
		nb->next = b;
		nb->used = 0;
		nb->size = size;
		t->mem = b = nb;
	}
	char *p = b->data + b->used;
	memcpy(p, key, n);
	b->used += n;
	return p;
}

static int grow(struct strtab *t)
{
	size_t cap = t->cap * 2;
	const char **key = calloc(cap, sizeof *key);
	int *val = calloc(cap, sizeof *val);
	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	/* reinsert in old slot order: deterministic */
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->key[i])
			continue;
		size_t j = (size_t)hash(t->key[i]) & (cap - 1);
		while (key[j])
			j = (j + 1) & (cap - 1);
		key[j] = t->key[i];
		val[j] = t->val[i];
	}
	free(t->key);
	free(t->val);
	t->key = key;
	t->val = val;
	t->cap = cap;
	return 0;
}

int *strtab_put(struct strtab *t, const char *key, int val, int *added,
		const char **keyp)
{
	if (!t->cap && strtab_init(t))
		return NULL;
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	size_t i = find(t, key);
	*added = !t->key[i];
	if (*added) {
		if (!(t->key[i] = copy_key(t, key)))
			return NULL;
		t->val[i] = val;
		t->n++;
	}
	if (keyp)
		*keyp = t->key[i];
	return &t->val[i];
}
