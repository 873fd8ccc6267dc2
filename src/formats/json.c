/* json.c - strict JSON (RFC 8259) checking; see json.h.
 *
 * One pass over the text with an explicit stack (no recursion, so depth
 * costs no C stack).  Object keys are decoded and kept per open object;
 * when an object closes its keys are sorted and a repeated one is an
 * error, so a header of n keys costs O(n log n). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "ydoc.h"
#include "base/i18n.h"

struct key {
	uint32_t off, len;        /* in the key arena (texts under 4 GB) */
	int line;
};

struct js {
	const char *what;
	const unsigned char *p, *end;
	int line;
	struct err *e;
	int rewrite;              /* a surrogate pair was seen */
	int top_dups;             /* leave the top object's keys to the caller */
	unsigned nodes;           /* values and keys, as ydoc counts its nodes */
	unsigned max_nodes;       /* YDOC_MAX_NODES, or JSON_BIG_MAX_NODES */
	char *arena;              /* decoded keys; never NULL, so an empty key
	                             still points into it */
	size_t alen, acap;
	struct key *keys;
	size_t nkeys, kcap;
};

static int fail(struct js *s, const char *msg)
{
	return err_set(s->e, "%s:%d: %s", s->what, s->line, _(msg));
}

static void skip_ws(struct js *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
		s->line += *s->p == '\n';
		s->p++;
	}
}

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *v)
{
	*v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i];
		unsigned d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			     c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
		if (d > 15)
			return -1;
		*v = *v * 16 + d;
	}
	return 0;
}

/* Appends n bytes to the key arena (key != 0). */
static int put(struct js *s, int key, const void *b, size_t n)
{
	if (!key)
		return 0;
	if (s->alen + n > s->acap) {
		size_t cap = s->acap * 2;
		while (cap < s->alen + n)
			cap *= 2;
		char *a = realloc(s->arena, cap);
		if (!a)
			return err_set(s->e, "out of memory");
		s->arena = a;
		s->acap = cap;
	}
	memcpy(s->arena + s->alen, b, n);
	s->alen += n;
	return 0;
}

static size_t utf8_put(unsigned cp, unsigned char *b)
{
	if (cp < 0x80) { b[0] = (unsigned char)cp; return 1; }
	if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 63)); return 2; }
	if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 63));
		b[2] = (unsigned char)(0x80 | (cp & 63)); return 3;
	}
	b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 63));
	b[2] = (unsigned char)(0x80 | (cp >> 6 & 63)); b[3] = (unsigned char)(0x80 | (cp & 63));
	return 4;
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 :
		c >= 0xF0 && c <= 0xF4 ? 4 : 0;
	if (!n || end - p < n)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||
	    (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))
		return 0;   /* overlong, a surrogate, or past U+10FFFF */
	return n;
}

/* The code point of the valid n-byte UTF-8 sequence at p. */
static unsigned utf8_cp(const unsigned char *p, int n)
{
	static const unsigned lead[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	unsigned cp = p[0] & lead[n];
	for (int i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 63);
	return cp;
}

/* Characters JSON allows raw in a string that YAML does not (DEL, C1,
 * line separators, BOM, U+FFFE/F): libyaml reads them as \uXXXX. */
static int yaml_unsafe(unsigned cp)
{
	return (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
	       cp == 0xfffe || cp == 0xffff;
}

/* A string at s->p (on its opening quote); decoded into the key arena
 * when key is set. */
static int string(struct js *s, int key)
{
	s->p++;
	for (;;) {
		if (s->p >= s->end)
			return fail(s, N_("unterminated string"));
		unsigned c = *s->p;
		if (c == '"') {
			s->p++;
			return 0;
		}
		if (c < 0x20)
			return fail(s, N_("a control character inside a string (escape it)"));
		if (c != '\\') {
			int n = utf8_len(s->p, s->end);
			if (!n)
				return fail(s, N_("invalid UTF-8 in a string"));
			s->rewrite |= yaml_unsafe(utf8_cp(s->p, n));
			if (put(s, key, s->p, (size_t)n))
				return -1;
			s->p += n;
			continue;
		}
		if (s->end - s->p < 2)
			return fail(s, N_("unterminated string"));
		c = s->p[1];
		const char *simple = strchr("\"\\/bfnrt", (int)c);
		if (c && simple) {
			static const char dec[] = "\"\\/\b\f\n\r\t";
			if (put(s, key, &dec[simple - "\"\\/bfnrt"], 1))
				return -1;
			s->p += 2;
			continue;
		}
		unsigned cp, lo;
		if (c != 'u' || hex4(s->p + 2, s->end, &cp))
			return fail(s, N_("invalid escape in a string"));
		s->p += 6;
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return fail(s, N_("a lone low surrogate escape (\\uDC00-\\uDFFF) in a string"));
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u' ||
			    hex4(s->p + 2, s->end, &lo) || lo < 0xDC00 || lo > 0xDFFF)
				return fail(s, N_("a high surrogate escape (\\uD800-\\uDBFF) not followed by a low one"));
			s->p += 6;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			s->rewrite = 1;
		}
		if (cp == 0 && key)
			return fail(s, N_("a NUL character in an object key"));
		unsigned char b[4];
		if (put(s, key, b, utf8_put(cp, b)))
			return -1;
	}
}

