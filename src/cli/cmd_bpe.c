/* cmd_bpe.c - `attnscope bpe`: learn byte-pair-encoding merges from a
 * parallel corpus and write them with the vocabularies of pieces that a
 * model's `tokenizer: {type: bpe}` names (README "Subword tokens").
 *
 * It takes its own options, so main() hands it argv directly. */
#include <getopt.h>   /* optind */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/strtab.h"
#include "formats/bpe.h"
#include "formats/corpus.h"
#include "formats/vocab.h"

/* TRANSLATORS: keep the option names, PREFIX, src|tgt|both and the file
   names. */
static const char *const BPE_USAGE = N_(
	"usage: attnscope bpe --corpus FILE.tsv --out PREFIX [--side src|tgt|both]\n"
	"                     [--merges N] [--min-count N] [--keep-case]\n"
	"\n"
	"Learns byte-pair-encoding merges (Sennrich et al. 2016) from the words of\n"
	"a corpus (english<TAB>portuguese lines) and writes\n"
	"  PREFIX.merges.txt   the merges in rank order (subword-nmt's format)\n"
	"  PREFIX.src.txt      the source pieces (sides src and both)\n"
	"  PREFIX.tgt.txt      the target pieces (sides tgt and both)\n"
	"Each step merges the most frequent pair of adjacent symbols (ties: byte\n"
	"order); the same corpus gives the same files, in any line order.\n"
	"\n"
	"options:\n"
	"  --corpus FILE    the corpus (TSV)\n"
	"  --out PREFIX     where the files go (the directory must exist)\n"
	"  --side S         learn from the source (src), the target (tgt) or both\n"
	"                   joined (both, the default: one set of merges)\n"
	"  --merges N       the number of merges (default 4000)\n"
	"  --min-count N    stop when the best pair is rarer (default 2)\n"
	"  --keep-case      do not lower-case the words\n");

/* Counts the words of one side (0 source, 1 target) of c into wc. */
static int count_words(const struct corpus *c, int side,
		       const struct tokenizer_cfg *tc, struct bpe_counts *wc,
		       const char *path, struct err *e)
{
	for (int i = 0; i < c->n; i++) {
		char **w;
		int n = tokenize(tc, side ? c->pairs[i].tgt : c->pairs[i].src, &w, NULL, e);
		if (n < 0)
			return err_prefix(e, "%s:%d", path, c->pairs[i].line);
		for (int k = 0; k < n; k++)
			if (bpe_counts_add(wc, w[k], 1, e)) {
				tokens_free(w, n);
				return err_prefix(e, "%s:%d", path, c->pairs[i].line);
			}
		tokens_free(w, n);
	}
	return 0;
}

struct piece {
	const char *s;
	long count;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->s, y->s);
}

/* Writes the pieces of the words in wc under b: the specials, then every
 * piece by descending count (ties in byte order), then each single code
 * point of the words, as a word-final and as a continuing piece, that is
 * not yet there (count 0) — so that an unseen word made of known letters
 * never becomes <unk>.  *npieces and *pieces_per_word report. */
static int write_vocab(const struct bpe_counts *wc, const struct bpe *b,
		       const char *path, int *ntok, double *per_word, struct err *e)
{
	static const char *const SPECIALS[] = { "<pad>", "<s>", "</s>", "<unk>" };
	struct strtab t;
	struct piece *p = NULL;
	int np = 0, cap = 0, rc = -1;
	long words = 0, pieces = 0;
	if (strtab_init(&t))
		return err_set(e, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < wc->n; i++) {
			char **ps;
			int n;
			if (pass == 0) {
				n = bpe_apply(b, NULL, wc->word[i], &ps, e);
			} else {
				/* the single code points */
				struct bpe none = { 0 };
				n = bpe_apply(&none, NULL, wc->word[i], &ps, e);
			}
			if (n < 0)
				goto out;
			if (pass == 0) {
				words += wc->count[i];
				pieces += (long)n * wc->count[i];
			}
			for (int k = 0; k < n + (pass ? n : 0); k++) {
				char one[300];
				const char *s = k < n ? ps[k] : one;
				if (k >= n) {
					/* the other form of code point k - n */
					const char *q = ps[k - n];
					size_t l = strlen(q);
					if (bpe_is_cont(q))
						snprintf(one, sizeof one, "%.*s", (int)(l - 2), q);
					else
						snprintf(one, sizeof one, "%s" BPE_CONT, q);
				}
				int added;
				int *pos = strtab_put(&t, s, np, &added, NULL);
				if (!pos) {
					tokens_free(ps, n);
					err_set(e, "out of memory");
					goto out;
				}
				if (added) {
					if (np == cap) {
						cap = cap ? cap * 2 : 1024;
						struct piece *nq = realloc(p, (size_t)cap * sizeof *nq);
						if (!nq) {
							tokens_free(ps, n);
							err_set(e, "out of memory");
							goto out;
						}
						p = nq;
					}
					p[np].s = NULL;
					p[np++].count = 0;
				}
				if (pass == 0)
					p[*pos].count += wc->count[i];
			}
			tokens_free(ps, n);
		}
	}
	/* the table's own copies of the keys */
	for (size_t j = 0; j < t.cap; j++)
		if (t.key[j])
			p[t.val[j]].s = t.key[j];
	qsort(p, (size_t)np, sizeof *p, cmp_piece);
	struct safefile sf;
	if (safefile_open(&sf, path, 0, e))
		goto out;
	FILE *fp = sf.fp;
	int n = 0;
	for (int i = 0; i < 4; i++, n++)
		fprintf(fp, "%s\n", SPECIALS[i]);
	for (int i = 0; i < np; i++) {
		int special = 0;
		for (int k = 0; k < 4; k++)
			special |= strcmp(p[i].s, SPECIALS[k]) == 0;
		if (!special) {
			fprintf(fp, "%s\n", p[i].s);
			n++;
		}
	}
	if (safefile_commit(&sf, e))
		goto out;
	*ntok = n;
	*per_word = words ? (double)pieces / (double)words : 0;
	rc = 0;
