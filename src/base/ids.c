/* ids.c - a growable list of token ids. */
#include <stdlib.h>

#include "ids.h"

int ids_push(struct ids *o, int32_t id)
{
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 64;
		int32_t *nv = realloc(o->v, (size_t)cap * sizeof *nv);
		if (!nv)
			return -1;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n++] = id;
	return 0;
}
