/* utf8.h - one UTF-8 code point at a time. */
#ifndef ATTNSCOPE_UTF8_H
#define ATTNSCOPE_UTF8_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Decodes the code point at s (at most n bytes; for a NUL-terminated
 * string n may be 4, as a NUL ends any sequence).  Returns its length, or
 * 1 with *cp = U+FFFD for an invalid, overlong or surrogate sequence. */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* Whether the NUL-terminated s is valid UTF-8 throughout. */
int utf8_valid(const char *s);
/* Writes cp (at most 4 bytes, no NUL) to out; returns the length. */
int utf8_encode(uint32_t cp, char *out);

/* Terminal columns of cp (0 for combining marks, 2 for wide CJK and
 * emoji), and of a NUL-terminated string (invalid bytes count as U+FFFD). */
int utf8_cp_width(uint32_t cp);
int utf8_width(const char *s);
/* Writes s to f padded with spaces to w columns: on the left when right
 * (right-aligned), else after it.  For tables whose text may be translated:
 * printf's "%-*s" counts bytes, and "ção" is 5 bytes but 3 columns. */
void utf8_fpad(FILE *f, const char *s, int w, int right);

#endif
