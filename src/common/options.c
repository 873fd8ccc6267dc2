/* options.c - the command line that the commands and the stepper share:
 * the options, --help, loading the model, running one pass, failing with
 * one line. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "options.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "engine/decode.h"
#include "engine/forward.h"

/* attnscope --help (translated where it is printed). */
static const char *const USAGE = N_(
	/* TRANSLATORS: attnscope --help.  Keep the commands, the option names
	   and the option values (text|ansi|svg|csv, greedy|beam, ...) as they
	   are; the placeholders (FILE, SENTENCE, TEXT, ...) may be translated.
	   Keep the descriptions aligned: the commands' in one column, the
	   options' at column 23 (a longer option pushes its own on). */
	"usage: attnscope [--model FILE] [SENTENCE]        open the stepper (TUI)\n"
	"       attnscope --lecture FILE [--play SECONDS]  play a lecture script\n"
	"       attnscope --lecture FILE --check           check a script and exit\n"
	"       attnscope --lecture FILE --export DIR      write it as DIR/index.html\n"
	"       (both take --presenter: each page spread over a projector's screen,\n"
	"        and --scheme default|high-contrast|colorblind)\n"
	"       attnscope dump --out FILE.safetensors [--model FILE] [--target TEXT]\n"
	"                 [--no-causal] [--encoder-causal] [--pad-to N] [--pad-target N]\n"
	"                 [--stages GLOB[,GLOB...]] SENTENCE\n"
	"       attnscope render --stage NAME [--head H] [--format text|ansi|svg|csv]\n"
	"                 [--width W] [dump's options] SENTENCE\n"
	"       attnscope render --view lines|model|map|lens|heads|overview [--stage NAME]\n"
	"                 [--head H] [--format text|ansi|svg] [--width W] [--height H] SENTENCE\n"
	"       attnscope render --view stepper [--keys KEYS] [--target TEXT]\n"
	"                 [--format text|ansi|svg] [--width W] [--height H] SENTENCE\n"
	"       attnscope translate [--model FILE] [--beam K] [--alpha A] [--max-len N]\n"
	"                 [--sample [--temperature T] [--top-k K] [--top-p P] [--seed S]]\n"
	"                 [--steps] [--json] SENTENCE\n"
	"       attnscope train --model FILE.yaml --corpus FILE.tsv --out FILE.safetensors\n"
	"                 [--steps N] [--heldout FILE.tsv] ... (attnscope train --help)\n"
	"       attnscope align-eval [--model FILE] --corpus FILE.tsv [--max N]\n"
	"       attnscope importance [--model FILE] [--target TEXT] [--corpus FILE.tsv\n"
	"                 [--max N]] [--json] SENTENCE   (attnscope importance --help)\n"
	"       attnscope corpus --grammar FILE --out PREFIX [--pairs N] [--heldout N]\n"
	"                 [--seed S] (attnscope corpus --help)\n"
	"       attnscope info [--model FILE] [FILE]\n"
	"       attnscope bench [--model FILE] [--src-len N] [--tgt-len N] [--iters N]\n"
	"                 [--frames N [--width W] [--height H]] [--beam K [--max-len N]]\n"
	"                 [--save-weights FILE.safetensors]\n"
	"       attnscope bench [--model FILE] --file FILE [--iters N] [--frames N]\n"
	"                 (the stepper's costs on a long prompt)\n"
	"       attnscope --help | --version\n"
	"\n"
	"Steps through one forward pass of a Transformer and shows every stage.\n"
	"The model is --model FILE, else $ATTNSCOPE_MODEL, else the shipped default.\n"
	"\n"
	"options:\n"
	"  --model FILE        model YAML (see models/)\n"
	"  --file FILE         read the sentence from FILE (- : standard input)\n"
	"                      instead of the command line (one final newline dropped)\n"
	"  --stages GLOBS      dump: only the stages whose names match one of the\n"
	"                      comma-separated globs (decoder.*.self_attn.weights,logits)\n"
	"  --trace auto|full|lazy  hold every stage (full), or each layer's input only\n"
	"                      and compute a layer's stages when they are read (lazy);\n"
	"                      auto: lazy when the attention matrices pass 256 MiB\n"
	"  --snapshot STEP     the weights of training step STEP, a snapshot that\n"
	"                      train --snapshots kept (attnscope info lists them)\n"
	"  --lang LANG         messages in LANG: pt_BR (or pt), en; default: the locale\n"
	"  --target TEXT       teacher-forced target: decoder input <s> + TEXT,\n"
	"                      labels TEXT + </s>, per-token loss\n"
	"  --no-causal         remove the decoder's causal mask\n"
	"  --encoder-causal    add a causal mask to encoder self-attention\n"
	"  --pad-to N          pad the source with <pad> to N tokens (masked keys)\n"
	"  --pad-target N      pad the decoder input to N tokens (masked keys)\n"
	"  --out FILE          where dump writes the trace\n"
	"  --decode greedy|beam  dump: decode, then trace the best output's last step\n"
	"  --beam K            beam width (1 = greedy; translate default 1, dump\n"
	"                      --decode beam default 4), at most 64\n"
	"  --alpha A           length penalty ((5+n)/6)^A of beam scores (0.6)\n"
	"  --max-len N         output tokens at most\n"
	"  --sample            translate: draw each token instead of the arg-max\n"
	"  --temperature T     divide log p by T before drawing (1; 0 = greedy)\n"
	"  --top-k K           draw among the K most probable tokens only\n"
	"  --top-p P           ... among the fewest whose p sums to P or more\n"
	"  --seed S            the draws' seed (0): the same seed, the same output\n"
	"  --steps, --json     translate: every step as a table, or all as JSON\n"
	"  --stage NAME        the stage render prints (--stage list: all names)\n"
	"  --head H            one head of a per-head stage (default: all)\n"
	"  --format F          render as text (numbers), csv, ansi or svg\n"
	"  --view V            render another view: lines (the head view), model\n"
	"                      (every layer × head), map (the architecture), lens\n"
	"                      (the logit lens; --format csv: its numbers), heads\n"
	"                      (all heads), overview (a long matrix whole), stepper\n"
	"                      (the stepper's whole screen, after --keys)\n"
	"  --keys KEYS         render --view stepper: keys pressed first, one a\n"
	"                      character (\"X]\": cross-attention, head 1)\n"
	"  --width W           render width in columns\n"
	"  --dims LIST         render a .pos stage as curves of these dimensions over\n"
	"                      positions 0–99 (4-7, or 0,1,10,20: at most 4)\n"
	"  --src-len N, --tgt-len N, --iters N   bench sizes and repetitions\n"
	"  --frames N [--width W --height H]      bench: also time N headless frames\n"
	"  --beam K [--max-len N]                 bench: also beam search N tokens,\n"
	"                                         cached vs recomputed\n"
	"  --save-weights FILE                    bench: only write the model's weights\n"
	"                                         (seeded ones too), e.g. for PyTorch\n"
	"\n"
	"A fully masked attention row (every key masked) gives all-zero weights.\n");

