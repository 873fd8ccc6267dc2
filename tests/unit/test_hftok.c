/* test_hftok.c - the pieces of GPT-2's and BERT's tokenizers that the id
 * comparison of tests/hf_tokenizers.test does not show: how a piece reads
 * on screen, the text pieces join back into, and the Unicode lookups, each
 * against a value derived by hand (the code points from the Unicode
 * charts; UTF-8 bytes written as escapes). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "base/unicode.h"
#include "formats/gpt2bpe.h"
#include "formats/vocab.h"
#include "formats/wordpiece.h"

static void label(const char *piece, const char *want)
{
	char buf[64];
	gpt2bpe_label(piece, buf, sizeof buf);
	tap_ok(!strcmp(buf, want), "gpt2bpe_label(\"%s\") = \"%s\" (got \"%s\")", piece, want, buf);
}

static void seq(const char *what, const uint32_t *got, int n, const uint32_t *want, int nw)
{
	int ok = n == nw;
	for (int i = 0; ok && i < n; i++)
		ok = got[i] == want[i];
	tap_ok(ok, "%s (%d code points)", what, n);
}

int main(void)
{
	/* GPT-2's byte map: space is U+0120 Ġ, newline U+010A Ċ, tab U+0109 ĉ;
	 * 😀 is F0 9F 98 80, whose bytes are ð (U+00F0) Ł (U+0141) ĺ (U+013A)
	 * Ģ (U+0122) */
	label("\xc4\xa0" "cat", "\xe2\x90\xa3" "cat");              /* Ġcat -> ␣cat */
	label("\xc4\x8a", "\xe2\x86\xb5");                          /* Ċ -> ↵ */
	label("\xc4\x89", "\xe2\x87\xa5");                          /* ĉ -> ⇥ */
	label("na\xc3\x83\xc2\xaf" "ve", "na\xc3\xaf" "ve");        /* naÃ¯ve -> naïve */
	label("\xc3\xb0\xc5\x81\xc4\xba", "\\xF0\\x9F\\x98");       /* ðŁĺ: not whole UTF-8 */
	label("<|endoftext|>", "<|endoftext|>");
	label("\xc4\x80", "\\x00");                                 /* Ā is byte 0 */

	char *pieces[] = { "Hello", "\xc4\xa0" "world", "\xc4\xa0\xc3\xb0\xc5\x81\xc4\xba",
			   "\xc4\xa2", "\xc4\x8a" };
	char text[64];
	gpt2bpe_text(pieces, 5, text, sizeof text);
	tap_ok(!strcmp(text, "Hello world \xf0\x9f\x98\x80\n"),
	       "gpt2bpe_text: the bytes back (an emoji split in two pieces whole again)");
	struct tokenizer_cfg g = { .type = TOKENIZE_GPT2 }, w = { .type = TOKENIZE_WORDPIECE };
	tokens_join(&g, pieces, 2, text, sizeof text);
	tap_ok(!strcmp(text, "Hello world"), "tokens_join on gpt2 pieces: \"%s\"", text);
	char buf[64];
	tokens_label(&g, "\xc4\xa0" "world", buf, sizeof buf);
	tap_ok(!strcmp(buf, "\xe2\x90\xa3" "world"), "tokens_label(gpt2, Ġworld) = ␣world");
	tokens_label(&w, "##ing", buf, sizeof buf);
	tap_ok(!strcmp(buf, "##ing"), "tokens_label(wordpiece, ##ing) is the piece");

	char *wp[] = { "[CLS]", "the", "una", "##ffa", "##ble", "cat", ".", "##" };
	wordpiece_text(wp + 1, 5, text, sizeof text);
	tap_ok(!strcmp(text, "the unaffable cat"), "wordpiece_text joins ## pieces: \"%s\"", text);
	tokens_join(&w, wp + 5, 3, text, sizeof text);
	tap_ok(!strcmp(text, "cat . ##"), "a lone \"##\" is a piece of its own: \"%s\"", text);

	/* the Unicode tables */
	uint32_t out[UNI_MAX_DECOMP];
	int n = uni_decompose(0xE9, out);                           /* é = e + U+0301 */
	seq("NFD of U+00E9", out, n, (const uint32_t[]){ 0x65, 0x301 }, 2);
	n = uni_decompose(0x1E69, out);                  /* ṩ = s + U+0323 + U+0307 */
	seq("NFD of U+1E69, its marks in canonical order", out, n,
	    (const uint32_t[]){ 0x73, 0x323, 0x307 }, 3);
	n = uni_decompose(0xAC01, out);                             /* 각 = ᄀ ᅡ ᆨ */
	seq("NFD of Hangul U+AC01", out, n, (const uint32_t[]){ 0x1100, 0x1161, 0x11A8 }, 3);
	n = uni_lower(0x130, out);                                  /* İ -> i + U+0307 */
	seq("lower-case of U+0130", out, n, (const uint32_t[]){ 0x69, 0x307 }, 2);
	n = uni_lower(0x3A3, out);                                  /* Σ -> σ */
	seq("lower-case of U+03A3", out, n, (const uint32_t[]){ 0x3C3 }, 1);
	tap_ok(uni_ccc(0x301) == 230 && uni_ccc(0x323) == 220 && uni_ccc('a') == 0,
	       "combining classes: U+0301 230, U+0323 220");
	tap_ok((uni_flags('a') & UNI_L) && (uni_flags(0x4E2D) & UNI_L) &&
	       (uni_flags(0x663) & UNI_N) && (uni_flags(0xBD) & UNI_N) &&
	       !(uni_flags(0x1F600) & (UNI_L | UNI_N | UNI_P)),
	       "letters (a, 中), numbers (٣, ½), an emoji neither");
	tap_ok((uni_flags(0xA0) & UNI_WS) && (uni_flags(0x3000) & UNI_WS) &&
	       !(uni_flags(0x1F) & UNI_WS) && !(uni_flags(0x200B) & UNI_WS),
	       "White_Space: U+00A0, U+3000; not U+001F, not U+200B");
	tap_ok((uni_flags(0xBF) & UNI_P) && (uni_flags(0x2014) & UNI_P) &&
	       !(uni_flags('$') & UNI_P) && !(uni_flags(0x20AC) & UNI_P),
	       "punctuation: ¿ —; not $ € (symbols)");
	tap_ok((uni_flags(0x200B) & UNI_C) && (uni_flags(7) & UNI_C) &&
	       !(uni_flags(0x378) & UNI_C) && (uni_flags(0x301) & UNI_MN),
	       "other: U+200B (Cf), U+0007 (Cc), not the unassigned U+0378; U+0301 is Mn");
	return tap_done();
}
