/* trace.h - the recorded forward pass: an ordered list of named stages.
 *
 * The forward pass appends one stage per intermediate result, in the order
 * it computes them; nothing is overwritten inside a pass.  Views read a
 * const struct trace and never compute model math.  Stage names are the
 * contract of DESIGN.md ("encoder.0.self_attn.weights", "logits", ...).
 *
 * Dimension names used in shape comments:
 *   S source length, T target (decoder input) length, h heads, dk = d/h,
 *   d d_model, F d_ff, V target vocabulary size. */
#ifndef ATTNSCOPE_TRACE_H
#define ATTNSCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct vocab;
struct tokenizer_cfg;

enum dtype { DT_F32, DT_I32 };

/* Which sequence labels an axis of a stage (for views and `render`). */
enum axis {
	AX_NONE,   /* plain index (model dimension, hidden unit) */
	AX_HEAD,   /* attention head */
	AX_SRC,    /* source tokens */
	AX_TGT,    /* decoder input tokens */
	AX_VOCAB,  /* target vocabulary */
	AX_CLASS,  /* a classifier's labels */
};

/* What a stage holds, so a view can pick a colour scale and a layout. */
enum stage_kind {
	SK_IDS,       /* [n] token ids */
	SK_VECTORS,   /* [n, d] activations (embed, pos, add, norm, ffn, ...) */
	SK_PERHEAD,   /* [h, n, dk] q, k, v, heads */
	SK_SCORES,    /* [h, nq, nk] scores / masked scores (may hold -inf) */
	SK_WEIGHTS,   /* [h, nq, nk] attention weights, rows sum to 1 (or 0) */
	SK_LOGITS,    /* [T, V] */
	SK_PROBS,     /* [T, V] */
	SK_LOSS,      /* [T] */
	SK_POOLED,    /* [d] a classifier's pooled vector */
	SK_CLASS_LOGITS, /* [C] */
	SK_CLASS_PROBS,  /* [C] */
};

/* Where in the model a stage sits. */
enum block { BLK_SRC, BLK_ENCODER, BLK_TGT, BLK_DECODER, BLK_OUTPUT };

#define STAGE_NAME_MAX 64
#define TRACE_MAXDIM 3

struct stage {
	char name[STAGE_NAME_MAX];
	const char *formula;          /* static text, e.g. "softmax(QKᵀ/√dk + M)" */
	enum stage_kind kind;
	enum block block;
	int layer;                    /* -1 outside a layer */
	enum dtype dtype;
	int ndim;
	int shape[TRACE_MAXDIM];
	enum axis axes[TRACE_MAXDIM]; /* what labels each dimension */
	void *data;                   /* float* or int32_t*, owned by the trace;
	                                 NULL while a lazy stage is not
	                                 materialised: read it through
	                                 stage_f32 / stage_data */
	int group;                    /* lazy group (a layer), -1: always held */
	int own;                      /* data malloc'd (lazy traces), else in
	                                 the arena */
	struct trace *owner;          /* the trace it belongs to (NULL: a
	                                 stage made by hand, data as it is) */
	int index;                    /* its index in owner->stages */
	float *thumb;                 /* lazy traces, attention weights: [2, h,
	                                 tr, tc] the max and the mean pooled
	                                 (stage_thumb), or NULL */
	int thumb_r, thumb_c;
	double *stats;                /* with thumb: [h, 4] each head's
	                                 weights_entropy and weights_share 0-2 */
	char wdtype[24];              /* the file dtype of the weight the stage
					 multiplies by ("Q4_K", "F16"; stage_weight.h)
					 for a model read from a GGUF file; "" when
					 it uses none, or for other models */
};

/* Options a pass was run with; recorded in dumps' __metadata__. */
struct pass_opts {
	int causal;           /* decoder self-attention causal mask (default 1) */
	int encoder_causal;   /* causal mask in encoder self-attention */
	int pad_to;           /* pad source with <pad> to this length (0: off) */
	int pad_target;       /* pad decoder input to this length (0: off) */
	int ablate_block;     /* what-if: zero one head: BLK_ENCODER/BLK_DECODER, */
	int ablate_layer;     /*   its layer, */
	int ablate_attn;      /*   0 self-attention, 1 cross-attention, */
	int ablate_head;      /*   and the head (-1: no ablation) */
	int trace_mode;       /* TRACE_AUTO, TRACE_FULL or TRACE_LAZY */
};

