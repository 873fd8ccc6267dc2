/* hf_int.h - the parts of the Hugging Face folder loader (hf.c) that its
 * families' files share: config.json's keys read one by one.  Each
 * returns 0 (an absent or null key leaves *out as it was), or -1 with e
 * naming config.json, its line and the key. */
#ifndef ATTNSCOPE_HF_INT_H
#define ATTNSCOPE_HF_INT_H

#include "model.h"
#include "formats/ydoc.h"

#define HF_MAX_DIM 65536
#define HF_MAX_LAYERS 256
#define HF_MAX_LEN (1 << 24)

/* dir/name, malloc'd (NULL when out of memory). */
char *hf_path(const char *dir, const char *name);

/* The value of key k, or NULL when it is missing or null. */
const struct ynode *hf_key(const struct ynode *map, const char *k);
int hf_int(const struct ydoc *d, const char *k, long long lo, long long hi, int *out,
	   struct err *e);
/* An epsilon in (0, 1). */
int hf_eps(const struct ydoc *d, const char *k, double *out, struct err *e);
/* A flag set to `bad` is an error: the pass does not implement it. */
int hf_refuse(const struct ydoc *d, const char *k, int bad, struct err *e);
/* activation_function / hidden_act: Hugging Face's ACT2FN names. */
int hf_act(const struct ydoc *d, const char *k, enum activation *out, struct err *e);

/* config.json of a decoder-only family of today (hf_llama.c): model_type
 * llama, mistral, qwen2, qwen3, gemma or phi3, with the family's defaults
 * for missing keys; *vocab its vocab_size.  Returns 0, or -1 with e set. */
int hf_llama_config(struct config *c, const struct ydoc *d, const char *type, int *vocab,
		    struct err *e);
/* Whether type is one of those families. */
int hf_llama_family(const char *type);

/* The special tokens' ids a translator's config.json names (-1: none). */
struct hf_ids {
	int pad, bos, eos, start, forced_bos;
};

/* config.json of an encoder-decoder translator (hf_translators.c):
 * model_type marian, t5, bart or mbart, with the family's defaults;
 * *vocab its vocab_size, *ids its specials. */
int hf_translators_config(struct config *c, const struct ydoc *d, const char *type,
			  int *vocab, struct hf_ids *ids, struct err *e);
int hf_translators_family(const char *type);
/* The folder's tokenizer (Marian's source.spm, target.spm and vocab.json;
 * T5's spiece.model; BART's vocab.json and merges.txt), its vocabulary
 * padded to vocab entries, and the specials of ids. */
int hf_translators_tokenizer(struct model *m, const char *dir, const struct hf_ids *ids,
			     int vocab, struct err *e);

#endif
