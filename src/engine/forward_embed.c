/* forward_embed.c - the input side of the traced pass: token ids, their
 * embeddings, the position rows (the paper's sinusoid, Marian's halves,
 * learned rows at BART's offset), the sum, BERT's and BART's input norm;
 * and T5's relative position bias, which takes the place of position
 * rows inside attention.
 *
 * Dimension names: n sequence length, d d_model, h heads, B rel_buckets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "forward_int.h"
#include "ops.h"
#include "relpos.h"
#include "base/i18n.h"

static const char F_EMBED[] = "E[ids]";
static const char F_EMBED_SCALED[] = "E[ids]·√d_model";
static const char F_SINUSOID[] = "PE(pos,2i)=sin(pos/10000^(2i/d)), PE(pos,2i+1)=cos(…)";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_LEARNED = N_("P[pos] (learned)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_NOPE = N_("0 (no positional encoding)");
static const char F_SIN_HALVES[] = "PE(pos,i)=sin(pos/10000^(2i/d)), PE(pos,d/2+i)=cos(…)";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_LEARNED_OFFSET = N_("P[pos + 2] (learned, BART's offset)");
static const char F_INPUT[] = "embed + pos";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_INPUT_REL = N_("embed  (no position rows: T5 adds a relative bias to the scores)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_INPUT_NORM_BART = N_("LayerNorm(input)  (layernorm_embedding)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_REL_BIAS = N_("b[bucket(key − query)]  (T5: layer 0's table, shared)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_INPUT_ROPE = N_("embed  (no position rows: RoPE rotates q and k)");
static const char F_INPUT_TYPE[] = "embed + pos + E_type[0]";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_INPUT_NORM = N_("LayerNorm(input)  (BERT's embedding norm)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_IDS = N_("token ids");

/* T5's relative position bias in place of position rows. */
static int no_pos_rows(const struct config *cfg)
{
	return cfg->pe == PE_ROPE || cfg->rel_buckets > 0;
}

/* The position rows [n, d] of one side. */
static void pos_rows(struct ctx *c, enum block blk, int n, float *pe)
{
	const struct config *cfg = &c->m->cfg;
	const int d = c->d;
	const struct stage *src_pe = blk == BLK_TGT ? trace_find(c->t, "src.pos") : NULL;
	if ((cfg->pe == PE_SINUSOIDAL || cfg->pe == PE_SIN_HALVES) && src_pe &&
	    src_pe->shape[0] >= n)
		/* the same rows as the source's: n·d sin and cos saved */
		memcpy(pe, src_pe->data, (size_t)n * d * sizeof *pe);
	else if (cfg->pe == PE_SINUSOIDAL)
		op_sinusoid(n, d, pe);
	else if (cfg->pe == PE_SIN_HALVES)
		op_sinusoid_halves(n, d, pe);
	else if (cfg->pe == PE_LEARNED)
		memcpy(pe, (blk == BLK_TGT && c->m->tgt_pos_embed ? c->m->tgt_pos_embed :
			    c->m->pos_embed) + (size_t)cfg->pos_offset * d,
		       (size_t)n * d * sizeof *pe);
	else
		memset(pe, 0, (size_t)n * d * sizeof *pe);
}

/* ids -> embed, pos, input (and input_norm).  Returns what the first
 * layer reads [n, d]. */
