/* layout.c - the name tables of the checkpoint families (DESIGN.md
 * "Checkpoints people already have") and glob matching.
 *
 * Each table follows how its family's source code names the modules:
 *   pytorch-tutorial: PyTorch's "Language Translation with nn.Transformer",
 *     Seq2SeqTransformer: transformer (nn.Transformer), src_tok_emb /
 *     tgt_tok_emb (TokenEmbedding: .embedding, × √E), generator (Linear),
 *     positional_encoding.pos_embedding (a buffer [maxlen, 1, E]).
 *   annotated-transformer: harvardnlp's EncoderDecoder: layers with
 *     self_attn / src_attn (MultiHeadedAttention: linears.0–3 = Q, K, V, O),
 *     feed_forward.w_1 / w_2, sublayer.{j}.norm (its LayerNorm a_2, b_2),
 *     encoder.norm / decoder.norm, src_embed.0.lut (× √d), src_embed.1.pe
 *     (a buffer), generator.proj.
 *   nanogpt: karpathy's nanoGPT and minGPT: transformer.wte / wpe /
 *     h.{i}.ln_1 / attn.c_attn (packed Q|K|V, nn.Linear [out, in]) /
 *     attn.c_proj / ln_2 / mlp.c_fc / mlp.c_proj, transformer.ln_f, lm_head;
 *     the causal mask buffer attn.bias.
 *   gpt2: Hugging Face's GPT2Model / GPT2LMHeadModel (modeling_gpt2.py):
 *     wte, wpe, h.{i}.ln_1 / attn.c_attn / attn.c_proj / ln_2 / mlp.c_fc /
 *     mlp.c_proj, ln_f under `transformer.` or without it, lm_head; its
 *     Conv1D stores weights [in, out] (transposed on load); buffers
 *     attn.bias (the causal mask) and attn.masked_bias.
 *   bert: Hugging Face's BertModel / BertForMaskedLM (modeling_bert.py):
 *     embeddings.word_embeddings / position_embeddings /
 *     token_type_embeddings / LayerNorm, encoder.layer.{i}.attention.self.
 *     query|key|value (joined as Q, K, V), attention.output.dense /
 *     LayerNorm, intermediate.dense, output.dense / LayerNorm, under `bert.`
 *     or without it; the masked-LM head cls.predictions.transform.dense /
 *     LayerNorm, decoder (tied to the word embeddings), bias; the pooler
 *     and next-sentence head are not part of the pass, position_ids and
 *     token_type_ids are buffers, and old files say LayerNorm.gamma/beta.
 *   llama: Hugging Face's LlamaForCausalLM and the families written after
 *     it (modeling_llama.py, mistral, qwen2, qwen3, gemma): model.
 *     embed_tokens, layers.{i}.input_layernorm / self_attn.q_proj|k_proj|
 *     v_proj (joined as Q, K, V; K and V have h_kv heads) / o_proj /
 *     q_norm / k_norm (Qwen3) / post_attention_layernorm / mlp.gate_proj|
 *     up_proj (joined as linear1) / down_proj, model.norm, lm_head (absent
 *     when tied); the buffer rotary_emb.inv_freq of older files.
 *   phi3: Phi3ForCausalLM (modeling_phi3.py): the same names with the
 *     projections fused, self_attn.qkv_proj and mlp.gate_up_proj.
 *   bart: Hugging Face's BartForConditionalGeneration and the models
 *     written after it (modeling_bart.py, modeling_marian.py,
 *     modeling_mbart.py): model.shared, encoder / decoder.embed_positions
 *     (learned, BART; a buffer of Marian's sinusoid), layernorm_embedding
 *     (BART), layers.{i}.self_attn.q_proj|k_proj|v_proj (joined as Q, K,
 *     V) / out_proj / self_attn_layer_norm, the decoder's encoder_attn.* /
 *     encoder_attn_layer_norm, fc1, fc2, final_layer_norm, mBART's final
 *     layer_norm of each stack, lm_head (tied to shared), final_logits_bias
 *     [1, V]; embed_tokens of each stack are shared's copies.
 *   t5, t5-gated: T5ForConditionalGeneration (modeling_t5.py): shared,
 *     {encoder,decoder}.block.{i}.layer.0.SelfAttention.q|k|v|o (the
 *     first block's relative_attention_bias [buckets, h]) / layer_norm,
 *     the decoder's layer.1.EncDecAttention.*, DenseReluDense.wi (gated,
 *     T5 v1.1: wi_0 then wi_1) / wo, final_layer_norm, lm_head. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

const char *const LAYOUT_NAMES[] = {
	"nn.Transformer", "pytorch-tutorial", "annotated-transformer", "nanogpt", "gpt2",
	"bert", "llama", "phi3", "bart", "t5", "t5-gated", NULL
};

/* doc -> file parts.  A doc pattern ending in '*' maps a prefix: the rest
 * of the name is kept. */