out:
	free(p);
	strtab_free(&t);
	return rc;
}

int cmd_bpe(int argc, char **argv)
{
	const char *cpath = NULL, *prefix = NULL, *side = "both";
	long merges = 4000, min_count = 2;
	int keep_case = 0;
	const struct cli_opt opts[] = {
		{ .name = "corpus", .kind = CLI_STR, .dst = &cpath },
		{ .name = "out", .kind = CLI_STR, .dst = &prefix },
		{ .name = "side", .kind = CLI_STR, .dst = &side },
		{ .name = "merges", .kind = CLI_LONG, .dst = &merges, .lo = 0, .hi = BPE_MAX_MERGES },
		{ .name = "min-count", .kind = CLI_LONG, .dst = &min_count, .lo = 1, .hi = 1000000000L },
		{ .name = "keep-case", .kind = CLI_FLAG, .dst = &keep_case },
		{ .name = NULL },
	};
	int pr = cli_parse_table("bpe", opts, _(BPE_USAGE), argc, argv);
	if (pr)
		return pr == 1 ? 0 : 2;
	if (optind < argc) {
		cli_fail("bpe: unexpected argument \"%s\" (try attnscope bpe --help)", argv[optind]);
		return 2;
	}
	if (!cpath || !prefix) {
		cli_fail("bpe needs --corpus FILE and --out PREFIX (try attnscope bpe --help)");
		return 2;
	}
	if (!*prefix) {
		cli_fail("--out needs a file name prefix, not an empty string");
		return 2;
	}
	/* --side: bit 0 the source, bit 1 the target */
	static const char *const SIDES[] = { "src", "tgt", "both" };
	int sides = 0;
	for (int i = 0; i < 3; i++)
		if (strcmp(side, SIDES[i]) == 0)
			sides = i + 1;
	if (!sides) {
		cli_fail("--side must be src, tgt or both, got \"%s\"", side);
		return 2;
	}

	struct err e = { "", 0 };
	struct corpus c;
	struct bpe_counts wc[2], all;
	struct bpe b = { 0 };
	struct tokenizer_cfg tc = { .type = TOKENIZE_WORD, .lowercase = !keep_case };
	int status = 1, ntok[2] = { 0, 0 };
	double per_word[2] = { 0, 0 };
	size_t plen = strlen(prefix) + 16;
	char *path = malloc(plen);
	memset(wc, 0, sizeof wc);
	memset(&all, 0, sizeof all);
	if (!path || bpe_counts_init(&wc[0]) || bpe_counts_init(&wc[1]) ||
	    bpe_counts_init(&all)) {
		free(path);
		bpe_counts_free(&wc[0]);
		bpe_counts_free(&wc[1]);
		bpe_counts_free(&all);
		return cli_fail("out of memory");
	}
	if (corpus_read(cpath, &c, &e)) {
		cli_fail("%s", e.msg);
		goto out;
	}
	for (int s = 0; s < 2; s++)
		if ((sides & (1 << s)) && count_words(&c, s, &tc, &wc[s], cpath, &e)) {
			cli_fail("%s", e.msg);
			goto out;
		}
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < wc[s].n; i++)
			if (bpe_counts_add(&all, wc[s].word[i], wc[s].count[i], &e)) {
				cli_fail("%s", e.msg);
				goto out;
			}
	if (bpe_learn(&all, (int)merges, min_count, &b, &e) ||
	    (snprintf(path, plen, "%s.merges.txt", prefix), bpe_write(&b, path, &e))) {
		cli_fail("%s", e.msg);
		goto out;
	}
	for (int s = 0; s < 2; s++) {
		if (!(sides & (1 << s)))
			continue;
		snprintf(path, plen, s ? "%s.tgt.txt" : "%s.src.txt", prefix);
		if (write_vocab(&wc[s], &b, path, &ntok[s], &per_word[s], &e)) {
			cli_fail("%s", e.msg);
			goto out;
		}
	}
	/* TRANSLATORS: `attnscope bpe` summary; %s are the file prefix and the
	   side (src, tgt or both, kept as they are) */
	fprintf(stderr, _("bpe: %d merges learned (%ld asked) from %d distinct words "
			  "(side %s) -> %s.merges.txt\n"), b.n, merges, all.n, side, prefix);
	for (int s = 0; s < 2; s++)
		if (sides & (1 << s))
			/* TRANSLATORS: `attnscope bpe` summary, one line per side */
			fprintf(stderr, s ? _("  target: %d tokens (4 specials included) in "
					      "%s.tgt.txt, %.2f pieces a word\n")
					  : _("  source: %d tokens (4 specials included) in "
					      "%s.src.txt, %.2f pieces a word\n"),
				ntok[s], prefix, per_word[s]);
	status = 0;
out:
	free(path);
	corpus_free(&c);
	bpe_free(&b);
	bpe_counts_free(&wc[0]);
	bpe_counts_free(&wc[1]);
	bpe_counts_free(&all);
	return status;
}
