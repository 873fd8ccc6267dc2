/* safetensors_int.h - what the reader and the writer of safetensors
 * share (not for other modules). */
#ifndef ATTNSCOPE_SAFETENSORS_INT_H
#define ATTNSCOPE_SAFETENSORS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "safetensors.h"

#define ST_SHOW 80                    /* bytes of a name shown in messages */

/* Bytes of one element of d (0 for ST_OTHER). */
unsigned st_dtype_size(enum st_dtype d);
/* Length of the UTF-8 sequence at s with its code point, or 0 if invalid. */
int st_utf8(const unsigned char *s, uint32_t *cp);
/* A name made safe for a one-line message: control bytes and invalid UTF-8
 * become '?', long names are cut. */
const char *st_show(const char *s, char *buf, size_t cap);

#endif
