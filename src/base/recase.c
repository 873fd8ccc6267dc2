/* recase.c - capitals of the typed text on a lower-cased output (recase.h). */
#include <stdint.h>
#include <string.h>

#include "recase.h"
#include "utf8.h"

static int is_lower(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xe0 && c <= 0xfe && c != 0xf7);
}

static int is_upper(uint32_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static int is_letter(uint32_t c)
{
	return is_lower(c) || is_upper(c) || c == 0xdf || c == 0xff;   /* ß ÿ: no pair */
}

/* Lower and upper case of a Latin-1 letter: 32 apart, as in ASCII. */
static uint32_t to_lower(uint32_t c)
{
	return is_upper(c) ? c + 32 : c;
}

static uint32_t to_upper(uint32_t c)
{
	return is_lower(c) ? c - 32 : c;
}

/* Rewrites the letter at p (n bytes long) as c, which has its length. */
static void put_cp(char *p, int n, uint32_t c)
{
	char b[4];
	if (utf8_encode(c, b) == n)
		memcpy(p, b, (size_t)n);
}

/* The end of the run of letters starting at s. */
static const char *word_end(const char *s)
{
	uint32_t c;
	int n;
	while (*s && (n = utf8_decode((const unsigned char *)s, 4, &c)) && is_letter(c))
		s += n;
	return s;
}

/* Whether out[0..len) is typed[0..len) lower-cased, letter by letter. */
static int same_lowered(const char *out, const char *typed, size_t len)
{
	size_t i = 0;
	while (i < len) {
		uint32_t a, b;
		int na = utf8_decode((const unsigned char *)out + i, len - i, &a);
		int nb = utf8_decode((const unsigned char *)typed + i, len - i, &b);
		if (na != nb || a != to_lower(b))
			return 0;
		i += (size_t)na;
	}
	return 1;
}

/* Spells every whole word or run of words of out equal to typed[0..len)
 * lower-cased as typed spells it ("nova york" -> "Nova York", not the
 * "nova" of "a escola nova"). */
static void respell(char *out, const char *typed, size_t len)
{
	for (char *p = out; *p;) {
		uint32_t c;
		int n = utf8_decode((const unsigned char *)p, 4, &c);
		if (!is_letter(c)) {
			p += n;
			continue;
		}
		if (same_lowered(p, typed, len) && word_end(p + len) == p + len)
			memcpy(p, typed, len);
		p = (char *)word_end(p);
	}
}

void text_respell(char *out, char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		respell(out, names[i], strlen(names[i]));
}

/* The first letter of out as a capital, and the first of each sentence
 * after it: the letter after a . ! or ? and white space ("olá! como
 * vai?" -> "Olá! Como vai?"; a quote may come between); a digit there
 * starts none, nor a mark inside a word (3.5). */
static void upper_starts(char *out)
{
	int start = 1, mark = 0;
	for (char *p = out; *p;) {
		uint32_t c;
		int n = utf8_decode((const unsigned char *)p, 4, &c);
		if (is_letter(c)) {
			if (start)
				put_cp(p, n, to_upper(c));
			start = mark = 0;
		} else if (c == '.' || c == '!' || c == '?') {
			mark = 1;
		} else if (c == ' ') {
			start |= mark;
			mark = 0;
		} else {
			mark = 0;
			if (c >= '0' && c <= '9')
				start = 0;
		}
		p += n;
	}
}

/* Whether the word ending at e is a possessive: e is "'s" or "’s". */
static int possessive(const char *e)
{
	if (e[0] == '\'' && e[1] == 's')
		return !is_letter((unsigned char)e[2]);
	if (!strncmp(e, "\xe2\x80\x99s", 4))
		return !is_letter((unsigned char)e[4]);
	return 0;
}

/* Whether the word w (len bytes) is a title whose abbreviation's period
 * ends no sentence: Mrs. Smith keeps its capital S. */
static int title(const char *w, size_t len)
{
	static const char *const t[] = { "mr", "mrs", "ms", "dr", "prof", "sr", "sra" };
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (strlen(t[i]) == len) {
			size_t k = 0;
			while (k < len && (char)to_lower((unsigned char)w[k]) == t[i][k])
				k++;
			if (k == len)
				return 1;
		}
	return 0;
}

void text_recase(const char *typed, char *out)
{
	int first = 1, start = 1, mark = 0;
	const char *word = typed;   /* the last word, and its end */
	const char *word_e = typed;
	for (const char *s = typed; *s;) {
		uint32_t c;
		int n = utf8_decode((const unsigned char *)s, 4, &c);
		if (!is_letter(c)) {
			if (c == '.' && s == word_e && title(word, (size_t)(word_e - word)))
				mark = 0;
			else if (c == '.' || c == '!' || c == '?')
				mark = 1;
			else if (c == ' ')
				start |= mark, mark = 0;
			else
				mark = 0;
			s += n;
			continue;
		}
		const char *e = word_end(s);
		if (first && is_upper(c))
			upper_starts(out);
		/* a capital that starts a sentence is the sentence's, not the
		 * word's ("No, it is in the car" keeps no = em + o), unless a
		 * possessive shows a name (Anna's house) */
		if (is_upper(c) && e - s > 1 && (!start || possessive(e)))
			respell(out, s, (size_t)(e - s));
		first = start = mark = 0;
		word = s;
		word_e = e;
		s = e;
	}
}
