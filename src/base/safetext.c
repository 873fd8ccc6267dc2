/* safetext.c - the one sanitiser for text that goes to a terminal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetext.h"
#include "utf8.h"

/* Code points that act on a terminal or reorder what it shows. */
static int hidden(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	       c == 0xfeff;
}

int safetext_unit(const char *s, int flags, char out[8], int *used)
{
	static const char HEX[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	if (!*p) {
		out[0] = 0;
		*used = 0;
		return 0;
	}
	int n = utf8_decode(p, 4, &c);
	int bad = n == 1 && c == 0xFFFD;   /* a real U+FFFD takes 3 bytes */
	*used = n;
	if (bad || (c < 0x80 && hidden(c) && !(c == '\n' && (flags & SAFETEXT_KEEP_NL)))) {
		unsigned b = bad ? p[0] : c;   /* \xNN: C0, DEL, a stray byte */
		out[0] = '\\', out[1] = 'x', out[2] = HEX[b >> 4], out[3] = HEX[b & 15];
		out[4] = 0;
		return 1;
	}
	if (c >= 0x80 && hidden(c)) {   /* \uNNNN */
		out[0] = '\\', out[1] = 'u';
		for (int i = 0; i < 4; i++)
			out[2 + i] = HEX[(c >> (12 - 4 * i)) & 15];
		out[6] = 0;
		return 1;
	}
	memcpy(out, s, (size_t)n);
	out[n] = 0;
	return 0;
}

static int ascii_mode;

void safetext_set_ascii(int on)
{
	ascii_mode = on;
}

int safetext_ascii(void)
{
	return ascii_mode;
}

/* safetext_unit, and in ASCII mode any other character beyond ASCII as
 * \uNNNN or \UNNNNNNNN (out holds 11 bytes and the NUL). */
static void unit(const char *s, int flags, char out[12], int *used)
{
	static const char HEX[] = "0123456789abcdef";
	if (safetext_unit(s, flags, out, used) || !ascii_mode || !((unsigned char)out[0] & 0x80))
		return;
	uint32_t c;
	utf8_decode((const unsigned char *)s, 4, &c);
	int digits = c > 0xffff ? 8 : 4;
	out[0] = '\\';
	out[1] = c > 0xffff ? 'U' : 'u';
	for (int i = 0; i < digits; i++)
		out[2 + i] = HEX[(c >> (4 * (digits - 1 - i))) & 15];
	out[2 + digits] = 0;
}

void safetext_fputs(const char *s, FILE *fp, int flags)
{
	char u[12];
	int n;
	for (unit(s, flags, u, &n); n; s += n, unit(s, flags, u, &n))
		fputs(u, fp);
}

void safetext_vfprintf(FILE *fp, int flags, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	safetext_fputs(s, fp, flags);
	free(s);
}

char *safetext_copy(char *buf, size_t cap, const char *s, int flags)
{
	char u[12];
	size_t len = 0;
	int n;
	for (unit(s, flags, u, &n); n; s += n, unit(s, flags, u, &n)) {
		size_t k = strlen(u);
		if (len + k >= cap)
			break;
		memcpy(buf + len, u, k);
		len += k;
	}
	buf[len] = 0;
	return buf;
}

int safetext_is_control(const char *glyph)
{
	char u[8];
	int n;
	return safetext_unit(glyph, 0, u, &n);
}
