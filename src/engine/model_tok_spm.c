/* model_tok_spm.c - SentencePiece .model files as the model's tokenizer
 * (model_tok.h): T5's spiece.model, Llama 2's tokenizer.model, Marian's
 * source.spm / target.spm with vocab.json. */
#include <stdlib.h>
#include <string.h>

#include "model_tok.h"
#include "base/path.h"
#include "formats/gpt2bpe.h"
#include "formats/spm.h"
#include "formats/ydoc.h"

static const char *const ROLE[TOK_NSPECIAL] = { "pad", "sos", "eos", "unk" };

/* The spellings of the specials the YAML did not give: the source
 * tokenizer's pad, bos, eos and unknown pieces (NULL where it has none). */
static int default_specials(struct model *m, struct err *e)
{
	struct tokenizer_cfg *t = &m->cfg.tok;
	const struct spm *s = m->src_spm;
	const int id[TOK_NSPECIAL] = { s->pad_id, s->bos_id, s->eos_id, s->unk_id };
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		if (t->specials_given[i])
			continue;
		free(t->specials[i]);
		t->specials[i] = NULL;
		if (id[i] >= 0 && !(t->specials[i] = strdup(s->piece[id[i]])))
			return err_set(e, "out of memory");
	}
	return 0;
}

/* Each side's ids of the specials; one the YAML spelled out and a side's
 * vocabulary lacks is an error, a default one is -1 there. */
static int find_specials(struct model *m, const char *what, struct err *e)
{
	const struct tokenizer_cfg *t = &m->cfg.tok;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		const char *sp = t->specials[i];
		m->src_sp[i] = sp ? vocab_id(&m->src_vocab, sp) : -1;
		m->tgt_sp[i] = sp ? vocab_id(&m->tgt_vocab, sp) : -1;
		if (sp && t->specials_given[i] && (m->src_sp[i] < 0 || m->tgt_sp[i] < 0))
			return err_set(e, "%s: the vocabulary lacks the special token %s (%s; write "
				       "%s: null if the model has none)", what, sp, ROLE[i], ROLE[i]);
	}
	return 0;
}

static int spm_vocab(struct vocab *v, const struct spm *s, const char *what, struct err *e)
{
	vocab_free(v);
	return vocab_init(v, (const char *const *)s->piece, s->n, what, e);
}

/* m->src_spm and tgt_spm (set) as the model's tokenizer: the type, the
 * vocabularies, the specials' spellings (what names them in errors). */
static int take_models(struct model *m, const char *src_what, const char *tgt_what,
		       struct err *e)
{
	m->cfg.tok.type = TOKENIZE_SPM;
	m->cfg.tok.lowercase = 0;             /* the model's normaliser decides */
	if (spm_vocab(&m->src_vocab, m->src_spm, src_what, e) ||
	    spm_vocab(&m->tgt_vocab, m->tgt_spm, tgt_what, e))
		return -1;
	m->shared_vocab = vocab_equal(&m->src_vocab, &m->tgt_vocab);
	return default_specials(m, e);
}

/* model_tok_spm but for finding the specials' ids. */
static int load_models(struct model *m, const char *src_model, const char *tgt_model,
		       struct err *e)
{
	model_tok_free(m);
	if (!(m->src_spm = spm_load(src_model, e)))
		return -1;
	m->tgt_spm = m->src_spm;
	if (tgt_model && strcmp(tgt_model, src_model) && !(m->tgt_spm = spm_load(tgt_model, e))) {
		m->tgt_spm = m->src_spm;
		return -1;
	}
	return take_models(m, src_model, tgt_model ? tgt_model : src_model, e);
}

int model_tok_spm_adopt(struct model *m, struct spm *s, const char *what, struct err *e)
{
	model_tok_free(m);
	m->src_spm = m->tgt_spm = s;
	return take_models(m, what, what, e) || find_specials(m, what, e) ? -1 : 0;
}

int model_tok_spm(struct model *m, const char *src_model, const char *tgt_model,
		  struct err *e)
{
	return load_models(m, src_model, tgt_model, e) || find_specials(m, src_model, e) ? -1 : 0;
}

