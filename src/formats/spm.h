/* spm.h - SentencePiece tokenizers (Kudo and Richardson 2018), id for id
 * with the SentencePiece library (0.1.97, Debian's python3-sentencepiece).
 *
 * Where they come from.  spm_load reads a ModelProto file (T5's
 * spiece.model, Llama 2's tokenizer.model, Marian's source.spm and
 * target.spm): the pieces with their scores and types, trainer_spec's
 * model_type, byte_fallback, treat_whitespace_as_suffix and the special
 * pieces' spellings, and normalizer_spec (add_dummy_prefix,
 * remove_extra_whitespaces, escape_whitespaces and the precompiled_charsmap,
 * the normalisation rules of nmt_nfkc and the like compiled into a
 * Darts double-array trie, which is read as SentencePiece reads it).
 * spm_new builds the same from arrays: the GGUF reader builds llama.cpp's
 * "llama" tokenizer from tokenizer.ggml.tokens / scores / token_type (BPE,
 * byte fallback, add_space_prefix as add_dummy_prefix, no charsmap).
 *
 * Encoding (spm_encode), as SentencePieceProcessor::Encode does:
 *   1. normalise: user-defined pieces are kept as they are; elsewhere the
 *      longest charsmap rule at each point replaces its text (an invalid
 *      UTF-8 byte becomes U+FFFD); with remove_extra_whitespaces, leading,
 *      trailing and repeated spaces go; escape_whitespaces writes a space as
 *      "▁" (U+2581); add_dummy_prefix puts one "▁" in front;
 *   2. segment: UNIGRAM by Viterbi over the pieces' scores (a user-defined
 *      piece scores length × the best score − 0.1, so it always wins; a
 *      character no piece covers is the unknown piece, scored 10 below the
 *      worst); BPE by merging the adjacent pair whose joined text is the
 *      highest-scored piece first (the leftmost of equal scores), a
 *      user-defined piece one frozen symbol, an UNUSED piece split back
 *      into what made it; WORD by "▁"-words, CHAR by characters;
 *   3. with byte_fallback, an unknown piece becomes the byte pieces
 *      <0x00> … <0xFF> of its UTF-8 bytes; without, a run of unknown
 *      pieces becomes one.
 * Unigram ties go as the library's arithmetic makes them: a path's score
 * is a float, a piece's score is added to it in double.
 * Decoding (spm_decode): CONTROL pieces give nothing, the unknown piece
 * the unk_surface (" ⁇ "), runs of byte pieces their bytes (invalid UTF-8
 * as U+FFFD), "▁" a space; the leading "▁" of the first piece (past
 * controls) is dropped, and with remove_extra_whitespaces that of every
 * piece until some text has come.
 *
 * Ownership: a struct spm owns copies of everything it was given or read;
 * spm_free frees it.  Encoding and decoding only read it (any number of
 * threads at once). */
#ifndef ATTNSCOPE_SPM_H
#define ATTNSCOPE_SPM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* trainer_spec.model_type */
enum spm_model { SPM_UNIGRAM = 1, SPM_BPE = 2, SPM_WORD = 3, SPM_CHAR = 4 };

/* ModelProto.SentencePiece.Type (also GGUF's tokenizer.ggml.token_type) */
enum spm_type {
	SPM_NORMAL = 1, SPM_UNKNOWN = 2, SPM_CONTROL = 3, SPM_USER_DEFINED = 4,
	SPM_UNUSED = 5, SPM_BYTE = 6
};

#define SPM_SPACE "\xe2\x96\x81"        /* ▁ U+2581, the escaped space */
#define SPM_MAX_PIECES (1 << 22)
#define SPM_MAX_PIECE_BYTES 1024

/* What spm_new is built from.  Arrays are read, not kept.
 *
 * From GGUF's "llama" tokenizer (tokenizer.ggml.model = "llama"): n and
 * pieces from tokenizer.ggml.tokens, scores from .scores, types from
 * .token_type (llama.cpp's 0, undefined, read as SPM_NORMAL), model SPM_BPE
 * (SPM_UNIGRAM if a converter says so), byte_fallback 1 when any type is
 * SPM_BYTE, add_dummy_prefix tokenizer.ggml.add_space_prefix (default 1),
 * remove_extra_whitespaces 0, escape_whitespaces 1, charsmap NULL (or
 * tokenizer.ggml.precompiled_charsmap when present), bos/eos/pad from
 * .bos_token_id, .eos_token_id, .padding_token_id (-1 when absent).  The
 * ids are then SentencePiece's own for that model (what llama.cpp's SPM
 * tokenizer is meant to give; not compared with llama.cpp here); whether
 * to put BOS in front (tokenizer.ggml.add_bos_token) is the caller's.
 * engine/model_tok.h's model_tok_spm_adopt makes the result a model's
 * tokenizer. */