struct rule {
	const char *doc;
	const char *file[TNAME_MAXPARTS];
};

static const struct rule TUTORIAL[] = {
	{ "src_embed.weight", { "src_tok_emb.embedding.weight" } },
	{ "tgt_embed.weight", { "tgt_tok_emb.embedding.weight" } },
	{ "encoder.*", { "transformer.encoder.*" } },
	{ "decoder.*", { "transformer.decoder.*" } },
	{ NULL, { NULL } }
};

#define ANN_ATTN(stack, doc, file)                                              \
	{ stack ".layers.{i}." doc ".in_proj_weight",                           \
	  { stack ".layers.{i}." file ".linears.0.weight",                      \
	    stack ".layers.{i}." file ".linears.1.weight",                      \
	    stack ".layers.{i}." file ".linears.2.weight" } },                  \
	{ stack ".layers.{i}." doc ".in_proj_bias",                             \
	  { stack ".layers.{i}." file ".linears.0.bias",                        \
	    stack ".layers.{i}." file ".linears.1.bias",                        \
	    stack ".layers.{i}." file ".linears.2.bias" } },                    \
	{ stack ".layers.{i}." doc ".out_proj.weight",                          \
	  { stack ".layers.{i}." file ".linears.3.weight" } },                  \
	{ stack ".layers.{i}." doc ".out_proj.bias",                            \
	  { stack ".layers.{i}." file ".linears.3.bias" } }
#define ANN_FF(stack)                                                           \
	{ stack ".layers.{i}.linear1.weight", { stack ".layers.{i}.feed_forward.w_1.weight" } }, \
	{ stack ".layers.{i}.linear1.bias", { stack ".layers.{i}.feed_forward.w_1.bias" } },     \
	{ stack ".layers.{i}.linear2.weight", { stack ".layers.{i}.feed_forward.w_2.weight" } }, \
	{ stack ".layers.{i}.linear2.bias", { stack ".layers.{i}.feed_forward.w_2.bias" } }
#define ANN_NORM(stack, k, j)                                                   \
	{ stack ".layers.{i}.norm" k ".weight", { stack ".layers.{i}.sublayer." j ".norm.a_2" } }, \
	{ stack ".layers.{i}.norm" k ".bias", { stack ".layers.{i}.sublayer." j ".norm.b_2" } }

static const struct rule ANNOTATED[] = {
	{ "src_embed.weight", { "src_embed.0.lut.weight" } },
	{ "tgt_embed.weight", { "tgt_embed.0.lut.weight" } },
	ANN_ATTN("encoder", "self_attn", "self_attn"),
	ANN_ATTN("decoder", "self_attn", "self_attn"),
	ANN_ATTN("decoder", "multihead_attn", "src_attn"),
	ANN_FF("encoder"),
	ANN_FF("decoder"),
	ANN_NORM("encoder", "1", "0"),
	ANN_NORM("encoder", "2", "1"),
	ANN_NORM("decoder", "1", "0"),
	ANN_NORM("decoder", "2", "1"),
	ANN_NORM("decoder", "3", "2"),
	{ "encoder.norm.weight", { "encoder.norm.a_2" } },
	{ "encoder.norm.bias", { "encoder.norm.b_2" } },
	{ "decoder.norm.weight", { "decoder.norm.a_2" } },
	{ "decoder.norm.bias", { "decoder.norm.b_2" } },
	{ "generator.weight", { "generator.proj.weight" } },
	{ "generator.bias", { "generator.proj.bias" } },
	{ NULL, { NULL } }
};

/* nanoGPT is decoder-only: its one embedding is this document's src_embed
 * (the decoder shares it). */
