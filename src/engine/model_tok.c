/* model_tok.c - GPT-2's, BERT's and tokenizer.json's tokenizers as the
 * model's tokenizer. */
#include <stdlib.h>
#include <string.h>

#include "model_tok.h"
#include "base/path.h"
#include "formats/gpt2bpe.h"
#include "formats/tokjson.h"
#include "formats/wordpiece.h"
#include "formats/ydoc.h"

/* Shares v as the model's vocabulary and sets the specials (see the
 * header) from the spellings def[] (NULL: none). */
static int adopt(struct model *m, const struct vocab *v, const char *const *def,
		 const char *what, struct err *e)
{
	struct tokenizer_cfg *t = &m->cfg.tok;
	static const char *role[] = { "pad", "sos", "eos", "unk" };
	vocab_free(&m->src_vocab);
	vocab_free(&m->tgt_vocab);
	if (vocab_init(&m->src_vocab, (const char *const *)v->tok, v->n, what, e) ||
	    vocab_init(&m->tgt_vocab, (const char *const *)v->tok, v->n, what, e))
		return -1;
	m->shared_vocab = 1;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		if (!t->specials_given[i]) {
			free(t->specials[i]);
			t->specials[i] = NULL;
			if (def[i] && vocab_id(v, def[i]) >= 0 && !(t->specials[i] = strdup(def[i])))
				return err_set(e, "out of memory");
		}
		int id = t->specials[i] ? vocab_id(v, t->specials[i]) : -1;
		if (t->specials[i] && id < 0)
			return err_set(e, "%s: the vocabulary lacks the special token %s (%s; write "
				       "%s: null if the model has none)", what, t->specials[i], role[i],
				       role[i]);
		m->src_sp[i] = m->tgt_sp[i] = id;
	}
	return 0;
}

int model_tok_gpt2(struct model *m, const char *vocab_json, const char *merges,
		   struct err *e)
{
	static const char *const def[TOK_NSPECIAL] = { NULL, NULL, GPT2BPE_EOT, NULL };
	model_tok_free(m);
	if (!(m->gpt2 = malloc(sizeof *m->gpt2)))
		return err_set(e, "out of memory");
	if (gpt2bpe_load(m->gpt2, vocab_json, merges, e)) {
		free(m->gpt2);
		m->gpt2 = NULL;
		return -1;
	}
	m->cfg.tok.type = TOKENIZE_GPT2;
	m->cfg.tok.lowercase = 0;           /* GPT-2 keeps the text as it is */
	return adopt(m, &m->gpt2->vocab, def, vocab_json, e);
}

int model_tok_wordpiece(struct model *m, const char *vocab_txt, int lowercase,
			struct err *e)
{
	const char *const def[TOK_NSPECIAL] = {
		WORDPIECE_SPECIALS[WP_PAD], WORDPIECE_SPECIALS[WP_CLS],
		WORDPIECE_SPECIALS[WP_SEP], WORDPIECE_SPECIALS[WP_UNK]
	};
	model_tok_free(m);
	if (!(m->wordpiece = malloc(sizeof *m->wordpiece)))
		return err_set(e, "out of memory");
	if (wordpiece_load(m->wordpiece, vocab_txt, lowercase, e)) {
		free(m->wordpiece);
		m->wordpiece = NULL;
		return -1;
	}
	m->cfg.tok.type = TOKENIZE_WORDPIECE;
	m->cfg.tok.lowercase = lowercase;
	return adopt(m, &m->wordpiece->vocab, def, vocab_txt, e);
}

int model_tok_tokjson(struct model *m, const char *tokenizer_json,
		      const char *tokenizer_config_json, struct err *e)
{
	const char *def[TOK_NSPECIAL] = { NULL, NULL, NULL, NULL };
	model_tok_free(m);
	if (!(m->tokjson = malloc(sizeof *m->tokjson)))
		return err_set(e, "out of memory");
	if (tokjson_load(m->tokjson, tokenizer_json, tokenizer_config_json, e)) {
		free(m->tokjson);
		m->tokjson = NULL;
		return -1;
	}
	const struct tokjson *t = m->tokjson;
	const int32_t role[TOK_NSPECIAL] = { t->pad, t->bos, t->eos, t->unk };
	for (int i = 0; i < TOK_NSPECIAL; i++)
		def[i] = role[i] >= 0 ? vocab_str(&t->vocab, role[i]) : NULL;
	m->cfg.tok.type = TOKENIZE_HF;
	m->cfg.tok.lowercase = 0;           /* the file's normalizer decides */
	m->cfg.tok.hf = t;
	return adopt(m, &t->vocab, def, tokenizer_json, e);
}

