/* test_ydoc.c - the YAML/JSON tree: kinds, line numbers, limits and the
 * scalar conversions.
 *
 * Every expected value here is written out by hand from the input text
 * (which line a node starts on, what a number is); the parser's output is
 * compared against it, and every refusal must be -1 with a one-line
 * message that names the file (and line) and what is wrong. */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"   /* tests/tap.h, without an -I for tests/ */
#include "formats/ydoc.h"

static int parse(struct ydoc *d, const char *text, struct err *e)
{
	e->msg[0] = 0;
	return ydoc_parse(d, "t.yaml", text, strlen(text), e);
}

/* A node has this kind, line (and for scalars, value). */
static void expect_node(const struct ynode *n, enum ynode_kind kind, int line,
			const char *str, const char *what)
{
	int ok = n && n->kind == kind && n->line == line &&
		 (!str || (n->str && strcmp(n->str, str) == 0 &&
			   n->len == strlen(str)));
	tap_ok(ok, "%s: %s at line %d%s%s", what, ynode_kind_name(kind), line,
	       str ? " = " : "", str ? str : "");
	if (!ok) {
		if (!n)
			printf("# node is NULL\n");
		else
			printf("# got %s at line %d%s%s (len %zu)\n",
			       ynode_kind_name(n->kind), n->line,
			       n->kind == Y_SCALAR ? " = " : "",
			       n->kind == Y_SCALAR ? n->str : "", n->len);
	}
}

/* parse must fail; the one-line message starts with "t.yaml:" (and
 * "t.yaml:LINE:" when line > 0) and contains word. */
static void expect_refused(const char *text, int line, const char *word,
			   const char *what)
{
	struct ydoc d;
	struct err e;
	int rc = parse(&d, text, &e);
	tap_ok(rc == -1 && d.root == NULL && !strchr(e.msg, '\n'),
	       "%s: refused with one line", what);
	printf("# %s\n", e.msg);
	if (rc == 0)
		ydoc_free(&d);
	char prefix[64];
	if (line > 0)
		snprintf(prefix, sizeof prefix, "t.yaml:%d:", line);
	else
		snprintf(prefix, sizeof prefix, "t.yaml:");
	int ok = strncmp(e.msg, prefix, strlen(prefix)) == 0;
	tap_ok(ok, "%s: message starts with \"%s\"", what, prefix);
	if (!ok)
		printf("# got \"%s\"\n", e.msg);
	tap_contains(e.msg, word, "  message says what is wrong");
}

