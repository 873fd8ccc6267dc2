/* decode.c - greedy, beam search and sampling with a key/value cache.
 *
 * Dimension names: B live hypotheses, t current position, S source length,
 * d d_model, h heads, dk = d/h, F d_ff, V target vocabulary, Ld decoder
 * layers, Tc cache capacity (positions).
 *
 * The step function computes, for B hypotheses at position t, one new row
 * per layer: self-attention over the cached keys/values of positions 0…t
 * (the causal mask is implicit: the future is not in the cache), then
 * cross-attention over the encoder memory (its keys/values computed once),
 * then the feed-forward.  It is the same function as forward.c's decoder
 * restricted to the last row; the tests check they agree. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "forward.h"
#include "ops.h"
#include "pool.h"
#include "relpos.h"
#include "rope.h"
#include "base/clock.h"

struct dec {
	const struct model *m;
	int d, h, dk, F, V, Ld, S, src_len, cross;
	int hkv, qd, kvd;      /* key/value heads, h·dk, h_kv·dk */
	int bcap, tcap;
	const float *memory;   /* [S, d] */
	float *ck, *cv;        /* cross keys/values [Ld, S, kvd] */
	float *kc, *vc;        /* self cache [Ld, bcap, tcap, kvd] (keys rotated) */
	float *kc2, *vc2;      /* the same, for reordering */
	float *x, *u, *y, *cat;   /* [bcap, d], [bcap, d], [bcap, d], [bcap, qd] */
	float *qkv;            /* [bcap, qd + 2kvd] */
	float *hid, *up;       /* [bcap, max(F, V)], [bcap, F] (gated) */
	float *sc;             /* [max(tcap, S)] */
	float *inv;            /* [dk/2] rotary frequencies, or NULL */
	float *relb;           /* [h, tcap] T5's bias of a key n positions
	                          before the query (causal buckets), or NULL */
	const struct pass_opts *po;   /* the what-if ablation of a head */
};

void decode_opts_default(struct decode_opts *o)
{
	memset(o, 0, sizeof *o);
	o->beam = 1;
	o->alpha = 0.6;
	o->topk = 5;
	o->force_step = -1;
	sample_opts_default(&o->so);
}

static void dec_free(struct dec *D)
{
	free(D->ck); free(D->cv); free(D->kc); free(D->vc); free(D->kc2);
	free(D->vc2); free(D->x); free(D->u); free(D->y); free(D->qkv);
	free(D->cat); free(D->hid); free(D->up); free(D->sc); free(D->inv);
	free(D->relb);
}

/* Cross-attention keys and values of the memory, once per layer. */
static int cross_kv(struct dec *D)
{
	const size_t kvd = (size_t)D->kvd, S = (size_t)D->S;
	D->ck = malloc((size_t)D->Ld * S * kvd * sizeof(float));
	D->cv = malloc((size_t)D->Ld * S * kvd * sizeof(float));
	float *kv = malloc(S * 2 * kvd * sizeof(float));
	if (!D->ck || !D->cv || !kv) {
		free(kv);
		return -1;
	}
	for (int l = 0; l < D->Ld; l++) {
		const struct attn_w *w = &D->m->dec[l].cross;
		op_linear(D->memory, D->S, D->d, w->in_w + (size_t)D->qd * D->d,
			  w->in_b ? w->in_b + D->qd : NULL, 2 * D->kvd, kv);
		for (size_t j = 0; j < S; j++) {
			memcpy(D->ck + ((size_t)l * S + j) * kvd, kv + j * 2 * kvd, kvd * sizeof(float));
			memcpy(D->cv + ((size_t)l * S + j) * kvd, kv + j * 2 * kvd + kvd,
			       kvd * sizeof(float));
		}
	}
	free(kv);
	return 0;
}

