/* tokjson.c - reading tokenizer.json and tokenizer_config.json: the
 * model, the added tokens, the config (the normalizer, pre-tokenizer,
 * post-processor and decoder are read in tokjson_steps.c; encoding is
 * tokjson_enc.c and tokjson_model.c, decoding tokjson_dec.c).
 *
 * The file is checked as JSON (json.h) and read as a tree (ydoc.h), as
 * safetensors.c reads its header; a big vocabulary (Gemma 3: 262,144
 * pieces, 514,906 merges) is about 2 M values, hence JSON_BIG. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "tokjson_int.h"
#include "json.h"
#include "pretok.h"
#include "ydoc.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/safetext.h"
#include "base/utf8.h"

/* tokenizer.json of Gemma 3 is 33 MB; the limit keeps a hostile file's
 * cost bounded (ydoc's own limit on the text is 128 MB). */
#define FILE_MAX_BYTES (128u << 20)
#define MAX_IDS (1 << 22)           /* ids 0 … 4 Mi − 1 */
/* The piece bytes a Unigram's trie holds at most (mT5's 250,100 pieces are
 * about 3 MB): the trie costs some 30 bytes a byte. */
#define TRIE_MAX_BYTES (16u << 20)

int tokjson_fail(struct rd *r, const struct ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, _(fmt), ap);
	va_end(ap);
	/* the file's text quoted in it (a type, a piece) may hold anything */
	char safe[600];
	safetext_copy(safe, sizeof safe, msg, 0);
	return err_set(r->e, "%s:%d: %s", r->d->file, n ? n->line : 1, safe);
}

int tokjson_null(const struct ynode *n)
{
	return !n || (n->kind == Y_SCALAR && !n->quoted && !strcmp(n->str, "null"));
}

/* The string at key of map (NULL when absent or null; -1 when it is
 * something else). */
int tokjson_str(struct rd *r, const struct ynode *map, const char *key, const char **out)
{
	const struct ynode *n = ynode_get(map, key);
	*out = NULL;
	if (tokjson_null(n))
		return 0;
	if (n->kind != Y_SCALAR || !n->quoted)
		return tokjson_fail(r, n, "%s: expected a string", key);
	*out = n->str;
	return 0;
}

/* A boolean at key of map, def when absent or null. */
int tokjson_bool(struct rd *r, const struct ynode *map, const char *key, int def, int *out)
{
	const struct ynode *n = ynode_get(map, key);
	*out = def;
	if (tokjson_null(n))
		return 0;
	/* JSON (json_check) leaves true and false the only words unquoted */
	if (n->kind != Y_SCALAR || n->quoted || ynode_bool(r->d, n, out, r->e))
		return tokjson_fail(r, n, "%s: expected true or false", key);
	return 0;
}

int tokjson_int(struct rd *r, const struct ynode *n, long long lo, long long hi,
		   const char *what, long long *out)
{
	if (!n || n->kind != Y_SCALAR || n->quoted)
		return tokjson_fail(r, n, "%s: expected a whole number", what);
	if (ynode_int(r->d, n, lo, hi, out, r->e))
		return ynode_keyed(r->d, n, what, r->e);
	return 0;
}

const char *tokjson_type(const struct ynode *n)
{
	const struct ynode *ty = n && n->kind == Y_MAP ? ynode_get(n, "type") : NULL;
	return ty && ty->kind == Y_SCALAR ? ty->str : NULL;
}

char *tokjson_dup(struct rd *r, const char *s)
{
	char *c = strdup(s);
	if (!c)
		err_set(r->e, "out of memory");
	return c;
}

/* ---- the model's vocabulary and the added tokens ---- */

