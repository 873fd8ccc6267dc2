/* test_spm.c - the SentencePiece reader's edges that tests/spm.test (the
 * library's ids on trained models) does not reach: tokenizers built from
 * arrays as the GGUF reader builds them, with results derived by hand from
 * the algorithm (spm.h); empty text, invalid UTF-8, model files cut at
 * every byte, huge lengths and numbers, contradicting pieces, a broken
 * charsmap; labels and joined text; a tokenizer built from arrays adopted
 * by a model (GGUF's way) and a sentence through input_build. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "engine/input.h"
#include "engine/model.h"
#include "engine/model_tok.h"
#include "formats/spm.h"

#define SP "\xe2\x96\x81"          /* ▁ */

/* <unk> <s> </s>, the 256 byte pieces (ids 3 … 258), then these. */
static const char *const NORMAL[] = { SP, "a", "b", "c", "ab", SP "ab", "abc", SP "c",
				      SP "a", "<sep>" };
static const float NSCORE[] = { -2, -2, -2, -2, -1, -3, -0.5f, -2, -1.5f, 0 };
enum { NBASE = 259, NPIECES = NBASE + 10 };

static char *pieces[NPIECES];
static float scores[NPIECES];
static int32_t types[NPIECES];

static int id_of(const char *p)
{
	for (int i = 0; i < NPIECES; i++)
		if (!strcmp(pieces[i], p))
			return i;
	return -1;
}

static struct spm *build(enum spm_model model, int bytes, int user, struct err *e)
{
	static char bytebuf[256][8];
	pieces[0] = "<unk>";
	pieces[1] = "<s>";
	pieces[2] = "</s>";
	types[0] = SPM_UNKNOWN;
	types[1] = types[2] = SPM_CONTROL;
	for (int b = 0; b < 256; b++) {
		snprintf(bytebuf[b], sizeof bytebuf[b], "<0x%02X>", b);
		pieces[3 + b] = bytebuf[b];
		types[3 + b] = bytes ? SPM_BYTE : SPM_UNUSED;
	}
	for (int i = 0; i < 10; i++) {
		pieces[NBASE + i] = (char *)NORMAL[i];
		scores[NBASE + i] = NSCORE[i];
		types[NBASE + i] = SPM_NORMAL;
	}
	types[NBASE + 9] = user ? SPM_USER_DEFINED : SPM_NORMAL;
	struct spm_spec sp = {
		.n = NPIECES, .pieces = (const char *const *)pieces, .scores = scores,
		.types = types, .model = model, .byte_fallback = bytes, .add_dummy_prefix = 1,
		.remove_extra_whitespaces = 0, .escape_whitespaces = 1, .bos_id = 1, .eos_id = 2,
		.pad_id = -1,
	};
	return spm_new(&sp, "test", e);
}

/* Encodes text and compares with the pieces named in want (space-separated). */
static void enc(const struct spm *s, const char *what, const char *text, size_t len,
		const char *want, int want_invalid)
{
	int32_t *ids;
	int n, invalid = 0;
	struct err e;
	char got[512] = "", exp[512];
	snprintf(exp, sizeof exp, "%s", want);
	if (spm_encode(s, text, len, &ids, &n, &invalid, &e)) {
		tap_ok(0, "%s: encodes (%s)", what, e.msg);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(got);
		snprintf(got + l, sizeof got - l, "%s%s", i ? " " : "", spm_piece(s, ids[i]));
	}
	tap_ok(!strcmp(got, exp) && invalid == want_invalid,
	       "%s: [%s] (got [%s], %d invalid)", what, exp, got, invalid);
	free(ids);
}

