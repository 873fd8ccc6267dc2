/* commands.h - the subcommands of attnscope (main.c dispatches). */
#ifndef ATTNSCOPE_COMMANDS_H
#define ATTNSCOPE_COMMANDS_H

#include "common/options.h"

int cmd_dump(struct cli *c);
int cmd_info(struct cli *c);
/* info on a GGUF file (cmd_info_gguf.c): 0, or 1 after printing an error */
int cmd_info_gguf(const char *path);
int cmd_bench(struct cli *c);
int cmd_render(struct cli *c);
int cmd_translate(struct cli *c);
/* Commands that parse their own options (argv[0] is the command's name). */
int cmd_train(int argc, char **argv);
int cmd_align_eval(int argc, char **argv);
int cmd_importance(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_bpe(int argc, char **argv);

struct decode_result;
/* Decodes c->sentence with c->beam / c->alpha / c->max_out; fills in (the
 * source) and r.  Returns 0, or 1 after printing an error. */
int cli_decode(struct cli *c, const struct model *m, struct pass_input *in,
	       struct decode_result *r);

/* bench --file FILE (cmd_bench_long.c): the stepper's costs on the file's
 * prompt; load_ms the model's loading.  Returns the exit status. */
int bench_long(const struct cli *c, const struct model *m, double load_ms);
/* The median of v[n] (sorts v; cmd_bench.c). */
double bench_median(double *v, int n);
/* GFLOP/s of one 1024³ sgemm on the engine's threads, now (cmd_bench.c). */
double bench_sgemm_gflops(void);

#endif
