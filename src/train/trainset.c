/* trainset.c - corpus pairs to ids, epochs and padded batches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainset.h"
#include "base/i18n.h"
#include "engine/input.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int note_unknown(struct trainset *ts, char **words, int n)
{
	if (!n)
		return 0;
	char **nw = realloc(ts->unknown_words,
			    (size_t)(ts->nunknown_words + n) * sizeof *nw);
	if (!nw)
		return -1;
	ts->unknown_words = nw;
	for (int i = 0; i < n; i++)
		if (!(nw[ts->nunknown_words++] = strdup(words[i])))
			return -1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the unknown words and keeps each once. */
static void unique_unknown(struct trainset *ts)
{
	if (!ts->nunknown_words)
		return;
	qsort(ts->unknown_words, (size_t)ts->nunknown_words, sizeof *ts->unknown_words,
	      cmp_str);
	int k = 1;
	for (int i = 1; i < ts->nunknown_words; i++) {
		if (strcmp(ts->unknown_words[i], ts->unknown_words[k - 1]) == 0)
			free(ts->unknown_words[i]);
		else
			ts->unknown_words[k++] = ts->unknown_words[i];
	}
	ts->nunknown_words = k;
}

static long count_unk(const int32_t *ids, int n, int32_t unk)
{
	long c = 0;
	for (int i = 0; unk >= 0 && i < n; i++)
		c += ids[i] == unk;
	return c;
}

/* Tokenizes pair k of the corpus. */
static int add_pair(struct trainset *ts, const struct model *m, int k,
		    const char *path, struct err *e)
{
	const struct corpus_pair *cp = &ts->corpus.pairs[k];
	struct pass_opts o;
	struct pass_input in;
	pass_opts_default(&o);
	if (input_build(m, cp->src, cp->tgt, &o, &in, e))
		return err_prefix(e, "%s:%d", path, cp->line);
	struct tpair *p = &ts->p[ts->n];
	const int enc = m->cfg.arch == ARCH_ENC_DEC;
	memset(p, 0, sizeof *p);
	p->cp = cp;
	p->S = enc ? in.S : 0;
	p->T = in.T;
	p->src = malloc((size_t)(p->S ? p->S : 1) * sizeof *p->src);
	p->tgt = malloc((size_t)p->T * sizeof *p->tgt);
	if (!p->src || !p->tgt || note_unknown(ts, in.unknown, in.nunknown)) {
		free(p->src);
		free(p->tgt);
		input_free(&in);
		return err_set(e, "out of memory reading %s", path);
	}
	if (enc)
		memcpy(p->src, in.src_ids, (size_t)p->S * sizeof *p->src);
	memcpy(p->tgt, in.tgt_ids, (size_t)p->T * sizeof *p->tgt);
	const int wrap = enc && m->cfg.tok.wrap_source ? 2 : 0;
	ts->src_tokens += enc ? p->S - wrap : 0;
	ts->tgt_tokens += p->T - 1;
	ts->unknown += (enc ? count_unk(p->src, p->S, ts->unk) : 0) +
		       count_unk(p->tgt, p->T, m->tgt_sp[TOK_UNK]);
	ts->n++;
	input_free(&in);
	return 0;
}

int trainset_load(struct trainset *ts, const struct model *m, const char *path,
		  struct err *e)
{
	memset(ts, 0, sizeof *ts);
	/* teacher forcing feeds <s> + target and learns target + </s> */
	if (m->tgt_sp[TOK_SOS] < 0 || m->tgt_sp[TOK_EOS] < 0)
		return err_set(e, "%s: training needs the start and end tokens (specials sos "
			       "and eos) in the target vocabulary", m->path);
	ts->src_pad = m->src_sp[TOK_PAD] >= 0 ? m->src_sp[TOK_PAD] : 0;   /* masked */
	ts->tgt_pad = m->tgt_sp[TOK_PAD] >= 0 ? m->tgt_sp[TOK_PAD] : 0;
	ts->eos = m->tgt_sp[TOK_EOS];
	ts->unk = m->src_sp[TOK_UNK];
	if (corpus_read(path, &ts->corpus, e)) {
		trainset_free(ts);
		return -1;
	}
	if (!(ts->p = calloc((size_t)ts->corpus.n + 1, sizeof *ts->p))) {
		trainset_free(ts);
		return err_set(e, "out of memory reading %s", path);
	}
	for (int k = 0; k < ts->corpus.n; k++)
		if (add_pair(ts, m, k, path, e)) {
			trainset_free(ts);
			return -1;
		}
	unique_unknown(ts);
	return 0;
}