static int number(struct js *s)
{
	const unsigned char *p = s->p, *e = s->end;
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && *p >= '1' && *p <= '9')
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	else
		return fail(s, N_("expected a JSON value"));
	if (p < e && *p == '.') {
		if (++p >= e || *p < '0' || *p > '9')
			return fail(s, N_("a number needs digits after its decimal point"));
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || *p < '0' || *p > '9')
			return fail(s, N_("a number needs digits in its exponent"));
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	s->p = p;
	return 0;
}

static int word(struct js *s)
{
	if (s->p < s->end && (*s->p == '&' || *s->p == '*'))
		return fail(s, N_("anchors and aliases (& and *) are YAML, not JSON"));
	static const char *const w[] = { "true", "false", "null" };
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(w[i]);
		if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, w[i], n)) {
			s->p += n;
			return 0;
		}
	}
	return number(s);
}

static int key_cmp_arena(const char *arena, const struct key *a, const struct key *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(arena + a->off, arena + b->off, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static const char *sort_arena;
static int key_cmp(const void *a, const void *b)
{
	return key_cmp_arena(sort_arena, a, b);
}

/* Closes an object whose keys are keys[from..nkeys): a repeated one is
 * an error. */
static int close_object(struct js *s, size_t from, size_t afrom)
{
	size_t n = s->nkeys - from;
	if (n > 1) {
		sort_arena = s->arena;
		qsort(s->keys + from, n, sizeof *s->keys, key_cmp);
		for (size_t i = from + 1; i < s->nkeys; i++)
			if (!key_cmp_arena(s->arena, &s->keys[i - 1], &s->keys[i])) {
				int l = s->keys[i].line > s->keys[i - 1].line ? s->keys[i].line :
					s->keys[i - 1].line;
				const struct key *k = &s->keys[i];
				return err_set(s->e, "%s:%d: duplicate key \"%.*s\" in an object",
					       s->what, l, (int)(k->len > 60 ? 60 : k->len),
					       s->arena + k->off);
			}
	}
	s->nkeys = from;
	s->alen = afrom;
	return 0;
}

/* An open array or object on the stack. */
struct frame {
	char kind;                /* '[' or '{' */
	size_t kfrom, afrom;      /* its keys */
};

static int check(struct js *s)
{
	struct frame st[JSON_MAX_DEPTH];
	int depth = 0;
	skip_ws(s);
	for (;;) {
		/* a value */
		if (s->p >= s->end)
			return fail(s, N_("expected a JSON value"));
		if (++s->nodes > s->max_nodes)
			return err_set(s->e, "%s:%d: too many JSON values (limit %u)", s->what,
				       s->line, s->max_nodes);
		unsigned c = *s->p;
		if (c == '[' || c == '{') {
			if (depth == JSON_MAX_DEPTH)
				return err_set(s->e, "%s:%d: arrays and objects nested deeper than %d",
					       s->what, s->line, JSON_MAX_DEPTH);
			st[depth].kind = (char)c;
			st[depth].kfrom = s->nkeys;
			st[depth].afrom = s->alen;
			depth++;
			s->p++;
			skip_ws(s);
			if (s->p < s->end && *s->p == (c == '[' ? ']' : '}')) {
				s->p++;
				depth--;
				goto after_value;
			}
			if (c == '[')
				continue;
			goto key;
		} else if (c == '"') {
			if (string(s, 0))
				return -1;
		} else if (word(s)) {
			return -1;
		}
after_value:
		skip_ws(s);
		if (depth == 0)
			break;
		if (s->p >= s->end)
			return fail(s, N_("unterminated array or object"));
		if (*s->p == ',') {
			s->p++;
			skip_ws(s);
			if (st[depth - 1].kind == '[')
				continue;
			goto key;
		}
		if (*s->p == (st[depth - 1].kind == '[' ? ']' : '}')) {
			s->p++;
			if (st[depth - 1].kind == '{' && (depth > 1 || !s->top_dups) &&
			    close_object(s, st[depth - 1].kfrom, st[depth - 1].afrom))
				return -1;
			depth--;
			goto after_value;
		}
		return fail(s, st[depth - 1].kind == '[' ? N_("expected , or ] in an array") :
			       N_("expected , or } in an object"));
key:
		if (s->p >= s->end || *s->p != '"')
			return fail(s, N_("expected a string as an object key"));
		if (++s->nodes > s->max_nodes)
			return err_set(s->e, "%s:%d: too many JSON values (limit %u)", s->what,
				       s->line, s->max_nodes);
		if (s->nkeys == s->kcap) {
			size_t cap = s->kcap ? s->kcap * 2 : 64;
			struct key *k = realloc(s->keys, cap * sizeof *k);
			if (!k)
				return err_set(s->e, "out of memory");
			s->keys = k;
			s->kcap = cap;
		}
		struct key *k = &s->keys[s->nkeys];
		/* the top object's keys are the caller's to check */
		int keep = depth > 1 || !s->top_dups;
		k->off = (uint32_t)s->alen;
		k->line = s->line;
		if (string(s, keep))
			return -1;
		k->len = (uint32_t)(s->alen - k->off);
		s->nkeys += keep;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':')
			return fail(s, N_("expected : after an object key"));
		s->p++;
		skip_ws(s);
	}
	if (s->p != s->end)
		return fail(s, N_("text after the JSON value"));
	return 0;
}

/* The text with every \uD8xx\uDCxx pair as \UXXXXXXXX (libyaml's escape
 * for a code point past U+FFFF; 12 bytes become 10) and every character
 * of yaml_unsafe as \uXXXX.  buf was checked.  With o NULL it only counts:
 * returns the length. */
static size_t rewrite_into(const char *buf, size_t len, char *o)
{
	static const char hx[] = "0123456789ABCDEF";
	size_t q = 0;
#define EMIT(ch) do { if (o) o[q] = (ch); q++; } while (0)
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		const unsigned char *p = (const unsigned char *)buf + i;
		unsigned hi, lo;
		if (!in_str) {
			in_str = c == '"';
			EMIT(c);
		} else if (c == '"') {
			in_str = 0;
			EMIT(c);
		} else if (c != '\\') {
			int n = (unsigned char)c < 0x80 ? 1 : utf8_len(p, (const unsigned char *)buf + len);
			unsigned cp = utf8_cp(p, n);
			if (yaml_unsafe(cp)) {
				EMIT('\\');
				EMIT('u');
				for (int k = 3; k >= 0; k--)
					EMIT(hx[(cp >> (4 * k)) & 15]);
			} else {
				for (int k = 0; k < n; k++)
					EMIT(buf[i + (size_t)k]);
			}
			i += (size_t)n - 1;
		} else if (buf[i + 1] == 'u' && i + 12 <= len && buf[i + 6] == '\\' &&
			   !hex4(p + 2, p + 6, &hi) && hi >= 0xD800 && hi <= 0xDBFF &&
			   !hex4(p + 8, p + 12, &lo)) {
			unsigned cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
			EMIT('\\');
			EMIT('U');
			for (int k = 7; k >= 0; k--)
				EMIT(hx[(cp >> (4 * k)) & 15]);
			i += 11;
		} else {
			/* an escape: two bytes as they are (i moves outside EMIT,
			   which evaluates its argument only when writing) */
			EMIT(c);
			i++;
			EMIT(buf[i]);
		}
	}
#undef EMIT
	return q;
}

