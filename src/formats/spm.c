/* spm.c - a SentencePiece tokenizer built from its pieces (spm_new), the
 * lookups the encoder shares (spm_int.h), and decoding. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spm_int.h"
#include "vocab.h"
#include "base/strbuf.h"
#include "base/i18n.h"
#include "base/utf8.h"

static const char UNK_SURFACE[] = " \xe2\x81\x87 ";   /* " ⁇ " */

/* ---- the piece table ---- */

static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = SPM_FNV_OFFSET;
	for (size_t i = 0; i < len; i++)
		h = spm_hash_step(h, (unsigned char)p[i]);
	return h;
}

/* The slot for p[0..len) (found or empty). */
static struct spm_entry *slot(struct spm_priv *v, uint64_t h, const char *p, size_t len)
{
	for (size_t i = (size_t)h & v->mask;; i = (i + 1) & v->mask) {
		struct spm_entry *t = &v->tab[i];
		if (!t->s || (t->h == h && t->len == len && !memcmp(t->s, p, len)))
			return t;
	}
}

static int reserved_type(int t)
{
	return t == SPM_CONTROL || t == SPM_UNKNOWN || t == SPM_BYTE;
}

const struct spm_entry *spm_find(const struct spm *s, uint64_t h, const char *p,
				 size_t len)
{
	const struct spm_priv *v = s->priv;
	for (size_t i = (size_t)h & v->mask;; i = (i + 1) & v->mask) {
		const struct spm_entry *t = &v->tab[i];
		if (!t->s)
			return NULL;
		if (t->h == h && t->len == len && !memcmp(t->s, p, len))
			return t;
	}
}

/* The fingerprint of a hash in the prefix set: its high half, never 0. */
static uint32_t fingerprint(uint64_t h)
{
	return (uint32_t)(h >> 32) | 1u;
}

int spm_prefix(const struct spm *s, uint64_t h)
{
	const struct spm_priv *v = s->priv;
	uint32_t f = fingerprint(h);
	for (size_t i = (size_t)h & v->pmask; v->pfx[i]; i = (i + 1) & v->pmask)
		if (v->pfx[i] == f)
			return 1;
	return 0;
}

/* The table of whole pieces doubled (entries keep their hashes), or NULL. */
static struct spm_entry *grow(struct spm_entry *old, size_t n)
{
	struct spm_entry *nt = calloc(2 * n, sizeof *nt);
	if (!nt)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!old[i].s)
			continue;
		size_t k = (size_t)old[i].h & (2 * n - 1);
		while (nt[k].s)
			k = (k + 1) & (2 * n - 1);
		nt[k] = old[i];
	}
	free(old);
	return nt;
}

/* Adds h's fingerprint to the prefix set (room is there). */
static void prefix_put(struct spm_priv *v, uint64_t h)
{
	uint32_t f = fingerprint(h);
	size_t i = (size_t)h & v->pmask;
	for (; v->pfx[i]; i = (i + 1) & v->pmask)
		if (v->pfx[i] == f)
			return;
	v->pfx[i] = f;
	v->pused++;
}

/* Puts every prefix of piece id into the prefix set. */
static void prefixes_of(struct spm *s, int id)
{
	uint64_t h = SPM_FNV_OFFSET;
	for (const char *p = s->piece[id]; *p; p++) {
		h = spm_hash_step(h, (unsigned char)*p);
		prefix_put(s->priv, h);
	}
}

/* Adds h's fingerprint (of a prefix of piece id) to the prefix set, which
 * grows to stay at most half full: a fingerprint does not say its slot, so
 * a grown set is refilled from pieces 0 … id.  Returns 0, or -1 (out of
 * memory). */