static void test_block(void)
{
	static const char text[] =
		"name: tiny\n"              /* 1 */
		"list:\n"                   /* 2 */
		"  - 1\n"                   /* 3 */
		"  - two\n"                 /* 4 */
		"\n"                        /* 5 */
		"map:\n"                    /* 6 */
		"  k: \"quoted v\"\n"       /* 7 */
		"  n: 'single'\n"           /* 8 */
		"  empty: []\n"             /* 9 */
		"flow: [a, {b: c}]\n";      /* 10 */
	struct ydoc d;
	struct err e;
	int rc = parse(&d, text, &e);
	tap_ok(rc == 0, "block YAML parses");
	if (rc) {
		printf("# %s\n", e.msg);
		return;
	}
	const struct ynode *r = d.root;
	expect_node(r, Y_MAP, 1, NULL, "root");
	tap_ok(r && r->n == 4, "root has 4 keys (got %zu)", r ? r->n : 0);
	tap_str(d.file, "t.yaml", "doc remembers the file name");
	expect_node(r->items[0], Y_SCALAR, 1, "name", "key name");
	expect_node(ynode_get(r, "name"), Y_SCALAR, 1, "tiny", "name value");
	tap_ok(!ynode_get(r, "name")->quoted, "plain scalar is not quoted");

	const struct ynode *l = ynode_get(r, "list");
	expect_node(l, Y_SEQ, 3, NULL, "list");
	tap_ok(l && l->n == 2, "list has 2 items (got %zu)", l ? l->n : 0);
	if (l && l->n == 2) {
		expect_node(l->items[0], Y_SCALAR, 3, "1", "list[0]");
		expect_node(l->items[1], Y_SCALAR, 4, "two", "list[1]");
	}

	const struct ynode *m = ynode_get(r, "map");
	expect_node(m, Y_MAP, 7, NULL, "map");
	tap_ok(m && m->n == 3, "map has 3 keys (got %zu)", m ? m->n : 0);
	const struct ynode *k = ynode_get(m, "k");
	expect_node(k, Y_SCALAR, 7, "quoted v", "map.k");
	tap_ok(k && k->quoted, "double-quoted scalar is marked quoted");
	const struct ynode *n = ynode_get(m, "n");
	expect_node(n, Y_SCALAR, 8, "single", "map.n");
	tap_ok(n && n->quoted, "single-quoted scalar is marked quoted");
	const struct ynode *em = ynode_get(m, "empty");
	expect_node(em, Y_SEQ, 9, NULL, "map.empty");
	tap_ok(em && em->n == 0, "empty flow list has 0 items");

	const struct ynode *f = ynode_get(r, "flow");
	expect_node(f, Y_SEQ, 10, NULL, "flow");
	if (f && f->n == 2) {
		expect_node(f->items[0], Y_SCALAR, 10, "a", "flow[0]");
		expect_node(f->items[1], Y_MAP, 10, NULL, "flow[1]");
		expect_node(ynode_get(f->items[1], "b"), Y_SCALAR, 10, "c", "flow[1].b");
	} else {
		tap_ok(0, "flow has 2 items (got %zu)", f ? f->n : 0);
	}
	tap_ok(ynode_get(r, "absent") == NULL, "ynode_get: absent key is NULL");
	tap_ok(ynode_get(l, "1") == NULL, "ynode_get on a sequence is NULL");

	tap_str(ynode_str(&d, ynode_get(r, "name"), &e), "tiny", "ynode_str on a scalar");
	e.msg[0] = 0;
	tap_ok(ynode_str(&d, l, &e) == NULL, "ynode_str on a sequence is NULL");
	tap_contains(e.msg, "t.yaml:3:", "  message names file:line");
	tap_str(ynode_kind_name(Y_MAP), "mapping", "kind name mapping");
	tap_str(ynode_kind_name(Y_SEQ), "sequence", "kind name sequence");
	tap_str(ynode_kind_name(Y_SCALAR), "scalar", "kind name scalar");
	ydoc_free(&d);
	tap_ok(d.root == NULL && d.pool == NULL, "ydoc_free clears the document");
}

static void test_json(void)
{
	static const char text[] =
		"{\"a\": [1, 2.5, \"x\"],\n"           /* 1 */
		" \"b\": {\"c\": true,\n"              /* 2 */
		"        \"d\": null},\n"              /* 3 */
		" \"s p\": \"caf\\u00e9 \\\"q\\\"\"}"; /* 4 */
	struct ydoc d;
	struct err e;
	int rc = parse(&d, text, &e);
	tap_ok(rc == 0, "JSON parses");
	if (rc) {
		printf("# %s\n", e.msg);
		return;
	}
	const struct ynode *r = d.root;
	expect_node(r, Y_MAP, 1, NULL, "JSON root");
	tap_ok(r->n == 3, "JSON root has 3 keys (got %zu)", r->n);
	const struct ynode *a = ynode_get(r, "a");
	expect_node(a, Y_SEQ, 1, NULL, "JSON a");
	if (a && a->n == 3) {
		expect_node(a->items[0], Y_SCALAR, 1, "1", "JSON a[0]");
		expect_node(a->items[1], Y_SCALAR, 1, "2.5", "JSON a[1]");
		expect_node(a->items[2], Y_SCALAR, 1, "x", "JSON a[2]");
		tap_ok(a->items[2]->quoted && !a->items[0]->quoted,
		       "JSON strings quoted, numbers not");
	} else {
		tap_ok(0, "JSON a has 3 items");
	}
	const struct ynode *b = ynode_get(r, "b");
	expect_node(b, Y_MAP, 2, NULL, "JSON b");
	expect_node(ynode_get(b, "c"), Y_SCALAR, 2, "true", "JSON b.c");
	expect_node(ynode_get(b, "d"), Y_SCALAR, 3, "null", "JSON b.d");
	/* café = 63 61 66 c3 a9, then space, "q" in quotes */
	expect_node(ynode_get(r, "s p"), Y_SCALAR, 4, "caf\xc3\xa9 \"q\"",
		    "JSON escapes decoded");
	ydoc_free(&d);

	rc = parse(&d, "", &e);
	tap_ok(rc == 0 && d.root == NULL, "empty input: no error, no root");
	if (!rc)
		ydoc_free(&d);
}

