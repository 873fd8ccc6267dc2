/* vocab.h - token <-> id tables and the word/char tokenizers.
 *
 * A vocabulary is a list of tokens; the id is the index.  The shipped
 * models put the four specials first (<pad> 0, <s> 1, </s> 2, <unk> 3);
 * other models have them anywhere, or not at all: code asks the model for
 * their ids (model.h src_sp / tgt_sp, indexed by these roles). */
#ifndef ATTNSCOPE_VOCAB_H
#define ATTNSCOPE_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The roles of the specials (indices into tokenizer_cfg.specials and the
 * model's id tables); also the shipped models' ids. */
enum { TOK_PAD = 0, TOK_SOS = 1, TOK_EOS = 2, TOK_UNK = 3, TOK_NSPECIAL = 4 };

struct vocab {
	char **tok;          /* n strings, owned */
	int n;
	/* private: open-addressing hash of token -> id */
	int32_t *slots;
	size_t nslots;
};

/* bpe: words as in word mode, each then split into BPE pieces (bpe.h);
 * gpt2: GPT-2's byte-level BPE (gpt2bpe.h); wordpiece: BERT's (wordpiece.h);
 * spm: a SentencePiece .model (spm.h); hf: a Hugging Face tokenizer.json
 * (tokjson.h): these four tokenise the text themselves (model_tok.h),
 * tokenize() and tokenize_bpe() split them as word mode does */
enum tok_type { TOKENIZE_WORD, TOKENIZE_CHAR, TOKENIZE_BPE, TOKENIZE_GPT2,
		TOKENIZE_WORDPIECE, TOKENIZE_SPM, TOKENIZE_HF };

struct bpe;
struct tokjson;

struct tokenizer_cfg {
	enum tok_type type;
	int lowercase;
	int wrap_source;
	char *specials[TOK_NSPECIAL];  /* the special tokens' spellings; NULL:
	                                  the model has none (`null`) */
	int specials_given[TOK_NSPECIAL];  /* spelled out in the YAML */
	/* type hf: the model's tokenizer.json (model.h owns it; not freed
	 * with the config), which tokens_join and tokens_label read */
	const struct tokjson *hf;
};

/* Builds from n strings (copied).  Duplicates are an error. */
int vocab_init(struct vocab *v, const char *const *toks, int n,
	       const char *what, struct err *e);
/* Builds from n strings (copied); toks[i] NULL (an id without a token) is
 * an error.  Reads one token a line (UTF-8; a trailing \r is dropped;
 * "\n", "\t" and "\\" are a newline, a tab and a backslash). */
int vocab_load(struct vocab *v, const char *path, struct err *e);
void vocab_free(struct vocab *v);
/* Grows v to n tokens with placeholders "<unused:ID>" for ids the
 * tokenizer never gives (a model's embedding may have more rows than its
 * tokenizer has tokens).  Returns 0, or -1 with e set. */
int vocab_pad(struct vocab *v, int n, struct err *e);
/* id of tok, or -1. */
int vocab_id(const struct vocab *v, const char *tok);
const char *vocab_str(const struct vocab *v, int id);
/* 1 when a and b are the same list: the same tokens in the same order (so
 * one embedding table can serve both). */
int vocab_equal(const struct vocab *a, const struct vocab *b);

/* Splits text into token strings: word mode splits on white space and
 * splits punctuation off as tokens of its own, but for a hyphen between
 * two letters, which stays in its word (t-shirt) (bpe mode splits words the
 * same way: tokenize_bpe then splits them into pieces); char mode gives one
 * token a UTF-8 code point, a run of white space between two becoming one
 * " " token.  Invalid UTF-8 bytes
 * become U+FFFD and are counted in *invalid.  Returns the count, or -1.
 * *out is an array of n malloc'd strings; free with tokens_free. */
int tokenize(const struct tokenizer_cfg *c, const char *text, char ***out,
	     int *invalid, struct err *e);
void tokens_free(char **toks, int n);

/* tokenize, then (when b is given) each word split into its BPE pieces:
 * "gatos ?" -> "gat@@" "os" "?" (bpe_apply: pieces that v, when given,
 * lacks are split back).  c->type TOKENIZE_BPE splits words as word mode
 * does. */
int tokenize_bpe(const struct tokenizer_cfg *c, const struct bpe *b,
		 const struct vocab *v, const char *text, char ***out, int *invalid, struct err *e);

/* Writes tokens as the text a reader expects into buf[cap] (cut short at a
 * code point boundary when it does not fit): words separated by one space,
 * a piece ending in "@@" glued to the next without the "@@", and the
 * punctuation . , ? ! : ; glued to the word before (and a time's minutes
 * to its colon: 7 : 30 -> 7:30); in char mode the
 * tokens (spaces included) are concatenated; GPT-2's pieces give their
 * bytes back (gpt2bpe_text), BERT's "##" pieces are glued to the piece
 * before (wordpiece_text), SentencePiece's join as spm_text does, a
 * tokenizer.json's go through its decoder (tokjson_text).  Returns buf. */
char *tokens_join(const struct tokenizer_cfg *c, char *const *toks, int n,
		  char *buf, size_t cap);

/* A token as the views label it, into buf[cap]: GPT-2's pieces as their
 * text with a visible space mark ("Ġcat" -> "␣cat", gpt2bpe_label),
 * SentencePiece's as written ("▁cat" stays, spm_label), a tokenizer.json's
 * with a visible space mark (tokjson_label), any other token as it is.
 * Returns buf. */
char *tokens_label(const struct tokenizer_cfg *c, const char *tok, char *buf, size_t cap);

/* Maps tokens to ids; unknown tokens become <unk> and are counted in
 * *unknown.  ids must have room for n. */
void vocab_encode(const struct vocab *v, char *const *toks, int n,
		  int32_t *ids, int *unknown);

#endif
