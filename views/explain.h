/* explain.h - what each stage of the forward pass does, in plain words.
 *
 * Every stage of a trace has a short explanation (two or three sentences, in
 * the words a teacher uses with the lecture): what the stage computes and
 * why.  The texts live in one table in explain.c, one entry per stage
 * family (scores, masked, weights, norm, ...; cross-attention and pre-norm
 * variants have their own), as plain string literals so that they can be
 * marked for gettext.  The panel draws the stage's formula and its text. */
#ifndef ATTNSCOPE_EXPLAIN_H
#define ATTNSCOPE_EXPLAIN_H

#include "canvas.h"
#include "engine/trace.h"
#include "view.h"

/* The family a stage belongs to, the key of its explanation: "scores",
 * "cross.scores", "masked.enc", "norm.pre", "ffn.hidden", ...  Chosen from
 * the last component of the stage's name, its kind, block and formula
 * (post- vs pre-norm, sinusoidal vs learned positions).  Never NULL; a
 * stage of no known family gets "other". */
const char *explain_family(const struct stage *s);

/* The explanation of a stage: static text, never NULL or empty. */
const char *explain_text(const struct stage *s);

/* A framed panel titled "what this stage does" filling r: the stage's
 * formula on the first line, then its explanation word-wrapped to the
 * panel's width; clipped to r (a cut text ends in "…").  Nothing is drawn
 * outside r; below 6×3 the frame is left out. */
void explain_draw(struct canvas *c, struct rect r, const struct stage *s);

/* The same panel for a stage seen through a view other than its own
 * (mode: VM_MAP, VM_MODEL or VM_LINES): the view's explanation first
 * (the head view, the model view, the map), then the stage's, then note
 * (or NULL). */
void explain_draw_view(struct canvas *c, struct rect r, const struct stage *s,
		       enum view_mode mode, const char *note);

struct view_state;
/* What the stage's explanation should add about this pass and model (the
 * note explain_draw_view appends), written into buf: label smoothing on
 * the output stages of a model trained with it (why no prediction tops
 * ~90%), an attention sink on self-attention weights that give <s> most of
 * their weight.  "" when there is nothing to add.  Returns buf. */
const char *explain_note(const struct view_state *v, char *buf, size_t n);

/* Pages that show more than one stage ("sample": the decoding page
 * while sampling, "lens": the logit lens, "importance": the head
 * importance table): their text, or NULL for another name; and their
 * panel, as explain_draw's (returns -1 for an unknown page). */
const char *explain_page_text(const char *page);
int explain_draw_page(struct canvas *c, struct rect r, const char *page);

#endif
