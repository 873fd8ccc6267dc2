/* forward_heads.c - the traced pass's stage constructors and what an
 * encoder-only model ends in: a classifier (pooled, class_logits,
 * class_probs) or BERT's masked-LM head.
 *
 * Dimension names: S source length, d d_model, C classes, V vocabulary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "forward_int.h"
#include "ops.h"
#include "base/i18n.h"

/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_MEMORY_BERT = N_("encoder output (the last hidden state)");
static const char F_MLM_HIDDEN[] = "LayerNorm(GELU(memory·W_mlmᵀ + b))";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_CLS_MEMORY = N_("encoder output, read by the classifier");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_POOL_MEAN = N_("mean of memory over the real tokens");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_POOL_FIRST = N_("memory[0] (the first token)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_POOL_LAST = N_("memory[n−1] (the last real token)");
static const char F_CLASS_LOGITS[] = "pooled·W_headᵀ + b";
static const char F_CLASS_PROBS[] = "softmax(class_logits)";

/* A float stage of ndim dimensions; NULL (and the pass failed) when the
 * trace cannot hold it. */
static float *fwd_add(struct ctx *c, enum stage_kind kind, enum block blk, int layer,
		      const char *formula, int ndim, const int *shape, const enum axis *axes,
		      const char *name)
{
	struct stage *s = trace_add(c->t, kind, blk, layer, formula, DT_F32, ndim, shape,
				    axes, "%s", name);
	if (!s)
		c->failed = 1;
	return s ? s->data : NULL;
}

/* A [rows, cols] float stage. */
float *fwd_mat(struct ctx *c, enum stage_kind kind, enum block blk,
		  int layer, const char *formula, int rows, enum axis rax,
		  int cols, enum axis cax, const char *name)
{
	return fwd_add(c, kind, blk, layer, formula, 2, (const int[]){ rows, cols },
		       (const enum axis[]){ rax, cax }, name);
}

/* A [nh, rows, cols] float stage (nh: h, or h_kv for keys and values). */
float *fwd_cube(struct ctx *c, enum stage_kind kind, enum block blk,
		   int layer, const char *formula, int nh, int rows, enum axis rax,
		   int cols, enum axis cax, const char *name)
{
	return fwd_add(c, kind, blk, layer, formula, 3, (const int[]){ nh, rows, cols },
		       (const enum axis[]){ AX_HEAD, rax, cax }, name);
}

/* A 1-D float stage [n]. */
float *fwd_vec(struct ctx *c, enum stage_kind kind, const char *formula,
		  int n, enum axis ax, const char *name)
{
	return fwd_add(c, kind, BLK_OUTPUT, -1, formula, 1, (const int[]){ n },
		       (const enum axis[]){ ax }, name);
}

/* An encoder-only classifier: memory [S, d], pooled [d], class_logits [C],
 * class_probs [C]. */
void fwd_classify(struct ctx *c, const float *x, const struct pass_input *in)
{
	const struct model *m = c->m;
	const int d = c->d, C = m->cfg.head.nlabels, S = in->S;
	const int n = in->src_len > 0 ? in->src_len : S;   /* real tokens */
	float *mem = fwd_mat(c, SK_VECTORS, BLK_ENCODER, -1, F_CLS_MEMORY, S, AX_SRC, d,
			 AX_NONE, "memory");
	const enum pool_kind pk = m->cfg.head.pool;
	float *pool = fwd_vec(c, SK_POOLED, pk == POOL_MEAN ? F_POOL_MEAN :
			  pk == POOL_FIRST ? F_POOL_FIRST : F_POOL_LAST, d, AX_NONE, "pooled");
	float *lg = fwd_vec(c, SK_CLASS_LOGITS, F_CLASS_LOGITS, C, AX_CLASS, "class_logits");
	float *pr = fwd_vec(c, SK_CLASS_PROBS, F_CLASS_PROBS, C, AX_CLASS, "class_probs");
	if (c->failed)
		return;
	memcpy(mem, x, (size_t)S * d * sizeof *mem);
	for (int j = 0; j < d; j++) {
		double acc = 0;
		if (pk == POOL_MEAN) {
			for (int i = 0; i < n; i++)
				acc += x[(size_t)i * d + j];
			acc /= n;
		} else {
			acc = x[(size_t)(pk == POOL_FIRST ? 0 : n - 1) * d + j];
		}
		pool[j] = (float)acc;
	}
	op_linear(pool, 1, d, m->head_w, m->head_b, C, lg);
	memcpy(pr, lg, (size_t)C * sizeof *pr);
	op_softmax_rows(pr, 1, C);
}

/* BERT: memory [S, d]; with the masked-LM head mlm.hidden [S, d], then
 * logits and probs [S, V]. */
void fwd_bert_output(struct ctx *c, const float *x, int S)
{
	const struct model *m = c->m;
	float *mem = fwd_mat(c, SK_VECTORS, BLK_ENCODER, -1, F_MEMORY_BERT, S, AX_SRC, c->d,
			 AX_NONE, "memory");
	if (!mem)
		return;
	memcpy(mem, x, (size_t)S * c->d * sizeof *mem);
	if (!m->mlm_w)
		return;
	float *hid = fwd_mat(c, SK_VECTORS, BLK_OUTPUT, -1, F_MLM_HIDDEN, S, AX_SRC, c->d,
			 AX_NONE, "mlm.hidden");
	if (!hid)
		return;
	op_linear(mem, S, c->d, m->mlm_w, m->mlm_b, c->d, hid);
	forward_act(&m->cfg, hid, (size_t)S * c->d);
	forward_norm(&m->cfg, hid, S, m->mlm_norm_w, m->mlm_norm_b, hid);
	fwd_output(c, hid, S, AX_SRC, NULL, 0, 0);
}

