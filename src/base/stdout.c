/* stdout.c - the one check of what the program wrote to standard output. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "stdout.h"

void stdout_init(void)
{
	signal(SIGPIPE, SIG_DFL);
}

int stdout_close(int status)
{
	/* A write that failed earlier set the stream's error flag, and the
	 * flush now may have nothing left to write: the reason is then the
	 * errno that write left, when it is one a write gives (nothing since
	 * has touched stdout), else EIO. */
	int saved = errno;
	int had_error = ferror(stdout);
	errno = 0;
	int flush_failed = fflush(stdout) != 0;
	int err = errno;
	if (fclose(stdout) != 0 && !flush_failed && errno != EBADF)
		flush_failed = 1, err = errno;
	if (!had_error && !flush_failed)
		return status;
	if (err == EPIPE)
		return STDOUT_EXIT_PIPE;
	if (!err)
		err = saved == ENOSPC || saved == EDQUOT || saved == EFBIG || saved == EPIPE ||
		      saved == EIO ? saved : EIO;
	fprintf(stderr, _("attnscope: standard output: %s\n"), strerror(err));
	return status ? status : 1;
}
