/* backprop.c - batched training forward (keeping activations) and backward
 * of an encoder-decoder or decoder-only Transformer.
 *
 * Dimension names: B batch, S source length, T decoder length, N rows of a
 * stream (B·S or B·T), d d_model, h heads, dk = d/h, F d_ff, V target
 * vocabulary.
 *
 * A model is a chain of residual sublayers (self-attention, cross-attention,
 * feed-forward), each with its norm in post, pre or no order; struct sub
 * keeps one sublayer's activations.  Activations and their gradients live
 * in two arenas that are rewound every step, so nothing is allocated in the
 * steady state. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backprop.h"
#include "grad.h"
#include "engine/ops.h"

/* ---- a bump allocator in chunks that never move ---- */

struct chunk {
	struct chunk *next;
	float *data;
	size_t cap, used;     /* floats */
};

struct arena {
	struct chunk *head, *cur;
};

#define ARENA_CHUNK ((size_t)1 << 20)   /* floats */

static float *arena_get(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;       /* 64-byte steps */
	if (!n)
		n = 16;
	for (;;) {
		struct chunk *c = a->cur;
		if (c && c->cap - c->used >= n) {
			float *p = c->data + c->used;
			c->used += n;
			return p;
		}
		if (c && c->next) {
			a->cur = c->next;
			a->cur->used = 0;
			continue;
		}
		struct chunk *nc = calloc(1, sizeof *nc);
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		void *mem = NULL;
		if (!nc || posix_memalign(&mem, 64, cap * sizeof(float))) {
			free(nc);
			return NULL;
		}
		nc->data = mem;
		nc->cap = cap;
		if (c)
			c->next = nc;
		else
			a->head = nc;
		a->cur = nc;
	}
}

static float *arena_zero(struct arena *a, size_t n)
{
	float *p = arena_get(a, n);
	if (p)
		memset(p, 0, n * sizeof *p);
	return p;
}

static void arena_reset(struct arena *a)
{
	a->cur = a->head;
	if (a->cur)
		a->cur->used = 0;
}

static void arena_free(struct arena *a)
{
	for (struct chunk *c = a->head, *nx; c; c = nx) {
		nx = c->next;
		free(c->data);
		free(c);
	}
	a->head = a->cur = NULL;
}

/* ---- one residual sublayer ---- */

enum sub_kind { SUB_SELF, SUB_CROSS, SUB_FFN };

struct sub {
	enum sub_kind kind;
	const struct attn_w *aw;       /* attention weights (self/cross) */
	const struct layer_w *L;       /* FFN weights */
	const float *g, *b;            /* its LayerNorm */
	int n;                         /* rows N */
	const float *x;                /* [N, d] residual input */
	const float *u;                /* [N, d] sublayer input: x, or LN(x) (pre) */
	float *ln_y, *mean, *rstd;     /* pre: LN(x); post: LN(add) */
	float *add;                    /* [N, d] x + f(u) */
	const float *y;                /* [N, d] output: add or LN(add) */
	float *out;                    /* [N, d] f(u) */
	/* attention */
	struct grad_attn ga;
	float *proj;                   /* self [N, 3d]; cross Q [N, d] */
	float *projkv;                 /* cross: K|V of memory [B·S, 2d] */
	float *att;                    /* [B, h, nq, nk] */
	float *ctx;                    /* [N, d] heads side by side */
	/* feed-forward */
	float *pre, *hid;              /* [N, F] before and after activation */
};