/* How much of a pass the trace holds.  Full: every stage.  Lazy: the
 * stages outside layers and each layer's output (the residual stream, T·d
 * a layer); a layer's other stages are computed again from its saved input
 * when they are read (stage_data), bit for bit as the full pass computed
 * them, and at most TRACE_LAZY_KEEP layers are held at once.  Auto: lazy
 * when the layers' attention matrices would take more than
 * TRACE_LAZY_BYTES (forward_trace_lazy). */
enum trace_mode { TRACE_AUTO, TRACE_FULL, TRACE_LAZY };
#define TRACE_LAZY_BYTES ((size_t)256 << 20)
#define TRACE_LAZY_KEEP 2
void pass_opts_default(struct pass_opts *o);

struct trace {
	struct stage *stages;
	int n, cap;
	/* token strings (owned), for labels */
	char **src_tokens; int S;
	char **tgt_tokens; int T;        /* decoder input: <s> + target */
	char **label_tokens;             /* labels (target + </s>), T of them,
	                                    or NULL without a target */
	char **next_tokens;              /* what each decoder position
	                                    predicts, T of them (entries may
	                                    be NULL), or NULL: the labels
	                                    under teacher forcing; while
	                                    decoding, the tokens the search
	                                    chose (trace_set_next) */
	char **src_typed, **tgt_typed;   /* the word the user typed where a
	                                    token became <unk> (NULL entries
	                                    elsewhere), S / T of them, or NULL */
	char **dropped; int ndropped;    /* punctuation the input left out
	                                    (not in the vocabulary) */
	const struct vocab *vocab;       /* target vocabulary, for AX_VOCAB
	                                    labels (not owned) */
	const struct tokenizer_cfg *tok; /* the model's tokenizer, for labels
	                                    (GPT-2's pieces as text), or NULL */
	int pad_id, sos_id;              /* its <pad> and <s>, -1 when none */
	const char *const *classes;      /* a classifier's labels, for AX_CLASS
	                                    (not owned), and their count */
	int nclasses;
	struct pass_opts opts;
	float *rope_inv;                 /* rotary embeddings: θ_j of each
	                                    dimension pair (j, j + dk/2), the
	                                    frequencies the pass turned q and
	                                    k by (owned), or NULL */
	int rope_pairs;                  /* dk/2 */
	int kv_heads;                    /* key/value heads (grouped-query
	                                    attention: < the query heads; 0
	                                    when they are the same) */
	/* private: arena of stage data, the lazy groups (trace.c) */
	void *arena;
	void *lazy;
};

struct trace *trace_new(void);
void trace_free(struct trace *t);
/* Empties t for another pass, keeping its stage memory for reuse. */
void trace_reset(struct trace *t);

/* Appends a stage; the name is formatted printf-style.  Its buffer is NOT
 * zeroed: the caller writes every element.  Returns the stage, or NULL on
 * out-of-memory. */
struct stage *trace_add(struct trace *t, enum stage_kind kind, enum block blk,
			int layer, const char *formula, enum dtype dt, int ndim,
			const int *shape, const enum axis *axes,
			const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));

/* The stage with this name, or NULL.  Index lookup: trace_index. */
const struct stage *trace_find(const struct trace *t, const char *name);
int trace_index(const struct trace *t, const char *name);

size_t stage_numel(const struct stage *s);
/* The stage's data, materialising its layer first in a lazy trace (which
 * may free another layer's data: a pointer from an earlier stage_data of
 * another layer is valid until the next call that materialises, unless
 * that layer is pinned).  NULL when it cannot be computed (out of memory). */
const void *stage_data(const struct stage *s);
static inline const float *stage_f32(const struct stage *s)
{
	return (const float *)stage_data(s);
}