static int dec_init(struct dec *D, const struct model *m, const float *memory,
		    int S, int src_len, int bcap, int tcap)
{
	const struct config *c = &m->cfg;
	memset(D, 0, sizeof *D);
	D->m = m;
	D->d = c->d_model;
	D->h = c->heads;
	D->dk = cfg_dk(c);
	D->hkv = cfg_kv_heads(c);
	D->qd = D->h * D->dk;
	D->kvd = D->hkv * D->dk;
	D->F = c->d_ff;
	D->V = m->tgt_vocab.n;
	D->Ld = c->dec_layers;
	D->S = S;
	D->src_len = src_len;
	D->cross = c->arch == ARCH_ENC_DEC;
	D->memory = memory;
	D->bcap = bcap;
	D->tcap = tcap;
	const size_t d = (size_t)D->d, cache = (size_t)D->Ld * bcap * tcap * D->kvd;
	size_t scn = (size_t)(tcap > S ? tcap : S);
	D->kc = malloc(cache * sizeof(float));
	D->vc = malloc(cache * sizeof(float));
	D->kc2 = malloc(cache * sizeof(float));
	D->vc2 = malloc(cache * sizeof(float));
	D->x = malloc((size_t)bcap * d * sizeof(float));
	D->u = malloc((size_t)bcap * d * sizeof(float));
	D->y = malloc((size_t)bcap * d * sizeof(float));
	D->qkv = malloc((size_t)bcap * (D->qd + 2 * D->kvd) * sizeof(float));
	D->cat = malloc((size_t)bcap * D->qd * sizeof(float));
	size_t hidn = (size_t)bcap * (D->F > D->V ? D->F : D->V);
	D->hid = malloc(hidn * sizeof(float));
	D->up = c->ffn_gated ? malloc((size_t)bcap * D->F * sizeof(float)) : NULL;
	D->sc = malloc(scn * sizeof(float));
	if (!D->kc || !D->vc || !D->kc2 || !D->vc2 || !D->x || !D->u || !D->y ||
	    !D->qkv || !D->cat || !D->hid || !D->sc || (c->ffn_gated && !D->up))
		return -1;
	if (c->pe == PE_ROPE) {
		if (!(D->inv = malloc((size_t)(D->dk / 2 + 1) * sizeof(float))))
			return -1;
		rope_inv_freq(c, D->dk, D->inv);
	}
	if (c->rel_buckets && m->dec_rel_bias) {   /* T5: one row per distance */
		if (!(D->relb = malloc((size_t)D->h * tcap * sizeof(float))))
			return -1;
		for (int n = 0; n < tcap; n++) {
			int k = relpos_bucket(-n, 0, c->rel_buckets, c->rel_max_dist);
			for (int hh = 0; hh < D->h; hh++)
				D->relb[(size_t)hh * tcap + n] = m->dec_rel_bias[(size_t)k * D->h + hh];
		}
	}
	return D->cross ? cross_kv(D) : 0;
}

static float *cache_row(float *c, const struct dec *D, int l, int b, int t)
{
	return c + (((size_t)l * D->bcap + b) * D->tcap + t) * D->kvd;
}

/* One head's attention for one query row: scores over n keys (rows of K
 * with stride kvd; keys before lo and from key_len on masked), softmax,
 * weighted sum of V. */
static void attend(const struct dec *D, const float *q, const float *K,
		   const float *V, int n, int lo, int key_len, const float *bias,
		   float *out)
{
	const double as = D->m->cfg.attn_scale;
	const float scale = as > 0 ? (float)as : 1.0f / sqrtf((float)D->dk);
	cblas_sgemv(CblasRowMajor, CblasNoTrans, n, D->dk, scale, K, D->kvd, q, 1,
		    0.0f, D->sc, 1);
	for (int j = 0; bias && j < n; j++)   /* T5: key j is n − 1 − j back */
		D->sc[j] += bias[n - 1 - j];
	for (int j = 0; j < lo && j < n; j++)
		D->sc[j] = -INFINITY;
	for (int j = key_len; j < n; j++)
		D->sc[j] = -INFINITY;
	op_softmax_rows(D->sc, 1, n);
	cblas_sgemv(CblasRowMajor, CblasTrans, n, D->dk, 1.0f, V, D->kvd, D->sc, 1,
		    0.0f, out, 1);
}

/* The decoder head zeroed in layer l's self (cross 0) or cross-attention
 * (the pass's what-if), or −1. */
static int ablated_head(const struct dec *D, int l, int cross)
{
	const struct pass_opts *o = D->po;
	return o && o->ablate_head >= 0 && o->ablate_block == BLK_DECODER &&
	       o->ablate_layer == l && o->ablate_attn == cross ? o->ablate_head : -1;
}

/* x (B rows) ← residual + norm around y, in the model's norm order.  For
 * pre-norm the norm was applied to the sublayer's input already. */
static void residual(const struct dec *D, int B, const float *g, const float *b)
{
	const size_t n = (size_t)B * D->d;
	for (size_t i = 0; i < n; i++)
		D->x[i] += D->y[i];
	if (D->m->cfg.norm == NORM_POST)
		forward_norm(&D->m->cfg, D->x, B, g, b, D->x);
}

