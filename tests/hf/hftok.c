/* hftok.c - the Hugging Face tokenizers of src/formats on many texts, for
 * tests/hf_tokenizers.test (which compares the ids with Hugging Face's own
 * tokenizers run through node: tests/hf/reference.js).
 *
 *   hftok gpt2 vocab.json merges.txt < TEXTS
 *   hftok wordpiece vocab.txt lower|cased < TEXTS   ([CLS] … [SEP] added)
 *   hftok time-gpt2 vocab.json merges.txt    (load time, for the README)
 *   hftok probe STEP    (the Unicode lookups, as tests/hf/reference.js probe)
 *   hftok tokjson TOKENIZER.json CONFIG.json|- ids|decode|time < TEXTS
 *       a tokenizer.json (formats/tokjson.h) with what its post-processor
 *       adds: each text's ids, or the text its ids decode to (as hex), or
 *       the load and encode times (for the README)
 *
 * TEXTS has one text a line, as the hex of its UTF-8 bytes (a text may hold
 * newlines); each output line is the text's ids separated by spaces.
 * Without arguments (make check runs every check program) it prints a TAP
 * skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/unicode.h"
#include "base/utf8.h"
#include "formats/gpt2bpe.h"
#include "formats/tokjson.h"
#include "formats/wordpiece.h"

static int unhex(char *line)
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
	return 0;
}

/* reference.js probe's lines from base/unicode.h, as wordpiece.c and
 * gpt2bpe.c read it (a single code point cannot reach them from outside). */
static void probe(int step)
{
	for (uint32_t c = 0; c < 0x110000; c += (uint32_t)step) {
		if (c >= 0xD800 && c <= 0xDFFF)
			continue;
		unsigned f = uni_flags(c);
		int space = c == '\t' || c == '\n' || c == '\r' || (f & UNI_WS);
		int punct = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
			    (c >= 123 && c <= 126) || (f & UNI_P8);
		int gone = c == 0 || c == 0xFFFD ||
			   (c != '\t' && c != '\n' && c != '\r' && (f & UNI_C8));
		char cl = gone ? 'X' : space ? 'S' : '=';
		printf("%x %c %d ", c, cl, punct ? 3 : space ? 2 : 1);
		uint32_t d[UNI_MAX_DECOMP];
		int k = uni_decompose(c, d), any = 0;
		for (int i = 0; i < k; i++) {
			uint32_t lo[UNI_MAX_LOWER];
			if (uni_flags(d[i]) & UNI_MN8)
				continue;
			int m = uni_lower(d[i], lo);
			for (int j = 0; j < m; j++) {
				char u[4];
				int l = utf8_encode(lo[j], u);
				for (int q = 0; q < l; q++)
					printf("%02x", (unsigned char)u[q]);
				any = 1;
			}
		}
		printf("%s %d %d\n", any ? "" : "-", (f & UNI_L) != 0, (f & UNI_N) != 0);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* hftok tokjson …: see the top. */
static int tokjson_mode(const char *tj, const char *cfg, const char *what)
{
	struct err e = { "", 0 };
	struct tokjson t;
	double t0 = now();
	if (tokjson_load(&t, tj, strcmp(cfg, "-") ? cfg : NULL, &e)) {
		fprintf(stderr, "hftok: %s\n", e.msg);
		return 1;
	}
	double t1 = now(), tenc = 0;
	static char line[1 << 20], text[1 << 21];
	int lineno = 0;
	long ntok = 0;
	while (fgets(line, sizeof line, stdin)) {
		lineno++;
		if (unhex(line)) {
			fprintf(stderr, "hftok: line %d is not hex\n", lineno);
			return 1;
		}
		int32_t *ids;
		int n, invalid = 0;
		double a = now();
		if (tokjson_encode(&t, line, 1, &ids, &n, &invalid, &e)) {
			fprintf(stderr, "hftok: line %d: %s\n", lineno, e.msg);
			return 1;
		}
		tenc += now() - a;
		ntok += n;
		if (!strcmp(what, "decode")) {
			char **p = malloc(((size_t)n + 1) * sizeof *p);
			for (int i = 0; p && i < n; i++)
				p[i] = (char *)vocab_str(&t.vocab, ids[i]);
			tokjson_text(&t, p, n, text, sizeof text);
			for (const unsigned char *c = (const unsigned char *)text; *c; c++)
				printf("%02x", *c);
			putchar('\n');
			free(p);
		} else if (!strcmp(what, "ids")) {
			for (int i = 0; i < n; i++)
				printf(i ? " %d" : "%d", ids[i]);
			putchar('\n');
		}
		free(ids);
	}
	if (!strcmp(what, "time"))
		printf("%d pieces, %d merges loaded in %.3f s; %d texts, %ld tokens encoded in "
		       "%.3f s\n", t.vocab.n, t.merges.n, t1 - t0, lineno, ntok, tenc);
	tokjson_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	struct err e = { "", 0 };
	struct gpt2bpe g;
	struct wordpiece w;
	int gpt2 = argc == 4 && !strcmp(argv[1], "gpt2");
	int wp = argc == 4 && !strcmp(argv[1], "wordpiece");
	if (argc == 3 && !strcmp(argv[1], "probe")) {
		probe(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "time-gpt2")) {
		double t0 = now();
		if (gpt2bpe_load(&g, argv[2], argv[3], &e)) {
			fprintf(stderr, "hftok: %s\n", e.msg);
			return 1;
		}
		printf("%d pieces, %d merges loaded in %.3f s\n", g.vocab.n, g.merges.n, now() - t0);
		gpt2bpe_free(&g);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "tokjson"))
		return tokjson_mode(argv[2], argv[3], argv[4]);
	if (argc == 1) {
		/* run alone by make check (it is a check program): nothing to test */
		puts("1..0 # SKIP a helper of tests/hf_tokenizers.test");
		return 0;
	}
	if (!gpt2 && !wp) {
		fprintf(stderr, "usage: hftok gpt2 VOCAB.json MERGES.txt | wordpiece VOCAB.txt "
			"lower|cased | tokjson TOKENIZER.json CONFIG.json|- ids|decode|time  "
			"< hex lines\n");
		return 2;
	}
	if (gpt2 ? gpt2bpe_load(&g, argv[2], argv[3], &e) :
		   wordpiece_load(&w, argv[2], strcmp(argv[3], "cased") != 0, &e)) {
		fprintf(stderr, "hftok: %s\n", e.msg);
		return 1;
	}
	static char line[1 << 20];
	int lineno = 0;
	while (fgets(line, sizeof line, stdin)) {
		lineno++;
		if (unhex(line)) {
			fprintf(stderr, "hftok: line %d is not hex\n", lineno);
			return 1;
		}
		int32_t *ids;
		int n, invalid = 0;
		if (gpt2 ? gpt2bpe_encode(&g, line, &ids, &n, &invalid, &e) :
			   wordpiece_encode(&w, line, &ids, &n, &invalid, &e)) {
			fprintf(stderr, "hftok: line %d: %s\n", lineno, e.msg);
			return 1;
		}
		/* BERT's ids come wrapped, as the model wraps them */
		if (wp)
			printf("%d ", w.special[WP_CLS]);
		for (int i = 0; i < n; i++)
			printf(i ? " %d" : "%d", ids[i]);
		if (wp)
			printf(n ? " %d" : "%d", w.special[WP_SEP]);
		putchar('\n');
		free(ids);
	}
	if (gpt2)
		gpt2bpe_free(&g);
	else
		wordpiece_free(&w);
	return 0;
}
