/* input.h - a sentence (and optional target) made into token ids.
 *
 * Encoder-decoder: source = <s> tokens </s> (unless wrap_source: false),
 * padded with <pad> to --pad-to; decoder input = <s> + target (just <s>
 * without a target), padded to --pad-target; labels = target + </s>.
 * Decoder-only: the sentence (plus the target, if any) is the sequence:
 * decoder input = <s> + sequence, labels = sequence + </s>.  The specials
 * are the model's ids; one the model lacks (null) is left out: without
 * <s> the decoder input is the sequence itself, without </s> the last
 * position has no label; without <s>/</s> the source is not wrapped.
 * Encoder-only: only the source.
 *
 * A sentence longer than max_len is an error that states the limit (a
 * truncated sentence would silently show a different pass). */
#ifndef ATTNSCOPE_INPUT_H
#define ATTNSCOPE_INPUT_H

#include <stdint.h>

#include "model.h"
#include "trace.h"

struct pass_input {
	char **src_tok; int32_t *src_ids; int S, src_len;  /* S counts padding */
	char **tgt_tok; int32_t *tgt_ids; int T, tgt_len;
	int prompt;                     /* decoder input tokens given before
	                                   decoding: 1 (<s>), or <s> + the
	                                   sentence for decoder-only */
	char **label_tok; int32_t *labels;                  /* [T] or NULL */
	int nlabels;                    /* the loss's length: T, or T − 1 when
	                                   the last position has no next token
	                                   (decoder-only without </s>) */
	int label_len;                  /* of which real labels (not padding) */
	char **unknown; int nunknown;   /* distinct words mapped to <unk> */
	char **src_typed;               /* [S]: the word typed where a token
	                                   is <unk>, NULL elsewhere; or NULL */
	char **tgt_typed; int ntgt_typed;  /* the same for the decoder input's
	                                   first ntgt_typed positions (they
	                                   stay when decoding replaces the
	                                   rest) */
	char **dropped; int ndropped;   /* distinct punctuation marks left out
	                                   because the vocabulary lacks them */
	int invalid_utf8;               /* bytes replaced by U+FFFD */
};

/* target may be NULL.  Returns 0, or -1 with e filled. */
int input_build(const struct model *m, const char *sentence,
		const char *target, const struct pass_opts *o,
		struct pass_input *in, struct err *e);
void input_free(struct pass_input *in);

/* Sentence punctuation (. , ? ! ; :) the tokenizer splits off is a token
 * when the vocabulary has it; when it does not (the shipped en-pt-tiny has
 * none) it is left out and listed in dropped, never fed as <unk>. */

/* "unknown words: foo, bar" style summary into buf ("" when none). */
const char *input_unknown_summary(const struct pass_input *in, char *buf,
				  size_t bufsz);

/* "punctuation left out (not in the vocabulary): . ?" into buf ("" when
 * none). */
const char *input_dropped_summary(const struct pass_input *in, char *buf,
				  size_t bufsz);

#endif
