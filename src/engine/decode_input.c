/* decode_input.c - what decoding is given and what it gives back: the
 * check of decode_run's input, and a decoded output as the decoder's
 * input of a traced pass (the model's start tokens + the output,
 * decode_set_target) with its labels for teacher forcing
 * (decode_teacher_force). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

/* The input decode_run is given: the source (encoder-decoder) and the
 * decoder's prompt as input_build makes them, every id within its
 * vocabulary, and the options within range.  Any caller's mistake is an
 * error here rather than a read outside a buffer. */
int decode_check_input(const struct model *m, const struct pass_input *src,
		       const struct decode_opts *o, struct err *e)
{
	const struct config *c = &m->cfg;
	if (o->beam < 1 || o->beam > DECODE_MAX_BEAM)
		return err_set(e, "beam width %d is outside 1…%d", o->beam, DECODE_MAX_BEAM);
	if (o->max_len < 0 || o->min_len < 0 || !isfinite(o->alpha) || o->alpha < 0)
		return err_set(e, "decoding options out of range (max_len %d, min_len %d, alpha %g)",
			       o->max_len, o->min_len, o->alpha);
	if (o->sample && o->beam != 1)
		return err_set(e, "sampling draws one output: it takes no beam (beam %d)", o->beam);
	if (o->sample && (!isfinite(o->so.temperature) || o->so.temperature < 0 ||
			  o->so.top_k < 0 || !(o->so.top_p > 0 && o->so.top_p <= 1)))
		return err_set(e, "sampling options out of range (temperature %g, top-k %d, top-p %g)",
			       o->so.temperature, o->so.top_k, o->so.top_p);
	if (c->arch == ARCH_ENC_DEC) {
		if (!src->src_ids || src->S < 1 || src->S > c->max_len || src->src_len < 1 ||
		    src->src_len > src->S)
			return err_set(e, "%s: no source to decode from (%d tokens, %d real)",
				       m->path, src->S, src->src_len);
		for (int i = 0; i < src->S; i++)
			if (src->src_ids[i] < 0 || src->src_ids[i] >= m->src_vocab.n)
				return err_set(e, "%s: source token id %d is outside the vocabulary (%d tokens)",
					       m->path, (int)src->src_ids[i], m->src_vocab.n);
	}
	/* the prompt: <s> for an encoder-decoder, <s> + the sentence for a
	   decoder-only model */
	const int P = src->prompt;
	if (!src->tgt_ids || P < 1 || P > src->tgt_len || src->tgt_len > src->T ||
	    (c->arch == ARCH_ENC_DEC && P != (m->ndec_start ? m->ndec_start : 1)))
		return err_set(e, "%s: no decoder prompt to decode after (%d tokens given, %d in the input)",
			       m->path, P, src->tgt_len);
	for (int i = 0; i < P; i++)
		if (src->tgt_ids[i] < 0 || src->tgt_ids[i] >= m->tgt_vocab.n)
			return err_set(e, "%s: prompt token id %d is outside the vocabulary (%d tokens)",
				       m->path, (int)src->tgt_ids[i], m->tgt_vocab.n);
	return 0;
}

int decode_set_target(const struct model *m, struct pass_input *in,
		      const int32_t *ids, int n, int pad_to)
{
	const int prompt = in->prompt > 0 ? in->prompt : 1;
	int len = prompt + n, T = pad_to > len ? pad_to : len;
	int32_t *nid = malloc((size_t)T * sizeof *nid);
	char **ntok = calloc((size_t)T, sizeof *ntok);
	if (!nid || !ntok) {
		free(nid);
		free(ntok);
		return -1;
	}
	for (int i = 0; i < T; i++) {
		int pad = m->tgt_sp[TOK_PAD] >= 0 ? m->tgt_sp[TOK_PAD] : 0;
		nid[i] = i < prompt ? (m->cfg.arch == ARCH_DEC_ONLY ? in->tgt_ids[i] :
				       i < m->ndec_start ? m->dec_start[i] : m->tgt_sp[TOK_SOS])
			 : i < len ? ids[i - prompt] : pad;
		ntok[i] = strdup(vocab_str(&m->tgt_vocab, nid[i]));
		if (!ntok[i]) {
			tokens_free(ntok, i);
			free(nid);
			return -1;
		}
	}
	tokens_free(in->tgt_tok, in->T);
	free(in->tgt_ids);
	tokens_free(in->label_tok, in->T);
	free(in->labels);
	in->label_tok = NULL;
	in->labels = NULL;
	in->nlabels = in->label_len = 0;
	in->tgt_ids = nid;
	in->tgt_tok = ntok;
	in->T = T;
	in->tgt_len = len;
	return 0;
}

int decode_teacher_force(const struct model *m, struct pass_input *in,
			 const int32_t *ids, int n, int pad_to)
{
	if (decode_set_target(m, in, ids, n, pad_to))
		return -1;
	const int prompt = in->prompt > 0 ? in->prompt : 1, T = in->T;
	int32_t *lab = malloc((size_t)T * sizeof *lab);
	char **ltok = calloc((size_t)T, sizeof *ltok);
	if (!lab || !ltok) {
		free(lab);
		free(ltok);
		return -1;
	}
	const int pad = m->tgt_sp[TOK_PAD], eos = m->tgt_sp[TOK_EOS];
	/* position i predicts decoder input i+1: the output after the prompt */
	for (int i = 0; i < T; i++) {
		int k = i - (prompt - 1);   /* index into ids */
		lab[i] = i >= in->tgt_len ? (pad >= 0 ? pad : TOK_PAD) : k < 0 ? in->tgt_ids[i + 1] :
			 k < n ? ids[k] : eos >= 0 ? eos : TOK_EOS;
		if (!(ltok[i] = strdup(vocab_str(&m->tgt_vocab, lab[i])))) {
			tokens_free(ltok, i);
			free(lab);
			return -1;
		}
	}
	in->labels = lab;
	in->label_tok = ltok;
	in->nlabels = T;   /* the loss over the labels, padding left out */
	in->label_len = in->tgt_len;
	return 0;
}