/* Puts piece at id in toks (growing it to cover id). */
static int put_piece(struct rd *r, const struct ynode *where, char ***toks, size_t *cap,
		     size_t *n, long long id, const char *piece, int added)
{
	if (id >= MAX_IDS)
		return tokjson_fail(r, where, "id %lld is too large", id);
	if ((size_t)id >= *cap) {
		size_t nc = *cap ? *cap : 1024;
		while (nc <= (size_t)id)
			nc *= 2;
		char **nt = realloc(*toks, nc * sizeof *nt);
		if (!nt)
			return err_set(r->e, "out of memory");
		memset(nt + *cap, 0, (nc - *cap) * sizeof *nt);
		*toks = nt;
		*cap = nc;
	}
	if ((*toks)[id]) {
		/* an added token may name a piece of the model at its id */
		if (added && !strcmp((*toks)[id], piece))
			return 0;
		return tokjson_fail(r, where, "id %lld given twice (\"%.40s\" and \"%.40s\")", id,
				    (*toks)[id], piece);
	}
	if (!*piece)
		return tokjson_fail(r, where, "an empty piece");
	if (strlen(piece) >= TOKJSON_MAX_PIECE)
		return tokjson_fail(r, where, "a piece of more than %d bytes", TOKJSON_MAX_PIECE - 1);
	if (!((*toks)[id] = tokjson_dup(r, piece)))
		return -1;
	if ((size_t)id + 1 > *n)
		*n = (size_t)id + 1;
	return 0;
}

/* BPE: {"piece": id, …}; Unigram: [["piece", score], …] (the id is the
 * index), the scores into t->score. */
static int read_vocab(struct rd *r, const struct ynode *m, char ***toks, size_t *cap,
		      size_t *n)
{
	const struct ynode *v = ynode_get(m, "vocab");
	struct tokjson *t = r->t;
	if (t->model == TOKJSON_BPE) {
		if (!v || v->kind != Y_MAP)
			return tokjson_fail(r, v ? v : m, "model.vocab: expected an object piece -> id");
		for (size_t i = 0; i < v->n; i++) {
			const struct ynode *k = v->items[2 * i], *val = v->items[2 * i + 1];
			long long id;
			if (tokjson_int(r, val, 0, MAX_IDS - 1, "model.vocab", &id) ||
			    put_piece(r, k, toks, cap, n, id, k->str, 0))
				return -1;
		}
		return 0;
	}
	if (!v || v->kind != Y_SEQ || !v->n)
		return tokjson_fail(r, v ? v : m, "model.vocab: expected a list of [piece, score]");
	if (v->n >= MAX_IDS)
		return tokjson_fail(r, v, "model.vocab: too many pieces");
	if (!(t->score = malloc(v->n * sizeof *t->score)))
		return err_set(r->e, "out of memory");
	t->nscore = (int)v->n;
	t->min_score = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *p = v->items[i];
		if (p->kind != Y_SEQ || p->n != 2 || p->items[0]->kind != Y_SCALAR ||
		    !p->items[0]->quoted)
			return tokjson_fail(r, p, "model.vocab: expected [piece, score]");
		if (ynode_float(r->d, p->items[1], &t->score[i], r->e) ||
		    put_piece(r, p, toks, cap, n, (long long)i, p->items[0]->str, 0))
			return -1;
		if (!isfinite(t->score[i]) || fabs(t->score[i]) > 1e30)
			return tokjson_fail(r, p, "model.vocab: the score of \"%.40s\" is not a "
					    "number of a sensible size", p->items[0]->str);
		if (t->score[i] < t->min_score)
			t->min_score = t->score[i];
		if ((int)p->items[0]->len > t->maxlen)
			t->maxlen = (int)p->items[0]->len;
	}
	return 0;
}

