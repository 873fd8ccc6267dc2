/* fuzz_safetensors.c - libFuzzer target: the safetensors reader.
 *
 * The input is a whole .safetensors file.  It is written to a memfd and
 * opened through /proc/self/fd/N, so st_open runs exactly as on a disk
 * file (fstat, mmap, header checks).  Every tensor that opens is converted
 * to F32 (the dtypes that convert), and a file of writable dtypes is
 * written back with st_writer and read again: names, dtypes, shapes, bytes
 * and metadata must come back unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/safetensors.h"

static int fd = -1;
static char path[64], dir[64], out[128];

static void cleanup(void)
{
	unlink(out);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz.safetensors", 0);
	if (fd < 0) {
		perror("fuzz_safetensors: memfd_create");
		abort();
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	snprintf(dir, sizeof dir, "%s/attnscope-fuzz.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_safetensors: mkdtemp");
		abort();
	}
	snprintf(out, sizeof out, "%s/out.safetensors", dir);
	atexit(cleanup);
	return 0;
}

static int same_tensor(const struct st_tensor *a, const struct st_tensor *b)
{
	return !strcmp(a->name, b->name) && a->dtype == b->dtype && a->ndim == b->ndim &&
	       !memcmp(a->shape, b->shape, sizeof a->shape) && a->nbytes == b->nbytes &&
	       (!a->nbytes || !memcmp(a->bytes, b->bytes, (size_t)a->nbytes));
}

static void round_trip(const struct st_file *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->t[i].dtype == ST_OTHER)
			return;
	struct st_writer *w = st_writer_new();
	struct err e;
	int ok = w != NULL;
	for (int i = 0; ok && i < f->n; i++) {
		const struct st_tensor *t = &f->t[i];
		ok = !st_writer_add(w, t->name, t->dtype, t->ndim, t->shape, t->bytes);
	}
	for (int i = 0; ok && i < f->nmeta; i++)
		ok = !st_writer_meta(w, f->meta_keys[i], f->meta_vals[i]);
	/* a name or value that is not valid UTF-8 is refused by the writer */
	if (ok && !st_writer_write(w, out, &e)) {
		struct st_file g;
		if (st_open(&g, out, &e)) {
			fprintf(stderr, "round trip: cannot read back: %s\n", e.msg);
			abort();
		}
		if (g.n != f->n || g.nmeta != f->nmeta) {
			fprintf(stderr, "round trip: %d tensors %d metadata, wrote %d %d\n",
				g.n, g.nmeta, f->n, f->nmeta);
			abort();
		}
		for (int i = 0; i < f->n; i++)
			if (!same_tensor(&f->t[i], &g.t[i])) {
				fprintf(stderr, "round trip: tensor %d differs\n", i);
				abort();
			}
		for (int i = 0; i < f->nmeta; i++)
			if (strcmp(f->meta_keys[i], g.meta_keys[i]) ||
			    strcmp(f->meta_vals[i], g.meta_vals[i])) {
				fprintf(stderr, "round trip: metadata %d differs\n", i);
				abort();
			}
		st_close(&g);
	}
	st_writer_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_file f;
	struct err e;
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (st_open(&f, path, &e))
		return 0;
	for (int i = 0; i < f.n; i++) {
		const struct st_tensor *t = &f.t[i];
		if (st_find(&f, t->name) == NULL)
			abort();
		/* st_open accepted it: a float tensor, or an I8 one with its
		   scales, must convert; an I8 one without them must not */
		int floaty = t->dtype == ST_F32 || t->dtype == ST_F16 ||
			     t->dtype == ST_BF16 || t->dtype == ST_F64;
		if (floaty || t->dtype == ST_I8) {
			float *p = malloc((size_t)t->numel * sizeof *p + 1);
			if (p && (st_to_f32(t, p, &e) != 0) != (!floaty && !t->scale))
				abort();
			free(p);
		}
	}
	st_meta(&f, "format");
	round_trip(&f);
	st_close(&f);
	return 0;
}
