/* tokjson_model.c - a tokenizer.json's model on one pre-token: BPE
 * (Hugging Face's BPE::merge_word, the merges by rank in bpemerge.c) and
 * Unigram (Unigram::encode: Viterbi over a trie of the pieces). */
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "tokjson_int.h"

/* The symbols of a BPE word: a character each (its piece), else its
 * bytes' <0xXX> pieces (byte_fallback), else the unknown piece (a run of
 * them one, fuse_unk), else nothing (Hugging Face's BPE::merge_word). */
static int bpe_symbols(const struct tokjson *t, const struct piece *p, int32_t *sym, size_t *ns)
{
	char ch[8];
	int l, last_unk = 0;
	*ns = 0;
	for (size_t i = 0; i < p->len; i += (size_t)l) {
		tokjson_cp_at(p->s, p->len, i, &l);
		memcpy(ch, p->s + i, (size_t)l);
		ch[l] = 0;
		int32_t id = vocab_id(&t->vocab, ch);
		if (id >= 0) {
			sym[(*ns)++] = id;
			last_unk = 0;
			continue;
		}
		int bytes = t->byte_fallback;
		for (int k = 0; bytes && k < l; k++)
			bytes = t->byte_tok[(unsigned char)ch[k]] >= 0;
		if (bytes) {
			for (int k = 0; k < l; k++)
				sym[(*ns)++] = t->byte_tok[(unsigned char)ch[k]];
			last_unk = 0;
			continue;
		}
		if (t->unk_id < 0)
			continue;
		if (!(t->fuse_unk && last_unk))
			sym[(*ns)++] = t->unk_id;
		last_unk = 1;
	}
	return 0;
}

int tokjson_bpe_word(const struct tokjson *t, const struct piece *p, struct ids *o)
{
	if (t->ignore_merges) {
		int32_t id = vocab_id(&t->vocab, p->s);
		if (id >= 0)
			return ids_push(o, id);
	}
	size_t ns;
	int32_t *sym = malloc((p->len * 4 + 1) * sizeof *sym);
	if (!sym)
		return -1;
	bpe_symbols(t, p, sym, &ns);
	int rc = bpemerge_apply(&t->merges, sym, ns, o);
	free(sym);
	return rc;
}

/* Unigram: the pieces of best total score (Viterbi over the byte
 * positions; a character no piece starts with is the unknown piece, of
 * score min_score − 10, consecutive unknowns fused; with byte_fallback its
 * bytes' <0xXX> pieces instead), as Hugging Face's Unigram::encode. */
/* ---- Unigram ---- */

/* The piece bytes a Unigram's trie holds at most (mT5's 250,100 pieces are
 * about 3 MB): the trie costs some 30 bytes a byte. */
#define TRIE_MAX_BYTES (16u << 20)

static uint64_t edge_key(int32_t node, unsigned char b)
{
	return (uint64_t)(uint32_t)node << 8 | b;
}

static size_t edge_slot(const struct tokjson *t, uint64_t k)
{
	uint64_t h = k * 0x9E3779B97F4A7C15ull;
	size_t j = (size_t)(h >> 20) & (t->trie_cap - 1);
	while (t->trie_key[j] != UINT64_MAX && t->trie_key[j] != k)
		j = (j + 1) & (t->trie_cap - 1);
	return j;
}

/* The node under node by byte b, or -1. */
static int32_t trie_next(const struct tokjson *t, int32_t node, unsigned char b)
{
	size_t j = edge_slot(t, edge_key(node, b));
	return t->trie_key[j] == UINT64_MAX ? -1 : t->trie_child[j];
}