static int read_added(struct rd *r, const struct ynode *root, char ***toks, size_t *cap,
		      size_t *n)
{
	const struct ynode *a = ynode_get(root, "added_tokens");
	struct tokjson *t = r->t;
	if (tokjson_null(a))
		return 0;
	if (a->kind != Y_SEQ)
		return tokjson_fail(r, a, "added_tokens: expected a list");
	if (a->n && !(t->added = calloc(a->n, sizeof *t->added)))
		return err_set(r->e, "out of memory");
	for (size_t i = 0; i < a->n; i++) {
		const struct ynode *x = a->items[i];
		struct tokjson_added *ad = &t->added[t->nadded];
		const char *content;
		long long id;
		int f[5];
		if (x->kind != Y_MAP)
			return tokjson_fail(r, x, "added_tokens: expected an object");
		if (tokjson_str(r, x, "content", &content) ||
		    tokjson_int(r, ynode_get(x, "id"), 0, MAX_IDS - 1, "added_tokens.id", &id) ||
		    tokjson_bool(r, x, "special", 0, &f[0]) || tokjson_bool(r, x, "lstrip", 0, &f[1]) ||
		    tokjson_bool(r, x, "rstrip", 0, &f[2]) || tokjson_bool(r, x, "single_word", 0, &f[3]) ||
		    tokjson_bool(r, x, "normalized", 0, &f[4]))
			return -1;
		if (!content || !*content)
			return tokjson_fail(r, x, "added_tokens: an empty content");
		if (put_piece(r, x, toks, cap, n, id, content, 1) ||
		    !(ad->content = tokjson_dup(r, content)))
			return -1;
		ad->id = (int32_t)id;
		ad->special = (unsigned char)f[0];
		ad->lstrip = (unsigned char)f[1];
		ad->rstrip = (unsigned char)f[2];
		ad->single_word = (unsigned char)f[3];
		ad->normalized = (unsigned char)f[4];
		t->nadded++;
	}
	return 0;
}

/* ---- merges ---- */

/* The ids of a merge's two pieces and their join. */
static int merge_ids(struct rd *r, const struct ynode *where, const char *a, const char *b,
		     int32_t *ia, int32_t *ib, int32_t *iab)
{
	char joined[2 * TOKJSON_MAX_PIECE + 2];
	size_t la = strlen(a), lb = strlen(b);
	*ia = vocab_id(&r->t->vocab, a);
	*ib = vocab_id(&r->t->vocab, b);
	*iab = -1;
	if (la + lb < sizeof joined) {
		memcpy(joined, a, la);
		memcpy(joined + la, b, lb + 1);
		*iab = vocab_id(&r->t->vocab, joined);
	}
	if (*ia < 0 || *ib < 0 || *iab < 0)
		return tokjson_fail(r, where, "model.merges: the merge \"%.40s %.40s\" makes or "
				    "uses a piece that model.vocab lacks", a, b);
	return 0;
}

static int read_merges(struct rd *r, const struct ynode *m)
{
	const struct ynode *mg = ynode_get(m, "merges");
	struct tokjson *t = r->t;
	if (tokjson_null(mg))
		return bpemerge_init(&t->merges, 0) ? err_set(r->e, "out of memory") : 0;
	if (mg->kind != Y_SEQ)
		return tokjson_fail(r, mg, "model.merges: expected a list");
	if (bpemerge_init(&t->merges, mg->n))
		return err_set(r->e, "out of memory");
	for (size_t i = 0; i < mg->n; i++) {
		const struct ynode *x = mg->items[i];
		char buf[2 * TOKJSON_MAX_PIECE + 2];
		const char *a, *b;
		int32_t ia, ib, iab;
		if (x->kind == Y_SCALAR && x->quoted) {
			/* "a b": exactly one space */
			const char *sp = strchr(x->str, ' ');
			if (!sp || sp == x->str || !sp[1] || strchr(sp + 1, ' ') ||
			    x->len >= sizeof buf)
				return tokjson_fail(r, x, "model.merges: a merge is two pieces separated by "
					    "one space");
			memcpy(buf, x->str, x->len + 1);
			buf[sp - x->str] = 0;
			a = buf;
			b = buf + (sp - x->str) + 1;
		} else if (x->kind == Y_SEQ && x->n == 2 && x->items[0]->kind == Y_SCALAR &&
			   x->items[1]->kind == Y_SCALAR) {
			a = x->items[0]->str;
			b = x->items[1]->str;
		} else {
			return tokjson_fail(r, x, "model.merges: expected \"a b\" or [\"a\", \"b\"]");
		}
		if (merge_ids(r, x, a, b, &ia, &ib, &iab))
			return -1;
		if (bpemerge_add(&t->merges, ia, ib, iab))
			return err_set(r->e, "out of memory");
	}
	return 0;
}

/* ---- the model ---- */