static int prefix_add(struct spm *s, uint64_t h, int id)
{
	struct spm_priv *v = s->priv;
	if (2 * (v->pused + 1) > v->pmask + 1) {
		size_t need = v->pused + strlen(s->piece[id]) + 1, cap = v->pmask + 1;
		while (cap < 2 * need)
			cap *= 2;
		uint32_t *nt = calloc(cap, sizeof *nt);
		if (!nt)
			return -1;
		free(v->pfx);
		v->pfx = nt;
		v->pmask = cap - 1;
		v->pused = 0;
		for (int i = 0; i <= id; i++)
			if (!reserved_type(s->type[i]))
				prefixes_of(s, i);
	}
	prefix_put(v, h);
	return 0;
}

/* Puts piece id into the table of whole pieces (growing it to stay at
 * most half full) and, for a normal piece, its prefixes into the prefix
 * set.  Returns 0, -1 when the map already has the piece, -2 when out of
 * memory. */
static int table_add(struct spm *s, int id)
{
	struct spm_priv *v = s->priv;
	const char *p = s->piece[id];
	size_t len = strlen(p);
	int normal = !reserved_type(s->type[id]);
	uint64_t h = SPM_FNV_OFFSET;
	for (size_t k = 1; k <= len; k++) {
		h = spm_hash_step(h, (unsigned char)p[k - 1]);
		if (normal && prefix_add(s, h, id))
			return -2;
	}
	struct spm_entry *t = slot(v, h, p, len);
	if (!t->s && 2 * (v->used + 1) > v->mask + 1) {
		struct spm_entry *nt = grow(v->tab, v->mask + 1);
		if (!nt)
			return -2;
		v->tab = nt;
		v->mask = 2 * v->mask + 1;
		t = slot(v, h, p, len);
	}
	if (!t->s) {
		*t = (struct spm_entry){ h, p, (uint32_t)len, -1, -1 };
		v->used++;
	}
	int32_t *dst = normal ? &t->normal : &t->reserved;
	if (*dst >= 0)
		return -1;
	*dst = id;
	return 0;
}

static int table_build(struct spm *s, const char *what, struct err *e)
{
	struct spm_priv *v = s->priv;
	size_t want = 16;
	while (want < 2 * (size_t)s->n)
		want *= 2;
	if (!(v->tab = calloc(want, sizeof *v->tab)) || !(v->pfx = calloc(want, sizeof *v->pfx)))
		return err_set(e, "%s: out of memory", what);
	v->mask = v->pmask = want - 1;
	for (int i = 0; i < s->n; i++) {
		int rc = table_add(s, i);
		if (rc == -2)
			return err_set(e, "%s: out of memory", what);
		if (rc)
			return err_set(e, "%s: the piece \"%.60s\" (id %d) is defined twice", what,
				       s->piece[i], i);
	}
	return 0;
}

int spm_piece_id(const struct spm *s, const char *p, size_t len)
{
	const struct spm_entry *t = spm_find(s, hash_bytes(p, len), p, len);
	if (t && t->reserved >= 0)
		return t->reserved;
	if (t && t->normal >= 0)
		return t->normal;
	return s->unk_id;
}

int spm_id(const struct spm *s, const char *piece)
{
	size_t len = strlen(piece);
	const struct spm_entry *t = spm_find(s, hash_bytes(piece, len), piece, len);
	return !t ? -1 : t->reserved >= 0 ? t->reserved : t->normal;
}

const char *spm_piece(const struct spm *s, int id)
{
	return id >= 0 && id < s->n ? s->piece[id] : NULL;
}

int spm_n(const struct spm *s)
{
	return s->n;
}

size_t spm_user_prefix(const struct spm *s, const char *text, size_t len)
{
	if (!s->priv->has_user)
		return 0;
	uint64_t h = SPM_FNV_OFFSET;
	size_t best = 0;
	for (size_t k = 1; k <= len; k++) {
		h = spm_hash_step(h, (unsigned char)text[k - 1]);
		if (!spm_prefix(s, h))
			break;
		const struct spm_entry *t = spm_find(s, h, text, k);
		if (t && t->normal >= 0 && s->type[t->normal] == SPM_USER_DEFINED)
			best = k;
	}
	return best;
}

size_t spm_char_len(const char *text, size_t len)
{
	static const unsigned char l[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4 };
	size_t n = l[(unsigned char)text[0] >> 4];
	return n < len ? n : len;
}

