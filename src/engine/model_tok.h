/* model_tok.h - a Hugging Face tokenizer as a model's tokenizer: GPT-2's
 * byte-level BPE (formats/gpt2bpe.h), BERT's WordPiece
 * (formats/wordpiece.h) or a tokenizer.json (formats/tokjson.h), for a
 * model YAML's `tokenizer: {type: gpt2, source_vocab: vocab.json, merges:
 * merges.txt}`, `{type: wordpiece, source_vocab: vocab.txt, lowercase:
 * true}` or `{type: hf, file: tokenizer.json, config:
 * tokenizer_config.json}` (config optional) and for a Hugging Face
 * folder's loader.
 *
 * Each sets m->cfg.tok.type, loads the tokenizer into m->gpt2,
 * m->wordpiece or m->tokjson (owned by the model; model_free frees them;
 * m->cfg.tok.hf points at the last), makes its
 * vocabulary the model's source and target vocabulary (shared), and gives
 * the specials the model's YAML did not spell out (specials_given) their
 * spellings for this tokenizer:
 *   gpt2:      pad null, sos null (nothing is put in front of the text), eos
 *              <|endoftext|> (null when the vocabulary lacks it), unk null;
 *   wordpiece: pad [PAD], sos [CLS], eos [SEP], unk [UNK] (each null when
 *              the vocabulary lacks it), so the source is [CLS] … [SEP];
 *   hf:        sos the BOS the post-processor (or tokenizer_config.json's
 *              add_bos_token) puts in front, null when none (Qwen, Llama 3's
 *              first files); eos tokenizer_config.json's eos_token (without
 *              it: tokjson.h's guess); pad its pad_token; unk the model's
 *              unknown piece; each null when absent.  The ids are the
 *              file's, its added tokens included; the text is encoded
 *              without what the post-processor adds (the pass puts sos in
 *              front, as for every model);
 * then fills m->src_sp / m->tgt_sp with their ids.  A special the YAML
 * spelled out and the vocabulary lacks is an error.  lowercase is BERT's
 * do_lower_case: lower-casing and accent stripping. */
#ifndef ATTNSCOPE_MODEL_TOK_H
#define ATTNSCOPE_MODEL_TOK_H

#include "model.h"

int model_tok_gpt2(struct model *m, const char *vocab_json, const char *merges,
		   struct err *e);
int model_tok_wordpiece(struct model *m, const char *vocab_txt, int lowercase,
			struct err *e);
/* tokenizer_config_json may be NULL (the folder has none). */
int model_tok_tokjson(struct model *m, const char *tokenizer_json,
		      const char *tokenizer_config_json, struct err *e);
void model_tok_free(struct model *m);

/* The YAML's tokenizer: mapping tk (type gpt2, wordpiece or hf, already
 * read with lowercase and specials into m->cfg.tok): source_vocab, and
 * merges for gpt2; file and config for hf: files beside the YAML; errors
 * name the YAML's line. */
struct ydoc;
struct ynode;
int model_tok_yaml(struct model *m, const struct ydoc *d, const struct ynode *tk,
		   struct err *e);

#endif
