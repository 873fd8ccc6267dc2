/* zipfile.c - the zip container of torch.save files, read in place.
 *
 * The end-of-central-directory record (EOCD, 22 bytes plus a comment of at
 * most 65535) is searched backwards from the end; its ZIP64 locator, when
 * present, leads to the ZIP64 EOCD record with 64-bit counts and offsets.
 * Each central directory record (46 bytes + name + extra + comment) gives an
 * entry; its local header (30 bytes + name + extra) must agree with it, and
 * the data follow the local header.  Sizes of 0xffffffff are taken from the
 * ZIP64 extra field (id 1).  Nothing is decompressed: torch.save stores its
 * entries, and any other method is refused, so a declared size can never
 * make us allocate or inflate anything. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "zipfile.h"

#define ZIP_MAX_ENTRIES (1 << 20)

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* A printable prefix of a name for messages. */
static const char *zshow(const unsigned char *s, size_t n, char *buf, size_t cap)
{
	size_t i = 0;
	for (; i < n && i + 4 < cap; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	if (i < n)
		memcpy(buf + i, "...", 3), i += 3;
	buf[i] = 0;
	return buf;
}

/* Fills the 64-bit values that are 0xffffffff in the 32-bit fields from the
 * ZIP64 extra field, in its order: size, compressed size, offset. */
static int zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize,
		       uint64_t *csize, uint64_t *off)
{
	while (xlen >= 4) {
		uint32_t id = rd16(x), n = rd16(x + 2);
		if (n > xlen - 4)
			return -1;
		if (id == 1) {
			uint64_t *want[3] = { usize, csize, off };
			size_t k = 0;
			for (int i = 0; i < 3; i++) {
				if (!want[i] || *want[i] != 0xffffffffu)
					continue;
				if (k + 8 > n)
					return -1;
				*want[i] = rd64(x + 4 + k);
				k += 8;
			}
			return 0;
		}
		x += 4 + n;
		xlen -= 4 + n;
	}
	/* no ZIP64 field: fine unless a field needed one */
	return (usize && *usize == 0xffffffffu) || (csize && *csize == 0xffffffffu) ||
	       (off && *off == 0xffffffffu) ? -1 : 0;
}

/* Finds the central directory: offset, size and count. */
static int zip_find_cd(const char *path, const unsigned char *buf, size_t len,
		       uint64_t *cdoff, uint64_t *cdsize, uint64_t *count,
		       struct err *e)
{
	if (len < 22)
		return err_set(e, "%s: too short for a zip archive (%zu bytes)", path, len);
	size_t lo = len - 22 > 65535 ? len - 22 - 65535 : 0, at = len - 22 + 1;
	const unsigned char *p = NULL;
	while (at-- > lo)
		if (rd32(buf + at) == 0x06054b50u && at + 22 + rd16(buf + at + 20) == len) {
			p = buf + at;
			break;
		}
	if (!p)
		return err_set(e, "%s: no zip end-of-central-directory record "
			       "(truncated or not a zip archive)", path);
	if (rd16(p + 4) || rd16(p + 6) || rd16(p + 8) != rd16(p + 10))
		return err_set(e, "%s: multi-disk zip archives are not supported", path);
	*count = rd16(p + 10);
	*cdsize = rd32(p + 12);
	*cdoff = rd32(p + 16);
	size_t eocd = (size_t)(p - buf);
	if (eocd >= 20 && rd32(p - 20) == 0x07064b50u) {
		uint64_t r = rd64(p - 20 + 8);
		if (r > eocd - 20 || eocd - 20 - r < 56 || rd32(buf + r) != 0x06064b50u)
			return err_set(e, "%s: bad ZIP64 end-of-central-directory locator", path);
		const unsigned char *q = buf + r;
		if (rd32(q + 16) || rd32(q + 20) || rd64(q + 24) != rd64(q + 32))
			return err_set(e, "%s: multi-disk zip archives are not supported", path);
		*count = rd64(q + 32);
		*cdsize = rd64(q + 40);
		*cdoff = rd64(q + 48);
		eocd = (size_t)r;
	}
	if (*cdoff > eocd || *cdsize > eocd - *cdoff)
		return err_set(e, "%s: zip central directory [%" PRIu64 ", +%" PRIu64
			       ") is outside the archive (truncated?)", path, *cdoff, *cdsize);
	if (*count > ZIP_MAX_ENTRIES || *count > *cdsize / 46)
		return err_set(e, "%s: zip directory declares %" PRIu64 " entries in %" PRIu64
			       " bytes", path, *count, *cdsize);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct zip_entry *)a)->name, ((const struct zip_entry *)b)->name);
}

struct span { uint64_t begin, end; int i; };

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* One central directory record at cd[*pos]; advances *pos.  Writes the
 * entry (its name into *names) and the span of its local header + data. */
