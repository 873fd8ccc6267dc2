/* tmpfiles.h - files in a test's temporary directory.
 *
 * A test fills tmpdir (e.g. with mkdtemp) and removes it at the end;
 * tpath names a file in it, write_file writes a text file or bails out. */
#ifndef ATTNSCOPE_TMPFILES_H
#define ATTNSCOPE_TMPFILES_H

#include <stdio.h>
#include <stdlib.h>

static char tmpdir[64];

/* tmpdir/name in one of a few rotating buffers. */
static inline const char *tpath(const char *name)
{
	static char buf[4][256];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

static inline void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

#endif
