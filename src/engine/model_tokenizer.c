/* model_tokenizer.c - a model YAML's tokenizer: key: its type, the source
 * and target vocabularies (text, JSON, nanoGPT's meta.pkl or inline), BPE
 * merges and the special tokens. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_int.h"
#include "model_keys.h"
#include "model_tok.h"
#include "base/path.h"
#include "formats/metapkl.h"
#include "formats/ydoc.h"

static const char *const TOK_KEYS[] = {
	"type", "lowercase", "wrap_source", "source_vocab", "target_vocab",
	"specials", "merges", "source_merges", "target_merges", "proper_nouns",
	"model", "source_model", "target_model", "file", "config", NULL
};
static const char *const SPECIAL_KEYS[] = { "pad", "sos", "eos", "unk", NULL };
static const char *const TOKTYPE_NAMES[] = { "word", "char", "bpe", "gpt2", "wordpiece",
					     "sentencepiece", "hf", NULL };

const char *tok_name(enum tok_type t) { return TOKTYPE_NAMES[t]; }

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A JSON vocabulary: a list of tokens (id = index) or an object token -> id. */
static int load_vocab_json(const char *path, struct vocab *v, struct err *e)
{
	struct ydoc j;
	if (ydoc_load(&j, path, e))
		return -1;
	const struct ynode *r = j.root;
	int rc = -1;
	const char **toks = NULL;
	size_t n = r ? r->n : 0;
	if (!r || (r->kind != Y_SEQ && r->kind != Y_MAP)) {
		err_set(e, "%s: a JSON vocabulary is a list of tokens or an object token -> id",
			path);
		goto out;
	}
	if (!(toks = calloc(n ? n : 1, sizeof *toks))) {
		err_set(e, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ynode *t = r->kind == Y_SEQ ? r->items[i] : r->items[2 * i];
		long long id = (long long)i;
		if (t->kind != Y_SCALAR || !t->len) {
			err_set(e, "%s:%d: every token must be a non-empty string", path, t->line);
			goto out;
		}
		if (r->kind == Y_MAP && ynode_int(&j, r->items[2 * i + 1], 0, (long long)n - 1,
						  &id, e)) {
			err_prefix(e, "%s: the ids must be 0 … %zu, each once", path, n - 1);
			goto out;
		}
		if (toks[id]) {
			err_set(e, "%s:%d: id %lld given twice", path, t->line, id);
			goto out;
		}
		toks[id] = t->str;
	}
	rc = vocab_init(v, toks, (int)n, path, e);
out:
	free(toks);
	ydoc_free(&j);
	return rc;
}

/* nanoGPT's meta.pkl: its itos (metapkl.h, the restricted unpickler). */
static int load_vocab_pkl(const char *path, struct vocab *v, struct err *e)
{
	char **toks = NULL;
	int n = 0;
	if (metapkl_load(path, &toks, &n, e))
		return -1;
	int rc = vocab_init(v, (const char *const *)toks, n, path, e);
	tokens_free(toks, n);
	return rc;
}

/* A vocabulary from a file name (text, JSON, nanoGPT's meta.pkl) or an
 * inline list of strings.  where receives what later messages about the
 * vocabulary name: its file, or "YAML:LINE: key" for an inline list. */
static int load_vocab(const struct ydoc *d, const struct ynode *n,
		      const char *yaml, const char *key, struct vocab *v,
		      char *where, size_t wsz, struct err *e)
{
	snprintf(where, wsz, "%s:%d: %s", d->file, n->line, key);
	if (n->kind == Y_SCALAR) {
		char *path = path_beside(yaml, n->str);
		if (!path)
			return err_set(e, "out of memory");
		snprintf(where, wsz, "%s", path);
		int rc;
		if (ends_with(path, ".json"))
			rc = load_vocab_json(path, v, e);
		else if (ends_with(path, ".pkl") || metapkl_sniff(path))
			rc = load_vocab_pkl(path, v, e);
		else
			rc = vocab_load(v, path, e);
		if (rc)
			err_prefix(e, "%s:%d: %s", d->file, n->line, key);
		free(path);
		return rc;
	}
	if (n->kind != Y_SEQ)
		return err_set(e, "%s:%d: %s must be a file name or a list of tokens",
			       d->file, n->line, key);
	const char **toks = calloc(n->n ? n->n : 1, sizeof *toks);
	if (!toks)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		if (n->items[i]->kind != Y_SCALAR || n->items[i]->len == 0) {
			int line = n->items[i]->line;
			free(toks);
			return err_set(e, "%s:%d: %s: every token must be a non-empty string",
				       d->file, line, key);
		}
		toks[i] = n->items[i]->str;
	}
	char what[PATH_MAX + 64];
	snprintf(what, sizeof what, "%s:%d: %s", d->file, n->line, key);
	int rc = vocab_init(v, toks, (int)n->n, what, e);
	free(toks);
	return rc;
}

