/* gguf_map.h - what a GGUF file of a decoder-only family means in Hugging
 * Face's terms: the config from the <arch>.* keys, each tensor under its
 * Hugging Face name with its F32 values in Hugging Face's order, and the
 * tokenizer from the tokenizer.ggml.* keys.  The architectures: llama,
 * qwen2, qwen3, gemma, phi3 (general.architecture).
 *
 * What llama.cpp's converter (convert_hf_to_gguf.py) changed, undone here:
 *   - llama: the rows of q_proj and k_proj (weights and biases) are
 *     permuted in each head so that rotary pairs are adjacent (llama.cpp's
 *     "normal" rope) instead of Hugging Face's halves (rotate_half): GGUF
 *     row h*dk + 2i + s holds Hugging Face's row h*dk + s*dk/2 + i.  qwen2,
 *     qwen3, gemma and phi3 are not permuted (llama.cpp runs them with the
 *     "neox" rope, Hugging Face's order).
 *   - gemma: every RMSNorm weight is stored plus one (Gemma multiplies by
 *     1 + w); the values here are the stored ones minus one, Hugging Face's.
 *   - phi3 keeps Hugging Face's fused qkv_proj and gate_up_proj (gate first).
 * Shapes are given in Hugging Face's (PyTorch's) order: the GGUF ne[]
 * reversed, so a weight is [out, in] with the same row-major bytes. */
#ifndef ATTNSCOPE_GGUF_MAP_H
#define ATTNSCOPE_GGUF_MAP_H

#include <stdint.h>

#include "base/err.h"
#include "formats/gguf.h"

enum gguf_arch { GGUF_ARCH_LLAMA, GGUF_ARCH_QWEN2, GGUF_ARCH_QWEN3, GGUF_ARCH_GEMMA,
		 GGUF_ARCH_PHI3 };

enum gguf_rope_scaling { GGUF_ROPE_NONE, GGUF_ROPE_LINEAR, GGUF_ROPE_YARN, GGUF_ROPE_OTHER };

struct gguf_config {
	enum gguf_arch arch;
	char arch_name[16];             /* general.architecture */
	char name[256];                 /* general.name, or "" */
	uint32_t file_type;             /* general.file_type (llama_ftype), or
					   UINT32_MAX when absent */
	uint32_t context_length;        /* <arch>.context_length */
	uint32_t embedding_length;      /* d */
	uint32_t block_count;           /* layers */
	uint32_t feed_forward_length;   /* d_ff */
	uint32_t head_count;            /* h */
	uint32_t head_count_kv;         /* h_kv (default h) */
	uint32_t head_dim;              /* attention.key_length (default d / h) */
	uint32_t value_dim;             /* attention.value_length (default head_dim) */
	uint32_t rope_dim;              /* rope.dimension_count (default head_dim) */
	float rope_freq_base;           /* rope.freq_base (default 10000) */
	enum gguf_rope_scaling rope_scaling;   /* rope.scaling.type */
	char rope_scaling_name[32];     /* as the file spells it, or "" */
	float rope_scaling_factor;      /* rope.scaling.factor (default 1) */
	uint32_t rope_scaling_orig_ctx; /* rope.scaling.original_context_length, or 0 */
	int has_rope_freqs;             /* a rope_freqs.weight tensor (Llama 3.1's
					   "llama3" scaling, one factor a pair) */
	float rms_eps;                  /* attention.layer_norm_rms_epsilon */
	uint32_t sliding_window;        /* attention.sliding_window, 0: none */
	uint32_t vocab_size;            /* <arch>.vocab_size, else the tokens'
					   count, else token_embd's rows */
	int tied;                       /* no output.weight: the output layer is
					   the token embedding */
	int attn_bias;                  /* blk.0.attn_q.bias present (qwen2) */
	int qk_norm;                    /* blk.0.attn_q_norm.weight present (qwen3) */
};

/* Reads the config of f.  Returns 0, or -1 with e naming the file and the
 * key that is missing, of the wrong type or impossible (an architecture
 * other than the five, heads not dividing d, ...). */
