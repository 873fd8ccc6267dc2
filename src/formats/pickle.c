/* pickle.c - a restricted unpickler: Python's pickle format as data only.
 *
 * The machine is Python's (Lib/pickle.py, _Unpickler): a value stack, a
 * stack of marks and a memo.  Containers, strings and numbers are built as
 * pickle.py builds them; the few globals that plain pickles of data use
 * (collections.OrderedDict, set/frozenset, _codecs.encode for bytes,
 * copyreg._reconstructor for protocol 0/1 instances) are understood here;
 * every other global goes to the caller's hooks or is treated as pickle.h
 * says.  The values form a graph owned by struct pk, allocated in chunks,
 * so freeing never recurses. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "base/i18n.h"

#define PK_MAX_MEMO (1u << 22)
/* Values a pickle may make (about 100 bytes each): a state_dict of 100000
 * tensors makes about 1.8 M; the limit keeps a hostile pickle near 200 MB. */
#define PK_MAX_VALUES ((size_t)1 << 21)

/* globals understood here (tags below 0) */
enum { G_ORDEREDDICT = -1, G_SET = -2, G_FROZENSET = -3, G_ENCODE = -4,
       G_RECONSTRUCTOR = -5 };

/* Values are allocated in chunks: no allocator overhead per value. */
#define PK_CHUNK 4096
struct pk_chunk {
	struct pk_chunk *next;
	size_t used;
	struct pk_value v[PK_CHUNK];
};

struct pk {
	char *what;
	const unsigned char *buf;
	size_t len, pos, op;          /* op: offset of the current opcode */
	const struct pk_hooks *h;
	struct pk_chunk *chunks;
	size_t nvalues, maxvalues;
	struct pk_value **stack;
	size_t sn, scap;
	size_t nitems;                /* items put in containers so far */
	size_t *marks;
	size_t mn, mcap;
	struct pk_value **memo;
	size_t memocap, memolen;
};

