/* spmtok.c - the SentencePiece reader of src/formats/spm.h on many texts,
 * for tests/spm.test (which compares with the SentencePiece library:
 * tests/spm/check.py).
 *
 *   spmtok encode MODEL < TEXTS     one line of ids a text
 *   spmtok pieces MODEL < TEXTS     one line of hex pieces a text
 *   spmtok decode MODEL < IDS       one line of hex text a line of ids
 *   spmtok info MODEL               n, model type, flags, specials, name
 *
 * TEXTS has one text a line, as the hex of its UTF-8 bytes.  Without
 * arguments (make check runs every check program) it prints a TAP skip.
 * Exits 1 with the error on a file the reader refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/spm.h"

static int unhex(char *line, size_t *len)
{
	size_t n = strcspn(line, "\r\n"), o = 0;
	if (n % 2)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = line[i + k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			v = v * 16 + d;
		}
		line[o++] = (char)v;
	}
	line[o] = 0;
	*len = o;
	return 0;
}

static void puthex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		printf("%02x", (unsigned char)s[i]);
}

static int encode(const struct spm *s, int as_pieces)
{
	static char line[1 << 20];
	struct err e;
	while (fgets(line, sizeof line, stdin)) {
		size_t len;
		int32_t *ids;
		const char **pieces;
		int n;
		if (unhex(line, &len) ||
		    spm_encode_pieces(s, line, len, &ids, &pieces, &n, NULL, &e)) {
			fprintf(stderr, "spmtok: %s\n", e.msg);
			return 1;
		}
		for (int i = 0; i < n; i++) {
			if (as_pieces) {
				printf(i ? " " : "");
				puthex(pieces[i], strlen(pieces[i]));
			} else {
				printf(i ? " %d" : "%d", (int)ids[i]);
			}
		}
		printf("\n");
		free(ids);
		free(pieces);
	}
	return 0;
}

static int decode(const struct spm *s)
{
	static char line[1 << 20];
	static int32_t ids[1 << 18];
	struct err e;
	while (fgets(line, sizeof line, stdin)) {
		int n = 0;
		char *p = line, *end;
		for (long v; n < (int)(sizeof ids / sizeof *ids) && (v = strtol(p, &end, 10), end != p);
		     p = end)
			ids[n++] = (int32_t)v;
		size_t len;
		char *t = spm_decode(s, ids, n, &len, &e);
		if (!t) {
			fprintf(stderr, "spmtok: %s\n", e.msg);
			return 1;
		}
		puthex(t, len);
		printf("\n");
		free(t);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		printf("1..0 # SKIP spmtok is driven by tests/spm.test\n");
		return 0;
	}
	struct err e;
	struct spm *s = spm_load(argv[2], &e);
	if (!s) {
		fprintf(stderr, "spmtok: %s\n", e.msg);
		return 1;
	}
	int rc = 2;
	if (!strcmp(argv[1], "encode") || !strcmp(argv[1], "pieces"))
		rc = encode(s, argv[1][0] == 'p');
	else if (!strcmp(argv[1], "decode"))
		rc = decode(s);
	else if (!strcmp(argv[1], "info"))
		rc = printf("n %d model %d byte_fallback %d dummy %d extra %d escape %d unk %d "
			    "bos %d eos %d pad %d name %s\n", s->n, (int)s->model, s->byte_fallback,
			    s->add_dummy_prefix, s->remove_extra_whitespaces, s->escape_whitespaces,
			    s->unk_id, s->bos_id, s->eos_id, s->pad_id, s->norm_name) < 0;
	spm_free(s);
	return rc;
}
