/* test_forward.c - the traced forward pass on models small enough to follow
 * by hand, its masks, and trace reuse.
 *
 * Model "hand" (written below as YAML with inline tensors): encoder-only,
 * d = 2, one head (dk = 2), one layer, no norm, no positions, embeddings not
 * scaled.  Words a, b, c embed as X = [[1 0], [0 1], [1 1]].
 *   Q = X (W_q = I), K = X·W_kᵀ with W_k = [[1 1], [0 1]], so k = [x0+x1, x1]
 *   V = X·W_vᵀ + [0.5 0] with W_v = [[0 1], [1 0]], so v = [x1 + 0.5, x0]
 *   scores = Q·Kᵀ/√2 = [[1 1 2], [0 1 1], [1 2 3]] / √2
 *   out = heads·I + [0.25 0]
 *   ffn: hidden = relu([x0, 1 − x1]); out = [2·h0 + 0.5, 3·h1 − 0.5]
 *   logits = add2·Eᵀ (generator tied to the embedding)
 * K and Q differ, so a swapped Q/K shows as a transposed score matrix; the
 * V bias sits in the third block of in_proj_bias, so a mis-split bias shows.
 *
 * Model "rnd": encoder-decoder with seeded random weights (init), used for
 * the mask patterns, padding and trace reuse. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/forward.h"
#include "engine/input.h"
#include "engine/model.h"
#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "../tmpfiles.h"
#include "engine/trace.h"

static const char HAND_HEAD[] =
	"name: hand\n"
	"architecture: encoder-only\n"
	"d_model: 2\n"
	"heads: 1\n"
	"encoder_layers: 1\n"
	"d_ff: 2\n"
	"max_len: 8\n"
	"norm: none\n"
	"activation: relu\n";
static const char HAND_TAIL[] =
	"tokenizer:\n"
	"  type: word\n"
	"  wrap_source: false\n"
	"  source_vocab: [\"<pad>\", \"<s>\", \"</s>\", \"<unk>\", \"a\", \"b\", \"c\"]\n"
	"tensors:\n"
	"  src_embed.weight: [[0, 0], [0, 0], [0, 0], [0, 0], [1, 0], [0, 1], [1, 1]]\n"
	"  encoder.layers.0.self_attn.in_proj_weight:\n"
	"    - [1, 0]     # W_q\n"
	"    - [0, 1]\n"
	"    - [1, 1]     # W_k\n"
	"    - [0, 1]\n"
	"    - [0, 1]     # W_v\n"
	"    - [1, 0]\n"
	"  encoder.layers.0.self_attn.in_proj_bias: [0, 0, 0, 0, 0.5, 0]\n"
	"  encoder.layers.0.self_attn.out_proj.weight: [[1, 0], [0, 1]]\n"
	"  encoder.layers.0.self_attn.out_proj.bias: [0.25, 0]\n"
	"  encoder.layers.0.linear1.weight: [[1, 0], [0, -1]]\n"
	"  encoder.layers.0.linear1.bias: [0, 1]\n"
	"  encoder.layers.0.linear2.weight: [[2, 0], [0, 3]]\n"
	"  encoder.layers.0.linear2.bias: [0.5, -0.5]\n";

static struct model *load(const char *path)
{
	struct err e = { "" };
	struct model *m = model_load(path, &e);
	tap_ok(m != NULL, "model_load %s", strrchr(path, '/') + 1);
	if (!m)
		printf("# %s\n", e.msg);
	return m;
}

/* input_build + forward_run; NULL (with a failed check) on error. */
static struct trace *run(const struct model *m, const char *sentence,
			 const char *target, const struct pass_opts *o,
			 struct trace *reuse)
{
	struct pass_input in;
	struct err e = { "" };
	if (input_build(m, sentence, target, o, &in, &e)) {
		tap_ok(0, "input_build \"%.40s\": %s", sentence, e.msg);
		return NULL;
	}
	struct trace *t = forward_run(m, &in, o, reuse, &e);
	input_free(&in);
	if (!t)
		tap_ok(0, "forward_run \"%.40s\": %s", sentence, e.msg);
	return t;
}

