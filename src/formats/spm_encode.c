/* spm_encode.c - SentencePiece's segmentations of normalised text
 * (unigram_model.cc's EncodeOptimized, bpe_model.cc's Encode, the word and
 * char models) and the byte fallback of sentencepiece_processor.cc. */
#include <stdlib.h>
#include <string.h>

#include "spm_int.h"

/* Pieces found: (offset, length) into the normalised text and the id. */
struct seg {
	size_t *off, *len;
	int32_t *id;
	int n, cap;
};

static int seg_push(struct seg *g, size_t off, size_t len, int32_t id)
{
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 64;
		size_t *no = realloc(g->off, (size_t)cap * sizeof *no);
		if (!no)
			return -1;
		g->off = no;
		size_t *nl = realloc(g->len, (size_t)cap * sizeof *nl);
		if (!nl)
			return -1;
		g->len = nl;
		int32_t *ni = realloc(g->id, (size_t)cap * sizeof *ni);
		if (!ni)
			return -1;
		g->id = ni;
		g->cap = cap;
	}
	g->off[g->n] = off;
	g->len[g->n] = len;
	g->id[g->n++] = id;
	return 0;
}

static void seg_free(struct seg *g)
{
	free(g->off);
	free(g->len);
	free(g->id);
}

/* ---- unigram: Viterbi over the pieces' scores ---- */

struct best {
	int id;
	float score;            /* of the best path ending here */
	long from;              /* where its last piece starts, -1: none yet */
};

static void offer(struct best *b, double cand, long from, int id)
{
	if (b->from == -1 || cand > (double)b->score) {
		b->score = (float)cand;
		b->from = from;
		b->id = id;
	}
}

static int unigram(const struct spm *s, const char *t, size_t size, struct seg *g)
{
	const float unk_score = s->priv->min_score - 10.0f;
	struct best *b = malloc((size + 1) * sizeof *b);
	if (!b)
		return -1;
	for (size_t i = 0; i <= size; i++)
		b[i] = (struct best){ -1, 0.0f, -1 };
	for (size_t start = 0; start < size;) {
		const float here = b[start].score;
		size_t mblen = spm_char_len(t + start, size - start);
		int single = 0;
		uint64_t h = SPM_FNV_OFFSET;
		for (size_t end = start + 1; end <= size; end++) {
			h = spm_hash_step(h, (unsigned char)t[end - 1]);
			if (!spm_prefix(s, h))
				break;
			const struct spm_entry *e = spm_find(s, h, t + start, end - start);
			int id = e ? e->normal : -1;
			if (id < 0 || s->type[id] == SPM_UNUSED)
				continue;
			size_t length = end - start;
			/* as the library's types make it: a piece's score is a
			 * double (length * max_score_ is a float, less 0.1 a
			 * double, and the other branch of the ?: becomes one), so
			 * the sum is rounded once, when it is stored as a float */
			double sc = s->type[id] == SPM_USER_DEFINED ?
				    (double)((float)length * s->priv->max_score) - 0.1 :
				    (double)s->score[id];
			offer(&b[end], sc + (double)here, (long)start, id);
			single |= length == mblen;
		}
		if (!single) {
			float cand = unk_score + here;      /* (float + float) */
			offer(&b[start + mblen], (double)cand, (long)start, s->unk_id);
		}
		start += mblen;
	}
	/* back from the end (every character boundary has a path) */
	struct seg r = { 0 };
	int rc = 0;
	for (size_t end = size; end > 0 && !rc && b[end].from >= 0; end = (size_t)b[end].from)
		rc = seg_push(&r, (size_t)b[end].from, end - (size_t)b[end].from, b[end].id);
	for (int i = r.n - 1; i >= 0 && !rc; i--)
		rc = seg_push(g, r.off[i], r.len[i], r.id[i]);
	seg_free(&r);
	free(b);
	return rc;
}

/* ---- BPE: merge the best-scored adjacent pair first ---- */

struct sym {
	size_t off, len;        /* len 0: merged into its left neighbour */
	int prev, next;
	int freeze;             /* a user-defined piece: never merged */
};

struct pair {
	int left, right;
	float score;
	size_t size;
};

/* The library's agenda order: the higher score first, then the left one. */
static int pair_before(const struct pair *a, const struct pair *b)
{
	return a->score > b->score || (a->score == b->score && a->left < b->left);
}

struct agenda {
	struct pair *h;
	int n, cap;
};

