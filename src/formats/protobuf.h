/* protobuf.h - Protocol Buffers' wire format, read one field at a time.
 *
 * A message is a run of fields, each a key (a varint: field number << 3 |
 * wire type) and a value: a varint (type 0), 8 bytes (1), a length-prefixed
 * span (2: strings, bytes, nested messages, packed arrays) or 4 bytes (5).
 * The reader checks every varint (at most 10 bytes, no bits past 64) and
 * every length against the bytes left; groups (types 3, 4) are refused, as
 * no message read here has them.  Nothing is copied: spans point into the
 * caller's buffer, which must outlive them. */
#ifndef ATTNSCOPE_PROTOBUF_H
#define ATTNSCOPE_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

struct pb_reader {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t num;            /* field number, >= 1 */
	int wire;                /* PB_VARINT, PB_FIXED64, PB_LEN or PB_FIXED32 */
	uint64_t v;              /* PB_VARINT and the fixed types: the value */
	const uint8_t *data;     /* PB_LEN: the span (into the buffer) */
	size_t len;
	size_t at;               /* the key's offset from the reader's start */
};

/* A reader over buf[0..len). */
void pb_init(struct pb_reader *r, const void *buf, size_t len);
/* Reads the next field into f.  Returns 1, 0 at the end of the message, or
 * -1 with *why (a static string, marked N_(): print it with _()) saying
 * what is malformed. */
int pb_next(struct pb_reader *r, const uint8_t *start, struct pb_field *f,
	    const char **why);
/* A PB_FIXED32's value as the float it holds. */
float pb_float(const struct pb_field *f);
/* A PB_VARINT as an int32 field holds it (negative numbers are written
 * sign-extended to 64 bits; the low 32 bits are kept, as protobuf does). */
int32_t pb_int32(const struct pb_field *f);

#endif
