/* test_recase.c - the capitals of the typed text on a lower-cased output
 * (base/recase.h), against hand-derived expectations. */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "base/recase.h"

static void is(const char *typed, const char *out, const char *want, const char *what)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", out);
	text_recase(typed, buf);
	tap_str(buf, want, what);
}

/* The proper nouns, then the typed text's capitals, as model_target_text. */
static void proper(const char *typed, const char *out, const char *want, const char *what)
{
	char *names[] = { "Brasil", "Nova York", "Estados Unidos", "África" };
	char buf[256];
	snprintf(buf, sizeof buf, "%s", out);
	text_respell(buf, names, 4);
	text_recase(typed, buf);
	tap_str(buf, want, what);
}

int main(void)
{
	is("Where is the library?", "onde está a biblioteca?", "Onde está a biblioteca?",
	   "a capital first letter gives the output one");
	is("where is the library?", "onde está a biblioteca?", "onde está a biblioteca?",
	   "a lower-case one leaves it alone");
	is("Is it cold?", "é frio?", "É frio?", "é -> É (Latin-1: the same two bytes)");
	is("\"Where?\"", "\"onde?\"", "\"Onde?\"", "the first letter, not the first byte");
	is("I love you", "eu te amo", "Eu te amo", "\"I\" starts a sentence");
	is("Maria is my friend.", "maria é minha amiga.", "Maria é minha amiga.",
	   "a name at the start");
	is("I like Maria.", "eu gosto da maria.", "Eu gosto da Maria.",
	   "a name typed with a capital elsewhere is spelt so");
	is("I watch TV.", "eu assisto tv.", "Eu assisto TV.", "an acronym keeps its capitals");
	is("I like Ana and Anabel.", "eu gosto de ana e anabel.", "Eu gosto de Ana e Anabel.",
	   "whole words only: Ana does not touch anabel");
	is("I know Ângela.", "eu conheço ângela.", "Eu conheço Ângela.", "Â -> â compared, Â kept");
	is("I am from Brazil.", "eu sou do brasil.", "Eu sou do brasil.",
	   "a name the output spells otherwise stays as the model wrote it");
	is("Hi I am Tom", "oi eu sou o tomate", "Oi eu sou o tomate", "tom is no word of tomate");
	is("Hello! How are you?", "olá! como você está?", "Olá! Como você está?",
	   "each sentence after . ! ? starts with a capital");
	is("I'm hungry. Can I have an apple?", "estou com fome. posso comer uma maçã?",
	   "Estou com fome. Posso comer uma maçã?", "after . too");
	is("hello! how are you?", "olá! como você está?", "olá! como você está?",
	   "typed in lower case: no sentence is capitalised");
	is("Wait... 10 apples?", "espere... 10 maçãs?", "Espere... 10 maçãs?",
	   "a digit after the mark starts no capital");
	is("Really?! Yes.", "sério?! \"sim\".", "Sério?! \"Sim\".",
	   "a quote before the next sentence's letter");
	is("It costs 3.5 dollars.", "custa 3.5 dólares.", "Custa 3.5 dólares.",
	   "a mark inside a number ends no sentence");
	is("Anna's house is big.", "a casa de anna é grande.", "A casa de Anna é grande.",
	   "a name before 's at the start is spelt so");
	is("Is it in the box? No, it is in the car.", "está na caixa? não, está no carro.",
	   "Está na caixa? Não, está no carro.",
	   "a word that starts a later sentence is no name: no stays no");
	is("Hi! Tom's dog is here.", "oi! o cachorro do tom está aqui.",
	   "Oi! O cachorro do Tom está aqui.", "a possessive after a mark too");
	is("Hi! Tom’s dog is here.", "oi! o cachorro do tom está aqui.",
	   "Oi! O cachorro do Tom está aqui.", "the typographic apostrophe too");
	is("Good morning, Mrs. Smith!", "bom dia, senhora smith!", "Bom dia, senhora Smith!",
	   "the period of Mrs. ends no sentence: Smith is a name");
	is("MR. Brown is here. Dr. Lee too.", "o senhor brown está aqui. o doutor lee também.",
	   "O senhor Brown está aqui. O doutor Lee também.", "MR. and Dr. too");
	is("I saw him. Then we left.", "eu o vi. então nós saímos.",
	   "Eu o vi. Então nós saímos.", "another word's period still ends a sentence");
	is("", "abc", "abc", "nothing typed: unchanged");
	is("Hello", "", "", "an empty output stays empty");
	is("ÿes", "ÿes", "ÿes", "ÿ has no Latin-1 capital: unchanged");
	proper("i live in brazil", "eu moro no brasil", "eu moro no Brasil",
	       "a proper noun is spelt so whatever was typed");
	proper("I live in New York.", "eu moro em nova york.", "Eu moro em Nova York.",
	       "a name of two words, after the typed York");
	proper("The school is new.", "a escola é nova.", "A escola é nova.",
	       "one word of a two-word name alone is no name");
	proper("We are from the United States.", "nós somos dos estados unidos.",
	       "Nós somos dos Estados Unidos.", "at the end of the sentence");
	proper("I'm from Africa.", "eu sou da áfrica.", "Eu sou da África.",
	       "á -> Á");
	proper("Brazilians", "brasileiros brasil", "Brasileiros Brasil",
	       "only the whole word: brasileiros keeps its letters");
	return tap_done();
}
