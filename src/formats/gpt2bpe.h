/* gpt2bpe.h - GPT-2's byte-level BPE (Radford et al. 2019) from a Hugging
 * Face folder's vocab.json + merges.txt, id for id with Hugging Face's
 * tokenizers (its ByteLevel pre-tokenizer with add_prefix_space false and
 * its BPE model).
 *
 * encode: the text is split into pre-tokens as GPT-2's regex does
 *   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * (pretok.h's scanner: contractions in lower case only; a space goes with the word after it; a
 * run of white space before a word gives all but its last character, which
 * goes with the word when it is a space; \p{L}, \p{N} and \s from
 * base/unicode.h); each pre-token's UTF-8 bytes become one symbol a byte,
 * the byte's character in GPT-2's byte-to-unicode map (the printable
 * Latin-1 bytes stand for themselves, the other 68 for U+0100 … U+0143:
 * a space is "Ġ", a newline "Ċ"); then the merges apply, the adjacent pair
 * of lowest rank first (the leftmost of equal ranks), until none applies.
 * The tokens the vocabulary marks as added (<|endoftext|>) are matched in
 * the text first and kept whole.  Nothing is added in front of the text or
 * after it.
 *
 * Pieces are the vocabulary's strings ("Ġcat"); gpt2bpe_label shows one
 * for a reader ("␣cat"), gpt2bpe_text joins them back into the text. */
#ifndef ATTNSCOPE_GPT2BPE_H
#define ATTNSCOPE_GPT2BPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "bpemerge.h"
#include "vocab.h"

#define GPT2BPE_EOT "<|endoftext|>"

struct gpt2bpe {
	struct vocab vocab;      /* id -> piece, from vocab.json (owned) */
	int byte_id[256];        /* id of each byte's one-character piece, -1
	                            when the vocabulary lacks it (the byte is
	                            then left out, as Hugging Face's BPE does
	                            without an unknown token) */
	struct bpemerge merges;  /* from merges.txt (owned) */
	int special_id;          /* <|endoftext|>'s id, or -1 */
};

/* Reads vocab.json (an object piece -> id, the ids 0 … n−1 each once) and
 * merges.txt (an optional "#version" line, then "left right" a line in
 * rank order; every left, right and left+right in the vocabulary).
 * Errors name the file and line.  Fills g; free with gpt2bpe_free. */
int gpt2bpe_load(struct gpt2bpe *g, const char *vocab_json, const char *merges,
		 struct err *e);
void gpt2bpe_free(struct gpt2bpe *g);
/* Reads only vocab.json (the same checks) into v; free with vocab_free. */
int gpt2bpe_load_vocab(struct vocab *v, const char *vocab_json, struct err *e);

/* Encodes the NUL-terminated text (UTF-8; an invalid byte counts in
 * *invalid and is read as U+FFFD) into *ids (malloc'd, *n of them; free
 * with free).  Returns 0, or -1 on out of memory. */
int gpt2bpe_encode(const struct gpt2bpe *g, const char *text, int32_t **ids, int *n,
		   int *invalid, struct err *e);

/* The bytes piece stands for into out[cap] (not NUL-terminated; a
 * character outside the byte map is copied as it is).  Returns the count
 * (cut at cap). */
size_t gpt2bpe_bytes(const char *piece, char *out, size_t cap);

/* A piece as a reader sees it, into buf[cap] (NUL-terminated): its text,
 * with a space as "␣", a newline as "↵", a tab as "⇥", and a byte that is
 * not whole UTF-8 on its own (part of an emoji) as "\xF0".  A piece that
 * is not byte-level (<|endoftext|>) is copied.  Returns buf. */
char *gpt2bpe_label(const char *piece, char *buf, size_t cap);

/* The text of n pieces joined (their bytes concatenated; invalid UTF-8
 * shown as U+FFFD) into buf[cap].  Returns buf. */
char *gpt2bpe_text(char *const *pieces, int n, char *buf, size_t cap);

#endif
