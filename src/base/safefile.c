/* safefile.c - inputs only from regular files, outputs through a temporary
 * renamed over the target (safefile.h says what is refused and why). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"
#include "i18n.h"

/* ---- the inputs of this process, by device and inode ---- */

struct input {
	dev_t dev;
	ino_t ino;
	char *path;                  /* the name it was read by, for messages */
};
static struct input *inputs;
static int ninputs, cap_inputs;

static void note_input(const struct stat *sb, const char *path)
{
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == sb->st_dev && inputs[i].ino == sb->st_ino)
			return;
	if (ninputs == cap_inputs) {
		int nc = cap_inputs ? 2 * cap_inputs : 16;
		struct input *ni = realloc(inputs, (size_t)nc * sizeof *ni);
		if (!ni)
			return;   /* out of memory: the output checks lose this one */
		inputs = ni;
		cap_inputs = nc;
	}
	char *p = strdup(path);
	if (!p)
		return;
	inputs[ninputs++] = (struct input){ sb->st_dev, sb->st_ino, p };
}

static const struct input *find_input(const struct stat *sb)
{
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == sb->st_dev && inputs[i].ino == sb->st_ino)
			return &inputs[i];
	return NULL;
}

void safefile_forget_input(const char *path)
{
	struct stat sb;
	if (stat(path, &sb))
		return;
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == sb.st_dev && inputs[i].ino == sb.st_ino) {
			free(inputs[i].path);
			inputs[i] = inputs[--ninputs];
			return;
		}
}

/* "a FIFO", "a directory", ... for a file that is not regular. */
static const char *kind(mode_t m)
{
	return S_ISDIR(m) ? _("a directory") : S_ISFIFO(m) ? _("a FIFO") :
	       S_ISCHR(m) ? _("a character device") : S_ISBLK(m) ? _("a block device") :
	       S_ISSOCK(m) ? _("a socket") : _("not a file");
}

