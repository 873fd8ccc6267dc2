/* safefile.h - the one way files are opened: inputs only when they are
 * regular files, outputs through a temporary renamed over the target.
 *
 * Reading.  safefile_open_read refuses anything but a regular file (not
 * /dev/zero, a FIFO, a directory, a device: those read forever, block, or
 * are not data) without blocking on a FIFO, and remembers the file's device
 * and inode as an input of this process.
 *
 * Writing.  An output is written to a temporary created by mkstemp beside
 * the target (O_EXCL, mode 0600 until it is complete), flushed, fsynced
 * and renamed over the target, so the target is either the old file or the
 * complete new one.  The decisions (README, "Decisions worth knowing"):
 *   - an empty name, or one that ends in '/', is an error;
 *   - the target must be absent or a regular file: a directory, FIFO,
 *     device or socket is refused, never written into or replaced;
 *   - an existing regular file is replaced atomically, no --force needed,
 *     keeping its permission bits (a new file gets 0666 less the umask);
 *   - a file this process read (any safefile_open_read: the model YAML,
 *     weights, vocabularies, corpus, held-out set...) is refused, compared
 *     by device and inode, so a hard link or another spelling of the name
 *     is caught too (SAFEFILE_INPUT_OK lifts this for train --record, which
 *     writes into the model YAML on purpose);
 *   - a symbolic link at the target is replaced by the new file: the link
 *     is never followed, what it pointed to is left as it was.
 * The registry of inputs is process-wide and not locked: files are opened
 * from the main thread. */
#ifndef ATTNSCOPE_SAFEFILE_H
#define ATTNSCOPE_SAFEFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"

/* Opens path read-only (O_CLOEXEC) when it is a regular file; returns the
 * descriptor, or -1 with "PATH: not a regular file (a FIFO)" or the system's
 * reason in e.  The file becomes one of the process's inputs. */
int safefile_open_read(const char *path, struct err *e);
/* The same as a stdio stream ("r" or "rb" mode); NULL on failure. */
FILE *safefile_fopen_read(const char *path, struct err *e);
/* The whole of a regular file of at most max bytes (opened as above),
 * malloc'd and NUL-terminated (the caller frees it), its length in *len;
 * NULL with "PATH: larger than N MB" or the system's reason in e. */
char *safefile_read_all(const char *path, size_t max, size_t *len, struct err *e);
/* Forgets path as an input (it was read completely and may now be
 * replaced: train --resume CKPT --out CKPT).  No effect if it is not one. */
void safefile_forget_input(const char *path);

enum {
	SAFEFILE_INPUT_OK = 1,   /* the target may be one of the inputs */
	SAFEFILE_NEW = 2,        /* the target must not exist (EEXIST) */
};

struct safefile {
	FILE *fp;                /* write the contents here */
	char *path, *tmp;        /* the target and the temporary (owned) */
	int flags;
};

/* Whether path may be written with these flags, without writing anything
 * except a probe temporary (created and removed) that shows the folder
 * takes new files: commands check every output before long work.
 * Returns 0, or -1 with a one-line message naming path. */
int safefile_check(const char *path, int flags, struct err *e);
/* Checks path, then creates the temporary; write to f->fp, then commit or
 * abort.  Returns 0, or -1 with e set (nothing is left behind). */
int safefile_open(struct safefile *f, const char *path, int flags, struct err *e);
/* Flushes, fsyncs and renames the temporary over the target (checked
 * again).  Returns 0, or -1 with e set; the temporary is removed either
 * way and f is released.  With SAFEFILE_NEW an existing target gives -1
 * with errno EEXIST. */
int safefile_commit(struct safefile *f, struct err *e);
/* Flushes, fsyncs and closes f->fp: the temporary is complete (or the
 * write failed: -1 with e set, the temporary kept for safefile_abort). */
int safefile_finish(struct safefile *f, struct err *e);
/* All or none: finishes every one of fs[0..n); when any failed (a full
 * disk), aborts them all, so every target keeps its old contents; else
 * renames each over its target.  A set of files that belong together
 * (corpus: train, held-out and the vocabularies).  Returns 0, or -1 with
 * e set; fs are released either way.  (A rename can still fail after
 * others succeeded, when the folder changed meanwhile; renames take no
 * space, so a full disk cannot part the set.) */
int safefile_commit_all(struct safefile *fs, int n, struct err *e);
/* Removes the temporary and releases f (after a failed write). */
void safefile_abort(struct safefile *f);

#endif
