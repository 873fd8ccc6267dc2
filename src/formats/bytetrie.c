/* bytetrie.c - a trie of byte strings over one hash of edges. */
#include <stdlib.h>
#include <string.h>

#include "bytetrie.h"

int bytetrie_init(struct bytetrie *t, size_t total)
{
	memset(t, 0, sizeof *t);
	if (total > (1u << 28))
		return -1;
	t->maxnodes = (int)total + 1;
	t->cap = 16;
	while (t->cap < (size_t)t->maxnodes * 2)
		t->cap *= 2;
	t->key = malloc(t->cap * sizeof *t->key);
	t->child = malloc(t->cap * sizeof *t->child);
	t->val = malloc((size_t)t->maxnodes * sizeof *t->val);
	if (!t->key || !t->child || !t->val) {
		bytetrie_free(t);
		return -1;
	}
	memset(t->key, 0xFF, t->cap * sizeof *t->key);
	for (int i = 0; i < t->maxnodes; i++)
		t->val[i] = -1;
	t->nodes = 1;
	return 0;
}

void bytetrie_free(struct bytetrie *t)
{
	free(t->key);
	free(t->child);
	free(t->val);
	memset(t, 0, sizeof *t);
}

static uint64_t edge(int32_t node, unsigned char b)
{
	return (uint64_t)(uint32_t)node << 8 | b;
}

static size_t slot(const struct bytetrie *t, uint64_t k)
{
	uint64_t h = k * 0x9E3779B97F4A7C15ull;
	size_t j = (size_t)(h >> 20) & (t->cap - 1);
	while (t->key[j] != UINT64_MAX && t->key[j] != k)
		j = (j + 1) & (t->cap - 1);
	return j;
}

int bytetrie_put(struct bytetrie *t, const char *s, int32_t val)
{
	int32_t node = 0;
	if (!t->cap || !*s || val < 0)
		return -1;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		size_t j = slot(t, edge(node, *c));
		if (t->key[j] == UINT64_MAX) {
			if (t->nodes >= t->maxnodes)
				return -1;
			t->key[j] = edge(node, *c);
			t->child[j] = t->nodes++;
		}
		node = t->child[j];
	}
	t->val[node] = val;
	return 0;
}

int32_t bytetrie_next(const struct bytetrie *t, int32_t node, unsigned char b)
{
	if (!t->cap)
		return -1;
	size_t j = slot(t, edge(node, b));
	return t->key[j] == UINT64_MAX ? -1 : t->child[j];
}
