/* fuzz_torchsave.c - libFuzzer target: the torch.save reader and meta.pkl.
 *
 * The first byte chooses what the rest is:
 *   0  a whole file, opened with tensorfile_open as a model's weights: are
 *      (the zip container, then the unpickler with torch's hooks), once
 *      with the default search and once with weights_key "model";
 *   1  a pickle, read as nanoGPT's meta.pkl (metapkl_load);
 *   2  a data.pkl and its storages, packed here into a stored zip with
 *      correct CRCs so that mutations reach the unpickler and the tensor
 *      checks: 2 bytes little-endian pickle length, the pickle, 1 byte
 *      storage count C, C x 2 bytes of sizes, then the storages' bytes
 *      (archive/data/0 .. C-1; short inputs give shorter storages).
 * Each input is written to a memfd and opened through /proc/self/fd/N, as
 * a disk file would be.  Besides "no crash": every tensor of a file that
 * opens lies inside the mapping or its own copy, its byte count is numel x
 * the dtype's size, and the float ones convert to F32; meta.pkl tokens are
 * NUL-free strings. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/metapkl.h"
#include "formats/tensorfile.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz.pt", 0);
	if (fd < 0) {
		perror("fuzz_torchsave: memfd_create");
		abort();
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return 0;
}

static void put(const void *data, size_t size)
{
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
}

static unsigned dsize(const struct st_tensor *t)
{
	static const struct { const char *n; unsigned s; } sz[] = {
		{ "F32", 4 }, { "F16", 2 }, { "BF16", 2 }, { "F64", 8 }, { "I64", 8 },
		{ "I32", 4 }, { "I16", 2 }, { "I8", 1 }, { "U8", 1 }, { "BOOL", 1 },
		{ "C64", 8 }, { "C128", 16 },
	};
	for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
		if (!strcmp(t->dtype_str, sz[i].n))
			return sz[i].s;
	fprintf(stderr, "unknown dtype %s\n", t->dtype_str);
	abort();
}

static void check_file(const struct st_file *f)
{
	const unsigned char *m = f->map;
	struct err e;
	for (int i = 0; i < f->n; i++) {
		const struct st_tensor *t = &f->t[i];
		if (t->nbytes != t->numel * dsize(t))
			abort();
		if (!t->owned && t->nbytes &&
		    (t->bytes < m || t->bytes > m + f->maplen ||
		     t->nbytes > (uint64_t)(m + f->maplen - t->bytes))) {
			fprintf(stderr, "tensor %s outside the mapping\n", t->name);
			abort();
		}
		if (t->dtype == ST_F32 || t->dtype == ST_F16 || t->dtype == ST_BF16 ||
		    t->dtype == ST_F64) {
			float *p = malloc((size_t)t->numel * sizeof *p + 1);
			if (p && st_to_f32(t, p, &e))
				abort();
			free(p);
		}
		if (st_find(f, t->name) == NULL)
			abort();
	}
}

static void open_weights(void)
{
	struct st_file f;
	struct err e;
	if (!tensorfile_open(&f, path, NULL, &e)) {
		check_file(&f);
		st_close(&f);
	}
	if (!tensorfile_open(&f, path, "model", &e)) {
		check_file(&f);
		st_close(&f);
	}
}

static void le16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void le32(unsigned char *p, uint32_t v) { le16(p, v & 0xffff); le16(p + 2, v >> 16); }

static uint32_t crc32(const unsigned char *s, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= s[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/* A stored zip of n entries. */
static unsigned char *zip(char names[][24], const unsigned char *const *data,
			  const size_t *len, int n, size_t *outlen)
{
	size_t cap = 22;
	for (int i = 0; i < n; i++)
		cap += 30 + 46 + 2 * strlen(names[i]) + len[i];
	unsigned char *z = malloc(cap), *p = z;
	size_t *off = malloc((size_t)n * sizeof *off + 1);
	if (!z || !off)
		abort();
	for (int i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);
		off[i] = (size_t)(p - z);
		memset(p, 0, 30);
		le32(p, 0x04034b50u);
		le32(p + 14, crc32(data[i], len[i]));
		le32(p + 18, (uint32_t)len[i]);
		le32(p + 22, (uint32_t)len[i]);
		le16(p + 26, (unsigned)nl);
		memcpy(p + 30, names[i], nl);
		if (len[i])
			memcpy(p + 30 + nl, data[i], len[i]);
		p += 30 + nl + len[i];
	}
	unsigned char *cd = p;
	for (int i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);
		memset(p, 0, 46);
		le32(p, 0x02014b50u);
		le32(p + 16, crc32(data[i], len[i]));
		le32(p + 20, (uint32_t)len[i]);
		le32(p + 24, (uint32_t)len[i]);
		le16(p + 28, (unsigned)nl);
		le32(p + 42, (uint32_t)off[i]);
		memcpy(p + 46, names[i], nl);
		p += 46 + nl;
	}
	memset(p, 0, 22);
	le32(p, 0x06054b50u);
	le16(p + 8, (unsigned)n);
	le16(p + 10, (unsigned)n);
	le32(p + 12, (uint32_t)(p - cd));
	le32(p + 16, (uint32_t)(cd - z));
	p += 22;
	free(off);
	*outlen = (size_t)(p - z);
	return z;
}

static void packed(const uint8_t *d, size_t n)
{
	enum { MAXS = 16 };
	char names[MAXS + 2][24];
	const unsigned char *data[MAXS + 2];
	size_t len[MAXS + 2], at;
	if (n < 3)
		return;
	size_t plen = (size_t)d[0] | (size_t)d[1] << 8;
	if (plen > n - 2)
		plen = n - 2;
	snprintf(names[0], sizeof names[0], "archive/data.pkl");
	data[0] = d + 2;
	len[0] = plen;
	snprintf(names[1], sizeof names[1], "archive/version");
	data[1] = (const unsigned char *)"3\n";
	len[1] = 2;
	int k = 2;
	at = 2 + plen;
	if (at < n) {
		int c = d[at++] % (MAXS + 1);
		size_t sizes[MAXS];
		for (int i = 0; i < c; i++, at += 2)
			sizes[i] = at + 1 < n ? (size_t)d[at] | (size_t)d[at + 1] << 8 : 0;
		for (int i = 0; i < c; i++) {
			size_t s = at < n ? (sizes[i] < n - at ? sizes[i] : n - at) : 0;
			snprintf(names[k], sizeof names[k], "archive/data/%d", i);
			data[k] = d + (at < n ? at : n);
			len[k++] = s;
			at += s;
		}
	}
	size_t zl;
	unsigned char *z = zip(names, data, len, k, &zl);
	put(z, zl);
	free(z);
	open_weights();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		put(data + 1, size - 1);
		open_weights();
		break;
	case 1: {
		char **t;
		int n;
		struct err e;
		put(data + 1, size - 1);
		if (!metapkl_load(path, &t, &n, &e)) {
			for (int i = 0; i < n; i++) {
				if (!t[i])
					abort();
				free(t[i]);
			}
			free(t);
		}
		break;
	}
	default:
		packed(data + 1, size - 1);
	}
	return 0;
}
