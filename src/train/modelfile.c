/* modelfile.c - top-level blocks of a model's YAML text: the weight source
 * swapped for a seeded init, and the training: record. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modelfile.h"
#include "base/safefile.h"
#include "base/utf8.h"
#include "formats/ydoc.h"

/* The file as lines (each without its newline). */
struct lines {
	char *text;
	char **l;
	int n;
};

static int read_lines(const char *path, struct lines *L, struct err *e)
{
	memset(L, 0, sizeof *L);
	FILE *fp = safefile_fopen_read(path, e);
	if (!fp)
		return -1;
	size_t cap = 4096, len = 0, r;
	L->text = malloc(cap + 1);
	while (L->text && (r = fread(L->text + len, 1, cap - len, fp)) > 0) {
		len += r;
		if (len == cap) {
			char *nt = realloc(L->text, 2 * cap + 1);
			if (!nt) {
				free(L->text);
				L->text = NULL;
				break;
			}
			L->text = nt;
			cap *= 2;
		}
	}
	int bad = ferror(fp);
	fclose(fp);
	if (!L->text || bad) {
		free(L->text);
		return bad ? err_set(e, "%s: read error", path)
			   : err_set(e, "%s: out of memory", path);
	}
	L->text[len] = 0;
	int n = 1;
	for (size_t i = 0; i < len; i++)
		n += L->text[i] == '\n';
	if (!(L->l = malloc((size_t)n * sizeof *L->l))) {
		free(L->text);
		return err_set(e, "out of memory");
	}
	char *p = L->text;
	for (L->n = 0; p; L->n++) {
		L->l[L->n] = p;
		if ((p = strchr(p, '\n')))
			*p++ = 0;
	}
	if (L->n && !*L->l[L->n - 1])   /* the final newline */
		L->n--;
	return 0;
}

static void free_lines(struct lines *L)
{
	free(L->text);
	free(L->l);
}

/* Whether line is the top-level key "key:". */
static int is_key(const char *line, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k))
		return 0;
	line += k;
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == ':';
}

/* The last line of the block that starts at line i (a top-level key): the
 * indented or "- " lines after it; blank and comment lines inside count
 * only when more of the block follows. */
static int block_end(const struct lines *L, int i)
{
	int last = i;
	for (int j = i + 1; j < L->n; j++) {
		const char *s = L->l[j];
		if (!*s || *s == '#')
			continue;
		if (*s == ' ' || *s == '\t') {
			const char *t = s;
			while (*t == ' ' || *t == '\t' || *t == '\r')
				t++;
			if (*t && *t != '#')
				last = j;
			continue;
		}
		if (*s == '-') {
			last = j;
			continue;
		}
		break;
	}
	return last;
}

static int write_all(FILE *fp, const struct lines *L, const char *const *repl)
{
	for (int i = 0; i < L->n; i++) {
		const char *s = repl[i] ? repl[i] : L->l[i];
		if (fputs(s, fp) < 0 || fputc('\n', fp) < 0)
			return -1;
	}
	return 0;
}

struct model *modelfile_load_fresh(const char *path, uint64_t seed,
				   struct err *e)
{
	static const char *const SOURCES[] = { "weights", "tensors", "init" };
	struct lines L;
	if (read_lines(path, &L, e))
		return NULL;
	const char **repl = calloc((size_t)L.n + 1, sizeof *repl);
	char init[64], tmp[4096];
	snprintf(init, sizeof init, "init: {random: %llu}", (unsigned long long)seed);
	struct model *m = NULL;
	int fd = -1, placed = 0;
	if (!repl) {
		err_set(e, "out of memory");
		goto out;
	}
	/* line numbers stay: the source's lines become empty lines */
	for (int i = 0; i < L.n; i++)
		for (size_t k = 0; k < sizeof SOURCES / sizeof *SOURCES; k++)
			if (is_key(L.l[i], SOURCES[k])) {
				int end = block_end(&L, i);
				repl[i] = placed ? "" : init;
				placed = 1;
				for (int j = i + 1; j <= end; j++)
					repl[j] = "";
				i = end;
				break;
			}
	/* a temporary copy beside the file, so relative vocabulary paths hold */
	char *dup = strdup(path), *base = strdup(path);
	if (!dup || !base) {
		free(dup);
		free(base);
		err_set(e, "out of memory");
		goto out;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s.train-XXXXXX", dirname(dup), basename(base));
	free(dup);
	free(base);
	if ((fd = mkstemp(tmp)) < 0) {
		err_set(e, "%s: cannot write a temporary copy beside it: %s", path,
			strerror(errno));
		goto out;
	}
	FILE *fp = fdopen(fd, "w");
	int bad = !fp || write_all(fp, &L, repl) ||
		  (!placed && fprintf(fp, "%s\n", init) < 0);
	if (fp ? fclose(fp) : close(fd))
		bad = 1;
	if (bad) {
		err_set(e, "%s: cannot write %s", path, tmp);
		unlink(tmp);
		goto out;
	}
	m = model_load(tmp, e);
	/* the copy is gone once read: forget it as an input, or a file made
	 * later that happens to reuse its inode (a checkpoint) would look
	 * like one */
	safefile_forget_input(tmp);
	unlink(tmp);
	if (!m) {
		/* name the real file in the message */
		char *p = strstr(e->msg, tmp);
		if (p) {
			char rest[sizeof e->msg];
			snprintf(rest, sizeof rest, "%s", p + strlen(tmp));
			*p = 0;
			char head[sizeof e->msg];
			snprintf(head, sizeof head, "%s", e->msg);
			err_set(e, "%s%s%s", head, path, rest);
		}
		goto out;
	}
	char *np = strdup(path);
	if (!np) {
		model_free(m);
		m = NULL;
		err_set(e, "out of memory");
		goto out;
	}
	free(m->path);
	m->path = np;
out:
	free(repl);
	free_lines(&L);
	return m;
}

/* Whether s can be written as a plain YAML scalar and read back as the
 * same string: words, numbers, paths, "98.90% of 1000 (greedy)". */
static int plain_ok(const char *s)
{
	if (!*s || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./", *s) ||
	    s[strlen(s) - 1] == ' ')
		return 0;
	static const char *const WORDS[] = { "true", "false", "yes", "no", "on", "off",
					      "null", "~", NULL };
	for (const char *const *w = WORDS; *w; w++)
		if (strcasecmp(s, *w) == 0)
			return 0;
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    " ._/%()+-", *p) || (p[0] == ' ' && p[1] == ' '))
			return 0;
	return 1;
}

