/* gpt2bpe.c - GPT-2's byte-level BPE: vocab.json, merges.txt, encoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2bpe.h"
#include "base/i18n.h"
#include "base/ids.h"
#include "base/safefile.h"
#include "bpemerge.h"
#include "pretok.h"
#include "base/utf8.h"

/* vocab.json of GPT-2 is 1 MB, merges.txt 0.5 MB; the limit keeps a
 * hostile file's cost bounded. */
#define FILE_MAX_BYTES (256u << 20)
#define PIECE_MAX_BYTES 1024

/* ---- vocab.json: one JSON object of strings to integers ---- */

struct jp {
	const char *s, *end, *path;
	int line;
	struct err *e;
};

static void jp_ws(struct jp *p)
{
	while (p->s < p->end && strchr(" \t\r\n", *p->s) && *p->s) {
		p->line += *p->s == '\n';
		p->s++;
	}
}

/* what: a message already translated */
static int jp_fail(struct jp *p, const char *what)
{
	return err_set(p->e, "%s:%d: %s", p->path, p->line, what);
}

static int hex4(const char *s, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0' :
				  c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				  c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* A JSON string at p->s into out[cap] (NUL-terminated). */
static int jp_string(struct jp *p, char *out, size_t cap)
{
	size_t o = 0;
	if (p->s >= p->end || *p->s != '"')
		return jp_fail(p, _("expected a string"));
	p->s++;
	while (p->s < p->end && *p->s != '"') {
		uint32_t cp;
		if ((unsigned char)*p->s < 0x20)
			return jp_fail(p, _("control character in a string"));
		if (*p->s == '\\') {
			if (p->end - p->s < 2)
				return jp_fail(p, _("unfinished escape"));
			char c = p->s[1];
			p->s += 2;
			const char *simple = strchr("\"\\/bfnrt", c);
			if (c && simple) {
				cp = (uint32_t)"\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
			} else if (c == 'u') {
				if (p->end - p->s < 4 || hex4(p->s, &cp))
					return jp_fail(p, _("bad \\u escape"));
				p->s += 4;
				if (cp >= 0xD800 && cp < 0xDC00) {
					uint32_t lo;
					if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u' ||
					    hex4(p->s + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
						return jp_fail(p, _("lone surrogate escape"));
					p->s += 6;
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
					return jp_fail(p, _("lone surrogate escape"));
				}
			} else {
				return jp_fail(p, _("bad escape"));
			}
			if (cp == 0)
				return jp_fail(p, _("a token holds a NUL character"));
			if (o + 4 >= cap)
				return jp_fail(p, _("token too long"));
			o += (size_t)utf8_encode(cp, out + o);
			continue;
		}
		int l = utf8_decode((const unsigned char *)p->s, (size_t)(p->end - p->s), &cp);
		if (cp == 0xFFFD && l == 1 && (unsigned char)*p->s != 0xEF)
			return jp_fail(p, _("invalid UTF-8"));
		if (o + (size_t)l >= cap)
			return jp_fail(p, _("token too long"));
		memcpy(out + o, p->s, (size_t)l);
		o += (size_t)l;
		p->s += l;
	}
	if (p->s >= p->end)
		return jp_fail(p, _("unterminated string"));
	p->s++;
	out[o] = 0;
	return 0;
}

static int load_vocab_json(struct gpt2bpe *g, const char *path, struct err *e)
{
	size_t len;
	char *buf = safefile_read_all(path, FILE_MAX_BYTES, &len, e);
	if (!buf)
		return -1;
	struct jp p = { buf, buf + len, path, 1, e };
	char **toks = NULL;
	size_t ntok = 0, cap = 0;
	int rc = -1;
	char piece[PIECE_MAX_BYTES];
	if (len >= 3 && !memcmp(p.s, "\xef\xbb\xbf", 3))
		p.s += 3;
	jp_ws(&p);
	if (p.s >= p.end || *p.s != '{') {
		jp_fail(&p, _("vocab.json must be an object piece -> id"));
		goto out;
	}
	p.s++;
	jp_ws(&p);
	if (p.s < p.end && *p.s == '}') {
		jp_fail(&p, _("the vocabulary is empty"));
		goto out;
	}
	for (;;) {
		jp_ws(&p);
		int line = p.line;
		if (jp_string(&p, piece, sizeof piece))
			goto out;
		if (!piece[0]) {
			err_set(e, "%s:%d: an empty token", path, line);
			goto out;
		}
		jp_ws(&p);
		if (p.s >= p.end || *p.s != ':') {
			jp_fail(&p, _("expected ':'"));
			goto out;
		}
		p.s++;
		jp_ws(&p);
		long long id = 0;
		const char *d0 = p.s;
		while (p.s < p.end && *p.s >= '0' && *p.s <= '9' && id <= (1 << 24))
			id = id * 10 + (*p.s++ - '0');
		if (p.s == d0 || (p.s < p.end && strchr(".eE-", *p.s) && *p.s)) {
			err_set(e, "%s:%d: the id of \"%.40s\" is not a whole number", path, p.line,
				piece);
			goto out;
		}
		if (id > (1 << 22)) {
			err_set(e, "%s:%d: id %lld of \"%.40s\" is too large", path, p.line, id, piece);
			goto out;
		}
		if ((size_t)id >= cap) {
			size_t nc = cap ? cap : 1024;
			while (nc <= (size_t)id)
				nc *= 2;
			char **nt = realloc(toks, nc * sizeof *nt);
			if (!nt) {
				err_set(e, "%s: out of memory", path);
				goto out;
			}
			memset(nt + cap, 0, (nc - cap) * sizeof *nt);
			toks = nt;
			cap = nc;
		}
		if (toks[id]) {
			err_set(e, "%s:%d: id %lld given twice (\"%.40s\" and \"%.40s\")", path, p.line,
				id, toks[id], piece);
			goto out;
		}
		if (!(toks[id] = strdup(piece))) {
			err_set(e, "%s: out of memory", path);
			goto out;
		}
		if ((size_t)id + 1 > ntok)
			ntok = (size_t)id + 1;
		jp_ws(&p);
		if (p.s < p.end && *p.s == ',') {
			p.s++;
			continue;
		}
		if (p.s < p.end && *p.s == '}') {
			p.s++;
			break;
		}
		jp_fail(&p, _("expected ',' or '}'"));
		goto out;
	}
	jp_ws(&p);
	if (p.s != p.end) {
		jp_fail(&p, _("text after the object"));
		goto out;
	}
	for (size_t i = 0; i < ntok; i++)
		if (!toks[i]) {
			err_set(e, "%s: no token has id %zu (the ids must be 0 … %zu, each once)",
				path, i, ntok - 1);
			goto out;
		}
	rc = vocab_init(&g->vocab, (const char *const *)toks, (int)ntok, path, e);
out:
	for (size_t i = 0; i < cap; i++)
		free(toks ? toks[i] : NULL);
	free(toks);
	free(buf);
	return rc;
}

/* ---- merges ---- */

static int load_merges(struct gpt2bpe *g, const char *path, struct err *e)
{
	size_t len;
	char *buf = safefile_read_all(path, FILE_MAX_BYTES, &len, e);
	if (!buf)
		return -1;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	int rc = -1;
	if (bpemerge_init(&g->merges, lines)) {
		err_set(e, "%s: out of memory", path);
		goto out;
	}
	char *s = buf;
	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	char joined[2 * PIECE_MAX_BYTES];
	int lineno = 0;
	while (s < buf + len) {
		char *nl = memchr(s, '\n', (size_t)(buf + len - s));
		char *end = nl ? nl : buf + len;
		lineno++;
		char *next = nl ? nl + 1 : buf + len;
		if (end > s && end[-1] == '\r')
			end--;
		*end = 0;
		if (memchr(s, 0, (size_t)(end - s)) || !utf8_valid(s)) {
			err_set(e, "%s:%d: not UTF-8 text", path, lineno);
			goto out;
		}
		/* Hugging Face skips "#version" lines; an empty line (the end of
		 * the file) is no merge */
		if (!strncmp(s, "#version", 8) || !*s) {
			s = next;
			continue;
		}
		char *sp = strchr(s, ' ');
		if (!sp || strchr(sp + 1, ' ') || sp == s || !sp[1]) {
			err_set(e, "%s:%d: a merge is two pieces separated by one space", path, lineno);
			goto out;
		}
		*sp = 0;
		int a = vocab_id(&g->vocab, s), b = vocab_id(&g->vocab, sp + 1), ab = -1;
		size_t la = strlen(s), lb = strlen(sp + 1);
		if (la + lb < sizeof joined) {
			memcpy(joined, s, la);
			memcpy(joined + la, sp + 1, lb + 1);
			ab = vocab_id(&g->vocab, joined);
		}
		if (a < 0 || b < 0 || ab < 0) {
			err_set(e, "%s:%d: the merge \"%.40s %.40s\" makes or uses a piece that "
				"vocab.json lacks", path, lineno, s, sp + 1);
			goto out;
		}
		/* a merge given twice keeps its last rank, as Hugging Face's map */
		bpemerge_add(&g->merges, a, b, ab);
		s = next;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

int gpt2bpe_load(struct gpt2bpe *g, const char *vocab_json, const char *merges,
		 struct err *e)
{
	memset(g, 0, sizeof *g);
	g->special_id = -1;
	if (load_vocab_json(g, vocab_json, e) || load_merges(g, merges, e)) {
		gpt2bpe_free(g);
		return -1;
	}
	for (int b = 0; b < 256; b++) {
		char s[8];
		s[utf8_encode(pretok_byte_cp(b), s)] = 0;
		g->byte_id[b] = vocab_id(&g->vocab, s);
	}
	g->special_id = vocab_id(&g->vocab, GPT2BPE_EOT);
	return 0;
}

void gpt2bpe_free(struct gpt2bpe *g)
{
	vocab_free(&g->vocab);
	bpemerge_free(&g->merges);
	memset(g, 0, sizeof *g);
	g->special_id = -1;
}

/* ---- encoding ---- */

/* The pieces of one pre-token (its bytes b[0..n)), appended to o: a
 * symbol a byte (a byte the vocabulary lacks is left out, as Hugging
 * Face's BPE does without an unknown token), then the merges. */
static int bpe_word(const struct gpt2bpe *g, const unsigned char *b, size_t n,
		    struct ids *o)
{
	int32_t *sym = malloc((n ? n : 1) * sizeof *sym);
	size_t ns = 0;
	if (!sym)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (g->byte_id[b[i]] >= 0)
			sym[ns++] = g->byte_id[b[i]];
	int rc = bpemerge_apply(&g->merges, sym, ns, o);
	free(sym);
	return rc;
}

/* Code points of text with their byte offsets. */
struct cps {
	uint32_t *cp;
	size_t *off;        /* [n + 1]: byte offset of each, then the end */
	size_t n;
};

static int encode_segment(const struct gpt2bpe *g, const struct cps *c, size_t from,
			  size_t to, const char *text, struct ids *o)
{
	for (size_t i = from; i < to;) {
		size_t l = pretok_next(PRETOK_GPT2, c->cp + from, i - from, to - from);
		if (bpe_word(g, (const unsigned char *)text + c->off[i], c->off[i + l] - c->off[i],
			     o))
			return -1;
		i += l;
	}
	return 0;
}

int gpt2bpe_encode(const struct gpt2bpe *g, const char *text, int32_t **ids, int *n,
		   int *invalid, struct err *e)
{
	size_t len = strlen(text);
	struct cps c = { malloc((len + 1) * sizeof *c.cp), malloc((len + 1) * sizeof *c.off), 0 };
	struct ids o = { 0 };
	/* the text as Hugging Face sees it: invalid bytes become U+FFFD */
	char *clean = malloc(len * 3 + 1);
	if (!c.cp || !c.off || !clean)
		goto oom;
	size_t ol = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)text + i, len - i, &cp);
		if (cp == 0xFFFD && !(l == 3 && !memcmp(text + i, "\xef\xbf\xbd", 3)))
			++*invalid;
		c.cp[c.n] = cp;
		c.off[c.n++] = ol;
		ol += (size_t)utf8_encode(cp, clean + ol);
		i += (size_t)l;
	}
	c.off[c.n] = ol;
	clean[ol] = 0;
	/* <|endoftext|> in the text is its own token */
	const char *sp = g->special_id >= 0 ? GPT2BPE_EOT : NULL;
	size_t spl = sp ? strlen(sp) : 0, seg = 0, i = 0;
	while (i < c.n) {
		if (!sp || c.cp[i] != '<' || strncmp(clean + c.off[i], sp, spl)) {
			i++;
			continue;
		}
		if (encode_segment(g, &c, seg, i, clean, &o) || ids_push(&o, g->special_id))
			goto oom;
		size_t end = c.off[i] + spl;
		while (i < c.n && c.off[i] < end)
			i++;
		seg = i;
	}
	if (encode_segment(g, &c, seg, c.n, clean, &o))
		goto oom;
	free(c.cp);
	free(c.off);
	free(clean);
	*ids = o.v;
	*n = o.n;
	return 0;
oom:
	free(c.cp);
	free(c.off);
	free(clean);
	free(o.v);
	return err_set(e, "out of memory");
}

/* ---- pieces as text ---- */

size_t gpt2bpe_bytes(const char *piece, char *out, size_t cap)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)piece;
	while (*p && o < cap) {
		uint32_t cp;
		int l = utf8_decode(p, 4, &cp);
		int b = pretok_cp_byte(cp);
		if (b >= 0) {
			out[o++] = (char)b;
		} else {
			for (int k = 0; k < l && o < cap; k++)
				out[o++] = (char)p[k];
		}
		p += l;
	}
	return o;
}