/* The specials' ids in v (target: the target vocabulary) into ids[]:
 * found by name wherever they are; -1 for a special that is null.  A
 * special the YAML does not name must be in v under its default spelling,
 * unless v has none of the defaults (a vocabulary without specials, as a
 * character model's). */
static int find_specials(const struct model *m, const struct vocab *v,
			 int target, const char *where, int *ids,
			 struct err *e)
{
	/* the keys under tokenizer.specials */
	static const char *role[] = { "pad", "sos", "eos", "unk" };
	int defaults_found = 0;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		const char *sp = m->cfg.tok.specials[i];
		ids[i] = sp ? vocab_id(v, sp) : -1;
		defaults_found += !m->cfg.tok.specials_given[i] && ids[i] >= 0;
	}
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		const char *sp = m->cfg.tok.specials[i];
		if (sp && ids[i] < 0 && (m->cfg.tok.specials_given[i] || defaults_found))
			return target ?
				err_set(e, "%s: target vocabulary lacks the special token %s (%s; "
					"write %s: null if the model has none)",
					where, sp, role[i], role[i]) :
				err_set(e, "%s: source vocabulary lacks the special token %s (%s; "
					"write %s: null if the model has none)",
					where, sp, role[i], role[i]);
	}
	return 0;
}

/* A merges file named by the scalar n (tokenizer type bpe). */
static int load_merges(const struct ydoc *d, const struct ynode *n,
		       const char *yaml, const char *key, struct bpe **out,
		       struct err *e)
{
	if (n->kind != Y_SCALAR || n->len == 0)
		return err_set(e, "%s:%d: %s must be a file name", d->file, n->line, key);
	char *path = path_beside(yaml, n->str);
	if (!path || !(*out = calloc(1, sizeof **out))) {
		free(path);
		return err_set(e, "out of memory");
	}
	int rc = bpe_load(*out, path, e);
	if (rc) {
		err_prefix(e, "%s:%d: %s", d->file, n->line, key);
		free(*out);
		*out = NULL;
	}
	free(path);
	return rc;
}

/* tokenizer: merges (both sides) or source_merges / target_merges. */
static int parse_merges(struct model *m, const struct ydoc *d,
			const struct ynode *tk, struct err *e)
{
	static const char *const key[] = { "merges", "source_merges", "target_merges" };
	const struct ynode *n[3];
	for (int i = 0; i < 3; i++)
		n[i] = ynode_get(tk, key[i]);
	if (m->cfg.tok.type != TOKENIZE_BPE) {
		for (int i = 0; i < 3; i++)
			if (n[i])
				return err_set(e, "%s:%d: tokenizer: %s needs type: bpe", d->file,
					       n[i]->line, key[i]);
		return 0;
	}
	if (n[0] && (n[1] || n[2]))
		return err_set(e, "%s:%d: tokenizer: give merges (both sides) or "
			       "source_merges/target_merges, not both", d->file, n[0]->line);
	if (!n[0] && !n[1] && !n[2])
		return err_set(e, "%s:%d: tokenizer: type bpe needs merges (or "
			       "source_merges and target_merges)", d->file, tk->line);
	if (n[0]) {
		if (load_merges(d, n[0], m->path, key[0], &m->src_bpe, e))
			return -1;
		m->tgt_bpe = m->src_bpe;
		return 0;
	}
	if (n[1] && load_merges(d, n[1], m->path, key[1], &m->src_bpe, e))
		return -1;
	if (n[2] && load_merges(d, n[2], m->path, key[2], &m->tgt_bpe, e))
		return -1;
	return 0;
}