int model_tok_spm_vocab(struct model *m, const char *vocab_json, struct err *e)
{
	struct vocab v;
	if (!m->src_spm)
		return err_set(e, "%s: no SentencePiece model to map onto it", vocab_json);
	if (gpt2bpe_load_vocab(&v, vocab_json, e))
		return -1;
	vocab_free(&m->src_vocab);
	vocab_free(&m->tgt_vocab);
	m->src_vocab = v;
	if (vocab_init(&m->tgt_vocab, (const char *const *)v.tok, v.n, vocab_json, e))
		return -1;
	m->shared_vocab = 1;
	free(m->src_spm_map);
	free(m->tgt_spm_map);
	m->src_spm_map = m->tgt_spm_map = NULL;
	/* the vocabulary's unknown token: the spelling the model uses */
	const char *unk = m->cfg.tok.specials[TOK_UNK];
	int unk_id = vocab_id(&v, unk ? unk : m->src_spm->piece[m->src_spm->unk_id]);
	if (spm_remap_vocab(m->src_spm, &v, unk_id, &m->src_spm_map, e) ||
	    spm_remap_vocab(m->tgt_spm, &v, unk_id, &m->tgt_spm_map, e))
		return -1;
	return find_specials(m, vocab_json, e);
}

void model_tok_spm_free(struct model *m)
{
	if (m->tgt_spm != m->src_spm)
		spm_free(m->tgt_spm);
	spm_free(m->src_spm);
	free(m->src_spm_map);
	free(m->tgt_spm_map);
	m->src_spm = m->tgt_spm = NULL;
	m->src_spm_map = m->tgt_spm_map = NULL;
}

/* A scalar's path beside the YAML, or NULL (out of memory, or absent). */
static char *beside(const struct model *m, const struct ynode *n)
{
	return n ? path_beside(m->path, n->str) : NULL;
}

/* tokenizer: {type: sentencepiece, model: x.model} or source_model and
 * target_model; source_vocab: vocab.json maps the pieces to the model's
 * ids (Marian). */
int model_tok_spm_yaml(struct model *m, const struct ydoc *d, const struct ynode *tk,
		       struct err *e)
{
	const struct ynode *k[5] = { ynode_get(tk, "model"), ynode_get(tk, "source_model"),
				     ynode_get(tk, "target_model"), ynode_get(tk, "source_vocab"),
				     ynode_get(tk, "target_vocab") };
	static const char *const name[] = { "merges", "source_merges", "target_merges" };
	for (int i = 0; i < 3; i++)
		if (ynode_get(tk, name[i]))
			return err_set(e, "%s:%d: tokenizer: type sentencepiece does not take %s",
				       d->file, tk->line, name[i]);
	if (k[4])
		return err_set(e, "%s:%d: tokenizer: type sentencepiece takes one source_vocab "
			       "(vocab.json), not target_vocab", d->file, k[4]->line);
	for (int i = 0; i < 4; i++)
		if (k[i] && (k[i]->kind != Y_SCALAR || !k[i]->len))
			return err_set(e, "%s:%d: tokenizer: expected a file name", d->file,
				       k[i]->line);
	if (!k[0] == !k[1] || (k[2] && !k[1]))
		return err_set(e, "%s:%d: tokenizer: type sentencepiece needs model (x.model), or "
			       "source_model and target_model", d->file, tk->line);
	char *src = beside(m, k[0] ? k[0] : k[1]), *tgt = beside(m, k[2]), *voc = beside(m, k[3]);
	int rc = -1;
	if (!src || (k[2] && !tgt) || (k[3] && !voc))
		err_set(e, "out of memory");
	else if (!load_models(m, src, tgt, e) &&
		 (voc ? !model_tok_spm_vocab(m, voc, e) : !find_specials(m, src, e)))
		rc = 0;
	if (rc)
		err_prefix(e, "%s:%d: tokenizer", d->file, tk->line);
	free(src);
	free(tgt);
	free(voc);
	return rc;
}