const float *fwd_embed(struct ctx *c, enum block blk, const char *side,
		       const int32_t *ids, int n, enum axis ax, const float *table)
{
	const struct config *cfg = &c->m->cfg;
	const int d = c->d;
	char nm[STAGE_NAME_MAX];
	int shape[1] = { n };
	enum axis axes[1] = { ax };
	struct stage *s = trace_add(c->t, SK_IDS, blk, -1, F_IDS, DT_I32, 1,
				    shape, axes, "%s.ids", side);
	if (!s) {
		c->failed = 1;
		return NULL;
	}
	memcpy(s->data, ids, (size_t)n * sizeof *ids);

	snprintf(nm, sizeof nm, "%s.embed", side);
	float *em = fwd_mat(c, SK_VECTORS, blk, -1,
			    cfg->scale_embedding ? F_EMBED_SCALED : F_EMBED, n, ax, d, AX_NONE, nm);
	const char *pf = cfg->pe == PE_SINUSOIDAL ? F_SINUSOID : cfg->pe == PE_SIN_HALVES ?
			 F_SIN_HALVES : cfg->pe != PE_LEARNED ? F_NOPE : cfg->pos_offset ?
			 F_LEARNED_OFFSET : F_LEARNED;
	snprintf(nm, sizeof nm, "%s.pos", side);
	const int none = no_pos_rows(cfg);
	float *pe = none ? NULL : fwd_mat(c, SK_VECTORS, blk, -1, pf, n, ax, d, AX_NONE, nm);
	snprintf(nm, sizeof nm, "%s.input", side);
	float *in = fwd_mat(c, SK_VECTORS, blk, -1, cfg->pe == PE_ROPE ? F_INPUT_ROPE :
			    none ? F_INPUT_REL : blk == BLK_SRC && c->m->type_embed ?
			    F_INPUT_TYPE : F_INPUT, n, ax, d, AX_NONE, nm);
	if (c->failed)
		return NULL;
	float sc = cfg->scale_embedding ? sqrtf((float)d) : 1.0f;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < d; j++)
			em[(size_t)i * d + j] = table[(size_t)ids[i] * d + j] * sc;
	if (none) {
		memcpy(in, em, (size_t)n * d * sizeof *in);
		return in;
	}
	pos_rows(c, blk, n, pe);
	for (size_t i = 0; i < (size_t)n * d; i++)
		in[i] = em[i] + pe[i];
	const float *ty = blk == BLK_SRC ? c->m->type_embed : NULL;   /* [types, d] */
	if (ty)   /* BERT: every token is of type 0 */
		for (int i = 0; i < n; i++)
			for (int j = 0; j < d; j++)
				in[(size_t)i * d + j] += ty[j];
	const float *g = blk == BLK_SRC ? c->m->in_norm_w : c->m->tgt_in_norm_w;
	const float *b = blk == BLK_SRC ? c->m->in_norm_b : c->m->tgt_in_norm_b;
	if (!g)
		return in;
	snprintf(nm, sizeof nm, "%s.input_norm", side);
	float *y = fwd_mat(c, SK_VECTORS, blk, -1, cfg->embed_norm ? F_INPUT_NORM_BART :
			   F_INPUT_NORM, n, ax, d, AX_NONE, nm);
	if (y)
		forward_norm(cfg, in, n, g, b, y);
	return y;
}

const float *fwd_rel_bias(struct ctx *c, enum block blk, int layer, const char *prefix,
			  const float *table, int n, enum axis ax, int causal)
{
	const struct config *cfg = &c->m->cfg;
	const int h = c->h;
	char nm[STAGE_NAME_MAX];
	snprintf(nm, sizeof nm, "%s.bias", prefix);
	float *bias = fwd_cube(c, SK_SCORES, blk, layer, F_REL_BIAS, h, n, ax, n, ax, nm);
	if (!bias)
		return NULL;
	const size_t nn = (size_t)n * n;
	if (layer > 0 && c->bias) {   /* the first layer's, shared */
		memcpy(bias, c->bias, (size_t)h * nn * sizeof *bias);
		return bias;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int k = relpos_bucket(j - i, !causal, cfg->rel_buckets, cfg->rel_max_dist);
			for (int hh = 0; hh < h; hh++)   /* table [B, h] */
				bias[hh * nn + (size_t)i * n + j] = table[(size_t)k * h + hh];
		}
	c->bias = bias;
	return bias;
}

float *forward_pe_table(const struct model *m, int want, int *n)
{
	const int d = m->cfg.d_model;
	int rows = want < 1 ? 1 : want;
	if (m->cfg.pe == PE_LEARNED && rows > m->cfg.max_len)
		rows = m->cfg.max_len;
	float *t = calloc((size_t)rows * d, sizeof *t);   /* [rows, d] */
	if (!t)
		return NULL;
	if (m->cfg.pe == PE_SINUSOIDAL)
		op_sinusoid(rows, d, t);
	else if (m->cfg.pe == PE_SIN_HALVES)
		op_sinusoid_halves(rows, d, t);
	else if (m->cfg.pe == PE_LEARNED && m->pos_embed)
		memcpy(t, m->pos_embed + (size_t)m->cfg.pos_offset * d, (size_t)rows * d * sizeof *t);
	*n = rows;
	return t;
}