/* A YAML null: ~, null, or nothing. */
static int is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && !n->quoted &&
	       (!n->len || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
		!strcmp(n->str, "Null") || !strcmp(n->str, "NULL"));
}

/* tokenizer: its keys, the vocabularies (or a Hugging Face tokenizer) and
 * the specials' ids. */
int model_tokenizer_parse(struct model *m, const struct ydoc *d,
			  const struct ynode *tk, struct err *e)
{
	struct config *c = &m->cfg;
	int t = c->tok.type;
	if (mkey_check(d, tk, TOK_KEYS, "tokenizer", e) ||
	    mkey_enum(d, tk, "type", TOKTYPE_NAMES, &t, e) ||
	    mkey_bool(d, tk, "lowercase", &c->tok.lowercase, e) ||
	    mkey_bool(d, tk, "wrap_source", &c->tok.wrap_source, e))
		return -1;
	c->tok.type = t;
	const struct ynode *pn = ynode_get(tk, "proper_nouns");
	if (pn && model_parse_strlist(d, pn, "tokenizer.proper_nouns", &c->proper, &c->nproper, e))
		return -1;
	const struct ynode *sp = ynode_get(tk, "specials");
	if (sp) {
		if (mkey_check(d, sp, SPECIAL_KEYS, "tokenizer.specials", e))
			return -1;
		for (int i = 0; i < TOK_NSPECIAL; i++) {
			const struct ynode *v = ynode_get(sp, SPECIAL_KEYS[i]);
			if (!v)
				continue;
			c->tok.specials_given[i] = 1;
			if (is_null(v)) {
				free(c->tok.specials[i]);
				c->tok.specials[i] = NULL;
			} else if (mkey_str(d, sp, SPECIAL_KEYS[i], &c->tok.specials[i], e)) {
				return -1;
			}
		}
	}
	if (c->tok.type == TOKENIZE_GPT2 || c->tok.type == TOKENIZE_WORDPIECE ||
	    c->tok.type == TOKENIZE_SPM || c->tok.type == TOKENIZE_HF)
		return model_tok_yaml(m, d, tk, e);
	const char *hfkey = ynode_get(tk, "file") ? "file" : ynode_get(tk, "config") ? "config" : NULL;
	if (hfkey)
		return err_set(e, "%s:%d: tokenizer: type %s does not take %s (type hf does)", d->file,
			       tk->line, tok_name(c->tok.type), hfkey);
	if (parse_merges(m, d, tk, e))
		return -1;
	const struct ynode *sv = ynode_get(tk, "source_vocab");
	const struct ynode *tv = ynode_get(tk, "target_vocab");
	if (!sv)
		return err_set(e, "%s:%d: tokenizer: missing required key source_vocab",
			       d->file, tk->line);
	char where[PATH_MAX + 64];
	if (load_vocab(d, sv, m->path, "source_vocab", &m->src_vocab, where, sizeof where, e) ||
	    find_specials(m, &m->src_vocab, 0, where, m->src_sp, e))
		return -1;
	if (tv) {
		if (load_vocab(d, tv, m->path, "target_vocab", &m->tgt_vocab, where, sizeof where,
			       e) ||
		    find_specials(m, &m->tgt_vocab, 1, where, m->tgt_sp, e))
			return -1;
	} else {
		m->shared_vocab = 1;
		if (vocab_init(&m->tgt_vocab, (const char *const *)m->src_vocab.tok,
			       m->src_vocab.n, m->path, e))
			return -1;
		memcpy(m->tgt_sp, m->src_sp, sizeof m->tgt_sp);
	}
	return 0;
}
