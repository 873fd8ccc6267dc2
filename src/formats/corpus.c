/* corpus.c - the TSV corpus format: reading (skipping bad lines with a
 * count), writing, and vocabularies built from a corpus. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "vocab.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/strtab.h"

static int count_words(const char *s)
{
	int n = 0;
	while (*s) {
		while (*s == ' ')
			s++;
		if (*s)
			n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

/* Whether the line's len bytes hold a control character other than TAB
 * (a NUL byte too): such a line is not text a corpus can hold, and a CR
 * or NUL inside it would not read back the same once written. */
static int has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return 1;
	}
	return 0;
}

/* Parses "i-j i-j ..." into a new array; -1 when malformed or out of
 * range, -2 when out of memory. */
static int parse_align(const char *s, int nsrc, int ntgt, int32_t **out, int *nout)
{
	int cap = 0, n = 0;
	int32_t *a = NULL;
	*out = NULL;
	*nout = 0;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		long v[2];
		for (int k = 0; k < 2; k++) {
			if (*s < '0' || *s > '9') {
				free(a);
				return -1;
			}
			v[k] = 0;
			while (*s >= '0' && *s <= '9') {
				v[k] = v[k] * 10 + (*s++ - '0');
				if (v[k] > 1000000) {
					free(a);
					return -1;
				}
			}
			if (k == 0 && *s++ != '-') {
				free(a);
				return -1;
			}
		}
		if ((*s && *s != ' ') || v[0] >= nsrc || v[1] >= ntgt) {
			free(a);
			return -1;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			int32_t *b = realloc(a, (size_t)cap * 2 * sizeof *b);
			if (!b) {
				free(a);
				return -2;
			}
			a = b;
		}
		a[2 * n] = (int32_t)v[0];
		a[2 * n + 1] = (int32_t)v[1];
		n++;
	}
	*out = a;
	*nout = n;
	return 0;
}

/* Trims spaces at both ends, in place. */
static char *trim(char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = 0;
	return s;
}

static int push_pair(struct corpus *c, struct corpus_pair *p)
{
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 1024;
		struct corpus_pair *q = realloc(c->pairs, (size_t)cap * sizeof *q);
		if (!q)
			return -1;
		c->pairs = q;
		c->cap = cap;
	}
	c->pairs[c->n++] = *p;
	return 0;
}

/* Adds the pair of one line (modified in place).  Returns 0, a bad-line
 * kind + 1, or -1 when out of memory. */
static int add_line(struct corpus *c, char *src, char *tgt, char *align, int line)
{
	struct corpus_pair p = { 0 };
	src = trim(src);
	tgt = trim(tgt);
	p.nsrc = count_words(src);
	p.ntgt = count_words(tgt);
	if (!p.nsrc || !p.ntgt)
		return CORPUS_EMPTY_SIDE + 1;
	p.nalign = -1;
	if (align) {
		if (strchr(align, '\t'))
			return CORPUS_BAD_ALIGN + 1;
		int r = parse_align(align, p.nsrc, p.ntgt, &p.align, &p.nalign);
		if (r == -1)
			return CORPUS_BAD_ALIGN + 1;
		if (r < 0)
			return -1;
	}
	p.line = line;
	p.src = strdup(src);
	p.tgt = strdup(tgt);
	if (!p.src || !p.tgt || push_pair(c, &p)) {
		free(p.src);
		free(p.tgt);
		free(p.align);
		return -1;
	}
	return 0;
}

int corpus_add(struct corpus *c, const char *src, const char *tgt,
	       const char *align, struct err *e)
{
	size_t ls = strlen(src), lt = strlen(tgt), la = align ? strlen(align) : 0;
	char *buf = malloc(ls + lt + la + 3);
	if (!buf)
		return err_set(e, "out of memory");
	memcpy(buf, src, ls + 1);
	memcpy(buf + ls + 1, tgt, lt + 1);
	if (align)
		memcpy(buf + ls + lt + 2, align, la + 1);
	int r = add_line(c, buf, buf + ls + 1, align ? buf + ls + lt + 2 : NULL, 0);
	free(buf);
	if (r < 0)
		return err_set(e, "out of memory");
	if (r > 0)
		return err_set(e, "pair \"%s\" / \"%s\": %s", src, tgt,
			       r - 1 == CORPUS_EMPTY_SIDE ? _("empty side") :
							    _("malformed alignment"));
	return 0;
}

