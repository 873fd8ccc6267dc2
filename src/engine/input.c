/* input.c - sentence and target text to padded id sequences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "formats/gpt2bpe.h"
#include "formats/spm.h"
#include "formats/tokjson.h"
#include "formats/wordpiece.h"
#include "base/i18n.h"

/* A token sequence under construction. */
struct seq {
	char **tok;
	int32_t *ids;
	char **typed;      /* the typed word of an <unk> token, else NULL */
	int n, cap;
};

/* Appends tok (and, for an <unk>, the word typed). */
static int seq_push_typed(struct seq *s, const char *tok, int32_t id,
			  const char *typed)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		char **nt = realloc(s->tok, (size_t)cap * sizeof *nt);
		if (!nt)
			return -1;
		s->tok = nt;
		int32_t *ni = realloc(s->ids, (size_t)cap * sizeof *ni);
		if (!ni)
			return -1;
		s->ids = ni;
		char **ny = realloc(s->typed, (size_t)cap * sizeof *ny);
		if (!ny)
			return -1;
		s->typed = ny;
		s->cap = cap;
	}
	s->typed[s->n] = NULL;
	if (!(s->tok[s->n] = strdup(tok)) || (typed && !(s->typed[s->n] = strdup(typed)))) {
		free(s->tok[s->n]);
		return -1;
	}
	s->ids[s->n++] = id;
	return 0;
}

static int seq_push(struct seq *s, const char *tok, int32_t id)
{
	return seq_push_typed(s, tok, id, NULL);
}

/* Hands over s's typed words when there are any (frees them otherwise). */
static char **seq_take_typed(struct seq *s)
{
	char **t = s->typed;
	int any = 0;
	for (int i = 0; i < s->n; i++)
		any |= t[i] != NULL;
	s->typed = NULL;
	if (!any) {
		free(t);
		return NULL;
	}
	return t;
}

static void seq_free(struct seq *s)
{
	tokens_free(s->tok, s->n);
	tokens_free(s->typed, s->n);
	free(s->ids);
	memset(s, 0, sizeof *s);
}

/* Remembers a distinct word in the list (unknown words, dropped marks). */
static int note_word(char ***list, int *n, const char *w)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*list)[i], w) == 0)
			return 0;
	char **nu = realloc(*list, (size_t)(*n + 1) * sizeof *nu);
	if (!nu)
		return -1;
	*list = nu;
	if (!(nu[*n] = strdup(w)))
		return -1;
	(*n)++;
	return 0;
}

/* Sentence punctuation and quotes: left out when the vocabulary lacks
 * them (a quote carries no word to translate). */
static int sentence_punct(const char *t)
{
	static const char *const quotes[] = { "\"", "\xe2\x80\x9c", "\xe2\x80\x9d", "\xc2\xab", "\xc2\xbb" };
	if (t[0] && !t[1] && strchr(".,?!;:", t[0]))
		return 1;
	for (size_t i = 0; i < sizeof quotes / sizeof *quotes; i++)
		if (!strcmp(t, quotes[i]))
			return 1;
	return 0;
}

/* The ASCII mark a phone or a word processor types in its typographic
 * form: ’ and ‘ for ', “ and ” for ". */
static const char *ascii_mark(const char *t)
{
	if (!strcmp(t, "\xe2\x80\x99") || !strcmp(t, "\xe2\x80\x98"))
		return "'";
	if (!strcmp(t, "\xe2\x80\x9c") || !strcmp(t, "\xe2\x80\x9d"))
		return "\"";
	return NULL;
}

/* GPT-2's, BERT's and tokenizer.json's tokenizers give ids themselves
 * (model_tok.h; a tokenizer.json's without what its post-processor adds:
 * the model's sos is put in front as for every model); a piece BERT could
 * not spell is its [UNK], typed word unknown (the views show the [UNK]). */
static int append_hf(const struct model *m, const struct vocab *v, const char *text,
		     struct seq *s, struct pass_input *in, struct err *e)
{
	int32_t *ids;
	int n, invalid = 0;
	if (m->gpt2 ? gpt2bpe_encode(m->gpt2, text, &ids, &n, &invalid, e) :
	    m->tokjson ? tokjson_encode(m->tokjson, text, 0, &ids, &n, &invalid, e) :
		      wordpiece_encode(m->wordpiece, text, &ids, &n, &invalid, e))
		return -1;
	in->invalid_utf8 += invalid;
	for (int i = 0; i < n; i++)
		if (seq_push(s, vocab_str(v, ids[i]), ids[i])) {
			free(ids);
			return err_set(e, "out of memory");
		}
	free(ids);
	return n;
}

