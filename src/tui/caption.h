/* caption.h - lecture captions that quote the trace instead of typing its
 * numbers.
 *
 * A caption may hold references in braces, filled in from the step's pass
 * when the step is played, exported or checked:
 *
 *   {weights[h=3, row=5, col=4]}       one cell: "0.54"
 *   {weights[h=3, row=5, col=4]:%}     as a percentage: "54%"
 *   {scores[h=0, row=1, col=2]:.3}     with 3 decimals
 *   {argmax probs[row=2]}              the column token of the row's largest
 *                                      value: "amo"
 *   {max weights[h=3, row=5]:%}        the largest value over the indices
 *   {min weights[h=3]}                 not given (min and mean likewise:
 *   {mean loss}                        {mean loss} is the whole pass's)
 *   {entropy weights[h=0, row=1]}      the row's entropy in bits
 *   {entropy weights[h=0]}             the head's mean row entropy (the
 *                                      model view's title)
 *   {score beam}  {score greedy}       a decoding step's searches: the best
 *   {logp beam}   {output greedy}      score, Σ log p, and the output
 *   {tui: Digits 1–4 hide a head.}     text only the stepper shows (after
 *                                      the colon as written, space and all),
 *   {deck: Click a box.}               only the exported page (no
 *                                      references inside them)
 *   {{ and }}                          literal braces
 *
 * A stage name is looked for next to the step's stage first, then further
 * out: on a step at decoder.1.cross_attn.weights, "weights" is that stage,
 * "self_attn.weights" is decoder.1.self_attn.weights, "norm3" is
 * decoder.1.norm3, and "probs" or "encoder.0.self_attn.weights" are the
 * stages of those names.  Indices are h (head), row and col, counted from 0
 * as the screen counts them; a [S,d] stage has row and col, a [T] one row.
 * Numbers print with the message language's decimal separator and a true
 * minus.  A reference that does not resolve is an error naming it, so
 * `--check` fails the lecture before it is played. */
#ifndef ATTNSCOPE_CAPTION_H
#define ATTNSCOPE_CAPTION_H

#include <stddef.h>

#include "base/err.h"
#include "engine/decode.h"
#include "engine/model.h"
#include "engine/trace.h"

struct caption_src {
	const struct trace *t;        /* the step's pass (or NULL) */
	const char *stage;            /* the step's stage, for relative names
	                                 (or NULL) */
	const struct decode_result *greedy, *beam;   /* a decoding step's
	                                 searches, or NULL */
	int deck;                     /* 1: for the exported page ({deck: …}
	                                 parts), 0: the stepper ({tui: …}) */
	const struct model *m;        /* for {output …}: the text as a reader */
	const char *sentence;         /*   sees it (model_target_text), or NULL */
};

/* Writes text with its references filled in from src into out (n bytes,
 * truncated to fit).  Returns 0, or -1 with e naming the first reference
 * that does not resolve (and out holding the text up to it). */
int caption_fill(const char *text, const struct caption_src *src, char *out,
		 size_t n, struct err *e);

/* Whether text holds a reference (a '{' that is not "{{"). */
int caption_has_refs(const char *text);

#endif