int cli_fail(const char *fmt, ...)
{
	va_list ap;
	fputs("attnscope: ", stderr);
	va_start(ap, fmt);
	safetext_vfprintf(stderr, 0, _(fmt), ap);   /* names, tokens, lines of files */
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

enum {
	O_MODEL = 256, O_SAVE_WEIGHTS, O_TARGET, O_OUT, O_STAGE, O_FORMAT, O_HEAD, O_WIDTH,
	O_NOCAUSAL, O_ENCCAUSAL, O_PADTO, O_PADTGT, O_SRCLEN, O_TGTLEN, O_ITERS,
	O_LECTURE, O_PLAY, O_CHECK, O_POT, O_LANG, O_SCHEME, O_PRESENTER, O_DECODE, O_BEAM, O_ALPHA, O_MAXOUT,
	O_SAMPLE, O_TEMPERATURE, O_TOPK, O_TOPP, O_SEED, O_STEPS, O_JSON, O_FRAMES, O_HEIGHT, O_VIEW, O_DIMS,
	O_SNAPSHOT, O_EXPORT, O_FILE, O_STAGES, O_TRACE, O_KEYS, O_HELP, O_VERSION,
};

static const struct option LONGOPTS[] = {
	{ "model", required_argument, 0, O_MODEL },
	{ "target", required_argument, 0, O_TARGET },
	{ "out", required_argument, 0, O_OUT },
	{ "save-weights", required_argument, 0, O_SAVE_WEIGHTS },
	{ "stage", required_argument, 0, O_STAGE },
	{ "format", required_argument, 0, O_FORMAT },
	{ "head", required_argument, 0, O_HEAD },
	{ "width", required_argument, 0, O_WIDTH },
	{ "no-causal", no_argument, 0, O_NOCAUSAL },
	{ "encoder-causal", no_argument, 0, O_ENCCAUSAL },
	{ "pad-to", required_argument, 0, O_PADTO },
	{ "pad-target", required_argument, 0, O_PADTGT },
	{ "src-len", required_argument, 0, O_SRCLEN },
	{ "tgt-len", required_argument, 0, O_TGTLEN },
	{ "iters", required_argument, 0, O_ITERS },
	{ "decode", required_argument, 0, O_DECODE },
	{ "lecture", required_argument, 0, O_LECTURE },
	{ "play", required_argument, 0, O_PLAY },
	{ "check", no_argument, 0, O_CHECK },
	{ "pot", no_argument, 0, O_POT },
	{ "lang", required_argument, 0, O_LANG },
	{ "scheme", required_argument, 0, O_SCHEME },
	{ "presenter", no_argument, 0, O_PRESENTER },
	{ "beam", required_argument, 0, O_BEAM },
	{ "alpha", required_argument, 0, O_ALPHA },
	{ "max-len", required_argument, 0, O_MAXOUT },
	{ "sample", no_argument, 0, O_SAMPLE },
	{ "temperature", required_argument, 0, O_TEMPERATURE },
	{ "top-k", required_argument, 0, O_TOPK },
	{ "top-p", required_argument, 0, O_TOPP },
	{ "seed", required_argument, 0, O_SEED },
	{ "steps", no_argument, 0, O_STEPS },
	{ "json", no_argument, 0, O_JSON },
	{ "frames", required_argument, 0, O_FRAMES },
	{ "height", required_argument, 0, O_HEIGHT },
	{ "view", required_argument, 0, O_VIEW },
	{ "dims", required_argument, 0, O_DIMS },
	{ "snapshot", required_argument, 0, O_SNAPSHOT },
	{ "export", required_argument, 0, O_EXPORT },
	{ "file", required_argument, 0, O_FILE },
	{ "stages", required_argument, 0, O_STAGES },
	{ "trace", required_argument, 0, O_TRACE },
	{ "keys", required_argument, 0, O_KEYS },
	{ "help", no_argument, 0, O_HELP },
	{ "version", no_argument, 0, O_VERSION },
	{ 0, 0, 0, 0 },
};

#define BIT(o) (1ull << ((o) - O_MODEL))
/* The options of a pass (model, masks, padding). */
#define PASS_OPTS (BIT(O_MODEL) | BIT(O_SNAPSHOT) | BIT(O_NOCAUSAL) | BIT(O_ENCCAUSAL) | \
		   BIT(O_PADTO) | BIT(O_PADTGT) | BIT(O_FILE) | BIT(O_TRACE))
