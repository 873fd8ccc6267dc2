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
	static char one[2];
	const char *m = MARKED;
	for (int k = 0; *m; k++) {
		uint32_t mc;
		int ml = utf8_decode((const unsigned char *)m, strnlen(m, 4), &mc);
		if (mc == cp) {
			one[0] = BASE[k];
			one[1] = 0;
			return one;
		}
		m += ml;
	}
	if (n == 1 && cp < 0x80) {   /* a base letter with a combining mark */
		one[0] = (char)cp;
		one[1] = 0;
		return one;
	}
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
