/* complete.h - completing the word under the line editor's cursor from a
 * model's vocabulary (Tab in the sentence and target editors), so a user
 * can see which words the model knows before a word turns into <unk>.
 *
 * Kept apart from lineedit.c: the editor knows nothing of vocabularies. */
#ifndef ATTNSCOPE_COMPLETE_H
#define ATTNSCOPE_COMPLETE_H

#include <stddef.h>

#include "lineedit.h"
#include "formats/vocab.h"

/* Completes the word that ends at the cursor (back to a space) with the
 * tokens of v that start with it (the specials <pad> <s> </s> <unk> left
 * out; the word lower-cased first when lowercase): one match is inserted
 * whole with a space after it; several extend the word to their longest
 * common prefix.  hint gets what to show: the matches (as many as fit in
 * about n bytes, with their count), or that no word of the vocabulary
 * starts so.  Returns the number of matches. */
int complete_word(struct lineedit *le, const struct vocab *v, int lowercase,
		  char *hint, size_t n);

#endif