static int read_bpe_options(struct rd *r, const struct ynode *m)
{
	struct tokjson *t = r->t;
	const char *unk, *csp, *eow;
	const struct ynode *dr = ynode_get(m, "dropout");
	if (tokjson_bool(r, m, "ignore_merges", 0, &t->ignore_merges) ||
	    tokjson_bool(r, m, "byte_fallback", 0, &t->byte_fallback) ||
	    tokjson_bool(r, m, "fuse_unk", 0, &t->fuse_unk) || tokjson_str(r, m, "unk_token", &unk) ||
	    tokjson_str(r, m, "continuing_subword_prefix", &csp) ||
	    tokjson_str(r, m, "end_of_word_suffix", &eow))
		return -1;
	if ((csp && *csp) || (eow && *eow))
		return tokjson_fail(r, m, "model: a BPE with continuing_subword_prefix or "
			    "end_of_word_suffix is not read");
	if (!tokjson_null(dr) && !(dr->kind == Y_SCALAR && (!strcmp(dr->str, "0") ||
						      !strcmp(dr->str, "0.0"))))
		return tokjson_fail(r, dr, "model.dropout: BPE dropout is not read (a pass must give "
			    "the same pieces every time)");
	if (unk && (t->unk_id = vocab_id(&t->vocab, unk)) < 0)
		return tokjson_fail(r, m, "model.unk_token \"%.40s\" is not in the vocabulary", unk);
	for (int b = 0; b < 256; b++) {
		char s[8];
		snprintf(s, sizeof s, "<0x%02X>", b);
		t->byte_tok[b] = vocab_id(&t->vocab, s);
	}
	return 0;
}

static int read_model(struct rd *r, const struct ynode *root)
{
	struct tokjson *t = r->t;
	const struct ynode *m = ynode_get(root, "model");
	char **toks = NULL;
	size_t cap = 0, n = 0;
	int rc = -1;
	if (!m || m->kind != Y_MAP)
		return tokjson_fail(r, m ? m : root, "expected a \"model\" object");
	const char *ty = tokjson_type(m);
	if (!ty) /* files of old versions of the library name no type */
		ty = ynode_get(m, "merges") ? "BPE" : "Unigram";
	if (!strcmp(ty, "BPE"))
		t->model = TOKJSON_BPE;
	else if (!strcmp(ty, "Unigram"))
		t->model = TOKJSON_UNIGRAM;
	else
		return tokjson_fail(r, m, "model type %.40s is not read (BPE and Unigram are)", ty);
	if (read_vocab(r, m, &toks, &cap, &n) || read_added(r, root, &toks, &cap, &n))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!toks[i]) {
			tokjson_fail(r, m, "no piece has id %zu (the ids must be 0 … %zu, each once)", i,
				     n - 1);
			goto out;
		}
	if (!n) {
		tokjson_fail(r, m, "model.vocab is empty");
		goto out;
	}
	if (vocab_init(&t->vocab, (const char *const *)toks, (int)n, t->file, r->e))
		goto out;
	if (t->model == TOKJSON_BPE) {
		if (read_bpe_options(r, m) || read_merges(r, m))
			goto out;
	} else {
		long long uid = -1;
		const struct ynode *u = ynode_get(m, "unk_id");
		if ((!tokjson_null(u) && tokjson_int(r, u, 0, t->nscore - 1, "model.unk_id", &uid)) ||
		    tokjson_bool(r, m, "byte_fallback", 0, &t->byte_fallback))
			goto out;
		t->unk_id = (int32_t)uid;
		for (int b = 0; b < 256; b++) {
			char s[8];
			snprintf(s, sizeof s, "<0x%02X>", b);
			t->byte_tok[b] = vocab_id(&t->vocab, s);
		}
	}
	rc = 0;
out:
	for (size_t i = 0; i < cap; i++)
		free(toks[i]);
	free(toks);
	return rc;
}

/* ---- tokenizer_config.json ---- */

/* A special token of the config: "tok", {"content": "tok", …} or null. */
static int config_token(struct rd *r, const struct ynode *root, const char *key, int32_t *id)
{
	const struct ynode *n = ynode_get(root, key);
	const char *s = NULL;
	*id = -1;
	if (tokjson_null(n))
		return 0;
	if (n->kind == Y_MAP) {
		if (tokjson_str(r, n, "content", &s))
			return -1;
	} else if (n->kind == Y_SCALAR && n->quoted) {
		s = n->str;
	} else {
		return tokjson_fail(r, n, "%s: expected a string or {\"content\": …}", key);
	}
	if (s && (*id = vocab_id(&r->t->vocab, s)) < 0) {
		return tokjson_fail(r, n, "%s \"%.40s\" is not in %.60s", key, s, r->t->file);
	}
	return 0;
}