int tokjson_trie_build(struct tokjson *t, struct err *e)
{
	size_t total = 1;
	for (int i = 0; i < t->nscore; i++)
		total += strlen(vocab_str(&t->vocab, i));
	if (total > TRIE_MAX_BYTES)
		return err_set(e, "%s: the Unigram's pieces hold more than %u MB", t->file,
			       TRIE_MAX_BYTES >> 20);
	t->trie_cap = 16;
	while (t->trie_cap < total * 2)
		t->trie_cap *= 2;
	t->trie_key = malloc(t->trie_cap * sizeof *t->trie_key);
	t->trie_child = malloc(t->trie_cap * sizeof *t->trie_child);
	t->trie_piece = malloc(total * sizeof *t->trie_piece);
	if (!t->trie_key || !t->trie_child || !t->trie_piece)
		return err_set(e, "out of memory");
	memset(t->trie_key, 0xFF, t->trie_cap * sizeof *t->trie_key);
	for (size_t i = 0; i < total; i++)
		t->trie_piece[i] = -1;
	t->trie_nodes = 1;
	for (int i = 0; i < t->nscore; i++) {
		int32_t node = 0;
		for (const unsigned char *c = (const unsigned char *)vocab_str(&t->vocab, i); *c; c++) {
			size_t j = edge_slot(t, edge_key(node, *c));
			if (t->trie_key[j] == UINT64_MAX) {
				t->trie_key[j] = edge_key(node, *c);
				t->trie_child[j] = t->trie_nodes++;
			}
			node = t->trie_child[j];
		}
		t->trie_piece[node] = i;
	}
	return 0;
}

int tokjson_unigram_word(const struct tokjson *t, const struct piece *p, struct ids *o)
{
	size_t n = p->len;
	double *best = malloc((n + 1) * sizeof *best);
	int32_t *bid = malloc((n + 1) * sizeof *bid);
	size_t *from = malloc((n + 1) * sizeof *from);
	struct ids rev = { 0 };
	int rc = -1;
	if (!best || !bid || !from)
		goto out;
	best[0] = 0;
	for (size_t i = 1; i <= n; i++)
		best[i] = -1e300;
	for (size_t i = 0; i < n; i++) {
		int l;
		if (((unsigned char)p->s[i] & 0xC0) == 0x80)
			continue;
		tokjson_cp_at(p->s, n, i, &l);
		int found_char = 0;
		int32_t node = 0;
		/* the pieces that start at i, shortest first, along the trie */
		for (size_t e = i; e < n && (node = trie_next(t, node, (unsigned char)p->s[e])) >= 0;) {
			int32_t id = t->trie_piece[node];
			e++;
			if (id < 0)
				continue;
			found_char |= e - i == (size_t)l;
			if (best[i] + t->score[id] > best[e]) {
				best[e] = best[i] + t->score[id];
				bid[e] = id;
				from[e] = i;
			}
		}
		if (!found_char && best[i] + t->min_score - 10 > best[i + (size_t)l]) {
			best[i + (size_t)l] = best[i] + t->min_score - 10;
			bid[i + (size_t)l] = -1;    /* unknown */
			from[i + (size_t)l] = i;
		}
	}
	/* back from the end, then out in order */
	for (size_t e = n; e > 0; e = from[e])
		if (ids_push(&rev, (int32_t)e))
			goto out_rev;
	int last_unk = 0;
	for (int i = rev.n - 1; i >= 0; i--) {
		size_t e = (size_t)rev.v[i], s = from[e];
		if (bid[e] >= 0) {
			last_unk = 0;
			if (ids_push(o, bid[e]))
				goto out_rev;
			continue;
		}
		int bytes = t->byte_fallback;
		for (size_t q = s; bytes && q < e; q++)
			bytes = t->byte_tok[(unsigned char)p->s[q]] >= 0;
		for (size_t q = s; bytes && q < e; q++)
			if (ids_push(o, t->byte_tok[(unsigned char)p->s[q]]))
				goto out_rev;
		if (!bytes && t->unk_id >= 0 && !last_unk && ids_push(o, t->unk_id))
			goto out_rev;
		last_unk = !bytes;
	}
	rc = 0;
out_rev:
	free(rev.v);
out:
	free(best);
	free(bid);
	free(from);
	return rc;
}
