/* test_tokjson.c - tokenizer.json (formats/tokjson.h) on hand-written tiny
 * files whose ids are derived by hand below, and the edges the comparison
 * with Hugging Face's tokenizers (tests/tokjson.test) does not reach: the
 * empty text, invalid UTF-8, added tokens with lstrip/rstrip/single_word,
 * labels, bad files.  The ids and texts derived by hand agree with Hugging
 * Face's tokenizers 0.23.2 on the same three files (its merges written as
 * pairs: it does not take the two spellings in one list). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "formats/tokjson.h"

/* A SentencePiece-style BPE as Llama 2's: ▁ is U+2581 (E2 96 81).  Both
 * files are complete as Hugging Face's tokenizers reads them (it requires
 * every field of an added token; tokjson takes false for a missing one). */
#define SPECIAL "\"single_word\": false, \"lstrip\": false, \"rstrip\": false, " \
	"\"normalized\": false, \"special\": true"
static const char SP_BPE[] =
	"{\"version\": \"1.0\", \"truncation\": null, \"padding\": null,\n"
	" \"added_tokens\": [\n"
	"  {\"id\": 0, \"content\": \"<unk>\", " SPECIAL "},\n"
	"  {\"id\": 1, \"content\": \"<s>\", " SPECIAL "},\n"
	"  {\"id\": 2, \"content\": \"</s>\", " SPECIAL "},\n"
	"  {\"id\": 14, \"content\": \"<m>\", \"single_word\": false, \"lstrip\": true,"
	" \"rstrip\": true, \"normalized\": false, \"special\": false},\n"
	"  {\"id\": 13, \"content\": \"bc\", \"single_word\": true, \"lstrip\": false,"
	" \"rstrip\": false, \"normalized\": false, \"special\": false}],\n"
	" \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [\n"
	"  {\"type\": \"Prepend\", \"prepend\": \"\\u2581\"},\n"
	"  {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"}]},\n"
	" \"pre_tokenizer\": null,\n"
	" \"post_processor\": {\"type\": \"TemplateProcessing\",\n"
	"  \"single\": [{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}},\n"
	"             {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}],\n"
	"  \"pair\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},\n"
	"           {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}],\n"
	"  \"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [1], \"tokens\": [\"<s>\"]}}},\n"
	" \"decoder\": {\"type\": \"Sequence\", \"decoders\": [\n"
	"  {\"type\": \"Replace\", \"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"},\n"
	"  {\"type\": \"ByteFallback\"}, {\"type\": \"Fuse\"},\n"
	"  {\"type\": \"Strip\", \"content\": \" \", \"start\": 1, \"stop\": 0}]},\n"
	" \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": \"<unk>\",\n"
	"  \"fuse_unk\": true, \"byte_fallback\": true,\n"
	"  \"vocab\": {\"<unk>\": 0, \"<s>\": 1, \"</s>\": 2, \"<0x0A>\": 3, \"<0xC3>\": 4,\n"
	"   \"<0xA9>\": 5, \"\\u2581\": 6, \"a\": 7, \"b\": 8, \"c\": 9, \"\\u2581a\": 10,\n"
	"   \"ab\": 11, \"\\u2581ab\": 12, \"bc\": 13},\n"
	"  \"merges\": [\"\\u2581 a\", \"a b\", [\"\\u2581a\", \"b\"], \"b c\"]}}\n";

/* A Unigram as T5's, with Metaspace. */
static const char UNIGRAM[] =
	"{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"added_tokens\": [],\n"
	" \"normalizer\": null, \"post_processor\": null,\n"
	" \"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\",\n"
	"  \"prepend_scheme\": \"always\", \"split\": true},\n"
	" \"decoder\": {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\",\n"
	"  \"prepend_scheme\": \"always\", \"split\": true},\n"
	" \"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0],\n"
	"  [\"\\u2581\", -2], [\"\\u2581a\", -1], [\"b\", -2], [\"ab\", -1.5], [\"a\", -3],\n"
	"  [\"\\u2581ab\", -4]]}}\n";