/* The stage's floats, after checking its shape; NULL with a failed check. */
static const float *stage3(const struct trace *t, const char *name, int d0,
			   int d1, int d2)
{
	const struct stage *s = trace_find(t, name);
	int nd = d2 ? 3 : d1 ? 2 : 1;
	int ok = s && s->dtype == DT_F32 && s->ndim == nd && s->shape[0] == d0 &&
		 (nd < 2 || s->shape[1] == d1) && (nd < 3 || s->shape[2] == d2);
	if (!ok) {
		tap_ok(0, "stage %s with shape [%d, %d, %d] (0: no such axis)", name,
		       d0, d1, d2);
		if (s)
			printf("# found ndim %d shape [%d, %d, %d] dtype %d\n", s->ndim,
			       s->shape[0], s->ndim > 1 ? s->shape[1] : 0,
			       s->ndim > 2 ? s->shape[2] : 0, (int)s->dtype);
		else
			printf("# no such stage\n");
		return NULL;
	}
	return stage_f32(s);
}

static void close3(const struct trace *t, const char *name, int d0, int d1,
		   int d2, const float *want, double tol)
{
	const float *got = stage3(t, name, d0, d1, d2);
	if (got)
		tap_close(got, want, (size_t)d0 * (d1 ? d1 : 1) * (d2 ? d2 : 1), tol, name);
}

/* ---- the hand model ---- */

/* Reference pass for the hand model on rows X[S][2] with key_len real keys
 * and an optional causal mask, in double. */
struct hand_ref {
	float q[8][2], k[8][2], v[8][2], scores[8][8], masked[8][8], weights[8][8];
	float heads[8][2], out[8][2], add1[8][2], hidden[8][2], ffn[8][2], add2[8][2];
	float logits[8][7], probs[8][7];
};

static const float E[7][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 },
			       { 1, 0 }, { 0, 1 }, { 1, 1 } };

static void hand_reference(const int *ids, int S, int key_len, int causal,
			   struct hand_ref *r)
{
	const double s = 1 / sqrt(2.0);
	memset(r, 0, sizeof *r);
	for (int i = 0; i < S; i++) {
		const float *x = E[ids[i]];
		r->q[i][0] = x[0];
		r->q[i][1] = x[1];
		r->k[i][0] = x[0] + x[1];
		r->k[i][1] = x[1];
		r->v[i][0] = x[1] + 0.5f;
		r->v[i][1] = x[0];
	}
	for (int i = 0; i < S; i++) {
		double w[8], sum = 0;
		for (int j = 0; j < S; j++) {
			double sc = (r->q[i][0] * r->k[j][0] + r->q[i][1] * r->k[j][1]) * s;
			int m = j >= key_len || (causal && j > i);
			r->scores[i][j] = (float)sc;
			r->masked[i][j] = m ? -INFINITY : (float)sc;
			w[j] = m ? 0 : exp(sc);
			sum += w[j];
		}
		double h0 = 0, h1 = 0;
		for (int j = 0; j < S; j++) {
			r->weights[i][j] = (float)(w[j] / sum);
			h0 += w[j] / sum * r->v[j][0];
			h1 += w[j] / sum * r->v[j][1];
		}
		const float *x = E[ids[i]];
		r->heads[i][0] = (float)h0;
		r->heads[i][1] = (float)h1;
		r->out[i][0] = (float)(h0 + 0.25);
		r->out[i][1] = (float)h1;
		double a0 = x[0] + h0 + 0.25, a1 = x[1] + h1;
		r->add1[i][0] = (float)a0;
		r->add1[i][1] = (float)a1;
		double g0 = a0 > 0 ? a0 : 0, g1 = 1 - a1 > 0 ? 1 - a1 : 0;
		r->hidden[i][0] = (float)g0;
		r->hidden[i][1] = (float)g1;
		double f0 = 2 * g0 + 0.5, f1 = 3 * g1 - 0.5;
		r->ffn[i][0] = (float)f0;
		r->ffn[i][1] = (float)f1;
		double y0 = a0 + f0, y1 = a1 + f1, lsum = 0, lg[7];
		r->add2[i][0] = (float)y0;
		r->add2[i][1] = (float)y1;
		for (int v = 0; v < 7; v++) {
			lg[v] = y0 * E[v][0] + y1 * E[v][1];
			r->logits[i][v] = (float)lg[v];
			lsum += exp(lg[v]);
		}
		for (int v = 0; v < 7; v++)
			r->probs[i][v] = (float)(exp(lg[v]) / lsum);
	}
}