static const struct rule NANOGPT[] = {
	{ "src_embed.weight", { "transformer.wte.weight" } },
	{ "pos_embed.weight", { "transformer.wpe.weight" } },
	{ "decoder.layers.{i}.norm1.weight", { "transformer.h.{i}.ln_1.weight" } },
	{ "decoder.layers.{i}.norm1.bias", { "transformer.h.{i}.ln_1.bias" } },
	{ "decoder.layers.{i}.self_attn.in_proj_weight", { "transformer.h.{i}.attn.c_attn.weight" } },
	{ "decoder.layers.{i}.self_attn.in_proj_bias", { "transformer.h.{i}.attn.c_attn.bias" } },
	{ "decoder.layers.{i}.self_attn.out_proj.weight", { "transformer.h.{i}.attn.c_proj.weight" } },
	{ "decoder.layers.{i}.self_attn.out_proj.bias", { "transformer.h.{i}.attn.c_proj.bias" } },
	{ "decoder.layers.{i}.norm2.weight", { "transformer.h.{i}.ln_2.weight" } },
	{ "decoder.layers.{i}.norm2.bias", { "transformer.h.{i}.ln_2.bias" } },
	{ "decoder.layers.{i}.linear1.weight", { "transformer.h.{i}.mlp.c_fc.weight" } },
	{ "decoder.layers.{i}.linear1.bias", { "transformer.h.{i}.mlp.c_fc.bias" } },
	{ "decoder.layers.{i}.linear2.weight", { "transformer.h.{i}.mlp.c_proj.weight" } },
	{ "decoder.layers.{i}.linear2.bias", { "transformer.h.{i}.mlp.c_proj.bias" } },
	{ "decoder.norm.weight", { "transformer.ln_f.weight" } },
	{ "decoder.norm.bias", { "transformer.ln_f.bias" } },
	{ "generator.weight", { "lm_head.weight" } },
	{ "generator.bias", { "lm_head.bias" } },
	{ NULL, { NULL } }
};

/* GPT-2 as nanoGPT, its names without `transformer.` (layout_canon). */
static const struct rule GPT2[] = {
	{ "src_embed.weight", { "wte.weight" } },
	{ "pos_embed.weight", { "wpe.weight" } },
	{ "decoder.layers.{i}.norm1.weight", { "h.{i}.ln_1.weight" } },
	{ "decoder.layers.{i}.norm1.bias", { "h.{i}.ln_1.bias" } },
	{ "decoder.layers.{i}.self_attn.in_proj_weight", { "h.{i}.attn.c_attn.weight" } },
	{ "decoder.layers.{i}.self_attn.in_proj_bias", { "h.{i}.attn.c_attn.bias" } },
	{ "decoder.layers.{i}.self_attn.out_proj.weight", { "h.{i}.attn.c_proj.weight" } },
	{ "decoder.layers.{i}.self_attn.out_proj.bias", { "h.{i}.attn.c_proj.bias" } },
	{ "decoder.layers.{i}.norm2.weight", { "h.{i}.ln_2.weight" } },
	{ "decoder.layers.{i}.norm2.bias", { "h.{i}.ln_2.bias" } },
	{ "decoder.layers.{i}.linear1.weight", { "h.{i}.mlp.c_fc.weight" } },
	{ "decoder.layers.{i}.linear1.bias", { "h.{i}.mlp.c_fc.bias" } },
	{ "decoder.layers.{i}.linear2.weight", { "h.{i}.mlp.c_proj.weight" } },
	{ "decoder.layers.{i}.linear2.bias", { "h.{i}.mlp.c_proj.bias" } },
	{ "decoder.norm.weight", { "ln_f.weight" } },
	{ "decoder.norm.bias", { "ln_f.bias" } },
	{ "generator.weight", { "lm_head.weight" } },
	{ NULL, { NULL } }
};