/* ---- building ---- */

/* The byte of a byte piece "<0xAB>" (the library's spelling: two capital
 * hex digits), or -1. */
static int piece_byte(const char *p)
{
	static const char hex[] = "0123456789ABCDEF";
	if (strlen(p) != 6 || memcmp(p, "<0x", 3) || p[5] != '>')
		return -1;
	const char *a = strchr(hex, p[3]), *b = strchr(hex, p[4]);
	if (!p[3] || !p[4] || !a || !b)
		return -1;
	return (int)(a - hex) * 16 + (int)(b - hex);
}

/* Copies the spec's pieces into s and checks them as the library's
 * InitializePieces does. */
static int take_pieces(struct spm *s, const struct spm_spec *sp, const char *what,
		       struct err *e)
{
	s->unk_id = -1;
	memset(s->byte_id, -1, sizeof s->byte_id);
	s->priv->min_score = FLT_MAX;
	s->priv->max_score = FLT_MIN;
	for (int i = 0; i < sp->n; i++) {
		const char *p = sp->pieces[i];
		int t = sp->types ? sp->types[i] : SPM_NORMAL;
		if (!p || !p[0])
			return err_set(e, "%s: piece %d is empty", what, i);
		if (strlen(p) > SPM_MAX_PIECE_BYTES)
			return err_set(e, "%s: piece %d is longer than %d bytes", what, i,
				       SPM_MAX_PIECE_BYTES);
		if (t < SPM_NORMAL || t > SPM_BYTE)
			return err_set(e, "%s: piece %d (\"%.60s\") has type %d (expected 1 … 6)",
				       what, i, p, t);
		if (!(s->piece[i] = strdup(p)))
			return err_set(e, "%s: out of memory", what);
		s->score[i] = sp->scores ? sp->scores[i] : 0.0f;
		s->type[i] = (uint8_t)t;
		if (t == SPM_NORMAL) {
			if (s->score[i] < s->priv->min_score)
				s->priv->min_score = s->score[i];
			if (s->score[i] > s->priv->max_score)
				s->priv->max_score = s->score[i];
		}
		s->priv->has_user |= t == SPM_USER_DEFINED;
		if (t == SPM_UNKNOWN) {
			if (s->unk_id >= 0)
				return err_set(e, "%s: two unknown pieces (ids %d and %d)", what,
					       s->unk_id, i);
			s->unk_id = i;
		}
		if (t == SPM_BYTE) {
			int b = piece_byte(p);
			if (!sp->byte_fallback)
				return err_set(e, "%s: byte piece %.60s (id %d) in a model without "
					       "byte_fallback", what, p, i);
			if (b < 0)
				return err_set(e, "%s: byte piece \"%.60s\" (id %d) is not <0x00> … "
					       "<0xFF>", what, p, i);
			s->byte_id[b] = i;
		}
	}
	if (s->unk_id < 0)
		return err_set(e, "%s: no piece has the unknown type (the model needs its <unk>)",
			       what);
	return 0;
}

static int special_id(const struct spm *s, int id, const char *role, const char *what,
		      struct err *e)
{
	if (id >= s->n || id < -1)
		return err_set(e, "%s: %s %d is out of range (%d pieces)", what, role, id, s->n);
	return 0;
}