/* Packs r's [S][cols] field into a flat [S, cols] array. */
static void flat(const float *src, int stride, int S, int cols, float *dst)
{
	for (int i = 0; i < S; i++)
		memcpy(dst + i * cols, src + i * stride, (size_t)cols * sizeof *dst);
}

static void check_hand(const struct trace *t, const int *ids, int S, int key_len,
		       int causal, const char *what)
{
	struct hand_ref r;
	float buf[64];
	printf("# hand model: %s\n", what);
	hand_reference(ids, S, key_len, causal, &r);
	const struct stage *sid = trace_find(t, "src.ids");
	int ok = sid && sid->dtype == DT_I32 && sid->ndim == 1 && sid->shape[0] == S;
	for (int i = 0; ok && i < S; i++)
		ok = ((const int32_t *)sid->data)[i] == ids[i];
	tap_ok(ok, "src.ids [%d] I32 as expected", S);

	float x[16];
	for (int i = 0; i < S; i++)
		x[2 * i] = E[ids[i]][0], x[2 * i + 1] = E[ids[i]][1];
	close3(t, "src.embed", S, 2, 0, x, 0);
	float zero[16] = { 0 };
	close3(t, "src.pos", S, 2, 0, zero, 0);
	close3(t, "src.input", S, 2, 0, x, 0);
#define F(field, cols) (flat(&r.field[0][0], (int)(sizeof r.field[0] / sizeof(float)), S, cols, buf), buf)
	close3(t, "encoder.0.self_attn.q", 1, S, 2, F(q, 2), 0);
	close3(t, "encoder.0.self_attn.k", 1, S, 2, F(k, 2), 0);
	close3(t, "encoder.0.self_attn.v", 1, S, 2, F(v, 2), 0);
	close3(t, "encoder.0.self_attn.scores", 1, S, S, F(scores, S), 1e-6);
	close3(t, "encoder.0.self_attn.masked", 1, S, S, F(masked, S), 1e-6);
	close3(t, "encoder.0.self_attn.weights", 1, S, S, F(weights, S), 1e-6);
	close3(t, "encoder.0.self_attn.heads", 1, S, 2, F(heads, 2), 1e-6);
	close3(t, "encoder.0.self_attn.concat", S, 2, 0, F(heads, 2), 1e-6);
	close3(t, "encoder.0.self_attn.out", S, 2, 0, F(out, 2), 1e-6);
	close3(t, "encoder.0.add1", S, 2, 0, F(add1, 2), 1e-6);
	close3(t, "encoder.0.ffn.hidden", S, 2, 0, F(hidden, 2), 1e-6);
	close3(t, "encoder.0.ffn.out", S, 2, 0, F(ffn, 2), 1e-5);
	close3(t, "encoder.0.add2", S, 2, 0, F(add2, 2), 1e-5);
	close3(t, "logits", S, 7, 0, F(logits, 7), 1e-5);
	close3(t, "probs", S, 7, 0, F(probs, 7), 1e-6);
#undef F
}

