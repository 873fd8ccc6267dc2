/* ydoc.c - libyaml events -> a small tree with line numbers and limits. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

#include "ydoc.h"
#include "base/i18n.h"
#include "base/safefile.h"

/* Limits that keep an untrusted document's cost bounded (about 100 MB and
 * a second at most).  Inline tensors and vocabularies are for hand-written
 * models; big vocabularies go in a file (vocab.c) and big weights in
 * safetensors, whose JSON header (up to 100 MB) is parsed here too. */
#define YDOC_MAX_DEPTH 64
#define YDOC_MAX_BYTES (128u << 20)   /* text given to ydoc_parse */
#define YDOC_MAX_FILE (64u << 20)     /* a YAML or JSON file larger than this is refused (a tokenizer.json holds up to ~35 MB) */

/* All nodes and strings of a document live in one chunked pool. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct pool {
	struct chunk *head;
	size_t nodes;
};

static void *pool_alloc(struct pool *p, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!p->head || p->head->cap - p->head->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		struct chunk *c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->next = p->head;
		c->used = 0;
		c->cap = cap;
		p->head = c;
	}
	void *r = (char *)p->head->data + p->head->used;
	p->head->used += n;
	return r;
}

static void pool_free(struct pool *p)
{
	while (p && p->head) {
		struct chunk *c = p->head;
		p->head = c->next;
		free(c);
	}
	free(p);
}

/* A growable list of child pointers used while a collection is open. */
struct frame {
	struct ynode *node;
	struct ynode **items;
	size_t n, cap;
};

static int frame_push(struct frame *f, struct ynode *child)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct ynode **it = realloc(f->items, cap * sizeof *it);
		if (!it)
			return -1;
		f->items = it;
		f->cap = cap;
	}
	f->items[f->n++] = child;
	return 0;
}

/* A key of a mapping, for finding the ones given twice. */
struct mkey {
	const struct ynode *k;
	size_t idx;
};

static int cmp_key(const struct ynode *x, const struct ynode *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->str, y->str, n);
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static int cmp_mkey(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;
	int c = cmp_key(x->k, y->k);
	return c ? c : x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The mapping c (its n pairs) with no scalar key twice, or an error
 * naming the earliest repetition in the file.  n log n: a safetensors
 * header has a key a tensor. */
static int map_unique(const char *file, const struct ynode *c, struct err *e)
{
	if (c->n < 2)
		return 0;
	struct mkey *k = malloc(c->n * sizeof *k);
	if (!k)
		return err_set(e, "%s: out of memory", file);
	size_t nk = 0, second = SIZE_MAX;
	const struct ynode *again = NULL;
	int first_line = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[2 * i]->kind == Y_SCALAR)
			k[nk].k = c->items[2 * i], k[nk++].idx = i;
	qsort(k, nk, sizeof *k, cmp_mkey);   /* equal keys: in file order */
	for (size_t g = 0, i; g < nk; g = i) {
		for (i = g + 1; i < nk && cmp_key(k[i].k, k[g].k) == 0; i++)
			;
		if (i - g < 2)
			continue;
		if (k[g + 1].idx < second) {
			second = k[g + 1].idx;
			again = k[g + 1].k;
			first_line = k[g].k->line;
		}
	}
	free(k);
	if (!again)
		return 0;
	return err_set(e, "%s:%d: key \"%.60s\" given twice (first at line %d)", file,
		       again->line, again->str, first_line);
}

static int parse(struct ydoc *doc, const char *file, const void *buf, size_t len, int flags,
		 size_t max_nodes, struct err *e);

int ydoc_parse(struct ydoc *doc, const char *file, const void *buf, size_t len,
	       struct err *e)
{
	return parse(doc, file, buf, len, 0, YDOC_MAX_NODES, e);
}

int ydoc_parse_max(struct ydoc *doc, const char *file, const void *buf, size_t len,
		   size_t max_nodes, struct err *e)
{
	return parse(doc, file, buf, len, 0, max_nodes, e);
}

int ydoc_parse_flags(struct ydoc *doc, const char *file, const void *buf, size_t len,
		     int flags, struct err *e)
{
	return parse(doc, file, buf, len, flags, YDOC_MAX_NODES, e);
}