struct spm_spec {
	int n;                        /* pieces, 1 … SPM_MAX_PIECES */
	const char *const *pieces;    /* [n] non-empty UTF-8 strings */
	const float *scores;          /* [n], or NULL: all 0 */
	const int32_t *types;         /* [n] enum spm_type, or NULL: all NORMAL */
	enum spm_model model;
	int byte_fallback;            /* unknown text as <0xXX> byte pieces */
	int add_dummy_prefix;         /* a "▁" in front (GGUF: add_space_prefix) */
	int remove_extra_whitespaces; /* leading, trailing, repeated spaces go */
	int escape_whitespaces;       /* a space as "▁" (SentencePiece: always) */
	int treat_whitespace_as_suffix; /* "▁" ends words instead of starting them */
	const void *charsmap;         /* precompiled_charsmap, or NULL: none */
	size_t charsmap_len;
	/* the specials' ids, -1 for none (spm_load finds them by the trainer's
	 * spellings <s> </s> <pad>, as the library's bos_id() etc. do) */
	int bos_id, eos_id, pad_id;
	const char *unk_surface;      /* the unknown piece's text in decode;
	                                 NULL: " ⁇ " */
};

/* A loaded tokenizer.  The fields are read-only to users. */
struct spm {
	int n;                        /* pieces */
	char **piece;                 /* [n] (owned) */
	float *score;                 /* [n] */
	uint8_t *type;                /* [n] enum spm_type */
	enum spm_model model;
	int byte_fallback, add_dummy_prefix, remove_extra_whitespaces,
	    escape_whitespaces, treat_whitespace_as_suffix;
	int unk_id;                   /* the UNKNOWN piece (there is exactly one) */
	int bos_id, eos_id, pad_id;   /* -1: none */
	char *norm_name;              /* normalizer_spec.name ("nmt_nfkc"), or "" */
	char *unk_surface;
	int byte_id[256];             /* the <0xXX> pieces, -1 where missing */
	/* private (spm_int.h) */
	struct spm_priv *priv;
};

/* Reads a SentencePiece ModelProto file (at most 256 MB).  A file that is
 * not one, or is cut short, or whose pieces contradict each other (two
 * unknown pieces, a piece twice, byte pieces without byte_fallback) is a
 * one-line error naming the file.  Free with spm_free. */
struct spm *spm_load(const char *path, struct err *e);
/* The same from buf[0..len) (copied as needed; what names it in errors). */
struct spm *spm_load_buffer(const void *buf, size_t len, const char *what,
			    struct err *e);
/* Builds a tokenizer from arrays (struct spm_spec); the same checks as
 * spm_load (what names the source in errors).  Free with spm_free. */
struct spm *spm_new(const struct spm_spec *s, const char *what, struct err *e);
void spm_free(struct spm *s);

/* Encodes text[0..len) (UTF-8; an invalid byte is read as U+FFFD and
 * counted in *invalid when invalid is given) into *ids (malloc'd, *n of
 * them, free with free; NULL when *n is 0).  No BOS/EOS is added.  Returns
 * 0, or -1 with e filled (out of memory). */
int spm_encode(const struct spm *s, const char *text, size_t len, int32_t **ids,
	       int *n, int *invalid, struct err *e);
/* The same as pieces: *pieces[i] point into s (not to be freed; free the
 * array itself), ids as spm_encode's. */
int spm_encode_pieces(const struct spm *s, const char *text, size_t len,
		      int32_t **ids, const char ***pieces, int *n, int *invalid,
		      struct err *e);
/* The text of ids (see above; an id out of range is an error), malloc'd
 * and NUL-terminated, its length in *len when len is given (the text may
 * hold a NUL: the byte piece <0x00>).  Returns NULL with e filled. */
char *spm_decode(const struct spm *s, const int32_t *ids, int n, size_t *len,
		 struct err *e);

/* The piece of id, or NULL when id is out of range. */
const char *spm_piece(const struct spm *s, int id);
int spm_n(const struct spm *s);
/* The id of piece as the library's PieceToId gives it (a CONTROL, UNKNOWN
 * or BYTE piece first, then the others), or -1 when there is none. */
int spm_id(const struct spm *s, const char *piece);

/* A piece as a reader sees it, into buf[cap]: "▁" as it is (the word
 * start as SentencePiece writes it, DESIGN.md / issue 40), a byte piece
 * <0x0A> as "↵" (a newline), "⇥" (a tab), its character when it is one
 * printable ASCII byte, else as it is.  Returns buf. */
char *spm_label(const char *piece, char *buf, size_t cap);
/* Pieces joined back into text, into buf[cap] (cut at a code point): byte
 * pieces give their bytes (invalid UTF-8 as U+FFFD), "▁" a space, the
 * first leading "▁" is dropped.  Returns buf.  (spm_decode does the same
 * from ids, and knows the CONTROL and unknown pieces.) */
char *spm_text(char *const *pieces, int n, char *buf, size_t cap);

/* Marian's ids: the tokenizer encodes into pieces, and each piece's id is
 * its id in vocab (the folder's vocab.json), the vocabulary's unk where it
 * lacks the piece.  Fills *map (malloc'd, s->n entries, free with free)
 * with each spm id's vocabulary id.  Returns 0, or -1 (out of memory). */
struct vocab;
int spm_remap_vocab(const struct spm *s, const struct vocab *v, int unk,
		    int32_t **map, struct err *e);

#endif
