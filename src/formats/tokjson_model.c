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

/* The lattice's best path so far to each byte position: its score, its
 * last piece (-1: the unknown piece) and where that starts (NONE: not
 * reached yet, so the first candidate is taken, as Hugging Face does). */
#define NONE SIZE_MAX
struct lattice {
	double *best;
	int32_t *bid;
	size_t *from;
};

static void relax(struct lattice *lt, size_t i, size_t e, int32_t id, double score)
{
	double c = lt->best[i] + score;
	if (lt->from[e] == NONE || c > lt->best[e]) {
		lt->best[e] = c;
		lt->bid[e] = id;
		lt->from[e] = i;
	}
}

/* Viterbi over p's bytes: every piece that starts at a character, and the
 * unknown piece for a character no piece is exactly. */
static void viterbi(const struct tokjson *t, const struct piece *p, struct lattice *lt)
{
	size_t n = p->len;
	for (size_t i = 0; i <= n; i++)
		lt->from[i] = NONE;
	lt->best[0] = 0;
	for (size_t i = 0; i < n; i++) {
		int l;
		if (((unsigned char)p->s[i] & 0xC0) == 0x80 || (i > 0 && lt->from[i] == NONE))
			continue;
		tokjson_cp_at(p->s, n, i, &l);
		int found_char = 0;
		int32_t node = 0;
		/* the pieces that start at i, shortest first, along the trie */
		for (size_t e = i; e < n &&
		     (node = bytetrie_next(&t->piece_trie, node, (unsigned char)p->s[e])) >= 0;) {
			int32_t id = bytetrie_val(&t->piece_trie, node);
			e++;
			if (id < 0)
				continue;
			found_char |= e - i == (size_t)l;
			relax(lt, i, e, id, t->score[id]);
		}
		if (!found_char)
			relax(lt, i, i + (size_t)l, -1, t->min_score - 10);
	}
}

int tokjson_unigram_word(const struct tokjson *t, const struct piece *p, struct ids *o)
{
	size_t n = p->len;
	struct lattice lt = { malloc((n + 1) * sizeof *lt.best), malloc((n + 1) * sizeof *lt.bid),
			      malloc((n + 1) * sizeof *lt.from) };
	double *best = lt.best;
	int32_t *bid = lt.bid;
	size_t *from = lt.from;
	struct ids rev = { 0 };
	int rc = -1;
	if (!best || !bid || !from)
		goto out;
	viterbi(t, p, &lt);
	if (n && from[n] == NONE)
		goto out_ok;     /* cannot happen: every character has a way */
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
out_ok:
	rc = 0;
out_rev:
	free(rev.v);
out:
	free(best);
	free(bid);
	free(from);
	return rc;
}
