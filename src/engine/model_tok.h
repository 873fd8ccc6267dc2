/* model_tok.h - a Hugging Face tokenizer as a model's tokenizer: GPT-2's
 * byte-level BPE (formats/gpt2bpe.h), BERT's WordPiece
 * (formats/wordpiece.h), a SentencePiece model (formats/spm.h, below) or a
 * tokenizer.json (formats/tokjson.h), for a model YAML's `tokenizer: {type:
 * gpt2, source_vocab: vocab.json, merges: merges.txt}`, `{type: wordpiece,
 * source_vocab: vocab.txt, lowercase: true}` or `{type: hf, file:
 * tokenizer.json, config: tokenizer_config.json}` (config optional) and
 * for a Hugging Face folder's loader.
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

/* sentencepiece: src_model (and tgt_model, NULL: the same one serves both
 * sides) as the model's tokenizer (formats/spm.h): m->src_spm / tgt_spm,
 * the vocabularies their pieces in id order (shared when equal), the
 * specials the YAML did not spell out the model file's: pad, sos its bos
 * (null when it has none, as T5's), eos, unk its unknown piece (each null
 * where the file has none).  The ids are the tokenizer's own. */
int model_tok_spm(struct model *m, const char *src_model, const char *tgt_model,
		  struct err *e);
/* After model_tok_spm, for Marian: vocab.json (formats/gpt2bpe.h's
 * reader) becomes the vocabulary of both sides, and each piece the
 * tokenizer gives becomes its vocab.json id, the unknown token's where
 * vocab.json lacks it (MarianTokenizer's _convert_token_to_id); the
 * specials are found again in it.  The caller adds </s> as Marian does
 * (wrap_source with sos null). */
int model_tok_spm_vocab(struct model *m, const char *vocab_json, struct err *e);
/* A tokenizer built elsewhere (spm_new: GGUF's tokenizer.ggml.*) as the
 * model's, on both sides, as model_tok_spm sets it up; what names it in
 * errors.  m owns s from the call on, failed or not. */
struct spm;
int model_tok_spm_adopt(struct model *m, struct spm *s, const char *what, struct err *e);
void model_tok_spm_free(struct model *m);

/* The YAML's tokenizer: mapping tk (type gpt2, wordpiece, sentencepiece or
 * hf, already read with lowercase and specials into m->cfg.tok):
 * source_vocab, and merges for gpt2, as files beside the YAML; type
 * sentencepiece: model (or source_model and target_model), and
 * source_vocab (a vocab.json, for Marian) when given; type hf: file and
 * config; errors name the YAML's line. */
struct ydoc;
struct ynode;
int model_tok_yaml(struct model *m, const struct ydoc *d, const struct ynode *tk,
		   struct err *e);
int model_tok_spm_yaml(struct model *m, const struct ydoc *d, const struct ynode *tk,
		       struct err *e);

#endif
