/* main.c - attnscope: the subcommand dispatch. */
#include <langinfo.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/stdout.h"
#include "common/options.h"
#include "engine/blas.h"
#include "tui/tui.h"
#include "views/canvas.h"

static const struct {
	const char *name;
	int (*run)(struct cli *c);
} COMMANDS[] = {
	{ "dump", cmd_dump },
	{ "info", cmd_info },
	{ "bench", cmd_bench },
	{ "render", cmd_render },
	{ "translate", cmd_translate },
};

/* Subcommands with options of their own parse their arguments themselves. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} OWN_COMMANDS[] = {
	{ "train", cmd_train },
	{ "align-eval", cmd_align_eval },
	{ "corpus", cmd_corpus },
	{ "bpe", cmd_bpe },
	{ "importance", cmd_importance },
};

/* OpenBLAS chose its kernels when it was loaded, before main: when it fell
 * back to a generic core that this CPU outruns, run the program again from
 * the start with OPENBLAS_CORETYPE naming the right one.  (A re-exec rather
 * than dlopen'ing OpenBLAS after setenv: the library, the tests and every
 * product keep calling cblas directly; the cost is one more process start,
 * a few milliseconds.)  If the exec fails, go on with the generic core.
 * The exec names the binary by its real path, not /proc/self/exe: the
 * kernel names a process after the file it executes, and ps, top, pgrep
 * and killall would otherwise list the program as "exe". */
static void blas_reexec(char **argv)
{
	const char *core = blas_better_core();
	if (!core)
		return;
	struct blas_info b;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	blas_info_get(&b);
	/* a binary replaced or deleted meanwhile reads "PATH (deleted)" */
	if (n > 0 && (size_t)n < sizeof self - 1) {
		self[n] = 0;
		if (access(self, X_OK) != 0)
			n = -1;
	} else {
		n = -1;
	}
	if (setenv(BLAS_ENV_FROM, b.core, 1) == 0 &&
	    setenv(BLAS_ENV_CORE, core, 1) == 0)
		execv(n > 0 ? self : "/proc/self/exe", argv);
	unsetenv(BLAS_ENV_CORE);
	unsetenv(BLAS_ENV_FROM);
}

/* The name ps and pgrep show: that of the binary, even when the re-exec
 * had to go through /proc/self/exe. */
static void name_process(const char *argv0)
{
	char comm[17] = "";
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (!fgets(comm, sizeof comm, f))
			comm[0] = 0;
		fclose(f);
	}
	if (strcmp(comm, "exe\n") != 0)
		return;
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;
	base = base ? base + 1 : argv0;
	prctl(PR_SET_NAME, (unsigned long)(base && *base ? base : "attnscope"), 0, 0, 0);
}

int main(int argc, char **argv)
{
	const char *cmd = "";
	int (*run)(struct cli *) = NULL;
	stdout_init();
	blas_reexec(argv);
	name_process(argv[0]);
	i18n_init(i18n_lang_arg(argc, argv));
	/* a terminal of another charset obeys UTF-8's bytes 0x80-0x9F as C1
	 * controls: what the program writes stays ASCII there */
	int ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	safetext_set_ascii(ascii);
	/* --lang may come before the subcommand: attnscope --lang pt_BR info */
	while (argc > 1 && strncmp(argv[1], "--lang", 6) == 0 &&
	       (argv[1][6] == '=' || (argv[1][6] == 0 && argc > 2))) {
		int k = argv[1][6] == '=' ? 1 : 2;
		argv[k] = argv[0];
		argv += k;
		argc -= k;
	}
	/* every command; the stepper gets the real stdout back below */
	if (ascii)
		stdout_set_ascii(canvas_ascii_text);
	for (size_t i = 0; argc > 1 && i < sizeof OWN_COMMANDS / sizeof *OWN_COMMANDS; i++)
		if (strcmp(argv[1], OWN_COMMANDS[i].name) == 0)
			return stdout_close(OWN_COMMANDS[i].run(argc - 1, argv + 1));
	if (argc > 1) {
		for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
			if (strcmp(argv[1], COMMANDS[i].name) == 0) {
				cmd = COMMANDS[i].name;
				run = COMMANDS[i].run;
				argc--;
				argv++;
				break;
			}
	}
	struct cli c;
	int r = cli_parse(&c, cmd, argc, argv);
	if (r) {
		cli_free(&c);
		return stdout_close(r < 0 ? 2 : 0);
	}
	int status;
	if (run) {
		status = run(&c);
	} else {
		/* ncurses writes to the real stdout (in ASCII there: tui/term.c);
		 * nothing was written before it, so nothing to lose */
		stdout_unset_ascii();
		status = tui_run(&c);
	}
	cli_free(&c);
	return stdout_close(status);
}
