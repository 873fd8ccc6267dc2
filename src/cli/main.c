/* main.c - attnscope: the subcommand dispatch. */
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "common/options.h"
#include "tui/tui.h"

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
};

int main(int argc, char **argv)
{
	const char *cmd = "";
	int (*run)(struct cli *) = NULL;
	i18n_init(i18n_lang_arg(argc, argv));
	/* --lang may come before the subcommand: attnscope --lang pt_BR info */
	while (argc > 1 && strncmp(argv[1], "--lang", 6) == 0 &&
	       (argv[1][6] == '=' || (argv[1][6] == 0 && argc > 2))) {
		int k = argv[1][6] == '=' ? 1 : 2;
		argv[k] = argv[0];
		argv += k;
		argc -= k;
	}
	for (size_t i = 0; argc > 1 && i < sizeof OWN_COMMANDS / sizeof *OWN_COMMANDS; i++)
		if (strcmp(argv[1], OWN_COMMANDS[i].name) == 0)
			return OWN_COMMANDS[i].run(argc - 1, argv + 1);
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
	if (r)
		return r < 0 ? 2 : 0;
	int status;
	if (run) {
		status = run(&c);
	} else {
		status = tui_run(&c);
	}
	cli_free(&c);
	return status;
}
