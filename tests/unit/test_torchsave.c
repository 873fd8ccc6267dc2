/* test_torchsave.c - the torch.save reader against PyTorch's own files.
 *
 * tests/torchsave/make.py (run with $PYTHON3, Debian's python3-torch)
 * writes real torch.save files into a fresh directory: every tensor read
 * from odd.pt (every dtype; tied, transposed, sliced, 0-d, empty tensors;
 * nn.Parameters) must equal torch's own .float() values in
 * odd.ref.safetensors exactly, in the dtype torch saved; sd.pt and the
 * checkpoint dicts must hold exactly sd.safetensors' tensors; meta.pkl
 * must give nanoGPT's itos; and every file in bad/ must fail with a
 * one-line message naming the file and containing the words bad/expect.txt
 * gives, leaving bad/EXECUTED (what the hostile pickles would create in
 * Python) absent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/metapkl.h"
#include "formats/tensorfile.h"
#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "../tmpfiles.h"

static float *as_f32(const struct st_tensor *t)
{
	float *p = malloc((size_t)t->numel * sizeof *p + 4);
	struct err e;
	if (!p)
		return NULL;
	if (t->dtype == ST_I64 || t->dtype == ST_I32) {
		for (uint64_t i = 0; i < t->numel; i++) {
			int64_t v = 0;
			memcpy(&v, t->bytes + i * (t->dtype == ST_I64 ? 8 : 4),
			       t->dtype == ST_I64 ? 8 : 4);
			if (t->dtype == ST_I32)
				v = (int32_t)v;
			p[i] = (float)v;
		}
	} else if (!strcmp(t->dtype_str, "BOOL")) {
		for (uint64_t i = 0; i < t->numel; i++)
			p[i] = t->bytes[i];
	} else if (st_to_f32(t, p, &e)) {
		printf("# %s\n", e.msg);
		free(p);
		return NULL;
	}
	return p;
}

static int same_shape(const struct st_tensor *a, const struct st_tensor *b)
{
	if (a->ndim != b->ndim || a->numel != b->numel)
		return 0;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

/* Every tensor of ref is in f with the same shape and values, and f has
 * no others. */
static void compare(const char *what, const struct st_file *f, const struct st_file *ref)
{
	int bad = 0;
	tap_ok(f->n == ref->n, "%s: %d tensors (want %d)", what, f->n, ref->n);
	for (int i = 0; i < ref->n; i++) {
		const struct st_tensor *r = &ref->t[i], *t = st_find(f, r->name);
		if (!t || !same_shape(t, r)) {
			printf("# %s: tensor %s %s\n", what, r->name, t ? "has another shape" : "missing");
			bad++;
			continue;
		}
		float *a = as_f32(t), *b = as_f32(r);
		int ok = a && b && (!t->numel || !memcmp(a, b, (size_t)t->numel * sizeof *a));
		if (!ok) {
			printf("# %s: tensor %s differs\n", what, r->name);
			bad++;
		}
		free(a);
		free(b);
	}
	tap_ok(!bad, "%s: every tensor equals torch's (%d differ)", what, bad);
}

static void open_ok(struct st_file *f, const char *name, const char *key)
{
	struct err e;
	if (tensorfile_open(f, tpath(name), key, &e)) {
		printf("Bail out! %s\n", e.msg);
		exit(1);
	}
}

static void check_odd(void)
{
	struct st_file f, ref;
	open_ok(&f, "odd.pt", NULL);
	open_ok(&ref, "odd.ref.safetensors", NULL);
	compare("odd.pt", &f, &ref);
	/* dtypes as torch saved them */
	FILE *fp = fopen(tpath("odd.dtypes"), "r");
	char name[64], dt[16];
	int bad = 0, n = 0;
	while (fp && fscanf(fp, "%63s %15s", name, dt) == 2) {
		const struct st_tensor *t = st_find(&f, name);
		n++;
		if (!t || strcmp(t->dtype_str, dt)) {
			printf("# %s: dtype %s, torch saved %s\n", name, t ? t->dtype_str : "-", dt);
			bad++;
		}
	}
	if (fp)
		fclose(fp);
	tap_ok(n > 10 && !bad, "odd.pt: the dtypes torch saved (%d tensors, %d differ)", n, bad);
	/* tied weights share bytes in place; strided ones are copies */
	const struct st_tensor *a = st_find(&f, "tied.a"), *b = st_find(&f, "tied.b"),
				*tr = st_find(&f, "transposed"), *row = st_find(&f, "row");
	tap_ok(a && b && a->bytes == b->bytes && !a->owned, "tied weights: one storage, in place");
	tap_ok(tr && tr->owned && st_is_f32_inplace(a) && !st_is_f32_inplace(tr),
	       "a transposed tensor is a row-major copy, never used in place");
	tap_ok(row && a && row->bytes == a->bytes + 2 * 6 * 4 && !row->owned,
	       "a row of the same storage: in place at its offset");
	st_close(&f);
	st_close(&ref);
}

