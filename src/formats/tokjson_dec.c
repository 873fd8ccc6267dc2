/* tokjson_dec.c - a tokenizer.json's decoder (Hugging Face's decoders'
 * decode_chain: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip)
 * and the pieces' labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokjson.h"
#include "tokjson_int.h"
#include "gpt2bpe.h"
#include "pretok.h"
#include "base/utf8.h"

/* <0xXX>: the byte, or -1 */
static int byte_piece(const char *s)
{
	unsigned v;
	char end;
	if (strlen(s) != 6 || strncmp(s, "<0x", 3) || s[5] != '>' ||
	    sscanf(s + 3, "%2x%c", &v, &end) != 2 || end != '>')
		return -1;
	return (int)v;
}

/* Whether every character of p is in GPT-2's byte map. */
static int all_bytes(const struct piece *p)
{
	int cl;
	for (size_t k = 0; k < p->len; k += (size_t)cl)
		if (pretok_cp_byte(tokjson_cp_at(p->s, p->len, k, &cl)) < 0)
			return 0;
	return 1;
}

/* Pushes b's text to out (and frees it); -1 when out of memory. */
static int push_sb(struct plist *out, struct sbuf *b)
{
	int rc = b->oom || tokjson_plist_push(out, b->s ? b->s : "", b->n, 0, -1);
	free(b->s);
	memset(b, 0, sizeof *b);
	return rc ? -1 : 0;
}

/* ByteLevel: every token's bytes (a token with a character outside the
 * map as it is), joined, invalid UTF-8 read as U+FFFD: one token. */
static int dec_bytelevel(const struct plist *l, struct plist *out)
{
	struct sbuf raw = { 0 }, o = { 0 };
	tokjson_sb_add(&raw, "", 0);
	for (int i = 0; i < l->n; i++) {
		const struct piece *p = &l->v[i];
		if (!all_bytes(p)) {
			tokjson_sb_add(&raw, p->s, p->len);
			continue;
		}
		int cl;
		for (size_t k = 0; k < p->len; k += (size_t)cl) {
			char c = (char)pretok_cp_byte(tokjson_cp_at(p->s, p->len, k, &cl));
			tokjson_sb_add(&raw, &c, 1);
		}
	}
	tokjson_sb_add(&o, "", 0);
	for (size_t k = 0; k < raw.n;) {
		uint32_t cp;
		int cl = utf8_decode((const unsigned char *)raw.s + k, raw.n - k, &cp);
		tokjson_sb_cp(&o, cp);
		k += (size_t)cl;
	}
	o.oom |= raw.oom;
	free(raw.s);
	return push_sb(out, &o);
}

/* ByteFallback: each run of <0xXX> tokens becomes one token of its bytes
 * when they are valid UTF-8, else a U+FFFD a byte. */
static int dec_bytefallback(const struct plist *l, struct plist *out)
{
	struct sbuf run = { 0 };
	int rc = 0;
	for (int i = 0; i <= l->n && !rc; i++) {
		int b = i < l->n ? byte_piece(l->v[i].s) : -1;
		if (b >= 0) {
			char c = (char)b;
			tokjson_sb_add(&run, &c, 1);
			continue;
		}
		if (run.n) {
			struct sbuf fb = { 0 };
			tokjson_sb_add(&fb, "", 0);
			if (utf8_valid(run.s) && strlen(run.s) == run.n)
				tokjson_sb_add(&fb, run.s, run.n);
			else
				for (size_t k = 0; k < run.n; k++)
					tokjson_sb_add(&fb, "\xef\xbf\xbd", 3);
			fb.oom |= run.oom;
			rc = push_sb(out, &fb);
			free(run.s);
			memset(&run, 0, sizeof run);
		}
		if (i < l->n && !rc)
			rc = tokjson_plist_push(out, l->v[i].s, l->v[i].len, 0, -1);
	}
	free(run.s);
	return rc;
}

/* Replace, Metaspace (the first token's replacements dropped when the
 * scheme prepends one) and Strip: token by token. */
static int dec_each(const struct tokjson_step *st, const struct plist *l, struct plist *out)
{
	int rc = 0;
	for (int i = 0; i < l->n && !rc; i++) {
		const struct piece *p = &l->v[i];
		struct sbuf o = { 0 };
		tokjson_sb_add(&o, "", 0);
		if (st->kind == TJ_DEC_STRIP) {
			size_t cl = strlen(st->a), f = 0, e = p->len;
			for (int k = 0; k < st->x && e - f >= cl && !memcmp(p->s + f, st->a, cl); k++)
				f += cl;
			for (int k = 0; k < st->y && e - f >= cl && !memcmp(p->s + e - cl, st->a, cl);
			     k++)
				e -= cl;
			tokjson_sb_add(&o, p->s + f, e - f);
		} else {
			const char *to = st->kind == TJ_DEC_REPLACE ? st->b :
					 i == 0 && st->x != TJ_PREPEND_NEVER ? "" : " ";
			tokjson_replace_all(&o, p->s, p->len, st->a, to);
		}
		rc = push_sb(out, &o);
	}
	return rc;
}

