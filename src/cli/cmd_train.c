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

int cmd_train(int argc, char **argv)
{
	struct train_opts o;
	train_opts_default(&o);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.threads = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu;
	unsigned long long seed = o.seed;
	const struct cli_opt opts[] = {
		{ .name = "model", .kind = CLI_STR, .dst = &o.model },
		{ .name = "corpus", .kind = CLI_STR, .dst = &o.corpus },
		{ .name = "out", .kind = CLI_STR, .dst = &o.out },
		{ .name = "steps", .kind = CLI_LONG, .dst = &o.steps, .lo = 1, .hi = 100000000 },
		{ .name = "batch-tokens", .kind = CLI_INT, .dst = &o.batch_tokens, .lo = 2,
		  .hi = 100000000 },
		{ .name = "lr-scale", .kind = CLI_DOUBLE, .dst = &o.lr_scale, .dlo = 0, .dhi = 1e300 },
		{ .name = "warmup", .kind = CLI_INT, .dst = &o.warmup, .lo = 1, .hi = 100000000 },
		{ .name = "label-smoothing", .kind = CLI_DOUBLE, .dst = &o.smoothing, .dlo = 0,
		  .dhi = 1, .open_hi = 1 },
		{ .name = "clip", .kind = CLI_DOUBLE, .dst = &o.clip, .dlo = 0, .dhi = 1e300 },
		{ .name = "seed", .kind = CLI_U64, .dst = &seed, .lo = 0, .hi = 2147483647 },
		{ .name = "heldout", .kind = CLI_STR, .dst = &o.heldout },
		{ .name = "eval-every", .kind = CLI_INT, .dst = &o.eval_every, .lo = 0,
		  .hi = 100000000 },
		{ .name = "eval-size", .kind = CLI_INT, .dst = &o.eval_size, .lo = 1,
		  .hi = 100000000 },
		{ .name = "resume", .kind = CLI_STR, .dst = &o.resume },
		{ .name = "record", .kind = CLI_FLAG, .dst = &o.record },
		{ .name = "threads", .kind = CLI_INT, .dst = &o.threads, .lo = 1, .hi = 16 },
		{ .name = "snapshots", .kind = CLI_INT, .dst = &o.snapshots, .lo = 2, .hi = 1000 },
		{ .name = "average", .kind = CLI_INT, .dst = &o.average, .lo = 2, .hi = 1000 },
		{ .name = NULL },
	};
	int pr = cli_parse_table("train", opts, _(TRAIN_USAGE), argc, argv);
	if (pr)
		return pr == 1 ? 0 : 2;
	o.seed = (uint64_t)seed;
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