static int agenda_push(struct agenda *a, struct pair p)
{
	if (a->n == a->cap) {
		int cap = a->cap ? a->cap * 2 : 64;
		struct pair *nh = realloc(a->h, (size_t)cap * sizeof *nh);
		if (!nh)
			return -1;
		a->h = nh;
		a->cap = cap;
	}
	int i = a->n++;
	while (i > 0 && pair_before(&p, &a->h[(i - 1) / 2])) {
		a->h[i] = a->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	a->h[i] = p;
	return 0;
}

static struct pair agenda_pop(struct agenda *a)
{
	struct pair top = a->h[0], last = a->h[--a->n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= a->n)
			break;
		if (c + 1 < a->n && pair_before(&a->h[c + 1], &a->h[c]))
			c++;
		if (!pair_before(&a->h[c], &last))
			break;
		a->h[i] = a->h[c];
		i = c;
	}
	a->h[i] = last;
	return top;
}

/* What an UNUSED piece was made of (rev_merge): the later record wins. */
struct undo {
	size_t off, len, left;  /* the piece t[off..off+len), its left part's length */
};

struct bpe_state {
	const struct spm *s;
	const char *t;
	struct sym *sy;
	struct agenda ag;
	struct undo *un;
	int nun, capun;
};

static const struct spm_entry *lookup(const struct spm *s, const char *p, size_t len)
{
	uint64_t h = SPM_FNV_OFFSET;
	for (size_t i = 0; i < len; i++)
		h = spm_hash_step(h, (unsigned char)p[i]);
	return spm_find(s, h, p, len);
}

static int maybe_pair(struct bpe_state *st, int left, int right)
{
	if (left < 0 || right < 0 || st->sy[left].freeze || st->sy[right].freeze)
		return 0;
	size_t len = st->sy[left].len + st->sy[right].len;
	const struct spm_entry *e = lookup(st->s, st->t + st->sy[left].off, len);
	if (!e || e->normal < 0)
		return 0;
	if (agenda_push(&st->ag, (struct pair){ left, right, st->s->score[e->normal], len }))
		return -1;
	if (st->s->type[e->normal] == SPM_UNUSED) {
		if (st->nun == st->capun) {
			int cap = st->capun ? st->capun * 2 : 16;
			struct undo *nu = realloc(st->un, (size_t)cap * sizeof *nu);
			if (!nu)
				return -1;
			st->un = nu;
			st->capun = cap;
		}
		st->un[st->nun++] = (struct undo){ st->sy[left].off, len, st->sy[left].len };
	}
	return 0;
}

/* Splits an UNUSED piece back into the pieces that made it (resegment). */
static int resegment(struct bpe_state *st, size_t off, size_t len, struct seg *g, int depth)
{
	int id = spm_piece_id(st->s, st->t + off, len);
	int k = -1;
	if (st->s->type[id] == SPM_UNUSED && depth < 1000)
		for (k = st->nun - 1; k >= 0; k--)
			if (st->un[k].len == len && !memcmp(st->t + st->un[k].off, st->t + off, len))
				break;
	if (k < 0)
		return seg_push(g, off, len, id);
	size_t l = st->un[k].left;
	return resegment(st, off, l, g, depth + 1) ||
	       resegment(st, off + l, len - l, g, depth + 1);
}

static int bpe_run(struct bpe_state *st, size_t size, struct seg *g)
{
	int n = 0;
	for (size_t i = 0; i < size; n++) {
		size_t l = spm_user_prefix(st->s, st->t + i, size - i);
		int fr = l > 0;
		if (!l)
			l = spm_char_len(st->t + i, size - i);
		st->sy[n] = (struct sym){ i, l, n - 1, i + l < size ? n + 1 : -1, fr };
		i += l;
	}
	for (int i = 1; i < n; i++)
		if (maybe_pair(st, i - 1, i))
			return -1;
	while (st->ag.n) {
		struct pair top = agenda_pop(&st->ag);
		struct sym *L = &st->sy[top.left], *R = &st->sy[top.right];
		if (!L->len || !R->len || L->len + R->len != top.size)
			continue;
		L->len += R->len;
		L->next = R->next;
		if (R->next >= 0)
			st->sy[R->next].prev = top.left;
		R->len = 0;
		if (maybe_pair(st, L->prev, top.left) || maybe_pair(st, top.left, L->next))
			return -1;
	}
	for (int i = n ? 0 : -1; i != -1; i = st->sy[i].next)
		if (resegment(st, st->sy[i].off, st->sy[i].len, g, 0))
			return -1;
	return 0;
}