/* A tree being built from libyaml's events: the open collections and
 * what bounds the document. */
struct builder {
	struct ydoc *doc;
	const char *file;
	struct pool *pool;
	struct frame stack[YDOC_MAX_DEPTH + 1];
	int depth, flags, have_doc, done;
	size_t max_nodes;
	struct err *e;
};

/* libyaml's error, with the line it happened on. */
static void parser_error(const yaml_parser_t *parser, const char *file, const void *buf,
			 size_t len, struct err *e)
{
	size_t line = (size_t)parser->problem_mark.line + 1;
	if (parser->error == YAML_READER_ERROR) {
		/* reader errors carry a byte offset, not a mark */
		const char *b = buf;
		line = 1;
		for (size_t i = 0; i < parser->problem_offset && i < len; i++)
			line += b[i] == '\n';
	}
	err_set(e, "%s:%zu: %s%s%s", file, line,
		parser->problem ? parser->problem : _("malformed YAML"),
		parser->context ? " " : "",
		parser->context ? parser->context : "");
}

/* A new scalar, sequence or mapping: into its parent, or the root; a
 * collection opens a frame. */
static int on_node(struct builder *b, const yaml_event_t *ev, int line)
{
	const char *file = b->file;
	if (++b->pool->nodes > b->max_nodes)
		return err_set(b->e, "%s:%d: too many YAML nodes (limit %u)",
			       file, line, (unsigned)b->max_nodes);
	struct ynode *node = pool_alloc(b->pool, sizeof *node);
	if (!node)
		return err_set(b->e, "%s: out of memory", file);
	memset(node, 0, sizeof *node);
	node->line = line;
	if (ev->type == YAML_SCALAR_EVENT) {
		size_t n = ev->data.scalar.length;
		node->kind = Y_SCALAR;
		node->str = pool_alloc(b->pool, n + 1);
		if (!node->str)
			return err_set(b->e, "%s: out of memory", file);
		memcpy(node->str, ev->data.scalar.value, n);
		node->str[n] = 0;
		node->len = n;
		node->quoted = ev->data.scalar.style ==
				YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			ev->data.scalar.style ==
				YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	} else {
		node->kind = ev->type == YAML_SEQUENCE_START_EVENT ?
				     Y_SEQ : Y_MAP;
	}
	if (b->depth == 0)
		b->doc->root = node;
	else if (frame_push(&b->stack[b->depth - 1], node))
		return err_set(b->e, "%s: out of memory", file);
	if (node->kind != Y_SCALAR) {
		if (b->depth >= YDOC_MAX_DEPTH)
			return err_set(b->e, "%s:%d: YAML nested deeper than %d levels",
				       file, line, YDOC_MAX_DEPTH);
		b->stack[b->depth].node = node;
		b->stack[b->depth].n = 0;
		b->depth++;
	}
	return 0;
}

/* The end of a sequence or mapping: its items into the pool, and a
 * mapping's keys checked for repeats. */
static int on_end(struct builder *b)
{
	struct frame *f = &b->stack[--b->depth];
	struct ynode *c = f->node;
	c->items = pool_alloc(b->pool, (f->n ? f->n : 1) * sizeof *c->items);
	if (!c->items)
		return err_set(b->e, "%s: out of memory", b->file);
	if (f->n)
		memcpy(c->items, f->items, f->n * sizeof *c->items);
	c->n = c->kind == Y_MAP ? f->n / 2 : f->n;
	f->n = 0;
	if (c->kind == Y_MAP && !(b->depth == 0 && (b->flags & YDOC_TOP_DUPS_OK)) &&
	    map_unique(b->file, c, b->e))
		return -1;
	return 0;
}

/* One event into the tree; -1 with e set when the document is refused. */
static int on_event(struct builder *b, const yaml_event_t *ev)
{
	int line = (int)ev->start_mark.line + 1;
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		b->done = 1;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (b->have_doc)
			return err_set(b->e, "%s:%d: more than one YAML document",
				       b->file, line);
		b->have_doc = 1;
		return 0;
	case YAML_ALIAS_EVENT:
		return err_set(b->e, "%s:%d: YAML aliases are not allowed in model files",
			       b->file, line);
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return on_node(b, ev, line);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(b);
	default:
		return 0;
	}
}