static void test_hand(void)
{
	char text[4096];
	snprintf(text, sizeof text, "%spositional_encoding: none\nscale_embedding: false\n%s",
		 HAND_HEAD, HAND_TAIL);
	write_file(tpath("hand.yaml"), text);
	struct model *m = load(tpath("hand.yaml"));
	if (!m)
		return;
	tap_ok(m->gen_tied && m->gen_w == m->src_embed, "hand: generator tied to src_embed");
	struct pass_opts o;
	pass_opts_default(&o);
	tap_ok(o.causal == 1 && o.encoder_causal == 0 && o.pad_to == 0 &&
	       o.pad_target == 0 && o.ablate_head == -1, "pass_opts_default");

	struct trace *t = run(m, "a b c", NULL, &o, NULL);
	if (t) {
		static const int ids[3] = { 4, 5, 6 };
		check_hand(t, ids, 3, 3, 0, "\"a b c\"");
		/* the same rows written as numbers: row b of the weights is
		 * softmax([0, 1, 1]/√2) = [1, e^s, e^s]/(1 + 2e^s), s = 1/√2 */
		const float *w = stage3(t, "encoder.0.self_attn.weights", 1, 3, 3);
		const float row_b[3] = { 0.19777581f, 0.40111209f, 0.40111209f };
		const float row_c[3] = { 0.14002925f, 0.28399541f, 0.57597535f };
		if (w) {
			tap_close(w + 3, row_b, 3, 1e-6, "weights row b literal");
			tap_close(w + 6, row_c, 3, 1e-6, "weights row c literal (not transposed)");
		}
		const float add2_a[2] = { 8.00523477f, 0.99651016f };
		const float *a2 = stage3(t, "encoder.0.add2", 3, 2, 0);
		if (a2)
			tap_close(a2, add2_a, 2, 1e-5, "add2 row a literal");
		tap_ok(trace_find(t, "memory") == NULL && trace_find(t, "tgt.ids") == NULL,
		       "encoder-only: no memory, no decoder stages");
		tap_ok(t->S == 3 && t->src_tokens && !strcmp(t->src_tokens[1], "b"),
		       "trace keeps the source tokens");
		trace_free(t);
	}

	/* encoder_causal: key j > query i masked */
	o.encoder_causal = 1;
	t = run(m, "a b c", NULL, &o, NULL);
	if (t) {
		static const int ids[3] = { 4, 5, 6 };
		check_hand(t, ids, 3, 3, 1, "\"a b c\" with encoder_causal");
		const float *w = stage3(t, "encoder.0.self_attn.weights", 1, 3, 3);
		/* row a sees only itself; row b: softmax([0, s]) = [1, e^s]/(1 + e^s) */
		const float want[6] = { 1, 0, 0, 0.33023845f, 0.66976155f, 0 };
		if (w)
			tap_close(w, want, 6, 1e-6, "encoder_causal weights rows a, b literal");
		trace_free(t);
	}
	o.encoder_causal = 0;

	/* pad_to 5: keys 3, 4 are <pad> and masked.  Real rows are as before;
	 * a pad query is [0 0], so its scores are 0 and it spreads 1/3 over
	 * the real keys. */
	o.pad_to = 5;
	t = run(m, "a b c", NULL, &o, NULL);
	if (t) {
		static const int ids[5] = { 4, 5, 6, 0, 0 };
		check_hand(t, ids, 5, 3, 0, "\"a b c\" padded to 5");
		const float *w = stage3(t, "encoder.0.self_attn.weights", 1, 5, 5);
		const float third = 1.0f / 3;
		const float want[5] = { third, third, third, 0, 0 };
		if (w)
			tap_close(w + 20, want, 5, 1e-7, "pad query row: 1/3 on each real key");
		tap_ok(t->S == 5 && !strcmp(t->src_tokens[4], "<pad>"),
		       "padded source tokens end in <pad>");
		trace_free(t);
	}
	o.pad_to = 0;

	/* unknown word: <unk> (id 3, embedding 0) */
	struct pass_input in;
	struct err e = { "" };
	if (input_build(m, "a zebra c", NULL, &o, &in, &e) == 0) {
		tap_ok(in.S == 3 && in.src_ids[1] == 3 && !strcmp(in.src_tok[1], "<unk>"),
		       "unknown word becomes <unk> (id 3)");
		tap_ok(in.nunknown == 1 && !strcmp(in.unknown[0], "zebra"),
		       "unknown words are listed");
		char buf[128];
		tap_contains(input_unknown_summary(&in, buf, sizeof buf), "zebra",
			     "unknown summary names the word");
		struct trace *tu = forward_run(m, &in, &o, NULL, &e);
		if (tu) {
			static const int ids[3] = { 4, 3, 6 };
			check_hand(tu, ids, 3, 3, 0, "\"a <unk> c\"");
			trace_free(tu);
		} else {
			tap_ok(0, "forward_run with <unk>: %s", e.msg);
		}
		input_free(&in);
	} else {
		tap_ok(0, "input_build with an unknown word: %s", e.msg);
	}

	/* refusals: max_len 8 */
	e.msg[0] = 0;
	tap_ok(input_build(m, "a b c a b c a b c", NULL, &o, &in, &e) == -1,
	       "9 tokens over max_len 8 refused");
	tap_contains(e.msg, "8", "  message states the limit 8");
	e.msg[0] = 0;
	o.pad_to = 2;
	tap_ok(input_build(m, "a b c", NULL, &o, &in, &e) == -1, "pad_to 2 < 3 tokens refused");
	tap_contains(e.msg, "shorter", "  message says shorter");
	o.pad_to = 0;
	e.msg[0] = 0;
	tap_ok(input_build(m, "  \t ", NULL, &o, &in, &e) == -1, "blank sentence refused");
	tap_contains(e.msg, "empty", "  message says empty");
	model_free(m);

	/* sinusoidal positions and √d scaling, d = 2: PE(p) = [sin p, cos p] */
	snprintf(text, sizeof text, "%spositional_encoding: sinusoidal\nscale_embedding: true\n%s",
		 HAND_HEAD, HAND_TAIL);
	write_file(tpath("hand_pe.yaml"), text);
	m = load(tpath("hand_pe.yaml"));
	if (m) {
		t = run(m, "a b c", NULL, &o, NULL);
		if (t) {
			const double r2 = sqrt(2.0);
			const float emb[6] = { (float)r2, 0, 0, (float)r2, (float)r2, (float)r2 };
			const float pos[6] = { 0, 1, (float)sin(1.0), (float)cos(1.0),
					       (float)sin(2.0), (float)cos(2.0) };
			float sum[6];
			for (int i = 0; i < 6; i++)
				sum[i] = emb[i] + pos[i];
			close3(t, "src.embed", 3, 2, 0, emb, 1e-6);
			close3(t, "src.pos", 3, 2, 0, pos, 1e-7);
			close3(t, "src.input", 3, 2, 0, sum, 1e-6);
			trace_free(t);
		}
		model_free(m);
	}
}