#define DECODE_OPTS (BIT(O_BEAM) | BIT(O_ALPHA) | BIT(O_MAXOUT))
#define SAMPLE_OPTS (BIT(O_SAMPLE) | BIT(O_TEMPERATURE) | BIT(O_TOPK) | BIT(O_TOPP) | \
		     BIT(O_SEED))

/* What each command reads of struct cli; anything else given is an error
 * (an option a command ignores would silently show something else than
 * what was asked).  --lang is everyone's. */
static const struct {
	const char *cmd;
	unsigned long long use;
	int words;            /* 0: none, 1: at most one (a file), 2: a sentence */
} USES[] = {
	{ "", PASS_OPTS | BIT(O_TARGET) | BIT(O_BEAM) | BIT(O_ALPHA) | BIT(O_LECTURE) |
	      BIT(O_PLAY) | BIT(O_CHECK) | BIT(O_POT) | BIT(O_SCHEME) | BIT(O_PRESENTER) |
	      BIT(O_EXPORT) | SAMPLE_OPTS, 2 },
	{ "dump", PASS_OPTS | BIT(O_TARGET) | BIT(O_OUT) | BIT(O_DECODE) | DECODE_OPTS |
		  BIT(O_STAGES), 2 },
	{ "render", PASS_OPTS | BIT(O_TARGET) | BIT(O_STAGE) | BIT(O_HEAD) | BIT(O_FORMAT) |
		    BIT(O_WIDTH) | BIT(O_VIEW) | BIT(O_HEIGHT) | BIT(O_DIMS) | BIT(O_KEYS), 2 },
	/* decoding runs the encoder with the pass's options, the decoder
	   causal and unpadded (a key/value cache) */
	{ "translate", BIT(O_MODEL) | BIT(O_SNAPSHOT) | BIT(O_ENCCAUSAL) | BIT(O_PADTO) | DECODE_OPTS |
		       BIT(O_FILE) |
		       SAMPLE_OPTS | BIT(O_STEPS) | BIT(O_JSON), 2 },
	{ "info", BIT(O_MODEL) | BIT(O_SNAPSHOT), 1 },
	{ "bench", BIT(O_MODEL) | BIT(O_SNAPSHOT) | BIT(O_NOCAUSAL) | BIT(O_ENCCAUSAL) | BIT(O_SRCLEN) |
		   BIT(O_TGTLEN) | BIT(O_ITERS) | BIT(O_FRAMES) | BIT(O_WIDTH) | BIT(O_HEIGHT) |
		   BIT(O_BEAM) | BIT(O_MAXOUT) | BIT(O_SAVE_WEIGHTS) | BIT(O_FILE) | BIT(O_TRACE), 0 },
};

