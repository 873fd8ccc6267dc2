/* dump.c - trace -> safetensors. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dump.h"
#include "stage_weight.h"
#include "formats/safetensors.h"

/* Space-separated tokens (malloc'd): as they are, except that a space
 * inside a token is written \s and a backslash \\, so that splitting at
 * spaces gives the tokens back (the char tokenizer has a " " token: "<s> a
 * b </s>" was "<s> a   b </s>").  Word tokens never hold either. */
static char *join(char *const *toks, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += 2 * strlen(toks[i]) + 1;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		for (const char *c = toks[i]; *c; c++)
			if (*c == ' ' || *c == '\\') {
				*p++ = '\\';
				*p++ = *c == ' ' ? 's' : '\\';
			} else {
				*p++ = *c;
			}
	}
	*p = 0;
	return s;
}

/* The tokens as a JSON list of their strings (malloc'd): the unambiguous
 * form (src.tokens.json, tgt.tokens.json).  Tokens are valid UTF-8. */
static char *json_list(char *const *toks, int n)
{
	size_t len = 3;
	for (int i = 0; i < n; i++)
		len += 6 * strlen(toks[i]) + 3;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p++ = '[';
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const unsigned char *c = (const unsigned char *)toks[i]; *c; c++)
			if (*c == '"' || *c == '\\') {
				*p++ = '\\';
				*p++ = (char)*c;
			} else if (*c < 0x20 || *c == 0x7f) {
				p += sprintf(p, "\\u%04x", *c);
			} else {
				*p++ = (char)*c;
			}
		*p++ = '"';
	}
	*p++ = ']';
	*p = 0;
	return s;
}

/* {"stage": "dtype", ...}: the file dtype of the weight each stage uses
 * (stage_weight.h), for the stages that use one; malloc'd. */
static char *dtypes_json(const struct trace *t, const struct model *m)
{
	size_t cap = 3, l = 1;
	char dt[24];
	for (int i = 0; i < t->n; i++)
		cap += strlen(t->stages[i].name) + sizeof dt + 8;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '{';
	for (int i = 0; i < t->n; i++)
		if (*stage_weight_dtype(m, t->stages[i].name, dt, sizeof dt))
			l += (size_t)snprintf(s + l, cap - l, "%s\"%s\": \"%s\"", l > 1 ? ", " : "",
					      t->stages[i].name, dt);
	snprintf(s + l, cap - l, "}");
	return s;
}

/* Whether name matches one of the comma-separated globs; *used marks
 * which did (bit k: glob k, the first 64). */
static int glob_match(const char *globs, const char *name, uint64_t *used)
{
	int hit = 0, k = 0;
	for (const char *p = globs; ; k++) {
		const char *q = strchr(p, ',');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		char g[256];
		if (n < sizeof g) {
			memcpy(g, p, n);
			g[n] = 0;
			if (*g && fnmatch(g, name, 0) == 0) {
				hit = 1;
				*used |= k < 64 ? (uint64_t)1 << k : 0;
			}
		}
		if (!q)
			return hit;
		p = q + 1;
	}
}

/* The first glob of globs that no stage matched, into buf; 0 when all did
 * (or -1 for an empty or over-long one). */
static int glob_unused(const char *globs, uint64_t used, char *buf, size_t bufsz)
{
	int k = 0;
	for (const char *p = globs; ; k++) {
		const char *q = strchr(p, ',');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		if (!n || n >= 256 || (k < 64 && !(used >> k & 1))) {
			snprintf(buf, bufsz, "%.*s", (int)(n < 200 ? n : 200), p);
			return n && n < 256 ? 1 : -1;
		}
		if (!q)
			return 0;
		p = q + 1;
	}
}

/* st_writer_write_with's get: the k-th written stage's data, computed when
 * the file reaches it (a lazy trace materialises a layer at a time). */
struct dump_src {
	const struct trace *t;
	const int *idx;
};

static const void *dump_get(void *ctx, int k)
{
	const struct dump_src *d = ctx;
	return stage_data(&d->t->stages[d->idx[k]]);
}

int dump_write(const struct trace *t, const struct model *m, const char *path,
	       const char *stages, struct err *e)
{
	struct st_writer *w = st_writer_new();
	char *src = join(t->src_tokens, t->S), *tgt = join(t->tgt_tokens, t->T);
	char *lab = t->label_tokens ? join(t->label_tokens, t->T) : NULL;
	char *srcj = json_list(t->src_tokens, t->S), *tgtj = json_list(t->tgt_tokens, t->T);
	char *dts = dtypes_json(t, m);
	int *idx = malloc((size_t)(t->n ? t->n : 1) * sizeof *idx), nidx = 0;
	char num[32];
	int rc = -1;
	uint64_t used = 0;
	if (!w || !src || !tgt || (t->label_tokens && !lab) || !srcj || !tgtj || !idx || !dts) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int i = 0; i < t->n; i++) {
		const struct stage *s = &t->stages[i];
		if (stages && !glob_match(stages, s->name, &used))
			continue;
		uint64_t shape[TRACE_MAXDIM];
		for (int k = 0; k < s->ndim; k++)
			shape[k] = (uint64_t)s->shape[k];
		idx[nidx++] = i;
		if (st_writer_add_later(w, s->name, s->dtype == DT_I32 ? ST_I32 : ST_F32,
					s->ndim, shape)) {
			err_set(e, "out of memory");
			goto out;
		}
	}
	char bad_glob[256];
	int ug = stages ? glob_unused(stages, used, bad_glob, sizeof bad_glob) : 0;
	if (ug < 0) {
		err_set(e, "--stages \"%s\": an empty or over-long glob in \"%s\"", bad_glob, stages);
		goto out;
	}
	if (ug > 0) {
		err_set(e, "--stages: no stage matches \"%s\" (attnscope render --stage list "
			"lists them)", bad_glob);
		goto out;
	}
	const struct pass_opts *o = &t->opts;
	int bad = 0;
	bad |= st_writer_meta(w, "format", "attnscope-trace");
	bad |= st_writer_meta(w, "attnscope.version", PACKAGE_VERSION);
	bad |= st_writer_meta(w, "model", m->cfg.name);
	bad |= st_writer_meta(w, "src.tokens", src);
	bad |= st_writer_meta(w, "tgt.tokens", tgt);
	bad |= st_writer_meta(w, "src.tokens.json", srcj);
	bad |= st_writer_meta(w, "tgt.tokens.json", tgtj);
	if (lab)
		bad |= st_writer_meta(w, "labels", lab);
	bad |= st_writer_meta(w, "causal", o->causal ? "true" : "false");
	bad |= st_writer_meta(w, "encoder_causal", o->encoder_causal ? "true" : "false");
	snprintf(num, sizeof num, "%d", o->pad_to);
	bad |= st_writer_meta(w, "pad_to", num);
	snprintf(num, sizeof num, "%d", o->pad_target);
	bad |= st_writer_meta(w, "pad_target", num);
	/* what quantisation did: the weights' dtypes in the file, each stage's */
	if (m->cfg.wdtype[0])
		bad |= st_writer_meta(w, "weights.dtype", m->cfg.wdtype);
	bad |= st_writer_meta(w, "weights.dtypes.json", dts);
	if (bad) {
		err_set(e, "out of memory");
		goto out;
	}
	struct dump_src ds = { t, idx };
	rc = st_writer_write_with(w, path, dump_get, &ds, e);
out:
	free(idx);
	st_writer_free(w);
	free(src);
	free(tgt);
	free(lab);
	free(srcj);
	free(tgtj);
	free(dts);
	return rc;
}