/* ---- masks on the random encoder-decoder ---- */

static const char RND[] =
	"name: rnd\n"
	"architecture: encoder-decoder\n"
	"d_model: 32\n"
	"heads: 4\n"
	"encoder_layers: 2\n"
	"decoder_layers: 2\n"
	"d_ff: 48\n"
	"max_len: 300\n"
	"norm: post\n"
	"activation: gelu\n"
	"tokenizer:\n"
	"  type: word\n"
	"  source_vocab: [\"<pad>\", \"<s>\", \"</s>\", \"<unk>\", a, b, c, d, e, f, g, h,\n"
	"                 i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z]\n"
	"init: {random: 42}\n";

/* Checks a [h, nq, nk] attention: masked is -inf exactly where
 * is_masked(i, j), equals scores bitwise elsewhere; weights are 0 there,
 * positive elsewhere, and each row sums to 1. */
static void check_mask(const struct trace *t, const char *prefix, int h, int nq,
		       int nk, int key_len, int causal)
{
	char n1[80], n2[80], n3[80];
	snprintf(n1, sizeof n1, "%s.scores", prefix);
	snprintf(n2, sizeof n2, "%s.masked", prefix);
	snprintf(n3, sizeof n3, "%s.weights", prefix);
	const float *sc = stage3(t, n1, h, nq, nk), *mk = stage3(t, n2, h, nq, nk),
		    *wt = stage3(t, n3, h, nq, nk);
	if (!sc || !mk || !wt)
		return;
	int bad_mask = 0, bad_keep = 0, bad_w0 = 0, bad_wpos = 0, first = -1;
	double worst = 0;
	for (int hh = 0; hh < h; hh++)
		for (int i = 0; i < nq; i++) {
			double sum = 0;
			for (int j = 0; j < nk; j++) {
				size_t at = ((size_t)hh * nq + i) * nk + j;
				int m = j >= key_len || (causal && j > i);
				if (m && !(isinf(mk[at]) && mk[at] < 0))
					bad_mask++, first = first < 0 ? (int)at : first;
				if (!m && memcmp(&mk[at], &sc[at], sizeof(float)))
					bad_keep++, first = first < 0 ? (int)at : first;
				if (m && wt[at] != 0)
					bad_w0++;
				if (!m && !(wt[at] > 0))
					bad_wpos++;
				sum += wt[at];
			}
			if (fabs(sum - 1) > worst)
				worst = fabs(sum - 1);
		}
	char what[160];
	snprintf(what, sizeof what, "%s [%d,%d,%d]: -inf exactly at %s%s%s", prefix, h, nq,
		 nk, causal ? "j > i" : "", causal && key_len < nk ? " and " : "",
		 key_len < nk ? "padded keys" : !causal ? "no entry" : "");
	tap_ok(!bad_mask && !bad_keep, "%s", what);
	if (bad_mask || bad_keep)
		printf("# %d entries not -inf that should be, %d changed that should "
		       "equal scores (first at flat index %d)\n", bad_mask, bad_keep, first);
	tap_ok(!bad_w0 && !bad_wpos, "%s: weights 0 where masked, > 0 elsewhere", prefix);
	if (bad_w0 || bad_wpos)
		printf("# %d masked with weight != 0, %d unmasked with weight <= 0\n",
		       bad_w0, bad_wpos);
	tap_ok(worst < 1e-5, "%s: rows sum to 1 (max |sum-1| %.2g)", prefix, worst);
}

