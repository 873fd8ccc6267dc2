/* bpe.c - byte-pair encoding: learning merges, applying them (bpe.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bpe.h"
#include "vocab.h"
#include "base/safefile.h"
#include "base/utf8.h"

#define WORD_MAX_BYTES 256
#define LINE_MAX_BYTES (2 * (WORD_MAX_BYTES + 8) + 8)

static int add_merge(struct bpe *b, const char *l, const char *r, int *cap)
{
	if (b->n == *cap) {
		int nc = *cap ? *cap * 2 : 256;
		char **nl = realloc(b->left, (size_t)nc * sizeof *nl);
		if (!nl)
			return -1;
		b->left = nl;
		char **nr = realloc(b->right, (size_t)nc * sizeof *nr);
		if (!nr)
			return -1;
		b->right = nr;
		*cap = nc;
	}
	b->left[b->n] = strdup(l);
	b->right[b->n] = strdup(r);
	b->n++;
	return b->left[b->n - 1] && b->right[b->n - 1] ? 0 : -1;
}

/* "l r" into buf[LINE_MAX_BYTES]. */
static const char *pair_key(char *buf, const char *l, const char *r)
{
	size_t ll = strlen(l), rl = strlen(r);
	if (ll + rl + 2 > LINE_MAX_BYTES)     /* (symbols are shorter) */
		ll = rl = 0;
	memcpy(buf, l, ll);
	buf[ll] = ' ';
	memcpy(buf + ll + 1, r, rl + 1);
	return buf;
}

/* Remembers which merge first makes the symbol l + r. */
static int note_product(struct bpe *b, const char *l, const char *r, int rank)
{
	char key[LINE_MAX_BYTES];
	size_t ll = strlen(l), rl = strlen(r);
	if (ll + rl + 1 > sizeof key)
		return 0;
	memcpy(key, l, ll);
	memcpy(key + ll, r, rl + 1);
	int added;
	return strtab_put(&b->product, key, rank, &added, NULL) ? 0 : -1;
}

int bpe_load(struct bpe *b, const char *path, struct err *e)
{
	memset(b, 0, sizeof *b);
	if (strtab_init(&b->rank) || strtab_init(&b->product)) {
		bpe_free(b);
		return err_set(e, "%s: out of memory", path);
	}
	FILE *fp = safefile_fopen_read(path, e);   /* not a FIFO or a device */
	if (!fp)
		goto fail;
	char line[LINE_MAX_BYTES], key[LINE_MAX_BYTES];
	int lineno = 0, cap = 0;
	for (;;) {
		int n = 0, c;
		while ((c = getc(fp)) != EOF && c != '\n') {
			if (c == 0) {
				err_set(e, "%s:%d: NUL byte", path, lineno + 1);
				goto fail;
			}
			if (n == LINE_MAX_BYTES - 1) {
				err_set(e, "%s:%d: line longer than %d bytes", path,
					lineno + 1, LINE_MAX_BYTES - 1);
				goto fail;
			}
			line[n++] = (char)c;
		}
		if (c == EOF && n == 0)
			break;
		lineno++;
		while (n > 0 && line[n - 1] == '\r')
			n--;
		line[n] = 0;
		if (lineno == 1 && strncmp(line, "#version", 8) == 0)
			continue;
		char *sp = strchr(line, ' ');
		if (!sp || sp == line || !sp[1] || strchr(sp + 1, ' ')) {
			err_set(e, "%s:%d: a merge is two symbols separated by one space, "
				"found \"%.40s\"", path, lineno, line);
			goto fail;
		}
		*sp = 0;
		if (b->n >= BPE_MAX_MERGES) {
			err_set(e, "%s: more than %d merges (the limit)", path, BPE_MAX_MERGES);
			goto fail;
		}
		int added;
		if (!strtab_put(&b->rank, pair_key(key, line, sp + 1), b->n, &added, NULL) ||
		    add_merge(b, line, sp + 1, &cap)) {
			err_set(e, "%s: out of memory", path);
			goto fail;
		}
		if (!added) {
			err_set(e, "%s:%d: the merge \"%s %s\" appears twice", path, lineno,
				line, sp + 1);
			goto fail;
		}
		if (note_product(b, line, sp + 1, b->n - 1)) {
			err_set(e, "%s: out of memory", path);
			goto fail;
		}
	}
	if (ferror(fp)) {
		err_set(e, "%s: read error", path);
		goto fail;
	}
	fclose(fp);
	return 0;
fail:
	if (fp)
		fclose(fp);
	bpe_free(b);
	return -1;
}