void model_tok_free(struct model *m)
{
	if (m->gpt2) {
		gpt2bpe_free(m->gpt2);
		free(m->gpt2);
		m->gpt2 = NULL;
	}
	if (m->wordpiece) {
		wordpiece_free(m->wordpiece);
		free(m->wordpiece);
		m->wordpiece = NULL;
	}
	model_tok_spm_free(m);
	if (m->tokjson) {
		tokjson_free(m->tokjson);
		free(m->tokjson);
		m->tokjson = NULL;
		m->cfg.tok.hf = NULL;
	}
}

/* tokenizer: {type: hf, file: tokenizer.json, config: tokenizer_config.json}:
 * a Hugging Face tokenizer.json beside the YAML, and optionally its
 * folder's tokenizer_config.json (add_bos_token, bos_token, eos_token,
 * pad_token...); the vocabulary, the specials and the ids are the file's
 * (model_tok_tokjson). */
static int tok_yaml_hf(struct model *m, const struct ydoc *d, const struct ynode *tk,
		       struct err *e)
{
	const struct ynode *f = ynode_get(tk, "file"), *c = ynode_get(tk, "config");
	static const char *const other[] = { "source_vocab", "target_vocab", "merges",
					     "source_merges", "target_merges", "model",
					     "source_model", "target_model", NULL };
	for (int i = 0; other[i]; i++)
		if (ynode_get(tk, other[i]))
			return err_set(e, "%s:%d: tokenizer: type hf does not take %s (the vocabulary "
				       "is the file's)", d->file, tk->line, other[i]);
	if (!f || f->kind != Y_SCALAR || !f->len)
		return err_set(e, "%s:%d: tokenizer: type hf needs file (tokenizer.json)", d->file,
			       tk->line);
	if (c && (c->kind != Y_SCALAR || !c->len))
		return err_set(e, "%s:%d: tokenizer: config must name a file "
			       "(tokenizer_config.json)", d->file, c->line);
	char *fp = path_beside(m->path, f->str), *cp = c ? path_beside(m->path, c->str) : NULL;
	int rc = -1;
	if (!fp || (c && !cp))
		err_set(e, "out of memory");
	else
		rc = model_tok_tokjson(m, fp, cp, e);
	if (rc)
		err_prefix(e, "%s:%d: tokenizer", d->file, tk->line);
	free(fp);
	free(cp);
	return rc;
}

/* tokenizer: {type: gpt2, source_vocab: vocab.json, merges: merges.txt},
 * {type: wordpiece, source_vocab: vocab.txt} or {type: hf, file:
 * tokenizer.json} (tok_yaml_hf): one vocabulary (model_tok.h). */
int model_tok_yaml(struct model *m, const struct ydoc *d, const struct ynode *tk,
		   struct err *e)
{
	if (m->cfg.tok.type == TOKENIZE_HF)
		return tok_yaml_hf(m, d, tk, e);
	const char *hfkey = ynode_get(tk, "file") ? "file" : ynode_get(tk, "config") ? "config" :
			    NULL;
	if (hfkey)
		return err_set(e, "%s:%d: tokenizer: type %s does not take %s (type hf does)", d->file,
			       tk->line, tok_name(m->cfg.tok.type), hfkey);
	if (m->cfg.tok.type == TOKENIZE_SPM)
		return model_tok_spm_yaml(m, d, tk, e);
	const struct ynode *sv = ynode_get(tk, "source_vocab");
	const struct ynode *tv = ynode_get(tk, "target_vocab");
	int gpt2 = m->cfg.tok.type == TOKENIZE_GPT2;
	const struct ynode *mg = ynode_get(tk, "merges");
	const char *bad = tv ? "target_vocab" : ynode_get(tk, "source_merges") ? "source_merges" :
			  ynode_get(tk, "target_merges") ? "target_merges" : !gpt2 && mg ? "merges" : NULL;
	if (bad)
		return err_set(e, "%s:%d: tokenizer: type %s does not take %s", d->file, tk->line,
			       gpt2 ? "gpt2" : "wordpiece", bad);
	if (!sv || sv->kind != Y_SCALAR || !sv->len)
		return err_set(e, "%s:%d: tokenizer: type %s needs source_vocab (%s)", d->file,
			       tk->line, gpt2 ? "gpt2" : "wordpiece", gpt2 ? "vocab.json" : "vocab.txt");
	if (gpt2 && (!mg || mg->kind != Y_SCALAR || !mg->len))
		return err_set(e, "%s:%d: tokenizer: type gpt2 needs merges (merges.txt)", d->file,
			       tk->line);
	char *vp = path_beside(m->path, sv->str), *mp = gpt2 ? path_beside(m->path, mg->str) : NULL;
	int rc = -1;
	if (!vp || (gpt2 && !mp))
		err_set(e, "out of memory");
	else if (gpt2)
		rc = model_tok_gpt2(m, vp, mp, e);
	else
		rc = model_tok_wordpiece(m, vp, m->cfg.tok.lowercase, e);
	if (rc)
		err_prefix(e, "%s:%d: tokenizer", d->file, tk->line);
	free(vp);
	free(mp);
	return rc;
}
