/* fuzz_model.c - libFuzzer target: a model YAML file, loaded end to end.
 *
 * The input is the text of NAME.yaml.  It is loaded with model_load_buffer
 * as if it sat in a private temporary directory that holds the shipped
 * vocabularies (base.vocab.txt) and small files the seeds name (v.txt, a
 * vocabulary; w.safetensors, the weights of a 1-layer encoder-only model
 * with d_model 2), so that mutations reach the vocabulary and weights
 * code, not just "file not found".  A model that loads and is small enough
 * then runs one traced forward pass on its first example (or "a b"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/forward.h"
#include "engine/input.h"
#include "engine/model.h"
#include "formats/safetensors.h"

static char dir[64], yaml[128];

static void put_file(const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *fp = fopen(p, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		fprintf(stderr, "fuzz_model: cannot write %s\n", p);
		abort();
	}
}

static void copy_file(const char *from, const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *in = fopen(from, "rb"), *out = fopen(p, "wb");
	if (!in || !out) {
		fprintf(stderr, "fuzz_model: cannot copy %s to %s\n", from, p);
		abort();
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
}

/* The weights of: encoder-only, d_model 2, heads 1, 1 layer, d_ff 2,
 * vocabulary v.txt (7 tokens), post norm (tests/bad_input.test's model). */
static void put_weights(void)
{
	static const struct { const char *name; int ndim; uint64_t shape[2]; } T[] = {
		{ "src_embed.weight", 2, { 7, 2 } },
		{ "encoder.layers.0.self_attn.in_proj_weight", 2, { 6, 2 } },
		{ "encoder.layers.0.self_attn.in_proj_bias", 1, { 6 } },
		{ "encoder.layers.0.self_attn.out_proj.weight", 2, { 2, 2 } },
		{ "encoder.layers.0.self_attn.out_proj.bias", 1, { 2 } },
		{ "encoder.layers.0.linear1.weight", 2, { 2, 2 } },
		{ "encoder.layers.0.linear1.bias", 1, { 2 } },
		{ "encoder.layers.0.linear2.weight", 2, { 2, 2 } },
		{ "encoder.layers.0.linear2.bias", 1, { 2 } },
		{ "encoder.layers.0.norm1.weight", 1, { 2 } },
		{ "encoder.layers.0.norm1.bias", 1, { 2 } },
		{ "encoder.layers.0.norm2.weight", 1, { 2 } },
		{ "encoder.layers.0.norm2.bias", 1, { 2 } },
	};
	static float data[64];
	for (int i = 0; i < 64; i++)
		data[i] = (float)((i * 7) % 5) / 4.0f - 0.5f;
	struct st_writer *w = st_writer_new();
	struct err e;
	char p[256];
	for (size_t i = 0; i < sizeof T / sizeof *T; i++)
		st_writer_add(w, T[i].name, ST_F32, T[i].ndim, T[i].shape, data);
	snprintf(p, sizeof p, "%s/w.safetensors", dir);
	if (st_writer_write(w, p, &e)) {
		fprintf(stderr, "fuzz_model: %s\n", e.msg);
		abort();
	}
	st_writer_free(w);
}

static void cleanup(void)
{
	static const char *const files[] = { "base.vocab.txt", "v.txt", "w.safetensors" };
	char p[256];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/attnscope-fuzz.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("fuzz_model: mkdtemp");
		abort();
	}
	atexit(cleanup);
	snprintf(yaml, sizeof yaml, "%s/model.yaml", dir);
	copy_file(ATTNSCOPE_SRCDIR "/models/base.vocab.txt", "base.vocab.txt");
	put_file("v.txt", "<pad>\n<s>\n</s>\n<unk>\na\nb\nc\n");
	put_weights();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	struct model *m = model_load_buffer(yaml, data, size, &e);
	if (!m)
		return 0;
	const struct config *c = &m->cfg;
	/* a pass costs about params x tokens: keep each input fast */
	if (model_params(m, "") <= 100000 && c->d_ff <= 4096 && c->max_len <= 256) {
		struct pass_opts o;
		struct pass_input in;
		pass_opts_default(&o);
		const char *s = c->nexamples ? c->examples[0] : "a b";
		if (input_build(m, s, NULL, &o, &in, &e) == 0) {
			struct trace *t = forward_run(m, &in, &o, NULL, &e);
			trace_free(t);
			input_free(&in);
		}
	}
	model_free(m);
	return 0;
}