/* An option's name as the user wrote it. */
static const char *opt_name(int o);

/* Options that only make sense with another one. */
static const struct {
	const char *cmd;
	int opt;
	unsigned long long needs;   /* one of these */
	const char *msg;
} NEEDS[] = {
	{ "", O_PLAY, BIT(O_LECTURE), N_("--play needs --lecture FILE") },
	{ "", O_CHECK, BIT(O_LECTURE), N_("--check needs --lecture FILE") },
	{ "", O_POT, BIT(O_LECTURE), N_("--pot needs --lecture FILE") },
	{ "", O_EXPORT, BIT(O_LECTURE), N_("--export needs --lecture FILE") },
	{ "dump", O_BEAM, BIT(O_DECODE), N_("dump uses --beam only with --decode beam") },
	{ "dump", O_ALPHA, BIT(O_DECODE), N_("dump uses --alpha only with --decode") },
	{ "dump", O_MAXOUT, BIT(O_DECODE), N_("dump uses --max-len only with --decode") },
	{ "bench", O_WIDTH, BIT(O_FRAMES), N_("bench uses --width only with --frames") },
	{ "bench", O_HEIGHT, BIT(O_FRAMES), N_("bench uses --height only with --frames") },
	{ "bench", O_MAXOUT, BIT(O_BEAM), N_("bench uses --max-len only with --beam") },
	{ "render", O_HEIGHT, BIT(O_VIEW), N_("render uses --height only with --view") },
	{ "render", O_KEYS, BIT(O_VIEW), N_("render uses --keys only with --view stepper") },
	{ "translate", O_TEMPERATURE, BIT(O_SAMPLE), N_("--temperature needs --sample") },
	{ "translate", O_TOPK, BIT(O_SAMPLE), N_("--top-k needs --sample") },
	{ "translate", O_TOPP, BIT(O_SAMPLE), N_("--top-p needs --sample") },
	{ "translate", O_SEED, BIT(O_SAMPLE), N_("--seed needs --sample") },
};

/* With --lecture the script chooses the model, sentences, masks and
 * decoding of every step. */
#define LECTURE_OWNS (BIT(O_MODEL) | BIT(O_SNAPSHOT) | BIT(O_TARGET) | BIT(O_FILE) | BIT(O_NOCAUSAL) | BIT(O_ENCCAUSAL) | \
		      BIT(O_BEAM) | BIT(O_ALPHA))