#define BERT_L "encoder.layer.{i}."
#define BERT_E "encoder.layers.{i}."
static const struct rule BERT[] = {
	{ "src_embed.weight", { "embeddings.word_embeddings.weight" } },
	{ "pos_embed.weight", { "embeddings.position_embeddings.weight" } },
	{ "type_embed.weight", { "embeddings.token_type_embeddings.weight" } },
	{ "input_norm.weight", { "embeddings.LayerNorm.weight" } },
	{ "input_norm.bias", { "embeddings.LayerNorm.bias" } },
	{ BERT_E "self_attn.in_proj_weight", { BERT_L "attention.self.query.weight",
	  BERT_L "attention.self.key.weight", BERT_L "attention.self.value.weight" } },
	{ BERT_E "self_attn.in_proj_bias", { BERT_L "attention.self.query.bias",
	  BERT_L "attention.self.key.bias", BERT_L "attention.self.value.bias" } },
	{ BERT_E "self_attn.out_proj.weight", { BERT_L "attention.output.dense.weight" } },
	{ BERT_E "self_attn.out_proj.bias", { BERT_L "attention.output.dense.bias" } },
	{ BERT_E "norm1.weight", { BERT_L "attention.output.LayerNorm.weight" } },
	{ BERT_E "norm1.bias", { BERT_L "attention.output.LayerNorm.bias" } },
	{ BERT_E "linear1.weight", { BERT_L "intermediate.dense.weight" } },
	{ BERT_E "linear1.bias", { BERT_L "intermediate.dense.bias" } },
	{ BERT_E "linear2.weight", { BERT_L "output.dense.weight" } },
	{ BERT_E "linear2.bias", { BERT_L "output.dense.bias" } },
	{ BERT_E "norm2.weight", { BERT_L "output.LayerNorm.weight" } },
	{ BERT_E "norm2.bias", { BERT_L "output.LayerNorm.bias" } },
	{ "mlm.dense.weight", { "cls.predictions.transform.dense.weight" } },
	{ "mlm.dense.bias", { "cls.predictions.transform.dense.bias" } },
	{ "mlm.norm.weight", { "cls.predictions.transform.LayerNorm.weight" } },
	{ "mlm.norm.bias", { "cls.predictions.transform.LayerNorm.bias" } },
	{ "generator.weight", { "cls.predictions.decoder.weight" } },
	{ "generator.bias", { "cls.predictions.bias" } },
	{ NULL, { NULL } }
};

#define LL_D "decoder.layers.{i}."
#define LL_F "layers.{i}."
#define LLAMA_COMMON                                                            \
	{ "src_embed.weight", { "embed_tokens.weight" } },                       \
	{ LL_D "norm1.weight", { LL_F "input_layernorm.weight" } },              \
	{ LL_D "self_attn.out_proj.weight", { LL_F "self_attn.o_proj.weight" } }, \
	{ LL_D "self_attn.out_proj.bias", { LL_F "self_attn.o_proj.bias" } },    \
	{ LL_D "self_attn.q_norm.weight", { LL_F "self_attn.q_norm.weight" } },  \
	{ LL_D "self_attn.k_norm.weight", { LL_F "self_attn.k_norm.weight" } },  \
	{ LL_D "norm2.weight", { LL_F "post_attention_layernorm.weight" } },     \
	{ LL_D "linear2.weight", { LL_F "mlp.down_proj.weight" } },              \
	{ LL_D "linear2.bias", { LL_F "mlp.down_proj.bias" } },                  \
	{ "decoder.norm.weight", { "norm.weight" } },                            \
	{ "generator.weight", { "lm_head.weight" } }

/* Llama's names without `model.` (layout_canon). */
static const struct rule LLAMA[] = {
	LLAMA_COMMON,
	{ LL_D "self_attn.in_proj_weight", { LL_F "self_attn.q_proj.weight",
	  LL_F "self_attn.k_proj.weight", LL_F "self_attn.v_proj.weight" } },
	{ LL_D "self_attn.in_proj_bias", { LL_F "self_attn.q_proj.bias",
	  LL_F "self_attn.k_proj.bias", LL_F "self_attn.v_proj.bias" } },
	{ LL_D "linear1.weight", { LL_F "mlp.gate_proj.weight", LL_F "mlp.up_proj.weight" } },
	{ LL_D "linear1.bias", { LL_F "mlp.gate_proj.bias", LL_F "mlp.up_proj.bias" } },
	{ NULL, { NULL } }
};

static const struct rule PHI3[] = {
	LLAMA_COMMON,
	{ LL_D "self_attn.in_proj_weight", { LL_F "self_attn.qkv_proj.weight" } },
	{ LL_D "linear1.weight", { LL_F "mlp.gate_up_proj.weight" } },
	{ NULL, { NULL } }
};

#define BA_E "encoder.layers.{i}."
#define BA_D "decoder.layers.{i}."
#define BA_QKV(doc, file)                                                       \
	{ doc "in_proj_weight", { file "q_proj.weight", file "k_proj.weight",     \
				  file "v_proj.weight" } },                        \
	{ doc "in_proj_bias", { file "q_proj.bias", file "k_proj.bias", file "v_proj.bias" } }