static void test_masks(const struct model *m)
{
	struct pass_opts o;
	pass_opts_default(&o);
	const char *src = "a b c d e", *tgt = "f g h i j";
	struct trace *t = run(m, src, tgt, &o, NULL);
	const int S = 7, T = 6, h = 4;   /* <s> 5 words </s>; <s> + 5 words */
	if (t) {
		tap_ok(t->S == S && t->T == T, "enc-dec: S = %d, T = %d (got %d, %d)", S, T,
		       t->S, t->T);
		for (int l = 0; l < 2; l++) {
			char p[64];
			snprintf(p, sizeof p, "encoder.%d.self_attn", l);
			check_mask(t, p, h, S, S, S, 0);
			snprintf(p, sizeof p, "decoder.%d.self_attn", l);
			check_mask(t, p, h, T, T, T, 1);
			snprintf(p, sizeof p, "decoder.%d.cross_attn", l);
			check_mask(t, p, h, T, S, S, 0);
		}
		const float *w = stage3(t, "decoder.0.self_attn.weights", h, T, T);
		int row0 = w != NULL;
		for (int hh = 0; w && hh < h; hh++)
			row0 &= w[(size_t)hh * T * T] == 1.0f;
		tap_ok(row0, "causal: the first decoder position attends only to itself (weight 1)");
		tap_ok(trace_find(t, "loss") != NULL, "teacher forced: loss recorded");
		trace_free(t);
	}

	/* --no-causal */
	o.causal = 0;
	t = run(m, src, tgt, &o, NULL);
	if (t) {
		check_mask(t, "decoder.0.self_attn", h, T, T, T, 0);
		check_mask(t, "decoder.1.self_attn", h, T, T, T, 0);
		trace_free(t);
	}
	o.causal = 1;

	/* pad_to and pad_target */
	struct trace *ref = run(m, src, tgt, &o, NULL);
	o.pad_to = S + 3;
	o.pad_target = T + 2;
	t = run(m, src, tgt, &o, NULL);
	if (t && ref) {
		const int SP = S + 3, TP = T + 2;
		tap_ok(t->S == SP && t->T == TP, "padded: S = %d, T = %d (got %d, %d)", SP, TP,
		       t->S, t->T);
		const struct stage *ids = trace_find(t, "src.ids");
		int ok = ids && ids->shape[0] == SP;
		for (int i = S; ok && i < SP; i++)
			ok = ((const int32_t *)ids->data)[i] == 0;
		tap_ok(ok, "src.ids end in <pad> (0)");
		ids = trace_find(t, "tgt.ids");
		ok = ids && ids->shape[0] == TP;
		for (int i = T; ok && i < TP; i++)
			ok = ((const int32_t *)ids->data)[i] == 0;
		tap_ok(ok, "tgt.ids end in <pad> (0)");
		for (int l = 0; l < 2; l++) {
			char p[64];
			snprintf(p, sizeof p, "encoder.%d.self_attn", l);
			check_mask(t, p, h, SP, SP, S, 0);
			snprintf(p, sizeof p, "decoder.%d.self_attn", l);
			check_mask(t, p, h, TP, TP, T, 1);
			snprintf(p, sizeof p, "decoder.%d.cross_attn", l);
			check_mask(t, p, h, TP, SP, S, 0);
		}
		/* padding is invisible to the real positions */
		const float *m0 = stage3(ref, "memory", S, 32, 0), *m1 = stage3(t, "memory", SP, 32, 0);
		if (m0 && m1)
			tap_close(m1, m0, (size_t)S * 32, 1e-5,
				  "memory of the real source rows unchanged by padding");
		const float *l0 = stage3(ref, "logits", T, 30, 0), *l1 = stage3(t, "logits", TP, 30, 0);
		if (l0 && l1)
			tap_close(l1, l0, (size_t)T * 30, 1e-4,
				  "logits of the real target rows unchanged by padding");
		const float *ls = stage3(t, "loss", TP, 0, 0), *ls0 = stage3(ref, "loss", T, 0, 0);
		if (ls && ls0) {
			const float zero[2] = { 0, 0 };
			tap_close(ls + T, zero, 2, 0, "loss is 0 at padded target positions");
			tap_close(ls, ls0, (size_t)T, 1e-4, "loss at real positions unchanged");
		}
	}
	trace_free(t);
	trace_free(ref);
}

