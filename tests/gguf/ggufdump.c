/* ggufdump.c - test helper: a GGUF file's tensors as attnscope reads them.
 *
 *   ggufdump FILE.gguf RAW.safetensors [HF.safetensors]
 *
 * RAW gets every convertible tensor dequantised to F32 under its GGUF name
 * (shape: ne reversed), HF the tensors of gguf_map_tensor under their
 * Hugging Face names; stdout the config and tokenizer of gguf_map as
 * key=value lines (with HF given).  tests/gguf/check.py compares them with
 * its own dequantiser.  Exits 1 with the one-line error on a bad file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gguf_map.h"
#include "formats/gguf.h"
#include "formats/quant.h"
#include "formats/safetensors.h"

static int dump_raw(const struct gguf_file *f, const char *out, struct err *e)
{
	struct st_writer *w = st_writer_new();
	float **keep = calloc(f->nt + 1, sizeof *keep);
	int r = w && keep ? 0 : err_set(e, "out of memory");
	for (size_t i = 0; !r && i < f->nt; i++) {
		const struct gguf_tensor *t = &f->t[i];
		uint64_t shape[GGUF_MAX_DIMS];
		if (!quant_can_dequant(t->type))
			continue;
		if (!(keep[i] = malloc(t->numel * sizeof(float) + 1)))
			r = err_set(e, "out of memory");
		else if (quant_dequant(t->type, t->data, keep[i], t->numel, e))
			r = -1;
		for (int d = 0; d < t->ndim; d++)
			shape[d] = t->ne[t->ndim - 1 - d];
		if (!r && st_writer_add(w, t->name, ST_F32, t->ndim, shape, keep[i]))
			r = err_set(e, "%s: cannot add", t->name);
	}
	if (!r)
		r = st_writer_write(w, out, e);
	st_writer_free(w);
	for (size_t i = 0; keep && i < f->nt; i++)
		free(keep[i]);
	free(keep);
	return r;
}

static int dump_hf(const struct gguf_file *f, const struct gguf_config *c, const char *out,
		   struct err *e)
{
	struct st_writer *w = st_writer_new();
	struct gguf_hf_tensor *h = calloc(f->nt + 1, sizeof *h);
	int r = w && h ? 0 : err_set(e, "out of memory");
	for (size_t i = 0; !r && i < f->nt; i++) {
		if (gguf_map_tensor(f, c, &f->t[i], &h[i], e))
			r = -1;
		else if (*h[i].name && st_writer_add(w, h[i].name, ST_F32, h[i].ndim, h[i].shape,
						     h[i].data))
			r = err_set(e, "%s: cannot add", h[i].name);
	}
	if (!r)
		r = st_writer_write(w, out, e);
	st_writer_free(w);
	for (size_t i = 0; h && i < f->nt; i++)
		gguf_hf_tensor_free(&h[i]);
	free(h);
	return r;
}

static void print_config(const struct gguf_config *c)
{
	printf("arch=%s\nname=%s\nfile_type=%" PRIu32 "\ncontext_length=%" PRIu32 "\n",
	       c->arch_name, c->name, c->file_type, c->context_length);
	printf("embedding_length=%" PRIu32 "\nblock_count=%" PRIu32 "\nfeed_forward_length=%"
	       PRIu32 "\n", c->embedding_length, c->block_count, c->feed_forward_length);
	printf("head_count=%" PRIu32 "\nhead_count_kv=%" PRIu32 "\nhead_dim=%" PRIu32
	       "\nrope_dim=%" PRIu32 "\n", c->head_count, c->head_count_kv, c->head_dim,
	       c->rope_dim);
	printf("rope_freq_base=%.9g\nrope_scaling=%d\nrope_scaling_name=%s\n"
	       "rope_scaling_factor=%.9g\nrope_scaling_orig_ctx=%" PRIu32 "\nhas_rope_freqs=%d\n",
	       (double)c->rope_freq_base, (int)c->rope_scaling, c->rope_scaling_name,
	       (double)c->rope_scaling_factor, c->rope_scaling_orig_ctx, c->has_rope_freqs);
	printf("rms_eps=%.9g\nsliding_window=%" PRIu32 "\nvocab_size=%" PRIu32
	       "\ntied=%d\nattn_bias=%d\nqk_norm=%d\n", (double)c->rms_eps, c->sliding_window,
	       c->vocab_size, c->tied, c->attn_bias, c->qk_norm);
}

static void print_tokenizer(const struct gguf_tokenizer *t)
{
	printf("tok_model=%d\ntok_model_name=%s\ntok_pre=%s\ntok_n=%" PRIu32 "\n", (int)t->model,
	       t->model_name, t->pre, t->n);
	printf("tok_bos=%d\ntok_eos=%d\ntok_unk=%d\ntok_pad=%d\n", t->bos, t->eos, t->unk, t->pad);
	printf("tok_add_bos=%d\ntok_add_eos=%d\ntok_add_space_prefix=%d\ntok_nmerges=%" PRIu32
	       "\n", t->add_bos, t->add_eos, t->add_space_prefix, t->nmerges);
	/* the strings hex-encoded, one line each */
	for (uint32_t i = 0; i < t->n; i++) {
		printf("tok=");
		for (const char *p = t->tokens[i]; *p; p++)
			printf("%02x", (unsigned char)*p);
		printf(" %.9g %d\n", t->scores ? (double)t->scores[i] : 0.0,
		       t->token_type ? t->token_type[i] : 0);
	}
	for (uint32_t i = 0; i < t->nmerges; i++) {
		printf("merge=");
		for (const char *p = t->merges[i]; *p; p++)
			printf("%02x", (unsigned char)*p);
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	struct gguf_file f;
	struct gguf_config c;
	struct gguf_tokenizer t;
	struct err e;
	if (argc == 1) {   /* run by make check as a test program: a helper */
		printf("1..0 # SKIP ggufdump is driven by tests/gguf.test\n");
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: ggufdump FILE.gguf RAW.safetensors [HF.safetensors]\n");
		return 2;
	}
	if (gguf_open(&f, argv[1], &e) || dump_raw(&f, argv[2], &e)) {
		fprintf(stderr, "%s\n", e.msg);
		gguf_close(&f);
		return 1;
	}
	int r = 0;
	if (argc > 3) {
		if (gguf_map_config(&f, &c, &e) || gguf_map_tokenizer(&f, &t, &e) ||
		    dump_hf(&f, &c, argv[3], &e)) {
			fprintf(stderr, "%s\n", e.msg);
			r = 1;
		} else {
			print_config(&c);
			print_tokenizer(&t);
		}
		gguf_tokenizer_free(&t);
	}
	gguf_close(&f);
	return r;
}