/* Marian's target-language token typed first (">>pt_BR<<", as
 * MarianTokenizer's language_code_re >>.+<< takes it: up to the line's last
 * <<) is one token, its vocab.json id or <unk>; *text moves past it.
 * Returns the tokens pushed (0 or 1), or -1. */
static int lang_code(const struct model *m, const struct vocab *v, const char **text,
		     struct seq *s, struct err *e)
{
	const char *t = *text, *end = NULL;
	if (strncmp(t, ">>", 2) != 0)
		return 0;
	for (const char *p = t + 3; *p && *p != '\n'; p++)
		if (p[0] == '<' && p[1] == '<')
			end = p + 2;
	if (!end)
		return 0;
	char code[128];
	if ((size_t)(end - t) >= sizeof code)
		return 0;
	memcpy(code, t, (size_t)(end - t));
	code[end - t] = 0;
	int id = vocab_id(v, code);
	if (id < 0)
		id = m->src_sp[TOK_UNK];
	if (id < 0)
		return err_set(e, "%s: the language token %s is not in vocab.json", m->path, code);
	if (seq_push_typed(s, vocab_str(v, id), id, vocab_id(v, code) < 0 ? code : NULL))
		return err_set(e, "out of memory");
	*text = end;
	return 1;
}

/* A SentencePiece model gives ids itself (model_tok.h): the side's
 * tokenizer, its ids through the side's map when the vocabulary is not its
 * own (Marian's vocab.json). */
static int append_spm(const struct model *m, const struct vocab *v, const char *text,
		      struct seq *s, struct pass_input *in, struct err *e)
{
	int src = v == &m->src_vocab, code = 0;
	if (src && m->src_spm_map && (code = lang_code(m, v, &text, s, e)) < 0)
		return -1;
	const struct spm *sp = src ? m->src_spm : m->tgt_spm;
	const int32_t *map = src ? m->src_spm_map : m->tgt_spm_map;
	int32_t *ids;
	int n, invalid = 0;
	if (spm_encode(sp, text, strlen(text), &ids, &n, &invalid, e))
		return -1;
	in->invalid_utf8 += invalid;
	for (int i = 0; i < n; i++) {
		int32_t id = map ? map[ids[i]] : ids[i];
		const char *t = vocab_str(v, id);
		if (!t || seq_push(s, t, id)) {
			free(ids);
			return t ? err_set(e, "out of memory") :
			       err_set(e, "%s: piece %d has no token in the vocabulary", m->path,
				       (int)ids[i]);
		}
	}
	free(ids);
	return n + code;
}

/* Tokenizes text and appends its tokens (mapped through v, whose <unk>
 * has id unk, -1 for none) to s. */
static int append_text(const struct model *m, const struct vocab *v, int unk,
		       const char *text, struct seq *s, struct pass_input *in,
		       struct err *e)
{
	if (m->gpt2 || m->wordpiece || m->tokjson)
		return append_hf(m, v, text, s, in, e);
	if (m->src_spm)
		return append_spm(m, v, text, s, in, e);
	char **toks;
	int invalid = 0;
	const struct bpe *b = v == &m->src_vocab ? m->src_bpe : m->tgt_bpe;
	int n = tokenize_bpe(&m->cfg.tok, b, v, text, &toks, &invalid, e);
	if (n < 0)
		return -1;
	in->invalid_utf8 += invalid;
	for (int i = 0; i < n; i++) {
		int id = vocab_id(v, toks[i]);
		const char *a = id < 0 ? ascii_mark(toks[i]) : NULL;
		if (a && vocab_id(v, a) >= 0) {
			/* I’m is I'm to a vocabulary that has only ' */
			char *c = strdup(a);
			if (!c) {
				tokens_free(toks, n);
				return err_set(e, "out of memory");
			}
			free(toks[i]);
			toks[i] = c;
			id = vocab_id(v, a);
		}
		if (id < 0 && sentence_punct(toks[i])) {
			if (note_word(&in->dropped, &in->ndropped, toks[i])) {
				tokens_free(toks, n);
				return err_set(e, "out of memory");
			}
			continue;
		}
		if (id < 0 && unk < 0) {
			err_set(e, "%s: \"%.40s\" is not in the vocabulary, and the model has no "
				"unknown-word token (unk: null)", m->path, toks[i]);
			tokens_free(toks, n);
			return -1;
		}
		if (id < 0) {
			if (note_word(&in->unknown, &in->nunknown, toks[i])) {
				tokens_free(toks, n);
				return err_set(e, "out of memory");
			}
			id = unk;
		}
		/* show <unk> in the pass: that is what the model sees; keep the
		 * word typed beside it for the labels */
		if (seq_push_typed(s, id == unk ? vocab_str(v, unk) : toks[i], id,
				   id == unk && vocab_id(v, toks[i]) < 0 ? toks[i] : NULL)) {
			tokens_free(toks, n);
			return err_set(e, "out of memory");
		}
	}
	tokens_free(toks, n);
	return n;
}