/* Puts id in v (at the front, or the back when back) or takes it out. */
static int force_id(struct rd *r, int32_t **v, int *n, int32_t id, int want, int back)
{
	int at = -1;
	for (int i = 0; i < *n; i++)
		if ((*v)[i] == id)
			at = i;
	if (want && at < 0) {
		if (tokjson_push_id(r, v, n, id))
			return -1;
		if (!back) {
			memmove(*v + 1, *v, (size_t)(*n - 1) * sizeof **v);
			(*v)[0] = id;
		}
	} else if (!want && at >= 0) {
		memmove(*v + at, *v + at + 1, (size_t)(*n - at - 1) * sizeof **v);
		(*n)--;
	}
	return 0;
}

static int read_config(struct rd *r, const struct ynode *root, int32_t *eos)
{
	struct tokjson *t = r->t;
	int32_t bos, unk;
	int addb, adde;
	if (!root || root->kind != Y_MAP)
		return tokjson_fail(r, root, "expected an object");
	if (config_token(r, root, "bos_token", &bos) || config_token(r, root, "eos_token", eos) ||
	    config_token(r, root, "pad_token", &t->pad) ||
	    config_token(r, root, "unk_token", &unk) ||
	    tokjson_bool(r, root, "add_bos_token", -1, &addb) ||
	    tokjson_bool(r, root, "add_eos_token", -1, &adde))
		return -1;
	if (t->unk < 0)
		t->unk = unk;
	if (addb >= 0 && bos >= 0 && force_id(r, &t->pre_ids, &t->npre_ids, bos, addb, 0))
		return -1;
	if (adde >= 0 && *eos >= 0 && force_id(r, &t->post_ids, &t->npost_ids, *eos, adde, 1))
		return -1;
	return 0;
}

/* ---- the whole ---- */

/* The eos without a config: the post-processor's last token, else an added
 * special token of a usual spelling. */
static int32_t guess_eos(const struct tokjson *t)
{
	static const char *const names[] = { "</s>", "<eos>", "<|endoftext|>", "<|end_of_text|>" };
	if (t->npost_ids)
		return t->post_ids[t->npost_ids - 1];
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		for (int i = 0; i < t->nadded; i++)
			if (t->added[i].special && !strcmp(t->added[i].content, names[k]))
				return t->added[i].id;
	return -1;
}

/* The added tokens in a trie, so that the text is matched against them
 * in time linear in the longest (Gemma 3 has 6,415, 6,322 of them
 * starting with '<'). */
static int index_added(struct rd *r)
{
	struct tokjson *t = r->t;
	size_t total = 0;
	for (int i = 0; i < t->nadded; i++)
		total += strlen(t->added[i].content);
	if (bytetrie_init(&t->added_trie, total))
		return err_set(r->e, "out of memory");
	for (int i = 0; i < t->nadded; i++)
		if (bytetrie_put(&t->added_trie, t->added[i].content, i))
			return err_set(r->e, "out of memory");
	return 0;
}

/* A Unigram's pieces in a trie: the pieces that start at a place of the
 * text are found in one walk. */
static int index_pieces(struct rd *r)
{
	struct tokjson *t = r->t;
	size_t total = 0;
	for (int i = 0; i < t->nscore; i++)
		total += strlen(vocab_str(&t->vocab, i));
	if (total > TRIE_MAX_BYTES)
		return err_set(r->e, "%s: the Unigram's pieces hold more than %u MB", t->file,
			       TRIE_MAX_BYTES >> 20);
	if (bytetrie_init(&t->piece_trie, total))
		return err_set(r->e, "out of memory");
	for (int i = 0; i < t->nscore; i++)
		if (bytetrie_put(&t->piece_trie, vocab_str(&t->vocab, i), i))
			return err_set(r->e, "out of memory");
	return 0;
}