static void enc(const struct tokjson *t, const char *text, int special, const int32_t *want,
		int nw, int want_invalid, const char *what)
{
	struct err e = { "", 0 };
	int32_t *ids = NULL;
	int n = 0, invalid = 0;
	char got[256] = "", exp[256] = "";
	if (tokjson_encode(t, text, special, &ids, &n, &invalid, &e)) {
		tap_ok(0, "%s: %s", what, e.msg);
		return;
	}
	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), " %d", ids[i]);
	for (int i = 0; i < nw; i++)
		snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %d", want[i]);
	tap_ok(!strcmp(got, exp) && invalid == want_invalid, "%s: [%s ] (want [%s ]; %d invalid)",
	       what, got, exp, invalid);
	free(ids);
}

static void dec(const struct tokjson *t, const int32_t *ids, int n, const char *want,
		const char *what)
{
	char *p[16], buf[128];
	for (int i = 0; i < n; i++)
		p[i] = (char *)vocab_str(&t->vocab, ids[i]);
	tokjson_text(t, p, n, buf, sizeof buf);
	tap_str(buf, want, what);
}

static void sp_bpe(void)
{
	struct tokjson t;
	struct err e = { "", 0 };
	if (tap_ok(!tokjson_parse(&t, "sp.json", SP_BPE, strlen(SP_BPE), NULL, NULL, 0, &e),
		   "the SentencePiece-style BPE reads (%s)", e.msg) == 0)
		return;
	tap_ok(t.vocab.n == 15 && t.bos == 1 && t.eos == 2 && t.unk == 0 && t.pad == -1,
	       "15 pieces; bos <s> 1 (the template's), eos </s> 2, unk <unk> 0, no pad");
	/* "ab bc" -> "▁ab▁bc": ▁ a b ▁ b c; ranks: ▁a 0, then ▁a+b 2 (before
	 * b+c 3), then b+c: ▁ab ▁ bc */
	enc(&t, "ab bc", 1, (const int32_t[]){ 1, 12, 6, 13 }, 4, 0, "ab bc: <s> ▁ab ▁ bc");
	enc(&t, "ab bc", 0, (const int32_t[]){ 12, 6, 13 }, 3, 0, "without the template");
	/* é (C3 A9) and \n are not pieces: their bytes' pieces */
	enc(&t, "\xc3\xa9\n", 1, (const int32_t[]){ 1, 6, 4, 5, 3 }, 5, 0,
	    "é and a newline: byte fallback <0xC3> <0xA9> <0x0A>");
	/* x y z have no piece and no byte piece: one <unk> (fuse_unk) */
	enc(&t, "xyz", 1, (const int32_t[]){ 1, 6, 0 }, 3, 0, "xyz: ▁ and one fused <unk>");
	/* an invalid byte is U+FFFD, which has no piece */
	enc(&t, "a\xff" "b", 1, (const int32_t[]){ 1, 10, 0, 8 }, 4, 1,
	    "invalid UTF-8: U+FFFD, counted, <unk>");
	enc(&t, "", 1, (const int32_t[]){ 1 }, 1, 0, "the empty text: <s> alone");
	enc(&t, "", 0, NULL, 0, 0, "the empty text without the template: nothing");
	/* the text on each side of an added token is normalized alone: "▁b" */
	enc(&t, "a</s>b", 1, (const int32_t[]){ 1, 10, 2, 6, 8 }, 5, 0,
	    "a</s>b: </s> whole, ▁ prepended to each side");
	/* lstrip and rstrip take the spaces around <m> */
	enc(&t, "a <m> b", 1, (const int32_t[]){ 1, 10, 14, 6, 8 }, 5, 0,
	    "a <m> b: <m> takes its spaces (lstrip, rstrip)");
	/* single_word: "bc" inside "abc" is no match, alone it is */
	enc(&t, "abc bc", 1, (const int32_t[]){ 1, 12, 9, 6, 13 }, 5, 0,
	    "abc bc: the added bc only as a word of its own (single_word)");
	dec(&t, (const int32_t[]){ 1, 12, 6, 13 }, 4, "<s> ab bc", "decode: <s> ab bc");
	dec(&t, (const int32_t[]){ 6, 4, 5, 3, 10 }, 5, "\xc3\xa9\n a",
	    "decode: the bytes join into é and a newline, the first space stripped");
	dec(&t, (const int32_t[]){ 4, 10 }, 2, "\xef\xbf\xbd a",
	    "decode: a lone <0xC3> is U+FFFD");
	char lb[64];
	tap_str(tokjson_label(&t, "\xe2\x96\x81" "ab", lb, sizeof lb), "\xe2\x90\xa3" "ab",
		"label ▁ab: ␣ab");
	tap_str(tokjson_label(&t, "<0x0A>", lb, sizeof lb), "\xe2\x86\xb5", "label <0x0A>: ↵");
	tap_str(tokjson_label(&t, "<0xC3>", lb, sizeof lb), "\\xC3", "label <0xC3>: \\xC3");
	tap_str(tokjson_label(&t, "</s>", lb, sizeof lb), "</s>", "label </s>: as it is");
	tokjson_free(&t);
}