void trainset_free(struct trainset *ts)
{
	for (int i = 0; i < ts->n; i++) {
		free(ts->p[i].src);
		free(ts->p[i].tgt);
	}
	free(ts->p);
	tokens_free(ts->unknown_words, ts->nunknown_words);
	corpus_free(&ts->corpus);
	memset(ts, 0, sizeof *ts);
}

const char *trainset_unknown_summary(const struct trainset *ts, char *buf,
				     size_t bufsz)
{
	buf[0] = 0;
	if (!ts->unknown)
		return buf;
	/* TRANSLATORS: followed by the distinct words, quoted, then ")":
	   12 words outside the vocabulary (3 distinct: "a", "b", "c") */
	int k = snprintf(buf, bufsz, P_("%ld word outside the vocabulary (%d distinct:",
					"%ld words outside the vocabulary (%d distinct:",
					ts->unknown),
			 ts->unknown, ts->nunknown_words);
	for (int i = 0; i < ts->nunknown_words && k > 0 && (size_t)k < bufsz; i++) {
		if (i == 8) {
			k += snprintf(buf + k, bufsz - (size_t)k, " …");
			break;
		}
		k += snprintf(buf + k, bufsz - (size_t)k, "%s \"%s\"", i ? "," : "",
			      ts->unknown_words[i]);
	}
	if (k > 0 && (size_t)k < bufsz)
		snprintf(buf + k, bufsz - (size_t)k, ")");
	return buf;
}

/* ---- epochs ---- */

/* Sort key: target length, source length, then place in the permutation
 * (so equal lengths keep the shuffled order). */
static const struct trainset *sort_ts;
static const int *sort_rank;

static int cmp_len(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	const struct tpair *p = &sort_ts->p[i], *q = &sort_ts->p[j];
	if (p->T != q->T)
		return p->T < q->T ? -1 : 1;
	if (p->S != q->S)
		return p->S < q->S ? -1 : 1;
	return sort_rank[i] < sort_rank[j] ? -1 : sort_rank[i] > sort_rank[j];
}

int trainset_epoch(const struct trainset *ts, uint64_t seed, int epoch,
		   int batch_tokens, struct epoch *ep, struct err *e)
{
	const int n = ts->n;
	memset(ep, 0, sizeof *ep);
	int *rank = malloc((size_t)n * sizeof *rank);
	ep->order = malloc((size_t)n * sizeof *ep->order);
	ep->start = malloc((size_t)(n + 1) * sizeof *ep->start);
	if (!rank || !ep->order || !ep->start) {
		free(rank);
		epoch_free(ep);
		return err_set(e, "out of memory");
	}
	uint64_t s = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)epoch + 1) * 0xD1B54A32D192ED03ull;
	for (int i = 0; i < n; i++)
		ep->order[i] = i;
	for (int i = n - 1; i > 0; i--) {   /* Fisher-Yates */
		int j = (int)(splitmix64(&s) % (uint64_t)(i + 1));
		int t = ep->order[i];
		ep->order[i] = ep->order[j];
		ep->order[j] = t;
	}
	for (int i = 0; i < n; i++)
		rank[ep->order[i]] = i;
	sort_ts = ts;
	sort_rank = rank;
	qsort(ep->order, (size_t)n, sizeof *ep->order, cmp_len);
	free(rank);

	/* cut into batches of at most batch_tokens padded tokens */
	int nb = 0, first = 0, smax = 0, tmax = 0;
	ep->start[0] = 0;
	for (int i = 0; i < n; i++) {
		const struct tpair *p = &ts->p[ep->order[i]];
		int s2 = p->S > smax ? p->S : smax, t2 = p->T > tmax ? p->T : tmax;
		long cost = (long)(i - first + 1) * (s2 + t2);
		if (i > first && cost > batch_tokens) {
			ep->start[++nb] = i;
			first = i;
			s2 = p->S;
			t2 = p->T;
		}
		smax = s2;
		tmax = t2;
	}
	ep->start[++nb] = n;
	ep->nbatches = nb;

	/* shuffle the batch order: permute (start, length) pairs */
	int *perm = malloc((size_t)nb * sizeof *perm);
	int *order2 = malloc((size_t)n * sizeof *order2);
	int *start2 = malloc((size_t)(nb + 1) * sizeof *start2);
	if (!perm || !order2 || !start2) {
		free(perm);
		free(order2);
		free(start2);
		epoch_free(ep);
		return err_set(e, "out of memory");
	}
	for (int k = 0; k < nb; k++)
		perm[k] = k;
	for (int k = nb - 1; k > 0; k--) {
		int j = (int)(splitmix64(&s) % (uint64_t)(k + 1));
		int t = perm[k];
		perm[k] = perm[j];
		perm[j] = t;
	}
	int pos = 0;
	for (int k = 0; k < nb; k++) {
		start2[k] = pos;
		for (int i = ep->start[perm[k]]; i < ep->start[perm[k] + 1]; i++)
			order2[pos++] = ep->order[i];
	}
	start2[nb] = pos;
	free(perm);
	free(ep->order);
	free(ep->start);
	ep->order = order2;
	ep->start = start2;
	return 0;
}