static int push_special(struct seq *s, const struct vocab *v, int id,
			struct err *e)
{
	if (seq_push(s, vocab_str(v, id), id))
		return err_set(e, "out of memory");
	return 0;
}

/* Pads s with <pad> (id padid) to `to` tokens (--pad-to or --pad-target:
 * flag); s is the sentence, or the target when is_target. */
static int pad(struct seq *s, const struct vocab *v, int padid, int to,
	       const char *flag, int is_target, const struct model *m,
	       struct err *e)
{
	if (!to)
		return 0;
	if (padid < 0)
		return err_set(e, "%s: %s needs a padding token, and the model has none "
			       "(pad: null)", m->path, flag);
	/* (to >= 1, so the sequence has 2 tokens or more here) */
	if (to < s->n)
		return is_target ?
		       err_set(e, "%s %d is shorter than the target (%d tokens)", flag, to, s->n) :
		       err_set(e, "%s %d is shorter than the sentence (%d tokens)", flag, to,
			       s->n);
	if (to > m->cfg.max_len)
		return err_set(e, "%s %d exceeds the model's max_len %d", flag, to,
			       m->cfg.max_len);
	while (s->n < to)
		if (push_special(s, v, padid, e))
			return -1;
	return 0;
}

/* n tokens (of the sentence, or of the target when is_target) fit the model. */
static int check_len(const struct model *m, int n, int is_target, struct err *e)
{
	/* (max_len >= 1, so n is 2 or more here) */
	if (n > m->cfg.max_len)
		return is_target ?
		       err_set(e, "the target has %d tokens; the model's max_len is %d", n,
			       m->cfg.max_len) :
		       err_set(e, "the sentence has %d tokens; the model's max_len is %d", n,
			       m->cfg.max_len);
	return 0;
}

static int blank(const char *s)
{
	for (; s && *s; s++)
		if (!strchr(" \t\r\n\v\f", *s))
			return 0;
	return 1;
}

int input_build(const struct model *m, const char *sentence,
		const char *target, const struct pass_opts *o,
		struct pass_input *in, struct err *e)
{
	const struct config *c = &m->cfg;
	struct seq src = { 0 }, tgt = { 0 }, lab = { 0 };
	memset(in, 0, sizeof *in);
	if (blank(sentence)) {
		err_set(e, "the sentence is empty");
		goto fail;
	}
	if (target && blank(target))
		target = NULL;

