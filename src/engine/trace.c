/* trace.c - the ordered list of stages a forward pass records, and the
 * lazy groups of a trace that holds only some of them (trace.h). */
#include <math.h>
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

/* ---- lazy groups ----
 * A group is the stages of one layer, [first, last) in t->stages.  The
 * first pass records them all (their data malloc'd, one buffer a stage, so
 * that a group is freed at once); a group's data is dropped when the pass
 * moves on or when too many groups are held, and computed again by fill
 * when a stage of it is read. */
struct tgroup {
	int first, last;
	int live;              /* its data is held */
	unsigned long tick;    /* last use, for dropping the oldest */
};

#define SPARE_MAX 48

struct lazy {
	trace_fill_fn fill;
	void (*ctx_free)(void *);
	void *ctx;
	struct tgroup *g;
	int ng, gcap;
	int open;              /* the group being recorded, or -1 */
	int filling, next;     /* the group computed again, its next stage */
	struct stage tmp;      /* a held stage computed again (discarded) */
	void **tmpbuf;
	int ntmp, tmpcap;
	unsigned long tick;
	int pin;               /* the group kept for the screen, or -1 */
	long refills;
	/* buffers of dropped groups, for the next group's stages (a layer's
	 * stages have the previous layer's sizes): fresh pages cost a fault
	 * each, a tenth of GPT-2's pass at 1,024 tokens */
	void *spare[SPARE_MAX];
	size_t spare_n[SPARE_MAX];
	int nspare;
};

static void *data_alloc(struct lazy *z, size_t n)
{
	n = ((n ? n : 1) + 63) & ~(size_t)63;
	for (int i = 0; z && i < z->nspare; i++)
		if (z->spare_n[i] == n) {
			void *p = z->spare[i];
			z->spare[i] = z->spare[--z->nspare];
			z->spare_n[i] = z->spare_n[z->nspare];
			return p;
		}
	return aligned_alloc(64, n);
}

/* A dropped stage's buffer of n bytes: kept for reuse, or freed. */
static void data_release(struct lazy *z, void *p, size_t n)
{
	n = ((n ? n : 1) + 63) & ~(size_t)63;
	if (z->nspare < SPARE_MAX) {
		z->spare[z->nspare] = p;
		z->spare_n[z->nspare++] = n;
	} else {
		free(p);
	}
}

static void group_drop(struct trace *t, struct lazy *z, int g)
{
	struct tgroup *G = &z->g[g];
	for (int i = G->first; i < G->last; i++) {
		struct stage *s = &t->stages[i];
		if (s->group == g && s->own) {
			data_release(z, s->data, stage_numel(s) * 4);
			s->data = NULL;
			s->own = 0;
		}
	}
	G->live = 0;
}

/* Drops held groups (but keep and the pinned one) until fewer than max
 * are held. */
static void groups_trim(struct trace *t, struct lazy *z, int max, int keep)
{
	for (;;) {
		int live = 0, old = -1;
		for (int g = 0; g < z->ng; g++) {
			if (!z->g[g].live)
				continue;
			live++;
			if (g != keep && g != z->pin && (old < 0 || z->g[g].tick < z->g[old].tick))
				old = g;
		}
		if (live < max || old < 0)
			return;
		group_drop(t, z, old);
	}
}

int trace_lazy_begin(struct trace *t, trace_fill_fn fill, void (*ctx_free)(void *),
		     void *ctx)
{
	struct lazy *z = calloc(1, sizeof *z);
	if (!z)
		return -1;
	z->fill = fill;
	z->ctx_free = ctx_free;
	z->ctx = ctx;
	z->open = z->filling = z->pin = -1;
	t->lazy = z;
	return 0;
}

int trace_is_lazy(const struct trace *t)
{
	return t->lazy != NULL;
}

int trace_group_open(struct trace *t, int alone)
{
	struct lazy *z = t->lazy;
	if (!z)
		return -1;
	if (z->ng == z->gcap) {
		int cap = z->gcap ? 2 * z->gcap : 16;
		struct tgroup *g = realloc(z->g, (size_t)cap * sizeof *g);
		if (!g)
			return -1;
		z->g = g;
		z->gcap = cap;
	}
	if (alone)   /* the pass moves on: one layer at a time */
		groups_trim(t, z, 1, -1);
	z->g[z->ng] = (struct tgroup){ .first = t->n, .last = t->n };
	z->open = z->ng++;
	return z->open;
}

void trace_group_close(struct trace *t, int held)
{
	struct lazy *z = t->lazy;
	if (!z || z->open < 0)
		return;
	struct tgroup *G = &z->g[z->open];
	G->last = t->n;
	trace_summarise(t, G->first, G->last);
	G->live = 1;
	G->tick = ++z->tick;
	if (!held)
		group_drop(t, z, z->open);
	z->open = -1;
}

