/* protobuf.c - Protocol Buffers' wire format (protobuf.h). */
#include <string.h>

#include "protobuf.h"
#include "base/i18n.h"

void pb_init(struct pb_reader *r, const void *buf, size_t len)
{
	r->p = buf;
	r->end = r->p + len;
}

/* A varint at r->p: 7 bits a byte, low first, at most 10 bytes. */
static int varint(struct pb_reader *r, uint64_t *v, const char **why)
{
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (r->p >= r->end) {
			*why = N_("a number runs past the end (the file is cut short)");
			return -1;
		}
		uint8_t b = *r->p++;
		if (i == 9 && b > 1) {
			*why = N_("a number longer than 64 bits");
			return -1;
		}
		x |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	*why = N_("a number longer than 10 bytes");
	return -1;
}

static int fixed(struct pb_reader *r, int n, uint64_t *v, const char **why)
{
	if (r->end - r->p < n) {
		*why = N_("a fixed-size value runs past the end (the file is cut short)");
		return -1;
	}
	uint64_t x = 0;
	for (int i = n - 1; i >= 0; i--)
		x = x << 8 | r->p[i];
	r->p += n;
	*v = x;
	return 0;
}

int pb_next(struct pb_reader *r, const uint8_t *start, struct pb_field *f,
	    const char **why)
{
	uint64_t key, len;
	if (r->p >= r->end)
		return 0;
	memset(f, 0, sizeof *f);
	f->at = (size_t)(r->p - start);
	if (varint(r, &key, why))
		return -1;
	if ((key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF) {
		*why = N_("a field number out of range (not a protobuf message)");
		return -1;
	}
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	switch (f->wire) {
	case PB_VARINT:
		return varint(r, &f->v, why) ? -1 : 1;
	case PB_FIXED64:
		return fixed(r, 8, &f->v, why) ? -1 : 1;
	case PB_FIXED32:
		return fixed(r, 4, &f->v, why) ? -1 : 1;
	case PB_LEN:
		if (varint(r, &len, why))
			return -1;
		if (len > (uint64_t)(r->end - r->p)) {
			*why = N_("a length runs past the end (the file is cut short, or is not a "
			       "protobuf message)");
			return -1;
		}
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	default:
		*why = N_("an unknown wire type (not a protobuf message)");
		return -1;
	}
}

float pb_float(const struct pb_field *f)
{
	uint32_t u = (uint32_t)f->v;
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
}

int32_t pb_int32(const struct pb_field *f)
{
	return (int32_t)(uint32_t)(f->v & 0xFFFFFFFFu);
}