struct backprop {
	const struct model *m;
	int d, h, dk, F, V;
	float *grad;                   /* all parameter gradients */
	size_t *goff;                  /* [ntensors] offsets into grad */
	size_t ngrad;
	struct arena act, dact;
	/* the last forward */
	struct bp_batch b;
	int *src_len, *tgt_len;        /* copies [B] */
	int32_t *labels;               /* copy [B·T] */
	struct sub *subs;              /* encoder's, then decoder's */
	int nenc, ndec;
	float *src_in, *tgt_in;        /* [B·S, d], [B·T, d] embed + pos */
	const float *enc_out;          /* [B·S, d] before the final norm */
	const float *memory;           /* [B·S, d] what cross-attention reads */
	float *enc_ln_mean, *enc_ln_rstd;
	const float *dec_out;          /* [B·T, d] before the final norm */
	const float *dec_final;        /* [B·T, d] what the generator reads */
	float *dec_ln_mean, *dec_ln_rstd;
	float *logits;                 /* [B·T, V] */
	float smoothing;
	int ntok;
	int have_forward;
	float *scratch;                /* attention backward [max nq·nk] */
	size_t scratch_n;
};

/* The gradient that belongs to a parameter pointer (NULL for NULL): the
 * tensor holding p, at the same offset.  Tied weights share a tensor, so
 * their gradients add up in one place. */
static float *G(const struct backprop *bp, const float *p)
{
	if (!p)
		return NULL;
	const struct model *m = bp->m;
	uintptr_t a = (uintptr_t)p;
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		uintptr_t lo = (uintptr_t)t->data;
		size_t n = (size_t)t->shape[0] * t->shape[1];
		if (a >= lo && a < lo + n * sizeof(float))
			return bp->grad + bp->goff[i] + (a - lo) / sizeof(float);
	}
	return NULL;   /* not a parameter (cannot happen for a loaded model) */
}

struct backprop *backprop_new(const struct model *m, struct err *e)
{
	if (m->cfg.arch == ARCH_ENC_ONLY) {
		err_set(e, "%s: an encoder-only model has no decoder to train", m->path);
		return NULL;
	}
	/* the gradients know LayerNorm, ReLU and the exact GELU only */
	if (m->cfg.norm_kind != NK_LAYERNORM || m->cfg.act == ACT_GELU_NEW) {
		err_set(e, "%s: training supports torch.nn.LayerNorm with relu or gelu, "
			"not this model's %s", m->path, m->cfg.act == ACT_GELU_NEW ?
			"gelu_new" : "LayerNorm (std + eps)");
		return NULL;
	}
	struct backprop *bp = calloc(1, sizeof *bp);
	if (!bp)
		goto oom;
	bp->m = m;
	bp->d = m->cfg.d_model;
	bp->h = m->cfg.heads;
	bp->dk = bp->d / bp->h;
	bp->F = m->cfg.d_ff;
	bp->V = m->tgt_vocab.n;
	bp->nenc = m->cfg.arch == ARCH_ENC_DEC ? 2 * m->cfg.enc_layers : 0;
	bp->ndec = (m->cfg.arch == ARCH_ENC_DEC ? 3 : 2) * m->cfg.dec_layers;
	if (!(bp->goff = calloc((size_t)m->ntensors + 1, sizeof *bp->goff)) ||
	    !(bp->subs = calloc((size_t)(bp->nenc + bp->ndec) + 1, sizeof *bp->subs)))
		goto oom;
	for (int i = 0; i < m->ntensors; i++) {
		bp->goff[i] = bp->ngrad;
		bp->ngrad += (size_t)m->tensors[i].shape[0] * m->tensors[i].shape[1];
	}
	if (!(bp->grad = calloc(bp->ngrad ? bp->ngrad : 1, sizeof *bp->grad)))
		goto oom;
	return bp;
oom:
	backprop_free(bp);
	err_set(e, "out of memory for the training pass");
	return NULL;
}

void backprop_free(struct backprop *bp)
{
	if (!bp)
		return;
	arena_free(&bp->act);
	arena_free(&bp->dact);
	free(bp->grad);
	free(bp->goff);
	free(bp->subs);
	free(bp->src_len);
	free(bp->tgt_len);
	free(bp->labels);
	free(bp->scratch);
	free(bp);
}

const float *backprop_logits(const struct backprop *bp)
{
	return bp->logits;
}

float *backprop_grad(const struct backprop *bp, int i)
{
	return bp->grad + bp->goff[i];
}

float *backprop_grads(const struct backprop *bp)
{
	return bp->grad;
}