#define BA_NORM(doc, file)                                                      \
	{ doc ".weight", { file ".weight" } }, { doc ".bias", { file ".bias" } }

/* BART's, Marian's and mBART's names without `model.` (layout_canon). */
static const struct rule BART[] = {
	{ "src_embed.weight", { "shared.weight" } },
	{ "pos_embed.weight", { "encoder.embed_positions.weight" } },
	{ "tgt_pos_embed.weight", { "decoder.embed_positions.weight" } },
	BA_NORM("input_norm", "encoder.layernorm_embedding"),
	BA_NORM("tgt_input_norm", "decoder.layernorm_embedding"),
	BA_QKV(BA_E "self_attn.", BA_E "self_attn."),
	BA_NORM(BA_E "norm1", BA_E "self_attn_layer_norm"),
	BA_NORM(BA_E "linear1", BA_E "fc1"),
	BA_NORM(BA_E "linear2", BA_E "fc2"),
	BA_NORM(BA_E "norm2", BA_E "final_layer_norm"),
	BA_QKV(BA_D "self_attn.", BA_D "self_attn."),
	BA_NORM(BA_D "norm1", BA_D "self_attn_layer_norm"),
	BA_QKV(BA_D "multihead_attn.", BA_D "encoder_attn."),
	BA_NORM(BA_D "multihead_attn.out_proj", BA_D "encoder_attn.out_proj"),
	BA_NORM(BA_D "norm2", BA_D "encoder_attn_layer_norm"),
	BA_NORM(BA_D "linear1", BA_D "fc1"),
	BA_NORM(BA_D "linear2", BA_D "fc2"),
	BA_NORM(BA_D "norm3", BA_D "final_layer_norm"),
	BA_NORM("encoder.norm", "encoder.layer_norm"),
	BA_NORM("decoder.norm", "decoder.layer_norm"),
	{ "generator.weight", { "lm_head.weight" } },
	{ "generator.bias", { "final_logits_bias" } },
	{ NULL, { NULL } }
};

#define T5_ATT(doc, file)                                                       \
	{ doc "in_proj_weight", { file "q.weight", file "k.weight", file "v.weight" } }, \
	{ doc "out_proj.weight", { file "o.weight" } }
#define T5_E "encoder.block.{i}.layer."
#define T5_D "decoder.block.{i}.layer."
#define T5_COMMON                                                               \
	{ "src_embed.weight", { "shared.weight" } },                             \
	{ "encoder.rel_bias.weight",                                             \
	  { "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight" } }, \
	{ "decoder.rel_bias.weight",                                             \
	  { "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight" } }, \
	T5_ATT(BA_E "self_attn.", T5_E "0.SelfAttention."),                      \
	{ BA_E "norm1.weight", { T5_E "0.layer_norm.weight" } },                 \
	{ BA_E "linear2.weight", { T5_E "1.DenseReluDense.wo.weight" } },        \
	{ BA_E "norm2.weight", { T5_E "1.layer_norm.weight" } },                 \
	T5_ATT(BA_D "self_attn.", T5_D "0.SelfAttention."),                      \
	{ BA_D "norm1.weight", { T5_D "0.layer_norm.weight" } },                 \
	T5_ATT(BA_D "multihead_attn.", T5_D "1.EncDecAttention."),               \
	{ BA_D "norm2.weight", { T5_D "1.layer_norm.weight" } },                 \
	{ BA_D "linear2.weight", { T5_D "2.DenseReluDense.wo.weight" } },        \
	{ BA_D "norm3.weight", { T5_D "2.layer_norm.weight" } },                 \
	{ "encoder.norm.weight", { "encoder.final_layer_norm.weight" } },        \
	{ "decoder.norm.weight", { "decoder.final_layer_norm.weight" } },        \
	{ "generator.weight", { "lm_head.weight" } }

static const struct rule T5[] = {
	T5_COMMON,
	{ BA_E "linear1.weight", { T5_E "1.DenseReluDense.wi.weight" } },
	{ BA_D "linear1.weight", { T5_D "2.DenseReluDense.wi.weight" } },
	{ NULL, { NULL } }
};

