/* pretok.c - GPT-2's, Llama 3's and Qwen2's split regexes as scanners. */
#include <stdio.h>
#include <string.h>

#include "pretok.h"
#include "base/unicode.h"
#include "base/utf8.h"

/* The patterns as the files write them (after JSON's unescaping). */
static const char *const PATTERNS[] = {
	[PRETOK_GPT2] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
			"\\s+(?!\\S)|\\s+",
	[PRETOK_LLAMA3] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
			  "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
			  "\\s+(?!\\S)|\\s+",
	[PRETOK_QWEN2] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
			 "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
			 "\\s+(?!\\S)|\\s+",
};

int pretok_find(const char *pattern)
{
	for (int k = 0; k < (int)(sizeof PATTERNS / sizeof *PATTERNS); k++)
		if (!strcmp(pattern, PATTERNS[k]))
			return k;
	return -1;
}

static int is_ws(uint32_t c) { return (uni_flags(c) & UNI_WS) != 0; }
static int is_l(uint32_t c) { return (uni_flags(c) & UNI_L) != 0; }
static int is_n(uint32_t c) { return (uni_flags(c) & UNI_N) != 0; }
static int is_crlf(uint32_t c) { return c == '\r' || c == '\n'; }
/* [^\s\p{L}\p{N}] */
static int is_other(uint32_t c) { return !(uni_flags(c) & (UNI_WS | UNI_L | UNI_N)); }

/* The class of c for GPT-2's regex: 'L', 'N', 's' (white space) or 'o'. */
static int cls(uint32_t c)
{
	unsigned f = uni_flags(c);
	return f & UNI_WS ? 's' : f & UNI_L ? 'L' : f & UNI_N ? 'N' : 'o';
}

/* 's 't 're 've 'm 'll 'd at c[i]: its length or 0; fold: any case (Llama
 * 3's (?i:…), which Oniguruma folds by Unicode: ſ is an s) */
static size_t contraction(const uint32_t *c, size_t i, size_t n, int fold)
{
	if (c[i] != '\'' || i + 1 >= n)
		return 0;
	uint32_t a = c[i + 1], b = i + 2 < n ? c[i + 2] : 0;
	if (fold) {
		a = a == 0x17F ? 's' : a >= 'A' && a <= 'Z' ? a + 32 : a;
		b = b == 0x17F ? 's' : b >= 'A' && b <= 'Z' ? b + 32 : b;
	}
	if (a == 's' || a == 't' || a == 'm' || a == 'd')
		return 2;
	if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
		return 3;
	return 0;
}

/* \s+(?!\S)|\s+ at a run of white space c[i..): all of it at the end of
 * the text or when it is one character, else all but its last */
static size_t ws_run(const uint32_t *c, size_t i, size_t n)
{
	size_t j = i;
	while (j < n && is_ws(c[j]))
		j++;
	if (j == n || j - i == 1)
		return j - i;
	return j - i - 1;
}

static size_t next_gpt2(const uint32_t *c, size_t i, size_t n)
{
	size_t k = contraction(c, i, n, 0);
	if (k)
		return k;
	size_t j = i;
	if (c[i] == ' ' && i + 1 < n && !is_ws(c[i + 1]))
		j++;          /* " ?" takes the space before a word */
	int t = cls(c[j]);
	if (t != 's') {
		do
			j++;
		while (j < n && cls(c[j]) == t);
		return j - i;
	}
	return ws_run(c, i, n);
}

static size_t next_llama3(const uint32_t *c, size_t i, size_t n, size_t maxdig)
{
	size_t k = contraction(c, i, n, 1), j;
	if (k)
		return k;
	/* [^\r\n\p{L}\p{N}]?\p{L}+ */
	j = i;
	if (!is_crlf(c[j]) && !is_l(c[j]) && !is_n(c[j]) && j + 1 < n && is_l(c[j + 1]))
		j++;
	if (is_l(c[j])) {
		while (j < n && is_l(c[j]))
			j++;
		return j - i;
	}
	/* \p{N}{1,maxdig} */
	if (is_n(c[i])) {
		for (j = i; j < n && j - i < maxdig && is_n(c[j]);)
			j++;
		return j - i;
	}
	/*  ?[^\s\p{L}\p{N}]+[\r\n]* */
	j = i + (c[i] == ' ' && i + 1 < n && is_other(c[i + 1]));
	if (is_other(c[j])) {
		while (j < n && is_other(c[j]))
			j++;
		while (j < n && is_crlf(c[j]))
			j++;
		return j - i;
	}
	/* \s*[\r\n]+: up to the last CR or LF of the run of white space */
	size_t last = n;
	for (j = i; j < n && is_ws(c[j]); j++)
		if (is_crlf(c[j]))
			last = j;
	if (last < n)
		return last + 1 - i;
	return ws_run(c, i, n);
}

size_t pretok_next(enum pretok_regex kind, const uint32_t *c, size_t i, size_t n)
{
	switch (kind) {
	case PRETOK_LLAMA3:
		return next_llama3(c, i, n, 3);
	case PRETOK_QWEN2:
		return next_llama3(c, i, n, 1);
	case PRETOK_GPT2:
	default:
		return next_gpt2(c, i, n);
	}
}

static int printable(int b)
{
	return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

uint32_t pretok_byte_cp(int b)
{
	if (printable(b))
		return (uint32_t)b;
	int k = 0;
	for (int c = 0; c < b; c++)
		k += !printable(c);
	return 256u + (uint32_t)k;
}

int pretok_cp_byte(uint32_t cp)
{
	static int inv[324];
	static int ready;
	if (!ready) {
		for (int i = 0; i < 324; i++)
			inv[i] = -1;
		for (int b = 0; b < 256; b++)
			inv[pretok_byte_cp(b)] = b;
		ready = 1;
	}
	return cp < 324 ? inv[cp] : -1;
}

size_t pretok_visible(uint32_t cp, char u[16])
{
	const char *m = cp == ' ' ? "\xe2\x90\xa3" : cp == '\n' ? "\xe2\x86\xb5" :
			cp == '\t' ? "\xe2\x87\xa5" : NULL;   /* ␣ ↵ ⇥ */
	if (m)
		snprintf(u, 16, "%s", m);
	else if (cp < 0x20 || cp == 0x7F)
		snprintf(u, 16, "\\x%02X", (unsigned)cp);
	else
		u[utf8_encode(cp, u)] = 0;
	return strlen(u);
}