/* s as a YAML scalar: plain when that is safe, else double-quoted with
 * every character YAML does not allow raw escaped: C0 controls, DEL, C1,
 * NEL, the line and paragraph separators, BOM and U+FFFE/F; a byte that is
 * not UTF-8 (train checks the paths before it starts) becomes U+FFFD, so
 * the file always loads again. */
static void put_quoted(FILE *fp, const char *s)
{
	if (plain_ok(s)) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (int n; *s; s += n) {
		uint32_t c;
		n = utf8_decode((const unsigned char *)s, 4, &c);
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", (char)c);
		else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
			 c == 0xfeff || c == 0xfffe || c == 0xffff || (n == 1 && c == 0xfffd))
			fprintf(fp, "\\u%04x", (unsigned)c);
		else
			fwrite(s, 1, (size_t)n, fp);
	}
	fputc('"', fp);
}

/* Replaces path's top-level block `key:` (appended when absent) with the
 * header line and n body lines: "  key: value" (vals quoted as needed)
 * when keys is given, else the raw lines vals[i]; with head NULL the block
 * is removed (and nothing written when there is none). */
static int set_block(const char *path, const char *key, const char *head,
		     const char *const *keys, const char *const *vals, int n,
		     struct err *e)
{
	struct lines L;
	if (read_lines(path, &L, e))
		return -1;
	int from = -1, to = -1;
	for (int i = 0; i < L.n; i++)
		if (is_key(L.l[i], key)) {
			from = i;
			to = block_end(&L, i);
			break;
		}
	struct safefile sf;
	int rc = -1;
	if (!head && from < 0) {
		rc = 0;
		goto out;
	}
	/* the record goes into the model's YAML, one of the inputs, on purpose */
	if (safefile_open(&sf, path, SAFEFILE_INPUT_OK, e))
		goto out;
	FILE *fp = sf.fp;
	int at = from >= 0 ? from : L.n;
	for (int i = 0; i < at; i++)
		fprintf(fp, "%s\n", L.l[i]);
	if (head)
		fprintf(fp, "%s\n", head);
	for (int i = 0; head && i < n; i++) {
		if (keys) {
			fprintf(fp, "  %s: ", keys[i]);
			put_quoted(fp, vals[i]);
			fputc('\n', fp);
		} else {
			fprintf(fp, "%s\n", vals[i]);
		}
	}
	for (int i = from >= 0 ? to + 1 : L.n; i < L.n; i++)
		fprintf(fp, "%s\n", L.l[i]);
	rc = safefile_commit(&sf, e);
out:
	free_lines(&L);
	return rc;
}

int modelfile_set_training(const char *path, const char *const *keys,
			   const char *const *vals, int n, struct err *e)
{
	return set_block(path, "training", "training:", keys, vals, n, e);
}

int modelfile_set_snapshots(const char *path, const char *const *lines, int n,
			    struct err *e)
{
	return set_block(path, "snapshots", n ? "snapshots:" : NULL, NULL, lines, n, e);
}

int modelfile_weights_are(const char *path, const char *file, char *shown, size_t n)
{
	struct ydoc d;
	struct err e;
	int same = 0;
	snprintf(shown, n, "%s", "");
	if (ydoc_load(&d, path, &e))
		return 0;
	const struct ynode *w = d.root && d.root->kind == Y_MAP ? ynode_get(d.root, "weights") : NULL;
	if (w && w->kind == Y_SCALAR && *w->str) {
		snprintf(shown, n, "%s", w->str);
		/* relative to the YAML's folder, as model_load reads it */
		char *dup = strdup(path), *full = NULL;
		if (dup && (w->str[0] == '/' ? (full = strdup(w->str)) != NULL :
			    asprintf(&full, "%s/%s", dirname(dup), w->str) >= 0)) {
			struct stat a, b;
			same = stat(full, &a) == 0 && stat(file, &b) == 0 &&
			       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
		}
		free(full);
		free(dup);
	}
	ydoc_free(&d);
	return same;
}