/* ---- trace reuse ---- */

/* Two traces hold the same stages: names, shapes, kinds and bytes. */
static void same_trace(const struct trace *a, const struct trace *b, const char *what)
{
	int ok = a->n == b->n && a->S == b->S && a->T == b->T, bad = -1;
	for (int i = 0; ok && i < a->n; i++) {
		const struct stage *x = &a->stages[i], *y = &b->stages[i];
		ok = !strcmp(x->name, y->name) && x->dtype == y->dtype &&
		     x->ndim == y->ndim && x->kind == y->kind &&
		     !memcmp(x->shape, y->shape, sizeof x->shape) &&
		     !memcmp(x->data, y->data, stage_numel(x) * 4);
		if (!ok)
			bad = i;
	}
	for (int i = 0; ok && i < a->S; i++)
		ok = !strcmp(a->src_tokens[i], b->src_tokens[i]);
	for (int i = 0; ok && i < a->T; i++)
		ok = !strcmp(a->tgt_tokens[i], b->tgt_tokens[i]);
	tap_ok(ok, "%s: %d stages bitwise identical", what, a->n);
	if (!ok) {
		printf("# n %d vs %d, S %d vs %d, T %d vs %d\n", a->n, b->n, a->S, b->S,
		       a->T, b->T);
		if (bad >= 0) {
			const struct stage *x = &a->stages[bad], *y = &b->stages[bad];
			size_t n = stage_numel(x), k = 0;
			while (k < n && !memcmp((const float *)x->data + k,
						(const float *)y->data + k, 4))
				k++;
			printf("# first differing stage %d: %s vs %s", bad, x->name, y->name);
			if (k < n && x->dtype == DT_F32)
				printf(", element %zu: %.9g vs %.9g", k,
				       ((const float *)x->data)[k], ((const float *)y->data)[k]);
			printf("\n");
		}
	}
}

/* n words cycling through the letters, from a seed. */
static char *words(int n, unsigned seed)
{
	char *s = malloc((size_t)n * 2 + 1), *p = s;
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		*p++ = (char)('a' + (seed >> 16) % 26);
		*p++ = ' ';
	}
	p[-1] = 0;
	return s;
}