/* The sublayer's input: LN(x) for pre-norm, else x. */
static const float *sub_in(const struct dec *D, int B, const float *g, const float *b)
{
	if (D->m->cfg.norm != NORM_PRE)
		return D->x;
	forward_norm(&D->m->cfg, D->x, B, g, b, D->u);
	return D->u;
}

/* x ← the embeddings of tok[B] at position t (+ its position row). */
static void embed_row(struct dec *D, int B, int t, const int32_t *tok)
{
	const struct model *m = D->m;
	const struct config *c = &m->cfg;
	const int d = D->d;
	const float sc = c->scale_embedding ? sqrtf((float)d) : 1.0f;
	float *pe = D->u;   /* scratch for one PE row */
	if (c->pe == PE_SINUSOIDAL) {
		/* row t of the sinusoid table */
		for (int i = 0; i < d; i += 2) {
			double a = t / pow(10000.0, (double)i / d);
			pe[i] = (float)sin(a);
			if (i + 1 < d)
				pe[i + 1] = (float)cos(a);
		}
	}
	const int half = (d + 1) / 2;
	for (int i = 0; c->pe == PE_SIN_HALVES && i < half; i++) {   /* Marian's */
		double a = t / pow(10000.0, (double)(2 * i) / d);
		pe[i] = (float)sin(a);
		if (half + i < d)
			pe[half + i] = (float)cos(a);
	}
	const int sinus = c->pe == PE_SINUSOIDAL || c->pe == PE_SIN_HALVES;
	const float *pos = m->tgt_pos_embed ? m->tgt_pos_embed : m->pos_embed;
	const float *row = c->pe == PE_LEARNED ? pos + (size_t)(t + c->pos_offset) * d : NULL;
	for (int b = 0; b < B; b++)
		for (int j = 0; j < d; j++) {
			float p = sinus ? pe[j] : row ? row[j] : 0.0f;
			D->x[(size_t)b * d + j] = m->tgt_embed[(size_t)tok[b] * d + j] * sc + p;
		}
	if (m->tgt_in_norm_w)   /* BART's layernorm_embedding */
		forward_norm(c, D->x, B, m->tgt_in_norm_w, m->tgt_in_norm_b, D->x);
}

/* Self-attention of layer l at position t over the cache: each row's
 * q|k|v, Qwen3's q/k norms and the rotation in place, k and v appended to
 * the cache; the heads into cat [B, qd]. */
static void self_attn(struct dec *D, int l, int B, int t, const float *u)
{
	const struct config *c = &D->m->cfg;
	const struct attn_w *w = &D->m->dec[l].self;
	const int dk = D->dk, qd = D->qd, kvd = D->kvd, ld = qd + 2 * kvd;
	const int group = D->h / D->hkv;
	const int win = l >= c->window_from ? c->sliding_window : 0;
	const int lo = win > 0 && t - win + 1 > 0 ? t - win + 1 : 0;
	op_linear(u, B, D->d, w->in_w, w->in_b, ld, D->qkv);
	for (int b = 0; b < B; b++) {
		float *r = D->qkv + (size_t)b * ld;   /* q [qd] | k [kvd] | v [kvd] */
		if (w->q_norm) {
			op_rmsnorm(r, D->h, dk, w->q_norm, 0.0f, (float)c->norm_eps, r);
			op_rmsnorm(r + qd, D->hkv, dk, w->k_norm, 0.0f, (float)c->norm_eps, r + qd);
		}
		for (int hh = 0; D->inv && hh < D->h + D->hkv; hh++)   /* q's heads, k's */
			rope_apply(r + hh * dk, dk, 1, dk, t, D->inv, r + hh * dk, dk);
		memcpy(cache_row(D->kc, D, l, b, t), r + qd, (size_t)kvd * sizeof(float));
		memcpy(cache_row(D->vc, D, l, b, t), r + qd + kvd, (size_t)kvd * sizeof(float));
		for (int hh = 0; hh < D->h; hh++)
			attend(D, r + hh * dk, cache_row(D->kc, D, l, b, 0) + hh / group * dk,
			       cache_row(D->vc, D, l, b, 0) + hh / group * dk, t + 1, lo, t + 1,
			       D->relb ? D->relb + (size_t)hh * D->tcap : NULL,
			       D->cat + (size_t)b * qd + hh * dk);
	}
	int z = ablated_head(D, l, 0);
	for (int b = 0; z >= 0 && b < B; b++)   /* its output is zero */
		memset(D->cat + (size_t)b * qd + z * dk, 0, (size_t)dk * sizeof(float));
}
/* Cross-attention of layer l over the memory: the heads into cat. */
static void cross_attn(struct dec *D, int l, int B, const float *u)
{
	const struct attn_w *w = &D->m->dec[l].cross;
	const int dk = D->dk, qd = D->qd, group = D->h / D->hkv;
	const size_t off = (size_t)l * D->S * D->kvd;
	op_linear(u, B, D->d, w->in_w, w->in_b, qd, D->qkv);
	for (int b = 0; b < B; b++)
		for (int hh = 0; hh < D->h; hh++)
			attend(D, D->qkv + (size_t)b * qd + hh * dk, D->ck + off + hh / group * dk,
			       D->cv + off + hh / group * dk, D->S, 0, D->src_len, NULL,
			       D->cat + (size_t)b * qd + hh * dk);
	int z = ablated_head(D, l, 1);
	for (int b = 0; z >= 0 && b < B; b++)
		memset(D->cat + (size_t)b * qd + z * dk, 0, (size_t)dk * sizeof(float));
}