/* libyaml's events into doc's tree, at most max_nodes nodes. */
static int parse(struct ydoc *doc, const char *file, const void *buf, size_t len, int flags,
		 size_t max_nodes, struct err *e)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct builder b = {
		.doc = doc, .file = file, .flags = flags, .max_nodes = max_nodes, .e = e,
	};
	int rc = -1;
	struct pool *pool = calloc(1, sizeof *pool);

	memset(doc, 0, sizeof *doc);
	doc->file = file;
	if (!pool)
		return err_set(e, "%s: out of memory", file);
	if (len > YDOC_MAX_BYTES) {
		free(pool);
		return err_set(e, "%s: file too large (%zu bytes)", file, len);
	}
	if (!yaml_parser_initialize(&parser)) {
		free(pool);
		return err_set(e, "%s: cannot initialise YAML parser", file);
	}
	yaml_parser_set_input_string(&parser, buf, len);
	b.pool = pool;

	while (!b.done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			parser_error(&parser, file, buf, len, e);
			goto out;
		}
		int bad = on_event(&b, &ev);
		yaml_event_delete(&ev);
		if (bad)
			goto out;
	}
	rc = 0;
out:
	for (int i = 0; i <= YDOC_MAX_DEPTH; i++)
		free(b.stack[i].items);
	yaml_parser_delete(&parser);
	if (rc) {
		pool_free(pool);
		doc->root = NULL;
	} else {
		doc->pool = pool;
	}
	return rc;
}

int ydoc_read(const char *path, char **out, size_t *outlen, struct err *e)
{
	struct stat sb;
	/* not /dev/zero or a pipe: those would be read until memory runs out */
	FILE *fp = safefile_fopen_read(path, e);
	if (!fp)
		return -1;
	int er = fstat(fileno(fp), &sb) ? errno : 0;
	if (er || (uintmax_t)sb.st_size > YDOC_MAX_FILE) {
		fclose(fp);
		if (er)
			return err_set(e, "%s: %s", path, strerror(er));
		return err_set(e, "%s: file too large (%jd bytes; YAML files are limited to "
			       "%u MB: big weights go in safetensors)", path,
			       (intmax_t)sb.st_size, YDOC_MAX_FILE >> 20);
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			if (cap > (size_t)YDOC_MAX_FILE + 65536) {
				free(buf);
				fclose(fp);
				return err_set(e, "%s: file too large", path);
			}
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(fp);
				return err_set(e, "%s: out of memory", path);
			}
			buf = nb;
		}
		size_t r = fread(buf + len, 1, cap - len, fp);
		len += r;
		if (r == 0)
			break;
	}
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		free(buf);
		return err_set(e, "%s: read error", path);
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int ydoc_load(struct ydoc *doc, const char *path, struct err *e)
{
	char *buf;
	size_t len;
	memset(doc, 0, sizeof *doc);
	if (ydoc_read(path, &buf, &len, e))
		return -1;
	int rc = ydoc_parse(doc, path, buf, len, e);
	free(buf);
	return rc;
}

void ydoc_free(struct ydoc *doc)
{
	pool_free(doc->pool);
	doc->pool = NULL;
	doc->root = NULL;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != Y_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->items[2 * i];
		if (k->kind == Y_SCALAR && strcmp(k->str, key) == 0)
			return map->items[2 * i + 1];
	}
	return NULL;
}

const char *ynode_kind_name(enum ynode_kind k)
{
	/* TRANSLATORS: kinds of YAML node, put in messages such as "found a
	   %s" and "entry is a %s": translate without an article (the
	   messages are translated so as to read well without one) */
	return k == Y_SCALAR ? _("scalar") : k == Y_SEQ ? _("sequence") : _("mapping");
}

