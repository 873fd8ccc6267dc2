/* cmd_dump.c - `attnscope dump`: one traced pass written as safetensors. */
#include <stdio.h>

#include <string.h>

#include "commands.h"
#include "base/safefile.h"
#include "engine/decode.h"
#include "engine/dump.h"
#include "engine/forward.h"

/* --decode: decode, then trace the final step of the best hypothesis (its
 * decoder input is the prompt + every output token; its last row predicts
 * </s>, or what would come after the length limit; all but the last output
 * when they would not fit max_len). */
static struct trace *decoded_pass(struct cli *c, const struct model *m)
{
	struct pass_input in;
	struct decode_result r;
	struct err e;
	int greedy = strcmp(c->decode, "greedy") == 0;
	if (!greedy && strcmp(c->decode, "beam") != 0) {
		cli_fail("--decode must be greedy or beam, not \"%s\"", c->decode);
		return NULL;
	}
	if (c->target) {
		cli_fail("give either --target (teacher forcing) or --decode, not both");
		return NULL;
	}
	if (greedy && c->beam > 1) {
		cli_fail("--decode greedy takes no --beam (use --decode beam --beam %d)", c->beam);
		return NULL;
	}
	if (!c->beam)
		c->beam = greedy ? 1 : 4;
	if (cli_decode(c, m, &in, &r))
		return NULL;
	struct trace *t = NULL;
	/* every output, unless that would pass the context: at the limit
	   (P + N − 1 = max_len) the last output was chosen, never fed */
	int fed = in.prompt + r.nbest > m->cfg.max_len ? r.nbest - 1 : r.nbest;
	if (decode_set_target(m, &in, r.best, fed, c->pass.pad_target))
		cli_fail("out of memory");
	else if (!(t = forward_run(m, &in, &c->pass, NULL, &e)))
		cli_fail("%s", e.msg);
	decode_result_free(&r);
	input_free(&in);
	return t;
}

int cmd_dump(struct cli *c)
{
	if (!c->out)
		return cli_fail("dump needs --out FILE.safetensors");
	if (!*c->out)
		return cli_fail("--out needs a file name, not an empty string");
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	struct err ce;
	if (safefile_check(c->out, 0, &ce)) {   /* before the pass: not an input... */
		model_free(m);
		return cli_fail("%s", ce.msg);
	}
	struct trace *t = c->decode ? decoded_pass(c, m) : cli_run_pass(c, m);
	int status = 1;
	if (t) {
		struct err e;
		if (dump_write(t, m, c->out, c->stages, &e))
			cli_fail("%s", e.msg);
		else
			status = 0;
	}
	trace_free(t);
	model_free(m);
	return status;
}
