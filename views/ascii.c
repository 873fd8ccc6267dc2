/* ascii.c - ASCII glyphs for a terminal whose locale is not UTF-8.
 *
 * Under LANG=C (or any 8-bit codeset) the terminal cannot show UTF-8, so
 * the canvas holds ASCII only: canvas_put maps each glyph one for one
 * (box drawing to - | +, the heat ramp's shades to . + * #, × to x, arrows
 * to < > ^ v, accented letters to their base letter, anything else to ?),
 * and canvas_text writes a few symbols as words ("∞" → "inf", "√" →
 * "sqrt", "…" → "..."). */
#include <stdio.h>
#include <string.h>

#include "canvas.h"
#include "base/utf8.h"

static int ascii_only;

void canvas_set_ascii(int on)
{
	ascii_only = on != 0;
}

int canvas_ascii(void)
{
	return ascii_only;
}

/* One-for-one replacements (one column each). */
static const struct { const char *u, *a; } ONE[] = {
	{ "─", "-" }, { "━", "-" }, { "═", "=" }, { "│", "|" }, { "┃", "|" }, { "║", "|" },
	{ "┌", "+" }, { "┐", "+" }, { "└", "+" }, { "┘", "+" }, { "├", "+" }, { "┤", "+" },
	{ "┬", "+" }, { "┴", "+" }, { "┼", "+" }, { "╭", "+" }, { "╮", "+" }, { "╰", "+" },
	{ "╯", "+" }, { "╔", "+" }, { "╗", "+" }, { "╚", "+" }, { "╝", "+" },
	{ "┏", "+" }, { "┓", "+" }, { "┗", "+" }, { "┛", "+" },
	{ "░", "." }, { "▒", "+" }, { "▓", "*" }, { "█", "#" }, { "▀", "\"" }, { "▄", "_" },
	{ "▏", "|" }, { "▎", "|" }, { "▍", "#" }, { "▌", "#" }, { "▋", "#" }, { "▊", "#" },
	{ "▉", "#" }, { "▕", "|" }, { "▐", "#" },
	{ "×", "x" }, { "·", "." }, { "•", "*" }, { "●", "@" }, { "○", "o" }, { "◆", "*" },
	{ "◇", "o" }, { "▸", ">" }, { "▶", ">" }, { "◀", "<" }, { "▼", "v" }, { "▲", "^" },
	{ "→", ">" }, { "←", "<" }, { "↑", "^" }, { "↓", "v" }, { "↔", "-" }, { "⇒", ">" },
	{ "↵", "<" }, { "“", "\"" }, { "”", "\"" }, { "„", "\"" }, { "‘", "'" }, { "’", "'" },
	{ "«", "\"" }, { "»", "\"" }, { "›", ">" }, { "‹", "<" }, { "—", "-" }, { "–", "-" }, { "−", "-" }, { "‐", "-" },
	{ "✓", "+" }, { "✗", "x" }, { "✔", "+" }, { "✘", "x" }, { "⚠", "!" }, { "ᵀ", "T" },
	{ "÷", "/" }, { "≈", "~" }, { "±", "+" }, { "²", "2" }, { "³", "3" }, { "¹", "1" },
	{ "α", "a" }, { "β", "b" }, { "γ", "g" }, { "δ", "d" }, { "Δ", "D" }, { "ε", "e" },
	{ "θ", "t" }, { "λ", "l" }, { "μ", "u" }, { "π", "p" }, { "σ", "s" }, { "Σ", "S" },
	{ "τ", "t" }, { "\u00a0", " " }, { "\ufffd", "?" },
};