struct spm *spm_new(const struct spm_spec *sp, const char *what, struct err *e)
{
	if (sp->n < 1 || sp->n > SPM_MAX_PIECES || !sp->pieces) {
		err_set(e, "%s: %d pieces (expected 1 … %d)", what, sp->n, SPM_MAX_PIECES);
		return NULL;
	}
	if (sp->model < SPM_UNIGRAM || sp->model > SPM_CHAR) {
		err_set(e, "%s: model type %d (expected 1 unigram, 2 bpe, 3 word or 4 char)", what,
			(int)sp->model);
		return NULL;
	}
	struct spm *s = calloc(1, sizeof *s);
	const char *why = NULL;
	if (!s || !(s->priv = calloc(1, sizeof *s->priv)) ||
	    !(s->piece = calloc((size_t)sp->n, sizeof *s->piece)) ||
	    !(s->score = calloc((size_t)sp->n, sizeof *s->score)) ||
	    !(s->type = calloc((size_t)sp->n, sizeof *s->type)) ||
	    !(s->norm_name = strdup("")) ||
	    !(s->unk_surface = strdup(sp->unk_surface ? sp->unk_surface : UNK_SURFACE))) {
		err_set(e, "%s: out of memory", what);
		goto fail;
	}
	s->n = sp->n;             /* (the arrays have n slots, NULL until copied) */
	s->model = sp->model;
	s->byte_fallback = !!sp->byte_fallback;
	s->add_dummy_prefix = !!sp->add_dummy_prefix;
	s->remove_extra_whitespaces = !!sp->remove_extra_whitespaces;
	s->escape_whitespaces = !!sp->escape_whitespaces;
	s->treat_whitespace_as_suffix = !!sp->treat_whitespace_as_suffix;
	if (take_pieces(s, sp, what, e) || table_build(s, what, e) ||
	    special_id(s, sp->bos_id, "bos_id", what, e) ||
	    special_id(s, sp->eos_id, "eos_id", what, e) ||
	    special_id(s, sp->pad_id, "pad_id", what, e))
		goto fail;
	s->bos_id = sp->bos_id;
	s->eos_id = sp->eos_id;
	s->pad_id = sp->pad_id;
	if (sp->charsmap && sp->charsmap_len && spm_charsmap_init(s, sp->charsmap,
								   sp->charsmap_len, &why)) {
		err_set(e, "%s: precompiled_charsmap: %s", what, _(why));
		goto fail;
	}
	return s;
fail:
	spm_free(s);
	return NULL;
}

void spm_free(struct spm *s)
{
	if (!s)
		return;
	for (int i = 0; s->piece && i < s->n; i++)
		free(s->piece[i]);
	free(s->piece);
	free(s->score);
	free(s->type);
	free(s->norm_name);
	free(s->unk_surface);
	if (s->priv) {
		free(s->priv->tab);
		free(s->priv->pfx);
		charsmap_free(&s->priv->cm);
		free(s->priv);
	}
	free(s);
}

/* ---- decoding ---- */


/* Bytes as text: each invalid byte as U+FFFD (ProcessBytePieces). */
static int put_bytes(struct strbuf *o, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int l = utf8_decode(b + i, n - i, &cp);
		if (strbuf_put(o, cp == 0xFFFD && l == 1 ? "\xef\xbf\xbd" : (const char *)b + i,
			cp == 0xFFFD && l == 1 ? 3 : (size_t)l))
			return -1;
		i += (size_t)l;
	}
	return 0;
}

/* A piece's text, "▁" as a space; with strip, a leading "▁" is dropped
 * (returns 1 when it was there). */
static int put_piece(struct strbuf *o, const char *p, int strip, int *oom)
{
	size_t sl = sizeof SPM_SPACE - 1;
	int had = strip && !strncmp(p, SPM_SPACE, sl);
	if (had)
		p += sl;
	while (*p && !*oom) {
		if (!strncmp(p, SPM_SPACE, sl)) {
			*oom = strbuf_put(o, " ", 1);
			p += sl;
		} else {
			*oom = strbuf_put(o, p++, 1);
		}
	}
	return had;
}

