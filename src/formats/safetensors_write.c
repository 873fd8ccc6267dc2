/* safetensors_write.c - writing the safetensors format: the data
 * contiguously, in the order tensors were added, after a header padded with
 * spaces to a multiple of 8. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"
#include "safetensors_int.h"
#include "base/i18n.h"
#include "base/safefile.h"

struct st_wtensor {
	char *name;
	enum st_dtype dt;
	int ndim;
	uint64_t shape[ST_MAXDIM];
	uint64_t nbytes;
	const void *data;
};

struct st_writer {
	struct st_wtensor *t;
	int n;
	char **meta;       /* key, value, key, value, ... */
	int nmeta;
	uint64_t total;    /* data bytes so far */
	char bad[300];     /* first failure of add/meta, reported by write */
};

struct st_writer *st_writer_new(void)
{
	return calloc(1, sizeof(struct st_writer));
}

void st_writer_free(struct st_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++)
		free(w->t[i].name);
	for (int i = 0; i < 2 * w->nmeta; i++)
		free(w->meta[i]);
	free(w->t);
	free(w->meta);
	free(w);
}

static int st_valid_utf8(const char *s)
{
	uint32_t c;
	for (int n; *s; s += n)
		if (!(n = st_utf8((const unsigned char *)s, &c)))
			return 0;
	return 1;
}

/* Remembers the first failure for st_writer_write; returns -1.  fmt comes
 * translated; names are passed through st_show. */
