/* caveats.h - what a model cannot know about a sentence, named for the
 * reader of its translation.
 *
 * A translator trained on a closed corpus guesses at what it never saw,
 * and the guess reads as fluently as the rest ("transformers" → "garfos
 * transparentes", "555 1234" → "55 anos").  caveats_find names, word by
 * word, what the translation cannot be trusted on:
 *
 *   CAV_UNK     a word outside the vocabulary: the model reads <unk>
 *   CAV_UNSEEN  a word that was never a word of the training corpus: its
 *               pieces are known, the word is not (NAME.words.txt beside
 *               the model's YAML lists the corpus's words, lower case;
 *               models without it get no such caveat)
 *   CAV_NUMBER  a number (a word with a digit) the output does not repeat
 *   CAV_NAME    a name (capitalised, not the sentence's first word) the
 *               output does not repeat, when it has fewer capitalised words
 *               of its own (Lisboa for Lisbon) than such names: one of them
 *               was left out or changed, and the caveat names them all
 *   CAV_EMPTY   the model ends the sentence at once (word "")
 *
 * The last three read the output as a translation: encoder-decoder models
 * only (a decoder-only model's continuation need not repeat anything).
 * Each caveat has a short reason (English; the caller translates it with
 * _() for people and keeps it for JSON). */
#ifndef ATTNSCOPE_CAVEATS_H
#define ATTNSCOPE_CAVEATS_H

#include <stdint.h>

#include "base/err.h"
#include "model.h"

enum caveat_kind { CAV_UNK, CAV_UNSEEN, CAV_NUMBER, CAV_NAME, CAV_EMPTY };

struct caveat {
	enum caveat_kind kind;
	char *word;                /* as typed (owned); "" for CAV_EMPTY */
	const char *reason;        /* static English, marked N_() */
	const char *tag;           /* the same in two or three words, for
	                              the stepper's header, marked N_() */
};

struct caveats {
	struct caveat *v;
	int n;
};

/* The caveats of sentence with output out[0..nout) (the model's
 * translation, as ids without </s>; NULL with nout < 0: not translated,
 * only the caveats of the sentence itself).  Returns 0, or -1 with e
 * filled (out of memory, an unreadable word list).  c is empty on entry
 * or after caveats_free. */
int caveats_find(const struct model *m, const char *sentence, const int32_t *out,
		 int nout, struct caveats *c, struct err *e);
void caveats_free(struct caveats *c);

#endif
