/* importance.c - head importance by ablation (importance.h).
 *
 * Dimension names: N heads, T decoder positions. */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "forward.h"
#include "importance.h"
#include "formats/corpus.h"

void importance_free(struct importance *imp)
{
	free(imp->h);
	memset(imp, 0, sizeof *imp);
}

int importance_top(const struct importance *imp)
{
	int best = -1;
	for (int i = 0; i < imp->n; i++)
		if (best < 0 || imp->h[i].drop > imp->h[best].drop)
			best = i;
	return best;
}

/* Σ loss [T] of a pass (0 at padding). */
static double nll(const struct trace *t)
{
	const struct stage *s = trace_find(t, "loss");
	double x = 0;
	for (int i = 0; s && i < s->shape[0]; i++)
		x += stage_f32(s)[i];
	return x;
}

static void ablate(struct pass_opts *o, const struct head_score *h)
{
	o->ablate_block = h->block;
	o->ablate_layer = h->layer;
	o->ablate_attn = h->cross;
	o->ablate_head = h->head;
}

int importance_run(const struct model *m, const struct pass_input *in,
		   const struct pass_opts *po, struct importance *imp, struct err *e)
{
	const struct config *c = &m->cfg;
	memset(imp, 0, sizeof *imp);
	imp->base_exact = -1;
	if (!in->labels || in->label_len < 1)
		return err_set(e, "head importance needs labels: a target, or the model's own "
			       "translation");
	const int H = c->heads, Le = c->arch == ARCH_DEC_ONLY ? 0 : c->enc_layers;
	const int Ld = c->arch == ARCH_ENC_ONLY ? 0 : c->dec_layers;
	const int cross = c->arch == ARCH_ENC_DEC;
	const int n = (Le + Ld + (cross ? Ld : 0)) * H;
	if (!(imp->h = calloc((size_t)(n > 0 ? n : 1), sizeof *imp->h)))
		return err_set(e, "out of memory");
	for (int l = 0; l < Le; l++)
		for (int h = 0; h < H; h++)
			imp->h[imp->n++] = (struct head_score){ BLK_ENCODER, l, 0, h, 0, -1 };
	for (int l = 0; l < Ld; l++)
		for (int k = 0; k <= cross; k++)
			for (int h = 0; h < H; h++)
				imp->h[imp->n++] = (struct head_score){ BLK_DECODER, l, k, h, 0, -1 };
	struct pass_opts o = *po;
	o.ablate_head = -1;
	struct trace *t = forward_run(m, in, &o, NULL, e);
	if (!t) {
		importance_free(imp);
		return -1;
	}
	imp->base_nll = nll(t);
	imp->nlabels = in->label_len;
	for (int i = 0; i < imp->n; i++) {
		ablate(&o, &imp->h[i]);
		if (!forward_run(m, in, &o, t, e)) {
			importance_free(imp);
			return -1;
		}
		imp->h[i].drop = nll(t) - imp->base_nll;
	}
	trace_free(t);
	return 0;
}

/* Greedy decoding of in with o; whether it gives ref[0..nref) exactly. */
static int exact_one(const struct model *m, const struct pass_input *in,
		     const struct pass_opts *o, const int32_t *ref, int nref, int *hit,
		     struct err *e)
{
	struct decode_opts d;
	struct decode_result r;
	decode_opts_default(&d);
	d.max_len = nref + 10;
	if (decode_run(m, in, o, &d, &r, e))
		return -1;
	*hit = r.nbest == nref && !r.hit_max_len &&
	       (nref == 0 || !memcmp(r.best, ref, (size_t)nref * sizeof *ref));
	decode_result_free(&r);
	return 0;
}

int importance_exact(const struct model *m, const struct corpus *c, int max,
		     const struct pass_opts *po, struct importance *imp, struct err *e)
{
	if (m->cfg.arch != ARCH_ENC_DEC)
		return err_set(e, "%s: held-out exact match needs an encoder-decoder model "
			       "(source → target pairs)", m->path);
	const int n = max > 0 && max < c->n ? max : c->n;
	struct pass_input *in = calloc((size_t)(n > 0 ? n : 1), sizeof *in);
	int *hits = calloc((size_t)imp->n + 1, sizeof *hits);
	int rc = -1, built = 0, base = 0;
	if (!in || !hits) {
		err_set(e, "out of memory");
		goto out;
	}
	struct pass_opts o = *po;
	o.ablate_head = -1;
	/* every pair's source and reference once: the labels are the
	   target + </s> */
	for (; built < n; built++)
		if (input_build(m, c->pairs[built].src, c->pairs[built].tgt, &o, &in[built], e)) {
			err_prefix(e, "line %d", c->pairs[built].line);
			goto out;
		}
	for (int k = -1; k < imp->n; k++) {
		if (k >= 0)
			ablate(&o, &imp->h[k]);
		for (int i = 0; i < n; i++) {
			int hit;
			if (exact_one(m, &in[i], &o, in[i].labels, in[i].label_len - 1, &hit, e)) {
				err_prefix(e, "line %d", c->pairs[i].line);
				goto out;
			}
			if (k < 0)
				base += hit;
			else
				hits[k] += hit;
		}
	}
	imp->nsent = n;
	imp->base_exact = n ? (double)base / n : 0;
	for (int k = 0; k < imp->n; k++)
		imp->h[k].exact = n ? (double)hits[k] / n : 0;
	rc = 0;
out:
	for (int i = 0; in && i < built; i++)
		input_free(&in[i]);
	free(in);
	free(hits);
	return rc;
}
