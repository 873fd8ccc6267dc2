/* cmd_align.c - `attnscope align-eval`: how well cross-attention follows
 * the corpus's gold word alignment.
 *
 * For every pair of a corpus with alignments, the decoder runs teacher
 * forced on the gold target (a traced forward_run) and, for each head of
 * each decoder layer, each target word's arg-max source word is compared
 * with the words the gold alignment links it to.  Target word j is looked
 * up in two rows of cross_attn.weights [h, T, S]:
 *   generating  row j, the step whose output is word j (the usual reading
 *               of attention as alignment, Bahdanau et al. 2015)
 *   reading     row j + 1, the step whose input is word j
 * Source word i sits at position i + 1 when the source is wrapped in
 * <s> … </s>; an arg-max on <s> or </s> counts as a miss.  Target words
 * without a gold link are not counted. */
#include <getopt.h>   /* optind */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "formats/bpe.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/forward.h"
#include "engine/input.h"
#include "engine/model.h"
#include "formats/corpus.h"

/* TRANSLATORS: keep the option names; "generating" and "reading" are the
 * headings of the last two columns of align-eval's table. */
static const char *const ALIGN_USAGE = N_(
	"usage: attnscope align-eval --model FILE.yaml --corpus FILE.tsv [--max N]\n"
	"                            [--snapshot STEP|all]\n"
	"\n"
	"For each cross-attention head, the share of target words whose arg-max\n"
	"source word is one the gold alignment (third TSV column) links them to,\n"
	"teacher forced on the gold target.  \"generating\" looks at the step that\n"
	"outputs the word, \"reading\" at the step that reads it.\n"
	"\n"
	"options:\n"
	"  --model FILE    the model (default: as for the other commands)\n"
	"  --corpus FILE   english<TAB>portuguese<TAB>alignment lines (held-out)\n"
	"  --max N         use the first N pairs only\n"
	"  --snapshot STEP the weights of a training snapshot (train --snapshots);\n"
	"                  all: the best head of every snapshot, step by step\n");

/* hits[layer][head][0 generating, 1 reading] */
struct tally {
	long *hit;
	long words;
	double chance;        /* Σ over the words: linked source tokens / S */
	int pairs, skipped;
};

static int argmax(const float *row, int n)
{
	int b = 0;
	for (int j = 1; j < n; j++)
		if (row[j] > row[b])
			b = j;
	return b;
}

/* Whether gold links source word i to target word j. */
static int linked(const struct corpus_pair *p, int i, int j)
{
	for (int k = 0; k < p->nalign; k++)
		if (p->align[2 * k] == i && p->align[2 * k + 1] == j)
			return 1;
	return 0;
}

static int has_link(const struct corpus_pair *p, int j)
{
	for (int k = 0; k < p->nalign; k++)
		if (p->align[2 * k + 1] == j)
			return 1;
	return 0;
}

static int score_pair(const struct model *m, const struct corpus_pair *p,
		      struct tally *t, struct err *e)
{
	const int L = m->cfg.dec_layers, H = m->cfg.heads;
	const int off = m->cfg.tok.wrap_source ? 1 : 0;
	struct pass_opts o;
	struct pass_input in;
	pass_opts_default(&o);
	if (p->nalign <= 0) {
		t->skipped++;
		return 0;
	}
	if (input_build(m, p->src, p->tgt, &o, &in, e))
		return err_prefix(e, "line %d", p->line);
	/* BPE pieces map to the corpus's words: a word ends at each piece
	 * without "@@" (word tokens map one to one).  src_word[k]: the word of
	 * source token k, -1 for the wrap; first[j]: target word j's first
	 * piece, counted from the first label. */
	const int S = in.S, T = in.T, ns = in.src_len - 2 * off, nt = in.tgt_len - 1;
	int *src_word = calloc((size_t)S + 1, sizeof *src_word);
	int *first = calloc((size_t)nt + 1, sizeof *first);
	int ws = 0, wt = 0;
	if (!src_word || !first) {
		free(src_word);
		free(first);
		input_free(&in);
		return err_set(e, "out of memory");
	}
	for (int k = 0; k < S; k++)
		src_word[k] = -1;
	for (int k = 0; k < ns; k++) {
		src_word[k + off] = ws;
		ws += !bpe_is_cont(in.src_tok[k + off]);
	}
	for (int k = 0; k < nt; k++) {
		if (k == 0 || !bpe_is_cont(in.tgt_tok[k]))
			if (wt < nt)
				first[wt] = k;
		wt += !bpe_is_cont(in.tgt_tok[k + 1]);
	}
	/* the tokenizer must give the corpus's words, or indices drift */
	if (m->cfg.tok.type == TOKENIZE_CHAR || ws != p->nsrc || wt != p->ntgt) {
		free(src_word);
		free(first);
		input_free(&in);
		t->skipped++;
		return 0;
	}
	struct trace *tr = forward_run(m, &in, &o, NULL, e);
	input_free(&in);
	if (!tr) {
		free(src_word);
		free(first);
		return -1;
	}
	for (int j = 0; j < p->ntgt; j++) {
		if (!has_link(p, j))
			continue;
		t->words++;
		/* a uniformly random arg-max hits a linked token so often */
		int nl = 0;
		for (int k = 0; k < S; k++)
			nl += src_word[k] >= 0 && linked(p, src_word[k], j);
		t->chance += (double)nl / S;
		for (int l = 0; l < L; l++) {
			char name[64];
			snprintf(name, sizeof name, "decoder.%d.cross_attn.weights", l);
			const struct stage *s = trace_find(tr, name);
			if (!s)
				continue;
			for (int h = 0; h < H; h++)
				for (int k = 0; k < 2; k++) {
					/* generating its first piece: row first[j];
					   reading it: the next row */
					int row = first[j] + k;
					if (row >= T)
						continue;
					const float *w = stage_f32(s) + ((size_t)h * T + row) * S;
					int src = src_word[argmax(w, S)];
					if (src >= 0 && src < p->nsrc && linked(p, src, j))
						t->hit[((size_t)l * H + h) * 2 + k]++;
				}
		}
	}
	free(src_word);
	free(first);
	t->pairs++;
	trace_free(tr);
	return 0;
}

