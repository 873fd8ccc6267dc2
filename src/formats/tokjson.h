/* tokjson.h - a Hugging Face tokenizer.json (and, optionally, the folder's
 * tokenizer_config.json), id for id with Hugging Face's tokenizers.
 *
 * What is read (anything else is a one-line error naming the file and
 * what it holds):
 *   model       BPE (byte-level as Llama 3, Qwen2/3 and SmolLM; or over
 *               characters with byte_fallback to <0xXX> pieces and fuse_unk,
 *               as Llama 2, Mistral, TinyLlama and Gemma; ignore_merges;
 *               merges as "a b" strings or ["a", "b"] pairs) and Unigram
 *               (T5: [piece, score] pairs, Viterbi, unk_id, byte_fallback)
 *   normalizer  NFC, NFD, Lowercase, Prepend, Replace (a String pattern,
 *               or the regex " {2,}" of T5's files), Strip, Sequence of
 *               these; null; and Precompiled (T5's SentencePiece charsmap,
 *               charsmap.h), applied as Hugging Face applies it: a
 *               grapheme of under 6 bytes is replaced whole by the
 *               shortest rule that starts it, else each character by its
 *               rule; graphemes by Unicode's rules for those of under 6
 *               bytes (CR LF, controls alone, prepended marks, marks,
 *               joiners, variation selectors; no tables for Hangul jamo
 *               and flags, whose graphemes are longer; Extended_Pictographic
 *               roughly)
 *   pre_tokenizer  Split (a String pattern, or one of the regexes pretok.h
 *               knows; every behavior, invert false), ByteLevel
 *               (add_prefix_space, use_regex: GPT-2's regex), Metaspace
 *               (replacement, prepend_scheme first/always/never, split),
 *               Digits (individual_digits), WhitespaceSplit, Sequence; null
 *   added_tokens  matched whole in the text before the model runs, the
 *               longest at the leftmost place (lstrip, rstrip, single_word;
 *               normalized: matched in the normalized text), ids as given
 *   post_processor  TemplateProcessing (its single template), Roberta-
 *               and BertProcessing (<s>/[CLS] … </s>/[SEP]), ByteLevel (no
 *               ids), Sequence; null.  tokenizer_config.json's add_bos_token
 *               and add_eos_token, where given, decide whether its bos_token
 *               and eos_token are added (as LlamaTokenizerFast rebuilds
 *               the post-processor from them)
 *   decoder     ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip,
 *               Sequence of these (tokjson_text)
 *
 * Pieces are the vocabulary's strings ("Ġcat", "▁cat", "<0x0A>");
 * tokjson_label shows one for a reader ("␣cat", "↵").  The regexes' \p{L},
 * \p{N} and \s, NFC and lower case come from base/unicode.h (Unicode
 * 14.0): a letter assigned later reads as a symbol.  Memory: about 3 times
 * the file while it is read (Gemma 3's 33 MB: 290 MB), then the vocabulary
 * and the merges. */
#ifndef ATTNSCOPE_TOKJSON_H
#define ATTNSCOPE_TOKJSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "bpemerge.h"
#include "bytetrie.h"
#include "charsmap.h"
#include "vocab.h"

#define TOKJSON_MAX_STEPS 8        /* normalizers, pre-tokenizers, decoders */
#define TOKJSON_MAX_PIECE 1024     /* bytes of one piece or added token */

enum tokjson_model { TOKJSON_BPE, TOKJSON_UNIGRAM };

/* one step of the normalizer, the pre-tokenizer or the decoder (private:
 * the kinds are in tokjson_int.h) */
struct tokjson_step {
	int kind;
	char *a, *b;        /* Replace/Split: pattern, content; Prepend, Metaspace: text */
	int x, y;           /* flags and counts of the kind */
};

struct tokjson_added {
	char *content;      /* owned */
	int32_t id;
	unsigned char special, lstrip, rstrip, single_word, normalized;
};