void trace_hold(struct trace *t, const void *data)
{
	struct lazy *z = t->lazy;
	if (!z || z->open < 0 || !data)
		return;
	for (int i = t->n - 1; i >= z->g[z->open].first; i--)
		if (t->stages[i].data == data) {
			t->stages[i].group = -1;   /* still own: freed at reset */
			return;
		}
}

void trace_pin(const struct trace *t, int i)
{
	struct lazy *z = t->lazy;
	if (z)
		z->pin = i >= 0 && i < t->n ? t->stages[i].group : -1;
}

int trace_groups_live(const struct trace *t)
{
	const struct lazy *z = t->lazy;
	int n = 0;
	for (int g = 0; z && g < z->ng; g++)
		n += z->g[g].live;
	return n;
}

long trace_refills(const struct trace *t)
{
	const struct lazy *z = t->lazy;
	return z ? z->refills : 0;
}

static void tmp_free(struct lazy *z)
{
	for (int i = 0; i < z->ntmp; i++)
		free(z->tmpbuf[i]);
	z->ntmp = 0;
}

/* Computes group g again: its stages' data back, bit for bit. */
static int group_fill(struct trace *t, struct lazy *z, int g)
{
	groups_trim(t, z, TRACE_LAZY_KEEP, g);
	z->filling = g;
	z->next = z->g[g].first;
	z->refills++;
	int rc = z->fill(z->ctx, t, g);
	if (z->next != z->g[g].last)
		rc = -1;
	tmp_free(z);
	z->filling = -1;
	if (rc) {
		group_drop(t, z, g);
		return -1;
	}
	z->g[g].live = 1;
	z->g[g].tick = ++z->tick;
	trace_summarise(t, z->g[g].first, z->g[g].last);
	return 0;
}

const void *stage_data(const struct stage *s)
{
	struct trace *t = s->owner;
	if (s->data || !t || s->group < 0 || !t->lazy)
		return s->data;
	struct lazy *z = t->lazy;
	if (s->group >= z->ng || z->filling >= 0)
		return NULL;
	if (!z->g[s->group].live && group_fill(t, z, s->group))
		return NULL;
	z->g[s->group].tick = ++z->tick;
	return t->stages[s->index].data;
}

/* trace_add while group filling is computed again: the group's next
 * record, checked by name, with fresh data (a held stage's copy is
 * discarded: the record keeps the first pass's). */
static struct stage *refill_next(struct trace *t, struct lazy *z, const char *name,
				 size_t bytes)
{
	if (z->next >= z->g[z->filling].last)
		return NULL;
	struct stage *s = &t->stages[z->next];
	if (strcmp(s->name, name) != 0 || stage_numel(s) * 4 != bytes)
		return NULL;
	void *p = data_alloc(z, bytes);
	if (!p)
		return NULL;
	if (s->group < 0) {
		if (z->ntmp == z->tmpcap) {
			int cap = z->tmpcap ? 2 * z->tmpcap : 8;
			void **b = realloc(z->tmpbuf, (size_t)cap * sizeof *b);
			if (!b) {
				free(p);
				return NULL;
			}
			z->tmpbuf = b;
			z->tmpcap = cap;
		}
		z->tmpbuf[z->ntmp++] = p;
		z->tmp = *s;
		z->tmp.data = p;
		z->tmp.owner = NULL;
		z->next++;
		return &z->tmp;
	}
	s->data = p;
	s->own = 1;
	z->next++;
	return s;
}

static void lazy_free(struct trace *t)
{
	struct lazy *z = t->lazy;
	if (!z)
		return;
	for (int i = 0; i < t->n; i++) {
		if (t->stages[i].own) {
			free(t->stages[i].data);
			t->stages[i].data = NULL;
			t->stages[i].own = 0;
		}
		free(t->stages[i].thumb);
		free(t->stages[i].stats);
		t->stages[i].thumb = NULL;
		t->stages[i].stats = NULL;
	}
	tmp_free(z);
	for (int i = 0; i < z->nspare; i++)
		free(z->spare[i]);
	free(z->tmpbuf);
	free(z->g);
	if (z->ctx_free)
		z->ctx_free(z->ctx);
	free(z);
	t->lazy = NULL;
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
	lazy_free(t);
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
	struct lazy *z = t->lazy;
	if (z && z->filling >= 0) {
		char name[STAGE_NAME_MAX];
		size_t n = 1;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(name, sizeof name, fmt, ap);
		va_end(ap);
		for (int i = 0; i < ndim; i++)
			n *= (size_t)shape[i];
		(void)kind, (void)blk, (void)layer, (void)formula, (void)dt, (void)axes;
		return refill_next(t, z, name, n * 4);
	}
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
	s->owner = t;
	s->index = t->n;
	s->group = z ? z->open : -1;
	s->own = s->group >= 0;
	/* not zeroed: the pass writes all */
	s->data = s->own ? data_alloc(z, n * 4) : arena_alloc(t, n * 4);
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
		if (t->stages[i].data)
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
