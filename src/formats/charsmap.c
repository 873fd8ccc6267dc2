/* charsmap.c - the precompiled charsmap's double-array trie. */
#include <stdlib.h>
#include <string.h>

#include "charsmap.h"
#include "base/i18n.h"

int charsmap_init(struct charsmap *c, const void *blob, size_t len, const char **why)
{
	const unsigned char *b = blob;
	memset(c, 0, sizeof *c);
	if (len <= 4) {
		*why = N_("shorter than its header");
		return -1;
	}
	uint32_t tsize = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24;
	if (tsize >= len - 4 || tsize % 4 || tsize == 0) {
		*why = N_("the trie's size does not fit the blob");
		return -1;
	}
	c->nunits = tsize / 4;
	c->nrepl = len - 4 - tsize;
	if (!(c->units = malloc(c->nunits * sizeof *c->units)) ||
	    !(c->repl = malloc(c->nrepl + 1))) {
		*why = N_("out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->nunits; i++) {
		const unsigned char *u = b + 4 + 4 * i;
		c->units[i] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
			      (uint32_t)u[3] << 24;
	}
	memcpy(c->repl, b + 4 + tsize, c->nrepl);
	c->repl[c->nrepl] = 0;       /* a last string without its NUL ends here */
	return 0;
}

void charsmap_free(struct charsmap *c)
{
	free(c->units);
	free(c->repl);
	memset(c, 0, sizeof *c);
}

/* Darts-clone's unit fields. */
static int u_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static uint32_t u_value(uint32_t u) { return u & 0x7FFFFFFFu; }
static uint32_t u_label(uint32_t u) { return u & (0x80000000u | 0xFFu); }
static uint32_t u_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

/* Real rules are a few characters; a hostile trie that loops would
 * otherwise make normalising quadratic in the text. */
#define RULE_MAX 256

size_t charsmap_match(const struct charsmap *c, const char *text, size_t len, int shortest,
		      const char **rep, size_t *rlen)
{
	size_t best = 0;
	uint32_t value = 0;
	if (!c->nunits)
		return 0;
	uint32_t pos = u_offset(c->units[0]);
	for (size_t i = 0; i < len && i < RULE_MAX && text[i]; i++) {
		unsigned char ch = (unsigned char)text[i];
		pos ^= ch;
		if (pos >= c->nunits)
			break;
		uint32_t u = c->units[pos];
		if (u_label(u) != ch)
			break;
		pos ^= u_offset(u);
		if (pos >= c->nunits)
			break;
		if (u_has_leaf(u)) {
			best = i + 1;
			value = u_value(c->units[pos]);
			if (shortest)
				break;
		}
	}
	if (best) {
		*rep = value < c->nrepl ? c->repl + value : "";
		*rlen = strlen(*rep);
	}
	return best;
}