struct tokjson {
	const char *file;           /* the tokenizer.json's name (a copy, owned) */
	struct vocab vocab;         /* id -> piece, ids 0 … n−1: the model's pieces
	                               and the added tokens (owned) */
	enum tokjson_model model;
	struct tokjson_step norm[TOKJSON_MAX_STEPS], pre[TOKJSON_MAX_STEPS],
		dec[TOKJSON_MAX_STEPS];
	int nnorm, npre, ndec;
	int byte_level;             /* a ByteLevel pre-tokenizer: pieces are
	                               GPT-2's byte characters */
	struct charsmap charsmap;   /* a Precompiled normalizer's rules (owned;
	                               no units when there is none) */
	/* BPE */
	struct bpemerge merges;     /* owned */
	int ignore_merges, byte_fallback, fuse_unk;
	int32_t unk_id;             /* the model's unknown piece, or -1 */
	int32_t byte_tok[256];      /* <0xXX>'s id, or -1 */
	/* Unigram: score of each of the model's pieces [nscore], the longest
	 * piece in bytes */
	double *score;
	int nscore, maxlen;
	double min_score;
	/* added tokens, as the file lists them (owned) */
	struct tokjson_added *added;
	int nadded;
	/* private: the added tokens' contents -> their index in added[]; a
	 * Unigram's pieces -> their ids (owned) */
	struct bytetrie added_trie, piece_trie;
	/* what the post-processor (and tokenizer_config.json) puts around the
	 * text: pre[npre_ids] … post[npost_ids] (owned) */
	int32_t *pre_ids, *post_ids;
	int npre_ids, npost_ids;
	/* the specials (-1: none): bos the one added in front (pre_ids[0]),
	 * eos tokenizer_config.json's eos_token (else the post-processor's
	 * last, else an added special token spelt </s>, <eos>,
	 * <|endoftext|> or <|end_of_text|>), pad its pad_token, unk the
	 * model's unknown piece */
	int32_t bos, eos, pad, unk;
};

/* Reads tokenizer_json (and tokenizer_config_json, NULL when the folder
 * has none) into t.  Errors name the file (and line) and what was found.
 * Free with tokjson_free. */
int tokjson_load(struct tokjson *t, const char *tokenizer_json,
		 const char *tokenizer_config_json, struct err *e);
/* Reads from memory (the fuzz target, the unit tests): json[len] is the
 * tokenizer.json text, config[clen] the config's or NULL; what and
 * config_what name them in messages. */
int tokjson_parse(struct tokjson *t, const char *what, const char *json, size_t len,
		  const char *config_what, const char *config, size_t clen, struct err *e);
void tokjson_free(struct tokjson *t);

/* Encodes the NUL-terminated text (UTF-8; an invalid byte counts in
 * *invalid and is read as U+FFFD) into *ids (malloc'd, *n of them; free
 * with free); with add_special, what the post-processor adds (pre_ids,
 * post_ids) is around them.  Returns 0, or -1 on out of memory. */
int tokjson_encode(const struct tokjson *t, const char *text, int add_special,
		   int32_t **ids, int *n, int *invalid, struct err *e);

/* The text of n pieces (the vocabulary's strings) through the file's
 * decoder into buf[cap] (valid UTF-8, NUL-terminated, cut at a code point
 * boundary).  Returns buf. */
char *tokjson_text(const struct tokjson *t, char *const *pieces, int n, char *buf,
		   size_t cap);

/* A piece as a reader sees it, into buf[cap]: its text, with a space
 * (Ġ, ▁) as "␣", a newline as "↵", a tab as "⇥", a byte that is not whole
 * UTF-8 on its own as "\xF0" (<0xF0> pieces likewise); an added token as
 * it is.  Returns buf. */
char *tokjson_label(const struct tokjson *t, const char *piece, char *buf, size_t cap);

#endif