static int check_use(const struct cli *c)
{
	const char *who = *c->cmd ? c->cmd : "attnscope";
	for (size_t i = 0; i < sizeof USES / sizeof *USES; i++) {
		if (strcmp(USES[i].cmd, c->cmd) != 0)
			continue;
		for (int o = O_MODEL; o < O_HELP; o++)
			if ((c->given & BIT(o)) && o != O_LANG && !(USES[i].use & BIT(o)))
				return cli_fail("%s does not use %s (see attnscope --help)", who,
						opt_name(o)), -1;
		if (c->file && c->nwords)
			return cli_fail("give the sentence or --file %s, not both (\"%s\")", c->file,
					c->sentence), -1;
		if (USES[i].words == 0 && c->nwords)
			return cli_fail("%s takes no sentence or file (\"%s\")", who, c->sentence), -1;
		if (USES[i].words == 1 && c->nwords > 1)
			return cli_fail("%s takes one file, not a sentence (\"%s\")", who,
					c->sentence), -1;
		if (USES[i].words == 1 && c->nwords && (c->given & BIT(O_MODEL)))
			return cli_fail("%s takes --model FILE or a FILE, not both", who), -1;
	}
	for (size_t i = 0; i < sizeof NEEDS / sizeof *NEEDS; i++)
		if (!strcmp(NEEDS[i].cmd, c->cmd) && (c->given & BIT(NEEDS[i].opt)) &&
		    !(c->given & NEEDS[i].needs))
			return cli_fail("%s", NEEDS[i].msg), -1;
	if (c->sample && c->beam > 1)
		return cli_fail("--sample draws one output: it takes no --beam %d", c->beam), -1;
	if (!*c->cmd && (c->given & BIT(O_LECTURE))) {
		for (int o = O_MODEL; o < O_HELP; o++)
			if ((c->given & LECTURE_OWNS & BIT(o)))
				return cli_fail("--lecture does not use %s: the script chooses it",
						opt_name(o)), -1;
		if (c->nwords)
			return cli_fail("--lecture takes no sentence (\"%s\"): the script has them",
					c->sentence), -1;
	}
	return 0;
}

static const char *opt_name(int o)
{
	static char buf[40];
	for (const struct option *l = LONGOPTS; l->name; l++)
		if (l->val == o) {
			snprintf(buf, sizeof buf, "--%s", l->name);
			return buf;
		}
	return "?";
}

int cli_bad_option(int ch, const char *cmd, char **argv)
{
	if (ch == ':')
		cli_fail("%s needs a value (try attnscope %s --help)", argv[optind - 1], cmd);
	else
		cli_fail("unknown option \"%s\" (try attnscope %s --help)", argv[optind - 1], cmd);
	return 2;
}

/* One value of a table's option into its destination; -1 after the
 * message. */
static int opt_set(const struct cli_opt *o, const char *arg)
{
	char name[64], *end;
	snprintf(name, sizeof name, "--%s", o->name);
	unsigned long long u = 0;
	switch (o->kind) {
	case CLI_STR: *(const char **)o->dst = arg; return 0;
	case CLI_FLAG: *(int *)o->dst = 1; return 0;
	case CLI_IGNORE: return 0;
	case CLI_DOUBLE: return cli_double(name, arg, o->dlo, o->dhi, o->open_hi, o->dst);
	default: break;
	}
	errno = 0;
	u = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || u < o->lo || u > o->hi) {
		cli_fail("%s needs a whole number from %llu to %llu, got \"%s\"", name, o->lo,
			 o->hi, arg);
		return -1;
	}
	if (o->kind == CLI_INT)
		*(int *)o->dst = (int)u;
	else if (o->kind == CLI_LONG)
		*(long *)o->dst = (long)u;
	else
		*(unsigned long long *)o->dst = u;
	return 0;
}

int cli_parse_table(const char *cmd, const struct cli_opt *opts, const char *usage,
		    int argc, char **argv)
{
	struct option lo[64];
	int n = 0;
	for (; opts[n].name && n < 62; n++)
		lo[n] = (struct option){ opts[n].name, opts[n].kind == CLI_FLAG ? no_argument :
					 required_argument, 0, 256 + n };
	lo[n] = (struct option){ "help", no_argument, 0, 'h' };
	lo[n + 1] = (struct option){ 0, 0, 0, 0 };
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+:h", lo, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (ch < 256 || ch >= 256 + n)
			return cli_bad_option(ch, cmd, argv);
		if (opt_set(&opts[ch - 256], optarg))
			return 2;
	}
	return 0;
}