char *spm_decode(const struct spm *s, const int32_t *ids, int n, size_t *len,
		 struct err *e)
{
	struct strbuf o = { 0 };
	unsigned char *bytes = malloc((size_t)n + 1);
	size_t nb = 0;
	/* the leading "▁" of the text is dropped (the dummy prefix): from the
	 * first piece that has one when nothing came before it; with
	 * remove_extra_whitespaces, from every piece until text comes */
	int strip = s->add_dummy_prefix || s->remove_extra_whitespaces;
	int bos = 1, seen = 0, oom = 0;
	if (!bytes || strbuf_put(&o, "", 0))
		goto oom;
	for (int i = 0; i < n; i++) {
		if (ids[i] < 0 || ids[i] >= s->n) {
			err_set(e, "id %d is out of range (%d pieces)", (int)ids[i], s->n);
			goto fail;
		}
		/* as the library: piece -> id again */
		int id = spm_id(s, s->piece[ids[i]]);
		int b = s->type[id] == SPM_BYTE ? piece_byte(s->piece[id]) : -1;
		if (b >= 0) {
			bytes[nb++] = (unsigned char)b;
			continue;
		}
		if (put_bytes(&o, bytes, nb))
			goto oom;
		nb = 0;
		if (seen || o.n)
			bos = 0;
		seen = 0;
		if (s->type[id] == SPM_CONTROL)
			continue;
		if (s->type[id] == SPM_UNKNOWN) {
			if (strbuf_put(&o, s->unk_surface, strlen(s->unk_surface)))
				goto oom;
			continue;
		}
		seen = put_piece(&o, s->piece[id], bos && strip, &oom) &&
		       !s->remove_extra_whitespaces;
		if (oom)
			goto oom;
	}
	if (put_bytes(&o, bytes, nb))
		goto oom;
	free(bytes);
	if (len)
		*len = o.n;
	return o.b;
oom:
	err_set(e, "out of memory");
fail:
	free(bytes);
	free(o.b);
	return NULL;
}

char *spm_text(char *const *pieces, int n, char *buf, size_t cap)
{
	struct strbuf o = { 0 };
	unsigned char bytes[256];
	size_t nb = 0;
	if (!cap)
		return buf;
	buf[0] = 0;
	if (strbuf_put(&o, "", 0))
		return buf;
	for (int i = 0; i < n; i++) {
		int b = piece_byte(pieces[i]);
		if (b >= 0) {
			if (nb == sizeof bytes) {     /* (a long run: in parts) */
				if (put_bytes(&o, bytes, nb))
					goto out;
				nb = 0;
			}
			bytes[nb++] = (unsigned char)b;
			continue;
		}
		int oom = 0;
		if (put_bytes(&o, bytes, nb))
			goto out;
		put_piece(&o, pieces[i], i == 0, &oom);
		if (oom)
			goto out;
		nb = 0;
	}
	put_bytes(&o, bytes, nb);
out:;
	/* cut at a code point boundary */
	size_t w = o.n < cap - 1 ? o.n : cap - 1;
	while (w > 0 && w < o.n && ((unsigned char)o.b[w] & 0xC0) == 0x80)
		w--;
	memcpy(buf, o.b, w);
	buf[w] = 0;
	free(o.b);
	return buf;
}

char *spm_label(const char *piece, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	int b = piece_byte(piece);
	if (b == '\n' || b == '\t' || b == ' ')
		snprintf(buf, cap, "%s", b == '\n' ? "\xe2\x86\xb5" : b == '\t' ? "\xe2\x87\xa5" :
			 "\xe2\x90\xa3");
	else if (b > ' ' && b < 0x7F)
		snprintf(buf, cap, "%c", b);
	if (b >= ' ' && b < 0x7F)
		return buf;
	if (b == '\n' || b == '\t')
		return buf;
	size_t o = 0;
	for (const char *p = piece; *p;) {
		size_t ul = spm_char_len(p, strlen(p));
		const char *u = p;   /* ▁ stays: the word start as the tokenizer writes it */
		if (o + ul + 1 > cap)
			break;
		memcpy(buf + o, u, ul);
		o += ul;
		p += ul;
	}
	buf[o] = 0;
	return buf;
}

int spm_remap_vocab(const struct spm *s, const struct vocab *v, int unk, int32_t **map,
		    struct err *e)
{
	if (!(*map = malloc((size_t)s->n * sizeof **map)))
		return err_set(e, "out of memory");
	for (int i = 0; i < s->n; i++) {
		int id = vocab_id(v, s->piece[i]);
		(*map)[i] = id >= 0 ? id : unk;
	}
	return 0;
}