/* T5 v1.1 and Flan-T5: wi_0 (the gate) and wi_1 joined as linear1. */
static const struct rule T5_GATED[] = {
	T5_COMMON,
	{ BA_E "linear1.weight", { T5_E "1.DenseReluDense.wi_0.weight",
	  T5_E "1.DenseReluDense.wi_1.weight" } },
	{ BA_D "linear1.weight", { T5_D "2.DenseReluDense.wi_0.weight",
	  T5_D "2.DenseReluDense.wi_1.weight" } },
	{ NULL, { NULL } }
};

static const struct rule *const RULES[LAYOUT_N] = {
	NULL, TUTORIAL, ANNOTATED, NANOGPT, GPT2, BERT, LLAMA, PHI3, BART, T5, T5_GATED
};

/* Buffers each family keeps in its state_dict: positional tables and
 * causal masks, not weights of the pass. */
static const char *const BUF_COMMON[] = { "pe", "*.pe", "pos_embedding", "*.pos_embedding", NULL };
static const char *const BUF_NANOGPT[] = { "transformer.h.*.attn.bias",
					   "transformer.h.*.attn.masked_bias", NULL };
static const char *const BUF_GPT2[] = { "h.*.attn.bias", "h.*.attn.masked_bias", NULL };
/* not weights of the pass: buffers, the pooler, the next-sentence head,
 * and the decoder's bias (the same storage as cls.predictions.bias) */
static const char *const BUF_BERT[] = {
	"embeddings.position_ids", "embeddings.token_type_ids", "pooler.*",
	"cls.seq_relationship.*", "cls.predictions.decoder.bias", NULL
};
static const char *const BUF_LLAMA[] = {
	"layers.*.self_attn.rotary_emb.inv_freq", "rotary_emb.inv_freq", NULL
};
/* each stack's embed_tokens (shared's storage), Marian's sinusoid tables */
static const char *const BUF_SEQ2SEQ[] = {
	"encoder.embed_tokens.weight", "decoder.embed_tokens.weight",
	"encoder.embed_positions.weight", "decoder.embed_positions.weight", NULL
};

void layout_imply(int layout, struct config *c, unsigned given)
{
	unsigned set = ~given;
	switch (layout) {
	case LAYOUT_TUTORIAL:      /* nn.Transformer's defaults, TokenEmbedding × √E */
		if (set & IMPLY_ARCH) c->arch = ARCH_ENC_DEC;
		if (set & IMPLY_NORM) c->norm = NORM_POST;
		if (set & IMPLY_EPS) c->norm_eps = 1e-5;
		if (set & IMPLY_ACT) c->act = ACT_RELU;
		if (set & IMPLY_PE) c->pe = PE_SINUSOIDAL;
		if (set & IMPLY_SCALE) c->scale_embedding = 1;
		break;
	case LAYOUT_ANNOTATED:     /* SublayerConnection: x + sublayer(norm(x)) */
		c->norm_kind = NK_STD;
		if (set & IMPLY_NORM) c->norm = NORM_PRE;
		if (set & IMPLY_EPS) c->norm_eps = 1e-6;
		if (set & IMPLY_ACT) c->act = ACT_RELU;
		if (set & IMPLY_PE) c->pe = PE_SINUSOIDAL;
		if (set & IMPLY_SCALE) c->scale_embedding = 1;
		break;
	case LAYOUT_GPT2:          /* as nanoGPT, with GPT-2's tanh GELU */
	case LAYOUT_NANOGPT:       /* GPT: pre-norm blocks, wte + wpe, MLP 4·n_embd */
		if (set & IMPLY_ARCH) c->arch = ARCH_DEC_ONLY;
		if (set & IMPLY_NORM) c->norm = NORM_PRE;
		if (set & IMPLY_EPS) c->norm_eps = 1e-5;
		if (set & IMPLY_ACT) c->act = layout == LAYOUT_GPT2 ? ACT_GELU_NEW : ACT_GELU;
		if (set & IMPLY_PE) c->pe = PE_LEARNED;
		if (set & IMPLY_SCALE) c->scale_embedding = 0;
		if (set & IMPLY_DFF) c->d_ff = 4 * c->d_model;
		break;
	case LAYOUT_BERT:          /* post-norm encoder, learned positions, exact GELU */
		if (set & IMPLY_ARCH) c->arch = ARCH_ENC_ONLY;
		if (set & IMPLY_NORM) c->norm = NORM_POST;
		if (set & IMPLY_EPS) c->norm_eps = 1e-12;
		if (set & IMPLY_ACT) c->act = ACT_GELU;
		if (set & IMPLY_PE) c->pe = PE_LEARNED;
		if (set & IMPLY_SCALE) c->scale_embedding = 0;
		break;
	case LAYOUT_LLAMA:         /* pre-RMSNorm, RoPE, SwiGLU, no biases */
	case LAYOUT_PHI3:
		if (set & IMPLY_ARCH) c->arch = ARCH_DEC_ONLY;
		if (set & IMPLY_NORM) c->norm = NORM_PRE;
		if (set & IMPLY_NORM_TYPE) c->norm_kind = NK_RMS;
		if (set & IMPLY_EPS) c->norm_eps = 1e-6;
		if (set & IMPLY_ACT) c->act = ACT_SILU;
		if (set & IMPLY_FFN) c->ffn_gated = 1;
		if (set & IMPLY_PE) c->pe = PE_ROPE;
		if (set & IMPLY_SCALE) c->scale_embedding = 0;
		if (set & IMPLY_BIAS) c->bias = 0;
		break;
	case LAYOUT_BART:          /* post-norm (mBART pre-norm: config.json says) */
	case LAYOUT_T5:            /* pre-RMSNorm, relative bias (config.json) */
	case LAYOUT_T5_GATED:
		if (set & IMPLY_ARCH) c->arch = ARCH_ENC_DEC;
		if (layout != LAYOUT_BART && (set & IMPLY_NORM)) c->norm = NORM_PRE;
		if (layout != LAYOUT_BART && (set & IMPLY_NORM_TYPE)) c->norm_kind = NK_RMS;
		if (layout != LAYOUT_BART && (set & IMPLY_BIAS)) c->bias = 0;
		if (layout == LAYOUT_T5_GATED && (set & IMPLY_FFN)) c->ffn_gated = 1;
		break;
	default:
		break;
	}
}

