/* pretok.h - the pre-tokenizers of byte-level BPE: the byte-to-unicode
 * map of GPT-2 (Hugging Face's ByteLevel) and the split regexes that the
 * real tokenizer files name, each as a hand-written scanner over Unicode
 * categories (base/unicode.h: \p{L}, \p{N}, \s as White_Space), not a
 * regex engine.  Shared by gpt2bpe.h and tokjson.h.
 *
 *   PRETOK_GPT2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *                  (GPT-2; ByteLevel with use_regex: SmolLM, BART, RoBERTa)
 *   PRETOK_LLAMA3  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *                   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *                  (Llama 3, 3.1, 3.2)
 *   PRETOK_QWEN2   the same with \p{N} for \p{N}{1,3}: one digit a
 *                  pre-token (Qwen2, Qwen2.5, Qwen3)
 *
 * Each regex matches at every position, so splitting a text is taking
 * pretok_next's lengths one after another. */
#ifndef ATTNSCOPE_PRETOK_H
#define ATTNSCOPE_PRETOK_H

#include <stddef.h>
#include <stdint.h>

enum pretok_regex { PRETOK_GPT2, PRETOK_LLAMA3, PRETOK_QWEN2 };

/* The kind of the regex written as pattern (a tokenizer.json's Split
 * pattern, as JSON decodes it), or -1 when it is none of the known. */
int pretok_find(const char *pattern);

/* The length in code points of the match at c[i] (i < n) of regex kind
 * over the code points c[0..n); at least 1. */
size_t pretok_next(enum pretok_regex kind, const uint32_t *c, size_t i, size_t n);

/* GPT-2's byte-to-unicode map: the code point standing for byte b (the
 * printable bytes ! … ~, ¡ … ¬, ® … ÿ for themselves, the other 68 in
 * order from U+0100: a space is "Ġ", a newline "Ċ"), and the byte that
 * cp stands for, or -1. */
uint32_t pretok_byte_cp(int b);
/* Code point cp as a token label shows it, into u[16]: a space, newline
 * or tab as ␣ ↵ ⇥, another control character as \xNN, else its UTF-8.
 * Returns the bytes written (u is NUL-terminated). */
size_t pretok_visible(uint32_t cp, char u[16]);
int pretok_cp_byte(uint32_t cp);

#endif
