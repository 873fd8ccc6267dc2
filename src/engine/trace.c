/* trace.c - the ordered list of stages a forward pass records. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "formats/vocab.h"

/* Stage buffers come from a chunked arena: a pass allocates many buffers
 * and frees them all at once.  trace_reset keeps the chunks, so a pass that
 * reuses a trace touches memory that is already mapped (a fresh 40 MB of
 * pages per pass costs more than the arithmetic on this kind of machine). */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	_Alignas(64) unsigned char data[];
};

struct arena {
	struct arena_chunk *first, *cur;
};

static void *arena_alloc(struct trace *t, size_t n)
{
	struct arena *a = t->arena;
	if (!a && !(a = t->arena = calloc(1, sizeof *a)))
		return NULL;
	n = (n + 63) & ~(size_t)63;
	struct arena_chunk *c = a->cur;
	while (c && c->cap - c->used < n) {
		c = c->next;
		if (c)
			c->used = 0;
	}
	if (!c) {
		size_t cap = n > (4u << 20) ? n : (4u << 20);
		c = aligned_alloc(64, (sizeof *c + cap + 63) & ~(size_t)63);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = NULL;
		if (a->cur) {
			/* keep the unused rest of the list after the new chunk */
			c->next = a->cur->next;
			a->cur->next = c;
		} else {
			c->next = a->first;
			a->first = c;
		}
	}
	a->cur = c;
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free(struct arena *a)
{
	if (!a)
		return;
	struct arena_chunk *c = a->first;
	while (c) {
		struct arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	free(a);
}

void pass_opts_default(struct pass_opts *o)
{
	memset(o, 0, sizeof *o);
	o->causal = 1;
	o->ablate_head = -1;
}

struct trace *trace_new(void)
{
	struct trace *t = calloc(1, sizeof *t);
	if (t)
		pass_opts_default(&t->opts);
	return t;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	trace_reset(t);
	arena_free(t->arena);
	free(t->stages);
	free(t);
}

void trace_reset(struct trace *t)
{
	struct arena *a = t->arena;
	tokens_free(t->src_tokens, t->S);
	tokens_free(t->tgt_tokens, t->T);
	tokens_free(t->label_tokens, t->T);
	tokens_free(t->next_tokens, t->T);
	tokens_free(t->src_typed, t->S);
	tokens_free(t->tgt_typed, t->T);
	free(t->rope_inv);
	t->rope_inv = NULL;
	t->rope_pairs = t->kv_heads = 0;
	t->src_tokens = t->tgt_tokens = t->label_tokens = t->next_tokens = NULL;
	tokens_free(t->dropped, t->ndropped);
	t->src_typed = t->tgt_typed = t->dropped = NULL;
	t->ndropped = 0;
	t->S = t->T = 0;
	t->n = 0;
	if (a && a->first) {
		a->cur = a->first;
		a->first->used = 0;
	}
}

struct stage *trace_add(struct trace *t, enum stage_kind kind, enum block blk,
			int layer, const char *formula, enum dtype dt, int ndim,
			const int *shape, const enum axis *axes,
			const char *fmt, ...)
{
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 64;
		struct stage *s = realloc(t->stages, (size_t)cap * sizeof *s);
		if (!s)
			return NULL;
		t->stages = s;
		t->cap = cap;
	}
	struct stage *s = &t->stages[t->n];
	memset(s, 0, sizeof *s);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->name, sizeof s->name, fmt, ap);
	va_end(ap);
	s->kind = kind;
	s->block = blk;
	s->layer = layer;
	s->formula = formula;
	s->dtype = dt;
	s->ndim = ndim;
	size_t n = 1;
	for (int i = 0; i < ndim; i++) {
		s->shape[i] = shape[i];
		s->axes[i] = axes[i];
		n *= (size_t)shape[i];
	}
	s->data = arena_alloc(t, n * 4);   /* not zeroed: the pass writes all */
	if (!s->data)
		return NULL;
	t->n++;
	return s;
}

int trace_index(const struct trace *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->stages[i].name, name) == 0)
			return i;
	return -1;
}

const struct stage *trace_find(const struct trace *t, const char *name)
{
	int i = trace_index(t, name);
	return i < 0 ? NULL : &t->stages[i];
}

size_t stage_numel(const struct stage *s)
{
	size_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= (size_t)s->shape[i];
	return n;
}

size_t trace_bytes(const struct trace *t)
{
	size_t b = 0;
	for (int i = 0; i < t->n; i++)
		b += stage_numel(&t->stages[i]) * 4;
	return b;
}

const char *trace_axis_label(const struct trace *t, enum axis a, int i,
			     char *buf, size_t bufsz)
{
	const char *s = NULL, *typed = NULL;
	switch (a) {
	case AX_SRC:
		if (i >= 0 && i < t->S) {
			s = t->src_tokens[i];
			typed = t->src_typed ? t->src_typed[i] : NULL;
		}
		break;
	case AX_TGT:
		if (i >= 0 && i < t->T) {
			s = t->tgt_tokens[i];
			typed = t->tgt_typed ? t->tgt_typed[i] : NULL;
		}
		break;
	case AX_VOCAB:
		if (t->vocab)
			s = vocab_str(t->vocab, i);
		break;
	case AX_CLASS:
		if (t->classes && i >= 0 && i < t->nclasses)
			s = t->classes[i];
		break;
	case AX_HEAD:
		snprintf(buf, bufsz, "h%d", i);
		return buf;
	case AX_NONE:
		break;
	}
	char lb[256];
	if (s && t->tok)
		s = tokens_label(t->tok, s, lb, sizeof lb);
	if (s && typed)
		snprintf(buf, bufsz, "%s→%s", typed, s);
	else if (s)
		snprintf(buf, bufsz, "%s", s);
	else
		snprintf(buf, bufsz, "%d", i);
	return buf;
}

const char *trace_row_label(const struct trace *t, enum axis a, int i,
			    char *buf, size_t bufsz)
{
	trace_axis_label(t, a, i, buf, bufsz);
	const char *next = a == AX_TGT && t->next_tokens && i >= 0 && i < t->T ?
			   t->next_tokens[i] : NULL;
	/* a padded position predicts nothing */
	if (next && strcmp(t->tgt_tokens[i], "<pad>") != 0) {
		size_t l = strlen(buf);
		char lb[256];
		snprintf(buf + l, bufsz - l, " → %s", t->tok ? tokens_label(t->tok, next, lb, sizeof lb) :
						       next);
	}
	return buf;
}

int trace_set_next(struct trace *t, int i, const char *tok)
{
	if (i < 0 || i >= t->T)
		return 0;
	if (!t->next_tokens && !(t->next_tokens = calloc((size_t)t->T, sizeof *t->next_tokens)))
		return -1;
	free(t->next_tokens[i]);
	t->next_tokens[i] = NULL;
	if (tok && !(t->next_tokens[i] = strdup(tok)))
		return -1;
	return 0;
}

int trace_has_unknown(const struct trace *t)
{
	for (int i = 0; t->src_typed && i < t->S; i++)
		if (t->src_typed[i])
			return 1;
	for (int i = 0; t->tgt_typed && i < t->T; i++)
		if (t->tgt_typed[i])
			return 1;
	return 0;
}
