/* fuzz_corpus.c - libFuzzer target: the parallel corpus TSV reader
 * (src/formats/corpus.c).
 *
 * The input is a corpus file (english TAB portuguese TAB alignment, one
 * pair a line).  It is written to a file in a private temporary directory
 * and read with corpus_read.  Besides "no crash": every pair read has two
 * non-empty sides with their words counted right and alignment links
 * inside them; the corpus written back with corpus_write_tsv reads back
 * as the same pairs; both vocabularies can be written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/corpus.h"

static char dir[64], path[128], out[128], voc[128];

static void cleanup(void)
{
	unlink(path);
	unlink(out);
	unlink(voc);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof dir, "%s/attnscope-fuzz.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_corpus: mkdtemp");
		abort();
	}
	snprintf(path, sizeof path, "%s/in.tsv", dir);
	snprintf(out, sizeof out, "%s/out.tsv", dir);
	snprintf(voc, sizeof voc, "%s/vocab.txt", dir);
	atexit(cleanup);
	return 0;
}

static void check(const struct corpus *c)
{
	for (int i = 0; i < c->n; i++) {
		const struct corpus_pair *p = &c->pairs[i];
		if (!p->src || !p->tgt || p->nsrc < 1 || p->ntgt < 1 || p->nalign < -1 ||
		    (p->nalign > 0 && !p->align)) {
			fprintf(stderr, "pair %d (line %d): %d/%d words, %d links\n", i,
				p->line, p->nsrc, p->ntgt, p->nalign);
			abort();
		}
		for (int k = 0; k < p->nalign; k++)
			if (p->align[2 * k] < 0 || p->align[2 * k] >= p->nsrc ||
			    p->align[2 * k + 1] < 0 || p->align[2 * k + 1] >= p->ntgt) {
				fprintf(stderr, "pair %d (line %d): link %d-%d outside %d/%d words\n",
					i, p->line, p->align[2 * k], p->align[2 * k + 1], p->nsrc,
					p->ntgt);
				abort();
			}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	struct corpus c, d;
	struct err e;
	if (corpus_read(path, &c, &e) == 0) {
		check(&c);
		if (corpus_write_tsv(&c, out, &e) == 0) {
			if (corpus_read(out, &d, &e)) {
				fprintf(stderr, "round trip: %s\n", e.msg);
				abort();
			}
			check(&d);
			if (d.n != c.n)
				abort();
			for (int i = 0; i < c.n; i++) {
				const struct corpus_pair *a = &c.pairs[i], *b = &d.pairs[i];
				if (strcmp(a->src, b->src) || strcmp(a->tgt, b->tgt) ||
				    a->nsrc != b->nsrc || a->ntgt != b->ntgt ||
				    (a->nalign > 0 ? a->nalign : 0) != (b->nalign > 0 ? b->nalign : 0) ||
				    (a->nalign > 0 &&
				     memcmp(a->align, b->align, (size_t)a->nalign * 2 * sizeof *a->align))) {
					fprintf(stderr, "round trip: pair %d differs\n", i);
					abort();
				}
			}
			corpus_free(&d);
		}
		for (int side = 0; side < 2; side++)
			corpus_write_vocab(&c, side, voc, NULL, &e);
	}
	corpus_free(&c);
	return 0;
}
