/* cmd_train.c - `attnscope train`: its options, Ctrl-C, and the exit
 * status.  The work is train_run (train.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "base/i18n.h"
#include "train/train.h"

/* TRANSLATORS: keep the option names, the formula and `weights:`/training:
 * (keys of the model's YAML); align the descriptions in one column. */
static const char *const TRAIN_USAGE = N_(
	"usage: attnscope train --model FILE.yaml --corpus FILE.tsv --out FILE.safetensors\n"
	"                       [--steps N] [--batch-tokens N] [--lr-scale X] [--warmup N]\n"
	"                       [--label-smoothing X] [--clip X] [--seed S]\n"
	"                       [--heldout FILE.tsv] [--eval-every N] [--eval-size N]\n"
	"                       [--resume CKPT] [--record] [--threads N] [--snapshots N]\n"
	"                       [--average K]\n"
	"\n"
	"Trains the model that FILE.yaml describes (its configuration and\n"
	"vocabularies; the weights start from seeded random values) on a corpus of\n"
	"english<TAB>portuguese[<TAB>alignment] lines, and writes a safetensors\n"
	"checkpoint that the YAML can name as `weights:`.  Adam (0.9, 0.98, 1e-9)\n"
	"with lr = lr_scale · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5).\n"
	"\n"
	"options:\n"
	"  --steps N             updates to make in all (default 2000)\n"
	"  --batch-tokens N      padded tokens per batch, B·(S+T) (default 4096)\n"
	"  --lr-scale X          factor on the schedule (default 1)\n"
	"  --warmup N            warm-up steps (default 400)\n"
	"  --label-smoothing X   smoothing of the targets, 0 to <1 (default 0.1)\n"
	"  --clip X              clip gradients to this global norm (0: off; default 1)\n"
	"  --seed S              initial weights and batch order (default 1)\n"
	"  --heldout FILE.tsv    pairs for greedy exact-match accuracy\n"
	"  --eval-every N        evaluate and checkpoint every N steps (default 500)\n"
	"  --eval-size N         held-out pairs per periodic evaluation (default 500;\n"
	"                        the final evaluation uses all)\n"
	"  --resume CKPT         continue from a checkpoint (and CKPT's .optim file)\n"
	"  --record              write the settings and results into FILE.yaml's\n"
	"                        training: mapping (shown by attnscope info)\n"
	"  --threads N           workers sharing each batch (default: the CPUs, at\n"
	"                        most 16); a run repeats exactly with the same N\n"
	"  --snapshots N         keep N log-spaced copies of the weights (F16) from\n"
	"                        step 0, the random initialisation, to the last, in\n"
	"                        the checkpoint as snapshot.STEP.*, each with its\n"
	"                        loss, listed in FILE.yaml's snapshots: (see them\n"
	"                        with --snapshot STEP; the weights are unchanged)\n"
	"  --average K           end with the mean of the last K checkpoints (every\n"
	"                        --eval-every steps), as the paper's base models\n"
	"                        (the optimizer state keeps the last step's own\n"
	"                        weights, which --resume trains on from)\n"
	"\n"
	"Ctrl-C saves a checkpoint and stops (exit 130; a second Ctrl-C quits at\n"
	"once); a NaN loss stops with the step named and keeps the last good\n"
	"checkpoint (exit 3).\n");

static volatile sig_atomic_t stop_flag;

/* The first Ctrl-C asks for a checkpoint and a clean stop; a second one
 * (the default action again) ends the program at once. */
static void on_signal(int sig)
{
	stop_flag = 1;
	signal(sig, SIG_DFL);
}

enum {
	T_MODEL = 256, T_CORPUS, T_OUT, T_STEPS, T_BATCH, T_LR, T_WARMUP, T_SMOOTH,
	T_CLIP, T_SEED, T_HELDOUT, T_EVERY, T_EVALN, T_RESUME, T_RECORD, T_THREADS,
	T_SNAPS, T_AVG, T_HELP,
};