static char *rewrite(const char *buf, size_t len, size_t *outlen)
{
	size_t n = rewrite_into(buf, len, NULL);
	char *o = malloc(n + 1);
	if (o)
		*outlen = rewrite_into(buf, len, o);
	return o;
}

int json_check(const char *what, const char *buf, size_t len, int flags, char **out,
	       size_t *outlen, struct err *e)
{
	struct js s = { .what = what, .p = (const unsigned char *)buf,
			.end = (const unsigned char *)buf + len, .line = 1, .e = e,
			.top_dups = !!(flags & JSON_TOP_DUPS_OK),
			.max_nodes = flags & JSON_BIG ? JSON_BIG_MAX_NODES : YDOC_MAX_NODES };
	*out = NULL;
	*outlen = 0;
	if (len >= UINT32_MAX)
		return err_set(e, "%s: larger than 4 GB", what);
	s.acap = 256;
	if (!(s.arena = malloc(s.acap)))
		return err_set(e, "out of memory");
	int rc = check(&s);
	free(s.arena);
	free(s.keys);
	if (rc)
		return -1;
	if (s.rewrite && !(*out = rewrite(buf, len, outlen)))
		return err_set(e, "out of memory");
	return 0;
}

int json_load(struct ydoc *doc, const char *path, struct err *e)
{
	char *buf, *fixed = NULL;
	size_t len, flen = 0;
	memset(doc, 0, sizeof *doc);
	if (ydoc_read(path, &buf, &len, e))
		return -1;
	int rc = json_check(path, buf, len, 0, &fixed, &flen, e);
	if (!rc)
		rc = fixed ? ydoc_parse(doc, path, fixed, flen, e) : ydoc_parse(doc, path, buf, len, e);
	free(fixed);
	free(buf);
	return rc;
}
