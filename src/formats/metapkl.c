/* metapkl.c - nanoGPT's meta.pkl: a character vocabulary as a pickle. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metapkl.h"
#include "pickle.h"
#include "base/safefile.h"

#define METAPKL_MAX_BYTES (64u << 20)
#define METAPKL_MAX_VOCAB (1 << 24)

int metapkl_sniff(const char *path)
{
	FILE *fp = safefile_fopen_read(path, NULL);   /* a FIFO would block */
	int a = fp ? getc(fp) : EOF, b = fp ? getc(fp) : EOF;
	if (fp)
		fclose(fp);
	return a == 0x80 && b >= 2 && b <= 5;
}

/* The whole file, at most METAPKL_MAX_BYTES. */
static unsigned char *slurp(const char *path, size_t *len, struct err *e)
{
	FILE *fp = safefile_fopen_read(path, e);
	if (!fp)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, fp);
		if (n < cap || cap >= METAPKL_MAX_BYTES)
			break;
		unsigned char *nb = realloc(buf, cap * 2);
		if (!nb)
			free(buf);
		buf = nb;
		cap *= 2;
	}
	int bad = ferror(fp);
	fclose(fp);
	if (!buf)
		return err_set(e, "%s: out of memory", path), NULL;
	if (bad || n == cap) {
		free(buf);
		return bad ? (err_set(e, "%s: read error", path), NULL)
			   : (err_set(e, "%s: larger than %u MiB: not a vocabulary", path,
				      METAPKL_MAX_BYTES >> 20), NULL);
	}
	*len = n;
	return buf;
}

static int fill(const char *path, const struct pk_value *top, char ***toks, int *n,
		struct err *e)
{
	const struct pk_value *itos = pk_dict_get(top, "itos"), *vs = pk_dict_get(top, "vocab_size");
	if (top->kind != PK_DICT)
		return err_set(e, "%s: the pickle holds a %s, expected nanoGPT's dict with itos",
			       path, pk_kind_name(top->kind));
	if (!itos)
		return err_set(e, "%s: no \"itos\" entry (nanoGPT's meta.pkl maps ids to tokens "
			       "in itos)", path);
	if (itos->kind != PK_DICT)
		return err_set(e, "%s: itos is a %s, expected a dict of id to token", path,
			       pk_kind_name(itos->kind));
	size_t count = itos->n / 2;
	if (count == 0 || count > METAPKL_MAX_VOCAB)
		return err_set(e, "%s: itos has %zu entries", path, count);
	if (vs && vs->kind != PK_INT)
		return err_set(e, "%s: vocab_size is a %s, expected an int", path,
			       pk_kind_name(vs->kind));
	if (vs && vs->i != (int64_t)count)
		return err_set(e, "%s: vocab_size is %" PRId64 " but itos has %zu entries", path,
			       vs->i, count);
	char **t = calloc(count, sizeof *t);
	if (!t)
		return err_set(e, "%s: out of memory", path);
	int rc = 0;
	for (size_t i = 0; i < count && !rc; i++) {
		const struct pk_value *k = itos->items[2 * i], *v = itos->items[2 * i + 1];
		if (k->kind != PK_INT || k->i < 0 || (uint64_t)k->i >= count)
			rc = err_set(e, "%s: itos key %zu is not an id from 0 to %zu", path, i,
				     count - 1);
		else if (v->kind != PK_STR || strlen(v->s) != v->len)
			rc = err_set(e, "%s: itos[%" PRId64 "] is not a string without NUL bytes",
				     path, k->i);
		else if (t[k->i])
			rc = err_set(e, "%s: id %" PRId64 " appears twice in itos", path, k->i);
		else if (!(t[k->i] = strdup(v->s)))
			rc = err_set(e, "%s: out of memory", path);
	}
	if (rc) {
		for (size_t i = 0; i < count; i++)
			free(t[i]);
		free(t);
		return -1;
	}
	*toks = t;
	*n = (int)count;
	return 0;
}

int metapkl_load(const char *path, char ***toks, int *n, struct err *e)
{
	size_t len;
	unsigned char *buf = slurp(path, &len, e);
	if (!buf)
		return -1;
	if (len < 2 || buf[0] != 0x80 || buf[1] < 2 || buf[1] > 5) {
		free(buf);
		return err_set(e, "%s: not a pickle of protocol 2 to 5 (as nanoGPT's meta.pkl is)",
			       path);
	}
	struct pk *p = NULL;
	const struct pk_value *top = pk_load(&p, path, buf, len, NULL, e);
	int rc = top ? fill(path, top, toks, n, e) : -1;
	pk_free(p);
	free(buf);
	return rc;
}
