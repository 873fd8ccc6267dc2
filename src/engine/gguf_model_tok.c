/* gguf_model_tok.c - a GGUF file's tokenizer.ggml.* as the model's
 * tokenizer (gguf_model.h), on the tokenizers the folders use:
 *
 *   "llama": SentencePiece BPE (formats/spm.h, spm_new) from the tokens,
 *     scores and token types, byte fallback when there are byte tokens,
 *     add_space_prefix as add_dummy_prefix (default on), as llama.cpp's
 *     SPM tokenizer reads the same keys;
 *   "gpt2": byte-level BPE as a tokenizer.json (formats/tokjson.h) written
 *     back from the tokens and merges the converter took from one, with the
 *     pre-tokeniser llama.cpp picks by tokenizer.ggml.pre: "gpt-2"/"gpt2"
 *     GPT-2's regex, "llama-bpe"/"llama3"/"llama-v3" Llama 3's (with
 *     ignore_merges, as llama.cpp sets it), "qwen2" Qwen2's (one digit a
 *     pre-token), "smollm" single digits then GPT-2's regex.  Control and
 *     user-defined tokens are added tokens: typed in the text they are
 *     those tokens, as in the Hugging Face folder (llama.cpp's tokenize
 *     without parse_special keeps control tokens' text as text).
 *
 * BOS goes in front when tokenizer.ggml.add_bos_token says so (without
 * the key: llama.cpp's defaults, on for "llama" and Llama 3's
 * pre-tokeniser, off otherwise); EOS is tokenizer.ggml.eos_token_id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_map.h"
#include "gguf_model.h"
#include "model_tok.h"
#include "base/i18n.h"
#include "formats/spm.h"
#include "formats/tokjson.h"

static struct spm *spm_from(const struct gguf_tokenizer *tk, const char *path, struct err *e)
{
	struct spm_spec s = { 0 };
	s.n = (int)tk->n;
	s.pieces = (const char *const *)tk->tokens;
	s.scores = tk->scores;
	s.types = tk->token_type;
	s.model = SPM_BPE;
	for (uint32_t i = 0; tk->token_type && i < tk->n; i++)
		s.byte_fallback |= tk->token_type[i] == SPM_BYTE;
	s.add_dummy_prefix = tk->add_space_prefix != 0;   /* -1: the default, on */
	s.escape_whitespaces = 1;
	s.bos_id = tk->bos;
	s.eos_id = tk->eos;
	s.pad_id = tk->pad;
	return spm_new(&s, path, e);
}

/* ---- "gpt2": a tokenizer.json written back ---- */

struct jbuf {
	char *s;
	size_t n, cap;
	int oom;
};

static void jadd(struct jbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void jlit(struct jbuf *b, const char *s)
{
	jadd(b, s, strlen(s));
}

/* s as a JSON string */
static void jstr(struct jbuf *b, const char *s)
{
	jadd(b, "\"", 1);
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jadd(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			jadd(b, esc, 6);
		} else {
			jadd(b, p, 1);
		}
	}
	jadd(b, "\"", 1);
}

/* The pre-tokeniser and ignore_merges of tokenizer.ggml.pre, as JSON;
 * NULL for a name not implemented. */
static const char *pre_json(const char *pre, int *ignore_merges, int *llama3)
{
	static const char *const gpt2 =
		"{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true}";
	static const char *const smollm =
		"{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\","
		"\"individual_digits\":true},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
		"\"use_regex\":true}]}";
	static const char *const llama3_re =
		"{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":"
		"{\"Regex\":\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|"
		"\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|"
		"\\\\s+(?!\\\\S)|\\\\s+\"},\"behavior\":\"Isolated\",\"invert\":false},"
		"{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false}]}";
	static const char *const qwen2_re =
		"{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":"
		"{\"Regex\":\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|"
		"\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|"
		"\\\\s+(?!\\\\S)|\\\\s+\"},\"behavior\":\"Isolated\",\"invert\":false},"
		"{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false}]}";
	*ignore_merges = 0;
	*llama3 = 0;
	if (!strcmp(pre, "gpt-2") || !strcmp(pre, "gpt2"))
		return gpt2;
	if (!strcmp(pre, "smollm"))
		return smollm;
	if (!strcmp(pre, "qwen2"))
		return qwen2_re;
	if (!strcmp(pre, "llama-bpe") || !strcmp(pre, "llama3") || !strcmp(pre, "llama-v3")) {
		*ignore_merges = *llama3 = 1;
		return llama3_re;
	}
	return NULL;
}

/* Whether token i is an added token (control or user-defined). */
static int added(const struct gguf_tokenizer *tk, uint32_t i)
{
	return tk->token_type && (tk->token_type[i] == SPM_CONTROL ||
				  tk->token_type[i] == SPM_USER_DEFINED);
}

