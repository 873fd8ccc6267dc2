/* strbuf.c - a growing byte string (strbuf.h). */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

int strbuf_put(struct strbuf *o, const char *p, size_t len)
{
	if (o->n + len + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 64;
		while (cap < o->n + len + 1)
			cap *= 2;
		char *nb = realloc(o->b, cap);
		if (!nb)
			return -1;
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
	o->b[o->n] = 0;
	return 0;
}