size_t backprop_nparams(const struct backprop *bp)
{
	return bp->ngrad;
}

/* ---- forward ---- */

static float norm_eps(const struct backprop *bp)
{
	return (float)bp->m->cfg.norm_eps;
}

/* f(u) for an attention sublayer; kv is the memory for cross-attention. */
static int attn_fwd(struct backprop *bp, struct sub *s, const float *kv,
		    int nk, int B, int nq)
{
	const int d = bp->d, N = s->n;
	const struct attn_w *w = s->aw;
	struct arena *A = &bp->act;
	const float *q, *k, *v;
	int ldq, ldkv;
	if (s->kind == SUB_SELF) {
		if (!(s->proj = arena_get(A, (size_t)N * 3 * d)))
			return -1;
		op_linear(s->u, N, d, w->in_w, w->in_b, 3 * d, s->proj);
		q = s->proj;
		k = s->proj + d;
		v = s->proj + 2 * d;
		ldq = ldkv = 3 * d;
	} else {
		if (!(s->proj = arena_get(A, (size_t)N * d)) ||
		    !(s->projkv = arena_get(A, (size_t)B * nk * 2 * d)))
			return -1;
		op_linear(s->u, N, d, w->in_w, w->in_b, d, s->proj);
		op_linear(kv, B * nk, d, w->in_w + (size_t)d * d,
			  w->in_b ? w->in_b + d : NULL, 2 * d, s->projkv);
		q = s->proj;
		k = s->projkv;
		v = s->projkv + d;
		ldq = d;
		ldkv = 2 * d;
	}
	s->ga.B = B;
	s->ga.nq = nq;
	s->ga.nk = nk;
	s->ga.h = bp->h;
	s->ga.dk = bp->dk;
	if (!(s->att = arena_get(A, (size_t)B * bp->h * nq * nk)) ||
	    !(s->ctx = arena_get(A, (size_t)N * d)) ||
	    !(s->out = arena_get(A, (size_t)N * d)))
		return -1;
	grad_attn_fwd(&s->ga, q, ldq, k, ldkv, v, ldkv, s->att, s->ctx);
	op_linear(s->ctx, N, d, w->out_w, w->out_b, d, s->out);
	if ((size_t)nq * nk > bp->scratch_n) {
		float *ns = realloc(bp->scratch, (size_t)nq * nk * sizeof *ns);
		if (!ns)
			return -1;
		bp->scratch = ns;
		bp->scratch_n = (size_t)nq * nk;
	}
	return 0;
}

static int ffn_fwd(struct backprop *bp, struct sub *s)
{
	const int d = bp->d, F = bp->F, N = s->n;
	const struct layer_w *L = s->L;
	if (!(s->pre = arena_get(&bp->act, (size_t)N * F)) ||
	    !(s->hid = arena_get(&bp->act, (size_t)N * F)) ||
	    !(s->out = arena_get(&bp->act, (size_t)N * d)))
		return -1;
	op_linear(s->u, N, d, L->l1_w, L->l1_b, F, s->pre);
	grad_act_fwd(bp->m->cfg.act, s->pre, s->hid, (size_t)N * F);
	op_linear(s->hid, N, F, L->l2_w, L->l2_b, d, s->out);
	return 0;
}