static int bpe(const struct spm *s, const char *t, size_t size, struct seg *g)
{
	struct bpe_state st = { s, t, malloc((size + 1) * sizeof *st.sy), { 0 }, NULL, 0, 0 };
	int rc = st.sy ? bpe_run(&st, size, g) : -1;
	free(st.sy);
	free(st.ag.h);
	free(st.un);
	return rc;
}

/* ---- word and char ---- */

/* Words begin at each "▁" (the library's word model splits so whether or
 * not the model treats white space as a suffix). */
static int word_model(const struct spm *s, const char *t, size_t size, struct seg *g)
{
	size_t start = 0;
	for (size_t i = 0; i < size;) {
		size_t l = spm_char_len(t + i, size - i);
		if (l == 3 && !memcmp(t + i, SPM_SPACE, 3) && i > start) {
			if (seg_push(g, start, i - start, spm_piece_id(s, t + start, i - start)))
				return -1;
			start = i;
		}
		i += l;
	}
	if (start < size)
		return seg_push(g, start, size - start, spm_piece_id(s, t + start, size - start));
	return 0;
}

static int char_model(const struct spm *s, const char *t, size_t size, struct seg *g)
{
	for (size_t i = 0; i < size;) {
		size_t l = spm_user_prefix(s, t + i, size - i);
		if (!l)
			l = spm_char_len(t + i, size - i);
		if (seg_push(g, i, l, spm_piece_id(s, t + i, l)))
			return -1;
		i += l;
	}
	return 0;
}

/* ---- the whole encoder ---- */

/* The processor's last step (PopulateSentencePieceText): with
 * byte_fallback, an unknown piece becomes its bytes' pieces; without, a run
 * of unknown pieces becomes one. */
static int finish(const struct spm *s, const char *t, const struct seg *in, struct seg *out)
{
	for (int i = 0; i < in->n; i++) {
		int unk = in->id[i] == s->unk_id;
		if (unk && s->byte_fallback) {
			for (size_t k = 0; k < in->len[i]; k++) {
				int id = s->byte_id[(unsigned char)t[in->off[i] + k]];
				if (seg_push(out, in->off[i] + k, 1, id >= 0 ? id : s->unk_id))
					return -1;
			}
		} else if (unk && i > 0 && in->id[i - 1] == s->unk_id) {
			out->len[out->n - 1] += in->len[i];
		} else if (seg_push(out, in->off[i], in->len[i], in->id[i])) {
			return -1;
		}
	}
	return 0;
}

int spm_encode_pieces(const struct spm *s, const char *text, size_t len,
		      int32_t **ids, const char ***pieces, int *n, int *invalid,
		      struct err *e)
{
	char *t = NULL;
	size_t size;
	struct seg g = { 0 }, f = { 0 };
	*ids = NULL;
	if (pieces)
		*pieces = NULL;
	*n = 0;
	if (len > (size_t)1 << 30)
		return err_set(e, "the text is longer than 1 GB");
	if (spm_normalize(s, text, len, &t, &size, invalid))
		return err_set(e, "out of memory");
	int rc = s->model == SPM_UNIGRAM ? unigram(s, t, size, &g) :
		 s->model == SPM_BPE ? bpe(s, t, size, &g) :
		 s->model == SPM_WORD ? word_model(s, t, size, &g) : char_model(s, t, size, &g);
	if (!rc)
		rc = finish(s, t, &g, &f);
	if (!rc && f.n) {
		rc = !(*ids = malloc((size_t)f.n * sizeof **ids)) ||
		     (pieces && !(*pieces = malloc((size_t)f.n * sizeof **pieces)));
		for (int i = 0; !rc && i < f.n; i++) {
			(*ids)[i] = f.id[i];
			if (pieces)
				(*pieces)[i] = s->piece[f.id[i]];
		}
		*n = rc ? 0 : f.n;
	}
	seg_free(&g);
	seg_free(&f);
	free(t);
	if (rc) {
		free(*ids);
		*ids = NULL;
		if (pieces) {
			free(*pieces);
			*pieces = NULL;
		}
		return err_set(e, "out of memory");
	}
	return 0;
}

int spm_encode(const struct spm *s, const char *text, size_t len, int32_t **ids,
	       int *n, int *invalid, struct err *e)
{
	return spm_encode_pieces(s, text, len, ids, NULL, n, invalid, e);
}