int safefile_open_read(const char *path, struct err *e)
{
	struct stat sb, fb;
	/* stat first: opening a device can do something, a FIFO blocks */
	if (stat(path, &sb))
		return err_set(e, "%s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set(e, "%s: not a regular file (%s)", path, kind(sb.st_mode));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_set(e, "%s: %s", path, strerror(errno));
	if (fstat(fd, &fb) || !S_ISREG(fb.st_mode)) {   /* swapped meanwhile */
		int er = errno;
		close(fd);
		return S_ISREG(fb.st_mode) ? err_set(e, "%s: %s", path, strerror(er))
					   : err_set(e, "%s: not a regular file (%s)", path,
						     kind(fb.st_mode));
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl != -1)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	note_input(&fb, path);
	return fd;
}

char *safefile_read_all(const char *path, size_t max, size_t *len, struct err *e)
{
	int fd = safefile_open_read(path, e);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			close(fd);
			err_set(e, "%s: out of memory", path);
			return NULL;
		}
		if (n + 1 == cap) {
			if (n >= max) {
				free(buf);
				close(fd);
				err_set(e, "%s: larger than %zu MB", path, max >> 20);
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
			continue;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			int er = errno;
			free(buf);
			close(fd);
			err_set(e, "%s: %s", path, strerror(er));
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(buf);
		err_set(e, "%s: larger than %zu MB", path, max >> 20);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

FILE *safefile_fopen_read(const char *path, struct err *e)
{
	int fd = safefile_open_read(path, e);
	if (fd < 0)
		return NULL;
	FILE *fp = fdopen(fd, "rb");
	if (!fp) {
		err_set(e, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return fp;
}

/* ---- outputs ---- */

/* What may be at path: nothing, or a regular file that is not an input, or
 * a symbolic link (replaced itself).  *mode gets the permission bits the
 * new file should have. */
static int check_target(const char *path, int flags, mode_t *mode, struct err *e)
{
	struct stat sb;
	size_t n = strlen(path);
	if (!n)
		return err_set(e, "an output file name is empty");
	if (path[n - 1] == '/')
		return err_set(e, "%s: names a directory, not a file to write", path);
	mode_t um = umask(0);
	umask(um);
	*mode = 0666 & ~um;
	if (lstat(path, &sb)) {
		if (errno == ENOENT)
			return 0;
		return err_set(e, "%s: %s", path, strerror(errno));
	}
	if (flags & SAFEFILE_NEW) {
		err_set(e, "%s: %s", path, strerror(EEXIST));
		errno = EEXIST;
		return -1;
	}
	if (S_ISLNK(sb.st_mode))
		return 0;   /* the link is replaced, its target untouched */
	if (!S_ISREG(sb.st_mode))
		return err_set(e, "%s: not a regular file (%s): attnscope writes only "
			       "regular files", path, kind(sb.st_mode));
	const struct input *in = find_input(&sb);
	if (in && !(flags & SAFEFILE_INPUT_OK)) {
		if (strcmp(in->path, path) == 0)
			return err_set(e, "%s: is a file this command reads; refusing to "
				       "overwrite it", path);
		return err_set(e, "%s: is the same file as %s, which this command reads; "
			       "refusing to overwrite it", path, in->path);
	}
	*mode = sb.st_mode & 07777;
	return 0;
}

/* Creates the temporary ".NAME.XXXXXX" in the target's folder. */
static int make_temp(const char *path, char **tmp, struct err *e)
{
	char *d = strdup(path), *b = strdup(path);
	*tmp = NULL;
	if (d && b) {
		const char *dir = dirname(d), *base = basename(b);
		size_t n = strlen(dir) + strlen(base) + 16;
		if ((*tmp = malloc(n)))
			/* a long name is cut: the temporary must fit NAME_MAX */
			snprintf(*tmp, n, "%s/.%.200s.XXXXXX", dir, base);
	}
	free(d);
	free(b);
	if (!*tmp)
		return err_set(e, "%s: out of memory", path);
	int fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		int er = errno;
		free(*tmp);
		*tmp = NULL;
		return err_set(e, "%s: cannot create a file in its folder: %s", path,
			       strerror(er));
	}
	return fd;
}

int safefile_check(const char *path, int flags, struct err *e)
{
	mode_t mode;
	char *tmp;
	if (check_target(path, flags, &mode, e))
		return -1;
	int fd = make_temp(path, &tmp, e);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int safefile_open(struct safefile *f, const char *path, int flags, struct err *e)
{
	mode_t mode;
	memset(f, 0, sizeof *f);
	if (check_target(path, flags, &mode, e))
		return -1;
	int fd = make_temp(path, &f->tmp, e);
	if (fd < 0)
		return -1;
	/* the final mode only now: the temporary was private while created */
	if (fchmod(fd, mode) || !(f->path = strdup(path)) || !(f->fp = fdopen(fd, "wb"))) {
		int er = errno;
		close(fd);
		unlink(f->tmp);
		free(f->tmp);
		free(f->path);
		memset(f, 0, sizeof *f);
		return err_set(e, "%s: %s", path, strerror(er));
	}
	f->flags = flags;
	return 0;
}

void safefile_abort(struct safefile *f)
{
	if (f->fp)
		fclose(f->fp);
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	memset(f, 0, sizeof *f);
}

/* Makes the rename durable: fsync of the folder (best effort). */
static void sync_dir(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return;
	int fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(d);
}

int safefile_finish(struct safefile *f, struct err *e)
{
	if (!f->fp)
		return 0;
	int ok = !ferror(f->fp) && fflush(f->fp) == 0 && fsync(fileno(f->fp)) == 0;
	int er = errno;
	if (fclose(f->fp) && ok) {
		ok = 0;
		er = errno;
	}
	f->fp = NULL;
	if (ok)
		return 0;
	err_set(e, "%s: cannot write: %s", f->path, strerror(er ? er : EIO));
	errno = er;
	return -1;
}

int safefile_commit(struct safefile *f, struct err *e)
{
	int ok = safefile_finish(f, e) == 0;
	int er = ok ? 0 : errno;
	int rc = -1, renamed = 0;
	mode_t mode;
	if (!ok) {
		/* e says why */
	} else if (check_target(f->path, f->flags & ~SAFEFILE_NEW, &mode, e)) {
		er = EINVAL;   /* something else appeared there meanwhile */
	} else if (f->flags & SAFEFILE_NEW) {
		/* a hard link fails if the name exists: never replaces */
		if (link(f->tmp, f->path) == 0)
			rc = 0;
		else
			err_set(e, "%s: %s", f->path, strerror(er = errno));
	} else if (rename(f->tmp, f->path) == 0) {
		rc = 0;
		renamed = 1;
	} else {
		err_set(e, "%s: %s", f->path, strerror(er = errno));
	}
	if (rc == 0)
		sync_dir(f->path);
	if (!renamed)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	memset(f, 0, sizeof *f);
	errno = er;
	return rc;
}

int safefile_commit_all(struct safefile *fs, int n, struct err *e)
{
	int i, bad = 0;
	for (i = 0; i < n && !bad; i++)
		bad = safefile_finish(&fs[i], e) != 0;
	if (bad) {
		for (i = 0; i < n; i++)
			safefile_abort(&fs[i]);
		return -1;
	}
	/* every temporary is complete: only renames are left, which take no
	 * space; the first failure aborts what is not renamed yet */
	int rc = 0;
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = safefile_commit(&fs[i], e);
		else
			safefile_abort(&fs[i]);
	}
	return rc;
}