static void check_checkpoints(void)
{
	struct st_file sd, ref, f;
	struct err e;
	open_ok(&ref, "sd.safetensors", NULL);
	open_ok(&sd, "sd.pt", NULL);
	compare("sd.pt (a state_dict)", &sd, &ref);
	tap_str(st_meta(&sd, "torch:state_dict"), "", "sd.pt: the top-level dict");
	st_close(&sd);

	open_ok(&f, "ckpt.pt", NULL);
	compare("ckpt.pt (default: entry model)", &f, &ref);
	tap_str(st_meta(&f, "torch:state_dict"), "model", "ckpt.pt: found under \"model\"");
	tap_str(st_meta(&f, "torch:entry:iter_num"), "int 5", "ckpt.pt: iter_num listed");
	tap_str(st_meta(&f, "torch:entry:best_val_loss"), "tensor F32 []",
		"ckpt.pt: a tensor outside the state_dict listed");
	tap_ok(st_meta(&f, "torch:entry:optimizer") != NULL, "ckpt.pt: optimizer listed");
	st_close(&f);
	open_ok(&f, "ckpt.pt", "model");
	compare("ckpt.pt (weights_key model)", &f, &ref);
	st_close(&f);
	int rc = tensorfile_open(&f, tpath("ckpt.pt"), "optimizer", &e);
	tap_ok(rc && strstr(e.msg, "optimizer") && strstr(e.msg, "ckpt.pt"),
	       "weights_key optimizer: no tensors there (%s)", rc ? e.msg : "loaded");
	rc = tensorfile_open(&f, tpath("ckpt.pt"), "modle", &e);
	tap_ok(rc && strstr(e.msg, "modle") && strstr(e.msg, "iter_num"),
	       "weights_key modle: an error listing the entries (%s)", rc ? e.msg : "loaded");
	rc = tensorfile_open(&f, tpath("sd.safetensors"), "model", &e);
	tap_ok(rc && strstr(e.msg, "weights_key"), "weights_key on a safetensors file: an error");
	open_ok(&f, "sd_state.pt", NULL);
	compare("sd_state.pt (default: entry state_dict)", &f, &ref);
	st_close(&f);
	open_ok(&f, "zip64.pt", NULL);
	compare("zip64.pt (ZIP64 records, unaligned data)", &f, &ref);
	st_close(&f);
	open_ok(&f, "namespace.pt", NULL);
	tap_ok(f.n == 1 && st_find(&f, "w") &&
	       !strcmp(st_meta(&f, "torch:entry:args") ? st_meta(&f, "torch:entry:args") : "",
		       "object argparse.Namespace"),
	       "namespace.pt: an argparse.Namespace beside the state_dict is skipped");
	st_close(&f);
	st_close(&ref);
}

static void check_meta(void)
{
	char **t = NULL, line[64];
	int n = 0, bad = 0, k = 0;
	struct err e;
	if (metapkl_load(tpath("meta.pkl"), &t, &n, &e)) {
		tap_ok(0, "meta.pkl: %s", e.msg);
		return;
	}
	FILE *fp = fopen(tpath("meta.txt"), "r");
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = 0;
		/* meta.txt escapes \n, \t and backslash */
		char u[64];
		size_t j = 0;
		for (size_t i = 0; line[i]; i++)
			u[j++] = line[i] != '\\' ? line[i] : line[++i] == 'n' ? '\n' :
				 line[i] == 't' ? '\t' : line[i];
		u[j] = 0;
		bad += k >= n || strcmp(t[k], u);
		k++;
	}
	if (fp)
		fclose(fp);
	tap_ok(k == n && !bad && n > 20, "meta.pkl: itos as pickle wrote it (%d tokens, %d differ)",
	       n, bad);
	for (int i = 0; i < n; i++)
		free(t[i]);
	free(t);
	int rc = metapkl_load(tpath("odd.dtypes"), &t, &n, &e);
	tap_ok(rc == -1 && strstr(e.msg, "odd.dtypes"), "a text file is no meta.pkl (%s)", e.msg);
}

static void check_bad(void)
{
	FILE *fp = fopen(tpath("bad/expect.txt"), "r");
	char line[256], file[128];
	int n = 0;
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = 0;
		char *words = strchr(line, '\t');
		if (!words)
			continue;
		*words++ = 0;
		snprintf(file, sizeof file, "bad/%s.pt", line);
		struct st_file f;
		struct err e;
		int rc = tensorfile_open(&f, tpath(file), NULL, &e);
		tap_ok(rc == -1 && strstr(e.msg, file) && strstr(e.msg, words) &&
		       !strchr(e.msg, '\n'), "%s: one line naming it and \"%s\" (%s)", file, words,
		       rc ? e.msg : "loaded");
		if (!rc)
			st_close(&f);
		n++;
	}
	if (fp)
		fclose(fp);
	tap_ok(n >= 30, "%d hostile files", n);
	tap_ok(access(tpath("bad/EXECUTED"), F_OK) != 0, "nothing executed");
}

int main(void)
{
	const char *py = getenv("PYTHON3"), *src = getenv("top_srcdir");
	char cmd[1024];
	snprintf(tmpdir, sizeof tmpdir, "/tmp/attnscope-ts.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(cmd, sizeof cmd, "'%s' '%s/tests/torchsave/make.py' '%s'",
		 py && *py ? py : "/usr/bin/python3", src ? src : ".", tmpdir);
	if (system(cmd)) {
		printf("Bail out! %s failed (Debian python3-torch is needed)\n", cmd);
		return 1;
	}
	check_odd();
	check_checkpoints();
	check_meta();
	check_bad();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