/* Columns of the table: at least min, or the heading's terminal width. */
static int col_width(const char *heading, int min)
{
	int w = utf8_width(heading);
	return w > min ? w : min;
}

/* Scores the first n pairs of c with m into a fresh t (hit malloc'd). */
static int tally_run(const struct model *m, const struct corpus *c, int n,
		     const char *path, struct tally *t)
{
	struct err e = { "", 0 };
	const int L = m->cfg.dec_layers, H = m->cfg.heads;
	memset(t, 0, sizeof *t);
	if (!(t->hit = calloc((size_t)L * H * 2 + 1, sizeof *t->hit)))
		return cli_fail("out of memory");
	for (int i = 0; i < n; i++)
		if (score_pair(m, &c->pairs[i], t, &e))
			return cli_fail("%s: %s", path, e.msg);
	return 0;
}

/* The generating hits of the best head of any decoder layer; *bl, *bh. */
static long best_any(const struct tally *t, int L, int H, int *bl, int *bh)
{
	long b = -1;
	for (int l = 0; l < L; l++)
		for (int h = 0; h < H; h++) {
			long x = t->hit[((size_t)l * H + h) * 2];
			if (x > b) {
				b = x;
				*bl = l;
				*bh = h;
			}
		}
	return b;
}

/* --snapshot all: every snapshot the YAML lists, the best head of each
 * and the trained model's best head followed through training. */
static int align_all(const char *model, const char *path, long max)
{
	struct err e = { "", 0 };
	struct corpus c;
	struct tally t;
	char sp[1024];
	struct model *m = model_load(model, &e);
	if (!m)
		return cli_fail("%s", e.msg);
	int rc = 1;
	if (m->cfg.arch != ARCH_ENC_DEC) {
		cli_fail("%s: only an encoder-decoder model has cross-attention", model);
		goto out_m;
	}
	if (!m->cfg.nsnaps) {
		cli_fail("%s: the model lists no training snapshots (snapshots:; train "
			 "with --snapshots N)", model);
		goto out_m;
	}
	if (corpus_read(path, &c, &e)) {
		cli_fail("%s", e.msg);
		goto out_c;
	}
	const int L = m->cfg.dec_layers, H = m->cfg.heads;
	int n = max && max < c.n ? (int)max : c.n, tl = 0, th = 0;
	if (tally_run(m, &c, n, path, &t))
		goto out_t;
	best_any(&t, L, H, &tl, &th);
	printf(_("cross-attention arg-max vs gold alignment: %s, %d pairs, %ld aligned "
		 "target words; a uniformly random arg-max: %.1f%%\n"),
	       safetext_copy(sp, sizeof sp, path, 0), t.pairs, t.words,
	       t.words ? 100 * t.chance / t.words : 0);
	/* TRANSLATORS: align-eval --snapshot all: the heading of its table;
	   keep the columns: the training step, the training loss, the best
	   head of that step (layer.head) and its share (generating), then the
	   share of the trained model's best head, named in the %d.%d */
	printf(_("   step    loss   best head         trained best head %d.%d\n"), tl, th);
	for (int k = 0; k < m->cfg.nsnaps; k++) {
		const struct snapshot *sn = &m->cfg.snaps[k];
		struct model *ms = model_load_snapshot(model, sn->step, &e);
		if (!ms) {
			cli_fail("%s", e.msg);
			goto out_t;
		}
		struct tally ts;
		int bl = 0, bh = 0, bad = tally_run(ms, &c, n, path, &ts);
		if (!bad) {
			long b = best_any(&ts, L, H, &bl, &bh);
			long x = ts.hit[((size_t)tl * H + th) * 2];
			printf("%7ld  %6.3f   %d.%d %6.1f%%       %6.1f%%\n", sn->step,
			       isnan(sn->loss) ? 0 : sn->loss, bl, bh,
			       ts.words ? 100.0 * b / ts.words : 0,
			       ts.words ? 100.0 * x / ts.words : 0);
		}
		free(ts.hit);
		model_free(ms);
		if (bad)
			goto out_t;
	}
	rc = 0;
out_t:
	free(t.hit);
out_c:
	corpus_free(&c);
out_m:
	model_free(m);
	return rc;
}