const char *pk_kind_name(enum pk_kind k)
{
	static const char *const names[] = {
		"None", "bool", "int", "float", "str", "bytes", "tuple", "list",
		"dict", "set", "global", "object", "object"
	};
	return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *pk_what(const struct pk *p)
{
	return p->what;
}

/* "WHAT: offset N: message"; fmt comes translated.  Returns NULL. */
static void *pk_fail(struct pk *p, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void *pk_fail(struct pk *p, struct err *e, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	err_set(e, "%s: offset %zu: %s", p->what, p->op, msg);
	return NULL;
}

struct pk_value *pk_new(struct pk *p, enum pk_kind kind, struct err *e)
{
	if (p->nvalues >= p->maxvalues)
		return pk_fail(p, e, _("more than %zu values: more than a pickle of this size "
				       "or any state_dict holds"), p->maxvalues);
	if (!p->chunks || p->chunks->used == PK_CHUNK) {
		struct pk_chunk *c = calloc(1, sizeof *c);
		if (!c)
			return pk_fail(p, e, _("out of memory"));
		c->next = p->chunks;
		p->chunks = c;
	}
	struct pk_value *v = &p->chunks->v[p->chunks->used++];
	v->kind = kind;
	p->nvalues++;
	return v;
}

void pk_free(struct pk *p)
{
	if (!p)
		return;
	for (struct pk_chunk *c = p->chunks, *nx; c; c = nx) {
		nx = c->next;
		for (size_t i = 0; i < c->used; i++) {
			free(c->v[i].s);
			free(c->v[i].items);
			free(c->v[i].ext);
		}
		free(c);
	}
	free(p->stack);
	free(p->marks);
	free(p->memo);
	free(p->what);
	free(p);
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *na = realloc(*arr, nc * elem);
	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

static int push(struct pk *p, struct pk_value *v, struct err *e)
{
	if (!v)
		return -1;
	if (p->sn >= PK_MAX_VALUES) {
		pk_fail(p, e, _("more than %zu values on the stack"), (size_t)PK_MAX_VALUES);
		return -1;
	}
	if (grow((void **)&p->stack, &p->scap, p->sn + 1, sizeof *p->stack)) {
		pk_fail(p, e, _("out of memory"));
		return -1;
	}
	p->stack[p->sn++] = v;
	return 0;
}

/* The values above the last mark, or above the bottom. */
static size_t stack_floor(const struct pk *p)
{
	return p->mn ? p->marks[p->mn - 1] : 0;
}

static struct pk_value *pop(struct pk *p, struct err *e)
{
	if (p->sn <= stack_floor(p))
		return pk_fail(p, e, _("stack underflow"));
	return p->stack[--p->sn];
}

static struct pk_value *top(struct pk *p, struct err *e)
{
	if (p->sn <= stack_floor(p))
		return pk_fail(p, e, _("stack underflow"));
	return p->stack[p->sn - 1];
}

/* Pops the last mark; *from = index of the first value above it. */
static int pop_mark(struct pk *p, size_t *from, struct err *e)
{
	if (!p->mn) {
		pk_fail(p, e, _("no MARK on the stack"));
		return -1;
	}
	*from = p->marks[--p->mn];
	return 0;
}

static int add_items(struct pk *p, struct pk_value *c, struct pk_value *const *it,
		     size_t n, struct err *e)
{
	if (!n)
		return 0;
	if ((p->nitems += n) > 4 * PK_MAX_VALUES) {
		pk_fail(p, e, _("more than %zu items in containers"), 4 * PK_MAX_VALUES);
		return -1;
	}
	if (grow((void **)&c->items, &c->cap, c->n + n, sizeof *c->items)) {
		pk_fail(p, e, _("out of memory"));
		return -1;
	}
	memcpy(c->items + c->n, it, n * sizeof *it);
	c->n += n;
	return 0;
}

static struct pk_value *new_seq(struct pk *p, enum pk_kind kind,
				struct pk_value *const *it, size_t n, struct err *e)
{
	struct pk_value *v = pk_new(p, kind, e);
	if (v && n && add_items(p, v, it, n, e))
		return NULL;
	return v;
}

static struct pk_value *new_str(struct pk *p, enum pk_kind kind, const void *s,
				size_t n, struct err *e)
{
	struct pk_value *v = pk_new(p, kind, e);
	if (!v)
		return NULL;
	if (!(v->s = malloc(n + 1)))
		return pk_fail(p, e, _("out of memory"));
	memcpy(v->s, s, n);
	v->s[n] = 0;
	v->len = n;
	return v;
}

static struct pk_value *new_int(struct pk *p, enum pk_kind kind, int64_t i,
				struct err *e)
{
	struct pk_value *v = pk_new(p, kind, e);
	if (v)
		v->i = i;
	return v;
}

/* n bytes of argument; NULL when the input ends first. */
static const unsigned char *take(struct pk *p, uint64_t n, struct err *e)
{
	if (n > p->len - p->pos)
		return pk_fail(p, e, _("truncated (needs %llu more bytes)"),
			       (unsigned long long)(n - (p->len - p->pos)));
	const unsigned char *s = p->buf + p->pos;
	p->pos += (size_t)n;
	return s;
}

static uint64_t le(const unsigned char *s, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | s[i];
	return v;
}

/* A text argument up to '\n' (protocol 0); *n its length. */
static const char *line(struct pk *p, size_t *n, struct err *e)
{
	const unsigned char *s = p->buf + p->pos;
	const unsigned char *nl = memchr(s, '\n', p->len - p->pos);
	if (!nl)
		return pk_fail(p, e, _("truncated (no end of line)"));
	*n = (size_t)(nl - s);
	p->pos += *n + 1;
	return (const char *)s;
}

static int line_int(struct pk *p, long long *v, struct err *e)
{
	size_t n;
	const char *s = line(p, &n, e);
	char buf[32], *end;
	if (!s)
		return -1;
	if (n && s[n - 1] == 'L')     /* protocol 0 longs */
		n--;
	if (!n || n >= sizeof buf) {
		pk_fail(p, e, _("bad decimal number"));
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtoll(buf, &end, 10);
	if (*end) {
		pk_fail(p, e, _("bad decimal number"));
		return -1;
	}
	return 0;
}

static int memo_put(struct pk *p, uint64_t idx, struct err *e)
{
	struct pk_value *v = top(p, e);
	if (!v)
		return -1;
	if (idx >= PK_MAX_MEMO || idx > p->len) {
		pk_fail(p, e, _("memo index %llu is out of range"), (unsigned long long)idx);
		return -1;
	}
	size_t old = p->memocap;
	if (grow((void **)&p->memo, &p->memocap, (size_t)idx + 1, sizeof *p->memo)) {
		pk_fail(p, e, _("out of memory"));
		return -1;
	}
	memset(p->memo + old, 0, (p->memocap - old) * sizeof *p->memo);
	p->memolen += !p->memo[idx];
	p->memo[idx] = v;
	return 0;
}

static int memo_get(struct pk *p, uint64_t idx, struct err *e)
{
	if (idx >= p->memocap || !p->memo[idx]) {
		pk_fail(p, e, _("memo index %llu was never set"), (unsigned long long)idx);
		return -1;
	}
	return push(p, p->memo[idx], e);
}

/* A name for messages: printable ASCII, cut. */
static void show(const char *s, char *buf, size_t cap)
{
	size_t i = 0;
	for (; s[i] && i + 4 < cap; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (s[i])
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = 0;
}

static int builtin_global(const char *m, const char *n)
{
	int b = !strcmp(m, "builtins") || !strcmp(m, "__builtin__");
	if (!strcmp(m, "collections") && !strcmp(n, "OrderedDict"))
		return G_ORDEREDDICT;
	if (b && !strcmp(n, "set"))
		return G_SET;
	if (b && !strcmp(n, "frozenset"))
		return G_FROZENSET;
	if (!strcmp(m, "_codecs") && !strcmp(n, "encode"))
		return G_ENCODE;
	if (!strcmp(m, "copyreg") && !strcmp(n, "_reconstructor"))
		return G_RECONSTRUCTOR;
	return 0;
}

static int global(struct pk *p, const char *m, size_t mlen, const char *n,
		  size_t nlen, struct err *e)
{
	struct pk_value *v = pk_new(p, PK_GLOBAL, e);
	if (!v || !(v->s = malloc(mlen + nlen + 2))) {
		if (v)
			pk_fail(p, e, _("out of memory"));
		return -1;
	}
	memcpy(v->s, m, mlen);
	v->s[mlen] = 0;
	memcpy(v->s + mlen + 1, n, nlen);
	v->s[mlen + 1 + nlen] = 0;
	v->len = mlen + 1 + nlen;
	const char *mod = v->s, *name = v->s + mlen + 1;
	if (strlen(mod) != mlen || strlen(name) != nlen) {
		pk_fail(p, e, _("global name contains a NUL byte"));
		return -1;
	}
	v->tag = builtin_global(mod, name);
	if (!v->tag && p->h && p->h->global)
		v->tag = p->h->global(p->h->ctx, mod, name);
	v->s[mlen] = '.';                 /* "module.name" from here on */
	return push(p, v, e);
}

/* An instance of class cls (a global) whose code we do not run. */
static struct pk_value *object_of(struct pk *p, struct pk_value *cls, struct err *e)
{
	if (cls->kind != PK_GLOBAL)
		return pk_fail(p, e, _("instance of a %s, expected a class name"),
			       pk_kind_name(cls->kind));
	return new_str(p, PK_OBJECT, cls->s, cls->len, e);
}

/* _codecs.encode(str, "latin1"): how protocols 2-3 write bytes. */
static struct pk_value *encode_latin1(struct pk *p, struct pk_value *args, struct err *e)
{
	if (args->kind != PK_TUPLE || args->n != 2 || args->items[0]->kind != PK_STR ||
	    args->items[1]->kind != PK_STR ||
	    (strcmp(args->items[1]->s, "latin1") && strcmp(args->items[1]->s, "latin-1")))
		return pk_fail(p, e, _("_codecs.encode with arguments other than (str, \"latin1\")"));
	const unsigned char *s = (const unsigned char *)args->items[0]->s;
	size_t n = args->items[0]->len, k = 0;
	struct pk_value *v = new_str(p, PK_BYTES, s, n, e);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {      /* UTF-8 of code points < 256 */
		if (s[i] < 0x80) {
			v->s[k++] = (char)s[i];
		} else if ((s[i] & 0xfe) == 0xc2 && i + 1 < n && (s[i + 1] & 0xc0) == 0x80) {
			v->s[k++] = (char)((s[i] & 3) << 6 | (s[i + 1] & 0x3f));
			i++;
		} else {
			return pk_fail(p, e, _("_codecs.encode: a character outside latin1"));
		}
	}
	v->s[k] = 0;
	v->len = k;
	return v;
}

/* REDUCE and NEWOBJ: callable(*args).  newobj: cls.__new__(cls, *args). */
static struct pk_value *call(struct pk *p, struct pk_value *f, struct pk_value *args,
			     int newobj, struct err *e)
{
	char nb[96];
	if (f->kind != PK_GLOBAL)
		return pk_fail(p, e, _("call of a %s, expected a global name"),
			       pk_kind_name(f->kind));
	show(f->s, nb, sizeof nb);
	switch (f->tag) {
	case G_ORDEREDDICT: {
		struct pk_value *d = pk_new(p, PK_DICT, e);
		if (!d)
			return NULL;
		/* OrderedDict() or OrderedDict([(k, v), ...]) */
		if (args->kind == PK_TUPLE && args->n == 1 && args->items[0]->kind == PK_LIST) {
			const struct pk_value *l = args->items[0];
			for (size_t i = 0; i < l->n; i++) {
				const struct pk_value *kv = l->items[i];
				if (kv->kind != PK_TUPLE || kv->n != 2)
					return pk_fail(p, e, _("OrderedDict of a list that is not of pairs"));
				if (add_items(p, d, kv->items, 2, e))
					return NULL;
			}
		} else if (args->kind != PK_TUPLE || args->n) {
			return pk_fail(p, e, _("OrderedDict with unexpected arguments"));
		}
		return d;
	}
	case G_SET:
	case G_FROZENSET:
		if (args->kind != PK_TUPLE || args->n > 1 ||
		    (args->n && args->items[0]->kind != PK_LIST))
			return pk_fail(p, e, _("%s with unexpected arguments"), nb);
		return new_seq(p, PK_SET, args->n ? args->items[0]->items : NULL,
			       args->n ? args->items[0]->n : 0, e);
	case G_ENCODE:
		return encode_latin1(p, args, e);
	case G_RECONSTRUCTOR:
		/* copyreg._reconstructor(cls, base, state): protocol 0/1 instances */
		if (args->kind != PK_TUPLE || args->n != 3)
			return pk_fail(p, e, _("%s with unexpected arguments"), nb);
		return object_of(p, args->items[0], e);
	case 0:
		if (newobj)
			return object_of(p, f, e);
		return pk_fail(p, e, _("refusing to call %s: only tensors, dicts, lists, "
				       "numbers and strings are read, nothing is executed"), nb);
	default:
		if (p->h && p->h->reduce)
			return p->h->reduce(p, p->h->ctx, f, args, e);
		return pk_fail(p, e, _("refusing to call %s"), nb);
	}
}

static int setitems(struct pk *p, size_t from, struct err *e)
{
	size_t n = p->sn - from;
	if (from == 0 || n % 2)
		return pk_fail(p, e, _("SETITEMS needs a dict and key/value pairs")), -1;
	struct pk_value *d = p->stack[from - 1];
	p->sn = from;
	if (d->kind == PK_OBJECT)            /* an unknown dict subclass: dropped */
		return 0;
	if (d->kind != PK_DICT)
		return pk_fail(p, e, _("SETITEM on a %s"), pk_kind_name(d->kind)), -1;
	return add_items(p, d, p->stack + from, n, e);
}

static int appends(struct pk *p, size_t from, struct err *e, int set)
{
	if (from == 0)
		return pk_fail(p, e, _("APPEND with nothing to append to")), -1;
	struct pk_value *l = p->stack[from - 1];
	size_t n = p->sn - from;
	p->sn = from;
	if (l->kind == PK_OBJECT)
		return 0;
	if (l->kind != (set ? PK_SET : PK_LIST))
		return pk_fail(p, e, _("%s on a %s"), set ? "ADDITEMS" : "APPEND",
			       pk_kind_name(l->kind)), -1;
	return add_items(p, l, p->stack + from, n, e);
}

/* BINFLOAT: 8 bytes big-endian IEEE 754. */
static double be_double(const unsigned char *s)
{
	uint64_t u = 0;
	double d;
	for (int i = 0; i < 8; i++)
		u = u << 8 | s[i];
	memcpy(&d, &u, sizeof d);
	return d;
}

/* LONG1/LONG4: little-endian two's complement of n bytes. */
static struct pk_value *long_n(struct pk *p, const unsigned char *s, uint64_t n,
			       struct err *e)
{
	if (n > 8) {     /* a big int is no tensor's business: kept as an opaque value */
		return new_str(p, PK_OBJECT, "int", 3, e);
	}
	uint64_t u = n ? le(s, (int)n) : 0;
	if (n && n < 8 && (s[n - 1] & 0x80))
		u |= ~0ull << (8 * n);
	return new_int(p, PK_INT, (int64_t)u, e);
}

/* One opcode; 1 at STOP. */
static int step(struct pk *p, struct err *e)
{
	const unsigned char *a;
	struct pk_value *v, *w;
	size_t from, n;
	long long ll;
	p->op = p->pos;
	if (p->pos >= p->len)
		return pk_fail(p, e, _("truncated (no STOP)")), -1;
	unsigned char op = p->buf[p->pos++];
	switch (op) {
	case 0x80:   /* PROTO */
		if (!(a = take(p, 1, e)))
			return -1;
		if (a[0] > 5)
			return pk_fail(p, e, _("pickle protocol %d is newer than 5"), a[0]), -1;
		return 0;
	case 0x95:   /* FRAME: only a length hint */
		return take(p, 8, e) ? 0 : -1;
	case '.':    /* STOP */
		return 1;
	case '(':    /* MARK */
		if (p->mn >= PK_MAX_VALUES)
			return pk_fail(p, e, _("more than %zu marks on the stack"),
				       (size_t)PK_MAX_VALUES), -1;
		if (grow((void **)&p->marks, &p->mcap, p->mn + 1, sizeof *p->marks))
			return pk_fail(p, e, _("out of memory")), -1;
		p->marks[p->mn++] = p->sn;
		return 0;
	case '0':    /* POP */
		if (p->sn > stack_floor(p))
			return pop(p, e) ? 0 : -1;
		return pop_mark(p, &from, e);
	case '1':    /* POP_MARK */
		if (pop_mark(p, &from, e))
			return -1;
		p->sn = from;
		return 0;
	case '2':    /* DUP */
		return (v = top(p, e)) ? push(p, v, e) : -1;
	case '}': return push(p, pk_new(p, PK_DICT, e), e);
	case ']': return push(p, pk_new(p, PK_LIST, e), e);
	case ')': return push(p, pk_new(p, PK_TUPLE, e), e);
	case 0x8f: return push(p, pk_new(p, PK_SET, e), e);   /* EMPTY_SET */
	case 'N': return push(p, pk_new(p, PK_NONE, e), e);
	case 0x88: return push(p, new_int(p, PK_BOOL, 1, e), e);
	case 0x89: return push(p, new_int(p, PK_BOOL, 0, e), e);
	case 't': case 'l': case 0x91:   /* TUPLE, LIST, FROZENSET */
	case 'd': {  /* DICT */
		if (pop_mark(p, &from, e))
			return -1;
		n = p->sn - from;
		if (op == 'd' && n % 2)
			return pk_fail(p, e, _("DICT with an odd number of items")), -1;
		v = new_seq(p, op == 't' ? PK_TUPLE : op == 'l' ? PK_LIST :
			    op == 'd' ? PK_DICT : PK_SET, n ? p->stack + from : NULL, n, e);
		p->sn = from;
		return push(p, v, e);
	}
	case 0x85: case 0x86: case 0x87:   /* TUPLE1..3 */
		n = (size_t)(op - 0x84);
		if (p->sn < stack_floor(p) + n)
			return pk_fail(p, e, _("stack underflow")), -1;
		v = new_seq(p, PK_TUPLE, p->stack + p->sn - n, n, e);
		p->sn -= n;
		return push(p, v, e);
	case 'a':    /* APPEND */
		if (p->sn < stack_floor(p) + 2)
			return pk_fail(p, e, _("stack underflow")), -1;
		return appends(p, p->sn - 1, e, 0);
	case 'e':    /* APPENDS */
		return pop_mark(p, &from, e) ? -1 : appends(p, from, e, 0);
	case 0x90:   /* ADDITEMS */
		return pop_mark(p, &from, e) ? -1 : appends(p, from, e, 1);
	case 's':    /* SETITEM */
		if (p->sn < stack_floor(p) + 3)
			return pk_fail(p, e, _("stack underflow")), -1;
		return setitems(p, p->sn - 2, e);
	case 'u':    /* SETITEMS */
		return pop_mark(p, &from, e) ? -1 : setitems(p, from, e);
	case 'X': case 0x8c: case 0x8d:    /* BINUNICODE, SHORT_, 8 */
	case 'T': case 'U':                /* BINSTRING, SHORT_BINSTRING */
	case 'B': case 'C': case 0x8e: case 0x96: {   /* BINBYTES, SHORT_, 8, BYTEARRAY8 */
		int w8 = op == 0x8c || op == 'U' || op == 'C' ? 1 :
			 op == 0x8d || op == 0x8e || op == 0x96 ? 8 : 4;
		if (!(a = take(p, (uint64_t)w8, e)))
			return -1;
		uint64_t len = le(a, w8);
		if (op == 'T' && len > 0x7fffffffu)
			return pk_fail(p, e, _("negative string length")), -1;
		if (!(a = take(p, len, e)))
			return -1;
		int text = op == 'X' || op == 0x8c || op == 0x8d || op == 'T' || op == 'U';
		return push(p, new_str(p, text ? PK_STR : PK_BYTES, a, (size_t)len, e), e);
	}
	case 'J':    /* BININT */
		if (!(a = take(p, 4, e)))
			return -1;
		return push(p, new_int(p, PK_INT, (int32_t)(uint32_t)le(a, 4), e), e);
	case 'K': case 'M':   /* BININT1, BININT2 */
		if (!(a = take(p, op == 'K' ? 1 : 2, e)))
			return -1;
		return push(p, new_int(p, PK_INT, (int64_t)le(a, op == 'K' ? 1 : 2), e), e);
	case 0x8a: case 0x8b: {   /* LONG1, LONG4 */
		if (!(a = take(p, op == 0x8a ? 1 : 4, e)))
			return -1;
		uint64_t len = le(a, op == 0x8a ? 1 : 4);
		if (op == 0x8b && len > 0x7fffffffu)
			return pk_fail(p, e, _("negative integer length")), -1;
		if (!(a = take(p, len, e)))
			return -1;
		return push(p, long_n(p, a, len, e), e);
	}
	case 'I': case 'L':   /* INT, LONG (text) */
		if (line_int(p, &ll, e))
			return -1;
		/* protocol 0 writes True and False as I01 and I00 */
		if (op == 'I' && p->pos >= 4 && p->buf[p->pos - 3] == '0' &&
		    p->buf[p->pos - 4] == 'I' && ll <= 1)
			return push(p, new_int(p, PK_BOOL, ll, e), e);
		return push(p, new_int(p, PK_INT, ll, e), e);
	case 'G':    /* BINFLOAT */
		if (!(a = take(p, 8, e)))
			return -1;
		if ((v = pk_new(p, PK_FLOAT, e)))
			v->f = be_double(a);
		return push(p, v, e);
	case 'F': {  /* FLOAT (text) */
		char buf[64], *end;
		const char *s = line(p, &n, e);
		if (!s)
			return -1;
		if (!n || n >= sizeof buf)
			return pk_fail(p, e, _("bad decimal number")), -1;
		memcpy(buf, s, n);
		buf[n] = 0;
		double d = strtod(buf, &end);
		if (*end)
			return pk_fail(p, e, _("bad decimal number")), -1;
		if ((v = pk_new(p, PK_FLOAT, e)))
			v->f = d;
		return push(p, v, e);
	}
	case 'q': case 'r':   /* BINPUT, LONG_BINPUT */
		if (!(a = take(p, op == 'q' ? 1 : 4, e)))
			return -1;
		return memo_put(p, le(a, op == 'q' ? 1 : 4), e);
	case 'p':    /* PUT */
		if (line_int(p, &ll, e))
			return -1;
		if (ll < 0)
			return pk_fail(p, e, _("negative memo index")), -1;
		return memo_put(p, (uint64_t)ll, e);
	case 0x94:   /* MEMOIZE */
		return memo_put(p, p->memolen, e);
	case 'h': case 'j':   /* BINGET, LONG_BINGET */
		if (!(a = take(p, op == 'h' ? 1 : 4, e)))
			return -1;
		return memo_get(p, le(a, op == 'h' ? 1 : 4), e);
	case 'g':    /* GET */
		if (line_int(p, &ll, e))
			return -1;
		if (ll < 0)
			return pk_fail(p, e, _("negative memo index")), -1;
		return memo_get(p, (uint64_t)ll, e);
	case 'c': {  /* GLOBAL "module\nname\n" */
		size_t ml, nl;
		const char *m = line(p, &ml, e), *nm = m ? line(p, &nl, e) : NULL;
		return nm ? global(p, m, ml, nm, nl, e) : -1;
	}
	case 0x93:   /* STACK_GLOBAL */
		if (!(w = pop(p, e)) || !(v = pop(p, e)))
			return -1;
		if (v->kind != PK_STR || w->kind != PK_STR)
			return pk_fail(p, e, _("STACK_GLOBAL needs two strings")), -1;
		return global(p, v->s, v->len, w->s, w->len, e);
	case 'R':    /* REDUCE */
	case 0x81:   /* NEWOBJ */
		if (!(w = pop(p, e)) || !(v = pop(p, e)))
			return -1;
		return push(p, call(p, v, w, op == 0x81, e), e);
	case 0x92:   /* NEWOBJ_EX: cls, args, kwargs */
		if (!pop(p, e) || !(w = pop(p, e)) || !(v = pop(p, e)))
			return -1;
		return push(p, call(p, v, w, 1, e), e);
	case 'b':    /* BUILD: obj.__setstate__(state); the state is dropped */
		if (!pop(p, e) || !top(p, e))
			return -1;
		return 0;
	case 'Q':    /* BINPERSID */
	case 'P': {  /* PERSID (text) */
		if (op == 'Q') {
			if (!(v = pop(p, e)))
				return -1;
		} else {
			const char *s = line(p, &n, e);
			if (!s || !(v = new_str(p, PK_STR, s, n, e)))
				return -1;
		}
		if (!p->h || !p->h->persid)
			return pk_fail(p, e, _("a persistent id in a plain pickle")), -1;
		return push(p, p->h->persid(p, p->h->ctx, v, e), e);
	}
	default:
		/* INST, OBJ, EXT1-4, STRING, UNICODE, buffers: not used by
		 * torch.save or pickle.dump of data at protocols 2-5 */
		return pk_fail(p, e, _("unsupported opcode 0x%02x"), op), -1;
	}
}

struct pk_value *pk_load(struct pk **pp, const char *what, const void *buf,
			 size_t len, const struct pk_hooks *hooks, struct err *e)
{
	struct pk *p = calloc(1, sizeof *p);
	*pp = p;
	if (!p || !(p->what = strdup(what))) {
		err_set(e, "%s: out of memory", what);
		return NULL;
	}
	p->buf = buf;
	p->len = len;
	p->h = hooks;
	p->maxvalues = len < (PK_MAX_VALUES - 64) / 2 ? 2 * len + 64 : PK_MAX_VALUES;
	int rc;
	while (!(rc = step(p, e)))
		;
	if (rc < 0)
		return NULL;
	if (p->mn || p->sn != 1)
		return pk_fail(p, e, _("STOP with %zu values and %zu marks on the stack"),
			       p->sn, p->mn);
	return p->stack[0];
}

struct pk_value *pk_dict_get(const struct pk_value *d, const char *key)
{
	if (!d || d->kind != PK_DICT)
		return NULL;
	for (size_t i = d->n / 2; i-- > 0;) {
		const struct pk_value *k = d->items[2 * i];
		if (k->kind == PK_STR && !strcmp(k->s, key))
			return d->items[2 * i + 1];
	}
	return NULL;
}