static void write_json(struct jbuf *b, const struct gguf_tokenizer *tk, const char *pre,
		       int ignore_merges)
{
	char num[32];
	jlit(b, "{\"version\":\"1.0\",\"added_tokens\":[");
	for (uint32_t i = 0, k = 0; i < tk->n; i++)
		if (added(tk, i)) {
			snprintf(num, sizeof num, "%s{\"id\":%u,\"content\":", k++ ? "," : "", i);
			jlit(b, num);
			jstr(b, tk->tokens[i]);
			jlit(b, tk->token_type[i] == SPM_CONTROL ? ",\"special\":true}" :
			     ",\"special\":false}");
		}
	jlit(b, "],\"normalizer\":null,\"pre_tokenizer\":");
	jlit(b, pre);
	jlit(b, ",\"post_processor\":null,\"decoder\":{\"type\":\"ByteLevel\"},\"model\":"
	     "{\"type\":\"BPE\",\"ignore_merges\":");
	jlit(b, ignore_merges ? "true" : "false");
	jlit(b, ",\"vocab\":{");
	for (uint32_t i = 0, k = 0; i < tk->n; i++)
		if (!added(tk, i)) {
			if (k++)
				jlit(b, ",");
			jstr(b, tk->tokens[i]);
			snprintf(num, sizeof num, ":%u", i);
			jlit(b, num);
		}
	jlit(b, "},\"merges\":[");
	for (uint32_t i = 0; i < tk->nmerges; i++) {
		if (i)
			jlit(b, ",");
		jstr(b, tk->merges[i]);
	}
	jlit(b, "]}}");
}

static struct tokjson *bpe_from(const struct gguf_tokenizer *tk, const char *path,
				int *llama3, struct err *e)
{
	int ignore_merges;
	const char *pre = pre_json(tk->pre, &ignore_merges, llama3);
	struct jbuf b = { 0 };
	struct tokjson *t;
	if (!pre) {
		err_set(e, _("%s: tokenizer.ggml.pre \"%.40s\" is not implemented (gpt-2, llama-bpe, "
			     "qwen2 and smollm are)"), path, tk->pre);
		return NULL;
	}
	if (!tk->nmerges) {
		err_set(e, _("%s: a gpt2 tokenizer without tokenizer.ggml.merges"), path);
		return NULL;
	}
	write_json(&b, tk, pre, ignore_merges);
	if (b.oom || !(t = malloc(sizeof *t))) {
		free(b.s);
		err_set(e, _("out of memory"));
		return NULL;
	}
	if (tokjson_parse(t, path, b.s, b.n, NULL, NULL, 0, e)) {
		/* "PATH:1: what" of the written-back JSON as PATH: tokenizer.ggml.*: what */
		char what[sizeof e->msg];
		size_t l = strlen(path);
		const char *m = !strncmp(e->msg, path, l) && !strncmp(e->msg + l, ":1: ", 4) ?
				e->msg + l + 4 : e->msg;
		snprintf(what, sizeof what, "%s", m);
		err_set(e, _("%s: tokenizer.ggml.* (read as a tokenizer.json): %s"), path, what);
		free(t);
		t = NULL;
	}
	free(b.s);
	return t;
}

/* BOS in front, EOS and the pad as the file says. */
static int specials(struct model *m, const struct gguf_tokenizer *tk, int add_bos,
		    struct err *e)
{
	const int32_t id[TOK_NSPECIAL] = { tk->pad, add_bos ? tk->bos : -1, tk->eos, tk->unk };
	struct tokenizer_cfg *c = &m->cfg.tok;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		free(c->specials[i]);
		c->specials[i] = NULL;
		m->src_sp[i] = m->tgt_sp[i] = -1;
		if (id[i] < 0 || id[i] >= m->src_vocab.n)
			continue;
		if (!(c->specials[i] = strdup(vocab_str(&m->src_vocab, id[i]))))
			return err_set(e, _("out of memory"));
		m->src_sp[i] = m->tgt_sp[i] = id[i];
	}
	c->wrap_source = 0;
	return 0;
}

int gguf_model_tok(struct model *m, const struct gguf_file *f, struct err *e)
{
	struct gguf_tokenizer tk;
	int rc = -1, llama3 = 0;
	if (gguf_map_tokenizer(f, &tk, e))
		goto out;
	if (tk.model == GGUF_TOK_LLAMA) {
		struct spm *s = spm_from(&tk, f->path, e);
		if (!s || model_tok_spm_adopt(m, s, f->path, e))
			goto out;
	} else if (tk.model == GGUF_TOK_GPT2) {
		struct tokjson *t = bpe_from(&tk, f->path, &llama3, e);
		if (!t || model_tok_tokjson_use(m, t, f->path, e))
			goto out;
	} else {
		err_set(e, _("%s: tokenizer.ggml.model \"%.40s\" is not implemented (llama and gpt2 "
			     "are)"), f->path, tk.model_name);
		goto out;
	}
	const int add_bos = tk.add_bos >= 0 ? tk.add_bos : tk.model == GGUF_TOK_LLAMA || llama3;
	rc = specials(m, &tk, add_bos, e);
out:
	gguf_tokenizer_free(&tk);
	return rc;
}
