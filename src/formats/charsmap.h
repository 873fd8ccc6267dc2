/* charsmap.h - SentencePiece's precompiled_charsmap: normalisation rules
 * (text -> replacement) in a Darts-clone double-array trie, the way a
 * SentencePiece .model (spm.h) and a tokenizer.json's Precompiled
 * normalizer (tokjson.h, base64 in the JSON) carry them. */
#ifndef ATTNSCOPE_CHARSMAP_H
#define ATTNSCOPE_CHARSMAP_H

#include <stddef.h>
#include <stdint.h>

struct charsmap {
	uint32_t *units;        /* [nunits] the trie's double-array units (owned) */
	size_t nunits;
	char *repl;             /* [nrepl + 1] the replacements, NUL-separated (owned) */
	size_t nrepl;
};

/* Reads the blob: a little-endian uint32 trie size in bytes, the trie's
 * units (uint32, little-endian), then the replacement strings, each ending
 * in a NUL; a unit's value is the offset of its replacement.  Returns 0,
 * or -1 with *why a reason (marked N_(): print it with _()).  Free with
 * charsmap_free (also after a failure). */
int charsmap_init(struct charsmap *c, const void *blob, size_t len, const char **why);
void charsmap_free(struct charsmap *c);

/* The rules whose text is a prefix of text[0..len) (Darts'
 * commonPrefixSearch): the longest, as SentencePiece's normaliser takes
 * it, or with shortest the first found, as Hugging Face's Precompiled
 * takes it.  Returns the rule's length (0: none; a trie leading outside
 * itself matches nothing there), its replacement in *rep / *rlen (empty
 * when its offset is outside the strings).  A walk stops after 256 bytes
 * or at a NUL. */
size_t charsmap_match(const struct charsmap *c, const char *text, size_t len, int shortest,
		      const char **rep, size_t *rlen);

#endif
