/* utf8.c - decoding and encoding one UTF-8 code point. */
#include "utf8.h"

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	int len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2; v = c & 0x1F; min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3; v = c & 0x0F; min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4; v = c & 0x07; min = 0x10000;
	} else {
		goto bad;
	}
	if ((size_t)len > n)
		goto bad;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto bad;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = 0xFFFD;
	return 1;
}

int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		int n = utf8_decode(p, 4, &cp);
		if (n == 1 && cp == 0xFFFD)   /* a real U+FFFD takes 3 bytes */
			return 0;
		p += n;
	}
	return 1;
}

int utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

int utf8_cp_width(uint32_t c)
{
	if (c == 0)
		return 0;
	if (c < 32 || (c >= 0x7F && c < 0xA0))
		return 1;   /* control characters are shown as U+FFFD */
	if ((c >= 0x300 && c <= 0x36F) || (c >= 0x200B && c <= 0x200F) ||
	    (c >= 0xFE00 && c <= 0xFE0F))
		return 0;
	if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
	    (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
	    (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
	    (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
	    (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
		return 2;
	return 1;
}

int utf8_width(const char *s)
{
	int w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		p += utf8_decode(p, 4, &cp);
		w += utf8_cp_width(cp);
	}
	return w;
}

void utf8_fpad(FILE *f, const char *s, int w, int right)
{
	int pad = w - utf8_width(s);
	if (!right)
		fputs(s, f);
	for (; pad > 0; pad--)
		fputc(' ', f);
	if (right)
		fputs(s, f);
}