/* The feed-forward of u [B, d] into y; gated: act(gate) ⊙ up. */
static void feed_forward(struct dec *D, const struct layer_w *L, int B, const float *u)
{
	const struct config *c = &D->m->cfg;
	const int d = D->d, F = D->F;
	const size_t n = (size_t)B * F;
	op_linear(u, B, d, L->l1_w, L->l1_b, F, D->hid);
	forward_act(c, D->hid, n);
	if (c->ffn_gated) {
		op_linear(u, B, d, L->l1_w + (size_t)F * d, L->l1_b ? L->l1_b + F : NULL, F, D->up);
		for (size_t i = 0; i < n; i++)
			D->hid[i] *= D->up[i];
	}
	op_linear(D->hid, B, F, L->l2_w, L->l2_b, d, D->y);
}

/* Position t for B hypotheses whose tokens at t are tok[B]: appends to the
 * self cache and writes log-probabilities [B, V] into out. */
static void dec_step(struct dec *D, int B, int t, const int32_t *tok, float *out)
{
	const struct model *m = D->m;
	const struct config *c = &m->cfg;
	const int d = D->d;

	embed_row(D, B, t, tok);
	for (int l = 0; l < D->Ld; l++) {
		const struct layer_w *L = &m->dec[l];
		self_attn(D, l, B, t, sub_in(D, B, L->n1_w, L->n1_b));
		op_linear(D->cat, B, D->qd, L->self.out_w, L->self.out_b, d, D->y);
		residual(D, B, L->n1_w, L->n1_b);
		const float *g = L->n2_w, *gb = L->n2_b;
		if (D->cross) {
			cross_attn(D, l, B, sub_in(D, B, L->n2_w, L->n2_b));
			op_linear(D->cat, B, D->qd, L->cross.out_w, L->cross.out_b, d, D->y);
			residual(D, B, L->n2_w, L->n2_b);
			g = L->n3_w;
			gb = L->n3_b;
		}
		feed_forward(D, L, B, sub_in(D, B, g, gb));
		residual(D, B, g, gb);
	}
	const float *y = D->x;
	if (m->dec_norm_w) {
		forward_norm(c, D->x, B, m->dec_norm_w, m->dec_norm_b, D->u);
		y = D->u;
	}
	if (c->logit_scale > 0) {   /* T5 v1.0's tied head: x·d^-½ */
		float *ys = y == D->u ? D->u : D->y;
		for (size_t i = 0; i < (size_t)B * d; i++)
			ys[i] = y[i] * (float)c->logit_scale;
		y = ys;
	}
	op_linear(y, B, d, m->gen_w, m->gen_b, D->V, out);
	/* log-softmax per row */
	for (int b = 0; b < B; b++) {
		float *r = out + (size_t)b * D->V;
		float mx = -INFINITY;
		for (int j = 0; j < D->V; j++)
			mx = r[j] > mx ? r[j] : mx;
		double s = 0;
		for (int j = 0; j < D->V; j++)
			s += exp((double)r[j] - mx);
		float lse = mx + (float)log(s);
		for (int j = 0; j < D->V; j++)
			r[j] -= lse;
	}
}