/* Latin letters with marks, and their base letters, in the same order. */
/* Every ASCII character as a one-character string (no buffer to write). */
static const char ASCII1[128][2] = {
	{ 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 }, { 8 }, { 9 }, { 10 }, { 11 }, { 12 }, { 13 }, { 14 }, { 15 },
	{ 16 }, { 17 }, { 18 }, { 19 }, { 20 }, { 21 }, { 22 }, { 23 }, { 24 }, { 25 }, { 26 }, { 27 }, { 28 }, { 29 }, { 30 }, { 31 },
	{ 32 }, { 33 }, { 34 }, { 35 }, { 36 }, { 37 }, { 38 }, { 39 }, { 40 }, { 41 }, { 42 }, { 43 }, { 44 }, { 45 }, { 46 }, { 47 },
	{ 48 }, { 49 }, { 50 }, { 51 }, { 52 }, { 53 }, { 54 }, { 55 }, { 56 }, { 57 }, { 58 }, { 59 }, { 60 }, { 61 }, { 62 }, { 63 },
	{ 64 }, { 65 }, { 66 }, { 67 }, { 68 }, { 69 }, { 70 }, { 71 }, { 72 }, { 73 }, { 74 }, { 75 }, { 76 }, { 77 }, { 78 }, { 79 },
	{ 80 }, { 81 }, { 82 }, { 83 }, { 84 }, { 85 }, { 86 }, { 87 }, { 88 }, { 89 }, { 90 }, { 91 }, { 92 }, { 93 }, { 94 }, { 95 },
	{ 96 }, { 97 }, { 98 }, { 99 }, { 100 }, { 101 }, { 102 }, { 103 }, { 104 }, { 105 }, { 106 }, { 107 }, { 108 }, { 109 }, { 110 }, { 111 },
	{ 112 }, { 113 }, { 114 }, { 115 }, { 116 }, { 117 }, { 118 }, { 119 }, { 120 }, { 121 }, { 122 }, { 123 }, { 124 }, { 125 }, { 126 }, { 127 },
};

static const char MARKED[] = "áàâãäåéèêëíìîïóòôõöúùûüçñýÿÁÀÂÃÄÅÉÈÊËÍÌÎÏÓÒÔÕÖÚÙÛÜÇÑÝ";
static const char BASE[] = "aaaaaaeeeeiiiiooooouuuuc" "nyyAAAAAAEEEEIIIIOOOOOUUUUCNY";

/* Symbols written as words by canvas_text. */
static const struct { const char *u, *a; } WORD[] = {
	{ "∞", "inf" }, { "√", "sqrt" }, { "…", "..." }, { "½", "1/2" }, { "≤", "<=" },
	{ "≥", ">=" }, { "≠", "!=" },
};

const char *canvas_ascii_glyph(const char *g)
{
	if (!*g || !((unsigned char)*g & 0x80))
		return g;
	for (size_t i = 0; i < sizeof ONE / sizeof *ONE; i++)
		if (!strcmp(g, ONE[i].u))
			return ONE[i].a;
	for (size_t i = 0; i < sizeof WORD / sizeof *WORD; i++)
		if (!strcmp(g, WORD[i].u))
			return WORD[i].a[0] == '.' ? "." : WORD[i].a[0] == 'i' ? "~" : "?";
	/* a marked letter (its mark possibly a combining one after it) */
	uint32_t cp;
	int n = utf8_decode((const unsigned char *)g, strlen(g), &cp);
	const char *m = MARKED;
	for (int k = 0; *m; k++) {
		uint32_t mc;
		int ml = utf8_decode((const unsigned char *)m, strnlen(m, 4), &mc);
		if (mc == cp)
			return ASCII1[(unsigned char)BASE[k] & 0x7f];
		m += ml;
	}
	if (n == 1 && cp < 0x80)   /* a base letter with a combining mark */
		return ASCII1[cp];
	return "?";
}

const char *canvas_ascii_text(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	if (!n)
		return buf;
	while (*s && k + 1 < n) {
		if (!((unsigned char)*s & 0x80)) {
			buf[k++] = *s++;
			continue;
		}
		/* one character, with any combining marks after it */
		uint32_t cp;
		int len = utf8_decode((const unsigned char *)s, strnlen(s, 4), &cp);
		if (len < 1)
			len = 1;
		char g[GLYPH_MAX];
		snprintf(g, sizeof g, "%.*s", len, s);
		s += len;
		while ((unsigned char)*s >= 0x80) {   /* combining marks: dropped */
			uint32_t mc;
			int ml = utf8_decode((const unsigned char *)s, strnlen(s, 4), &mc);
			if (ml < 1 || utf8_cp_width(mc) != 0)
				break;
			s += ml;
		}
		const char *a = NULL;
		for (size_t i = 0; i < sizeof WORD / sizeof *WORD && !a; i++)
			if (!strcmp(g, WORD[i].u))
				a = WORD[i].a;
		if (!a)
			a = canvas_ascii_glyph(g);
		size_t al = strlen(a);
		if (k + al >= n)
			break;
		memcpy(buf + k, a, al);
		k += al;
	}
	buf[k] = 0;
	return buf;
}