void bpe_free(struct bpe *b)
{
	for (int i = 0; i < b->n; i++) {
		free(b->left[i]);
		free(b->right[i]);
	}
	free(b->left);
	free(b->right);
	strtab_free(&b->rank);
	strtab_free(&b->product);
	memset(b, 0, sizeof *b);
}

int bpe_is_cont(const char *piece)
{
	size_t n = strlen(piece);
	return n > 2 && strcmp(piece + n - 2, BPE_CONT) == 0;
}

/* Splits word into its code points, the last with "</w>": sym[k] points
 * into buf, which must hold 2 * strlen(word) + 8 bytes.  Returns k. */
static int initial_symbols(const char *word, char *buf, char **sym)
{
	const unsigned char *s = (const unsigned char *)word;
	size_t n = strlen(word), i = 0;
	int k = 0;
	char *p = buf;
	while (i < n) {
		uint32_t cp;
		int len = utf8_decode(s + i, n - i, &cp);
		sym[k++] = p;
		memcpy(p, s + i, (size_t)len);
		p += len;
		if (i + (size_t)len == n) {
			memcpy(p, BPE_EOW, sizeof BPE_EOW - 1);
			p += sizeof BPE_EOW - 1;
		}
		*p++ = 0;
		i += (size_t)len;
	}
	return k;
}

struct toklist {
	char **t;
	int n, cap;
};

/* Appends symbol sym (internal form: "</w>" on a word's last) as a piece
 * ("@@" on all but the last); when v lacks the piece and a merge made sym,
 * the two symbols that merge joined instead, recursively. */
static int emit_piece(const struct bpe *b, const struct vocab *v, const char *sym,
		      int depth, struct toklist *l)
{
	size_t sl = strlen(sym);
	const size_t el = sizeof BPE_EOW - 1;
	int last = sl >= el && strcmp(sym + sl - el, BPE_EOW) == 0;
	size_t core = last ? sl - el : sl;
	char piece[WORD_MAX_BYTES + 8];
	memcpy(piece, sym, core);
	if (last)
		piece[core] = 0;
	else
		memcpy(piece + core, BPE_CONT, 3);
	const int *r;
	if (v && vocab_id(v, piece) < 0 && depth < WORD_MAX_BYTES &&
	    (r = strtab_get(&b->product, sym))) {
		return emit_piece(b, v, b->left[*r], depth + 1, l) ||
		       emit_piece(b, v, b->right[*r], depth + 1, l) ? -1 : 0;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		char **nt = realloc(l->t, (size_t)cap * sizeof *nt);
		if (!nt)
			return -1;
		l->t = nt;
		l->cap = cap;
	}
	if (!(l->t[l->n] = strdup(piece)))
		return -1;
	l->n++;
	return 0;
}

/* Symbol i of a word is word[at[i] .. at[i+1]) (the last one with "</w>"):
 * symbols are always contiguous, so merging removes a boundary. */
static void sym_text(char *out, const char *word, const int *at, int i, int n)
{
	size_t l = (size_t)(at[i + 1] - at[i]);
	memcpy(out, word + at[i], l);
	if (i == n - 1) {
		memcpy(out + l, BPE_EOW, sizeof BPE_EOW - 1);
		l += sizeof BPE_EOW - 1;
	}
	out[l] = 0;
}

int bpe_apply(const struct bpe *b, const struct vocab *v, const char *word,
	      char ***out, struct err *e)
{
	size_t wl = strlen(word);
	if (wl == 0 || wl > WORD_MAX_BYTES)
		return err_set(e, "a word for BPE must have 1 to %d bytes", WORD_MAX_BYTES);
	int at[WORD_MAX_BYTES + 2];
	int n = 0;
	const unsigned char *s = (const unsigned char *)word;
	for (size_t i = 0; i < wl;) {
		uint32_t cp;
		at[n++] = (int)i;
		i += (size_t)utf8_decode(s + i, wl - i, &cp);
	}
	at[n] = (int)wl;
	char key[LINE_MAX_BYTES], l[WORD_MAX_BYTES + 8], r[WORD_MAX_BYTES + 8];
	for (;;) {
		int best = -1;
		for (int i = 0; i + 1 < n; i++) {
			sym_text(l, word, at, i, n);
			sym_text(r, word, at, i + 1, n);
			int *rk = strtab_get(&b->rank, pair_key(key, l, r));
			if (rk && (best < 0 || *rk < best))
				best = *rk;
		}
		if (best < 0)
			break;
		/* merge every occurrence of that pair, left to right */
		int k = 0;
		for (int i = 0; i < n; i++) {
			at[k++] = at[i];
			if (i + 1 < n) {
				sym_text(l, word, at, i, n);
				sym_text(r, word, at, i + 1, n);
				if (strcmp(l, b->left[best]) == 0 && strcmp(r, b->right[best]) == 0)
					i++;
			}
		}
		at[k] = (int)wl;
		n = k;
	}
	/* the pieces, split back where the vocabulary lacks them */
	struct toklist l2 = { 0 };
	for (int i = 0; i < n; i++) {
		sym_text(l, word, at, i, n);
		if (emit_piece(b, v, l, 0, &l2)) {
			tokens_free(l2.t, l2.n);
			return err_set(e, "out of memory");
		}
	}
	*out = l2.t;
	return l2.n;
}

