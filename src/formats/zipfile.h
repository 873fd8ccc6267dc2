/* zipfile.h - the zip container of torch.save files, read in place.
 *
 * Only what torch.save (PyTorch >= 1.6) writes is accepted: entries stored
 * uncompressed (method 0), one disk, no encryption, ZIP64 records where
 * sizes or offsets pass 4 GiB.  The archive is given as bytes (usually a
 * read-only mapping of the file); entries point into them.  Every number is
 * checked before use: end-of-central-directory record inside the bytes,
 * central directory inside the bytes, each local header and its data inside
 * the bytes and before the central directory, local header agreeing with
 * its central directory record (name, method, sizes), no two entries
 * overlapping, no duplicate names. */
#ifndef ATTNSCOPE_ZIPFILE_H
#define ATTNSCOPE_ZIPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct zip_entry {
	const char *name;             /* NUL-terminated copy */
	const unsigned char *data;    /* size bytes inside the archive's bytes */
	uint64_t size;
	uint32_t crc;                 /* CRC-32 from the central directory */
};

/* Entries sorted by name.  zip_close frees the names and the table; the
 * bytes stay the caller's. */
struct zipfile {
	struct zip_entry *e;
	int n;
	char *names;                  /* one block holding every name */
};

/* Reads the directory of buf[0..len).  path names the file in messages.
 * Returns 0, or -1 with e naming path and the problem (z is then empty). */
int zip_open(struct zipfile *z, const char *path, const unsigned char *buf,
	     size_t len, struct err *e);
void zip_close(struct zipfile *z);
/* The entry named name, or NULL. */
const struct zip_entry *zip_find(const struct zipfile *z, const char *name);
/* Whether the entry's bytes match its CRC-32. */
int zip_crc_ok(const struct zip_entry *ent);

#endif