int corpus_read(const char *path, struct corpus *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	FILE *f = safefile_fopen_read(path, e);   /* not /dev/zero or a FIFO */
	if (!f)
		return -1;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, rc = 0;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		line++;
		if (len && buf[len - 1] == '\n')
			buf[--len] = 0;
		if (len && buf[len - 1] == '\r')
			buf[--len] = 0;
		if (has_control(buf, (size_t)len)) {
			int k = CORPUS_CONTROL;
			if (c->nbad[k] < CORPUS_FIRST_BAD)
				c->bad_line[k][c->nbad[k]] = line;
			c->nbad[k]++;
			continue;
		}
		char *p = buf;
		while (*p == ' ')
			p++;
		if (!*p)
			continue;         /* blank line */
		char *tab = strchr(buf, '\t'), *tab2 = NULL;
		int r;
		if (!tab) {
			r = CORPUS_NO_TAB + 1;
		} else {
			*tab = 0;
			tab2 = strchr(tab + 1, '\t');
			if (tab2)
				*tab2 = 0;
			r = add_line(c, buf, tab + 1, tab2 ? tab2 + 1 : NULL, line);
		}
		if (r < 0) {
			rc = err_set(e, "%s: out of memory", path);
			break;
		}
		if (r > 0) {
			int k = r - 1;
			if (c->nbad[k] < CORPUS_FIRST_BAD)
				c->bad_line[k][c->nbad[k]] = line;
			c->nbad[k]++;
		}
	}
	if (!rc && ferror(f))
		rc = err_set(e, "%s: read error", path);
	free(buf);
	fclose(f);
	c->lines = line;
	if (rc)
		return rc;
	for (int k = 0; k < CORPUS_NBAD; k++) {
		if (!c->nbad[k])
			continue;
		char lines[128], which[160];
		size_t at = 0;
		int n = c->nbad[k];
		int shown = n < CORPUS_FIRST_BAD ? n : CORPUS_FIRST_BAD;
		for (int i = 0; i < shown; i++)
			at += (size_t)snprintf(lines + at, sizeof lines - at, "%s%d",
					       i ? ", " : "", c->bad_line[k][i]);
		if (n > shown)
			snprintf(lines + at, sizeof lines - at, ", ...");
		/* TRANSLATORS: %s is a list of line numbers, such as "3, 8, ..." */
		snprintf(which, sizeof which, P_("line %s", "lines %s", shown), lines);
		if (k == CORPUS_NO_TAB)
			warn_msg(P_("%s: skipped %d line without a tab (%s)",
				    "%s: skipped %d lines without a tab (%s)", n), path, n, which);
		else if (k == CORPUS_CONTROL)
			warn_msg(P_("%s: skipped %d line with a control character (%s)",
				    "%s: skipped %d lines with a control character (%s)", n),
				 path, n, which);
		else if (k == CORPUS_EMPTY_SIDE)
			warn_msg(P_("%s: skipped %d line with an empty side (%s)",
				    "%s: skipped %d lines with an empty side (%s)", n),
				 path, n, which);
		else
			warn_msg(P_("%s: skipped %d line with a malformed alignment (%s)",
				    "%s: skipped %d lines with a malformed alignment (%s)", n),
				 path, n, which);
	}
	if (!c->n)
		return err_set(e, P_("%s: no sentence pairs (%d line read)",
				     "%s: no sentence pairs (%d lines read)", line), path, line);
	return 0;
}

void corpus_free(struct corpus *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->pairs[i].src);
		free(c->pairs[i].tgt);
		free(c->pairs[i].align);
	}
	free(c->pairs);
	memset(c, 0, sizeof *c);
}

