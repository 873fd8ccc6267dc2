/* fuzz_gguf.c - libFuzzer target: the GGUF reader and what is built on it.
 *
 * The input is a whole .gguf file, written to a memfd and opened through
 * /proc/self/fd/N, so gguf_open runs exactly as on a disk file (fstat,
 * mmap, every check); gguf_open_buffer on the same bytes must agree.  An
 * accepted file must keep its promises: every key and tensor is found by
 * its name, every tensor's data lies inside the file, every convertible
 * tensor dequantises, and the typed getters, the config, the tokenizer and
 * the Hugging Face view (gguf_map) either succeed or fail cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/gguf_map.h"
#include "formats/gguf.h"
#include "formats/quant.h"

static int fd = -1;
static char path[64];
static volatile unsigned sink;   /* reads that the compiler must keep */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz.gguf", 0);
	if (fd < 0) {
		perror("fuzz_gguf: memfd_create");
		abort();
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return 0;
}

static void getters(const struct gguf_file *f)
{
	struct err e;
	for (size_t i = 0; i < f->nkv; i++) {
		const char *k = f->kv[i].key;
		uint32_t u;
		int32_t s;
		uint64_t w, n;
		float x, *fv = NULL;
		int b;
		char buf[64];
		struct gguf_str str, *sv = NULL;
		int32_t *iv = NULL;
		if (gguf_find(f, k) != &f->kv[i])
			abort();
		gguf_get_u32(f, k, &u, &e);
		gguf_get_i32(f, k, &s, &e);
		gguf_get_u64(f, k, &w, &e);
		gguf_get_f32(f, k, &x, &e);
		gguf_get_bool(f, k, &b, &e);
		gguf_get_str(f, k, &str, &e);
		gguf_get_cstr(f, k, buf, sizeof buf, &e);
		if (gguf_get_strs(f, k, &sv, &n, &e) == 1)
			for (uint64_t j = 0; j < n; j++)   /* inside the mapping */
				if (sv[j].len)
					sink += (unsigned char)sv[j].s[sv[j].len - 1];
		if (gguf_get_floats(f, k, &fv, &n, &e) == 1 && n)
			sink += fv[n - 1] != fv[n - 1];
		gguf_get_ints(f, k, &iv, &n, &e);
		free(sv);
		free(fv);
		free(iv);
	}
}

static void tensors(const struct gguf_file *f, const void *data, size_t size)
{
	struct err e;
	const unsigned char *lo = data;
	for (size_t i = 0; i < f->nt; i++) {
		const struct gguf_tensor *t = &f->t[i];
		if (gguf_tensor(f, t->name) != t)
			abort();
		uint64_t off = (uint64_t)(t->data - (const unsigned char *)data);
		if (t->data < lo || off > size || t->nbytes > size - off)
			abort();
		if (!quant_can_dequant(t->type) || t->numel > (1u << 22))
			continue;
		float *y = malloc(t->numel * sizeof *y + 1);
		if (y && quant_dequant(t->type, t->data, y, t->numel, &e))
			abort();   /* an accepted tensor of a convertible type converts */
		free(y);
	}
}

static void mapped(const struct gguf_file *f)
{
	struct gguf_config c;
	struct gguf_tokenizer tk;
	struct err e;
	if (!gguf_map_tokenizer(f, &tk, &e)) {
		for (uint32_t i = 0; i < tk.n; i++)
			if (!tk.tokens[i])
				abort();
	}
	gguf_tokenizer_free(&tk);
	if (gguf_map_config(f, &c, &e))
		return;
	for (size_t i = 0; i < f->nt; i++) {
		struct gguf_hf_tensor h;
		if (f->t[i].numel > (1u << 22))
			continue;
		if (!gguf_map_tensor(f, &c, &f->t[i], &h, &e))
			gguf_hf_tensor_free(&h);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_file f, g;
	struct err e, e2;
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	int r1 = gguf_open(&f, path, &e);
	int r2 = gguf_open_buffer(&g, data, size, path, &e2);
	if (r1 != r2 || (r1 && strcmp(e.msg, e2.msg))) {
		fprintf(stderr, "gguf_open and gguf_open_buffer differ: %s | %s\n",
			r1 ? e.msg : "ok", r2 ? e2.msg : "ok");
		abort();
	}
	if (!r2) {
		getters(&g);
		tensors(&g, data, size);
		mapped(&g);
		gguf_close(&g);
		gguf_close(&f);
	}
	return 0;
}
