/* strbuf.h - a growing, NUL-terminated byte string.
 *
 * Zero-initialise one (struct strbuf s = { 0 }), append with strbuf_put;
 * s.b is then malloc'd (the caller frees it) and always NUL-terminated
 * after a put; s.n is its length. */
#ifndef ATTNSCOPE_STRBUF_H
#define ATTNSCOPE_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *b;
	size_t n, cap;
};

/* Appends len bytes of p.  Returns 0, or -1 when out of memory (s as it
 * was). */
int strbuf_put(struct strbuf *s, const char *p, size_t len);

#endif