/* Makes hypothesis b's cache a copy of parent's (positions 0…t). */
static void dec_reorder(struct dec *D, const int *parent, int B, int t)
{
	const size_t row = (size_t)(t + 1) * D->kvd * sizeof(float);
	for (int l = 0; l < D->Ld; l++)
		for (int b = 0; b < B; b++) {
			memcpy(cache_row(D->kc2, D, l, b, 0), cache_row(D->kc, D, l, parent[b], 0), row);
			memcpy(cache_row(D->vc2, D, l, b, 0), cache_row(D->vc, D, l, parent[b], 0), row);
		}
	float *k = D->kc, *v = D->vc;
	D->kc = D->kc2;
	D->vc = D->vc2;
	D->kc2 = k;
	D->vc2 = v;
}

static double length_penalty(double alpha, int n)
{
	return alpha > 0 ? pow((5.0 + n) / 6.0, alpha) : 1.0;
}

/* The stopping rule.  A live hypothesis of n tokens and log p L can only
 * finish at a length m in n+1 … maxlen with a log p L' ≤ L ≤ 0, so its
 * final score L'/lp(m) is at most L / lp(m) ≤ L / lp(maxlen): dividing a
 * non-positive number by a larger positive one brings it closer to 0, and
 * lp grows with m for α > 0.  For α = 0 (lp = 1; length_penalty treats
 * α ≤ 0 so) the bound is L itself.  The search stops when the best
 * finished score reaches the bound of every live hypothesis: nothing that
 * stopping drops could have scored higher.  Returns the largest bound. */
static double live_bound(double alpha, const struct hyp *live, int nlive, int maxlen)
{
	const double lpmax = length_penalty(alpha, maxlen);
	double bound = -INFINITY;
	for (int b = 0; b < nlive; b++) {
		double x = live[b].logp / lpmax;
		bound = x > bound ? x : bound;
	}
	return bound;
}

static double best_finished(const struct decode_result *r)
{
	double best = -INFINITY;
	for (int f = 0; f < r->nfinished; f++)
		best = r->finished[f].score > best ? r->finished[f].score : best;
	return best;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->parent != y->parent)
		return x->parent - y->parent;
	return x->token - y->token;
}

