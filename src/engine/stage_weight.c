/* stage_weight.c - the weight each stage uses, and its file dtype
 * (stage_weight.h).  Found by pointer: the model's layer structs point
 * into its tensors, whatever names the file gave them. */
#include <stdio.h>
#include <string.h>

#include "stage_weight.h"

static const struct wtensor *by_data(const struct model *m, const float *p)
{
	for (int i = 0; p && i < m->ntensors; i++)
		if (m->tensors[i].data == p)
			return &m->tensors[i];
	return NULL;
}

/* A stage of one attention block: "q", "k", "v", "out", "q_norm", "k_norm". */
static const float *attn_weight(const struct attn_w *a, const char *what, int *part)
{
	static const char *const qkv[] = { "q", "k", "v" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(what, qkv[i])) {
			*part = i;
			return a->in_w;
		}
	return !strcmp(what, "out") ? a->out_w : !strcmp(what, "q_norm") ? a->q_norm :
	       !strcmp(what, "k_norm") ? a->k_norm : NULL;
}

/* "self_attn.q", "norm2", "ffn.gate", ... of layer L. */
static const float *layer_weight(const struct model *m, const struct layer_w *L,
				 const char *rest, int *part)
{
	if (!strncmp(rest, "self_attn.", 10))
		return attn_weight(&L->self, rest + 10, part);
	if (!strncmp(rest, "cross_attn.", 11))
		return attn_weight(&L->cross, rest + 11, part);
	if (!strcmp(rest, "norm1"))
		return L->n1_w;
	if (!strcmp(rest, "norm2"))
		return L->n2_w;
	if (!strcmp(rest, "norm3"))
		return L->n3_w;
	if (!strcmp(rest, "ffn.gate") || !strcmp(rest, "ffn.up")) {
		*part = rest[4] == 'u';
		return m->cfg.ffn_gated ? L->l1_w : NULL;
	}
	if (!strcmp(rest, "ffn.hidden"))
		return L->l1_w;
	return !strcmp(rest, "ffn.out") ? L->l2_w : NULL;
}

const struct wtensor *stage_weight_of(const struct model *m, const char *name, int *part)
{
	char stack[16];
	int layer, n = 0;
	const float *p = NULL;
	*part = -1;
	if (sscanf(name, "%15[a-z].%d.%n", stack, &layer, &n) == 2 && n > 0 && layer >= 0) {
		const int dec = !strcmp(stack, "decoder");
		if (dec ? layer < m->cfg.dec_layers && m->dec :
		    !strcmp(stack, "encoder") && layer < m->cfg.enc_layers && m->enc)
			p = layer_weight(m, dec ? &m->dec[layer] : &m->enc[layer], name + n, part);
	} else if (!strcmp(name, "src.embed")) {
		p = m->src_embed;
	} else if (!strcmp(name, "tgt.embed")) {
		p = m->tgt_embed;
	} else if (!strcmp(name, "src.pos") || !strcmp(name, "tgt.pos")) {
		p = m->pos_embed;
	} else if (!strcmp(name, "decoder.norm")) {
		p = m->dec_norm_w;
	} else if (!strcmp(name, "encoder.norm")) {
		p = m->enc_norm_w;
	} else if (!strcmp(name, "logits")) {
		p = m->gen_w;
	}
	return by_data(m, p);
}

char *stage_weight_dtype(const struct model *m, const char *name, char *buf, size_t cap)
{
	int part;
	const struct wtensor *w = stage_weight_of(m, name, &part);
	if (!cap)
		return buf;
	buf[0] = 0;
	if (!w)
		return buf;
	const char *s = w->dtype;   /* "A" or, joined, "A+B+C" in part order */
	for (int k = 0; part > 0 && k < part && strchr(s, '+'); k++)
		s = strchr(s, '+') + 1;
	size_t l = part >= 0 && strchr(s, '+') ? (size_t)(strchr(s, '+') - s) : strlen(s);
	snprintf(buf, cap, "%.*s", (int)l, s);
	return buf;
}

void stage_weight_fill(struct trace *t, const struct model *m)
{
	for (int i = 0; t && i < t->n; i++)
		stage_weight_dtype(m, t->stages[i].name, t->stages[i].wdtype,
				   sizeof t->stages[i].wdtype);
}