/* ---- lazy traces (forward.c and lazy.c fill them) ----
 * fill(ctx, t, g) computes group g again, appending its stages with
 * trace_add in the order of the first pass (trace_add then hands out the
 * group's existing records).  ctx is the trace's: ctx_free frees it at
 * reset.  Returns 0, or -1 with the trace left unchanged. */
typedef int (*trace_fill_fn)(void *ctx, struct trace *t, int group);
int trace_lazy_begin(struct trace *t, trace_fill_fn fill, void (*ctx_free)(void *),
		     void *ctx);
int trace_is_lazy(const struct trace *t);
/* Stages added from now on belong to a new group (its number, or -1 when
 * out of memory), until trace_group_close; alone: the other groups' data
 * is dropped first.  Closing with held 0 drops the group's data at once
 * (stages declared, computed when read). */
int trace_group_open(struct trace *t, int alone);
void trace_group_close(struct trace *t, int held);
/* The stage of the open group whose data is data stays held (a layer's
 * output, the next layer's input). */
void trace_hold(struct trace *t, const void *data);
/* Keeps the layer of stage i (-1: none) when other layers are read. */
void trace_pin(const struct trace *t, int i);
/* Layers held now (materialised), and how many were computed again. */
int trace_groups_live(const struct trace *t);
long trace_refills(const struct trace *t);

/* Label of index i along axis a ("cat", "h2", "17"), written into buf; a
 * token that became <unk> shows the word typed: "reads→<unk>"; GPT-2's
 * pieces show as text with a visible space mark ("␣cat", tokens_label). */
const char *trace_axis_label(const struct trace *t, enum axis a, int i,
			     char *buf, size_t bufsz);

/* Label of query row i along axis a: as trace_axis_label, and for a
 * decoder position whose next token is known "gato → é" (the input at that
 * position → the word it predicts: the shift by one of the decoder).
 * Column (key) labels stay trace_axis_label's plain tokens. */
const char *trace_row_label(const struct trace *t, enum axis a, int i,
			    char *buf, size_t bufsz);
/* Sets what decoder position i predicts (copied; NULL clears it).
 * Returns 0, or -1 on out-of-memory. */
int trace_set_next(struct trace *t, int i, const char *tok);
/* Whether any token of the pass was typed as a word the vocabulary lacks. */
int trace_has_unknown(const struct trace *t);

/* Pools m [rows, cols] into out [pr, pc]: block (i, j) covers rows
 * i·rows/pr … (i+1)·rows/pr − 1 and the columns likewise; its max, or
 * (mean) the mean of its finite entries; −∞ when all of them are −∞. */
void stage_pool(const float *m, int rows, int cols, int pr, int pc, int mean, float *out);
#define TRACE_THUMB 64
/* The weights of an attention stage [h, n, m] pooled to at most
 * TRACE_THUMB × TRACE_THUMB a head ([h, *pr, *pc], max or mean), kept by a
 * lazy trace when it computed the layer, so that an overview of every
 * layer (the model view) needs none of them again; NULL for other stages
 * and in a full trace (whose data is always there to pool). */
const float *stage_thumb(const struct stage *s, int mean, int *pr, int *pc);

/* Attention weights w [nq, nk]: the mean row entropy in bits (rows that
 * are all zero, fully masked, left out); the share of rows whose largest
 * weight (at least 0.5) is on the query itself (kind 0), the token before
 * it (1) or the first token (2). */
double weights_entropy(const float *w, int nq, int nk);
double weights_share(const float *w, int nq, int nk, int kind);
/* Head h's entropy and shares, as kept with the thumbnail (stage_thumb):
 * 0, or -1 when not kept (compute them from the data). */
int stage_head_stats(const struct stage *s, int h, double *entropy, double share[3]);
/* Keeps the thumbnails and head statistics of the attention weights among
 * stages first … last − 1 while their data is there (trace_summary.c). */
void trace_summarise(struct trace *t, int first, int last);

/* Total bytes of stage data held now. */
size_t trace_bytes(const struct trace *t);

#endif