/* One decoder step over the tokens l (Hugging Face's decode_chain). */
static int dec_step(const struct tokjson_step *st, struct plist *l)
{
	struct plist out = { 0 };
	int rc;
	if (st->kind == TJ_DEC_BYTELEVEL) {
		rc = dec_bytelevel(l, &out);
	} else if (st->kind == TJ_DEC_BYTEFALLBACK) {
		rc = dec_bytefallback(l, &out);
	} else if (st->kind == TJ_DEC_FUSE) {
		struct sbuf o = { 0 };
		tokjson_sb_add(&o, "", 0);
		for (int i = 0; i < l->n; i++)
			tokjson_sb_add(&o, l->v[i].s, l->v[i].len);
		rc = push_sb(&out, &o);
	} else {
		rc = dec_each(st, l, &out);
	}
	tokjson_plist_free(l);
	*l = out;
	return rc;
}

char *tokjson_text(const struct tokjson *t, char *const *pieces, int n, char *buf,
		   size_t cap)
{
	struct plist l = { 0 };
	int rc = 0;
	if (!cap)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = tokjson_plist_push(&l, pieces[i], strlen(pieces[i]), 0, -1);
	for (int k = 0; k < t->ndec && !rc; k++)
		rc = dec_step(&t->dec[k], &l);
	size_t w = 0;
	for (int i = 0; i < l.n && !rc; i++) {
		/* valid UTF-8 out, cut at a code point */
		const char *s = l.v[i].s;
		size_t len = l.v[i].len;
		for (size_t k = 0; k < len;) {
			uint32_t cp;
			char u[4];
			int cl = utf8_decode((const unsigned char *)s + k, len - k, &cp);
			int ul = utf8_encode(cp, u);
			if (w + (size_t)ul + 1 > cap) {
				rc = 1;
				break;
			}
			memcpy(buf + w, u, (size_t)ul);
			w += (size_t)ul;
			k += (size_t)cl;
		}
	}
	buf[w] = 0;
	tokjson_plist_free(&l);
	return buf;
}

/* ---- labels ---- */

static int is_added(const struct tokjson *t, const char *piece)
{
	int32_t id = vocab_id(&t->vocab, piece);
	for (int i = 0; id >= 0 && i < t->nadded; i++)
		if (t->added[i].id == id)
			return 1;
	return 0;
}

char *tokjson_label(const struct tokjson *t, const char *piece, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	if (is_added(t, piece) || (!t->byte_level && t->ndec == 0)) {
		snprintf(buf, cap, "%s", piece);
		return buf;
	}
	if (t->byte_level)
		return gpt2bpe_label(piece, buf, cap);
	int b = byte_piece(piece);
	char u[16];
	if (b >= 0) {
		if (b == ' ' || b == '\n' || b == '\t' || (b > 0x20 && b < 0x7F))
			snprintf(buf, cap, "%s", (pretok_visible((uint32_t)b, u), u));
		else   /* a lone byte of a longer character, or a control */
			snprintf(buf, cap, "\\x%02X", b);
		return buf;
	}
	/* the pieces' space mark (▁, or what the decoder replaces) as ␣ */
	const char *sp = "\xe2\x96\x81";
	for (int k = 0; k < t->ndec; k++)
		if ((t->dec[k].kind == TJ_DEC_REPLACE && !strcmp(t->dec[k].b, " ")) ||
		    t->dec[k].kind == TJ_DEC_METASPACE)
			sp = t->dec[k].a;
	size_t spl = strlen(sp), o = 0, len = strlen(piece);
	buf[0] = 0;
	for (size_t i = 0; i < len;) {
		int l;
		uint32_t cp = tokjson_cp_at(piece, len, i, &l);
		pretok_visible(!strncmp(piece + i, sp, spl) ? ' ' : cp, u);
		size_t ul = strlen(u);
		if (o + ul + 1 > cap)
			break;
		memcpy(buf + o, u, ul + 1);
		o += ul;
		i += !strncmp(piece + i, sp, spl) ? spl : (size_t)l;
	}
	return buf;
}