char *gpt2bpe_label(const char *piece, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	buf[0] = 0;
	/* a piece with a character outside the byte map is not byte-level */
	for (const unsigned char *p = (const unsigned char *)piece; *p;) {
		uint32_t cp;
		int l = utf8_decode(p, 4, &cp);
		if (pretok_cp_byte(cp) < 0) {
			snprintf(buf, cap, "%s", piece);
			return buf;
		}
		p += l;
	}
	char bytes[PIECE_MAX_BYTES];
	size_t n = gpt2bpe_bytes(piece, bytes, sizeof bytes - 1), o = 0;
	bytes[n] = 0;
	for (size_t i = 0; i < n;) {
		char u[16];
		uint32_t cp;
		int l = utf8_decode((const unsigned char *)bytes + i, n - i, &cp);
		int bad = cp == 0xFFFD && !(l == 3 && !memcmp(bytes + i, "\xef\xbf\xbd", 3));
		if (bad)
			snprintf(u, sizeof u, "\\x%02X", (unsigned char)bytes[i]);
		else
			pretok_visible(cp, u);
		size_t ul = strlen(u);
		if (o + ul + 1 > cap)
			break;
		memcpy(buf + o, u, ul + 1);
		o += ul;
		i += (size_t)l;
	}
	return buf;
}