/* Runs one residual sublayer on x[N, d] (rows B·nq); returns its output. */
static const float *sub_fwd(struct backprop *bp, struct sub *s, const float *x,
			    int B, int nq, const float *kv, int nk)
{
	const enum norm_style ns = bp->m->cfg.norm;
	const int d = bp->d, N = B * nq;
	struct arena *A = &bp->act;
	s->n = N;
	s->x = x;
	s->u = x;
	if (ns != NORM_NONE && (!(s->ln_y = arena_get(A, (size_t)N * d)) ||
				!(s->mean = arena_get(A, (size_t)N)) ||
				!(s->rstd = arena_get(A, (size_t)N))))
		return NULL;
	if (ns == NORM_PRE) {
		grad_layernorm_fwd(x, N, d, s->g, s->b, norm_eps(bp), s->ln_y,
				   s->mean, s->rstd);
		s->u = s->ln_y;
	}
	int rc = s->kind == SUB_FFN ? ffn_fwd(bp, s) :
		 attn_fwd(bp, s, kv, s->kind == SUB_SELF ? nq : nk, B, nq);
	if (rc || !(s->add = arena_get(A, (size_t)N * d)))
		return NULL;
	for (size_t i = 0; i < (size_t)N * d; i++)
		s->add[i] = x[i] + s->out[i];
	s->y = s->add;
	if (ns == NORM_POST) {
		grad_layernorm_fwd(s->add, N, d, s->g, s->b, norm_eps(bp), s->ln_y,
				   s->mean, s->rstd);
		s->y = s->ln_y;
	}
	return s->y;
}

static void set_attn(struct sub *s, enum sub_kind k, const struct attn_w *w,
		     const float *g, const float *b, int causal, const int *key_len)
{
	s->kind = k;
	s->aw = w;
	s->g = g;
	s->b = b;
	s->ga.causal = causal;
	s->ga.key_len = key_len;
}

static void set_ffn(struct sub *s, const struct layer_w *L, const float *g,
		    const float *b)
{
	s->kind = SUB_FFN;
	s->L = L;
	s->g = g;
	s->b = b;
}

/* Embedding + positions for ids [B, n]; NULL on out-of-memory. */
static float *embed_fwd(struct backprop *bp, const int32_t *ids, int B, int n,
			const float *table)
{
	const struct config *c = &bp->m->cfg;
	const int d = bp->d;
	const float *pos = NULL;
	if (c->pe == PE_SINUSOIDAL) {
		float *p = arena_get(&bp->act, (size_t)n * d);
		if (!p)
			return NULL;
		op_sinusoid(n, d, p);
		pos = p;
	} else if (c->pe == PE_LEARNED) {
		pos = bp->m->pos_embed;
	}
	float *out = arena_get(&bp->act, (size_t)B * n * d);
	if (out)
		grad_embed_fwd(ids, B, n, table, d,
			       c->scale_embedding ? sqrtf((float)d) : 1.0f, pos, out);
	return out;
}

/* An optional final LayerNorm; returns x itself when the model has none. */
static const float *final_fwd(struct backprop *bp, const float *x, int N,
			      const float *g, const float *b, float **mean,
			      float **rstd)
{
	if (!g)
		return x;
	float *y = arena_get(&bp->act, (size_t)N * bp->d);
	*mean = arena_get(&bp->act, (size_t)N);
	*rstd = arena_get(&bp->act, (size_t)N);
	if (!y || !*mean || !*rstd)
		return NULL;
	grad_layernorm_fwd(x, N, bp->d, g, b, norm_eps(bp), y, *mean, *rstd);
	return y;
}

static int check_batch(const struct backprop *bp, const struct bp_batch *b,
		       struct err *e)
{
	const struct model *m = bp->m;
	const int enc = m->cfg.arch == ARCH_ENC_DEC;
	if (b->B < 1 || b->T < 1 || (enc && b->S < 1))
		return err_set(e, "empty batch");
	if (b->T > m->cfg.max_len || b->S > m->cfg.max_len)
		return err_set(e, "a batch of length %d exceeds max_len %d",
			       b->T > b->S ? b->T : b->S, m->cfg.max_len);
	for (size_t i = 0; enc && i < (size_t)b->B * b->S; i++)
		if (b->src[i] < 0 || b->src[i] >= m->src_vocab.n)
			return err_set(e, "source id %d outside the vocabulary of %d",
				       b->src[i], m->src_vocab.n);
	for (size_t i = 0; i < (size_t)b->B * b->T; i++)
		if (b->tgt[i] < 0 || b->tgt[i] >= bp->V || b->labels[i] >= bp->V)
			return err_set(e, "target id outside the vocabulary of %d", bp->V);
	return 0;
}