static void unigram(void)
{
	struct tokjson t;
	struct err e = { "", 0 };
	if (tap_ok(!tokjson_parse(&t, "u.json", UNIGRAM, strlen(UNIGRAM), NULL, NULL, 0, &e),
		   "the Unigram reads (%s)", e.msg) == 0)
		return;
	/* ▁ab: ▁ab -4, ▁a+b -3, ▁+ab -3.5, ▁+a+b -7: ▁a b */
	enc(&t, "ab", 1, (const int32_t[]){ 2, 3 }, 2, 0, "unigram ab: ▁a b (score -3)");
	/* x: no piece, <unk> of score -4 - 10 */
	enc(&t, "ab xx", 1, (const int32_t[]){ 2, 3, 1, 0 }, 4, 0,
	    "unigram ab xx: ▁a b ▁ <unk> (xx one unknown)");
	dec(&t, (const int32_t[]){ 2, 3, 1, 5 }, 4, "ab a", "unigram decode: ab a");
	tokjson_free(&t);
}

/* A precompiled charsmap as SentencePiece writes it (the library 0.1.97
 * trained a model with the rules A -> a, U+FF21 Ａ -> A, U+FB01 ﬁ -> fi,
 * tab -> space, U+200B -> nothing, e U+0301 -> é; base64 of the model's
 * normalizer_spec.precompiled_charsmap), behind a Unigram of single
 * characters. */
static const char CHARSMAP_B64[] =
	"AAQAAAAgAAAJDQAAAQAAgAUAAIDMAAIAgQ0AAAoAAICAEAIAiwUAAAAAAICsAAIAgR0AAAcAAIChDQAAAwAAgA4A"
	"AAARAAAAEAAAABMAAAASAAAAFQAAABQAAAAXAAAAFgAAABkAAAAYAAAAvNgCABoAAAAdAAAAHAAAAB8AAAAeAAAA"
	"IQAAACAAAAAjAAAAIgAAACUAAAAkAAAAJwAAACYAAAApAAAAKAAAACsAAAAqAAAALQAAACwAAAAvAAAALgAAADEA"
	"AAAwAAAAMwAAADIAAAA1AAAANAAAADcAAAA2AAAAOQAAADgAAAA7AAAAOgAAAD0AAAA8AAAAPwAAAD4AAABBAAAA"
	"QAAAAEMAAABCAAAARQAAAEQAAABHAAAARgAAAEkAAABBKQEASwAAAEoAAABNAAAATAAAAE8AAABOAAAAUQAAAFAA"
	"AABTAAAAUgAAAFUAAABUAAAAVwAAAFYAAABZAAAAWAAAAFsAAABaAAAAXQAAAFwAAABfAAAAXgAAAGEAAABgAAAA"
	"YwAAAGIAAABlAAAAZAAAAGcAAABmAAAAaQAAAGgAAABrAAAAagAAAG0AAABllAIAbwAAAG4AAABxAAAAcAAAAHMA"
	"AAByAAAAdQAAAHQAAAB3AAAAdgAAAHkAAAB4AAAAewAAAHoAAAB9AAAAfAAAAH8AAAB+AAAAgQAAAIAAAACDAAAA"
	"ggAAAIUAAACEAAAAhwAAAIYAAACJAAAAiAAAAIsAAACKAAAAjQAAAIwAAACPAAAAjgAAAJEAAACQAAAAkwAAAJIA"
	"AACVAAAAlAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0AAACcAAAAnwAAAJ4AAAChAAAAoAAAAKMAAACiAAAA"
	"pQAAAKQAAACnAAAApgAAAKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8AAACuAAAAsQAAALAAAACzAAAAsgAAALUA"
	"AAC0AAAAtwAAALYAAAC5AAAAuAAAALsAAAC6AAAAvQAAALwAAAC/AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAA"
	"xAAAAMcAAADGAAAAyQAAAMgAAADLAAAAygAAAM0AAADMAAAAzwAAAM4AAADRAAAA0AAAANMAAADSAAAA1QAAANQA"
	"AADXAAAA1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA4QAAAOAAAADjAAAA4gAAAOUAAADkAAAA"
	"5wAAAO8EAQDpAAAA6AAAAOK0AQDqAAAA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA8wAAAPIAAAD1AAAA9AAAAPcA"
	"AAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAAD8AAAA/wAAAP4AAAAAIABBAGEAZmkAw6kA";

