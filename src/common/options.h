/* options.h - the command line that the commands and the stepper share. */
#ifndef ATTNSCOPE_OPTIONS_H
#define ATTNSCOPE_OPTIONS_H

#include <limits.h>

#include "engine/input.h"
#include "engine/model.h"
#include "engine/trace.h"

#define CLI_MAX_DIMS 4

struct cli {
	const char *cmd;              /* "dump", "info", ... ("" for the TUI) */
	const char *model;            /* --model, else the default model */
	char model_buf[PATH_MAX];
	char *sentence;               /* positional words, joined (owned) */
	const char *target, *out, *stage, *format, *decode;
	const char *view;             /* render --view lines|model|map */
	const char *save_weights;   /* bench: write the weights there, only */
	int head, width, beam, steps, json, max_out;
	double alpha;
	int sample, top_k;            /* --sample, --top-k K (0: no cut) */
	double temperature, top_p;    /* --temperature T (1), --top-p P (1) */
	unsigned long long seed;      /* --seed S (0) */
	int src_len, tgt_len, iters, frames, height;
	const char *lecture;          /* --lecture FILE */
	int play_ms;                  /* --play SECONDS, in ms */
	int check;                    /* --check: validate the lecture, exit */
	int pot;                      /* --pot: print its captions as PO, exit */
	const char *export_dir;       /* --export DIR: the lecture as a web page */
	const char *scheme;           /* --scheme NAME */
	int presenter;                /* --presenter */
	int dims[CLI_MAX_DIMS];       /* --dims: the PE curves' dimensions */
	int ndims;
	long snapshot;                /* --snapshot STEP, -1: the trained weights */
	struct pass_opts pass;
	unsigned long long given;     /* the options on the line (bits: cli_opt) */
	int nwords;                   /* positional words joined in sentence */
};

/* Parses argv after the subcommand.  Returns 0 to go on, 1 when --help was
 * printed, -1 after printing an error: also for an option (or a sentence)
 * that the command c->cmd does not use, rather than ignore it. */
int cli_parse(struct cli *c, const char *cmd, int argc, char **argv);
void cli_free(struct cli *c);

/* Loads c->model, printing a one-line error on failure. */
struct model *cli_load_model(struct cli *c);
/* Tokenizes and runs one traced pass; reports unknown words on stderr. */
struct trace *cli_run_pass(struct cli *c, const struct model *m);

/* Option values: a whole number or a number within [lo, hi] (open_hi:
 * [lo, hi)); on anything else a one-line error naming opt, and -1. */
/* The error for getopt_long's ':' (an option without its value) or any
 * other unknown option of `attnscope CMD`; returns 2, the usage status. */
int cli_bad_option(int ch, const char *cmd, char **argv);
int cli_long(const char *opt, const char *s, long lo, long hi, long *out);
int cli_double(const char *opt, const char *s, double lo, double hi, int open_hi,
	       double *out);

/* The options of the subcommands that have their own (train, corpus, bpe,
 * align-eval, importance), one table each, parsed by cli_parse_table:
 * each entry names its option (without "--"), its kind and where its
 * value goes.  Numbers are checked against [lo, hi] (doubles: [dlo, dhi],
 * or [dlo, dhi) with open_hi) with the one message of cli_long. */
enum cli_opt_kind {
	CLI_STR,      /* const char *                                  */
	CLI_FLAG,     /* int, set to 1; no value                       */
	CLI_INT,      /* int within [lo, hi]                           */
	CLI_LONG,     /* long within [lo, hi]                          */
	CLI_U64,      /* unsigned long long within [lo, hi]            */
	CLI_DOUBLE,   /* double within [dlo, dhi] or [dlo, dhi)        */
	CLI_IGNORE,   /* takes a value, read elsewhere (--lang)        */
};
struct cli_opt {
	const char *name;
	enum cli_opt_kind kind;
	void *dst;
	unsigned long long lo, hi;
	double dlo, dhi;
	int open_hi;
};
/* Parses argv (after the subcommand cmd) by the table opts (ended by a
 * NULL name); --help and -h print usage.  Returns 0 to go on (the words
 * after the options from optind), 1 after the usage, 2 after printing
 * the error of a bad option or value. */
int cli_parse_table(const char *cmd, const struct cli_opt *opts, const char *usage,
		    int argc, char **argv);

/* Prints "attnscope: message" to stderr and returns the exit status 1. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
