/* safetext.h - text from files made safe to show on a terminal.
 *
 * A model name, a vocabulary token, a tensor name, a file path or a line of
 * a YAML file quoted in an error can hold bytes that a terminal obeys:
 * ESC and every other C0 control, DEL, the C1 controls (U+0080-U+009F, CSI
 * among them), and bytes that are not UTF-8.  Every such string goes
 * through this one sanitiser on its way to a terminal or a message: valid
 * printable UTF-8 is kept as it is, and each of those is shown visibly as
 * an escape that is plain ASCII:
 *     a C0 control or DEL        \xNN     (ESC is \x1b)
 *     a byte that is not UTF-8   \xNN     (each byte)
 *     C1, the line/paragraph separators, the bidirectional overrides and
 *     isolates (U+202A-U+202E, U+2066-U+2069), BOM   \uNNNN
 * A backslash itself is kept.  Machine-readable output (JSON, the dump's
 * metadata) escapes for its own format instead.
 *
 * ASCII mode (safetext_set_ascii, on when the locale's character set is
 * not UTF-8, LANG=C): a terminal of another charset reads UTF-8's bytes
 * one by one, and 0x80-0x9F are its C1 controls (0x9B is CSI on an 8-bit
 * terminal: "ě" is C4 9B).  Then every character beyond ASCII is written
 * as its escape too, \uNNNN (\UNNNNNNNN beyond the BMP), by fputs,
 * vfprintf and copy; safetext_unit, which the canvas uses to measure
 * cells, is not changed (the canvas has its own ASCII mode). */
#ifndef ATTNSCOPE_SAFETEXT_H
#define ATTNSCOPE_SAFETEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum {
	SAFETEXT_KEEP_NL = 1,   /* keep '\n': a message of several lines made
				   by the program itself */
};

/* The display of the character at s (NUL-terminated): its own bytes, or its
 * escape, NUL-terminated in out; *used gets the bytes of s it covers (0 at
 * the end of s).  Returns 1 when out is an escape, 0 when it is s's text. */
int safetext_unit(const char *s, int flags, char out[8], int *used);
/* Writes s to fp made safe. */
void safetext_fputs(const char *s, FILE *fp, int flags);
/* printf, then the result made safe (for messages: the arguments come
 * from files). */
void safetext_vfprintf(FILE *fp, int flags, const char *fmt, va_list ap);
/* s made safe into buf (cap > 0 bytes; cut at a character boundary when
 * it does not fit).  Returns buf. */
char *safetext_copy(char *buf, size_t cap, const char *s, int flags);
/* ASCII mode on or off (main: on when nl_langinfo(CODESET) is not UTF-8). */
void safetext_set_ascii(int on);
int safetext_ascii(void);
/* Whether the glyph (one character's UTF-8) must not reach a terminal. */
int safetext_is_control(const char *glyph);

#endif