int layout_match(const char *pattern, const char *name, int *layer)
{
	const char *p = pattern, *n = name;
	while (*p) {
		if (strncmp(p, "{i}", 3) == 0) {
			if (*n < '0' || *n > '9' || (*n == '0' && n[1] >= '0' && n[1] <= '9'))
				return 0;
			long v = 0;
			while (*n >= '0' && *n <= '9' && v < 100000)
				v = v * 10 + (*n++ - '0');
			if (*n >= '0' && *n <= '9')
				return 0;
			if (layer)
				*layer = (int)v;
			p += 3;
			continue;
		}
		if (*p++ != *n++)
			return 0;
	}
	return *n == 0;
}

/* pattern with {i} replaced by layer (and a trailing '*' by rest). */
static void expand(const char *pattern, int layer, const char *rest, char *out)
{
	size_t o = 0;
	for (const char *p = pattern; *p && o + 12 < LAYOUT_NAME_MAX; p++) {
		if (strncmp(p, "{i}", 3) == 0) {
			o += (size_t)snprintf(out + o, LAYOUT_NAME_MAX - o, "%d", layer);
			p += 2;
		} else if (*p == '*' && !p[1] && rest) {
			o += (size_t)snprintf(out + o, LAYOUT_NAME_MAX - o, "%s", rest);
		} else {
			out[o++] = *p;
		}
	}
	out[o < LAYOUT_NAME_MAX ? o : LAYOUT_NAME_MAX - 1] = 0;
}

int layout_file_names(const struct config *c, int layout, int use_tnames,
		      const char *prefix, const char *doc,
		      char out[][LAYOUT_NAME_MAX])
{
	int layer = 0;
	if (strcmp(doc, "head.weight") == 0 || strcmp(doc, "head.bias") == 0) {
		const char *f = doc[5] == 'w' ? c->head.weight : c->head.bias;
		if (!f)
			return 0;
		snprintf(out[0], LAYOUT_NAME_MAX, "%s", f);
		return 1;
	}
	for (int k = 0; use_tnames && k < c->ntnames; k++) {
		const struct tname *t = &c->tnames[k];
		if (!layout_match(t->doc, doc, &layer))
			continue;
		for (int j = 0; j < t->nparts; j++)
			expand(t->file[j], layer, NULL, out[j]);
		return t->nparts;
	}
	const struct rule *r = layout >= 0 && layout < LAYOUT_N ? RULES[layout] : NULL;
	for (; r && r->doc; r++) {
		size_t pl = strlen(r->doc);
		if (r->doc[pl - 1] == '*') {
			if (strncmp(r->doc, doc, pl - 1) != 0)
				continue;
			expand(r->file[0], 0, doc + pl - 1, out[0]);
			return 1;
		}
		if (!layout_match(r->doc, doc, &layer))
			continue;
		int n = 0;
		while (n < TNAME_MAXPARTS && r->file[n]) {
			expand(r->file[n], layer, NULL, out[n]);
			n++;
		}
		return n;
	}
	snprintf(out[0], LAYOUT_NAME_MAX, "%s%s", prefix ? prefix : "", doc);
	return 1;
}

