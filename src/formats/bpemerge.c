/* bpemerge.c - BPE merges by rank: a hash of pairs and a heap of candidates. */
#include <stdlib.h>
#include <string.h>

#include "bpemerge.h"

int bpemerge_init(struct bpemerge *m, size_t nmerges)
{
	memset(m, 0, sizeof *m);
	if (nmerges > (size_t)INT32_MAX / 4)
		return -1;
	m->cap = 16;
	while (m->cap < nmerges * 2)
		m->cap *= 2;
	m->key = malloc(m->cap * sizeof *m->key);
	m->rank = malloc(m->cap * sizeof *m->rank);
	m->prod = malloc(m->cap * sizeof *m->prod);
	if (!m->key || !m->rank || !m->prod) {
		bpemerge_free(m);
		return -1;
	}
	memset(m->key, 0xFF, m->cap * sizeof *m->key);
	return 0;
}

void bpemerge_free(struct bpemerge *m)
{
	free(m->key);
	free(m->rank);
	free(m->prod);
	memset(m, 0, sizeof *m);
}

static uint64_t pair_key(int32_t a, int32_t b)
{
	return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

static size_t pair_slot(const struct bpemerge *m, uint64_t k)
{
	uint64_t h = k * 0x9E3779B97F4A7C15ull;
	size_t j = (size_t)(h >> 20) & (m->cap - 1);
	while (m->key[j] != UINT64_MAX && m->key[j] != k)
		j = (j + 1) & (m->cap - 1);
	return j;
}

int bpemerge_add(struct bpemerge *m, int32_t a, int32_t b, int32_t prod)
{
	/* the table stays at most half full */
	if (!m->cap || (size_t)m->n >= m->cap / 2)
		return -1;
	size_t j = pair_slot(m, pair_key(a, b));
	m->key[j] = pair_key(a, b);
	m->rank[j] = m->n++;
	m->prod[j] = prod;
	return 0;
}

int32_t bpemerge_rank(const struct bpemerge *m, int32_t a, int32_t b, int32_t *prod)
{
	if (!m->cap)
		return -1;
	size_t j = pair_slot(m, pair_key(a, b));
	if (m->key[j] == UINT64_MAX)
		return -1;
	*prod = m->prod[j];
	return m->rank[j];
}

/* A symbol of the word being merged: a doubly linked list over sym[]. */
struct sym { int32_t id; int prev, next; };
/* A candidate merge: the pair starting at symbol pos, of rank rank. */
struct cand { int32_t rank, pos, prod; int32_t right; };

static int cand_less(const struct cand *a, const struct cand *b)
{
	return a->rank != b->rank ? a->rank < b->rank : a->pos < b->pos;
}

static void heap_push(struct cand *h, int *n, struct cand c)
{
	int i = (*n)++;
	while (i > 0 && cand_less(&c, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = c;
}

static struct cand heap_pop(struct cand *h, int *n)
{
	struct cand top = h[0], last = h[--*n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && cand_less(&h[c + 1], &h[c]))
			c++;
		if (!cand_less(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

static void push_pair(const struct bpemerge *m, const struct sym *s, int pos,
		      struct cand *h, int *nh)
{
	int nx = s[pos].next;
	int32_t prod;
	if (nx < 0)
		return;
	int32_t r = bpemerge_rank(m, s[pos].id, s[nx].id, &prod);
	if (r >= 0)
		heap_push(h, nh, (struct cand){ r, pos, prod, s[nx].id });
}

int bpemerge_apply(const struct bpemerge *m, const int32_t *sym, size_t n, struct ids *o)
{
	if (n > (size_t)INT32_MAX / 4)
		return -1;
	if (!n)
		return 0;
	struct sym *s = malloc(n * sizeof *s);
	struct cand *h = malloc(n * sizeof *h * 2 + sizeof *h);
	if (!s || !h) {
		free(s);
		free(h);
		return -1;
	}
	int ns = (int)n, nh = 0;
	for (int i = 0; i < ns; i++)
		s[i] = (struct sym){ sym[i], i - 1, i + 1 < ns ? i + 1 : -1 };
	for (int i = 0; i < ns; i++)
		push_pair(m, s, i, h, &nh);
	while (nh > 0) {
		struct cand c = heap_pop(h, &nh);
		int nx = s[c.pos].next;
		/* stale: the left symbol was merged away or changed, or its
		 * right neighbour is another symbol now */
		if (s[c.pos].id < 0 || nx < 0 || s[nx].id != c.right)
			continue;
		int32_t prod;
		if (bpemerge_rank(m, s[c.pos].id, s[nx].id, &prod) != c.rank || prod != c.prod)
			continue;
		s[c.pos].id = c.prod;
		s[c.pos].next = s[nx].next;
		if (s[nx].next >= 0)
			s[s[nx].next].prev = c.pos;
		s[nx].id = -1;
		if (s[c.pos].prev >= 0)
			push_pair(m, s, s[c.pos].prev, h, &nh);
		push_pair(m, s, c.pos, h, &nh);
		/* the heap holds at most one live candidate a symbol plus the
		 * stale ones: 2n bounds it, since each merge adds two and
		 * removes one symbol */
	}
	int rc = 0;
	for (int i = 0; i >= 0 && !rc; i = s[i].next)
		rc = ids_push(o, s[i].id);
	free(s);
	free(h);
	return rc;
}