static void dec(const struct spm *s, const char *what, const char *pcs, const char *want)
{
	int32_t ids[32];
	int n = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", pcs);
	for (char *t = strtok(buf, " "); t && n < 32; t = strtok(NULL, " "))
		ids[n++] = id_of(t);
	struct err e;
	char *txt = spm_decode(s, ids, n, NULL, &e);
	tap_ok(txt && !strcmp(txt, want), "%s: \"%s\" (got \"%s\")", what, want,
	       txt ? txt : e.msg);
	free(txt);
}

static void from_arrays(void)
{
	struct err e;
	struct spm *s = build(SPM_BPE, 1, 0, &e);
	if (!tap_ok(s != NULL, "a BPE tokenizer from arrays (%s)", s ? "" : e.msg))
		return;
	/* ▁ a b ▁ c: ab (-1) first, then ▁c (-2), then ▁ab (-3); abc never
	 * forms, as ab and c are not adjacent once ▁c is made */
	enc(s, "BPE merges by score", "ab c", 4, SP "ab " SP "c", 0);
	/* é is no piece: its bytes C3 A9 */
	enc(s, "byte fallback", "\xc3\xa9", 2, SP " <0xC3> <0xA9>", 0);
	enc(s, "empty text", "", 0, "", 0);
	/* an invalid byte reads as U+FFFD (EF BF BD), counted */
	enc(s, "invalid UTF-8", "a\xff", 2, SP "a <0xEF> <0xBF> <0xBD>", 1);
	enc(s, "a cut 3-byte sequence", "\xe2\x96", 2,
	    SP " <0xEF> <0xBF> <0xBD> <0xEF> <0xBF> <0xBD>", 2);
	/* remove_extra_whitespaces off: each space is a ▁ */
	enc(s, "spaces kept", "a  b", 4, SP "a " SP " " SP " b", 0);
	enc(s, "a NUL byte is a character", "a\0b", 3, SP "a <0x00> b", 0);
	dec(s, "decode drops the dummy prefix", SP "ab " SP "c", "ab c");
	dec(s, "decode reassembles bytes", "a <0xC3> <0xA9> b", "a\xc3\xa9" "b");
	dec(s, "a lone byte of a sequence is U+FFFD", "<0xC3> a", "\xef\xbf\xbd" "a");
	dec(s, "controls give nothing", "<s> " SP "a </s>", "a");
	dec(s, "unknown as \" \xe2\x81\x87 \"", "a <unk> b", "a \xe2\x81\x87 b");
	int32_t bad = NPIECES;
	char *t = spm_decode(s, &bad, 1, NULL, &e);
	tap_ok(!t && strstr(e.msg, "out of range"), "an id out of range: %s", t ? "decoded" : e.msg);
	free(t);
	tap_ok(spm_id(s, "<0x41>") == 3 + 0x41 && spm_id(s, "zz") == -1 && spm_n(s) == NPIECES &&
	       spm_piece(s, -1) == NULL && spm_piece(s, NPIECES) == NULL, "lookups");
	spm_free(s);

	if (!(s = build(SPM_UNIGRAM, 0, 1, &e))) {
		tap_ok(0, "a unigram tokenizer from arrays (%s)", e.msg);
		return;
	}
	/* ▁ab: the piece ▁ab (-3) ties ▁+ab (-2 - 1) and the path found first
	 * stays (the library offers a later path only when it is better);
	 * both beat ▁a+b (-3.5) and ▁+a+b (-6) */
	enc(s, "unigram Viterbi, a tie kept", "ab", 2, SP "ab", 0);
	/* abc (-0.5) alone beats ab+c (-3) */
	enc(s, "unigram Viterbi", "abc", 3, SP " abc", 0);
	/* <sep> user-defined: whole, though < s e p > are no pieces */
	enc(s, "a user-defined piece whole", "a<sep>b", 7, SP "a <sep> b", 0);
	/* no byte_fallback: a run of unknown characters is one <unk> */
	enc(s, "unknown run merged", "xyz a", 5, SP " <unk> " SP "a", 0);
	spm_free(s);
}

