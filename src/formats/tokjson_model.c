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
		for (size_t e = i; e < n && (node = bytetrie_next(&t->piece_trie, node, (unsigned char)p->s[e])) >= 0;) {
			int32_t id = bytetrie_val(&t->piece_trie, node);
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