char *gpt2bpe_text(char *const *pieces, int n, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	size_t o = 0;
	char *raw = malloc(cap * 4 + 4);
	if (!raw) {
		buf[0] = 0;
		return buf;
	}
	for (int i = 0; i < n && o < cap * 4; i++)
		o += gpt2bpe_bytes(pieces[i], raw + o, cap * 4 - o);
	/* valid UTF-8 out, cut at a code point */
	size_t w = 0;
	for (size_t i = 0; i < o;) {
		uint32_t cp;
		char u[4];
		int l = utf8_decode((const unsigned char *)raw + i, o - i, &cp);
		int ul = utf8_encode(cp, u);
		if (w + (size_t)ul + 1 > cap)
			break;
		memcpy(buf + w, u, (size_t)ul);
		w += (size_t)ul;
		i += (size_t)l;
	}
	buf[w] = 0;
	free(raw);
	return buf;
}

/* ---- vocab.json alone (Marian's, beside its SentencePiece models) ---- */

int gpt2bpe_load_vocab(struct vocab *v, const char *vocab_json, struct err *e)
{
	struct gpt2bpe g;
	memset(&g, 0, sizeof g);
	if (load_vocab_json(&g, vocab_json, e))
		return -1;
	*v = g.vocab;
	return 0;
}