	const int *ss = m->src_sp, *ts = m->tgt_sp;
	if (c->arch != ARCH_DEC_ONLY) {
		/* <s> tokens </s>, each where the model has it */
		int wrap = c->tok.wrap_source;
		if (wrap && ss[TOK_SOS] >= 0 && push_special(&src, &m->src_vocab, ss[TOK_SOS], e))
			goto fail;
		if (append_text(m, &m->src_vocab, ss[TOK_UNK], sentence, &src, in, e) < 0)
			goto fail;
		if (wrap && ss[TOK_EOS] >= 0 && push_special(&src, &m->src_vocab, ss[TOK_EOS], e))
			goto fail;
		in->src_len = src.n;
		if (check_len(m, src.n, 0, e) ||
		    pad(&src, &m->src_vocab, ss[TOK_PAD], o->pad_to, "--pad-to", 0, m, e))
			goto fail;
	}
	if (c->arch != ARCH_ENC_ONLY) {
		/* decoder input <s> + sequence; labels: the next token of each
		 * position, sequence + </s> (without a <s>, a decoder-only model
		 * starts from the sequence's first token) */
		const struct vocab *v = &m->tgt_vocab;
		const char *seqs[2] = { c->arch == ARCH_DEC_ONLY ? sentence : target,
					c->arch == ARCH_DEC_ONLY ? target : NULL };
		if (ts[TOK_SOS] < 0 && c->arch == ARCH_ENC_DEC) {
			err_set(e, "%s: an encoder-decoder model needs a start token for its "
				"decoder (tokenizer.specials.sos)", m->path);
			goto fail;
		}
		if (c->arch == ARCH_ENC_DEC && m->ndec_start) {
			/* Hugging Face's decoder_start_token_id (and BART's
			   forced_bos_token_id) */
			for (int k = 0; k < m->ndec_start; k++)
				if (push_special(&tgt, v, m->dec_start[k], e))
					goto fail;
		} else if (ts[TOK_SOS] >= 0 && push_special(&tgt, v, ts[TOK_SOS], e)) {
			goto fail;
		}
		for (int k = 0; k < 2; k++)
			if (seqs[k] && append_text(m, v, ts[TOK_UNK], seqs[k], &tgt, in, e) < 0)
				goto fail;
		int have_labels = tgt.n > 1 ||
				  (tgt.n == 1 && ts[TOK_SOS] < 0 && ts[TOK_EOS] >= 0);
		for (int i = 1; have_labels && i < tgt.n; i++)
			if (seq_push(&lab, tgt.tok[i], tgt.ids[i])) {
				err_set(e, "out of memory");
				goto fail;
			}
		if (have_labels && ts[TOK_EOS] >= 0 && push_special(&lab, v, ts[TOK_EOS], e))
			goto fail;
		in->tgt_len = tgt.n;
		in->label_len = lab.n;
		in->prompt = c->arch == ARCH_DEC_ONLY ? tgt.n : m->ndec_start ? m->ndec_start : 1;
		if (check_len(m, tgt.n, c->arch != ARCH_DEC_ONLY, e) ||
		    pad(&tgt, v, ts[TOK_PAD], o->pad_target, "--pad-target", 1, m, e) ||
		    (have_labels && o->pad_target &&
		     pad(&lab, v, ts[TOK_PAD], tgt.n, "--pad-target", 1, m, e)))
			goto fail;
		in->nlabels = lab.n;
		/* the views read T label slots: "" where a position has none */
		while (have_labels && lab.n < tgt.n)
			if (seq_push(&lab, "", -1)) {
				err_set(e, "out of memory");
				goto fail;
			}
		if (have_labels) {
			in->label_tok = lab.tok;
			in->labels = lab.ids;
		}
	}
	in->src_typed = src.n ? seq_take_typed(&src) : NULL;
	in->tgt_typed = tgt.n ? seq_take_typed(&tgt) : NULL;
	in->ntgt_typed = in->tgt_typed ? tgt.n : 0;
	tokens_free(lab.typed, lab.n);
	in->src_tok = src.tok;
	in->src_ids = src.ids;
	in->S = src.n;
	in->tgt_tok = tgt.tok;
	in->tgt_ids = tgt.ids;
	in->T = tgt.n;
	return 0;
fail:
	seq_free(&src);
	seq_free(&tgt);
	seq_free(&lab);
	input_free(in);
	return -1;
}

void input_free(struct pass_input *in)
{
	tokens_free(in->src_tok, in->S);
	free(in->src_ids);
	tokens_free(in->tgt_tok, in->T);
	free(in->tgt_ids);
	tokens_free(in->label_tok, in->T);
	free(in->labels);
	tokens_free(in->unknown, in->nunknown);
	tokens_free(in->src_typed, in->S);
	tokens_free(in->tgt_typed, in->ntgt_typed);
	tokens_free(in->dropped, in->ndropped);
	memset(in, 0, sizeof *in);
}

const char *input_unknown_summary(const struct pass_input *in, char *buf,
				  size_t bufsz)
{
	buf[0] = 0;
	if (!in->nunknown)
		return buf;
	snprintf(buf, bufsz, P_("%d unknown word shown as <unk>:",
				"%d unknown words shown as <unk>:", in->nunknown), in->nunknown);
	for (int i = 0; i < in->nunknown; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, bufsz - l, "%s \"%s\"", i ? "," : "", in->unknown[i]);
	}
	return buf;
}

const char *input_dropped_summary(const struct pass_input *in, char *buf,
				  size_t bufsz)
{
	buf[0] = 0;
	if (!in->ndropped)
		return buf;
	snprintf(buf, bufsz, "%s", _("punctuation left out (not in the model's vocabulary):"));
	for (int i = 0; i < in->ndropped; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, bufsz - l, " %s", in->dropped[i]);
	}
	return buf;
}