int gguf_map_config(const struct gguf_file *f, struct gguf_config *c, struct err *e);

/* The Hugging Face name of the GGUF tensor gname ("blk.3.attn_q.weight" ->
 * "model.layers.3.self_attn.q_proj.weight") into hf[cap].  Returns 1, 0
 * for a tensor the Hugging Face folder has no counterpart of
 * (rope_freqs.weight, phi3's rope_factors_long/short.weight: hf is ""), or
 * -1 with e naming the tensor when it is not one of c's architecture. */
int gguf_map_name(const struct gguf_config *c, const char *gname, char *hf, size_t cap,
		  struct err *e);

/* One tensor as Hugging Face has it. */
struct gguf_hf_tensor {
	char name[96];                  /* Hugging Face's name, "" if none */
	const struct gguf_tensor *src;  /* the GGUF tensor (in f's tables) */
	int ndim;
	uint64_t shape[GGUF_MAX_DIMS];  /* PyTorch order: shape[0] slowest */
	uint64_t numel;
	float *data;                    /* numel values, row-major in shape;
					   malloc'd, gguf_hf_tensor_free frees */
};

/* Dequantises t (one of f's tensors) to F32 and puts it in Hugging Face's
 * order and values (un-permuting llama's Q/K rows, taking one off gemma's
 * norms).  Returns 0, or -1 with e naming the file and tensor (a type that
 * does not convert, rows that are not whole heads, out of memory). */
int gguf_map_tensor(const struct gguf_file *f, const struct gguf_config *c,
		    const struct gguf_tensor *t, struct gguf_hf_tensor *out, struct err *e);
void gguf_hf_tensor_free(struct gguf_hf_tensor *t);

/* Inverse of llama.cpp's LlamaModel.permute on rows [rows, cols] of
 * n_head heads, in place through tmp[rows * cols] (rows % (2 n_head) == 0).
 * Public for the tests. */
void gguf_unpermute_rows(float *data, float *tmp, uint64_t rows, uint64_t cols,
			 uint32_t n_head);

enum gguf_tok_model { GGUF_TOK_LLAMA, GGUF_TOK_GPT2, GGUF_TOK_OTHER };

/* tokenizer.ggml.*: "llama" is SentencePiece (scores, byte tokens
 * <0xXX>, token types); "gpt2" is byte-level BPE with merges and the
 * pre-tokeniser named by pre ("llama-bpe", "qwen2", "smollm", ...). */
struct gguf_tokenizer {
	enum gguf_tok_model model;
	char model_name[32];            /* tokenizer.ggml.model as spelled */
	char pre[64];                   /* tokenizer.ggml.pre, or "" */
	uint32_t n;                     /* tokens */
	char **tokens;                  /* [n], NUL-terminated (a token holding a
					   NUL byte is refused) */
	float *scores;                  /* [n] or NULL */
	int32_t *token_type;            /* [n] or NULL: 1 normal, 2 unknown,
					   3 control, 4 user-defined, 5 unused, 6 byte */
	uint32_t nmerges;
	char **merges;                  /* [nmerges] "a b", or NULL */
	int32_t bos, eos, unk, pad;     /* ids, or -1 when absent */
	int add_bos, add_eos;           /* 1/0, or -1 when the file does not say */
	int add_space_prefix;           /* 1/0, or -1 when the file does not say */
	char *blob;                     /* owns the tokens' strings */
	char *merge_blob;               /* owns the merges' strings */
};

/* Reads the tokenizer of f into t.  Returns 0, or -1 with e naming the
 * file and key (no tokens, a special id past the vocabulary, counts of
 * scores or types differing from the tokens', ...).  Free with
 * gguf_tokenizer_free (also after a failure). */
int gguf_map_tokenizer(const struct gguf_file *f, struct gguf_tokenizer *t, struct err *e);
void gguf_tokenizer_free(struct gguf_tokenizer *t);

#endif
