/* forward.c - one traced forward pass of an encoder-decoder, decoder-only
 * or encoder-only Transformer.
 *
 * Dimension names: S source length, T decoder input length, d d_model,
 * h heads, dk = d/h, F d_ff, V target vocabulary.
 *
 * Every intermediate is a stage of the trace (computation order); the only
 * scratch buffer holds packed Q|K|V projections before they are split per
 * head, and each head's Kᵀ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "layout.h"
#include "ops.h"
#include "pool.h"
#include "rope.h"
#include "stage_weight.h"
#include "base/i18n.h"
#include "forward_int.h"


/* The formulas shown with each stage.  Those with words are marked N_():
 * the trace keeps the English text (views match "sin(", "GELU", "√" in it,
 * and `render --format text` prints it as it is), and the screen shows it
 * through gettext.  The rest is notation, the same in every language. */
static const char F_Q[] = "Q = X·W_Qᵀ + b_Q";
static const char F_K[] = "K = X·W_Kᵀ + b_K";
static const char F_V[] = "V = X·W_Vᵀ + b_V";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_Q_CROSS = N_("Q = Y·W_Qᵀ + b_Q  (Y: decoder)");
static const char F_K_CROSS[] = "K = memory·W_Kᵀ + b_K";
static const char F_V_CROSS[] = "V = memory·W_Vᵀ + b_V";
static const char F_SCORES[] = "QKᵀ/√dk";
static const char F_SCORES_ROPE[] = "Q_rot·K_rotᵀ/√dk";
static const char F_SCORES_PLAIN[] = "QKᵀ·scale";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_SCORES_UNSCALED = N_("QKᵀ  (unscaled: T5)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_QNORM = N_("RMSNorm(q)·g over dk  (per head)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_KNORM = N_("RMSNorm(k)·g over dk  (per head)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_QROT = N_("q·cos(pos·θᵢ) + rotate_half(q)·sin(pos·θᵢ)  (RoPE)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_KROT = N_("k·cos(pos·θᵢ) + rotate_half(k)·sin(pos·θᵢ)  (RoPE)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_MASKED = N_("QKᵀ/√dk + M  (M = −∞ where masked)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_MASKED_BIAS = N_("QKᵀ + bias + M  (M = −∞ where masked)");
static const char F_WEIGHTS[] = "softmax(QKᵀ/√dk + M)";
static const char F_HEADS[] = "head_i = softmax(QKᵀ/√dk + M)·V";
static const char F_CONCAT[] = "Concat(head_1, …, head_h)";
static const char F_OUT[] = "Concat(heads)·W_Oᵀ + b_O";
static const char F_ADD[] = "x + Sublayer(x)";
static const char F_ADD_PRE[] = "x + Sublayer(LayerNorm(x))";
static const char F_NORM[] = "LayerNorm(x + Sublayer(x))";
static const char F_NORM_PRE[] = "LayerNorm(x)";
static const char F_RMS_PRE[] = "x/√(mean(x²)+ε)·g";
static const char F_RMS1_PRE[] = "x/√(mean(x²)+ε)·(1+g)";
static const char F_ADD_PRE_RMS[] = "x + Sublayer(RMSNorm(x))";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_FINAL_RMS = N_("RMSNorm(x)  (final)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_FINAL_NORM = N_("LayerNorm(x)  (final)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_MEMORY = N_("encoder output, read by cross-attention");
static const char F_LOGITS[] = "x·W_genᵀ + b";
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_LOGITS_TIED = N_("x·E_tgtᵀ  (tied to the embedding)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_LOGITS_TIED_BIAS = N_("x·E_tgtᵀ + final_logits_bias  (tied)");
/* TRANSLATORS: formula of a stage (status line, explanation panel):
   keep the notation, translate the words */
static const char *const F_LOGITS_RESCALED = N_("(x·d^-½)·E_tgtᵀ  (T5's tied head)");
static const char F_PROBS[] = "softmax(logits)";
static const char F_LOSS[] = "−log p(label)";

void forward_norm(const struct config *c, const float *x, int n,
		  const float *g, const float *b, float *y)
{
	if (c->norm_kind == NK_RMS || c->norm_kind == NK_RMS1)
		op_rmsnorm(x, n, c->d_model, g, c->norm_kind == NK_RMS1 ? 1.0f : 0.0f,
			   (float)c->norm_eps, y);
	else if (c->norm_kind == NK_STD)
		op_layernorm_std(x, n, c->d_model, g, b, (float)c->norm_eps, y);
	else
		op_layernorm(x, n, c->d_model, g, b, (float)c->norm_eps, y);
}

void forward_act(const struct config *c, float *x, size_t n)
{
	if (c->act == ACT_GELU)
		op_gelu(x, n);
	else if (c->act == ACT_GELU_NEW)
		op_gelu_new(x, n);
	else if (c->act == ACT_SILU)
		op_silu(x, n);
	else
		op_relu(x, n);
}

static void name2(char *buf, const char *prefix, const char *suffix)
{
	snprintf(buf, STAGE_NAME_MAX, "%s.%s", prefix, suffix);
}

/* Rows [n, dk] of head hh from packed projections p[n, ld] (head 0 at
 * column 0), into out[n, dk]. */
static void head_rows(const float *p, int ld, int hh, int n, int dk, float *out)
{
	for (int i = 0; i < n; i++)
		memcpy(out + (size_t)i * dk, p + (size_t)i * ld + hh * dk,
		       (size_t)dk * sizeof *out);
}

struct heads_job {
	const float *q, *k, *v;   /* [h, nq, dk], [h_kv, nk, dk], [h_kv, nk, dk] */
	float *kt;                /* [h, dk, nk]: K transposed, for Q·Kᵀ as an NN product */
	float *sc, *mk, *wt;      /* [h, nq, nk] scores, masked, weights */
	const float *bias;        /* [h, nq, nk] added to the scores, or NULL */
	float *hd, *cat;          /* [h, nq, dk], [nq, qd] */
	float scale;              /* of q·kᵀ */
	int h, group, nq, nk, dk, key_len, causal, window, ablate;
};

/* Query head hh (reading key/value head hh / group): q·kᵀ·scale, then row
 * by row the mask and the softmax while the row is in cache, weights·V,
 * and its columns of the concatenation. */
static void head_task(void *arg, int hh, int nheads)
{
	const struct heads_job *j = arg;
	const int nq = j->nq, nk = j->nk, dk = j->dk, g = hh / j->group;
	const size_t qk = (size_t)nq * nk;
	const float *q = j->q + (size_t)hh * nq * dk, *k = j->k + (size_t)g * nk * dk,
		    *v = j->v + (size_t)g * nk * dk;
	float *sc = j->sc + hh * qk, *mk = j->mk + hh * qk, *wt = j->wt + hh * qk;
	float *kt = j->kt + (size_t)hh * dk * nk;
	const float *bias = j->bias ? j->bias + hh * qk : NULL;
	(void)nheads;
	op_transpose(k, nk, dk, kt);
	op_matmul_nn(q, dk, kt, nk, sc, nk, nq, nk, dk, j->scale);
	for (int i = 0; i < nq; i++) {
		const float *sr = sc + (size_t)i * nk;
		float *mr = mk + (size_t)i * nk, *wr = wt + (size_t)i * nk;
		/* keys >= key_len are padding; causal: keys after i; a sliding
		   window: keys more than window − 1 before i */
		int vis = j->causal && i + 1 < j->key_len ? i + 1 : j->key_len;
		vis = vis < 0 ? 0 : vis < nk ? vis : nk;
		int lo = j->window > 0 && i - j->window + 1 > 0 ? i - j->window + 1 : 0;
		lo = lo < vis ? lo : vis;
		for (int c = 0; c < lo; c++)
			mr[c] = -INFINITY;
		if (bias)   /* T5: scores + the relative position bias */
			for (int c = lo; c < vis; c++)
				mr[c] = sr[c] + bias[(size_t)i * nk + c];
		else
			memcpy(mr + lo, sr + lo, (size_t)(vis - lo) * sizeof *mr);
		for (int c = vis; c < nk; c++)
			mr[c] = -INFINITY;
		memcpy(wr, mr, (size_t)nk * sizeof *wr);
		op_softmax_rows(wr, 1, nk);
	}
	float *hd = j->hd + (size_t)hh * nq * dk;
	if (hh == j->ablate)   /* what-if: this head's output is zero */
		memset(hd, 0, (size_t)nq * dk * sizeof *hd);
	else
		op_matmul_nn(wt, nk, v, dk, hd, dk, nq, dk, nk, 1.0f);
	for (int i = 0; i < nq; i++)
		memcpy(j->cat + (size_t)i * j->h * dk + hh * dk, hd + (size_t)i * dk,
		       (size_t)dk * sizeof *hd);
}

/* Q [h, nq, dk] and K, V [h_kv, nk, dk] of xq[nq, d] and xkv[nk, d]: one
 * product for Q|K|V (self) or Q and K|V (cross) into the scratch, then
 * each head's columns. */
static void project(struct ctx *c, const struct attn_w *w, int cross,
		    const float *xq, int nq, const float *xkv, int nk,
		    float *q, float *k, float *v)
{
	const int d = c->d, qd = c->qd, kvd = c->kvd, dk = c->dk;
	const float *pq = c->scratch, *pk, *pv;
	int ldq, ldkv;
	if (!cross) {
		op_linear(xq, nq, d, w->in_w, w->in_b, qd + 2 * kvd, c->scratch);
		ldq = ldkv = qd + 2 * kvd;
		pk = c->scratch + qd;
		pv = c->scratch + qd + kvd;
	} else {
		float *kv = c->scratch + (size_t)nq * qd;
		op_linear(xq, nq, d, w->in_w, w->in_b, qd, c->scratch);
		op_linear(xkv, nk, d, w->in_w + (size_t)qd * d,
			  w->in_b ? w->in_b + qd : NULL, 2 * kvd, kv);
		ldq = qd;
		ldkv = 2 * kvd;
		pk = kv;
		pv = kv + kvd;
	}
	for (int hh = 0; hh < c->h; hh++)
		head_rows(pq, ldq, hh, nq, dk, q + (size_t)hh * nq * dk);
	for (int g = 0; g < c->hkv; g++) {
		head_rows(pk, ldkv, g, nk, dk, k + (size_t)g * nk * dk);
		head_rows(pv, ldkv, g, nk, dk, v + (size_t)g * nk * dk);
	}
}

/* Qwen3's q/k norms, then the rotary embedding (self-attention): each a
 * stage; *q, *k become the last one recorded. */
static int qk_prepare(struct ctx *c, enum block blk, int layer, const char *prefix,
		      int cross, const struct attn_w *w, const float **q, int nq,
		      enum axis qax, const float **k, int nk, enum axis kax)
{
	const int h = c->h, hkv = c->hkv, dk = c->dk;
	const float eps = (float)c->m->cfg.norm_eps;
	char nm[STAGE_NAME_MAX];
	if (w->q_norm) {
		name2(nm, prefix, "q_norm");
		float *qn = fwd_cube(c, SK_PERHEAD, blk, layer, F_QNORM, h, nq, qax, dk, AX_NONE, nm);
		name2(nm, prefix, "k_norm");
		float *kn = fwd_cube(c, SK_PERHEAD, blk, layer, F_KNORM, hkv, nk, kax, dk, AX_NONE, nm);
		if (c->failed)
			return -1;
		op_rmsnorm(*q, h * nq, dk, w->q_norm, 0.0f, eps, qn);
		op_rmsnorm(*k, hkv * nk, dk, w->k_norm, 0.0f, eps, kn);
		*q = qn;
		*k = kn;
	}
	if (!c->inv || cross)
		return 0;
	name2(nm, prefix, "q_rot");
	float *qr = fwd_cube(c, SK_PERHEAD, blk, layer, F_QROT, h, nq, qax, dk, AX_NONE, nm);
	name2(nm, prefix, "k_rot");
	float *kr = fwd_cube(c, SK_PERHEAD, blk, layer, F_KROT, hkv, nk, kax, dk, AX_NONE, nm);
	if (c->failed)
		return -1;
	for (int hh = 0; hh < h; hh++)
		rope_apply(*q + (size_t)hh * nq * dk, dk, nq, dk, 0, c->inv,
			   qr + (size_t)hh * nq * dk, dk);
	for (int g = 0; g < hkv; g++)
		rope_apply(*k + (size_t)g * nk * dk, dk, nk, dk, 0, c->inv,
			   kr + (size_t)g * nk * dk, dk);
	*q = qr;
	*k = kr;
	return 0;
}

/* Multi-head attention of queries from xq[nq, d] over keys/values from
 * xkv[nk, d].  Keys at positions >= key_len are padding; causal masks keys
 * after the query, window (> 0) those window or more before it.  Records
 * q, k, v (q_norm, k_norm, q_rot, k_rot), scores, masked, weights, heads,
 * concat and out under prefix; returns out [nq, d]. */
static const float *attention(struct ctx *c, enum block blk, int layer,
			      const char *prefix, int cross,
			      const struct attn_w *w, const float *xq, int nq,
			      enum axis qax, const float *xkv, int nk,
			      enum axis kax, int key_len, int causal, int window,
			      int ablate)
{
	const int d = c->d, h = c->h, hkv = c->hkv, dk = c->dk;
	const struct config *cfg = &c->m->cfg;
	char nm[STAGE_NAME_MAX];
	float *q, *k, *v, *sc, *mk, *wt, *hd, *cat, *out;

	name2(nm, prefix, "q");
	q = fwd_cube(c, SK_PERHEAD, blk, layer, cross ? F_Q_CROSS : F_Q, h, nq, qax, dk, AX_NONE, nm);
	name2(nm, prefix, "k");
	k = fwd_cube(c, SK_PERHEAD, blk, layer, cross ? F_K_CROSS : F_K, hkv, nk, kax, dk, AX_NONE, nm);
	name2(nm, prefix, "v");
	v = fwd_cube(c, SK_PERHEAD, blk, layer, cross ? F_V_CROSS : F_V, hkv, nk, kax, dk, AX_NONE, nm);
	if (c->failed)
		return NULL;
	project(c, w, cross, xq, nq, xkv, nk, q, k, v);
	const float *qs = q, *ks = k;
	if (qk_prepare(c, blk, layer, prefix, cross, w, &qs, nq, qax, &ks, nk, kax))
		return NULL;

	const char *fs = cfg->attn_scale == 1 ? F_SCORES_UNSCALED : cfg->attn_scale > 0 ?
			 F_SCORES_PLAIN : c->inv && !cross ? F_SCORES_ROPE : F_SCORES;
	name2(nm, prefix, "scores");
	sc = fwd_cube(c, SK_SCORES, blk, layer, fs, h, nq, qax, nk, kax, nm);
	const float *table = blk == BLK_ENCODER ? c->m->enc_rel_bias : c->m->dec_rel_bias;
	const float *bias = cfg->rel_buckets && !cross && table && sc ?
			    fwd_rel_bias(c, blk, layer, prefix, table, nq, qax,
					 blk == BLK_DECODER) : NULL;
	name2(nm, prefix, "masked");
	mk = fwd_cube(c, SK_SCORES, blk, layer, bias ? F_MASKED_BIAS : F_MASKED, h, nq, qax,
		      nk, kax, nm);
	name2(nm, prefix, "weights");
	wt = fwd_cube(c, SK_WEIGHTS, blk, layer, F_WEIGHTS, h, nq, qax, nk, kax, nm);
	name2(nm, prefix, "heads");
	hd = fwd_cube(c, SK_PERHEAD, blk, layer, F_HEADS, h, nq, qax, dk, AX_NONE, nm);
	name2(nm, prefix, "concat");
	cat = fwd_mat(c, SK_VECTORS, blk, layer, F_CONCAT, nq, qax, c->qd, AX_NONE, nm);
	name2(nm, prefix, "out");
	out = fwd_mat(c, SK_VECTORS, blk, layer, F_OUT, nq, qax, d, AX_NONE, nm);
	if (c->failed)
		return NULL;

	struct heads_job j = {
		.q = qs, .k = ks, .v = v, .kt = c->scratch, .sc = sc, .mk = mk, .wt = wt,
		.bias = bias,
		.hd = hd, .cat = cat, .h = h, .group = h / hkv, .nq = nq, .nk = nk, .dk = dk,
		.scale = cfg->attn_scale > 0 ? (float)cfg->attn_scale : 1.0f / sqrtf((float)dk),
		.key_len = key_len, .causal = causal, .window = window, .ablate = ablate,
	};
	/* one task per head */
	if ((double)h * nq * nk * dk >= 1 << 16)
		pool_run(head_task, &j, h);
	else
		for (int hh = 0; hh < h; hh++)
			head_task(&j, hh, h);
	op_linear(cat, nq, c->qd, w->out_w, w->out_b, d, out);
	return out;
}

/* Pre-norm: records normK = LN(x) and returns it as the sublayer's input;
 * otherwise the input is x itself. */
static const float *sublayer_in(struct ctx *c, enum block blk, int layer,
				const char *prefix, int k, const float *x,
				int n, enum axis ax, const float *g,
				const float *b)
{
	if (c->m->cfg.norm != NORM_PRE)
		return x;
	char nm[STAGE_NAME_MAX];
	snprintf(nm, sizeof nm, "%s.norm%d", prefix, k);
	const enum norm_kind nk = c->m->cfg.norm_kind;
	float *y = fwd_mat(c, SK_VECTORS, blk, layer, nk == NK_RMS ? F_RMS_PRE : nk == NK_RMS1 ?
		       F_RMS1_PRE : F_NORM_PRE, n, ax, c->d, AX_NONE, nm);
	if (y)
		forward_norm(&c->m->cfg, x, n, g, b, y);
	return y;
}

/* Records addK = x + y and, for post-norm, normK = LN(addK).  Returns what
 * the next sublayer reads. */
static const float *sublayer_out(struct ctx *c, enum block blk, int layer,
				 const char *prefix, int k, const float *x,
				 const float *y, int n, enum axis ax,
				 const float *g, const float *b)
{
	const enum norm_style ns = c->m->cfg.norm;
	char nm[STAGE_NAME_MAX];
	if (!y)
		return NULL;
	snprintf(nm, sizeof nm, "%s.add%d", prefix, k);
	const int rms = c->m->cfg.norm_kind == NK_RMS || c->m->cfg.norm_kind == NK_RMS1;
	float *a = fwd_mat(c, SK_VECTORS, blk, layer, ns != NORM_PRE ? F_ADD : rms ? F_ADD_PRE_RMS :
		       F_ADD_PRE, n, ax, c->d, AX_NONE, nm);
	if (!a)
		return NULL;
	if (ns != NORM_POST) {
		op_add(x, y, a, (size_t)n * c->d);
		return a;
	}
	snprintf(nm, sizeof nm, "%s.norm%d", prefix, k);
	float *o = fwd_mat(c, SK_VECTORS, blk, layer, F_NORM, n, ax, c->d, AX_NONE, nm);
	if (!o)
		return NULL;
	const struct config *cfg = &c->m->cfg;
	if (cfg->norm_kind != NK_LAYERNORM) {
		op_add(x, y, a, (size_t)n * c->d);
		forward_norm(cfg, a, n, g, b, o);
	} else {   /* the add and the norm in one pass over the rows */
		op_add_layernorm(x, y, n, c->d, g, b, (float)cfg->norm_eps, a, o);
	}
	return o;
}

static int ablated(const struct ctx *c, enum block blk, int layer, int cross)
{
	const struct pass_opts *o = c->o;
	if (o->ablate_head < 0 || o->ablate_block != (int)blk ||
	    o->ablate_layer != layer || o->ablate_attn != cross)
		return -1;
	return o->ablate_head;
}

static const float *final_norm(struct ctx *c, enum block blk, const char *name,
			       const float *x, int n, enum axis ax,
			       const float *g, const float *b)
{
	if (!g || !x)
		return x;
	const enum norm_kind nk = c->m->cfg.norm_kind;
	float *y = fwd_mat(c, SK_VECTORS, blk, -1, nk == NK_RMS || nk == NK_RMS1 ? F_FINAL_RMS :
		       F_FINAL_NORM, n, ax, c->d, AX_NONE, name);
	if (y)
		forward_norm(&c->m->cfg, x, n, g, b, y);
	return y;
}

/* Sublayer part of layer i of blk on x [n, d] (n = S or T), cross-
 * attention reading memory [S, d]: its stages; returns its output [n, d]
 * (post-norm: the norm, else the residual sum). */
const float *fwd_sublayer(struct ctx *c, enum block blk, int i, enum part part,
			     const float *x, const float *memory)
{
	const struct model *m = c->m;
	const int enc = blk == BLK_ENCODER, n = enc ? c->S : c->T;
	const enum axis ax = enc ? AX_SRC : AX_TGT;
	const struct layer_w *L = enc ? &m->enc[i] : &m->dec[i];
	/* the norms' numbers: 1 self, 2 cross, then the feed-forward's */
	const int k = part == P_SELF ? 1 : part == P_CROSS ? 2 : enc || !memory ? 2 : 3;
	const float *g = k == 1 ? L->n1_w : k == 2 ? L->n2_w : L->n3_w;
	const float *b = k == 1 ? L->n1_b : k == 2 ? L->n2_b : L->n3_b;
	char p[24], pa[40];   /* "decoder.11", "decoder.11.cross_attn" */
	snprintf(p, sizeof p, "%s.%d", enc ? "encoder" : "decoder", i);
	snprintf(pa, sizeof pa, "%s.%s", p, part == P_CROSS ? "cross_attn" : "self_attn");
	const float *u = sublayer_in(c, blk, i, p, k, x, n, ax, g, b), *y = NULL;
	if (u && part == P_SELF)
		y = attention(c, blk, i, pa, 0, &L->self, u, n, ax, u, n, ax,
			      enc ? c->src_len : c->tgt_len, enc ? c->o->encoder_causal : c->o->causal,
			      !enc && i >= m->cfg.window_from ? m->cfg.sliding_window : 0,
			      ablated(c, blk, i, 0));
	else if (u && part == P_CROSS)
		y = attention(c, blk, i, pa, 1, &L->cross, u, n, ax, memory, c->S, AX_SRC,
			      c->src_len, 0, 0, ablated(c, blk, i, 1));
	else if (u)
		y = fwd_ffn(c, blk, i, p, L, u, n, ax);
	return sublayer_out(c, blk, i, p, k, x, y, n, ax, g, b);
}

/* One layer of either stack: its sublayers, as lazy_fill computes them
 * again; in a lazy trace each is a group, its output held, and a layer's
 * groups are dropped when the next layer starts (the last layer's stay:
 * its attention is the first one looked at, without computing it again). */
static const float *layer(struct ctx *c, enum block blk, int i, const float *x,
			  const float *memory)
{
	for (int part = P_SELF; part <= P_FFN && x; part++) {
		if (part == P_CROSS && (blk == BLK_ENCODER || !memory))
			continue;
		if (c->lazy && (fwd_lazy_note(c, blk, i, part, x, memory) ||
				trace_group_open(c->t, part == P_SELF) < 0)) {
			c->failed = 1;
			return NULL;
		}
		if (c->lazy)   /* T5's bias: the first layer's was dropped; made again */
			c->bias = NULL;
		x = fwd_sublayer(c, blk, i, (enum part)part, x, memory);
		if (c->lazy) {
			trace_hold(c->t, x);
			trace_group_close(c->t, 1);
		}
	}
	return x;
}

static const float *encoder(struct ctx *c, const struct pass_input *in)
{
	const struct model *m = c->m;
	const float *x = fwd_embed(c, BLK_SRC, "src", in->src_ids, in->S, AX_SRC, m->src_embed);
	for (int i = 0; i < m->cfg.enc_layers && x; i++)
		x = layer(c, BLK_ENCODER, i, x, NULL);
	return final_norm(c, BLK_ENCODER, "encoder.norm", x, in->S, AX_SRC,
			  m->enc_norm_w, m->enc_norm_b);
}

/* memory may be NULL (decoder-only). */
static const float *decoder(struct ctx *c, const struct pass_input *in,
			    const float *memory)
{
	const struct model *m = c->m;
	const float *x = fwd_embed(c, BLK_TGT, "tgt", in->tgt_ids, in->T, AX_TGT, m->tgt_embed);
	for (int i = 0; i < m->cfg.dec_layers && x; i++)
		x = layer(c, BLK_DECODER, i, x, memory);
	return final_norm(c, BLK_DECODER, "decoder.norm", x, in->T, AX_TGT,
			  m->dec_norm_w, m->dec_norm_b);
}

/* logits, probs and (with labels) loss for x[n, d]; with c->declare only
 * the stages, not their values. */
void fwd_output(struct ctx *c, const float *x, int n, enum axis ax,
		   const int32_t *labels, int nlabels, int label_len)
{
	const struct model *m = c->m;
	const int V = m->tgt_vocab.n;
	const double ls = m->cfg.logit_scale;
	const char *f = ls > 0 ? F_LOGITS_RESCALED : !m->gen_tied ? F_LOGITS :
			m->gen_b ? F_LOGITS_TIED_BIAS : F_LOGITS_TIED;
	float *lg = fwd_mat(c, SK_LOGITS, BLK_OUTPUT, -1, f, n, ax, V, AX_VOCAB, "logits");
	float *pr = fwd_mat(c, SK_PROBS, BLK_OUTPUT, -1, F_PROBS, n, ax, V, AX_VOCAB, "probs");
	if (!lg || !pr)
		return;
	int shape[1] = { nlabels };
	enum axis axes[1] = { ax };
	struct stage *s = labels ? trace_add(c->t, SK_LOSS, BLK_OUTPUT, -1, F_LOSS, DT_F32,
					     1, shape, axes, "loss") : NULL;
	if (labels && !s) {
		c->failed = 1;
		return;
	}
	if (c->declare)
		return;
	float *xs = NULL;   /* [n, d] T5 v1.0: x·d^-½ before the tied head */
	if (ls > 0) {
		if (!(xs = malloc((size_t)n * c->d * sizeof *xs))) {
			c->failed = 1;
			return;
		}
		for (size_t i = 0; i < (size_t)n * c->d; i++)
			xs[i] = x[i] * (float)ls;
		x = xs;
	}
	op_linear(x, n, c->d, m->gen_w, m->gen_b, V, lg);
	free(xs);
	memcpy(pr, lg, (size_t)n * V * sizeof *pr);
	op_softmax_rows(pr, n, V);
	if (!labels)
		return;
	float *loss = s->data;
	memset(loss, 0, (size_t)nlabels * sizeof *loss);   /* padding: loss 0 */
	for (int i = 0; i < label_len; i++) {
		/* −log p = logsumexp(logits) − logit[label], stable for tiny p */
		const float *r = lg + (size_t)i * V;
		float mx = -INFINITY;
		for (int j = 0; j < V; j++)
			mx = r[j] > mx ? r[j] : mx;
		double sum = 0;
		for (int j = 0; j < V; j++)
			sum += exp((double)r[j] - mx);
		loss[i] = (float)(mx + log(sum) - r[labels[i]]);
	}
}

/* A copy of n strings (NULL entries stay NULL). */
static char **dup_tokens(char **src, int n)
{
	char **out = calloc((size_t)(n ? n : 1), sizeof *out);
	if (!out)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (src[i] && !(out[i] = strdup(src[i]))) {
			tokens_free(out, i);
			return NULL;
		}
	}
	return out;
}

/* Whether every id of ids [n] is a row of a vocabulary of V tokens: the
 * embedding tables are read at these rows. */
static int ids_valid(const int32_t *ids, int n, int V, const char *side, struct err *e)
{
	for (int i = 0; ids && i < n; i++)
		if (ids[i] < 0 || ids[i] >= V)
			return err_set(e, "%s token %d has id %d, outside the vocabulary "
				       "of %d tokens", side, i, (int)ids[i], V);
	return 0;
}

/* Sets c up for a pass of m into t at these lengths: the dimensions, the
 * scratch, RoPE's frequencies.  Returns -1 when out of memory. */
int fwd_ctx_setup(struct ctx *c, const struct model *m, const struct pass_opts *o,
		     struct trace *t, int S, int T, int src_len, int tgt_len)
{
	const struct config *cfg = &m->cfg;
	*c = (struct ctx){
		.m = m, .o = o, .t = t, .d = cfg->d_model, .h = cfg->heads,
		.dk = cfg_dk(cfg), .F = cfg->d_ff, .hkv = cfg_kv_heads(cfg),
		.S = S, .T = T, .src_len = src_len, .tgt_len = tgt_len,
	};
	c->qd = c->h * c->dk;
	c->kvd = c->hkv * c->dk;
	int nmax = S > T ? S : T;
	c->scratch = malloc((size_t)(nmax ? nmax : 1) * (c->qd + 2 * c->kvd) * sizeof *c->scratch);
	if (cfg->pe == PE_ROPE && (c->inv = malloc((size_t)(c->dk / 2 + 1) * sizeof *c->inv)))
		rope_inv_freq(cfg, c->dk, c->inv);
	return !c->scratch || (cfg->pe == PE_ROPE && !c->inv) ? -1 : 0;
}

void fwd_ctx_release(struct ctx *c)
{
	free(c->scratch);
	free(c->inv);
	c->scratch = c->inv = NULL;
}

/* The trace's labels: tokens, typed words, vocabulary, specials. */
static int trace_labels(struct trace *t, const struct model *m, const struct pass_input *in,
			const struct pass_opts *o)
{
	t->opts = *o;
	t->vocab = &m->tgt_vocab;
	t->tok = &m->cfg.tok;
	t->pad_id = m->tgt_sp[TOK_PAD];
	t->sos_id = m->tgt_sp[TOK_SOS];
	t->classes = (const char *const *)m->cfg.head.labels;
	t->nclasses = m->cfg.head.nlabels;
	t->S = in->S;
	t->T = in->T;
	if (!(t->src_tokens = dup_tokens(in->src_tok, in->S)) ||
	    !(t->tgt_tokens = dup_tokens(in->tgt_tok, in->T)))
		return -1;
	if (in->label_tok && (!(t->label_tokens = dup_tokens(in->label_tok, in->T)) ||
			      !(t->next_tokens = dup_tokens(in->label_tok, in->T))))
		return -1;
	if (in->src_typed && !(t->src_typed = dup_tokens(in->src_typed, in->S)))
		return -1;
	if (in->ndropped && !(t->dropped = dup_tokens(in->dropped, in->ndropped)))
		return -1;
	t->ndropped = in->ndropped;
	if (in->tgt_typed) {
		/* the first ntgt_typed positions (decoding replaces the rest) */
		if (!(t->tgt_typed = calloc((size_t)(in->T ? in->T : 1), sizeof *t->tgt_typed)))
			return -1;
		for (int i = 0; i < in->T && i < in->ntgt_typed; i++)
			if (in->tgt_typed[i] && !(t->tgt_typed[i] = strdup(in->tgt_typed[i])))
				return -1;
	}
	return 0;
}

/* The pass itself, by architecture. */
static void run_arch(struct ctx *c, const struct pass_input *in)
{
	const struct model *m = c->m;
	switch (m->cfg.arch) {
	case ARCH_ENC_DEC: {
		const float *mem = encoder(c, in);
		float *mc = mem ? fwd_mat(c, SK_VECTORS, BLK_ENCODER, -1, F_MEMORY,
				      in->S, AX_SRC, c->d, AX_NONE, "memory") : NULL;
		if (!mc) {
			c->failed = 1;
			return;
		}
		memcpy(mc, mem, (size_t)in->S * c->d * sizeof *mc);
		const float *y = decoder(c, in, mc);
		if (y)
			fwd_output_group(c, y, in->T, AX_TGT, in->labels, in->nlabels, in->label_len);
		break;
	}
	case ARCH_DEC_ONLY: {
		const float *y = decoder(c, in, NULL);
		if (y)
			fwd_output_group(c, y, in->T, AX_TGT, in->labels, in->nlabels, in->label_len);
		break;
	}
	case ARCH_ENC_ONLY: {
		const float *y = encoder(c, in);
		if (y && m->head_w)
			fwd_classify(c, y, in);
		else if (y && m->cfg.layout == LAYOUT_BERT)
			fwd_bert_output(c, y, in->S);
		else if (y)
			fwd_output_group(c, y, in->S, AX_SRC, NULL, 0, 0);
		break;
	}
	}
}

struct trace *forward_run(const struct model *m, const struct pass_input *in,
			  const struct pass_opts *o, struct trace *reuse,
			  struct err *e)
{
	struct ctx c;
	if (ids_valid(in->src_ids, in->S, m->src_vocab.n, "source", e) ||
	    ids_valid(in->tgt_ids, in->T, m->tgt_vocab.n, "target", e)) {
		if (reuse)
			trace_reset(reuse);
		return NULL;
	}
	if (reuse)
		trace_reset(reuse);
	struct trace *t = reuse ? reuse : trace_new();
	if (fwd_ctx_setup(&c, m, o, t, in->S, in->T, in->src_len, in->tgt_len) || !t ||
	    trace_labels(t, m, in, o) ||
	    (forward_trace_lazy(m, in->S, in->T, o) && fwd_lazy_start(&c, in, o)))
		goto oom;
	if (c.inv) {   /* the frequencies, for the rotary picture */
		if (!(t->rope_inv = malloc((size_t)(c.dk / 2 + 1) * sizeof *c.inv)))
			goto oom;
		memcpy(t->rope_inv, c.inv, (size_t)(c.dk / 2) * sizeof *c.inv);
		t->rope_pairs = c.dk / 2;
	}
	t->kv_heads = c.hkv != c.h ? c.hkv : 0;
	pool_hot(1);
	run_arch(&c, in);
	pool_hot(0);
	if (c.failed)
		goto oom;
	if (m->cfg.gguf)   /* what quantisation did, on every stage's screen */
		stage_weight_fill(t, m);
	fwd_ctx_release(&c);
	return t;
oom:
	fwd_ctx_release(&c);
	if (reuse)
		trace_reset(reuse);
	else
		trace_free(t);
	err_set(e, "out of memory in the forward pass");
	return NULL;
}

double forward_flops(const struct model *m, int S, int T)
{
	const struct config *c = &m->cfg;
	const double d = c->d_model, F = c->d_ff, V = m->tgt_vocab.n;
	const double qd = (double)c->heads * cfg_dk(c), kvd = (double)cfg_kv_heads(c) * cfg_dk(c);
	/* per attention: projections + QKᵀ + weights·V + W_O */
	double self_s = 2 * S * d * (qd + 2 * kvd) + 4.0 * S * S * qd + 2 * S * qd * d;
	double self_t = 2 * T * d * (qd + 2 * kvd) + 4.0 * T * T * qd + 2 * T * qd * d;
	double cross = 2 * T * d * qd + 2 * S * d * 2 * kvd + 4.0 * T * S * qd + 2 * T * qd * d;
	const double ff = c->ffn_gated ? 6 : 4;   /* gate, up, down: three products */
	double ffn_s = ff * S * d * F, ffn_t = ff * T * d * F;
	switch (c->arch) {
	case ARCH_ENC_DEC:
		return c->enc_layers * (self_s + ffn_s) +
		       c->dec_layers * (self_t + cross + ffn_t) + 2 * T * d * V;
	case ARCH_DEC_ONLY:
		return c->dec_layers * (self_t + ffn_t) + 2 * T * d * V;
	case ARCH_ENC_ONLY:
		return c->enc_layers * (self_s + ffn_s) + 2 * S * d * V;
	}
	return 0;
}