static void test_refusals(void)
{
	expect_refused("a: &x 1\nb: *x\n", 2, "alias", "alias");
	expect_refused("a: [1, 2\nb: 3\n", 0, "", "unclosed flow sequence");
	expect_refused("a: 1\nb: 2\n  c: 3\n", 3, "mapping values",
		       "mapping value in the wrong place");
	expect_refused("a: \"open\n\n", 0, "", "unterminated quote");
	expect_refused("a: 1\n---\nb: 2\n", 2, "more than one", "two documents");
	expect_refused("a: 1\nb: 2\nkey: x\x01" "bad\n", 3, "control", "control character on line 3");
	expect_refused("a: 1\nb: 2\nkey: caf\xe9\n", 3, "UTF-8", "invalid UTF-8 (Latin-1 byte) on line 3");

	/* 64 nested sequences are allowed, 65 are not */
	char deep[200];
	for (int levels = 64; levels <= 65; levels++) {
		memset(deep, '[', (size_t)levels);
		memset(deep + levels, ']', (size_t)levels);
		deep[2 * levels] = 0;
		struct ydoc d;
		struct err e;
		int rc = parse(&d, deep, &e);
		if (levels == 64) {
			tap_ok(rc == 0, "64 nested levels accepted");
			if (rc)
				printf("# %s\n", e.msg);
			else
				ydoc_free(&d);
		} else {
			expect_refused(deep, 1, "deeper than 64", "65 nested levels");
		}
	}
	/* nested mappings in block style, 70 deep */
	char *blk = malloc(70 * 80);
	size_t len = 0;
	for (int i = 0; i < 70; i++)
		len += (size_t)sprintf(blk + len, "%*sk%d:\n", i, "", i);
	len += (size_t)sprintf(blk + len, "%*sleaf\n", 70, "");
	expect_refused(blk, 65, "deeper", "70 nested block mappings (line of the 65th)");
	free(blk);
}

