/* forward_lazy.c - the forward pass's side of a lazy trace (trace.h):
 * which stages hold each sublayer's input, computing a sublayer (or the
 * output) again from them, and when a pass is lazy. */
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "forward_int.h"
#include "pool.h"

/* The index of the stage holding data, or -1. */
static int stage_of(const struct trace *t, const float *data)
{
	for (int i = t->n - 1; data && i >= 0; i--)
		if (t->stages[i].data == data)
			return i;
	return -1;
}

/* Notes which stages sublayer part of layer i of blk reads (x and memory
 * must be held). */
int fwd_lazy_note(struct ctx *c, enum block blk, int i, int part, const float *x,
		     const float *memory)
{
	struct lazy_pass *lp = c->lazy;
	if (lp->ng == lp->cap) {
		int cap = lp->cap ? 2 * lp->cap : 16;
		struct lazy_layer *g = realloc(lp->g, (size_t)cap * sizeof *g);
		if (!g) {
			c->failed = 1;
			return -1;
		}
		lp->g = g;
		lp->cap = cap;
	}
	struct lazy_layer *g = &lp->g[lp->ng++];
	g->blk = blk;
	g->layer = i;
	g->part = part;
	g->in = stage_of(c->t, x);
	g->mem = memory ? stage_of(c->t, memory) : -1;
	if (g->in < 0 || c->t->stages[g->in].group >= 0 || (memory && g->mem < 0)) {
		c->failed = 1;   /* not held: the pass would not be lazy */
		return -1;
	}
	return 0;
}

/* output() as a lazy trace's last group: logits, probs and loss are
 * [n, V] (823 MB at 2,048 tokens of a 50,257-token vocabulary) and cost a
 * quarter of GPT-2's pass there, so the first pass only declares them; they
 * are computed when looked at.  Otherwise output() itself. */
void fwd_output_group(struct ctx *c, const float *x, int n, enum axis ax,
			 const int32_t *labels, int nlabels, int label_len)
{
	struct lazy_pass *lp = c->lazy;
	if (!lp) {
		fwd_output(c, x, n, ax, labels, nlabels, label_len);
		return;
	}
	if (labels && !(lp->labels = malloc((size_t)(nlabels ? nlabels : 1) * sizeof *labels))) {
		c->failed = 1;
		return;
	}
	if (labels)
		memcpy(lp->labels, labels, (size_t)nlabels * sizeof *labels);
	lp->out_n = n;
	lp->out_ax = ax;
	lp->nlabels = nlabels;
	lp->label_len = label_len;
	if (fwd_lazy_note(c, BLK_OUTPUT, -1, 0, x, NULL) || trace_group_open(c->t, 0) < 0) {
		c->failed = 1;
		return;
	}
	/* declared, not computed: the first look at them computes them */
	c->declare = 1;
	fwd_output(c, x, n, ax, labels, nlabels, label_len);
	c->declare = 0;
	trace_group_close(c->t, 0);
}

static void lazy_free(void *p)
{
	struct lazy_pass *lp = p;
	if (lp) {
		free(lp->g);
		free(lp->labels);
	}
	free(lp);
}

/* trace_fill_fn: group g (a layer) of a lazy trace computed again from its
 * held input, with the first pass's functions, lengths and options. */
static int lazy_fill(void *p, struct trace *t, int g)
{
	const struct lazy_pass *lp = p;
	const struct lazy_layer *G = &lp->g[g];
	struct ctx c;
	if (fwd_ctx_setup(&c, lp->m, &lp->o, t, lp->S, lp->T, lp->src_len, lp->tgt_len)) {
		fwd_ctx_release(&c);
		return -1;
	}
	const float *x = t->stages[G->in].data;
	const float *mem = G->mem >= 0 ? t->stages[G->mem].data : NULL;
	const float *y = x;
	pool_hot(1);
	if (G->blk == BLK_OUTPUT)
		fwd_output(&c, x, lp->out_n, lp->out_ax, lp->labels, lp->nlabels, lp->label_len);
	else
		y = fwd_sublayer(&c, G->blk, G->layer, (enum part)G->part, x, mem);
	pool_hot(0);
	fwd_ctx_release(&c);
	return y && !c.failed ? 0 : -1;
}

/* Bytes of the layers' attention matrices (scores, masked, weights). */
static double attn_bytes(const struct model *m, int S, int T)
{
	const struct config *c = &m->cfg;
	const double h = c->heads;
	switch (c->arch) {
	case ARCH_ENC_DEC:
		return 12 * h * (c->enc_layers * (double)S * S +
				 c->dec_layers * ((double)T * T + (double)T * S));
	case ARCH_DEC_ONLY:
		return 12 * h * c->dec_layers * (double)T * T;
	case ARCH_ENC_ONLY:
		return 12 * h * c->enc_layers * (double)S * S;
	}
	return 0;
}

int forward_trace_lazy(const struct model *m, int S, int T, const struct pass_opts *o)
{
	if (o->trace_mode != TRACE_AUTO)
		return o->trace_mode == TRACE_LAZY;
	return attn_bytes(m, S, T) > (double)TRACE_LAZY_BYTES;
}

/* A lazy trace: t owns the context that computes its layers again. */
int fwd_lazy_start(struct ctx *c, const struct pass_input *in, const struct pass_opts *o)
{
	struct lazy_pass *lp = calloc(1, sizeof *lp);
	if (!lp || trace_lazy_begin(c->t, lazy_fill, lazy_free, lp)) {
		free(lp);
		return -1;
	}
	*lp = (struct lazy_pass){ .m = c->m, .o = *o, .S = in->S, .T = in->T,
				  .src_len = in->src_len, .tgt_len = in->tgt_len };
	c->lazy = lp;
	return 0;
}

