/* cmd_importance.c - `attnscope importance`: which attention heads the
 * output needs (src/engine/importance.h): the drop in the labels'
 * log-probability with each head zeroed, most important first, and with
 * --corpus the held-out exact match left without it. */
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/decode.h"
#include "engine/importance.h"
#include "formats/corpus.h"
#include "formats/jsonout.h"

/* TRANSLATORS: keep the option names. */
static const char *const IMPORTANCE_USAGE = N_(
	"usage: attnscope importance [--model FILE] [--target TEXT]\n"
	"                            [--corpus FILE.tsv [--max N]] [--json] SENTENCE\n"
	"\n"
	"Zeroes each attention head in turn and runs the pass again, teacher forced\n"
	"on the target (without --target: the model's own greedy translation): the\n"
	"drop in Σ log p of the labels says how much the output needs the head.\n"
	"With --corpus, also the share of its first N pairs (default 100) that greedy\n"
	"decoding still translates exactly with the head zeroed.\n"
	"\n"
	"options:\n"
	"  --model FILE    the model (default: as for the other commands)\n"
	"  --target TEXT   the labels: TEXT + </s>\n"
	"  --corpus FILE   english<TAB>portuguese lines (held-out)\n"
	"  --max N         use the first N pairs only (default 100)\n"
	"  --json          everything as JSON\n");

/* The attention a head belongs to, for the table's second column. */
static const char *kind_name(const struct head_score *h)
{
	/* TRANSLATORS: `attnscope importance`'s table: which attention */
	return h->block == BLK_ENCODER ? _("encoder self") : h->cross ? _("decoder cross") :
	       _("decoder self");
}

