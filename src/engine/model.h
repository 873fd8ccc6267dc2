/* model.h - a Transformer's configuration and weights.
 *
 * model_load reads NAME.yaml (DESIGN.md "Model files"), its vocabularies and
 * its weights (safetensors file, inline `tensors:`, or `init: {random: N}`),
 * and checks every tensor's shape against the configuration.  Tensor names
 * and layouts are PyTorch nn.Transformer's state_dict: weights [out, in].
 *
 * Dimension names: d d_model, F d_ff, h heads, V vocabulary, L max_len. */
#ifndef ATTNSCOPE_MODEL_H
#define ATTNSCOPE_MODEL_H

#include <stddef.h>

#include "base/err.h"
#include "formats/bpe.h"
#include "formats/vocab.h"
#include "snapshot.h"

enum arch { ARCH_ENC_DEC, ARCH_DEC_ONLY, ARCH_ENC_ONLY };
enum norm_style { NORM_POST, NORM_PRE, NORM_NONE };
/* ACT_SILU: x·σ(x) (Llama's SwiGLU gate) */
enum activation { ACT_RELU, ACT_GELU, ACT_GELU_NEW, ACT_SILU, ACT_N };
/* torch.nn.LayerNorm: (x−mean)/√(var + eps); NK_STD: the Annotated
 * Transformer's a_2·(x−mean)/(std + eps) + b_2 with the unbiased std;
 * NK_RMS: RMSNorm x/√(mean(x²) + eps)·g (Llama, no bias, no centring);
 * NK_RMS1: Gemma's RMSNorm, ·(1 + g). */
enum norm_kind { NK_LAYERNORM, NK_STD, NK_RMS, NK_RMS1 };
enum pool_kind { POOL_MEAN, POOL_FIRST, POOL_LAST };

/* `tensor_names:` entry: this document's name (with {i}) -> the file's, one
 * name or several joined along the first dimension (separate Q, K, V). */
#define TNAME_MAXPARTS 3
struct tname {
	char *doc;
	char *file[TNAME_MAXPARTS];
	int nparts;
};

/* `head:` of an encoder-only classifier (present when nlabels > 0). */
struct head_cfg {
	enum pool_kind pool;
	char **labels; int nlabels;
	char *weight, *bias;          /* the file's tensor names (bias may be NULL) */
};
/* PE_ROPE: rotary position embeddings inside attention (rope.h): the
 * input has no position rows; PE_SIN_HALVES: the paper's sinusoid with
 * the sines in the first half of the row and the cosines in the second
 * (Marian's MarianSinusoidalPositionalEmbedding) */
enum pe_kind { PE_SINUSOIDAL, PE_LEARNED, PE_NONE, PE_ROPE, PE_SIN_HALVES };
enum rope_scaling { ROPE_PLAIN, ROPE_LINEAR, ROPE_LLAMA3 };

/* Rotary embeddings (Hugging Face's rope_theta and rope_scaling). */
struct rope_cfg {
	double theta;                /* base of the frequencies (10000) */
	enum rope_scaling scaling;
	double factor;               /* linear and llama3 */
	double low_freq, high_freq;  /* llama3's low_freq_factor, high_freq_factor */
	int orig_max;                /* llama3's original_max_position_embeddings */
	float *freq_factors;         /* [nfreq_factors] or NULL (owned): θ_j is
	                                divided by freq_factors[j] after the
	                                scaling above, as llama.cpp applies a
	                                GGUF file's rope_freqs.weight (Llama
	                                3.1's llama3 scaling, stored so) */
	int nfreq_factors;
};
enum weights_src { W_FILE, W_INLINE, W_RANDOM };

