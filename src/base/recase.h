/* recase.h - a lower-cased output given the capitals of the text typed.
 *
 * A model that lower-cases its input (tokenizer lowercase: true) answers
 * in lower case: "Where is the library?" gives "onde está a biblioteca?".
 * text_recase gives the answer the capitals its reader expects from what
 * was typed: the first letter when the typed text's first letter is a
 * capital ("Onde está a biblioteca?"), and then the first of each sentence
 * after a . ! or ? ("Olá! Como você está?"), and a word typed with a capital
 * inside a sentence ("Maria", "TV"), or at its start before a possessive
 * 's ("Anna's house"), spelt so wherever it appears in the output
 * unchanged otherwise ("eu gosto da maria" -> "Eu gosto da Maria"); the
 * capital of any other word that starts a sentence is the sentence's.  Letters are those of Latin-1 (A-Z, À-Þ and their lower cases,
 * which keep their UTF-8 length), so out is changed in place. */
#ifndef ATTNSCOPE_RECASE_H
#define ATTNSCOPE_RECASE_H

void text_recase(const char *typed, char *out);
/* Spells every whole word or run of words of out that is one of names[n]
 * lower-cased as the name spells it: the proper nouns a lower-cased
 * model's language writes with capitals whatever was typed ("no brasil" ->
 * "no Brasil", "nova york" -> "Nova York"; tokenizer.proper_nouns). */
void text_respell(char *out, char *const *names, int n);

#endif