int cmd_align_eval(int argc, char **argv)
{
	const char *model = NULL, *path = NULL, *snapshot = NULL;
	long max = 0, snap = -1;
	int all = 0;
	const struct cli_opt opts[] = {
		{ .name = "model", .kind = CLI_STR, .dst = &model },
		{ .name = "corpus", .kind = CLI_STR, .dst = &path },
		{ .name = "max", .kind = CLI_LONG, .dst = &max, .lo = 1, .hi = 100000000 },
		{ .name = "snapshot", .kind = CLI_STR, .dst = &snapshot },   /* a step, or "all" */
		{ .name = NULL },
	};
	int pr = cli_parse_table("align-eval", opts, _(ALIGN_USAGE), argc, argv);
	if (pr)
		return pr == 1 ? 0 : 2;
	if (snapshot && strcmp(snapshot, "all") == 0)
		all = 1;
	else if (snapshot && cli_long("--snapshot", snapshot, 0, 2147483647, &snap))
		return 2;
	if (!path || optind < argc) {
		cli_fail("align-eval needs --corpus FILE.tsv and no other words "
			 "(try attnscope align-eval --help)");
		return 2;
	}
	struct err e = { "", 0 };
	char buf[4096];
	if (!model) {
		if (model_default_path(buf, sizeof buf, &e))
			return cli_fail("%s", e.msg);
		model = buf;
	}
	if (all)
		return align_all(model, path, max);
	struct model *m = model_load_snapshot(model, snap, &e);
	if (!m)
		return cli_fail("%s", e.msg);
	if (m->cfg.arch != ARCH_ENC_DEC) {
		cli_fail("%s: only an encoder-decoder model has cross-attention", model);
		model_free(m);
		return 1;
	}
	struct corpus c;
	if (corpus_read(path, &c, &e)) {
		corpus_free(&c);
		model_free(m);
		return cli_fail("%s", e.msg);
	}
	const int L = m->cfg.dec_layers, H = m->cfg.heads;
	struct tally t;
	int n = max && max < c.n ? (int)max : c.n;
	int rc = tally_run(m, &c, n, path, &t);
	if (!rc) {
		char sp[1024];
		if (t.skipped)
			printf(_("cross-attention arg-max vs gold alignment: %s, %d pairs, "
				 "%ld aligned target words (pairs without alignment or with "
				 "other tokens skipped)\n"), safetext_copy(sp, sizeof sp, path, 0), t.pairs,
			       t.words);
		else
			printf(_("cross-attention arg-max vs gold alignment: %s, %d pairs, "
				 "%ld aligned target words\n"), safetext_copy(sp, sizeof sp, path, 0),
			       t.pairs, t.words);
		/* the columns are as wide as their translated headings (at least
		 * "layer", "head", "generating" and " reading" in English) */
		/* TRANSLATORS: align-eval's table: the decoder layer's number */
		const char *hl = _("layer");
		/* TRANSLATORS: align-eval's table: the attention head's number */
		const char *hh = _("head");
		/* TRANSLATORS: a heading of align-eval's table, as "generating" in
		 * align-eval --help: the step that outputs the word */
		const char *hg = _("generating");
		/* TRANSLATORS: a heading of align-eval's table, as "reading" in
		 * align-eval --help: the step that reads the word */
		const char *hr = _("reading");
		int cl = col_width(hl, 5), chd = col_width(hh, 4), cg = col_width(hg, 10),
		    cr = col_width(hr, 8);
		utf8_fpad(stdout, hl, cl, 1);
		fputs("  ", stdout);
		utf8_fpad(stdout, hh, chd, 1);
		fputs("   ", stdout);
		utf8_fpad(stdout, hg, cg, 1);
		fputs("  ", stdout);
		utf8_fpad(stdout, hr, cr, 1);
		putchar('\n');
		int best = 0;
		for (int l = 0; l < L; l++)
			for (int h = 0; h < H; h++) {
				const long *x = t.hit + ((size_t)l * H + h) * 2;
				printf("%*d  %*d   %*.1f%%  %*.1f%%\n", cl, l, chd, h,
				       cg - 1, t.words ? 100.0 * x[0] / t.words : 0,
				       cr - 1, t.words ? 100.0 * x[1] / t.words : 0);
				if (l == L - 1 && x[0] > t.hit[((size_t)l * H + best) * 2])
					best = h;
			}
		long bh = t.hit[((size_t)(L - 1) * H + best) * 2];
		printf(_("best head of the last decoder layer (%d): head %d, %.1f%% "
			 "(generating)\n"), L - 1, best, t.words ? 100.0 * bh / t.words : 0);
	}
	free(t.hit);
	corpus_free(&c);
	model_free(m);
	return rc;
}
