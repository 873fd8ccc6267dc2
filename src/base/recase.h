/* recase.h - a lower-cased output given the capitals of the text typed.
 *
 * A model that lower-cases its input (tokenizer lowercase: true) answers
 * in lower case: "Where is the library?" gives "onde está a biblioteca?".
 * text_recase gives the answer the capitals its reader expects from what
 * was typed: the first letter when the typed text's first letter is a
 * capital ("Onde está a biblioteca?"), and then the first of each sentence
 * after a . ! or ? ("Olá! Como você está?"), and a word typed with a capital
 * after the first ("Maria", "TV") spelt so wherever it appears in the
 * output unchanged otherwise ("maria é minha amiga" -> "Maria é minha
 * amiga").  Letters are those of Latin-1 (A-Z, À-Þ and their lower cases,
 * which keep their UTF-8 length), so out is changed in place. */
#ifndef ATTNSCOPE_RECASE_H
#define ATTNSCOPE_RECASE_H

void text_recase(const char *typed, char *out);

#endif