const char *layout_strip(const char *name)
{
	for (;;) {
		if (strncmp(name, "module.", 7) == 0)
			name += 7;
		else if (strncmp(name, "_orig_mod.", 10) == 0)
			name += 10;
		else
			return name;
	}
}

static int any_glob(const char *const *globs, int n, const char *name)
{
	for (int i = 0; n < 0 ? globs[i] != NULL : i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

int layout_ignored(const struct config *c, int layout, const char *name)
{
	if (any_glob((const char *const *)c->ignore, c->nignore, name) ||
	    any_glob(BUF_COMMON, -1, name))
		return 1;
	return (layout == LAYOUT_NANOGPT && any_glob(BUF_NANOGPT, -1, name)) ||
	       (layout == LAYOUT_GPT2 && any_glob(BUF_GPT2, -1, name)) ||
	       (layout == LAYOUT_BERT && any_glob(BUF_BERT, -1, name)) ||
	       ((layout == LAYOUT_LLAMA || layout == LAYOUT_PHI3) &&
		any_glob(BUF_LLAMA, -1, name)) ||
	       (layout >= LAYOUT_BART && any_glob(BUF_SEQ2SEQ, -1, name));
}

const char *layout_canon(int layout, const char *name, char *buf)
{
	name = layout_strip(name);
	const char *pfx = layout == LAYOUT_GPT2 ? "transformer." :
			  layout == LAYOUT_BERT ? "bert." :
			  layout == LAYOUT_LLAMA || layout == LAYOUT_PHI3 ||
			  layout == LAYOUT_BART ? "model." : NULL;
	if (!pfx)
		return name;
	size_t pl = strlen(pfx);
	if (strncmp(name, pfx, pl) == 0)
		name += pl;
	size_t n = strlen(name);
	static const char *const old[2][2] = { { ".gamma", ".weight" }, { ".beta", ".bias" } };
	for (int k = 0; layout == LAYOUT_BERT && k < 2; k++) {
		size_t ol = strlen(old[k][0]);
		if (n > ol && n - ol + 8 < LAYOUT_NAME_MAX && strcmp(name + n - ol, old[k][0]) == 0 &&
		    n >= ol + 9 && strncmp(name + n - ol - 9, "LayerNorm", 9) == 0) {
			snprintf(buf, LAYOUT_NAME_MAX, "%.*s%s", (int)(n - ol), name, old[k][1]);
			return buf;
		}
	}
	return name;
}

int layout_transposed(int layout, const char *doc)
{
	static const char *const conv1d[] = {
		"decoder.layers.{i}.self_attn.in_proj_weight",
		"decoder.layers.{i}.self_attn.out_proj.weight",
		"decoder.layers.{i}.linear1.weight", "decoder.layers.{i}.linear2.weight",
	};
	if (layout != LAYOUT_GPT2)
		return 0;
	for (size_t k = 0; k < sizeof conv1d / sizeof *conv1d; k++)
		if (layout_match(conv1d[k], doc, NULL))
			return 1;
	return 0;
}

const char *layout_prefix(const char *const *names, int n, char *buf)
{
	static const char *const anchors[] = {
		"encoder.layers.0.self_attn.in_proj_weight",
		"decoder.layers.0.self_attn.in_proj_weight",
	};
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);
		for (size_t a = 0; a < sizeof anchors / sizeof *anchors; a++) {
			size_t al = strlen(anchors[a]);
			if (nl > al && nl - al < LAYOUT_NAME_MAX &&
			    strcmp(names[i] + nl - al, anchors[a]) == 0) {
				memcpy(buf, names[i], nl - al);
				buf[nl - al] = 0;
				return buf;
			}
		}
	}
	return buf;
}
