/* gguf_tok.c - the tokenizer.ggml.* keys of a GGUF file in a plain struct
 * (gguf_map.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_map.h"
#include "base/i18n.h"

/* Copies the n strings s[] into one blob, out[i] pointing into it. */
static int copy_strs(const struct gguf_file *f, const char *key, const struct gguf_str *s,
		     uint64_t n, char ***out, char **blob, struct err *e)
{
	uint64_t total = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (memchr(s[i].s, 0, (size_t)s[i].len))
			return err_set(e, _("%s: %s: entry %" PRIu64 " holds a NUL byte"), f->path,
				       key, i);
		total += s[i].len + 1;   /* all inside the file: no overflow */
	}
	char *b = malloc((size_t)total + 1);
	char **p = malloc((size_t)(n ? n : 1) * sizeof *p);
	if (!b || !p) {
		free(b);
		free(p);
		return err_set(e, _("%s: out of memory"), f->path);
	}
	char *w = b;
	for (uint64_t i = 0; i < n; i++) {
		memcpy(w, s[i].s, (size_t)s[i].len);
		w[s[i].len] = 0;
		p[i] = w;
		w += s[i].len + 1;
	}
	*out = p;
	*blob = b;
	return 0;
}

static int read_strings(const struct gguf_file *f, const char *key, char ***out,
			uint32_t *count, char **blob, int required, struct err *e)
{
	struct gguf_str *s = NULL;
	uint64_t n = 0;
	int r = gguf_get_strs(f, key, &s, &n, e);
	if (r < 0)
		return -1;
	if (r == 0)
		return required ? err_set(e, _("%s: metadata %s is missing"), f->path, key) : 0;
	if (n > INT32_MAX || (required && n == 0)) {
		free(s);
		return err_set(e, _("%s: metadata %s has %" PRIu64 " entries"), f->path, key, n);
	}
	r = copy_strs(f, key, s, n, out, blob, e);
	free(s);
	*count = (uint32_t)n;
	return r;
}

/* An optional special id: -1 when absent; an id past n is an error. */
static int special(const struct gguf_file *f, const char *key, uint32_t n, int32_t *id,
		   struct err *e)
{
	uint32_t v;
	int r = gguf_get_u32(f, key, &v, e);
	*id = -1;
	if (r < 0)
		return -1;
	if (r == 1) {
		if (v >= n)
			return err_set(e, _("%s: metadata %s is %" PRIu32 ", past the %" PRIu32
					    " tokens"), f->path, key, v, n);
		*id = (int32_t)v;
	}
	return 0;
}

static int flag(const struct gguf_file *f, const char *key, int *v, struct err *e)
{
	*v = -1;
	return gguf_get_bool(f, key, v, e) < 0 ? -1 : 0;
}

static int per_token(const struct gguf_file *f, struct gguf_tokenizer *t, struct err *e)
{
	uint64_t n;
	int r = gguf_get_floats(f, "tokenizer.ggml.scores", &t->scores, &n, e);
	if (r < 0)
		return -1;
	if (r == 1 && n != t->n)
		return err_set(e, _("%s: %" PRIu64 " tokenizer.ggml.scores for %" PRIu32 " tokens"),
			       f->path, n, t->n);
	r = gguf_get_ints(f, "tokenizer.ggml.token_type", &t->token_type, &n, e);
	if (r < 0)
		return -1;
	if (r == 1 && n != t->n)
		return err_set(e, _("%s: %" PRIu64 " tokenizer.ggml.token_type for %" PRIu32
				    " tokens"), f->path, n, t->n);
	return 0;
}

static int map_tokenizer(const struct gguf_file *f, struct gguf_tokenizer *t, struct err *e)
{
	memset(t, 0, sizeof *t);
	t->bos = t->eos = t->unk = t->pad = -1;
	t->add_bos = t->add_eos = t->add_space_prefix = -1;
	int r = gguf_get_cstr(f, "tokenizer.ggml.model", t->model_name, sizeof t->model_name, e);
	if (r < 0)
		return -1;
	if (r == 0)
		return err_set(e, _("%s: metadata tokenizer.ggml.model is missing"), f->path);
	t->model = !strcmp(t->model_name, "llama") ? GGUF_TOK_LLAMA :
		   !strcmp(t->model_name, "gpt2") ? GGUF_TOK_GPT2 : GGUF_TOK_OTHER;
	if (gguf_get_cstr(f, "tokenizer.ggml.pre", t->pre, sizeof t->pre, e) < 0 ||
	    read_strings(f, "tokenizer.ggml.tokens", &t->tokens, &t->n, &t->blob, 1, e) ||
	    per_token(f, t, e) ||
	    read_strings(f, "tokenizer.ggml.merges", &t->merges, &t->nmerges, &t->merge_blob, 0,
			 e))
		return -1;
	if (special(f, "tokenizer.ggml.bos_token_id", t->n, &t->bos, e) ||
	    special(f, "tokenizer.ggml.eos_token_id", t->n, &t->eos, e) ||
	    special(f, "tokenizer.ggml.unknown_token_id", t->n, &t->unk, e) ||
	    special(f, "tokenizer.ggml.padding_token_id", t->n, &t->pad, e) ||
	    flag(f, "tokenizer.ggml.add_bos_token", &t->add_bos, e) ||
	    flag(f, "tokenizer.ggml.add_eos_token", &t->add_eos, e) ||
	    flag(f, "tokenizer.ggml.add_space_prefix", &t->add_space_prefix, e))
		return -1;
	return 0;
}

int gguf_map_tokenizer(const struct gguf_file *f, struct gguf_tokenizer *t, struct err *e)
{
	if (!map_tokenizer(f, t, e))
		return 0;
	gguf_tokenizer_free(t);   /* what was read before the error */
	return -1;
}

void gguf_tokenizer_free(struct gguf_tokenizer *t)
{
	if (!t)
		return;
	free(t->tokens);
	free(t->scores);
	free(t->token_type);
	free(t->merges);
	free(t->blob);
	free(t->merge_blob);
	memset(t, 0, sizeof *t);
}