static int cmp_hyp(const void *a, const void *b)
{
	const struct hyp *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

static int hyp_copy(struct hyp *dst, const struct hyp *src, int extra)
{
	*dst = *src;
	dst->ids = malloc((size_t)(src->n + extra + 1) * sizeof *dst->ids);
	if (!dst->ids)
		return -1;
	if (src->n)
		memcpy(dst->ids, src->ids, (size_t)src->n * sizeof *dst->ids);
	return 0;
}

static void hyps_free(struct hyp *h, int n)
{
	for (int i = 0; h && i < n; i++)
		free(h[i].ids);
	free(h);
}

void decode_result_free(struct decode_result *r)
{
	for (int i = 0; i < r->nsteps; i++) {
		hyps_free(r->steps[i].hyps, r->steps[i].nhyps);
		free(r->steps[i].cands);
	}
	free(r->steps);
	hyps_free(r->finished, r->nfinished);
	free(r->best);
	memset(r, 0, sizeof *r);
}

/* Indices of the k largest entries of row[V], largest first, leaving out
 * tokens never generated (the model's <pad>, <s>: sp) and </s> when
 * allow_eos is 0. */
static int top_indices(const float *row, int V, const int *sp, int k,
		       int allow_eos, int *idx)
{
	int n = 0;
	for (int j = 0; j < V; j++) {
		if (j == sp[TOK_PAD] || j == sp[TOK_SOS] || (j == sp[TOK_EOS] && !allow_eos))
			continue;
		if (n < k || row[j] > row[idx[n - 1]]) {
			int p = n < k ? n++ : k - 1;
			while (p > 0 && row[idx[p - 1]] < row[j]) {
				idx[p] = idx[p - 1];
				p--;
			}
			idx[p] = j;
		}
	}
	return n;
}

/* The token a hypothesis feeds at a step: the last prompt token (<s> for
 * an encoder-decoder) at step 0, then its own output of the step before. */
static int32_t fed(const struct pass_input *src, int prompt, const struct hyp *h,
		   int step)
{
	return step == 0 ? src->tgt_ids[prompt] : h->ids[step - 1];
}

static int search(const struct model *m, const struct pass_input *src,
		  const struct pass_opts *po, const struct decode_opts *o,
		  struct decode_result *r, struct err *e)
{
	const struct config *c = &m->cfg;
	memset(r, 0, sizeof *r);
	r->nonfinite_step = -1;
	if (c->arch == ARCH_ENC_ONLY)
		return err_set(e, "%s: an encoder-only model has no decoder: nothing to decode",
			       m->path);
	if (decode_check_input(m, src, o, e))
		return -1;
	double t0 = clock_ms();
	const int B = o->beam, V = m->tgt_vocab.n;
	/* the prompt's tokens before its last are fed before choosing (none
	   for an encoder-decoder: its prompt is <s>); the last is fed at
	   step 0, at position `prompt` */
	const int prompt = src->prompt - 1;
	/* default limit: twice the source and ten more (GNMT-style); a
	   decoder-only model continues by DECODE_DEFAULT_NEW tokens at most (a
	   context of 128k would otherwise size the cache for 128k tokens) */
	int maxlen = o->max_len > 0 ? o->max_len :
		     c->arch == ARCH_ENC_DEC ? 2 * src->src_len + 10 : DECODE_DEFAULT_NEW;
	/* N new tokens feed positions 0 … prompt + N − 1 (the last output is
	   never fed back): P + N − 1 ≤ max_len (DESIGN.md) */
	if (maxlen > c->max_len - prompt)
		maxlen = c->max_len - prompt;
	if (maxlen < 1)
		return err_set(e, "no room to decode: the prompt fills max_len %d", c->max_len);
	int K = B > o->topk ? B : o->topk;   /* candidates per hypothesis */
	const int never = (m->tgt_sp[TOK_PAD] >= 0) + (m->tgt_sp[TOK_SOS] >= 0) +
			  (m->tgt_sp[TOK_EOS] >= 0 && m->tgt_sp[TOK_EOS] != m->tgt_sp[TOK_PAD]);
	if (K > V - never)
		K = V - never;
	if (K < 1)
		return err_set(e, "%s: the target vocabulary has no ordinary tokens", m->path);

	struct dec D = { 0 };
	struct trace *enc = NULL;
	const float *memory = NULL;
	int S = 0, rc = -1;
	if (c->arch == ARCH_ENC_DEC) {
		struct pass_input in1 = *src;   /* the encoder, plus one <s> step */
		int32_t sos = src->tgt_ids[0];   /* <s>, or decoder_start_token_id */
		char *sos_tok = (char *)"<s>";
		in1.tgt_ids = &sos;
		in1.tgt_tok = &sos_tok;
		in1.T = in1.tgt_len = 1;
		in1.labels = NULL;
		in1.label_tok = NULL;
		if (!(enc = forward_run(m, &in1, po, NULL, e)))
			return -1;
		const struct stage *ms = trace_find(enc, "memory");
		memory = ms->data;
		S = src->S;
	}
	float *lp = malloc((size_t)B * V * sizeof *lp);
	int *idx = malloc((size_t)K * sizeof *idx);
	int32_t *tok = malloc((size_t)B * sizeof *tok);
	int *parent = malloc((size_t)B * sizeof *parent);
	/* + a forced one, + a drawn one outside the top K */
	struct cand *cands = malloc(((size_t)B * K + 2) * sizeof *cands);
	struct hyp *live = calloc((size_t)B, sizeof *live);
	int nlive = 1;
	/* sampling: p after temperature and after the cut [V], the order */
	double *pt = NULL, *pc = NULL;
	int *order = NULL;
	struct rng rng;
	rng_seed(&rng, o->so.seed);
	if (o->sample) {
		pt = malloc((size_t)V * sizeof *pt);
		pc = malloc((size_t)V * sizeof *pc);
		order = malloc((size_t)V * sizeof *order);
		if (!pt || !pc || !order) {
			err_set(e, "out of memory while decoding");
			goto out;
		}
	}
	/* at most one </s> per live hypothesis and step, or the B live ones
	 * at the limit */
	r->finished = calloc((size_t)B * (maxlen + 1) + 1, sizeof *r->finished);
	r->steps = calloc((size_t)maxlen, sizeof *r->steps);
	if (!lp || !idx || !tok || !parent || !cands || !live || !r->finished || !r->steps ||
	    dec_init(&D, m, memory, S, src->src_len, B, prompt + maxlen + 1)) {
		err_set(e, "out of memory while decoding");
		goto out;
	}
	D.po = po;
	live[0].ids = malloc(sizeof *live[0].ids);
	live[0].parent = -1;
	if (!live[0].ids) {
		err_set(e, "out of memory while decoding");
		goto out;
	}
	/* prefill: <s> and a decoder-only prompt */
	for (int t = 0; t < prompt; t++) {
		tok[0] = src->tgt_ids[t];
		dec_step(&D, 1, t, tok, lp);
	}
	for (int step = 0; step < maxlen && nlive > 0; step++) {
		const int t = prompt + step;   /* position of the fed token */
		for (int b = 0; b < nlive; b++)
			tok[b] = fed(src, prompt, &live[b], step);
		if (o->no_cache) {
			/* the baseline: recompute every earlier position again */
			int32_t prev[DECODE_MAX_BEAM];
			for (int p = 0; p < t; p++) {
				for (int b = 0; b < nlive; b++)
					prev[b] = p < prompt ? src->tgt_ids[p] :
						  fed(src, prompt, &live[b], p - prompt);
				dec_step(&D, nlive, p, prev, lp);
			}
		}
		dec_step(&D, nlive, t, tok, lp);
		if (r->nonfinite_step < 0 && !op_dist_finite(lp, nlive, V))
			r->nonfinite_step = step;

		/* candidates: the K best continuations of every live hypothesis */
		int nc = 0, nallowed = 0, nkept = 0;
		double u = 0;
		if (o->sample) {
			/* the K most probable and the drawn one (sample.h) */
			const int skip[3] = { m->tgt_sp[TOK_PAD], m->tgt_sp[TOK_SOS],
					      step >= o->min_len ? -1 : m->tgt_sp[TOK_EOS] };
			nkept = sample_filter(lp, V, skip, 3, &o->so, pt, pc, order, &nallowed);
			u = rng_uniform(&rng);
			const int drawn = sample_draw(pc, order, nkept, u);
			int seen = 0;
			for (int k = 0; k < nallowed && (k < K || !seen); k++) {
				if (k >= K && order[k] != drawn)
					continue;
				struct cand *cd = &cands[nc++];
				memset(cd, 0, sizeof *cd);
				cd->token = order[k];
				cd->prob = expf(lp[order[k]]);
				cd->logp = live[0].logp + lp[order[k]];
				cd->score = cd->logp / length_penalty(o->alpha, live[0].n + 1);
				cd->prob_t = (float)pt[order[k]];
				cd->prob_cut = (float)pc[order[k]];
				if (order[k] == drawn) {
					cd->drawn = k < K ? 1 : 2;
					seen = 1;
				}
			}
		}
		for (int b = 0; b < nlive && !o->sample; b++) {
			const float *row = lp + (size_t)b * V;
			int nk = top_indices(row, V, m->tgt_sp, K, step >= o->min_len, idx);
			for (int k = 0; k < nk; k++) {
				struct cand *cd = &cands[nc++];
				cd->parent = b;
				cd->token = idx[k];
				cd->prob = expf(row[idx[k]]);
				cd->logp = live[b].logp + row[idx[k]];
				cd->score = cd->logp / length_penalty(o->alpha, live[b].n + 1);
				cd->kept = cd->finished = cd->forced = cd->drawn = 0;
				cd->prob_t = cd->prob_cut = 0;
			}
		}
		/* what-if: the best hypothesis is forced to take a token; the
		 * real candidates stay recorded (pruned), the forced one is
		 * marked, and added when it is not among them */
		const int forcing = step == o->force_step && o->force_token >= 0 &&
				    o->force_token < V;
		if (forcing) {
			const int fh = o->force_hyp > 0 && o->force_hyp < nlive ? o->force_hyp : 0;
			int at = -1;
			for (int i = 0; i < nc && at < 0; i++)
				if (cands[i].parent == fh && cands[i].token == o->force_token)
					at = i;
			if (at < 0) {
				const float *row = lp + (size_t)fh * V;
				at = nc++;
				cands[at] = (struct cand){ .parent = fh, .token = o->force_token,
							   .prob = expf(row[o->force_token]),
							   .logp = live[fh].logp + row[o->force_token],
							   .forced = 2 };
				cands[at].score = cands[at].logp / length_penalty(o->alpha, live[fh].n + 1);
				if (o->sample) {
					cands[at].prob_t = (float)pt[o->force_token];
					cands[at].prob_cut = (float)pc[o->force_token];
				}
			} else {
				cands[at].forced = 1;
			}
		}
		qsort(cands, (size_t)nc, sizeof *cands, cmp_cand);

		/* record the step */
		struct decode_step *st = &r->steps[r->nsteps++];
		st->u = u;
		st->nallowed = nallowed;
		st->nkept = nkept;
		st->hyps = calloc((size_t)nlive, sizeof *st->hyps);
		st->cands = malloc((size_t)nc * sizeof *st->cands);
		if (!st->hyps || !st->cands) {
			err_set(e, "out of memory while decoding");
			goto out;
		}
		for (int b = 0; b < nlive; b++)
			if (hyp_copy(&st->hyps[st->nhyps++], &live[b], 0)) {
				err_set(e, "out of memory while decoding");
				goto out;
			}

		/* select: the next beam is the B best continuations that are not
		 * </s>; a </s> ranked above the last of them finishes.  Greedy
		 * takes the arg-max only, </s> or not. */
		struct hyp next[DECODE_MAX_BEAM];
		int nnext = 0;
		for (int i = 0; i < nc && nnext < B; i++) {
			struct cand *cd = &cands[i];
			if (forcing ? !cd->forced : o->sample ? !cd->drawn : B == 1 && i > 0)
				continue;
			struct hyp h;
			if (hyp_copy(&h, &live[cd->parent], 1)) {
				err_set(e, "out of memory while decoding");
				goto out;
			}
			h.logp = cd->logp;
			h.score = cd->score;
			h.parent = cd->parent;
			cd->kept = 1;
			if (cd->token == m->tgt_sp[TOK_EOS]) {
				cd->finished = 1;
				r->finished[r->nfinished++] = h;
			} else {
				h.ids[h.n++] = cd->token;
				parent[nnext] = cd->parent;
				next[nnext++] = h;
			}
		}
		st->ncands = nc;
		memcpy(st->cands, cands, (size_t)nc * sizeof *cands);
		for (int b = 0; b < nlive; b++)
			free(live[b].ids);
		for (int b = 0; b < nnext; b++)
			live[b] = next[b];
		nlive = nnext;
		if (!o->until_limit && nlive > 0 && r->nfinished > 0 &&
		    best_finished(r) >= live_bound(o->alpha, live, nlive, maxlen)) {
			r->stop = DECODE_STOP_BOUND;
			break;
		}
		if (nlive)
			dec_reorder(&D, parent, nlive, t);
	}
	if (r->stop != DECODE_STOP_BOUND)
		r->stop = nlive > 0 ? DECODE_STOP_LIMIT : DECODE_STOP_ENDED;
	/* the limit reached: live hypotheses count as results, flagged */
	if (r->nfinished == 0) {
		r->hit_max_len = 1;
		for (int b = 0; b < nlive && r->nfinished < B + 1; b++) {
			r->finished[r->nfinished++] = live[b];
			live[b].ids = NULL;
		}
	}
	qsort(r->finished, (size_t)r->nfinished, sizeof *r->finished, cmp_hyp);
	if (r->nfinished) {
		const struct hyp *best = &r->finished[0];
		r->best = malloc((size_t)(best->n + 1) * sizeof *r->best);
		if (!r->best) {
			err_set(e, "out of memory while decoding");
			goto out;
		}
		if (best->n)
			memcpy(r->best, best->ids, (size_t)best->n * sizeof *r->best);
		r->nbest = best->n;
		r->best_logp = best->logp;
		r->best_score = best->score;
	}
	r->ms = clock_ms() - t0;
	rc = 0;
out:
	for (int b = 0; live && b < nlive; b++)
		free(live[b].ids);
	free(live);
	dec_free(&D);
	free(lp);
	free(idx);
	free(tok);
	free(parent);
	free(cands);
	free(pt);
	free(pc);
	free(order);
	trace_free(enc);
	if (rc)
		decode_result_free(r);
	return rc;
}

int decode_run(const struct model *m, const struct pass_input *src,
	       const struct pass_opts *po, const struct decode_opts *o,
	       struct decode_result *r, struct err *e)
{
	/* the decoder's first input is <s>: without one there is nothing to
	 * feed (input_build says so too, but bench builds its own input) */
	if (m->cfg.arch == ARCH_ENC_DEC && m->tgt_sp[TOK_SOS] < 0)
		return err_set(e, "%s: an encoder-decoder model needs a start token for its "
			       "decoder (tokenizer.specials.sos)", m->path);
	pool_hot(1);   /* a step's products come every few hundred µs */
	int rc = search(m, src, po, o, r, e);
	pool_hot(0);
	return rc;
}