int backprop_forward(struct backprop *bp, const struct bp_batch *b,
		     float smoothing, struct bp_loss *loss, struct err *e)
{
	const struct model *m = bp->m;
	const int d = bp->d, B = b->B, S = b->S, T = b->T;
	const int enc = m->cfg.arch == ARCH_ENC_DEC;
	bp->have_forward = 0;
	if (check_batch(bp, b, e))
		return -1;
	arena_reset(&bp->act);
	bp->b = *b;
	int *sl = realloc(bp->src_len, (size_t)B * sizeof *sl);
	if (sl)
		bp->src_len = sl;
	int *tl = sl ? realloc(bp->tgt_len, (size_t)B * sizeof *tl) : NULL;
	if (tl)
		bp->tgt_len = tl;
	int32_t *lb = tl ? realloc(bp->labels, (size_t)B * T * sizeof *lb) : NULL;
	if (!lb)
		goto oom;
	bp->labels = lb;
	for (int i = 0; i < B; i++) {
		bp->src_len[i] = enc ? b->src_len[i] : 0;
		bp->tgt_len[i] = b->tgt_len[i];
	}
	memcpy(bp->labels, b->labels, (size_t)B * T * sizeof *lb);
	bp->b.src_len = bp->src_len;
	bp->b.tgt_len = bp->tgt_len;
	bp->b.labels = bp->labels;

	const float *x;
	struct sub *s = bp->subs;
	if (enc) {
		if (!(bp->src_in = embed_fwd(bp, b->src, B, S, m->src_embed)))
			goto oom;
		x = bp->src_in;
		for (int i = 0; i < m->cfg.enc_layers; i++) {
			const struct layer_w *L = &m->enc[i];
			set_attn(s, SUB_SELF, &L->self, L->n1_w, L->n1_b, 0, bp->src_len);
			if (!(x = sub_fwd(bp, s++, x, B, S, NULL, 0)))
				goto oom;
			set_ffn(s, L, L->n2_w, L->n2_b);
			if (!(x = sub_fwd(bp, s++, x, B, S, NULL, 0)))
				goto oom;
		}
		bp->enc_out = x;
		if (!(bp->memory = final_fwd(bp, x, B * S, m->enc_norm_w, m->enc_norm_b,
					     &bp->enc_ln_mean, &bp->enc_ln_rstd)))
			goto oom;
	}
	if (!(bp->tgt_in = embed_fwd(bp, b->tgt, B, T, m->tgt_embed)))
		goto oom;
	x = bp->tgt_in;
	for (int i = 0; i < m->cfg.dec_layers; i++) {
		const struct layer_w *L = &m->dec[i];
		set_attn(s, SUB_SELF, &L->self, L->n1_w, L->n1_b, 1, bp->tgt_len);
		if (!(x = sub_fwd(bp, s++, x, B, T, NULL, 0)))
			goto oom;
		if (enc) {
			set_attn(s, SUB_CROSS, &L->cross, L->n2_w, L->n2_b, 0, bp->src_len);
			if (!(x = sub_fwd(bp, s++, x, B, T, bp->memory, S)))
				goto oom;
			set_ffn(s, L, L->n3_w, L->n3_b);
		} else {
			set_ffn(s, L, L->n2_w, L->n2_b);
		}
		if (!(x = sub_fwd(bp, s++, x, B, T, NULL, 0)))
			goto oom;
	}
	bp->dec_out = x;
	if (!(bp->dec_final = final_fwd(bp, x, B * T, m->dec_norm_w, m->dec_norm_b,
					&bp->dec_ln_mean, &bp->dec_ln_rstd)))
		goto oom;
	if (!(bp->logits = arena_get(&bp->act, (size_t)B * T * bp->V)))
		goto oom;
	op_linear(bp->dec_final, B * T, d, m->gen_w, m->gen_b, bp->V, bp->logits);

	bp->ntok = 0;
	for (size_t i = 0; i < (size_t)B * T; i++)
		bp->ntok += bp->labels[i] >= 0;
	bp->smoothing = smoothing;
	loss->ntok = bp->ntok;
	loss->nll = grad_xent(bp->logits, bp->labels, B * T, bp->V, smoothing, 0,
			      NULL, &loss->smoothed);
	bp->have_forward = 1;
	return 0;
oom:
	return err_set(e, "out of memory in the training pass (batch %d × %d/%d)",
		       B, S, T);
}

