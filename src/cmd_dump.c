/* cmd_dump.c - `attnscope dump`: one traced pass written as safetensors. */
#include <stdio.h>

#include "cli.h"
#include "dump.h"

int cmd_dump(struct cli *c)
{
	if (!c->out)
		return cli_fail("dump needs --out FILE.safetensors");
	if (c->decode)
		return cli_fail("--decode is not available yet; give --target for a "
				"teacher-forced pass");
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	struct trace *t = cli_run_pass(c, m);
	int status = 1;
	if (t) {
		struct err e;
		if (dump_write(t, m, c->out, &e))
			cli_fail("%s", e.msg);
		else
			status = 0;
	}
	trace_free(t);
	model_free(m);
	return status;
}