static int zip_entry_at(const char *path, const unsigned char *buf, uint64_t cdoff,
			const unsigned char *cd, uint64_t cdsize, uint64_t *pos,
			struct zip_entry *ent, char **names, struct span *sp,
			struct err *e)
{
	char nb[64];
	if (cdsize - *pos < 46 || rd32(cd + *pos) != 0x02014b50u)
		return err_set(e, "%s: bad zip central directory record at offset %" PRIu64,
			       path, cdoff + *pos);
	const unsigned char *c = cd + *pos;
	uint32_t flags = rd16(c + 8), method = rd16(c + 10);
	uint64_t csize = rd32(c + 20), usize = rd32(c + 24), off = rd32(c + 42);
	uint32_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
	if (cdsize - *pos - 46 < (uint64_t)nlen + xlen + clen)
		return err_set(e, "%s: zip central directory record at offset %" PRIu64
			       " runs past the directory", path, cdoff + *pos);
	const unsigned char *name = c + 46;
	zshow(name, nlen, nb, sizeof nb);
	if (memchr(name, 0, nlen))
		return err_set(e, "%s: zip entry name \"%s\" contains a NUL byte", path, nb);
	if (zip64_extra(name + nlen, xlen, &usize, &csize, &off))
		return err_set(e, "%s: zip entry \"%s\": bad ZIP64 extra field", path, nb);
	if (flags & 1)
		return err_set(e, "%s: zip entry \"%s\" is encrypted", path, nb);
	if (method != 0)
		return err_set(e, "%s: zip entry \"%s\" is compressed (method %" PRIu32 "); "
			       "torch.save stores entries uncompressed and only those are read",
			       path, nb, method);
	if (csize != usize)
		return err_set(e, "%s: zip entry \"%s\" is stored but its sizes differ "
			       "(%" PRIu64 " and %" PRIu64 ")", path, nb, csize, usize);
	/* the local header, before the central directory */
	if (off > cdoff || cdoff - off < 30 || rd32(buf + off) != 0x04034b50u)
		return err_set(e, "%s: zip entry \"%s\": no local header at offset %" PRIu64,
			       path, nb, off);
	const unsigned char *l = buf + off;
	uint32_t lnlen = rd16(l + 26), lxlen = rd16(l + 28);
	uint64_t lcsize = rd32(l + 18), lusize = rd32(l + 22);
	uint64_t dbeg = off + 30 + lnlen + lxlen;
	if (dbeg > cdoff)
		return err_set(e, "%s: zip entry \"%s\": local header runs into the central "
			       "directory", path, nb);
	if (lnlen != nlen || memcmp(l + 30, name, nlen) || rd16(l + 8) != method)
		return err_set(e, "%s: zip entry \"%s\": local header does not match the "
			       "central directory", path, nb);
	if (!(flags & 8)) {
		/* sizes in the local header (else in a data descriptor after the data) */
		if (zip64_extra(l + 30 + lnlen, lxlen, &lusize, &lcsize, NULL) ||
		    lcsize != csize || lusize != usize)
			return err_set(e, "%s: zip entry \"%s\": local header sizes do not match "
				       "the central directory", path, nb);
	}
	if (usize > cdoff - dbeg)
		return err_set(e, "%s: zip entry \"%s\": %" PRIu64 " bytes at offset %" PRIu64
			       " run past the data (truncated?)", path, nb, usize, dbeg);
	memcpy(*names, name, nlen);
	(*names)[nlen] = 0;
	ent->name = *names;
	*names += nlen + 1;
	ent->data = buf + dbeg;
	ent->size = usize;
	ent->crc = rd32(c + 16);
	sp->begin = off;
	sp->end = dbeg + usize;
	*pos += 46 + (uint64_t)nlen + xlen + clen;
	return 0;
}

int zip_open(struct zipfile *z, const char *path, const unsigned char *buf,
	     size_t len, struct err *e)
{
	uint64_t cdoff = 0, cdsize = 0, count = 0, pos = 0;
	struct span *sp = NULL;
	memset(z, 0, sizeof *z);
	if (zip_find_cd(path, buf, len, &cdoff, &cdsize, &count, e))
		return -1;
	z->e = calloc(count ? count : 1, sizeof *z->e);
	z->names = malloc(cdsize + 1);     /* names are inside the directory */
	sp = malloc((count ? count : 1) * sizeof *sp);
	if (!z->e || !z->names || !sp) {
		err_set(e, "%s: out of memory", path);
		goto fail;
	}
	char *np = z->names;
	for (uint64_t i = 0; i < count; i++) {
		if (zip_entry_at(path, buf, cdoff, buf + cdoff, cdsize, &pos, &z->e[i], &np,
				 &sp[i], e))
			goto fail;
		sp[i].i = (int)i;
		z->n++;
	}
	qsort(sp, (size_t)count, sizeof *sp, cmp_span);
	for (uint64_t i = 1; i < count; i++)
		if (sp[i].begin < sp[i - 1].end) {
			char a[64], b[64];
			const struct zip_entry *x = &z->e[sp[i - 1].i], *y = &z->e[sp[i].i];
			err_set(e, "%s: zip entries \"%s\" and \"%s\" overlap", path,
				zshow((const unsigned char *)x->name, strlen(x->name), a, sizeof a),
				zshow((const unsigned char *)y->name, strlen(y->name), b, sizeof b));
			goto fail;
		}
	qsort(z->e, (size_t)z->n, sizeof *z->e, cmp_name);
	for (int i = 1; i < z->n; i++)
		if (!strcmp(z->e[i - 1].name, z->e[i].name)) {
			char a[64];
			err_set(e, "%s: zip entry \"%s\" appears twice", path,
				zshow((const unsigned char *)z->e[i].name, strlen(z->e[i].name),
				      a, sizeof a));
			goto fail;
		}
	free(sp);
	return 0;
fail:
	free(sp);
	zip_close(z);
	return -1;
}

void zip_close(struct zipfile *z)
{
	free(z->e);
	free(z->names);
	memset(z, 0, sizeof *z);
}

const struct zip_entry *zip_find(const struct zipfile *z, const char *name)
{
	struct zip_entry key = { .name = name };
	if (!z->n)
		return NULL;
	return bsearch(&key, z->e, (size_t)z->n, sizeof *z->e, cmp_name);
}

int zip_crc_ok(const struct zip_entry *ent)
{
	static uint32_t table[256];
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	uint32_t c = 0xffffffffu;
	for (uint64_t i = 0; i < ent->size; i++)
		c = table[(c ^ ent->data[i]) & 0xff] ^ (c >> 8);
	return (c ^ 0xffffffffu) == ent->crc;
}
