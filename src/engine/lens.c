/* lens.c - the logit lens (lens.h): each decoder layer's output through
 * the final norm and the generator.
 *
 * Dimension names: L rows, T positions, K top tokens, V vocabulary,
 * d d_model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "lens.h"
#include "ops.h"

void lens_free(struct lens *l)
{
	free(l->row_stage);
	free(l->top);
	free(l->top_p);
	free(l->chosen);
	free(l->p_chosen);
	free(l->rank_chosen);
	free(l->appears);
	memset(l, 0, sizeof *l);
}

/* The stage the row reads: tgt.input, then each layer's output. */
static void row_name(const struct model *m, int row, char *buf, size_t n)
{
	const struct config *c = &m->cfg;
	const int k = c->arch == ARCH_ENC_DEC ? 3 : 2;
	if (row == 0)
		snprintf(buf, n, "tgt.input");
	else
		snprintf(buf, n, "decoder.%d.%s%d", row - 1, c->norm == NORM_POST ? "norm" : "add", k);
}

/* What position i finally predicts: the search's choice, the label, or
 * the last row's arg-max (argmax[T]); −1 under padding. */
static int32_t chosen_at(const struct trace *t, int i, const float *probs, int V)
{
	if (i > 0 && t->tgt_tokens && t->tgt_tokens[i] && strcmp(t->tgt_tokens[i], "<pad>") == 0)
		return -1;
	const char *s = t->next_tokens && t->next_tokens[i] ? t->next_tokens[i] :
			t->label_tokens ? t->label_tokens[i] : NULL;
	int id = s && t->vocab ? vocab_id(t->vocab, s) : -1;
	if (id >= 0)
		return id;
	int best = 0;
	for (int j = 1; j < V; j++)
		best = probs[j] > probs[best] ? j : best;
	return best;
}

int lens_compute(const struct model *m, const struct trace *t, struct lens *l,
		 struct err *e)
{
	const struct config *c = &m->cfg;
	memset(l, 0, sizeof *l);
	if (c->arch == ARCH_ENC_ONLY)
		return err_set(e, "%s: an encoder-only model has no decoder layers to read with the "
			       "logit lens", m->path);
	const struct stage *in = trace_find(t, "tgt.input");
	if (!in || in->ndim != 2 || in->shape[1] != c->d_model)
		return err_set(e, "the pass has no decoder input to read with the logit lens");
	const int L = c->dec_layers + 1, T = in->shape[0], V = m->tgt_vocab.n, d = c->d_model;
	const int K = V < LENS_TOP ? V : LENS_TOP;
	l->L = L;
	l->T = T;
	l->V = V;
	l->K = K;
	const size_t LT = (size_t)L * T;
	l->row_stage = calloc((size_t)L, sizeof *l->row_stage);
	l->top = malloc(LT * K * sizeof *l->top);
	l->top_p = malloc(LT * K * sizeof *l->top_p);
	l->chosen = malloc((size_t)T * sizeof *l->chosen);
	l->p_chosen = malloc(LT * sizeof *l->p_chosen);
	l->rank_chosen = malloc(LT * sizeof *l->rank_chosen);
	l->appears = malloc((size_t)T * sizeof *l->appears);
	float *y = malloc((size_t)T * d * sizeof *y);
	float *pr = malloc((size_t)T * V * sizeof *pr);   /* one row ℓ [T, V] */
	float *last = malloc((size_t)T * V * sizeof *last);
	if (!l->row_stage || !l->top || !l->top_p || !l->chosen || !l->p_chosen ||
	    !l->rank_chosen || !l->appears || !y || !pr || !last) {
		free(y);
		free(pr);
		free(last);
		lens_free(l);
		return err_set(e, "out of memory for the logit lens");
	}
	/* the last row first: it decides the chosen tokens */
	for (int pass = 0; pass < 2; pass++)
		for (int row = pass ? 0 : L - 1; pass ? row < L : row == L - 1; row++) {
			row_name(m, row, l->row_stage[row], sizeof l->row_stage[row]);
			const struct stage *s = trace_find(t, l->row_stage[row]);
			if (!s || s->ndim != 2 || s->shape[0] != T || s->shape[1] != d) {
				err_set(e, "the pass has no stage %s for the logit lens",
					l->row_stage[row]);
				free(y);
				free(pr);
				free(last);
				lens_free(l);
				return -1;
			}
			/* [T, d] → final norm → [T, V] logits → softmax */
			const float *x = stage_f32(s);
			if (m->dec_norm_w) {
				forward_norm(c, x, T, m->dec_norm_w, m->dec_norm_b, y);
				x = y;
			}
			if (c->logit_scale > 0) {   /* T5 v1.0's tied head: x·d^-½ */
				for (size_t i = 0; i < (size_t)T * d; i++)
					y[i] = x[i] * (float)c->logit_scale;
				x = y;
			}
			float *p = pass ? pr : last;
			op_linear(x, T, d, m->gen_w, m->gen_b, V, p);
			op_softmax_rows(p, T, V);
			if (!pass) {
				for (int i = 0; i < T; i++)
					l->chosen[i] = chosen_at(t, i, last + (size_t)i * V, V);
				continue;
			}
			for (int i = 0; i < T; i++) {
				const float *r = p + (size_t)i * V;
				const size_t at = (size_t)row * T + i;
				int32_t *top = l->top + at * K;
				float *tp = l->top_p + at * K;
				int n = 0;
				for (int j = 0; j < V; j++) {
					if (n == K && !(r[j] > tp[K - 1]))
						continue;
					int q = n < K ? n++ : K - 1;
					while (q > 0 && tp[q - 1] < r[j]) {
						top[q] = top[q - 1];
						tp[q] = tp[q - 1];
						q--;
					}
					top[q] = j;
					tp[q] = r[j];
				}
				const int32_t ch = l->chosen[i];
				l->p_chosen[at] = ch >= 0 ? r[ch] : 0.0f;
				int rank = 1;
				for (int j = 0; ch >= 0 && j < V; j++)
					rank += r[j] > r[ch] || (r[j] == r[ch] && j < ch);
				l->rank_chosen[at] = ch >= 0 ? rank : 0;
			}
		}
	for (int i = 0; i < T; i++) {
		int from = -1;
		for (int row = L - 1; row >= 0 && l->chosen[i] >= 0 &&
		     l->rank_chosen[(size_t)row * T + i] == 1; row--)
			from = row;
		l->appears[i] = from;
	}
	free(y);
	free(pr);
	free(last);
	return 0;
}