static int cmp_drop(const void *a, const void *b, void *ctx)
{
	const struct importance *imp = ctx;
	const struct head_score *x = &imp->h[*(const int *)a], *y = &imp->h[*(const int *)b];
	if (x->drop != y->drop)
		return x->drop < y->drop ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

static void print_table(const struct importance *imp, const char *labels)
{
	int *ord = malloc((size_t)imp->n * sizeof *ord);
	if (!ord)
		return;
	for (int i = 0; i < imp->n; i++)
		ord[i] = i;
	qsort_r(ord, (size_t)imp->n, sizeof *ord, cmp_drop, (void *)imp);
	char sp[2048];
	/* TRANSLATORS: `attnscope importance`: the first lines, then the table */
	printf(_("labels: %s\n"), safetext_copy(sp, sizeof sp, labels, 0));
	printf(_("Σ −log p(label) with every head: %.4f over %d labels\n"), imp->base_nll,
	       imp->nlabels);
	if (imp->nsent > 0)
		printf(_("held-out exact match with every head: %.1f%% of %d sentences\n"),
		       100.0 * imp->base_exact, imp->nsent);
	/* TRANSLATORS: the table's headings: rank, where the head is, its
	   number, the drop in nats, and (with --corpus) exact match */
	printf("%s\n", imp->nsent > 0 ? _("rank  attention        layer  head      drop   exact") :
	       _("rank  attention        layer  head      drop"));
	for (int k = 0; k < imp->n; k++) {
		const struct head_score *h = &imp->h[ord[k]];
		printf("%4d  ", k + 1);
		utf8_fpad(stdout, kind_name(h), 15, 0);
		printf("  %5d  %4d  %+8.4f", h->layer, h->head, h->drop);
		if (imp->nsent > 0)
			printf("  %5.1f%%", 100.0 * h->exact);
		putchar('\n');
	}
	free(ord);
}

/* Returns the count of numbers that were not finite (written as null). */
static int print_json(const struct model *m, const char *sentence, const char *labels,
		      const struct importance *imp)
{
	struct jsonout j;
	jsonout_begin(&j, stdout);
	printf("\"model\":");
	jsonout_str(&j, m->cfg.name);
	printf(",\"sentence\":");
	jsonout_str(&j, sentence);
	printf(",\"labels\":");
	jsonout_str(&j, labels);
	jsonout_field(&j, "base_nll", 6, imp->base_nll);
	printf(",\"nlabels\":%d", imp->nlabels);
	if (imp->nsent > 0) {
		jsonout_field(&j, "base_exact", 6, imp->base_exact);
		printf(",\"sentences\":%d", imp->nsent);
	}
	printf(",\"heads\":[");
	for (int i = 0; i < imp->n; i++) {
		const struct head_score *h = &imp->h[i];
		printf("%s{\"block\":\"%s\",\"layer\":%d,\"attention\":\"%s\",\"head\":%d",
		       i ? "," : "", h->block == BLK_ENCODER ? "encoder" : "decoder",
		       h->layer, h->cross ? "cross" : "self", h->head);
		jsonout_field(&j, "drop", 6, h->drop);
		if (imp->nsent > 0)
			jsonout_field(&j, "exact", 6, h->exact);
		putchar('}');
	}
	putchar(']');
	return jsonout_end(&j);
}

int cmd_importance(int argc, char **argv)
{
	const char *model = NULL, *target = NULL, *corpus = NULL;
	long max = 100;
	int json = 0;
	const struct cli_opt opts[] = {
		{ .name = "model", .kind = CLI_STR, .dst = &model },
		{ .name = "target", .kind = CLI_STR, .dst = &target },
		{ .name = "corpus", .kind = CLI_STR, .dst = &corpus },
		{ .name = "max", .kind = CLI_LONG, .dst = &max, .lo = 1, .hi = 1000000 },
		{ .name = "json", .kind = CLI_FLAG, .dst = &json },
		{ .name = "lang", .kind = CLI_IGNORE },   /* read by i18n_init */
		{ .name = NULL },
	};
	int pr = cli_parse_table("importance", opts, _(IMPORTANCE_USAGE), argc, argv);
	if (pr)
		return pr == 1 ? 0 : 2;
	/* the remaining words are the sentence */
	char sentence[4096] = "";
	size_t used = 0;
	for (int i = optind; i < argc; i++) {
		int w = snprintf(sentence + used, sizeof sentence - used, "%s%s", i > optind ? " " : "",
				 argv[i]);
		if (w < 0 || (size_t)w >= sizeof sentence - used)
			return cli_fail("the sentence is limited to %d bytes", (int)sizeof sentence - 1);
		used += (size_t)w;
	}
	if (!*sentence) {
		cli_fail("importance needs a sentence (try attnscope importance --help)");
		return 2;
	}
	struct err e = { "", 0 };
	char buf[4096];
	if (!model) {
		if (model_default_path(buf, sizeof buf, &e))
			return cli_fail("%s", e.msg);
		model = buf;
	}
	struct model *m = model_load(model, &e);
	if (!m)
		return cli_fail("%s", e.msg);
	int rc = 1;
	struct pass_input in;
	struct pass_opts po;
	struct importance imp = { 0 };
	struct corpus c = { 0 };
	int have_in = 0;
	pass_opts_default(&po);
	if (target && m->cfg.arch != ARCH_ENC_DEC) {
		cli_fail("%s: --target is for an encoder-decoder model (a decoder-only model's "
			 "labels are its text shifted by one)", m->path);
		goto out;
	}
	if (m->cfg.arch == ARCH_ENC_ONLY) {
		cli_fail("%s: an encoder-only model has no labels to score", m->path);
		goto out;
	}
	if (input_build(m, sentence, target, &po, &in, &e)) {
		cli_fail("%s", e.msg);
		goto out;
	}
	have_in = 1;
	if (in.nunknown)
		warn_msg("%s", input_unknown_summary(&in, buf, sizeof buf));
	if (m->cfg.arch == ARCH_ENC_DEC && !target) {
		/* the model's own greedy translation as the labels */
		struct decode_opts d;
		struct decode_result r;
		decode_opts_default(&d);
		if (decode_run(m, &in, &po, &d, &r, &e)) {
			cli_fail("%s", e.msg);
			goto out;
		}
		int bad = decode_teacher_force(m, &in, r.best, r.nbest, 0);
		decode_result_free(&r);
		if (bad) {
			cli_fail("out of memory");
			goto out;
		}
	}
	if (importance_run(m, &in, &po, &imp, &e)) {
		cli_fail("%s", e.msg);
		goto out;
	}
	if (corpus) {
		if (corpus_read(corpus, &c, &e) || importance_exact(m, &c, (int)max, &po, &imp, &e)) {
			cli_fail("%s: %s", corpus, e.msg);
			goto out;
		}
	}
	char labels[4096] = "";
	used = 0;
	for (int i = 0; i < in.label_len && used < sizeof labels; i++)
		used += (size_t)snprintf(labels + used, sizeof labels - used, "%s%s", i ? " " : "",
					 in.label_tok[i]);
	/* NaN numbers are what a model with NaN weights gives: reported,
	 * in JSON as null with a "warnings" list, and said on stderr */
	if (json && print_json(m, sentence, labels, &imp))
		warn_msg("some numbers were not finite (NaN or infinite): written as null");
	else if (!json)
		print_table(&imp, labels);
	rc = 0;
out:
	importance_free(&imp);
	corpus_free(&c);
	if (have_in)
		input_free(&in);
	model_free(m);
	return rc;
}