int corpus_repeat(struct corpus *c, int i, struct err *e)
{
	struct corpus_pair p = c->pairs[i];
	size_t na = p.nalign > 0 ? (size_t)p.nalign * 2 * sizeof *p.align : 0;
	p.src = strdup(p.src);
	p.tgt = strdup(p.tgt);
	p.align = na ? malloc(na) : NULL;
	if (p.align)
		memcpy(p.align, c->pairs[i].align, na);
	if (!p.src || !p.tgt || (na && !p.align) || push_pair(c, &p)) {
		free(p.src);
		free(p.tgt);
		free(p.align);
		return err_set(e, "out of memory");
	}
	return 0;
}

int corpus_write_tsv(const struct corpus *c, const char *path, struct err *e)
{
	struct safefile sf;
	if (safefile_open(&sf, path, 0, e))
		return -1;
	corpus_print_tsv(c, sf.fp);
	return safefile_commit(&sf, e);
}

void corpus_print_tsv(const struct corpus *c, FILE *f)
{
	for (int i = 0; i < c->n; i++) {
		const struct corpus_pair *p = &c->pairs[i];
		fprintf(f, "%s\t%s", p->src, p->tgt);
		if (p->nalign >= 0) {
			fputc('\t', f);
			for (int k = 0; k < p->nalign; k++)
				fprintf(f, "%s%d-%d", k ? " " : "", (int)p->align[2 * k],
					(int)p->align[2 * k + 1]);
		}
		fputc('\n', f);
	}
}

/* ---- vocabularies ---- */

struct tokcount {
	const char *tok;
	int n;
};

static int tokcount_cmp(const void *a, const void *b)
{
	const struct tokcount *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->tok, y->tok);
}

static const char *const SPECIALS[TOK_NSPECIAL] = { "<pad>", "<s>", "</s>", "<unk>" };

int corpus_write_vocab(const struct corpus *c, int side, const char *path,
		       int *ntok, struct err *e)
{
	struct safefile sf;
	if (safefile_open(&sf, path, 0, e))
		return -1;
	if (corpus_print_vocab(c, side, sf.fp, ntok, e)) {
		safefile_abort(&sf);
		return -1;
	}
	return safefile_commit(&sf, e);
}

int corpus_print_vocab(const struct corpus *c, int side, FILE *f, int *ntok, struct err *e)
{
	struct strtab t;
	if (strtab_init(&t))
		return err_set(e, "out of memory");
	int rc = 0;
	char *word = NULL;
	size_t wcap = 0;
	for (int i = 0; i < c->n && !rc; i++) {
		const char *s = side ? c->pairs[i].tgt : c->pairs[i].src;
		while (*s && !rc) {
			while (*s == ' ')
				s++;
			size_t n = strcspn(s, " ");
			if (!n)
				break;
			if (n + 1 > wcap) {
				char *w = realloc(word, n + 1);
				if (!w) {
					rc = err_set(e, "out of memory");
					break;
				}
				word = w;
				wcap = n + 1;
			}
			memcpy(word, s, n);
			word[n] = 0;
			s += n;
			int added, *v = strtab_put(&t, word, 0, &added, NULL);
			if (!v)
				rc = err_set(e, "out of memory");
			else
				++*v;
		}
	}
	free(word);
	struct tokcount *tc = rc ? NULL : malloc((t.n ? t.n : 1) * sizeof *tc);
	if (!rc && !tc)
		rc = err_set(e, "out of memory");
	size_t n = 0;
	if (!rc) {
		for (size_t i = 0; i < t.cap; i++) {
			if (!t.key[i])
				continue;
			int special = 0;
			for (int k = 0; k < TOK_NSPECIAL; k++)
				special |= strcmp(t.key[i], SPECIALS[k]) == 0;
			if (!special) {
				tc[n].tok = t.key[i];
				tc[n++].n = t.val[i];
			}
		}
		qsort(tc, n, sizeof *tc, tokcount_cmp);
		for (int k = 0; k < TOK_NSPECIAL; k++)
			fprintf(f, "%s\n", SPECIALS[k]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", tc[i].tok);
	}
	if (!rc && ntok)
		*ntok = (int)n + TOK_NSPECIAL;
	free(tc);
	strtab_free(&t);
	return rc;
}
