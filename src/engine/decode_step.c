/* decode_step.c - the decoder one position at a time with a key/value
 * cache: the step decode.c's search calls for its live hypotheses.
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

#include "decode_step.h"
#include "forward.h"
#include "ops.h"
#include "relpos.h"
#include "rope.h"

void dec_free(struct dec *D)
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

int dec_init(struct dec *D, const struct model *m, const float *memory, int S,
	     int src_len, int bcap, int tcap)
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

/* One row r [qd + 2kvd] of layer l's Q|K|V at position t: Qwen3's q/k
 * norms and the rotation in place, k and v into hypothesis bc's cache at
 * t, and the heads over its positions 0…t into out [qd]. */
static void attn_row(struct dec *D, int l, float *r, int bc, int t, float *out)
{
	const struct config *c = &D->m->cfg;
	const struct attn_w *w = &D->m->dec[l].self;
	const int dk = D->dk, qd = D->qd, kvd = D->kvd, group = D->h / D->hkv;
	const int win = l >= c->window_from ? c->sliding_window : 0;
	const int lo = win > 0 && t - win + 1 > 0 ? t - win + 1 : 0;
	if (w->q_norm) {
		op_rmsnorm(r, D->h, dk, w->q_norm, 0.0f, (float)c->norm_eps, r);
		op_rmsnorm(r + qd, D->hkv, dk, w->k_norm, 0.0f, (float)c->norm_eps, r + qd);
	}
	for (int hh = 0; D->inv && hh < D->h + D->hkv; hh++)   /* q's heads, k's */
		rope_apply(r + hh * dk, dk, 1, dk, t, D->inv, r + hh * dk, dk);
	memcpy(cache_row(D->kc, D, l, bc, t), r + qd, (size_t)kvd * sizeof(float));
	memcpy(cache_row(D->vc, D, l, bc, t), r + qd + kvd, (size_t)kvd * sizeof(float));
	for (int hh = 0; hh < D->h; hh++)
		attend(D, r + hh * dk, cache_row(D->kc, D, l, bc, 0) + hh / group * dk,
		       cache_row(D->vc, D, l, bc, 0) + hh / group * dk, t + 1, lo, t + 1,
		       D->relb ? D->relb + (size_t)hh * D->tcap : NULL, out + hh * dk);
}

/* Self-attention of layer l over the cache for n rows of u: B hypotheses
 * at position t (each its own cache), or, with prefill, positions t, t + 1,
 * … of hypothesis 0 (the prompt, one product for all of it); the heads
 * into cat [n, qd]. */
static void self_attn_rows(struct dec *D, int l, int n, int t, int prefill,
			   const float *u)
{
	const struct attn_w *w = &D->m->dec[l].self;
	const int qd = D->qd, ld = qd + 2 * D->kvd;
	op_linear(u, n, D->d, w->in_w, w->in_b, ld, D->qkv);
	for (int b = 0; b < n; b++)
		attn_row(D, l, D->qkv + (size_t)b * ld, prefill ? 0 : b, prefill ? t + b : t,
			 D->cat + (size_t)b * qd);
	int z = ablated_head(D, l, 0);
	for (int b = 0; z >= 0 && b < n; b++)   /* its output is zero */
		memset(D->cat + (size_t)b * qd + z * D->dk, 0, (size_t)D->dk * sizeof(float));
}

static void self_attn(struct dec *D, int l, int B, int t, const float *u)
{
	self_attn_rows(D, l, B, t, 0, u);
}

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
void dec_step(struct dec *D, int B, int t, const int32_t *tok, float *out)
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

/* The first n prompt tokens of a decoder-only model, positions 0…n−1 of
 * hypothesis 0, through every layer with one product per weight for all of
 * them (dec_step feeds one position a call: a matrix-vector product each,
 * and the vocabulary's logits, which a prompt token before the last never
 * needs).  The cache holds what n dec_steps would write.  Returns 0, or -1
 * when out of memory (the caller then feeds them one at a time). */
int dec_prefill(struct dec *D, const int32_t *ids, int n)
{
	const struct model *m = D->m;
	const size_t d = (size_t)D->d, F = (size_t)D->F, ld = (size_t)D->qd + 2 * D->kvd;
	struct dec P = *D;   /* the same model and caches, buffers of n rows */
	float *buf = malloc((size_t)n * (3 * d + ld + D->qd + 2 * F) * sizeof *buf);
	if (!buf)
		return -1;
	P.x = buf;
	P.u = P.x + n * d;
	P.y = P.u + n * d;
	P.qkv = P.y + n * d;
	P.cat = P.qkv + n * ld;
	P.hid = P.cat + (size_t)n * D->qd;
	P.up = P.hid + n * F;
	for (int i = 0; i < n; i++) {   /* row i at position i */
		struct dec E = P;
		E.x = P.x + i * d;
		E.u = P.u + i * d;
		embed_row(&E, 1, i, ids + i);
	}
	for (int l = 0; l < D->Ld; l++) {
		const struct layer_w *L = &m->dec[l];
		self_attn_rows(&P, l, n, 0, 1, sub_in(&P, n, L->n1_w, L->n1_b));
		op_linear(P.cat, n, D->qd, L->self.out_w, L->self.out_b, D->d, P.y);
		residual(&P, n, L->n1_w, L->n1_b);
		feed_forward(&P, L, n, sub_in(&P, n, L->n2_w, L->n2_b));
		residual(&P, n, L->n2_w, L->n2_b);
	}
	free(buf);
	return 0;
}

/* Makes hypothesis b's cache a copy of parent's (positions 0…t). */
void dec_reorder(struct dec *D, const int *parent, int B, int t)
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