/* ---- word counts ---- */

int bpe_counts_init(struct bpe_counts *c)
{
	memset(c, 0, sizeof *c);
	return strtab_init(&c->index);
}

int bpe_counts_add(struct bpe_counts *c, const char *word, long count,
		   struct err *e)
{
	size_t wl = strlen(word);
	if (wl == 0 || wl > WORD_MAX_BYTES)
		return err_set(e, "a word for BPE must have 1 to %d bytes", WORD_MAX_BYTES);
	int added;
	int *pos = strtab_put(&c->index, word, c->n, &added, NULL);
	if (!pos)
		return err_set(e, "out of memory");
	if (!added) {
		c->count[*pos] += count;
		return 0;
	}
	if (c->n == c->cap) {
		int nc = c->cap ? c->cap * 2 : 1024;
		char **nw = realloc(c->word, (size_t)nc * sizeof *nw);
		if (!nw)
			return err_set(e, "out of memory");
		c->word = nw;
		long *ncnt = realloc(c->count, (size_t)nc * sizeof *ncnt);
		if (!ncnt)
			return err_set(e, "out of memory");
		c->count = ncnt;
		c->cap = nc;
	}
	if (!(c->word[c->n] = strdup(word)))
		return err_set(e, "out of memory");
	c->count[c->n++] = count;
	return 0;
}

void bpe_counts_free(struct bpe_counts *c)
{
	tokens_free(c->word, c->n);
	free(c->count);
	strtab_free(&c->index);
	memset(c, 0, sizeof *c);
}

/* ---- learning ----
 * Symbols are interned as ids (symtab); a word is an array of ids.  Pair
 * counts are recounted from scratch at every step (a hash of id pairs):
 * simple and plainly right, and fast enough for corpora of some thousand
 * distinct words and merges (a few seconds). */

struct lword {
	int *s;                   /* [n] symbol ids */
	int n;
	long count;
};

struct pairtab {
	uint64_t *key;            /* (a << 32 | b) + 1; 0 = empty */
	long *count;
	size_t cap, n;
};

static int pairtab_add(struct pairtab *t, uint32_t a, uint32_t b, long cnt)
{
	if (t->n * 2 >= t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		uint64_t *nk = calloc(nc, sizeof *nk);
		long *ncnt = calloc(nc, sizeof *ncnt);
		if (!nk || !ncnt) {
			free(nk);
			free(ncnt);
			return -1;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->key[i])
				continue;
			size_t j = (size_t)((t->key[i] * 0x9E3779B97F4A7C15ull) >> 20) & (nc - 1);
			while (nk[j])
				j = (j + 1) & (nc - 1);
			nk[j] = t->key[i];
			ncnt[j] = t->count[i];
		}
		free(t->key);
		free(t->count);
		t->key = nk;
		t->count = ncnt;
		t->cap = nc;
	}
	uint64_t k = ((uint64_t)a << 32 | b) + 1;
	size_t j = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
	while (t->key[j] && t->key[j] != k)
		j = (j + 1) & (t->cap - 1);
	if (!t->key[j]) {
		t->key[j] = k;
		t->n++;
	}
	t->count[j] += cnt;
	return 0;
}

static void pairtab_clear(struct pairtab *t)
{
	if (t->cap) {
		memset(t->key, 0, t->cap * sizeof *t->key);
		memset(t->count, 0, t->cap * sizeof *t->count);
	}
	t->n = 0;
}

struct symtab {
	struct strtab index;
	char **str;
	int n, cap;
};