static void precompiled(void)
{
	static const char head[] =
		"{\"added_tokens\": [], \"normalizer\": {\"type\": \"Precompiled\", "
		"\"precompiled_charsmap\": \"";
	static const char tail[] =
		"\"}, \"pre_tokenizer\": {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\", "
		"\"prepend_scheme\": \"always\", \"split\": true}, \"model\": {\"type\": "
		"\"Unigram\", \"unk_id\": 0, \"vocab\": [[\"<unk>\", 0], [\"\\u2581\", -1], "
		"[\"a\", -2], [\"A\", -2], [\"f\", -2], [\"i\", -2], [\"\\u00e9\", -2]]}}";
	char json[sizeof head + sizeof CHARSMAP_B64 + sizeof tail];
	struct tokjson t;
	struct err e = { "", 0 };
	snprintf(json, sizeof json, "%s%s%s", head, CHARSMAP_B64, tail);
	if (!tap_ok(!tokjson_parse(&t, "pc.json", json, strlen(json), NULL, NULL, 0, &e),
		    "a Precompiled normalizer reads (%s)", e.msg))
		return;
	/* A -> a; Ａ -> A (one rule, not A's after it); ﬁ -> f i; the tab a
	 * space; e + U+0301 -> é (a grapheme of 3 bytes, its rule); A + U+0301
	 * is a grapheme of 3 bytes whose shortest rule, A's, replaces it whole:
	 * a (Hugging Face's way, the accent gone) */
	enc(&t, "A \xef\xbc\xa1 \xef\xac\x81\te\xcc\x81 A\xcc\x81", 1,
	    (const int32_t[]){ 1, 2, 1, 3, 1, 4, 5, 1, 6, 1, 2 }, 11, 0,
	    "Precompiled: A Ａ ﬁ<tab>é Á -> ▁a ▁A ▁f i ▁é ▁a");
	/* a zero-width space is removed, a base64 error is one line */
	enc(&t, "a\xe2\x80\x8b" "a", 1, (const int32_t[]){ 1, 2, 2 }, 3, 0,
	    "Precompiled: U+200B removed");
	tokjson_free(&t);
	const char *bad = "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": "
			  "\"AAA*\"}, \"model\": {\"type\": \"Unigram\", \"vocab\": [[\"a\", 0]]}}";
	tap_ok(tokjson_parse(&t, "pc.json", bad, strlen(bad), NULL, NULL, 0, &e) == -1 &&
	       strstr(e.msg, "precompiled_charsmap is not base64"), "a charsmap not base64: %s",
	       e.msg);
	bad = "{\"normalizer\": {\"type\": \"Precompiled\", \"precompiled_charsmap\": "
	      "\"AAAAAAAA\"}, \"model\": {\"type\": \"Unigram\", \"vocab\": [[\"a\", 0]]}}";
	tap_ok(tokjson_parse(&t, "pc.json", bad, strlen(bad), NULL, NULL, 0, &e) == -1 &&
	       strstr(e.msg, "precompiled_charsmap: "), "a charsmap too short: %s", e.msg);
}

/* tokenizer_config.json: add_bos_token / add_eos_token decide, where
 * given, whether bos_token and eos_token are around the text (as
 * LlamaTokenizerFast rebuilds the post-processor from them). */