int cli_long(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		cli_fail("%s needs a whole number from %ld to %ld, got \"%s\"", opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_double(const char *opt, const char *s, double lo, double hi, int open_hi,
	       double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* ERANGE on underflow (1e-320 is a denormal, 1e-400 rounds to 0) is
	   still a number within range; on overflow v is ±HUGE_VAL, which the
	   range refuses */
	if ((errno && errno != ERANGE) || end == s || *end || !(v >= lo) ||
	    (open_hi ? !(v < hi) : !(v <= hi))) {
		if (open_hi)
			cli_fail("%s needs a number from %g to %g (exclusive), got \"%s\"",
				 opt, lo, hi, s);
		else
			cli_fail("%s needs a number from %g to %g, got \"%s\"", opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* --dims: "4-7" (a range) or "0,1,10,20" (a list), at most CLI_MAX_DIMS. */
static int parse_dims(const char *s, struct cli *c)
{
	const char *p = s;
	c->ndims = 0;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0 || a > 65535)
			break;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b > 65535)
				break;
			p = end;
		}
		for (long k = a; k <= b; k++) {
			if (c->ndims == CLI_MAX_DIMS)
				return cli_fail("--dims \"%s\": at most %d dimensions", s,
						CLI_MAX_DIMS), -1;
			c->dims[c->ndims++] = (int)k;
		}
		if (!*p)
			return 0;
		if (*p != ',')
			break;
		p++;
	}
	return cli_fail("--dims \"%s\": expected dimensions as 4-7 or 0,1,10,20", s), -1;
}

#define FILE_TEXT_MAX ((size_t)64 << 20)

char *cli_read_text(const char *path)
{
	int std = strcmp(path, "-") == 0;
	FILE *f = std ? stdin : fopen(path, "rb");
	if (!f) {
		cli_fail("%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap), *p;
	size_t got = 0;
	while (buf && (got = fread(buf + len, 1, cap - 1 - len, f)) > 0) {
		len += got;
		if (len > FILE_TEXT_MAX)
			break;
		if (cap - 1 - len == 0 && (p = realloc(buf, cap * 2)) != NULL) {
			buf = p;
			cap *= 2;
		} else if (cap - 1 - len == 0) {
			free(buf);
			buf = NULL;
		}
	}
	int bad = buf && ferror(f);
	int err = errno;
	if (!std)
		fclose(f);
	if (!buf) {
		cli_fail("%s: out of memory", path);
		return NULL;
	}
	if (bad || len > FILE_TEXT_MAX) {
		if (bad)
			cli_fail("%s: cannot read: %s", path, strerror(err));
		else
			cli_fail("%s: too large (a sentence file is read up to %zu MiB)", path,
				 FILE_TEXT_MAX >> 20);
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	if (strlen(buf) != len) {
		cli_fail("%s: holds a NUL byte at offset %zu: not a text", path, strlen(buf));
		free(buf);
		return NULL;
	}
	/* one final newline is the file's end, not the sentence's */
	if (len && buf[len - 1] == '\n')
		buf[--len] = 0;
	if (len && buf[len - 1] == '\r')
		buf[--len] = 0;
	return buf;
}

static int parse_count(const char *opt, const char *s, int lo, int hi, int *out)
{
	long v;
	if (cli_long(opt, s, lo, hi, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* The words after the options, joined by spaces, are the sentence (no
 * length cap: the model's context is the limit). */
static int join_words(struct cli *c, int argc, char **argv)
{
	size_t len = 1;
	for (int i = optind; i < argc; i++)
		len += strlen(argv[i]) + 1;
	c->nwords = argc - optind;
	if (optind >= argc)
		return 0;
	char *p = c->sentence = malloc(len);
	if (!p)
		return cli_fail("out of memory"), -1;
	for (int i = optind; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (i > optind)
			*p++ = ' ';
		memcpy(p, argv[i], n);
		p += n;
	}
	*p = 0;
	return 0;
}

/* The defaults before the options. */
static void cli_defaults(struct cli *c, const char *cmd)
{
	memset(c, 0, sizeof *c);
	c->cmd = cmd;
	c->head = -1;
	c->iters = 20;
	c->src_len = 0;    /* bench: 64, or max_len when smaller */
	c->tgt_len = 0;
	c->beam = 0;       /* unset: translate 1, dump --decode beam 4 */
	c->alpha = 0.6;
	c->snapshot = -1;
	c->temperature = 1.0;
	c->top_p = 1.0;
	pass_opts_default(&c->pass);
}

/* An option that is a name or a switch: 1 once set, 0 when ch is not
 * one. */
static int set_text(struct cli *c, int ch)
{
	switch (ch) {
	case O_MODEL: c->model = optarg; break;
	case O_TARGET: c->target = optarg; break;
	case O_OUT: c->out = optarg; break;
	case O_SAVE_WEIGHTS: c->save_weights = optarg; break;
	case O_STAGE: c->stage = optarg; break;
	case O_FORMAT: c->format = optarg; break;
	case O_VIEW: c->view = optarg; break;
	case O_DECODE: c->decode = optarg; break;
	case O_LECTURE: c->lecture = optarg; break;
	case O_CHECK: c->check = 1; break;
	case O_POT: c->pot = 1; break;
	case O_LANG: break;   /* read by i18n_init before parsing */
	case O_SCHEME: c->scheme = optarg; break;
	case O_PRESENTER: c->presenter = 1; break;
	case O_NOCAUSAL: c->pass.causal = 0; break;
	case O_ENCCAUSAL: c->pass.encoder_causal = 1; break;
	case O_SAMPLE: c->sample = 1; break;
	case O_STEPS: c->steps = 1; break;
	case O_JSON: c->json = 1; break;
	case O_EXPORT: c->export_dir = optarg; break;
	case O_FILE: c->file = optarg; break;
	case O_STAGES: c->stages = optarg; break;
	case O_KEYS: c->keys = optarg; break;
	default: return 0;
	}
	return 1;
}

/* An option that takes a number (or a word of a few: --trace), checked
 * against its range: *r 0, or non-zero after cli_fail.  1 once handled,
 * 0 when ch is not one. */
static int set_number(struct cli *c, int ch, int *r)
{
	switch (ch) {
	case O_PLAY: {
		double sec = 0;
		*r = cli_double("--play", optarg, 0.2, 3600, 0, &sec);
		c->play_ms = (int)(sec * 1000);
		break;
	}
	case O_HEAD: *r = parse_count("--head", optarg, 0, 65535, &c->head); break;
	case O_WIDTH: *r = parse_count("--width", optarg, 20, 10000, &c->width); break;
	case O_BEAM: *r = parse_count("--beam", optarg, 1, DECODE_MAX_BEAM, &c->beam); break;
	case O_PADTO: *r = parse_count("--pad-to", optarg, 1, 65536, &c->pass.pad_to); break;
	case O_PADTGT: *r = parse_count("--pad-target", optarg, 1, 65536, &c->pass.pad_target); break;
	case O_SRCLEN: *r = parse_count("--src-len", optarg, 1, 65536, &c->src_len); break;
	case O_TGTLEN: *r = parse_count("--tgt-len", optarg, 1, 65536, &c->tgt_len); break;
	case O_ALPHA: *r = cli_double("--alpha", optarg, 0, 10, 0, &c->alpha); break;
	case O_MAXOUT: *r = parse_count("--max-len", optarg, 1, 65536, &c->max_out); break;
	case O_TEMPERATURE:
		*r = cli_double("--temperature", optarg, 0, 100, 0, &c->temperature);
		break;
	case O_TOPK: *r = parse_count("--top-k", optarg, 1, 1 << 30, &c->top_k); break;
	case O_TOPP: *r = cli_double("--top-p", optarg, 0, 1, 0, &c->top_p);
		if (!*r && !(c->top_p > 0))
			*r = cli_fail("--top-p needs a number above 0 and at most 1, got \"%s\"",
				     optarg);
		break;
	case O_SEED: {
		long v;
		*r = cli_long("--seed", optarg, 0, LONG_MAX, &v);
		c->seed = (unsigned long long)v;
		break;
	}
	case O_FRAMES: *r = parse_count("--frames", optarg, 1, 1000000, &c->frames); break;
	case O_HEIGHT: *r = parse_count("--height", optarg, 10, 10000, &c->height); break;
	case O_ITERS: *r = parse_count("--iters", optarg, 1, 100000, &c->iters); break;
	case O_DIMS: *r = parse_dims(optarg, c); break;
	case O_SNAPSHOT:
		*r = cli_long("--snapshot", optarg, 0, 2147483647, &c->snapshot);
		break;
	case O_TRACE:
		if (!strcmp(optarg, "auto") || !strcmp(optarg, "full") ||
		    !strcmp(optarg, "lazy"))
			c->pass.trace_mode = *optarg == 'a' ? TRACE_AUTO : *optarg == 'f' ?
					     TRACE_FULL : TRACE_LAZY;
		else
			*r = cli_fail("--trace must be auto, full or lazy, not \"%s\"", optarg);
		break;
	default:
		return 0;
	}
	return 1;
}

/* One option from getopt_long: 0 to go on, 1 after --help or --version,
 * -1 after an error. */
static int set_option(struct cli *c, int ch, char **argv)
{
	if (ch >= O_MODEL && ch < O_HELP)
		c->given |= BIT(ch);
	if (set_text(c, ch))
		return 0;
	switch (ch) {
	case 'h':
	case O_HELP:
		fputs(_(USAGE), stdout);
		return 1;
	case 'V':
	case O_VERSION:
		printf("attnscope %s\n", PACKAGE_VERSION);
		return 1;
	case ':':
		cli_fail("%s needs a value (try --help)", argv[optind - 1]);
		return -1;
	}
	int r = 0;
	if (set_number(c, ch, &r))
		return r ? -1 : 0;
	cli_fail("unknown option \"%s\" (try --help)", argv[optind - 1]);
	return -1;
}

int cli_parse(struct cli *c, const char *cmd, int argc, char **argv)
{
	cli_defaults(c, cmd);
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+:hV", LONGOPTS, NULL)) != -1) {
		int r = set_option(c, ch, argv);
		if (r)
			return r;
	}
	if (join_words(c, argc, argv) || check_use(c))
		return -1;
	if (c->file && !(c->sentence = cli_read_text(c->file)))
		return -1;
	if (!c->model) {
		struct err e;
		if (model_default_path(c->model_buf, sizeof c->model_buf, &e)) {
			cli_fail("%s", e.msg);
			return -1;
		}
		c->model = c->model_buf;
	}
	return 0;
}

void cli_free(struct cli *c)
{
	free(c->sentence);
	c->sentence = NULL;
}

struct model *cli_load_model(struct cli *c)
{
	struct err e;
	struct model *m = model_load_snapshot(c->model, c->snapshot, &e);
	if (m)
		return m;
	if (e.lines) {   /* a mismatch list: one line a tensor */
		fputs("attnscope: ", stderr);
		safetext_fputs(e.msg, stderr, SAFETEXT_KEEP_NL);
		fputc('\n', stderr);
	} else {
		cli_fail("%s", e.msg);
	}
	return m;
}

struct trace *cli_run_pass(struct cli *c, const struct model *m)
{
	struct err e;
	struct pass_input in;
	if (!c->sentence) {
		cli_fail("no sentence given (e.g. attnscope %s \"%s\")", c->cmd,
			 m->cfg.nexamples ? m->cfg.examples[0] : "your cat is a lovely cat");
		return NULL;
	}
	if (c->target && m->cfg.arch == ARCH_ENC_ONLY) {
		cli_fail("%s: an encoder-only model has no decoder to take --target", m->path);
		return NULL;
	}
	if (input_build(m, c->sentence, c->target, &c->pass, &in, &e)) {
		cli_fail("%s", e.msg);
		return NULL;
	}
	char buf[1024];
	if (in.nunknown)
		warn_msg("%s", input_unknown_summary(&in, buf, sizeof buf));
	if (in.ndropped)
		warn_msg("%s", input_dropped_summary(&in, buf, sizeof buf));
	if (in.invalid_utf8)
		warn_msg(P_("%d invalid UTF-8 byte replaced by U+FFFD",
			    "%d invalid UTF-8 bytes replaced by U+FFFD", in.invalid_utf8),
			 in.invalid_utf8);
	struct trace *t = forward_run(m, &in, &c->pass, NULL, &e);
	input_free(&in);
	if (!t)
		cli_fail("%s", e.msg);
	return t;
}

