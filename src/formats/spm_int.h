/* spm_int.h - what spm.c, spm_norm.c and spm_encode.c share (not public).
 *
 * One hash table (FNV-1a, open addressing) holds every piece, keyed by its
 * bytes, with its id in each of the library's two maps: `normal` (the
 * NORMAL, USER_DEFINED and UNUSED pieces, which segmentation may produce)
 * and `reserved` (CONTROL, UNKNOWN, BYTE).  A set of 32-bit fingerprints
 * of the hashes of every prefix of a normal piece lets a scan stop as soon
 * as no piece starts with what it has read (as a walk down the library's
 * trie does); a fingerprint that collides only makes a scan go on further,
 * every piece found is checked against the table.  (4 bytes a prefix: a
 * 256,000-piece vocabulary's prefixes cost tens of MB at most.) */
#ifndef ATTNSCOPE_SPM_INT_H
#define ATTNSCOPE_SPM_INT_H

#include "charsmap.h"
#include "spm.h"

#define SPM_FNV_OFFSET 14695981039346656037ull
#define SPM_FNV_PRIME 1099511628211ull

struct spm_entry {
	uint64_t h;
	const char *s;          /* the bytes (into a piece string), NULL: empty slot */
	uint32_t len;
	int32_t normal;         /* id in the normal map, or -1 */
	int32_t reserved;       /* id in the reserved map, or -1 */
};

struct spm_priv {
	struct spm_entry *tab;
	size_t mask;            /* slots - 1 (a power of two) */
	size_t used;            /* entries (at most half the slots) */
	uint32_t *pfx;          /* the prefix set: fingerprints, 0 = empty */
	size_t pmask, pused;
	float min_score, max_score;   /* over NORMAL pieces (FLT_MAX, FLT_MIN
	                                 when none, as the library starts) */
	int has_user;           /* any USER_DEFINED piece */
	/* precompiled_charsmap (charsmap.h); no units when there is none */
	struct charsmap cm;
};

static inline uint64_t spm_hash_step(uint64_t h, unsigned char b)
{
	return (h ^ b) * SPM_FNV_PRIME;
}

/* The entry for s[0..len) whose hash is h, or NULL. */
const struct spm_entry *spm_find(const struct spm *s, uint64_t h, const char *p,
				 size_t len);
/* Whether some normal piece may start with the bytes whose hash is h
 * (never 0 when one does). */
int spm_prefix(const struct spm *s, uint64_t h);
/* The library's PieceToId: reserved, then normal, then unk_id. */
int spm_piece_id(const struct spm *s, const char *p, size_t len);
/* Length of the longest USER_DEFINED piece starting text[0..len), or 0. */
size_t spm_user_prefix(const struct spm *s, const char *text, size_t len);
/* Length of one UTF-8 character from its first byte (the library's
 * OneCharLen: 1, 2, 3 or 4, not validated), at most len. */
size_t spm_char_len(const char *text, size_t len);

/* Normalises text[0..len) (spm.h, step 1) into *out (malloc'd, *outlen
 * bytes, NUL-terminated); invalid bytes are counted in *invalid.
 * Returns 0, or -1 (out of memory). */
int spm_normalize(const struct spm *s, const char *text, size_t len, char **out,
		  size_t *outlen, int *invalid);
/* Checks and copies the precompiled charsmap into s->priv.  Returns 0, or
 * -1 with *why set. */
int spm_charsmap_init(struct spm *s, const void *blob, size_t len, const char **why);

#endif