/* Rewrites a ynode error "file:line: what" as "file:line: key: what". */
int ynode_keyed(const struct ydoc *d, const struct ynode *n, const char *key,
		struct err *e)
{
	char rest[sizeof e->msg];
	const char *p = e->msg;
	size_t fl = strlen(d->file);
	if (strncmp(p, d->file, fl) == 0 && p[fl] == ':') {
		p += fl + 1;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == ':')
			p++;
		if (*p == ' ')
			p++;
	}
	snprintf(rest, sizeof rest, "%s", p);
	return err_set(e, "%s:%d: %s: %s", d->file, n->line, key, rest);
}

int ynode_int(const struct ydoc *d, const struct ynode *n, long long lo,
	      long long hi, long long *out, struct err *e)
{
	if (n->kind != Y_SCALAR)
		return err_set(e, "%s:%d: expected an integer, found a %s", d->file,
			       n->line, ynode_kind_name(n->kind));
	char *end;
	errno = 0;
	long long v = strtoll(n->str, &end, 10);
	if (errno || end == n->str || *end || n->quoted)
		return err_set(e, "%s:%d: expected an integer, found \"%.40s\"",
			       d->file, n->line, n->str);
	if (v < lo || v > hi)
		return err_set(e, "%s:%d: %lld is out of range [%lld, %lld]",
			       d->file, n->line, v, lo, hi);
	*out = v;
	return 0;
}

int ynode_u64(const struct ydoc *d, const struct ynode *n, uint64_t *out,
	      struct err *e)
{
	if (n->kind != Y_SCALAR)
		return err_set(e, "%s:%d: expected an unsigned integer, found a %s", d->file,
			       n->line, ynode_kind_name(n->kind));
	const char *s = n->str;
	if (*s < '0' || *s > '9' || n->quoted)
		return err_set(e, "%s:%d: expected an unsigned integer, found \"%.40s\"",
			       d->file, n->line, s);
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned digit = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return err_set(e, "%s:%d: integer %.40s overflows 64 bits",
				       d->file, n->line, n->str);
		v = v * 10 + digit;
	}
	if (*s)
		return err_set(e, "%s:%d: expected an unsigned integer, found \"%.40s\"",
			       d->file, n->line, n->str);
	*out = v;
	return 0;
}

int ynode_float(const struct ydoc *d, const struct ynode *n, double *out,
		struct err *e)
{
	if (n->kind != Y_SCALAR)
		return err_set(e, "%s:%d: expected a number, found a %s", d->file,
			       n->line, ynode_kind_name(n->kind));
	const char *s = n->str;
	char *end;
	double v;
	if (!strcasecmp(s, ".inf") || !strcasecmp(s, "+.inf") || !strcasecmp(s, "inf"))
		v = INFINITY;
	else if (!strcasecmp(s, "-.inf") || !strcasecmp(s, "-inf"))
		v = -INFINITY;
	else if (!strcasecmp(s, ".nan") || !strcasecmp(s, "nan"))
		v = NAN;
	else {
		errno = 0;
		v = strtod(s, &end);
		if (end == s || *end || n->quoted)
			return err_set(e, "%s:%d: expected a number, found \"%.40s\"",
				       d->file, n->line, s);
	}
	*out = v;
	return 0;
}

int ynode_bool(const struct ydoc *d, const struct ynode *n, int *out,
	       struct err *e)
{
	if (n->kind != Y_SCALAR)
		return err_set(e, "%s:%d: expected true or false, found a %s", d->file,
			       n->line, ynode_kind_name(n->kind));
	static const char *yes[] = { "true", "yes", "on" };
	static const char *no[] = { "false", "no", "off" };
	for (int i = 0; i < 3; i++) {
		if (!strcasecmp(n->str, yes[i])) { *out = 1; return 0; }
		if (!strcasecmp(n->str, no[i])) { *out = 0; return 0; }
	}
	return err_set(e, "%s:%d: expected true or false, found \"%.40s\"",
		       d->file, n->line, n->str);
}

const char *ynode_str(const struct ydoc *d, const struct ynode *n,
		      struct err *e)
{
	if (n->kind != Y_SCALAR) {
		err_set(e, "%s:%d: expected a string, found a %s", d->file,
			n->line, ynode_kind_name(n->kind));
		return NULL;
	}
	return n->str;
}