static void test_reuse(const struct model *m)
{
	struct pass_opts o;
	pass_opts_default(&o);
	/* 40 source words, then 250 (scores [4, 252, 252] are 1 MB each, so
	 * the long pass spans several arena chunks), then 40 again */
	char *s1 = words(40, 1), *t1 = words(30, 2), *s2 = words(250, 3), *t2 = words(200, 4);
	struct trace *fresh1 = run(m, s1, t1, &o, NULL);
	struct trace *fresh2 = run(m, s2, t2, &o, NULL);
	struct trace *reuse = trace_new();
	if (fresh1 && fresh2 && reuse) {
		struct trace *r = run(m, s1, t1, &o, reuse);
		tap_ok(r == reuse, "forward_run returns the reused trace");
		if (r)
			same_trace(fresh1, r, "reuse, 1st pass (sentence 1)");
		r = run(m, s2, t2, &o, reuse);
		if (r)
			same_trace(fresh2, r, "reuse, 2nd pass (sentence 2, longer)");
		r = run(m, s1, t1, &o, reuse);
		if (r)
			same_trace(fresh1, r, "reuse, 3rd pass (sentence 1 again)");
		o.pad_to = 260;   /* one more shape, then back */
		r = run(m, s2, t2, &o, reuse);
		o.pad_to = 0;
		r = run(m, s2, t2, &o, reuse);
		if (r)
			same_trace(fresh2, r, "reuse, 5th pass (sentence 2 after a padded pass)");
		r = run(m, s1, t1, &o, reuse);
		if (r)
			same_trace(fresh1, r, "reuse, 6th pass (sentence 1 again)");
	}
	trace_free(fresh1);
	trace_free(fresh2);
	trace_free(reuse);
	free(s1); free(t1); free(s2); free(t2);
}

/* forward_pe_table: the PE curves' table over 100 positions (issue 13,
 * item 6) is the pass's src.pos on the sentence's rows, and the paper's
 * formula (computed here as exp(−2i/d · ln 10000), not as op_sinusoid's
 * pow) at position 99; a learned table stops at max_len. */
static void test_pe_table(const struct model *m)
{
	struct pass_opts o;
	pass_opts_default(&o);
	struct trace *t = run(m, "a b c", NULL, &o, NULL);
	const int d = m->cfg.d_model;
	int n = 0;
	float *pe = forward_pe_table(m, 100, &n);   /* [n, d] */
	const float *sp = t ? stage3(t, "src.pos", 5, d, 0) : NULL;   /* [5, d] */
	tap_ok(pe && n == 100, "forward_pe_table: 100 rows for a sinusoidal model (%d)", n);
	if (pe && sp) {
		double md = 0, mf = 0;
		for (int i = 0; i < 5 * d; i++)
			md = fmax(md, fabs(pe[i] - sp[i]));
		for (int p = 0; p < 100; p += 33)
			for (int j = 0; j < d; j++) {
				double f = p * exp(-(double)(j & ~1) / d * log(10000.0));
				mf = fmax(mf, fabs(pe[(size_t)p * d + j] - (j % 2 ? cos(f) : sin(f))));
			}
		tap_ok(md == 0, "the table's first 5 rows are the pass's src.pos (max diff %g)", md);
		tap_ok(mf < 1e-5, "rows 0, 33, 66, 99 follow sin/cos(p/10000^(2i/d)) (max diff %.2g)",
		       mf);
	}
	free(pe);
	trace_free(t);

	write_file(tpath("learned.yaml"),
		   "name: learned\narchitecture: decoder-only\nd_model: 8\nheads: 2\n"
		   "decoder_layers: 1\nd_ff: 16\nmax_len: 40\npositional_encoding: learned\n"
		   "tokenizer:\n  source_vocab: [\"<pad>\", \"<s>\", \"</s>\", \"<unk>\", a]\n"
		   "init: {random: 3}\n");
	struct model *ml = load(tpath("learned.yaml"));
	if (ml) {
		pe = forward_pe_table(ml, 100, &n);
		tap_ok(pe && n == 40 && !memcmp(pe, ml->pos_embed, (size_t)40 * 8 * sizeof *pe),
		       "a learned table: its max_len rows (40 of 100 asked), as stored (%d)", n);
		free(pe);
		model_free(ml);
	}
	unlink(tpath("learned.yaml"));
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/attnscope-fwd-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	test_hand();
	write_file(tpath("rnd.yaml"), RND);
	struct model *m = load(tpath("rnd.yaml"));
	if (m) {
		test_masks(m);
		test_reuse(m);
		test_pe_table(m);
		model_free(m);
	}
	unlink(tpath("hand.yaml"));
	unlink(tpath("hand_pe.yaml"));
	unlink(tpath("rnd.yaml"));
	rmdir(tmpdir);
	return tap_done();
}
