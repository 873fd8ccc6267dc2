/* stdout.c - the one check of what the program wrote to standard output. */
#define _GNU_SOURCE 1   /* fopencookie */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"
#include "stdout.h"

void stdout_init(void)
{
	signal(SIGPIPE, SIG_DFL);
}

static FILE *saved, *saved_err;    /* the real streams, while ascii is on */
static struct ascii_out *ascii;

/* Puts the real stderr back (the ASCII one flushed and released). */
static void stderr_restore(void)
{
	if (!saved_err)
		return;
	fclose(stderr);   /* keep_fd: descriptor 2 stays open */
	stderr = saved_err;
	saved_err = NULL;
}

int stdout_close(int status)
{
	/* A write that failed earlier set the stream's error flag, and the
	 * flush now may have nothing left to write: the reason is then the
	 * errno that write left, when it is one a write gives (nothing since
	 * has touched stdout), else EIO. */
	int saved_errno = errno;
	int had_error = ferror(stdout);
	errno = 0;
	int flush_failed = fflush(stdout) != 0;
	int err = errno;
	if (fclose(stdout) != 0 && !flush_failed && errno != EBADF)
		flush_failed = 1, err = errno;
	if (!had_error && !flush_failed) {
		stderr_restore();
		return status;
	}
	if (err == EPIPE) {
		stderr_restore();
		return STDOUT_EXIT_PIPE;
	}
	if (!err)
		err = saved_errno == ENOSPC || saved_errno == EDQUOT || saved_errno == EFBIG ||
		      saved_errno == EPIPE || saved_errno == EIO ? saved_errno : EIO;
	fprintf(stderr, _("attnscope: standard output: %s\n"), strerror(err));
	stderr_restore();
	return status ? status : 1;
}

/* The ASCII stream: fd 1 underneath, a character cut between two writes
 * kept for the next. */
struct ascii_out {
	stdout_translit translit;
	int fd;               /* 1 or 2 */
	int keep_fd;          /* closing the stream leaves fd open */
	char pending[4];
	size_t npending;
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The length of the UTF-8 sequence that lead byte b starts (1 for a
 * stray byte: translit shows it as "?"). */
static size_t seq_len(unsigned char b)
{
	return b >= 0xf0 && b < 0xf8 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
}

/* Writes buf[0..n) of complete characters: ASCII as it is, each run of
 * other characters through translit. */
static int put_run(struct ascii_out *a, const char *buf, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && !((unsigned char)buf[j] & 0x80))
			j++;
		if (j > i && write_all(a->fd, buf + i, j - i))
			return -1;
		if (j == n)
			break;
		char run[256], out[1024];
		size_t k = 0;
		while (j < n && ((unsigned char)buf[j] & 0x80) && k < sizeof run - 5) {
			size_t l = seq_len((unsigned char)buf[j]);
			for (size_t q = 0; q < l && j < n; q++)
				run[k++] = buf[j++];
		}
		run[k] = 0;
		const char *t = a->translit(run, out, sizeof out);
		if (write_all(a->fd, t, strlen(t)))
			return -1;
		i = j;
	}
	return 0;
}

static ssize_t ascii_write(void *cookie, const char *buf, size_t size)
{
	struct ascii_out *a = cookie;
	size_t used = 0;
	if (a->npending) {   /* finish the character cut at the last write */
		size_t need = seq_len((unsigned char)a->pending[0]);
		while (a->npending < need && used < size)
			a->pending[a->npending++] = buf[used++];
		if (a->npending < need)
			return (ssize_t)size;
		if (put_run(a, a->pending, a->npending))
			return -1;
		a->npending = 0;
	}
	/* keep a character cut at the end of buf for the next write */
	size_t end = size, k = size;
	while (k > used && size - k < 3 && ((unsigned char)buf[k - 1] & 0xc0) == 0x80)
		k--;
	if (k > used && ((unsigned char)buf[k - 1] & 0xc0) == 0xc0 &&
	    seq_len((unsigned char)buf[k - 1]) > size - (k - 1))
		end = k - 1;
	if (put_run(a, buf + used, end - used))
		return -1;
	memcpy(a->pending, buf + end, size - end);
	a->npending = size - end;
	return (ssize_t)size;
}

static int ascii_close(void *cookie)
{
	struct ascii_out *a = cookie;
	int r = a->npending ? write_all(a->fd, "?", 1) : 0;
	int err = errno;
	int keep = a->keep_fd, fd = a->fd;
	free(a);
	if (keep)
		return r;
	if (close(fd) != 0 && !r)
		r = -1;
	else
		errno = err;
	return r;
}

static FILE *ascii_stream(int fd, stdout_translit translit, struct ascii_out **out)
{
	struct ascii_out *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->translit = translit;
	a->fd = fd;
	cookie_io_functions_t io = { .write = ascii_write, .close = ascii_close };
	FILE *f = fopencookie(a, "w", io);
	if (!f) {
		free(a);
		a = NULL;
	}
	*out = a;
	return f;
}

int stdout_set_ascii(stdout_translit translit)
{
	struct ascii_out *a, *b;
	FILE *f = ascii_stream(STDOUT_FILENO, translit, &a);
	FILE *g = ascii_stream(STDERR_FILENO, translit, &b);
	if (!f || !g) {         /* closing either must leave its fd open */
		if (f)
			a->keep_fd = 1, fclose(f);
		if (g)
			b->keep_fd = 1, fclose(g);
		return -1;
	}
	b->keep_fd = 1;                 /* stderr stays open to the end */
	setvbuf(g, NULL, _IONBF, 0);    /* and unbuffered, as stderr is */
	fflush(stdout);
	fflush(stderr);
	saved = stdout;
	saved_err = stderr;
	ascii = a;
	stdout = f;
	stderr = g;
	return 0;
}
int stdout_unset_ascii(void)
{
	if (!saved)
		return 0;
	ascii->keep_fd = 1;
	int r = fclose(stdout);
	stdout = saved;
	saved = NULL;
	ascii = NULL;
	return r;
}
