/* gguf.h - reading GGUF files (llama.cpp's and Ollama's model files).
 *
 * Layout (ggml's docs/gguf.md; versions 2 and 3, little-endian):
 *   "GGUF", u32 version, u64 tensor count, u64 metadata count;
 *   metadata: string key, u32 value type, value (strings are a u64 length
 *   and that many bytes, no NUL; arrays are a u32 element type, a u64
 *   count and the elements, which may be arrays again);
 *   tensor infos: string name, u32 n_dims, u64 ne[n_dims], u32 ggml type,
 *   u64 offset from the start of the data section;
 *   padding to general.alignment (default 32), then the data section.
 * The file is mapped read-only; every count, length and offset is checked
 * against the file before it is used, and nothing is allocated by a count
 * read from the file: a count that the bytes left cannot hold is refused
 * at once, and the tables grow as entries are actually read.  Refused too:
 * versions other than 2 and 3, unknown value or tensor types, duplicated
 * keys or tensor names, n_dims above 4, element counts whose size overflows,
 * rows that are not whole blocks, misaligned offsets, data past the end of
 * the file, overlapping tensors, an alignment that is not a power of two.
 * As with any mapping, a file truncated by someone else while it is mapped
 * raises SIGBUS on access. */
#ifndef ATTNSCOPE_GGUF_H
#define ATTNSCOPE_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* metadata value types (gguf.md, gguf_metadata_value_type) */
enum gguf_vtype {
	GGUF_U8 = 0, GGUF_I8 = 1, GGUF_U16 = 2, GGUF_I16 = 3, GGUF_U32 = 4,
	GGUF_I32 = 5, GGUF_F32 = 6, GGUF_BOOL = 7, GGUF_STRING = 8,
	GGUF_ARRAY = 9, GGUF_U64 = 10, GGUF_I64 = 11, GGUF_F64 = 12,
	GGUF_NVTYPES
};

#define GGUF_MAX_DIMS 4
#define GGUF_DEFAULT_ALIGNMENT 32

/* A string in the mapping: len bytes, not NUL-terminated. */
struct gguf_str {
	const char *s;
	uint64_t len;
};

struct gguf_kv {
	char *key;                    /* owned, NUL-terminated */
	enum gguf_vtype type;
	enum gguf_vtype elem;         /* arrays: the elements' type */
	uint64_t n;                   /* arrays: the element count; else 1 */
	const unsigned char *val;     /* the value in the mapping (arrays: the
					 first element) */
	uint64_t nbytes;              /* of the value (arrays: of the elements) */
};

struct gguf_tensor {
	char *name;                   /* owned, NUL-terminated */
	uint32_t type;                /* ggml type id (quant.h, enum quant_type) */
	int ndim;                     /* 0..4 */
	uint64_t ne[GGUF_MAX_DIMS];   /* ggml order: ne[0] is the fastest
					 (a row); dimensions past ndim are 1 */
	uint64_t numel, nbytes;
	uint64_t offset;              /* from the start of the data section */
	const unsigned char *data;    /* in the mapping: nbytes bytes */
};

/* gguf_open fills a gguf_file; gguf_close unmaps it and frees every key and
 * name (values and data point into the mapping and die with it).  After a
 * failed gguf_open the struct is zeroed and gguf_close on it is a no-op. */
struct gguf_file {
	char *path;                   /* for messages (owned copy) */
	void *map;
	size_t maplen;
	uint32_t version;
	uint32_t alignment;
	uint64_t data_offset;         /* of the data section in the file */
	struct gguf_kv *kv;           /* in file order */
	size_t nkv;
	struct gguf_tensor *t;        /* in file order */
	size_t nt;
	size_t *kv_index, *t_index;   /* sorted by key / name, for lookups */
};

/* Whether path starts with the magic "GGUF" (a readable regular file). */
int gguf_sniff(const char *path);

/* Maps and validates path.  Returns 0, or -1 with e holding one line that
 * names path and what was expected versus found. */
int gguf_open(struct gguf_file *f, const char *path, struct err *e);
/* Checks a file already mapped by the caller (bytes stay the caller's and
 * must outlive f; gguf_close then does not unmap them).  For the fuzzer
 * and tests; path is used in messages. */
int gguf_open_buffer(struct gguf_file *f, const void *data, size_t len, const char *path,
		     struct err *e);
void gguf_close(struct gguf_file *f);

const struct gguf_kv *gguf_find(const struct gguf_file *f, const char *key);
const struct gguf_tensor *gguf_tensor(const struct gguf_file *f, const char *name);
const char *gguf_vtype_name(enum gguf_vtype t);

/* Typed getters.  Each returns 1 and sets *v when key is present and of a
 * fitting type, 0 when key is absent (v untouched), -1 with e naming the
 * file and key when the value is of another type or out of range.  The
 * integer getters take any integer type whose value fits; f32 takes F32 or
 * F64 (rounded) and integers; bool takes BOOL only. */
int gguf_get_u32(const struct gguf_file *f, const char *key, uint32_t *v, struct err *e);
int gguf_get_i32(const struct gguf_file *f, const char *key, int32_t *v, struct err *e);
int gguf_get_u64(const struct gguf_file *f, const char *key, uint64_t *v, struct err *e);
int gguf_get_f32(const struct gguf_file *f, const char *key, float *v, struct err *e);
int gguf_get_bool(const struct gguf_file *f, const char *key, int *v, struct err *e);
/* A string value: v points into the mapping. */
int gguf_get_str(const struct gguf_file *f, const char *key, struct gguf_str *v, struct err *e);
/* The same copied into buf (cap bytes, NUL-terminated); a longer string
 * or one holding a NUL byte is an error. */
int gguf_get_cstr(const struct gguf_file *f, const char *key, char *buf, size_t cap,
		  struct err *e);
/* Arrays.  *out is malloc'd (the caller frees it; NULL for an empty
 * array) and *n set to the count.  strs: an array of strings, each pointing
 * into the mapping; floats: F32 or F64 elements; ints: any integer type
 * whose values fit an int32. */
int gguf_get_strs(const struct gguf_file *f, const char *key, struct gguf_str **out,
		  uint64_t *n, struct err *e);
int gguf_get_floats(const struct gguf_file *f, const char *key, float **out, uint64_t *n,
		    struct err *e);
int gguf_get_ints(const struct gguf_file *f, const char *key, int32_t **out, uint64_t *n,
		  struct err *e);

#endif