void epoch_free(struct epoch *ep)
{
	free(ep->order);
	free(ep->start);
	memset(ep, 0, sizeof *ep);
}

/* ---- batches ---- */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	void *np = realloc(*p, need * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = need;
	return 0;
}

int trainset_batch(const struct trainset *ts, const int *idx, int n,
		   struct tbatch *tb, struct err *e)
{
	int S = 0, T = 0;
	for (int k = 0; k < n; k++) {
		const struct tpair *p = &ts->p[idx[k]];
		S = p->S > S ? p->S : S;
		T = p->T > T ? p->T : T;
	}
	size_t cs = tb->cap_src, ct = tb->cap_tgt, ct2 = tb->cap_tgt, cb = (size_t)tb->cap_b;
	size_t cb2 = cb;
	if (grow((void **)&tb->src, &cs, (size_t)n * (S ? S : 1), sizeof *tb->src) ||
	    grow((void **)&tb->tgt, &ct, (size_t)n * T, sizeof *tb->tgt) ||
	    grow((void **)&tb->lab, &ct2, (size_t)n * T, sizeof *tb->lab) ||
	    grow((void **)&tb->src_len, &cb, (size_t)n, sizeof *tb->src_len) ||
	    grow((void **)&tb->tgt_len, &cb2, (size_t)n, sizeof *tb->tgt_len))
		return err_set(e, "out of memory for a batch of %d pairs", n);
	tb->cap_src = cs;
	tb->cap_tgt = ct < ct2 ? ct : ct2;
	tb->cap_b = (int)(cb < cb2 ? cb : cb2);
	tb->src_tokens = tb->tgt_tokens = 0;
	for (int k = 0; k < n; k++) {
		const struct tpair *p = &ts->p[idx[k]];
		int32_t *s = tb->src + (size_t)k * S;
		int32_t *t = tb->tgt + (size_t)k * T, *l = tb->lab + (size_t)k * T;
		for (int j = 0; j < S; j++)
			s[j] = j < p->S ? p->src[j] : ts->src_pad;
		for (int j = 0; j < T; j++) {
			t[j] = j < p->T ? p->tgt[j] : ts->tgt_pad;
			/* labels: the next decoder input, then </s> */
			l[j] = j + 1 < p->T ? p->tgt[j + 1] : j + 1 == p->T ? ts->eos : -1;
		}
		tb->src_len[k] = p->S;
		tb->tgt_len[k] = p->T;
		tb->src_tokens += p->S;
		tb->tgt_tokens += p->T;
	}
	tb->b = (struct bp_batch){ .B = n, .S = S, .T = T, .src = tb->src,
				   .src_len = tb->src_len, .tgt = tb->tgt,
				   .tgt_len = tb->tgt_len, .labels = tb->lab };
	return 0;
}

void tbatch_free(struct tbatch *tb)
{
	free(tb->src);
	free(tb->tgt);
	free(tb->lab);
	free(tb->src_len);
	free(tb->tgt_len);
	memset(tb, 0, sizeof *tb);
}
