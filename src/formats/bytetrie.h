/* bytetrie.h - a trie of byte strings with a value at each string's end:
 * the pieces a Unigram model may start with at a place of the text, the
 * added tokens of a tokenizer.json.  Walking the text byte by byte finds
 * every string that starts at a place in time linear in the longest.
 * Edges (node, byte) -> node live in one open-addressing hash. */
#ifndef ATTNSCOPE_BYTETRIE_H
#define ATTNSCOPE_BYTETRIE_H

#include <stddef.h>
#include <stdint.h>

struct bytetrie {
	/* private */
	uint64_t *key;      /* [cap] edge (node << 8 | byte), UINT64_MAX empty */
	int32_t *child;     /* [cap] the edge's node */
	int32_t *val;       /* [maxnodes] the value ending at a node, or -1 */
	size_t cap;
	int nodes, maxnodes;
};

/* Room for strings of total bytes in all (at most 2^28).  Returns 0, or -1
 * when out of memory or too big.  Free with bytetrie_free. */
int bytetrie_init(struct bytetrie *t, size_t total);
void bytetrie_free(struct bytetrie *t);
/* Puts the NUL-terminated s (not empty) with val >= 0 (the last put of a
 * string wins).  Returns -1 past the room of bytetrie_init. */
int bytetrie_put(struct bytetrie *t, const char *s, int32_t val);
/* The node under node (the root is 0) by byte b, or -1. */
int32_t bytetrie_next(const struct bytetrie *t, int32_t node, unsigned char b);
/* The value of the string ending at node, or -1. */
static inline int32_t bytetrie_val(const struct bytetrie *t, int32_t node)
{
	return t->val[node];
}

#endif
