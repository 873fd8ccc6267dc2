/* dump.c - trace -> safetensors. */
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

int dump_write(const struct trace *t, const struct model *m, const char *path,
	       struct err *e)
{
	struct st_writer *w = st_writer_new();
	char *src = join(t->src_tokens, t->S), *tgt = join(t->tgt_tokens, t->T);
	char *lab = t->label_tokens ? join(t->label_tokens, t->T) : NULL;
	char *srcj = json_list(t->src_tokens, t->S), *tgtj = json_list(t->tgt_tokens, t->T);
	char *dts = dtypes_json(t, m);
	char num[32];
	int rc = -1;
	if (!w || !src || !tgt || (t->label_tokens && !lab) || !srcj || !tgtj || !dts) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int i = 0; i < t->n; i++) {
		const struct stage *s = &t->stages[i];
		uint64_t shape[TRACE_MAXDIM];
		for (int k = 0; k < s->ndim; k++)
			shape[k] = (uint64_t)s->shape[k];
		if (st_writer_add(w, s->name, s->dtype == DT_I32 ? ST_I32 : ST_F32,
				  s->ndim, shape, s->data)) {
			err_set(e, "out of memory");
			goto out;
		}
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
	rc = st_writer_write(w, path, e);
out:
	st_writer_free(w);
	free(src);
	free(tgt);
	free(lab);
	free(srcj);
	free(tgtj);
	free(dts);
	return rc;
}
