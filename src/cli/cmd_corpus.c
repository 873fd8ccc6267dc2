/* cmd_corpus.c - `attnscope corpus`: expand a grammar into a parallel
 * corpus with gold alignments, a held-out split and vocabularies.
 *
 * It takes its own options (none of the model options apply), so main()
 * hands it argv directly. */
#include <getopt.h>   /* optind */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/safetext.h"
#include "base/strtab.h"
#include "corpus/corpus_gen.h"

/* TRANSLATORS: keep the option names, PREFIX and the file names. */
static const char *const CORPUS_USAGE = N_(
	"usage: attnscope corpus --grammar FILE --out PREFIX [--pairs N] [--heldout N]\n"
	"                        [--seed S]\n"
	"\n"
	"Expands a bilingual grammar (examples/corpus/grammar.yaml) into\n"
	"  PREFIX.train.tsv, PREFIX.heldout.tsv   english<TAB>portuguese<TAB>alignment\n"
	"  PREFIX.src.txt, PREFIX.tgt.txt         vocabularies of the training split\n"
	"The alignment lists i-j pairs (English word i, Portuguese word j, from 0).\n"
	"The same grammar and seed give the same files on every machine.\n"
	"\n"
	"options:\n"
	"  --grammar FILE   the grammar (YAML)\n"
	"  --out PREFIX     where the four files go (the directory must exist)\n"
	"  --pairs N        distinct training pairs (default 20000)\n"
	"  --heldout N      distinct held-out pairs, no sentence shared with\n"
	"                   training (default 1000)\n"
	"  --seed S         random seed (default 1)\n");

/* Distinct sentences of one side, and the longest in words. */
static long distinct_side(const struct corpus *c, int side, int *longest)
{
	struct strtab t;
	if (strtab_init(&t))
		return -1;
	for (int i = 0; i < c->n; i++) {
		int added, n = side ? c->pairs[i].ntgt : c->pairs[i].nsrc;
		if (!strtab_put(&t, side ? c->pairs[i].tgt : c->pairs[i].src, 0, &added, NULL))
			break;
		if (n > *longest)
			*longest = n;
	}
	long n = (long)t.n;
	strtab_free(&t);
	return n;
}

/* Word occurrences of `held` that never occur in `train` (one side). */
static long unseen_words(const struct corpus *train, const struct corpus *held, int side)
{
	struct strtab t;
	long unseen = 0;
	char w[256];
	if (strtab_init(&t))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const struct corpus *c = pass ? held : train;
		for (int i = 0; i < c->n; i++) {
			const char *s = side ? c->pairs[i].tgt : c->pairs[i].src;
			while (*s) {
				size_t n = strcspn(s, " ");
				if (n && n < sizeof w) {
					int added;
					memcpy(w, s, n);
					w[n] = 0;
					if (pass == 0)
						strtab_put(&t, w, 0, &added, NULL);
					else if (!strtab_get(&t, w))
						unseen++;
				}
				s += n;
				while (*s == ' ')
					s++;
			}
		}
	}
	strtab_free(&t);
	return unseen;
}

/* A line of the summary on stderr; names from the grammar made safe. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	safetext_vfprintf(stderr, SAFETEXT_KEEP_NL, fmt, ap);
	va_end(ap);
}

static void summary(const struct grammar *g, const char *prefix, uint64_t seed,
		    const struct corpus *train, const struct corpus *held,
		    const struct corpus_gen_stats *st, const int nvocab[2])
{
	int len[2][2] = { { 0, 0 }, { 0, 0 } };
	long dt[2], dh[2];
	for (int s = 0; s < 2; s++) {
		dt[s] = distinct_side(train, s, &len[0][s]);
		dh[s] = distinct_side(held, s, &len[1][s]);
	}
	int used = 0, lo = -1, hi = -1;
	for (int t = 0; t < st->ntemplates; t++) {
		if (!st->used[t])
			continue;
		used++;
		if (lo < 0 || st->used[t] < st->used[lo])
			lo = t;
		if (hi < 0 || st->used[t] > st->used[hi])
			hi = t;
	}
	note(_("corpus: %s (seed %llu) -> %s.{train,heldout}.tsv, %s.{src,tgt}.txt\n"),
		grammar_file(g), (unsigned long long)seed, prefix, prefix);
	if (st->exhaustive)
		note(_("  pairs: %d training (%d required), %d held-out; %ld "
				  "derivations (grammar enumerated)\n"),
			train->n - st->ncopies - st->njoined, st->nrequired, held->n,
			st->derivations);
	else
		note(_("  pairs: %d training (%d required), %d held-out; %ld "
				  "derivations\n"),
			train->n - st->ncopies - st->njoined, st->nrequired, held->n,
			st->derivations);
	if (st->ncopies)
		note(_("  repeated: %d more training lines, copies of the pairs of "
		       "templates with repeat:\n"), st->ncopies);
	if (grammar_join(g))
		note(_("  joined: %d more training lines, each two training pairs and a "
		       "connector (join:)\n"), st->njoined);
	note(_("  distinct sentences: training %ld English, %ld Portuguese; "
			  "held-out %ld English, %ld Portuguese\n"), dt[0], dt[1], dh[0], dh[1]);
	note(_("  longest sentence: %d English, %d Portuguese words\n"),
		len[0][0] > len[1][0] ? len[0][0] : len[1][0],
		len[0][1] > len[1][1] ? len[0][1] : len[1][1]);
	note(_("  vocabulary (from training, 4 specials included): %d source, "
			  "%d target tokens; held-out words outside it: %ld English, %ld "
			  "Portuguese\n"),
		nvocab[0], nvocab[1], unseen_words(train, held, 0), unseen_words(train, held, 1));
	if (used)
		note(_("  templates used: %d of %d (fewest pairs: %s %d, most: %s %d)"),
			used, st->ntemplates, grammar_template_id(g, lo), st->used[lo],
			grammar_template_id(g, hi), st->used[hi]);
	else
		note(_("  templates used: %d of %d"), used, st->ntemplates);
	fputc('\n', stderr);
	for (int t = 0; t < st->ntemplates; t++)
		if (!st->used[t])
			warn_msg("%s:%d: template %s produced no pair", grammar_file(g),
				 grammar_template_line(g, t), grammar_template_id(g, t));
}

/* The four files all or none (safefile_commit_all): a set whose train
 * file is new and whose vocabularies are old turns every word to <unk>. */