static void config(void)
{
	struct tokjson t;
	struct err e = { "", 0 };
	static const char *const cfgs[] = {
		"{\"add_bos_token\": false, \"bos_token\": \"<s>\", \"eos_token\": \"</s>\"}",
		"{\"add_bos_token\": true, \"add_eos_token\": true, \"bos_token\": {\"content\":"
		" \"<s>\", \"__type\": \"AddedToken\"}, \"eos_token\": \"</s>\","
		" \"pad_token\": \"<unk>\"}",
		"{\"bos_token\": null, \"eos_token\": null}",
	};
	static const int32_t want[3][5] = { { 12, 6, 13 }, { 1, 12, 6, 13, 2 }, { 1, 12, 6, 13 } };
	static const int nwant[3] = { 3, 5, 4 };
	for (int k = 0; k < 3; k++) {
		if (!tap_ok(!tokjson_parse(&t, "sp.json", SP_BPE, strlen(SP_BPE), "cfg.json", cfgs[k],
					   strlen(cfgs[k]), &e), "config %d reads (%s)", k, e.msg))
			continue;
		enc(&t, "ab bc", 1, want[k], nwant[k], 0,
		    k == 0 ? "add_bos_token false: the template's <s> taken out" :
		    k == 1 ? "add_bos_token and add_eos_token true: <s> … </s>" :
			     "no add_bos_token: the template decides");
		if (k == 0)
			tap_ok(t.bos == -1 && t.eos == 2, "add_bos_token false: no bos, eos </s>");
		if (k == 1)
			tap_ok(t.bos == 1 && t.eos == 2 && t.pad == 0, "bos <s>, eos </s>, pad <unk>");
		tokjson_free(&t);
	}
	const char *bad = "{\"eos_token\": \"<eos>\"}";
	tap_ok(tokjson_parse(&t, "sp.json", SP_BPE, strlen(SP_BPE), "cfg.json", bad, strlen(bad),
			     &e) == -1 && strstr(e.msg, "cfg.json:1: eos_token \"<eos>\" is not in sp.json"),
	       "a config's token the file lacks: %s", e.msg);
}

/* tokjson_parse must fail on text with the message containing want. */
static void bad(const char *json, const char *want, const char *what)
{
	struct tokjson t;
	struct err e = { "", 0 };
	int rc = tokjson_parse(&t, "bad.json", json, strlen(json), NULL, NULL, 0, &e);
	tap_ok(rc == -1 && strstr(e.msg, want) && !strchr(e.msg, '\n'),
	       "bad: %s (\"%s\")", what, e.msg);
}

static void bad_files(void)
{
	bad("", "bad.json:1:", "an empty file");
	bad("[]", "bad.json:1: expected an object", "a list");
	bad("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}",
	    "model type WordPiece is not read", "a WordPiece model");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": []}}",
	    "model.vocab is empty", "an empty vocabulary");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": -1}, \"merges\": []}}",
	    "bad.json:1:", "a negative id");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 0}, \"merges\": []}}",
	    "id 0 given twice", "an id given twice");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 4194304}, \"merges\": []}}",
	    "bad.json:1:", "an id past the limit");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a a\"]}}",
	    "the merge \"a a\" makes or uses a piece that model.vocab lacks", "a merge's product");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [3]}}",
	    "expected \"a b\" or", "a merge that is a number");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [],"
	    " \"continuing_subword_prefix\": \"##\"}}", "continuing_subword_prefix",
	    "a continuing_subword_prefix");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [],"
	    " \"dropout\": 0.1}}", "dropout", "BPE dropout");
	bad("{\"model\": {\"type\": \"Unigram\", \"unk_id\": 5, \"vocab\": [[\"a\", 0]]}}",
	    "model.unk_id", "an unk_id past the vocabulary");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},\n"
	    " \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"a+\"},"
	    " \"behavior\": \"Isolated\", \"invert\": false}}",
	    "bad.json:2: pre_tokenizer Split: the regex \"a+\" is none of those read",
	    "an unknown regex");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},"
	    " \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\":"
	    " {\"id\": \"<s>\"}}, {\"Sequence\": {\"id\": \"A\"}}], \"special_tokens\": {}}}",
	    "special token <s> is not in special_tokens", "a template naming an unknown token");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},"
	    " \"added_tokens\": [{\"id\": 0, \"content\": \"b\"}]}", "id 0 given twice",
	    "an added token on another piece's id");
	bad("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},"
	    " \"truncation\": {\"max_length\": 8}}", "truncation is set", "truncation");
}

int main(void)
{
	sp_bpe();
	unigram();
	precompiled();
	config();
	bad_files();
	return tap_done();
}
