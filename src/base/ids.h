/* ids.h - a growable list of token ids, the tokenizers' output. */
#ifndef ATTNSCOPE_IDS_H
#define ATTNSCOPE_IDS_H

#include <stdint.h>

struct ids {
	int32_t *v;   /* [cap], the first n in use; free() it */
	int n, cap;
};

/* Appends id.  Returns -1 when out of memory (the list is unchanged). */
int ids_push(struct ids *o, int32_t id);

#endif