static int write_set(const char *prefix, char *path, size_t plen, const struct corpus *train,
		     const struct corpus *held, int nvocab[2], struct err *e)
{
	static const char *const EXT[] = { ".train.tsv", ".heldout.tsv", ".src.txt", ".tgt.txt" };
	struct safefile f[4];
	int n = 0, rc = 0;
	memset(f, 0, sizeof f);
	for (; n < 4 && !rc; n++) {
		snprintf(path, plen, "%s%s", prefix, EXT[n]);
		if (safefile_open(&f[n], path, 0, e))
			rc = -1;
		else if (n < 2)
			corpus_print_tsv(n ? held : train, f[n].fp);
		else
			rc = corpus_print_vocab(train, n - 2, f[n].fp, &nvocab[n - 2], e);
	}
	if (rc) {
		for (int i = 0; i < n; i++)
			safefile_abort(&f[i]);
		return -1;
	}
	return safefile_commit_all(f, 4, e);
}

int cmd_corpus(int argc, char **argv)
{
	const char *gpath = NULL, *prefix = NULL;
	unsigned long long pairs = 20000, heldout = 1000, seed = 1;
	const struct cli_opt opts[] = {
		{ .name = "grammar", .kind = CLI_STR, .dst = &gpath },
		{ .name = "out", .kind = CLI_STR, .dst = &prefix },
		{ .name = "pairs", .kind = CLI_U64, .dst = &pairs, .lo = 1, .hi = 10000000 },
		{ .name = "heldout", .kind = CLI_U64, .dst = &heldout, .lo = 0, .hi = 10000000 },
		{ .name = "seed", .kind = CLI_U64, .dst = &seed, .lo = 0, .hi = UINT64_MAX },
		{ .name = NULL },
	};
	int pr = cli_parse_table("corpus", opts, _(CORPUS_USAGE), argc, argv);
	if (pr)
		return pr == 1 ? 0 : 2;
	if (optind < argc) {
		cli_fail("corpus: unexpected argument \"%s\" (try attnscope corpus --help)",
			 argv[optind]);
		return 2;
	}
	if (!gpath || !prefix) {
		cli_fail("corpus needs --grammar FILE and --out PREFIX (try attnscope corpus --help)");
		return 2;
	}

	if (!*prefix) {
		cli_fail("--out needs a file name prefix, not an empty string");
		return 2;
	}

	struct err e = { "", 0 };
	struct grammar *g = grammar_load(gpath, &e);
	if (!g)
		return cli_fail("%s", e.msg);
	/* the four outputs, checked before the work (none may be the grammar) */
	static const char *const EXT[] = { ".train.tsv", ".heldout.tsv", ".src.txt", ".tgt.txt" };
	for (int i = 0; i < 4; i++) {
		size_t n = strlen(prefix) + 16;
		char *p = malloc(n);
		if (!p)
			snprintf(e.msg, sizeof e.msg, "%s", _("out of memory"));
		int bad = !p || (snprintf(p, n, "%s%s", prefix, EXT[i]), safefile_check(p, 0, &e));
		free(p);
		if (bad) {
			grammar_free(g);
			return cli_fail("%s", e.msg);
		}
	}
	struct corpus_gen_opts o = { .pairs = (int)pairs, .heldout = (int)heldout,
				     .seed = seed };
	struct corpus train = { 0 }, held = { 0 };
	struct corpus_gen_stats st = { 0 };
	int status = 1;
	size_t plen = strlen(prefix) + 16;
	char *path = malloc(plen);
	int nvocab[2] = { 0, 0 };
	if (!path) {
		cli_fail("out of memory");
	} else if (corpus_generate(g, &o, &train, &held, &st, &e)) {
		cli_fail("%s", e.msg);
	} else if (write_set(prefix, path, plen, &train, &held, nvocab, &e)) {
		cli_fail("%s", e.msg);
	} else {
		summary(g, prefix, seed, &train, &held, &st, nvocab);
		status = 0;
	}
	free(path);
	free(st.used);
	corpus_free(&train);
	corpus_free(&held);
	grammar_free(g);
	return status;
}