static int st_bad(struct st_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int st_bad(struct st_writer *w, const char *fmt, ...)
{
	if (!w->bad[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->bad, sizeof w->bad, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int st_writer_add(struct st_writer *w, const char *name, enum st_dtype dt,
		  int ndim, const uint64_t *shape, const void *data)
{
	struct st_wtensor t = { .dt = dt, .ndim = ndim, .data = data };
	uint64_t numel = 1;
	char nb[ST_SHOW];
	if (!name || !st_valid_utf8(name))
		return st_bad(w, _("tensor name is not valid UTF-8: \"%s\""),
			      st_show(name ? name : "", nb, sizeof nb));
	if (!strcmp(name, "__metadata__"))
		return st_bad(w, _("reserved tensor name \"%s\""),
			      st_show(name, nb, sizeof nb));
	if (!st_dtype_size(dt))
		return st_bad(w, _("unsupported dtype for tensor \"%s\""),
			      st_show(name, nb, sizeof nb));
	if (ndim < 0 || ndim > ST_MAXDIM || (ndim && !shape))
		return st_bad(w, _("bad number of dimensions for tensor \"%s\""),
			      st_show(name, nb, sizeof nb));
	for (int i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(numel, t.shape[i] = shape[i], &numel))
			return st_bad(w, _("shape overflows for tensor \"%s\""),
				      st_show(name, nb, sizeof nb));
	if (__builtin_mul_overflow(numel, (uint64_t)st_dtype_size(dt), &t.nbytes) ||
	    t.nbytes > SIZE_MAX || w->total + t.nbytes < w->total)
		return st_bad(w, _("size overflows for tensor \"%s\""),
			      st_show(name, nb, sizeof nb));
	if (t.nbytes && !data)
		return st_bad(w, _("no data for tensor \"%s\""),
			      st_show(name, nb, sizeof nb));
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->t[i].name, name))
			return st_bad(w, _("duplicate tensor name \"%s\""),
				      st_show(name, nb, sizeof nb));
	struct st_wtensor *nt = realloc(w->t, (size_t)(w->n + 1) * sizeof *nt);
	if (nt)
		w->t = nt;
	if (!nt || !(t.name = strdup(name)))
		return st_bad(w, _("out of memory adding tensor \"%s\""),
			      st_show(name, nb, sizeof nb));
	w->t[w->n++] = t;
	w->total += t.nbytes;
	return 0;
}

int st_writer_meta(struct st_writer *w, const char *key, const char *val)
{
	char nb[ST_SHOW];
	if (!key || !val || !st_valid_utf8(key) || !st_valid_utf8(val))
		return st_bad(w, _("metadata is not valid UTF-8 for key \"%s\""),
			      st_show(key ? key : "", nb, sizeof nb));
	char **nm = realloc(w->meta, (size_t)(w->nmeta + 1) * 2 * sizeof *nm);
	if (nm)
		w->meta = nm;
	char *k = nm ? strdup(key) : NULL, *v = k ? strdup(val) : NULL;
	if (!v) {
		free(k);
		return st_bad(w, _("out of memory adding metadata \"%s\""),
			      st_show(key, nb, sizeof nb));
	}
	w->meta[2 * w->nmeta] = k;
	w->meta[2 * w->nmeta++ + 1] = v;
	return 0;
}

/* A JSON string that libyaml reads back unchanged: besides " and \ and
 * control characters, the code points YAML calls non-printable or line
 * breaks (DEL, C1, NEL, U+2028/9, BOM, U+FFFE/F) are written as \uXXXX.
 * s was checked to be valid UTF-8. */
static void st_put_json(FILE *fp, const char *s)
{
	putc('"', fp);
	for (int n; *s; s += n) {
		uint32_t c = 0;
		n = st_utf8((const unsigned char *)s, &c);
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", (char)c);
		else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 ||
			 c == 0x2029 || c == 0xfeff || c == 0xfffe || c == 0xffff)
			fprintf(fp, "\\u%04" PRIx32, c);
		else
			fwrite(s, 1, (size_t)n, fp);
	}
	putc('"', fp);
}

/* The header JSON, padded with spaces so that 8 + *len is a multiple of 8;
 * NULL when out of memory.  The caller frees it. */
static char *st_header(const struct st_writer *w, size_t *len)
{
	char *h = NULL;
	uint64_t off = 0;
	FILE *fp = open_memstream(&h, len);
	if (!fp)
		return NULL;
	putc('{', fp);
	if (w->nmeta) {
		fputs("\"__metadata__\":{", fp);
		for (int i = 0; i < w->nmeta; i++) {
			fputs(i ? "," : "", fp);
			st_put_json(fp, w->meta[2 * i]);
			putc(':', fp);
			st_put_json(fp, w->meta[2 * i + 1]);
		}
		fputs(w->n ? "}," : "}", fp);
	}
	for (int i = 0; i < w->n; i++) {
		const struct st_wtensor *t = &w->t[i];
		fputs(i ? "," : "", fp);
		st_put_json(fp, t->name);
		fprintf(fp, ":{\"dtype\":\"%s\",\"shape\":[", st_dtype_name(t->dt));
		for (int k = 0; k < t->ndim; k++)
			fprintf(fp, "%s%" PRIu64, k ? "," : "", t->shape[k]);
		/* no overflow: st_writer_add checked the total */
		fprintf(fp, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", off,
			off + t->nbytes);
		off += t->nbytes;
	}
	putc('}', fp);
	while ((8 + (size_t)ftell(fp)) % 8)
		putc(' ', fp);
	if (ferror(fp) | fclose(fp)) {
		free(h);
		return NULL;
	}
	return h;
}

int st_writer_write(struct st_writer *w, const char *path, struct err *e)
{
	if (w->bad[0])
		return err_set(e, "%s: %s", path, w->bad);
	size_t hlen;
	char *h = st_header(w, &hlen);
	unsigned char len8[8];
	struct safefile sf;
	int rc = -1;

	if (!h)
		return err_set(e, "%s: out of memory", path);
	for (int i = 0; i < 8; i++)
		len8[i] = (unsigned char)((uint64_t)hlen >> 8 * i);
	if (safefile_open(&sf, path, 0, e))
		goto out;
	int ok = fwrite(len8, 1, 8, sf.fp) == 8 && fwrite(h, 1, hlen, sf.fp) == hlen;
	for (int i = 0; ok && i < w->n; i++)
		ok = !w->t[i].nbytes ||
		     fwrite(w->t[i].data, 1, (size_t)w->t[i].nbytes, sf.fp) == w->t[i].nbytes;
	if (!ok) {
		err_set(e, "%s: cannot write: %s", path, strerror(errno));
		safefile_abort(&sf);
		goto out;
	}
	rc = safefile_commit(&sf, e);
out:
	free(h);
	return rc;
}
