/* wordpiece.h - BERT's tokenizer from a Hugging Face folder's vocab.txt, id
 * for id with Hugging Face's tokenizers (BertNormalizer, BertPreTokenizer,
 * the WordPiece model), without the [CLS] … [SEP] around it: the model
 * wraps the source with its specials (tokenizer.wrap_source).
 *
 * encode:
 *   1. the specials the vocabulary has ([PAD] [UNK] [CLS] [SEP] [MASK]),
 *      written in the text as they are, are tokens of their own;
 *   2. the rest is cleaned (NUL, U+FFFD and the other characters of
 *      category C* removed, except tab, newline and carriage return; white
 *      space made a space), each CJK ideograph set apart by spaces, and,
 *      with lowercase (do_lower_case, the default), its accents stripped
 *      (NFD, then every non-spacing mark Mn removed) and then lower-cased;
 *   3. it is split at white space, and every punctuation character (any
 *      ASCII symbol ! … / : … @ [ … ` { … ~, and Unicode's P*) is a word of
 *      its own;
 *   4. each word becomes its greedy longest-match pieces, the pieces after
 *      the first written "##piece"; a word of more than 100 characters, or
 *      one with a part no piece matches, is [UNK] as a whole.
 * The categories of steps 2 and 3 (C*, Mn, P*) are Unicode 8.0's, as in
 * Hugging Face's library (base/unicode.h UNI_*8); white space, NFD and
 * lower case are the machine's Unicode (14.0), as Rust's are a newer one:
 * only letters assigned after 14.0 lower-case differently. */
#ifndef ATTNSCOPE_WORDPIECE_H
#define ATTNSCOPE_WORDPIECE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "vocab.h"

#define WORDPIECE_PREFIX "##"
#define WORDPIECE_MAX_CHARS 100

enum { WP_PAD, WP_UNK, WP_CLS, WP_SEP, WP_MASK, WP_NSPECIAL };

struct wordpiece {
	struct vocab vocab;              /* id -> piece (owned) */
	int lowercase;                   /* lower-case and strip accents */
	int special[WP_NSPECIAL];        /* ids of [PAD] [UNK] [CLS] [SEP]
	                                    [MASK], -1 when absent */
};

/* The spellings of the specials, indexed by WP_*. */
extern const char *const WORDPIECE_SPECIALS[WP_NSPECIAL];

/* Reads vocab.txt: one piece a line, the id its line number from 0
 * (trailing white space and \r dropped).  Errors name the file and line. */
int wordpiece_load(struct wordpiece *w, const char *vocab_txt, int lowercase,
		   struct err *e);
/* The same on a vocabulary already loaded (copied). */
int wordpiece_init(struct wordpiece *w, const struct vocab *v, int lowercase,
		   struct err *e);
void wordpiece_free(struct wordpiece *w);

/* Encodes the NUL-terminated text (UTF-8; an invalid byte counts in
 * *invalid and is read as U+FFFD, which cleaning removes) into *ids
 * (malloc'd, *n of them), without [CLS] and [SEP].  Returns 0, or -1
 * (out of memory; a word to be [UNK] when the vocabulary has none). */
int wordpiece_encode(const struct wordpiece *w, const char *text, int32_t **ids, int *n,
		     int *invalid, struct err *e);

/* Is piece a continuation ("##ing")? */
int wordpiece_is_cont(const char *piece);

/* The text of n pieces: words separated by spaces, "##" pieces glued to
 * the one before without the "##".  Returns buf. */
char *wordpiece_text(char *const *pieces, int n, char *buf, size_t cap);

#endif
