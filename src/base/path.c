/* path.c - file names relative to another file. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *path_beside(const char *file, const char *rel)
{
	if (rel[0] == '/')
		return strdup(rel);
	char *tmp = strdup(file);
	if (!tmp)
		return NULL;
	const char *dir = dirname(tmp);
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", dir, rel);
	free(tmp);
	return out;
}