static void refused(const char *what, struct spm_spec sp, const char *want)
{
	struct err e;
	struct spm *s = spm_new(&sp, "arrays", &e);
	tap_ok(!s && strstr(e.msg, want) && !strchr(e.msg, '\n'), "%s: %s", what,
	       s ? "accepted" : e.msg);
	spm_free(s);
}

static void bad_arrays(void)
{
	const char *dup[] = { "<unk>", "a", "a" }, *two[] = { "<unk>", "<unk2>" };
	const char *emp[] = { "<unk>", "" }, *byt[] = { "<unk>", "<0x4G>" };
	int32_t t_dup[] = { 2, 1, 1 }, t_two[] = { 2, 2 }, t_byte[] = { 2, 6 }, t_bad[] = { 2, 9 };
	refused("a piece twice", (struct spm_spec){ .n = 3, .pieces = dup, .types = t_dup,
		.model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "twice");
	refused("two unknown pieces", (struct spm_spec){ .n = 2, .pieces = two, .types = t_two,
		.model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "two unknown");
	refused("an empty piece", (struct spm_spec){ .n = 2, .pieces = emp, .types = t_dup,
		.model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "empty");
	refused("a byte piece without byte_fallback", (struct spm_spec){ .n = 2, .pieces = byt,
		.types = t_byte, .model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 },
		"byte_fallback");
	refused("a misspelt byte piece", (struct spm_spec){ .n = 2, .pieces = byt,
		.types = t_byte, .model = SPM_BPE, .byte_fallback = 1, .bos_id = -1, .eos_id = -1,
		.pad_id = -1 }, "<0x00>");
	refused("a type outside 1 … 6", (struct spm_spec){ .n = 2, .pieces = byt, .types = t_bad,
		.model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "type 9");
	refused("no unknown piece", (struct spm_spec){ .n = 1, .pieces = dup + 1,
		.model = SPM_BPE, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "unknown type");
	refused("a bos id out of range", (struct spm_spec){ .n = 1, .pieces = dup,
		.types = t_two, .model = SPM_BPE, .bos_id = 7, .eos_id = -1, .pad_id = -1 },
		"out of range");
	refused("model type 9", (struct spm_spec){ .n = 1, .pieces = dup, .types = t_two,
		.model = 9, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "model type");
	unsigned char cm[12] = { 200, 0, 0, 0 };
	refused("a charsmap whose trie is larger than it", (struct spm_spec){ .n = 1,
		.pieces = dup, .types = t_two, .model = SPM_BPE, .charsmap = cm,
		.charsmap_len = sizeof cm, .bos_id = -1, .eos_id = -1, .pad_id = -1 }, "charsmap");
	/* a charsmap of garbage units within bounds: reads, matches nothing wrong */
	unsigned char junk[4 + 64 + 8];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (unsigned char)(i * 37 + 11);
	junk[0] = 64;
	junk[1] = junk[2] = junk[3] = 0;
	struct err e;
	struct spm *s = spm_new(&(struct spm_spec){ .n = 1, .pieces = dup, .types = t_two,
		.model = SPM_UNIGRAM, .charsmap = junk, .charsmap_len = sizeof junk,
		.add_dummy_prefix = 1, .escape_whitespaces = 1, .bos_id = -1, .eos_id = -1,
		.pad_id = -1 }, "junk", &e);
	int32_t *ids = NULL;
	int n = 0;
	int ok = s && !spm_encode(s, "\x0b\x30\x55 abc \xff", 9, &ids, &n, NULL, &e);
	tap_ok(ok, "a garbage charsmap within bounds encodes (%d ids)", n);
	free(ids);
	spm_free(s);
}

/* protobuf writing, for the file tests */
static size_t put_varint(unsigned char *o, uint64_t v)
{
	size_t n = 0;
	do {
		o[n++] = (unsigned char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t put_piece(unsigned char *o, const char *p, float score, int type)
{
	unsigned char inner[64];
	size_t k = 0, pl = strlen(p);
	inner[k++] = 0x0A;
	k += put_varint(inner + k, pl);
	memcpy(inner + k, p, pl);
	k += pl;
	inner[k++] = 0x15;
	memcpy(inner + k, &score, 4);     /* little-endian hosts */
	k += 4;
	inner[k++] = 0x18;
	k += put_varint(inner + k, (uint64_t)type);
	size_t n = 0;
	o[n++] = 0x0A;
	n += put_varint(o + n, k);
	memcpy(o + n, inner, k);
	return n + k;
}

static void files(void)
{
	unsigned char buf[512];
	size_t n = 0;
	n += put_piece(buf + n, "<unk>", 0, 2);
	n += put_piece(buf + n, "<s>", 0, 3);
	n += put_piece(buf + n, "</s>", 0, 3);
	n += put_piece(buf + n, SP, -1, 1);
	n += put_piece(buf + n, "a", -1, 1);
	n += put_piece(buf + n, SP "a", -0.5f, 1);
	/* trainer_spec: model_type 2 (BPE), pad_id -1 (10 bytes) */
	unsigned char ts[] = { 0x12, 14, 0x18, 2, 0xD8, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
			       0xFF, 0xFF, 0xFF, 0x01 };
	memcpy(buf + n, ts, sizeof ts);
	n += sizeof ts;
	/* normalizer_spec: name "identity", add_dummy_prefix 1 */
	unsigned char ns[] = { 0x1A, 12, 0x0A, 8, 'i', 'd', 'e', 'n', 't', 'i', 't', 'y', 0x18, 1 };
	memcpy(buf + n, ns, sizeof ns);
	n += sizeof ns;
	struct err e;
	struct spm *s = spm_load_buffer(buf, n, "whole.model", &e);
	int ok = s && s->n == 6 && s->model == SPM_BPE && s->unk_id == 0 && s->bos_id == 1 &&
		 s->eos_id == 2 && s->pad_id == -1 && !strcmp(s->norm_name, "identity");
	tap_ok(ok, "a hand-written ModelProto reads (%s)", s ? "" : e.msg);
	if (s)
		enc(s, "and encodes", "a a", 3, SP "a " SP "a", 0);
	spm_free(s);
	/* every cut: an error of one line naming the file, or a model (a cut
	 * between fields is a shorter valid message) */
	int all = 1;
	for (size_t k = 0; k < n; k++) {
		s = spm_load_buffer(buf, k, "cut.model", &e);
		if (!s && (strncmp(e.msg, "cut.model: ", 11) || strchr(e.msg, '\n'))) {
			all = 0;
			printf("# cut at %zu: %s\n", k, e.msg);
		}
		spm_free(s);
	}
	tap_ok(all, "the model cut at each of its %zu bytes: one-line errors naming it", n);
	unsigned char huge[] = { 0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
	s = spm_load_buffer(huge, sizeof huge, "huge.model", &e);
	tap_ok(!s && strstr(e.msg, "past the end"), "a length of 2^64 - 1: %s", e.msg);
	/* field 4 (self_test_data, skipped) as a number of 11 bytes */
	unsigned char big[] = { 0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
				0x01 };
	s = spm_load_buffer(big, sizeof big, "big.model", &e);
	tap_ok(!s && strstr(e.msg, "big.model") && strstr(e.msg, "longer than"),
	       "a number past 10 bytes: %s", e.msg);
	unsigned char wire[] = { 0x0B, 0x00 };
	s = spm_load_buffer(wire, sizeof wire, "group.model", &e);
	tap_ok(!s && strstr(e.msg, "wire type"), "a group field: %s", e.msg);
	unsigned char wrong[] = { 0x08, 0x01 };
	s = spm_load_buffer(wrong, sizeof wrong, "wrong.model", &e);
	tap_ok(!s && strstr(e.msg, "wire type 0, expected 2"), "pieces as a number: %s", e.msg);
	s = spm_load("/nonexistent/spiece.model", &e);
	tap_ok(!s && strstr(e.msg, "/nonexistent/spiece.model"), "a missing file: %s", e.msg);
}

static void labels(void)
{
	char buf[64];
	const char *cases[][2] = {
		{ SP "cat", SP "cat" }, { "<0x0A>", "\xe2\x86\xb5" },
		{ "<0x09>", "\xe2\x87\xa5" }, { "<0x41>", "A" }, { "<0xC3>", "<0xC3>" },
		{ "na\xc3\xaf" "ve", "na\xc3\xaf" "ve" }, { "</s>", "</s>" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		spm_label(cases[i][0], buf, sizeof buf);
		tap_ok(!strcmp(buf, cases[i][1]), "spm_label(\"%s\") = \"%s\" (got \"%s\")",
		       cases[i][0], cases[i][1], buf);
	}
	spm_label(SP SP SP SP, buf, 8);
	tap_ok(!strcmp(buf, SP SP), "a label cut at a character (%s)", buf);
	char *p[] = { SP "ol", "<0xC3>", "<0xA1>", SP "mundo" };
	spm_text(p, 4, buf, sizeof buf);
	tap_ok(!strcmp(buf, "ol\xc3\xa1 mundo"), "spm_text joins pieces (%s)", buf);
	spm_text(p, 4, buf, 4);
	tap_ok(!strcmp(buf, "ol"), "spm_text cut before a character (%s)", buf);
}

/* GGUF's way: spm_new, then the model adopts it. */
static void adopt(void)
{
	struct err e;
	struct model *m = model_load(ATTNSCOPE_SRCDIR "/tests/data/tiny.yaml", &e);
	struct spm *s = m ? build(SPM_BPE, 1, 0, &e) : NULL;
	if (!tap_ok(m && s, "tiny.yaml and a BPE tokenizer from arrays (%s)", m && s ? "" : e.msg)) {
		spm_free(s);
		model_free(m);
		return;
	}
	int rc = model_tok_spm_adopt(m, s, "arrays", &e);
	if (!tap_ok(!rc, "the model adopts it%s%s", rc ? ": " : "", rc ? e.msg : "")) {
		model_free(m);
		return;
	}
	tap_ok(m->cfg.tok.type == TOKENIZE_SPM && m->shared_vocab && m->src_vocab.n == NPIECES &&
	       m->src_sp[TOK_SOS] == 1 && m->src_sp[TOK_EOS] == 2 && m->src_sp[TOK_UNK] == 0 &&
	       m->src_sp[TOK_PAD] == -1, "type, shared vocabulary, specials <s> </s> <unk>, no pad");
	struct pass_opts o = { .causal = 1, .ablate_head = -1 };
	struct pass_input in;
	rc = input_build(m, "ab c", NULL, &o, &in, &e);
	if (!tap_ok(!rc, "input_build%s%s", rc ? ": " : "", rc ? e.msg : "")) {
		model_free(m);
		return;
	}
	int ok = in.S == 4 && in.src_ids[0] == 1 && in.src_ids[1] == id_of(SP "ab") &&
		 in.src_ids[2] == id_of(SP "c") && in.src_ids[3] == 2 &&
		 !strcmp(in.src_tok[1], SP "ab");
	tap_ok(ok, "the source is <s> \u2581ab \u2581c </s> (%d tokens)", in.S);
	char lb[32];
	tokens_label(&m->cfg.tok, in.src_tok[1], lb, sizeof lb);
	tap_ok(!strcmp(lb, "\xe2\x96\x81" "ab"), "its label \u2581ab (%s)", lb);
	input_free(&in);
	model_free(m);
}

int main(void)
{
	from_arrays();
	bad_arrays();
	files();
	labels();
	adopt();
	return tap_done();
}
