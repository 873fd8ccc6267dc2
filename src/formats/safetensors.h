/* safetensors.h - reading and writing the safetensors format.
 *
 * Layout: 8-byte little-endian header length N, N bytes of JSON header
 * ({"name": {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}, ...,
 * "__metadata__": {"k": "v"}}), then the raw little-endian data; offsets are
 * relative to the end of the header.  Every size read from a file is checked
 * before use: header within the file, offsets within the data and not
 * overlapping, shape product x dtype size equal to the byte span, no integer
 * overflow.  F32, F16, BF16 and F64 convert to F32; I32 and I64 are read
 * for ids. */
#ifndef ATTNSCOPE_SAFETENSORS_H
#define ATTNSCOPE_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum st_dtype { ST_F32, ST_F16, ST_BF16, ST_F64, ST_I32, ST_I64, ST_I8, ST_OTHER };

#define ST_MAXDIM 8

struct st_tensor {
	char *name;
	enum st_dtype dtype;
	int ndim;
	uint64_t shape[ST_MAXDIM];
	uint64_t numel;
	const unsigned char *bytes;   /* into the mapped file, or owned */
	uint64_t nbytes;
	void *owned;                  /* a copy bytes points into (torch.save
					 strides), freed by st_close; NULL
					 when bytes are in the mapping */
	char dtype_str[16];           /* dtype as spelled in the file ("I8") */
	/* An I8 tensor NAME stored with its scales in a float tensor
	   NAME_scale (one value, or one a row: shape [rows] or [rows, 1], as
	   the compressed-tensors "channel" layout has them): value =
	   int8 x the row's scale.  st_open pairs the two and leaves NAME_scale
	   out of the file's list; scale is NULL for any other tensor. */
	const unsigned char *scale;
	enum st_dtype scale_dtype;
	uint64_t nscale;
	/* A tensor whose F32 values a reader above this one computes (a GGUF
	   file's dequantised tensors, engine/gguf_model.c): st_to_f32 calls
	   convert(t, out) instead of reading bytes; dtype is then ST_OTHER and
	   dtype_str the file's type ("Q4_K").  NULL for every other tensor. */
	int (*convert)(const struct st_tensor *t, float *out, struct err *e);
	const void *convert_arg;
};

/* st_open fills an st_file; st_close unmaps it and frees every name and
 * string (tensor bytes point into the mapping and die with it).  After a
 * failed st_open the struct is zeroed, and st_close on it is a no-op. */
struct st_file {
	const char *path;             /* for messages (copied) */
	void *map; size_t maplen;     /* whole file, read-only */
	struct st_tensor *t; int n;
	char **meta_keys, **meta_vals; int nmeta;
	void **xmaps; size_t *xmaplens; int nxmaps;   /* shards' maps (shards.h) */
};

/* Maps path read-only into a zeroed f (map, maplen, path), refusing a
 * file that is not regular or is shorter than min_size (the message
 * too_short).  Returns 0, or -1 with e naming path; st_close frees.  The
 * readers of both weight formats start with it. */
int st_map(struct st_file *f, const char *path, uint64_t min_size,
	   const char *too_short, struct err *e);
/* Maps and validates path.  Returns 0, or -1 with e naming path and the
 * problem. */
int st_open(struct st_file *f, const char *path, struct err *e);
void st_close(struct st_file *f);
const struct st_tensor *st_find(const struct st_file *f, const char *name);
const char *st_meta(const struct st_file *f, const char *key);

/* Converts a float tensor (F32/F16/BF16/F64, or I8 with its scales) to
 * F32 into out[numel]. */
int st_to_f32(const struct st_tensor *t, float *out, struct err *e);
/* Whether t's bytes can be used in place as float[] (F32, aligned, in the
 * mapping: owned copies die with st_close and are never in place). */
int st_is_f32_inplace(const struct st_tensor *t);

const char *st_dtype_name(enum st_dtype d);

/* f as an IEEE half (binary16) rounded to nearest, ties to even (as
 * numpy's float16 does): overflow gives ±inf, NaN stays a quiet NaN. */
uint16_t st_f16_from_f32(float f);

/* Writer: collect tensors, then write the file in one go.  The header is
 * padded with spaces to a multiple of 8 bytes and the data follow in the
 * order added, so an F32 tensor is aligned when its offset is.  add and
 * meta return -1 on a bad argument (duplicate name, unsupported dtype,
 * invalid UTF-8, ...) and remember why: st_writer_write then fails with that
 * reason.  The file is written to PATH.tmp and renamed over PATH. */
struct st_writer;
struct st_writer *st_writer_new(void);
/* data is copied lazily: it must stay valid until st_writer_write. */
int st_writer_add(struct st_writer *w, const char *name, enum st_dtype dt,
		  int ndim, const uint64_t *shape, const void *data);
/* A tensor whose data st_writer_write_with asks for when it writes it. */
int st_writer_add_later(struct st_writer *w, const char *name, enum st_dtype dt,
			int ndim, const uint64_t *shape);
int st_writer_meta(struct st_writer *w, const char *key, const char *val);
int st_writer_write(struct st_writer *w, const char *path, struct err *e);
/* As st_writer_write; the data of tensor i (in the order added) that was
 * added later is get(ctx, i), asked for when the file reaches it and no
 * longer needed after (a tensor at a time: the file is streamed). */
int st_writer_write_with(struct st_writer *w, const char *path,
			 const void *(*get)(void *ctx, int i), void *ctx, struct err *e);
void st_writer_free(struct st_writer *w);

#endif