/* Billion laughs: 10 levels of 10 aliases, 10^10 leaves if expanded. */
static void test_laughs(void)
{
	char *t = malloc(4096);
	size_t n = (size_t)sprintf(t, "l0: &l0 \"lol\"\n");
	for (int i = 1; i <= 10; i++) {
		n += (size_t)sprintf(t + n, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			n += (size_t)sprintf(t + n, "%s*l%d", j ? ", " : "", i - 1);
		n += (size_t)sprintf(t + n, "]\n");
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct ydoc d;
	struct err e;
	int rc = parse(&d, t, &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	tap_ok(rc == -1, "billion laughs refused");
	printf("# %s\n", e.msg);
	if (rc == 0)
		ydoc_free(&d);
	tap_contains(e.msg, "t.yaml:2:", "  at the first alias, line 2");
	tap_contains(e.msg, "alias", "  message says alias");
	tap_ok(ms < 500, "billion laughs refused fast (%.2f ms < 500 ms)", ms);
	free(t);
}

static void test_int(void)
{
	static const char text[] =
		"a: 42\n"                      /* 1 */
		"b: -7\n"                      /* 2 */
		"c: 9223372036854775807\n"     /* 3 */
		"d: 9223372036854775808\n"     /* 4 */
		"e: \"5\"\n"                   /* 5 */
		"f: 1.5\n"                     /* 6 */
		"g: abc\n"                     /* 7 */
		"h: [1]\n"                     /* 8 */
		"i: 18446744073709551615\n"    /* 9 */
		"j: 18446744073709551616\n"    /* 10 */
		"k: -1\n"                      /* 11 */
		"l: 0\n"                       /* 12 */
		"m: 12x\n";                    /* 13 */
	struct ydoc d;
	struct err e;
	long long v;
	uint64_t u;
	if (parse(&d, text, &e)) {
		tap_ok(0, "integer document parses: %s", e.msg);
		return;
	}
	const struct ynode *r = d.root;
#define G(k) ynode_get(r, k)
	v = 0;
	tap_ok(ynode_int(&d, G("a"), 0, 100, &v, &e) == 0 && v == 42, "int 42 (got %lld)", v);
	v = 0;
	tap_ok(ynode_int(&d, G("b"), -10, 10, &v, &e) == 0 && v == -7, "int -7 (got %lld)", v);
	v = 0;
	tap_ok(ynode_int(&d, G("c"), 0, INT64_MAX, &v, &e) == 0 && v == INT64_MAX,
	       "int 2^63-1 (got %lld)", v);

	v = 12345;
	e.msg[0] = 0;
	tap_ok(ynode_int(&d, G("a"), 0, 41, &v, &e) == -1 && v == 12345,
	       "int 42 above hi 41 refused, out untouched");
	tap_contains(e.msg, "t.yaml:1:", "  names file:line");
	tap_contains(e.msg, "range", "  says out of range");
	e.msg[0] = 0;
	tap_ok(ynode_int(&d, G("b"), 0, 10, &v, &e) == -1, "int -7 below lo 0 refused");
	tap_contains(e.msg, "t.yaml:2:", "  names file:line");
	e.msg[0] = 0;
	tap_ok(ynode_int(&d, G("d"), LLONG_MIN, LLONG_MAX, &v, &e) == -1,
	       "int 2^63 (overflow) refused");
	tap_contains(e.msg, "t.yaml:4:", "  names file:line");
	e.msg[0] = 0;
	tap_ok(ynode_int(&d, G("e"), 0, 10, &v, &e) == -1, "quoted \"5\" is not an integer");
	tap_contains(e.msg, "t.yaml:5:", "  names file:line");
	tap_ok(ynode_int(&d, G("f"), 0, 10, &v, &e) == -1, "1.5 is not an integer");
	tap_ok(ynode_int(&d, G("g"), 0, 10, &v, &e) == -1, "abc is not an integer");
	tap_ok(ynode_int(&d, G("m"), 0, 100, &v, &e) == -1, "12x is not an integer");
	e.msg[0] = 0;
	tap_ok(ynode_int(&d, G("h"), 0, 10, &v, &e) == -1, "a sequence is not an integer");
	tap_contains(e.msg, "t.yaml:8:", "  names file:line");
	tap_contains(e.msg, "sequence", "  says what was found");

	u = 0;
	tap_ok(ynode_u64(&d, G("i"), &u, &e) == 0 && u == UINT64_MAX,
	       "u64 2^64-1 (got %" PRIu64 ")", u);
	u = 0;
	tap_ok(ynode_u64(&d, G("l"), &u, &e) == 0 && u == 0, "u64 0");
	u = 0;
	tap_ok(ynode_u64(&d, G("a"), &u, &e) == 0 && u == 42, "u64 42");
	u = 777;
	e.msg[0] = 0;
	tap_ok(ynode_u64(&d, G("j"), &u, &e) == -1 && u == 777,
	       "u64 2^64 refused, out untouched");
	tap_contains(e.msg, "t.yaml:10:", "  names file:line");
	tap_contains(e.msg, "overflow", "  says overflow");
	e.msg[0] = 0;
	tap_ok(ynode_u64(&d, G("k"), &u, &e) == -1, "u64 -1 refused");
	tap_contains(e.msg, "t.yaml:11:", "  names file:line");
	tap_ok(ynode_u64(&d, G("e"), &u, &e) == -1, "u64 quoted \"5\" refused");
	tap_ok(ynode_u64(&d, G("f"), &u, &e) == -1, "u64 1.5 refused");
	tap_ok(ynode_u64(&d, G("m"), &u, &e) == -1, "u64 12x refused");
	tap_ok(ynode_u64(&d, G("h"), &u, &e) == -1, "u64 of a sequence refused");
	ydoc_free(&d);
}

static void test_float_bool(void)
{
	static const char text[] =
		"a: 1.5e-3\n"      /* 1 */
		"b: -2\n"          /* 2 */
		"c: .inf\n"        /* 3 */
		"d: -.inf\n"       /* 4 */
		"e: .nan\n"        /* 5 */
		"f: \"1.0\"\n"     /* 6 */
		"g: 1.0x\n"        /* 7 */
		"h: {}\n"          /* 8 */
		"i: 0.25\n"        /* 9 */
		"t1: true\n"       /* 10 */
		"t2: yes\n"        /* 11 */
		"t3: On\n"         /* 12 */
		"f1: false\n"      /* 13 */
		"f2: no\n"         /* 14 */
		"f3: OFF\n"        /* 15 */
		"x: maybe\n"       /* 16 */
		"y: 1\n";          /* 17 */
	struct ydoc d;
	struct err e;
	double v;
	int b;
	if (parse(&d, text, &e)) {
		tap_ok(0, "float document parses: %s", e.msg);
		return;
	}
	const struct ynode *r = d.root;
	v = 0;
	tap_ok(ynode_float(&d, G("a"), &v, &e) == 0 && v == 1.5e-3, "float 1.5e-3 (got %g)", v);
	v = 0;
	tap_ok(ynode_float(&d, G("b"), &v, &e) == 0 && v == -2.0, "float -2 (got %g)", v);
	v = 0;
	tap_ok(ynode_float(&d, G("i"), &v, &e) == 0 && v == 0.25, "float 0.25 (got %g)", v);
	v = 0;
	tap_ok(ynode_float(&d, G("c"), &v, &e) == 0 && isinf(v) && v > 0, "float .inf (got %g)", v);
	v = 0;
	tap_ok(ynode_float(&d, G("d"), &v, &e) == 0 && isinf(v) && v < 0, "float -.inf (got %g)", v);
	v = 0;
	tap_ok(ynode_float(&d, G("e"), &v, &e) == 0 && isnan(v), "float .nan (got %g)", v);
	e.msg[0] = 0;
	tap_ok(ynode_float(&d, G("f"), &v, &e) == -1, "float quoted \"1.0\" refused");
	tap_contains(e.msg, "t.yaml:6:", "  names file:line");
	e.msg[0] = 0;
	tap_ok(ynode_float(&d, G("g"), &v, &e) == -1, "float 1.0x refused");
	tap_contains(e.msg, "t.yaml:7:", "  names file:line");
	e.msg[0] = 0;
	tap_ok(ynode_float(&d, G("h"), &v, &e) == -1, "float of a mapping refused");
	tap_contains(e.msg, "mapping", "  says what was found");

	static const struct { const char *k; int want; } bools[] = {
		{ "t1", 1 }, { "t2", 1 }, { "t3", 1 }, { "f1", 0 }, { "f2", 0 }, { "f3", 0 },
	};
	for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
		b = -1;
		tap_ok(ynode_bool(&d, G(bools[i].k), &b, &e) == 0 && b == bools[i].want,
		       "bool %s = %s (got %d)", G(bools[i].k)->str,
		       bools[i].want ? "true" : "false", b);
	}
	b = -1;
	e.msg[0] = 0;
	tap_ok(ynode_bool(&d, G("x"), &b, &e) == -1 && b == -1, "bool maybe refused");
	tap_contains(e.msg, "t.yaml:16:", "  names file:line");
	tap_ok(ynode_bool(&d, G("y"), &b, &e) == -1, "bool 1 refused");
	tap_ok(ynode_bool(&d, G("h"), &b, &e) == -1, "bool of a mapping refused");
#undef G
	ydoc_free(&d);
}

static void test_load(void)
{
	struct ydoc d;
	struct err e = { "" };
	tap_ok(ydoc_load(&d, "/nonexistent/dir/x.yaml", &e) == -1, "ydoc_load: missing file");
	tap_contains(e.msg, "/nonexistent/dir/x.yaml", "  message names the path");
}

/* A key given twice (issue 44): refused in any mapping, at any depth, in
 * block and flow style; YDOC_TOP_DUPS_OK lets the top level repeat (the caller checks). */
static void test_duplicates(void)
{
	expect_refused("a: 1\nb: 2\na: 3\n", 3, "key \"a\" given twice (first at line 1)",
		       "a top-level key twice");
	expect_refused("m:\n  x: 1\n  y: 2\n  x: 1\n", 4, "key \"x\" given twice (first at line 2)",
		       "a nested key twice, the same value");
	expect_refused("s:\n  - {k: 1, k: 2}\n", 2, "key \"k\" given twice",
		       "a flow mapping in a list");
	expect_refused("{\"q\": 1,\n \"r\": 2,\n \"q\": 3}", 3, "key \"q\" given twice (first at line 1)",
		       "JSON text");
	expect_refused("a: 1\nb: 1\nb: 2\na: 2\n", 3, "key \"b\" given twice (first at line 2)",
		       "the earliest repetition is named");
	struct ydoc d;
	struct err e;
	const char *t;
	int rc;
	t = "{\"a\": {\"k\": 1}, \"a\": {\"k\": 2}}";
	rc = ydoc_parse_flags(&d, "t.yaml", t, strlen(t), YDOC_TOP_DUPS_OK, &e);
	tap_ok(rc == 0 && d.root->n == 2, "YDOC_TOP_DUPS_OK: the top level keeps both");
	if (rc == 0)
		ydoc_free(&d);
	t = "{\"a\": {\"k\": 1, \"k\": 2}}";
	rc = ydoc_parse_flags(&d, "t.yaml", t, strlen(t), YDOC_TOP_DUPS_OK, &e);
	tap_ok(rc == -1, "YDOC_TOP_DUPS_OK: a nested repetition is still refused");
	if (rc == 0)
		ydoc_free(&d);
}

int main(void)
{
	test_duplicates();
	test_block();
	test_json();
	test_refusals();
	test_laughs();
	test_int();
	test_float_bool();
	test_load();
	return tap_done();
}