static int read_all(struct rd *r, const struct ynode *root)
{
	if (!root || root->kind != Y_MAP)
		return tokjson_fail(r, root, "expected an object");
	const struct ynode *tr = ynode_get(root, "truncation"), *pd = ynode_get(root, "padding");
	if (!tokjson_null(tr) || !tokjson_null(pd))
		return tokjson_fail(r, tokjson_null(tr) ? pd : tr, "%s is set: attnscope reads a tokenizer "
			    "without it", tokjson_null(tr) ? "padding" : "truncation");
	return read_model(r, root) || tokjson_read_steps(r, root) ||
	       (r->t->model == TOKJSON_UNIGRAM && index_pieces(r)) ||
	       index_added(r);
}

/* Checks buf as JSON and reads it into doc. */
static int parse_doc(struct ydoc *doc, const char *what, const char *buf, size_t len,
		     int flags, struct err *e)
{
	char *fixed = NULL;
	size_t flen = 0;
	if (json_check(what, buf, len, flags, &fixed, &flen, e))
		return -1;
	int rc = fixed ? ydoc_parse_max(doc, what, fixed, flen, JSON_BIG_MAX_NODES, e) :
			 ydoc_parse_max(doc, what, buf, len, JSON_BIG_MAX_NODES, e);
	free(fixed);
	return rc;
}

int tokjson_parse(struct tokjson *t, const char *what, const char *json, size_t len,
		  const char *config_what, const char *config, size_t clen, struct err *e)
{
	struct ydoc doc;
	memset(t, 0, sizeof *t);
	t->unk_id = t->bos = t->eos = t->pad = t->unk = -1;
	if (!(t->file = strdup(what)))
		return err_set(e, "out of memory");
	if (parse_doc(&doc, what, json, len, JSON_BIG, e))
		goto fail;
	struct rd r = { t, &doc, e };
	int rc = read_all(&r, doc.root);
	ydoc_free(&doc);
	if (rc)
		goto fail;
	t->unk = t->unk_id;
	int32_t eos = -1;
	if (config) {
		if (parse_doc(&doc, config_what, config, clen, 0, e))
			goto fail;
		r.d = &doc;
		rc = read_config(&r, doc.root, &eos);
		ydoc_free(&doc);
		if (rc)
			goto fail;
	}
	t->eos = eos >= 0 ? eos : guess_eos(t);
	t->bos = t->npre_ids ? t->pre_ids[0] : -1;
	return 0;
fail:
	tokjson_free(t);
	return -1;
}

int tokjson_load(struct tokjson *t, const char *tokenizer_json,
		 const char *tokenizer_config_json, struct err *e)
{
	size_t len = 0, clen = 0;
	char *cfg = NULL, *buf = safefile_read_all(tokenizer_json, FILE_MAX_BYTES, &len, e);
	memset(t, 0, sizeof *t);
	if (!buf)
		return -1;
	if (tokenizer_config_json &&
	    !(cfg = safefile_read_all(tokenizer_config_json, FILE_MAX_BYTES, &clen, e))) {
		free(buf);
		return -1;
	}
	int rc = tokjson_parse(t, tokenizer_json, buf, len, tokenizer_config_json, cfg, clen, e);
	free(buf);
	free(cfg);
	return rc;
}

void tokjson_free(struct tokjson *t)
{
	struct tokjson_step *all[3] = { t->norm, t->pre, t->dec };
	int ns[3] = { t->nnorm, t->npre, t->ndec };
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < ns[k]; i++) {
			free(all[k][i].a);
			free(all[k][i].b);
		}
	for (int i = 0; i < t->nadded; i++)
		free(t->added[i].content);
	free(t->added);
	bytetrie_free(&t->added_trie);
	charsmap_free(&t->charsmap);
	bytetrie_free(&t->piece_trie);
	vocab_free(&t->vocab);
	bpemerge_free(&t->merges);
	free(t->score);
	free(t->pre_ids);
	free(t->post_ids);
	free((char *)t->file);
	memset(t, 0, sizeof *t);
	t->unk_id = t->bos = t->eos = t->pad = t->unk = -1;
}