static int sym_intern(struct symtab *st, const char *s)
{
	int added;
	int *id = strtab_put(&st->index, s, st->n, &added, NULL);
	if (!id)
		return -1;
	if (!added)
		return *id;
	if (st->n == st->cap) {
		int nc = st->cap ? st->cap * 2 : 1024;
		char **ns = realloc(st->str, (size_t)nc * sizeof *ns);
		if (!ns)
			return -1;
		st->str = ns;
		st->cap = nc;
	}
	if (!(st->str[st->n] = strdup(s)))
		return -1;
	return st->n++;
}

int bpe_learn(const struct bpe_counts *c, int nmerges, long min_count,
	      struct bpe *b, struct err *e)
{
	memset(b, 0, sizeof *b);
	struct symtab st = { 0 };
	struct pairtab pt = { 0 };
	struct lword *w = calloc((size_t)(c->n ? c->n : 1), sizeof *w);
	int rc = -1, cap = 0;
	char key[LINE_MAX_BYTES];
	if (!w || strtab_init(&st.index) || strtab_init(&b->rank) ||
	    strtab_init(&b->product))
		goto oom;
	for (int i = 0; i < c->n; i++) {
		char buf[2 * WORD_MAX_BYTES + 16];
		char *sym[WORD_MAX_BYTES + 1];
		int n = initial_symbols(c->word[i], buf, sym);
		if (!(w[i].s = malloc((size_t)n * sizeof *w[i].s)))
			goto oom;
		for (int k = 0; k < n; k++)
			if ((w[i].s[k] = sym_intern(&st, sym[k])) < 0)
				goto oom;
		w[i].n = n;
		w[i].count = c->count[i];
	}
	while (b->n < nmerges) {
		pairtab_clear(&pt);
		for (int i = 0; i < c->n; i++)
			for (int k = 0; k + 1 < w[i].n; k++)
				if (pairtab_add(&pt, (uint32_t)w[i].s[k], (uint32_t)w[i].s[k + 1],
						w[i].count))
					goto oom;
		/* the most frequent pair; ties in byte order of left, right */
		long bc = 0;
		int ba = -1, bb = -1;
		for (size_t j = 0; j < pt.cap; j++) {
			if (!pt.key[j])
				continue;
			int a = (int)((pt.key[j] - 1) >> 32), bs = (int)((pt.key[j] - 1) & 0xffffffffu);
			long cnt = pt.count[j];
			int better = cnt > bc;
			if (!better && cnt == bc && ba >= 0) {
				int d = strcmp(st.str[a], st.str[ba]);
				better = d < 0 || (d == 0 && strcmp(st.str[bs], st.str[bb]) < 0);
			}
			if (better) {
				bc = cnt;
				ba = a;
				bb = bs;
			}
		}
		if (ba < 0 || bc < min_count)
			break;
		const char *ls = st.str[ba], *rs = st.str[bb];
		size_t ll = strlen(ls), rl = strlen(rs);
		char *joined = malloc(ll + rl + 1);
		if (!joined)
			goto oom;
		memcpy(joined, ls, ll);
		memcpy(joined + ll, rs, rl + 1);
		int nid = sym_intern(&st, joined);
		free(joined);
		int added;
		if (nid < 0 || add_merge(b, st.str[ba], st.str[bb], &cap) ||
		    !strtab_put(&b->rank, pair_key(key, st.str[ba], st.str[bb]), b->n - 1,
				&added, NULL) ||
		    note_product(b, st.str[ba], st.str[bb], b->n - 1))
			goto oom;
		for (int i = 0; i < c->n; i++) {
			int k = 0;
			for (int j = 0; j < w[i].n; j++) {
				if (j + 1 < w[i].n && w[i].s[j] == ba && w[i].s[j + 1] == bb) {
					w[i].s[k++] = nid;
					j++;
				} else {
					w[i].s[k++] = w[i].s[j];
				}
			}
			w[i].n = k;
		}
	}
	rc = 0;
	goto out;
oom:
	err_set(e, "out of memory while learning BPE merges");
	bpe_free(b);
out:
	for (int i = 0; w && i < c->n; i++)
		free(w[i].s);
	free(w);
	tokens_free(st.str, st.n);
	strtab_free(&st.index);
	free(pt.key);
	free(pt.count);
	return rc;
}

int bpe_write(const struct bpe *b, const char *path, struct err *e)
{
	struct safefile sf;
	if (safefile_open(&sf, path, 0, e))
		return -1;
	fputc('#', sf.fp);          /* subword-nmt's first line, "#version: 0.2" */
	fputs("version: 0.2\n", sf.fp);
	for (int i = 0; i < b->n; i++)
		fprintf(sf.fp, "%s %s\n", b->left[i], b->right[i]);
	return safefile_commit(&sf, e);
}
