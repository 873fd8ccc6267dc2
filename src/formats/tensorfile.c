/* tensorfile.c - one way to open a weights file, whatever its format. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "shards.h"
#include "tensorfile.h"
#include "torchsave.h"
#include "base/safefile.h"

/* The first n bytes of path into buf; the count read, or -1. */
static ssize_t head(const char *path, unsigned char *buf, size_t n)
{
	int fd = safefile_open_read(path, NULL);   /* a FIFO would block */
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, buf, n);
	close(fd);
	return k;
}

int tensorfile_open(struct st_file *f, const char *path, const char *key,
		    struct err *e)
{
	unsigned char buf[16];
	if (shards_is_index(path) && !key)
		return shards_open(f, path, e);
	ssize_t k = head(path, buf, sizeof buf);
	if (k >= 4 && ts_sniff(buf, (size_t)k))
		return ts_open(f, path, key, e);
	if (k == 0) {
		memset(f, 0, sizeof *f);
		return err_set(e, "%s: the file is empty", path);
	}
	if (key && k >= 0) {
		memset(f, 0, sizeof *f);
		return err_set(e, "%s: weights_key \"%.80s\" is for torch.save checkpoints; this "
			       "file is not one", path, key);
	}
	return st_open(f, path, e);
}

int tensorfile_sniff(const char *path)
{
	unsigned char buf[16];
	ssize_t k = head(path, buf, sizeof buf);
	if (k >= 4 && ts_sniff(buf, (size_t)k))
		return 1;
	/* safetensors: a header length, then the JSON object */
	return k >= 9 && buf[8] == '{' && (buf[6] | buf[7]) == 0;
}
