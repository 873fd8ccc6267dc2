/* path.h - file names relative to another file.  A model's vocabulary and
 * weights, and a lecture's models, are named relative to the YAML file
 * that names them. */
#ifndef ATTNSCOPE_PATH_H
#define ATTNSCOPE_PATH_H

/* rel as seen from the directory of file (rel itself when absolute).
 * Returns a malloc'd string, or NULL on out-of-memory. */
char *path_beside(const char *file, const char *rel);

#endif