struct config {
	char *name;
	char *description;
	enum arch arch;
	int d_model, heads, enc_layers, dec_layers, d_ff, max_len;
	enum norm_style norm;
	double norm_eps;
	enum activation act;
	enum pe_kind pe;
	int scale_embedding;
	int bias;                    /* projections may have biases (default 1;
	                                a file without any loads as bias-free) */
	int qkv_bias;                /* Q, K and V have biases even without
	                                bias (Qwen2; Llama's attention_bias
	                                sets out_bias too) */
	int out_bias, ffn_bias;      /* W_O's and the feed-forward's biases
	                                without bias (Llama's attention_bias,
	                                mlp_bias) */
	int kv_heads;                /* key/value heads h_kv (grouped-query
	                                attention when < heads); = heads */
	int head_dim;                /* dk; = d_model / heads */
	int ffn_gated;               /* hidden = act(x·W_gateᵀ) ⊙ x·W_upᵀ,
	                                linear1 holds W_gate then W_up */
	int qk_norm;                 /* RMSNorm over dk of each q and k row
	                                before the rotation (Qwen3) */
	int sliding_window;          /* a query sees at most this many keys,
	                                itself included (0: all) */
	int window_from;             /* the first layer that has the window */
	double attn_scale;           /* scores = q·kᵀ·attn_scale (0: 1/√dk) */
	int rel_buckets;             /* T5's relative position bias: buckets
	                                (0: none); the first layer's table
	                                [rel_buckets, h] serves every layer,
	                                bidirectional in the encoder, causal
	                                in the decoder */
	int rel_max_dist;            /* the distance of the last bucket */
	int pos_offset;              /* learned positions: row pos + offset
	                                (BART's 2) */
	int embed_norm;              /* a LayerNorm of each side's input
	                                (BART's layernorm_embedding) */
	double logit_scale;          /* logits = (x·logit_scale)·W_genᵀ (T5
	                                v1.0's tied d^-0.5; 0: 1) */
	struct rope_cfg rope;        /* PE_ROPE */
	char wdtype[32];             /* the weights file's dtypes ("BF16",
	                                "F32+F16"), "" without a file */
	int gguf;                    /* read from a GGUF file (gguf_model.h):
	                                the pass marks each stage with its
	                                weight's dtype for the views */
	int tie_gen;                 /* logits through the embedding: 1 always
	                                (an lm_head in the file is not used),
	                                0 never (the file must have one), -1
	                                when the file has none (the default) */
	enum norm_kind norm_kind;
	int layout;                  /* enum layout_kind (layout.h) */
	unsigned given;              /* IMPLY_* bits of the keys the YAML gives */
	struct tname *tnames; int ntnames;   /* tensor_names: */
	char **ignore; int nignore;  /* ignore_tensors: globs */
	struct head_cfg head;
	int final_norm;              /* -1: if present in weights, 0/1 forced */
	int type_vocab;              /* BERT: token types (rows of type_embed) */
	char *hf_type;               /* a Hugging Face folder's model_type
	                                ("gpt2", "bert"), else NULL */
	struct tokenizer_cfg tok;
	char **proper; int nproper;   /* tokenizer.proper_nouns: spelt so in the
	                                 output of a lower-cased model */
	enum weights_src wsrc;
	char *weights_path;          /* resolved path (W_FILE) */
	char *weights_key;           /* checkpoint entry of the state_dict, or NULL */
	unsigned long long seed;     /* W_RANDOM */
	char **examples; int nexamples;
	char **info; int ninfo;      /* free-form `training:` lines for `info` */
	double label_smoothing;      /* training.label_smoothing: the target of
	                                the right word was 1 − ε + ε/V, which caps
	                                its probability near it (0: none, or not
	                                recorded) */
	int avg_k; long avg_first, avg_last;   /* the trained weights are the mean
	                                of avg_k checkpoints, steps avg_first …
	                                avg_last (the file's "attnscope.average";
	                                0: not) */
	struct snapshot *snaps; int nsnaps;   /* `snapshots:` (snapshot.h) */
	long snapshot;               /* the snapshot step loaded, -1: trained */
};

/* One attention block's projections (pointers into the model's storage).
 * qd = h·dk, kvd = h_kv·dk (qd = kvd = d in the paper's models). */
struct attn_w {
	const float *in_w;    /* [qd + 2kvd, d] rows Q, K, V */
	const float *in_b;    /* [qd + 2kvd] or NULL when bias is off */
	const float *out_w;   /* [d, qd]  W_O */
	const float *out_b;   /* [d] or NULL */
	const float *q_norm, *k_norm;   /* [dk] each (qk_norm), else NULL */
};

struct layer_w {
	struct attn_w self, cross;           /* cross: decoder of enc-dec only */
	const float *l1_w, *l1_b;            /* [F, d], [F]; gated: [2F, d],
	                                        rows W_gate then W_up */
	const float *l2_w, *l2_b;            /* [d, F], [d] */
	const float *n1_w, *n1_b;            /* [d] each */
	const float *n2_w, *n2_b;
	const float *n3_w, *n3_b;            /* decoder of enc-dec only */
};

/* A named tensor of the model, in F32. */
struct wtensor {
	char *name;
	int ndim;
	int shape[2];
	float *data;
	int mapped;      /* data points into an mmap'd file (not freed) */
	char dtype[24];  /* the type it had in its file before conversion to
	                    F32 ("F16", "Q4_K"; a tensor joined from parts,
	                    each part's in order: Q, K, V "Q4_K+Q4_K+Q6_K",
	                    gate, up "Q4_K+Q4_K"); "F32" for inline and
	                    random weights (stage_weight.h reads it) */
};