/* ---- backward ---- */

/* f's backward: accumulates du from dout (and dmem for cross-attention).
 * Returns -1 on out-of-memory. */
static int attn_bwd(struct backprop *bp, const struct sub *s, const float *dout,
		    float *du, const float *mem, float *dmem)
{
	const int d = bp->d, N = s->n;
	const struct attn_w *w = s->aw;
	float *dctx = arena_zero(&bp->dact, (size_t)N * d);
	if (!dctx)
		return -1;
	grad_linear(dout, s->ctx, w->out_w, N, d, d, dctx, G(bp, w->out_w),
		    G(bp, w->out_b));
	float *din_w = G(bp, w->in_w), *din_b = G(bp, w->in_b);
	if (s->kind == SUB_SELF) {
		float *dproj = arena_zero(&bp->dact, (size_t)N * 3 * d);
		if (!dproj)
			return -1;
		grad_attn_bwd(&s->ga, dctx, s->proj, 3 * d, s->proj + d, 3 * d,
			      s->proj + 2 * d, 3 * d, s->att, dproj, dproj + d,
			      dproj + 2 * d, bp->scratch);
		grad_linear(dproj, s->u, w->in_w, N, d, 3 * d, du, din_w, din_b);
		return 0;
	}
	const int Nk = s->ga.B * s->ga.nk;
	float *dq = arena_zero(&bp->dact, (size_t)N * d);
	float *dkv = arena_zero(&bp->dact, (size_t)Nk * 2 * d);
	if (!dq || !dkv)
		return -1;
	grad_attn_bwd(&s->ga, dctx, s->proj, d, s->projkv, 2 * d, s->projkv + d,
		      2 * d, s->att, dq, dkv, dkv + d, bp->scratch);
	grad_linear(dq, s->u, w->in_w, N, d, d, du, din_w, din_b);
	grad_linear(dkv, mem, w->in_w + (size_t)d * d, Nk, d, 2 * d, dmem,
		    din_w + (size_t)d * d, din_b ? din_b + d : NULL);
	return 0;
}

static int ffn_bwd(struct backprop *bp, const struct sub *s, const float *dout,
		   float *du)
{
	const int d = bp->d, F = bp->F, N = s->n;
	const struct layer_w *L = s->L;
	float *dhid = arena_zero(&bp->dact, (size_t)N * F);
	float *dpre = arena_zero(&bp->dact, (size_t)N * F);
	if (!dhid || !dpre)
		return -1;
	grad_linear(dout, s->hid, L->l2_w, N, F, d, dhid, G(bp, L->l2_w), G(bp, L->l2_b));
	grad_act_bwd(bp->m->cfg.act, dhid, s->pre, dpre, (size_t)N * F);
	grad_linear(dpre, s->u, L->l1_w, N, d, F, du, G(bp, L->l1_w), G(bp, L->l1_b));
	return 0;
}

/* Given dy (gradient of the sublayer's output), returns dx, the gradient of
 * its input (a new buffer), or NULL on out-of-memory. */
static float *sub_bwd(struct backprop *bp, const struct sub *s, const float *dy,
		      float *dmem)
{
	const enum norm_style ns = bp->m->cfg.norm;
	const int d = bp->d, N = s->n;
	const size_t nd = (size_t)N * d;
	float *dx = arena_zero(&bp->dact, nd);
	if (!dx)
		return NULL;
	const float *dadd = dy;
	if (ns == NORM_POST) {
		float *da = arena_zero(&bp->dact, nd);
		if (!da)
			return NULL;
		grad_layernorm_bwd(dy, s->add, s->mean, s->rstd, s->g, N, d, da,
				   G(bp, s->g), G(bp, s->b));
		dadd = da;
	}
	for (size_t i = 0; i < nd; i++)   /* the residual path */
		dx[i] += dadd[i];
	float *du = dx;                   /* f reads x itself ... */
	if (ns == NORM_PRE && !(du = arena_zero(&bp->dact, nd)))   /* ... or LN(x) */
		return NULL;
	int rc = s->kind == SUB_FFN ? ffn_bwd(bp, s, dadd, du)
				    : attn_bwd(bp, s, dadd, du, bp->memory, dmem);
	if (rc)
		return NULL;
	if (ns == NORM_PRE)
		grad_layernorm_bwd(du, s->x, s->mean, s->rstd, s->g, N, d, dx,
				   G(bp, s->g), G(bp, s->b));
	return dx;
}