static const struct option TRAIN_OPTS[] = {
	{ "model", required_argument, 0, T_MODEL },
	{ "corpus", required_argument, 0, T_CORPUS },
	{ "out", required_argument, 0, T_OUT },
	{ "steps", required_argument, 0, T_STEPS },
	{ "batch-tokens", required_argument, 0, T_BATCH },
	{ "lr-scale", required_argument, 0, T_LR },
	{ "warmup", required_argument, 0, T_WARMUP },
	{ "label-smoothing", required_argument, 0, T_SMOOTH },
	{ "clip", required_argument, 0, T_CLIP },
	{ "seed", required_argument, 0, T_SEED },
	{ "heldout", required_argument, 0, T_HELDOUT },
	{ "eval-every", required_argument, 0, T_EVERY },
	{ "eval-size", required_argument, 0, T_EVALN },
	{ "resume", required_argument, 0, T_RESUME },
	{ "record", no_argument, 0, T_RECORD },
	{ "threads", required_argument, 0, T_THREADS },
	{ "snapshots", required_argument, 0, T_SNAPS },
	{ "average", required_argument, 0, T_AVG },
	{ "help", no_argument, 0, T_HELP },
	{ 0, 0, 0, 0 },
};

int cmd_train(int argc, char **argv)
{
	struct train_opts o;
	train_opts_default(&o);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.threads = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu;
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+:h", TRAIN_OPTS, NULL)) != -1) {
		long v = 0;
		int r = 0;
		switch (ch) {
		case T_MODEL: o.model = optarg; break;
		case T_CORPUS: o.corpus = optarg; break;
		case T_OUT: o.out = optarg; break;
		case T_HELDOUT: o.heldout = optarg; break;
		case T_RESUME: o.resume = optarg; break;
		case T_RECORD: o.record = 1; break;
		case T_STEPS:
			r = cli_long("--steps", optarg, 1, 100000000, &v);
			o.steps = v;
			break;
		case T_BATCH:
			r = cli_long("--batch-tokens", optarg, 2, 100000000, &v);
			o.batch_tokens = (int)v;
			break;
		case T_WARMUP:
			r = cli_long("--warmup", optarg, 1, 100000000, &v);
			o.warmup = (int)v;
			break;
		case T_EVERY:
			r = cli_long("--eval-every", optarg, 0, 100000000, &v);
			o.eval_every = (int)v;
			break;
		case T_EVALN:
			r = cli_long("--eval-size", optarg, 1, 100000000, &v);
			o.eval_size = (int)v;
			break;
		case T_THREADS:
			r = cli_long("--threads", optarg, 1, 16, &v);
			o.threads = (int)v;
			break;
		case T_SNAPS:
			r = cli_long("--snapshots", optarg, 2, 1000, &v);
			o.snapshots = (int)v;
			break;
		case T_AVG:
			r = cli_long("--average", optarg, 2, 1000, &v);
			o.average = (int)v;
			break;
		case T_SEED:
			r = cli_long("--seed", optarg, 0, 2147483647, &v);
			o.seed = (uint64_t)v;
			break;
		case T_LR: r = cli_double("--lr-scale", optarg, 0, 1e300, 0, &o.lr_scale); break;
		case T_SMOOTH: r = cli_double("--label-smoothing", optarg, 0, 1, 1, &o.smoothing); break;
		case T_CLIP: r = cli_double("--clip", optarg, 0, 1e300, 0, &o.clip); break;
		case 'h':
		case T_HELP:
			fputs(_(TRAIN_USAGE), stdout);
			return 0;
		default:
			return cli_bad_option(ch, "train", argv);
		}
		if (r)
			return 2;
	}
	if (optind < argc) {
		cli_fail("train takes no sentence (unexpected \"%s\")", argv[optind]);
		return 2;
	}
	if (!o.model || !o.corpus || !o.out) {
		cli_fail("train needs --model FILE.yaml, --corpus FILE.tsv and --out "
			 "FILE.safetensors (try attnscope train --help)");
		return 2;
	}
	if (!*o.out) {
		cli_fail("--out needs a file name, not an empty string");
		return 2;
	}
	o.redraw = isatty(STDERR_FILENO);   /* (stderr may be the ASCII stream) */
	o.stop = &stop_flag;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct err e = { "", 0 };
	enum train_status st = train_run(&o, &e);
	switch (st) {
	case TRAIN_DONE:
		return 0;
	case TRAIN_STOPPED:
		return 130;
	case TRAIN_NAN:
		cli_fail("%s", e.msg);
		return 3;
	case TRAIN_FAILED:
		break;
	}
	cli_fail("%s", e.msg);
	return 1;
}