struct model {
	struct config cfg;
	char *path;                   /* the YAML file */
	struct vocab src_vocab, tgt_vocab;
	int shared_vocab;             /* target vocab is the source vocab */
	/* tokenizer type bpe: the merges of each side (owned; tgt_bpe may be
	 * src_bpe when both sides share one merges file), else NULL */
	struct bpe *src_bpe, *tgt_bpe;
	/* tokenizer type gpt2 / wordpiece / hf (model_tok.h, owned), else NULL */
	struct gpt2bpe *gpt2;
	struct wordpiece *wordpiece;
	/* tokenizer type sentencepiece (model_tok.h, owned): each side's
	 * tokenizer (tgt_spm == src_spm when one serves both) and, when the
	 * vocabulary is not the tokenizer's own (Marian's vocab.json), each
	 * side's map spm id -> vocabulary id, else NULL */
	struct spm *src_spm, *tgt_spm;
	int32_t *src_spm_map, *tgt_spm_map;
	struct tokjson *tokjson;
	/* weights (pointers into tensors[]) */
	const float *src_embed;       /* [Vs, d] */
	const float *tgt_embed;       /* [Vt, d] (== src_embed when tied) */
	const float *pos_embed;       /* [L, d] learned PE, else NULL */
	const float *tgt_pos_embed;   /* [L, d] the decoder's own (BART), or NULL */
	struct layer_w *enc, *dec;    /* enc_layers, dec_layers */
	const float *enc_norm_w, *enc_norm_b;   /* NULL when absent */
	const float *dec_norm_w, *dec_norm_b;
	const float *gen_w;           /* [Vt, d] (tgt_embed when absent) */
	const float *gen_b;           /* [Vt] or NULL */
	int gen_tied;
	const float *head_w, *head_b; /* [C, d], [C] or NULL: classifier head */
	/* layout bert: token-type rows [type_vocab, d] (the pass adds row 0),
	 * the input LayerNorm [d], and the masked-LM head (NULL when the
	 * folder has none: the pass then ends at memory and gen_w is NULL) */
	const float *type_embed;
	const float *in_norm_w, *in_norm_b;
	const float *mlm_w, *mlm_b;           /* [d, d], [d] */
	const float *mlm_norm_w, *mlm_norm_b; /* [d] */
	/* BART's layernorm_embedding of the decoder's input (the encoder's is
	 * in_norm_w / in_norm_b), T5's relative position tables
	 * [rel_buckets, h] (NULL when the model has none) */
	const float *tgt_in_norm_w, *tgt_in_norm_b;
	const float *enc_rel_bias, *dec_rel_bias;
	/* the decoder's first tokens before it predicts (Hugging Face's
	 * decoder_start_token_id, then a forced_bos_token_id); ndec_start 0:
	 * <s> */
	int32_t dec_start[2]; int ndec_start;
	/* the specials' ids in the source and target vocabularies (SP_PAD…),
	 * -1 where the model has none (`null`) */
	int src_sp[TOK_NSPECIAL], tgt_sp[TOK_NSPECIAL];
	struct wtensor *tensors; int ntensors;
	void *map; size_t maplen;     /* mmap'd weights file, if any */
};

/* Loads a model: a YAML file, or a Hugging Face folder (hf.h).  Returns
 * NULL with e filled on any error. */
struct model *model_load(const char *path, struct err *e);
/* The same with the weights of training snapshot `step` (snapshot.h;
 * step < 0: the trained weights, as model_load).  A step the weights file
 * has no snapshot for is an error that lists the steps it has. */
struct model *model_load_snapshot(const char *path, long step, struct err *e);
/* Index of m's snapshot `step` in cfg.snaps, or -1. */
int model_snapshot_index(const struct model *m, long step);
/* The same from YAML text in buf[0..len) (not kept): path names it in
 * messages and relative vocabulary and weights paths resolve against its
 * directory; the file itself is not read.  For the fuzzer. */
struct model *model_load_buffer(const char *path, const void *buf, size_t len,
				struct err *e);
void model_free(struct model *m);

/* Model tensor by name, or NULL. */
const struct wtensor *model_tensor(const struct model *m, const char *name);

/* Warns (warn_msg) of every tensor holding NaN or infinite values. */
void model_warn_nan(const struct model *m);

/* Number of parameters in tensors whose name starts with prefix. */
size_t model_params(const struct model *m, const char *prefix);
/* Target ids as the text a reader expects (the first 512 of them: BPE
 * pieces and punctuation joined back, tokens_join) into buf[cap]; for a
 * model that lower-cases its input, with the capitals of typed (the
 * source sentence, or NULL: base/recase.h).  Returns buf. */
const char *model_target_text(const struct model *m, const int32_t *ids, int n,
			      const char *typed, char *buf, size_t cap);

const char *arch_name(enum arch a);
const char *norm_name(enum norm_style n);
const char *act_name(enum activation a);
const char *norm_kind_name(enum norm_kind k);   /* layernorm rmsnorm … */

/* dk and h_kv of a configuration (head_dim and kv_heads, or their
 * defaults d/h and h). */
static inline int cfg_dk(const struct config *c)
{
	return c->head_dim ? c->head_dim : c->d_model / c->heads;
}
static inline int cfg_kv_heads(const struct config *c)
{
	return c->kv_heads ? c->kv_heads : c->heads;
}
const char *pe_name(enum pe_kind p);
const char *tok_name(enum tok_type t);   /* word char bpe gpt2 wordpiece sentencepiece hf */

/* The default model: $ATTNSCOPE_MODEL, else the installed data directory,
 * else models/ in the source tree.  Writes the path into buf; returns 0, or
 * -1 with e filled when none is found. */
int model_default_path(char *buf, size_t bufsz, struct err *e);

#endif