/* Backward of an optional final norm: returns the gradient of its input. */
static float *final_bwd(struct backprop *bp, float *dy, const float *x, int N,
			const float *g, const float *b, const float *mean,
			const float *rstd)
{
	if (!g)
		return dy;
	float *dx = arena_zero(&bp->dact, (size_t)N * bp->d);
	if (dx)
		grad_layernorm_bwd(dy, x, mean, rstd, g, N, bp->d, dx, G(bp, g), G(bp, b));
	return dx;
}

static void embed_bwd(struct backprop *bp, const float *dx, const int32_t *ids,
		      int B, int n, const float *table)
{
	const struct config *c = &bp->m->cfg;
	grad_embed_bwd(dx, ids, B, n, bp->d,
		       c->scale_embedding ? sqrtf((float)bp->d) : 1.0f, G(bp, table),
		       c->pe == PE_LEARNED ? G(bp, bp->m->pos_embed) : NULL);
}

int backprop_backward(struct backprop *bp, struct err *e)
{
	const struct model *m = bp->m;
	const struct bp_batch *b = &bp->b;
	const int d = bp->d, B = b->B, S = b->S, T = b->T, V = bp->V;
	const int enc = m->cfg.arch == ARCH_ENC_DEC;
	memset(bp->grad, 0, bp->ngrad * sizeof *bp->grad);
	if (!bp->have_forward)
		return err_set(e, "backward without a forward");
	if (!bp->ntok)
		return 0;
	arena_reset(&bp->dact);
	float *dlog = arena_zero(&bp->dact, (size_t)B * T * V);
	float *dy = arena_zero(&bp->dact, (size_t)B * T * d);
	float *dmem = enc ? arena_zero(&bp->dact, (size_t)B * S * d) : NULL;
	if (!dlog || !dy || (enc && !dmem))
		goto oom;
	grad_xent(bp->logits, bp->labels, B * T, V, bp->smoothing,
		  1.0f / (float)bp->ntok, dlog, NULL);
	grad_linear(dlog, bp->dec_final, m->gen_w, B * T, d, V, dy, G(bp, m->gen_w),
		    G(bp, m->gen_b));
	if (!(dy = final_bwd(bp, dy, bp->dec_out, B * T, m->dec_norm_w, m->dec_norm_b,
			     bp->dec_ln_mean, bp->dec_ln_rstd)))
		goto oom;
	for (int i = bp->nenc + bp->ndec - 1; i >= bp->nenc; i--)
		if (!(dy = sub_bwd(bp, &bp->subs[i], dy, dmem)))
			goto oom;
	embed_bwd(bp, dy, b->tgt, B, T, m->tgt_embed);
	if (!enc)
		return 0;
	if (!(dy = final_bwd(bp, dmem, bp->enc_out, B * S, m->enc_norm_w, m->enc_norm_b,
			     bp->enc_ln_mean, bp->enc_ln_rstd)))
		goto oom;
	for (int i = bp->nenc - 1; i >= 0; i--)
		if (!(dy = sub_bwd(bp, &bp->subs[i], dy, NULL)))
			goto oom;
	embed_bwd(bp, dy, b->src, B, S, m->src_embed);
	return 0;
oom:
	return err_set(e, "out of memory in the backward pass (batch %d × %d/%d)",
		       B, S, T);
}
