/* hf_translators.c - the Hugging Face folders of the encoder-decoder
 * translators (DESIGN.md "The models people run today"): MarianConfig
 * (opus-mt), T5Config (T5 v1.0, v1.1 and Flan-T5), BartConfig and
 * MBartConfig, each with its defaults where a key is missing or null, as
 * their configuration_<family>.py have them; and their tokenizers.
 *
 * Marian: post-norm, the sinusoid as [sin | cos] halves, embeddings
 *   × √d when scale_embedding, the activation the config names (swish),
 *   lm_head tied to the shared embedding + final_logits_bias; decoding
 *   from decoder_start_token_id (its pad); source.spm / target.spm and
 *   vocab.json as MarianTokenizer (the source + </s>).
 * T5: pre-RMSNorm without biases, no position rows but the relative
 *   position bias of the first layer shared by every layer, q·kᵀ
 *   unscaled, DenseReluDense (relu) or the gated GELU of v1.1
 *   (feed_forward_proj gated-gelu: GELU tanh), final norms, the tied
 *   head's d^-0.5 rescale (v1.0) or an untied lm_head (v1.1); spiece.model
 *   (the source + </s>).
 * BART / mBART: learned positions at offset 2, layernorm_embedding,
 *   post-norm (mBART pre-norm with each stack's final layer_norm), GELU,
 *   lm_head tied + final_logits_bias; decoding from decoder_start_token_id
 *   (BART's </s>) then forced_bos_token_id; GPT-2's byte-level BPE
 *   (vocab.json + merges.txt), the source as <s> … </s>. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hf_int.h"
#include "layout.h"
#include "model_arch.h"
#include "model_tok.h"
#include "formats/json.h"
#include "formats/spm.h"

enum fam { F_MARIAN, F_T5, F_BART, F_MBART };

static const char *const TYPES[] = { "marian", "t5", "bart", "mbart", NULL };


static int family(const char *type)
{
	for (int i = 0; TYPES[i]; i++)
		if (type && strcmp(type, TYPES[i]) == 0)
			return i;
	return -1;
}

int hf_translators_family(const char *type)
{
	return family(type) >= 0;
}

static int get_bool(const struct ydoc *d, const char *k, int *out, struct err *e)
{
	const struct ynode *n = hf_key(d->root, k);
	if (n && ynode_bool(d, n, out, e))
		return ynode_keyed(d, n, k, e);
	return 0;
}

/* Two keys that attnscope keeps as one (the encoder's and the decoder's
 * heads or widths) must agree. */
static int same(const struct ydoc *d, const char *k1, int v1, const char *k2, int v2,
		struct err *e)
{
	if (v1 == v2)
		return 0;
	const struct ynode *n = hf_key(d->root, k2) ? hf_key(d->root, k2) : hf_key(d->root, k1);
	return err_set(e, "%s:%d: %s %d and %s %d differ: not implemented (attnscope's "
		       "encoder and decoder share them)", d->file, n ? n->line : 1, k1, v1, k2,
		       v2);
}

/* MarianConfig, BartConfig, MBartConfig. */
static int parse_bart(struct config *c, const struct ydoc *d, enum fam f, int *vocab,
		      struct hf_ids *id, struct err *e)
{
	int eh, dh, ef, df, share = 1, dvocab = 0, tie = 1;
	*vocab = f == F_MARIAN ? 58101 : 50265;
	c->d_model = 1024;
	c->enc_layers = c->dec_layers = 12;
	eh = dh = 16;
	ef = df = 4096;
	c->max_len = 1024;
	c->act = ACT_GELU;
	c->norm_eps = 1e-5;   /* nn.LayerNorm's default: no key sets it */
	c->layout = LAYOUT_BART;
	c->norm = f == F_MBART ? NORM_PRE : NORM_POST;
	c->pe = f == F_MARIAN ? PE_SIN_HALVES : PE_LEARNED;
	c->pos_offset = f == F_MARIAN ? 0 : 2;
	c->embed_norm = f != F_MARIAN;
	c->final_norm = f == F_MBART;
	*id = f == F_MARIAN ? (struct hf_ids){ 58100, -1, 0, 58100, -1 }
			    : (struct hf_ids){ 1, 0, 2, 2, -1 };
	if (hf_int(d, "vocab_size", 1, 1 << 24, vocab, e) ||
	    hf_int(d, "d_model", 1, HF_MAX_DIM, &c->d_model, e) ||
	    hf_int(d, "encoder_layers", 1, HF_MAX_LAYERS, &c->enc_layers, e) ||
	    hf_int(d, "decoder_layers", 1, HF_MAX_LAYERS, &c->dec_layers, e) ||
	    hf_int(d, "encoder_attention_heads", 1, HF_MAX_DIM, &eh, e) ||
	    hf_int(d, "decoder_attention_heads", 1, HF_MAX_DIM, &dh, e) ||
	    hf_int(d, "encoder_ffn_dim", 1, HF_MAX_DIM * 16, &ef, e) ||
	    hf_int(d, "decoder_ffn_dim", 1, HF_MAX_DIM * 16, &df, e) ||
	    hf_int(d, "max_position_embeddings", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_act(d, "activation_function", &c->act, e) ||
	    get_bool(d, "scale_embedding", &c->scale_embedding, e) ||
	    get_bool(d, "share_encoder_decoder_embeddings", &share, e) ||
	    get_bool(d, "tie_word_embeddings", &tie, e) ||
	    hf_int(d, "decoder_vocab_size", 1, 1 << 24, &dvocab, e) ||
	    same(d, "encoder_attention_heads", eh, "decoder_attention_heads", dh, e) ||
	    same(d, "encoder_ffn_dim", ef, "decoder_ffn_dim", df, e))
		return -1;
	c->heads = eh;
	c->d_ff = ef;
	c->tie_gen = tie;   /* false: the file's own lm_head */
	if (!share)
		return err_set(e, "%s: share_encoder_decoder_embeddings: false is not implemented "
			       "(one vocabulary and embedding for both sides is)", d->file);
	if (dvocab && dvocab != *vocab)
		return err_set(e, "%s: decoder_vocab_size %d differs from vocab_size %d: not "
			       "implemented", d->file, dvocab, *vocab);
	if (c->pe == PE_SIN_HALVES && c->d_model % 2)
		return err_set(e, "%s: d_model %d is odd: Marian's sinusoid needs an even width",
			       d->file, c->d_model);
	return 0;
}

/* T5Config's feed_forward_proj: "ACT" or "gated-ACT" (gated-gelu is
 * the tanh GELU, as configuration_t5.py sets it). */
static int ff_proj(struct config *c, const struct ydoc *d, struct err *e)
{
	const struct ynode *n = hf_key(d->root, "feed_forward_proj");
	const char *s = n ? ynode_str(d, n, e) : "relu";
	if (!s)
		return ynode_keyed(d, n, "feed_forward_proj", e);
	const char *dash = strchr(s, '-');
	const int gated = dash && (size_t)(dash - s) == 5 && !strncmp(s, "gated", 5);
	const char *act = gated ? dash + 1 : s;
	static const struct { const char *name; enum activation a; } ACTS[] = {
		{ "relu", ACT_RELU }, { "gelu", ACT_GELU }, { "gelu_new", ACT_GELU_NEW },
		{ "silu", ACT_SILU }, { "swish", ACT_SILU },
	};
	for (size_t i = 0; (!dash || gated) && !strchr(act, '-') &&
			   i < sizeof ACTS / sizeof *ACTS; i++)
		if (strcmp(act, ACTS[i].name) == 0) {
			c->act = gated && ACTS[i].a == ACT_GELU ? ACT_GELU_NEW : ACTS[i].a;
			c->ffn_gated = gated;
			c->layout = gated ? LAYOUT_T5_GATED : LAYOUT_T5;
			return 0;
		}
	return err_set(e, "%s:%d: feed_forward_proj: \"%.40s\" is not implemented (relu, gelu, "
		       "gelu_new, silu and their gated- forms are)", d->file, n->line, s);
}

/* T5Config (its defaults are t5-small's). */
static int parse_t5(struct config *c, const struct ydoc *d, int *vocab, struct hf_ids *id,
		    struct err *e)
{
	int tie = 1, dec = -1;
	*vocab = 32128;
	c->d_model = 512;
	c->head_dim = 64;
	c->d_ff = 2048;
	c->enc_layers = 6;
	c->heads = 8;
	c->rel_buckets = 32;
	c->rel_max_dist = 128;
	c->norm_eps = 1e-6;
	c->max_len = 512;
	c->norm = NORM_PRE;
	c->norm_kind = NK_RMS;
	c->bias = 0;
	c->pe = PE_NONE;
	c->attn_scale = 1;   /* q·kᵀ unscaled */
	c->final_norm = 1;
	*id = (struct hf_ids){ 0, -1, 1, 0, -1 };
	if (hf_int(d, "vocab_size", 1, 1 << 24, vocab, e) ||
	    hf_int(d, "d_model", 1, HF_MAX_DIM, &c->d_model, e) ||
	    hf_int(d, "d_kv", 1, HF_MAX_DIM, &c->head_dim, e) ||
	    hf_int(d, "d_ff", 1, HF_MAX_DIM * 16, &c->d_ff, e) ||
	    hf_int(d, "num_layers", 1, HF_MAX_LAYERS, &c->enc_layers, e) ||
	    hf_int(d, "num_decoder_layers", 1, HF_MAX_LAYERS, &dec, e) ||
	    hf_int(d, "num_heads", 1, HF_MAX_DIM, &c->heads, e) ||
	    hf_int(d, "relative_attention_num_buckets", 4, 1 << 16, &c->rel_buckets, e) ||
	    hf_int(d, "relative_attention_max_distance", 1, HF_MAX_LEN, &c->rel_max_dist, e) ||
	    hf_int(d, "n_positions", 1, HF_MAX_LEN, &c->max_len, e) ||
	    hf_eps(d, "layer_norm_epsilon", &c->norm_eps, e) ||
	    get_bool(d, "tie_word_embeddings", &tie, e) || ff_proj(c, d, e))
		return -1;
	c->dec_layers = dec > 0 ? dec : c->enc_layers;
	if (c->rel_max_dist <= c->rel_buckets / 4)
		return err_set(e, "%s: relative_attention_max_distance %d must exceed a quarter of "
			       "the %d buckets", d->file, c->rel_max_dist, c->rel_buckets);
	c->tie_gen = tie;
	c->logit_scale = tie ? 1.0 / sqrt((double)c->d_model) : 0;   /* v1.0's rescale */
	return 0;
}

/* The ids config.json gives the specials, each within the vocabulary. */
static int read_ids(const struct ydoc *d, int vocab, struct hf_ids *id, struct err *e)
{
	static const char *const keys[] = { "pad_token_id", "bos_token_id", "eos_token_id",
					    "decoder_start_token_id", "forced_bos_token_id" };
	int *dst[] = { &id->pad, &id->bos, &id->eos, &id->start, &id->forced_bos };
	for (int i = 0; i < 5; i++)
		if (hf_int(d, keys[i], 0, vocab - 1, dst[i], e))
			return -1;
	if (id->start < 0)
		return err_set(e, "%s: no decoder_start_token_id", d->file);
	return 0;
}

int hf_translators_config(struct config *c, const struct ydoc *d, const char *type,
			  int *vocab, struct hf_ids *ids, struct err *e)
{
	const int f = family(type);
	struct hf_ids id;
	c->arch = ARCH_ENC_DEC;
	int rc = f == F_T5 ? parse_t5(c, d, vocab, &id, e)
			   : parse_bart(c, d, (enum fam)f, vocab, &id, e);
	if (rc || read_ids(d, *vocab, &id, e))
		return -1;
	*ids = id;
	return model_arch_check(c, d->file, e);
}


/* The folder's files named in names[n] (NULL-terminated), each readable,
 * into paths[]; an error names the first one missing. */
static int files(const char *dir, const char *const *names, char **paths, const char *what,
		 struct err *e)
{
	for (int i = 0; names[i]; i++) {
		if (!(paths[i] = hf_path(dir, names[i])))
			return err_set(e, "out of memory");
		if (access(paths[i], R_OK) != 0)
			return err_set(e, "%s: %s (the tokenizer of a %s folder)", paths[i],
				       strerror(errno), what);
	}
	return 0;
}

/* Marian's vocab.json must hold the specials and most of source.spm's
 * pieces (another model's vocab.json would map them all to <unk>). */
static int marian_vocab_check(const struct model *m, const char *vocab_json, struct err *e)
{
	static const char *const need[] = { "</s>", "<unk>" };
	for (int i = 0; i < 2; i++)
		if (vocab_id(&m->src_vocab, need[i]) < 0)
			return err_set(e, "%s: the piece %s is missing from vocab.json", vocab_json,
				       need[i]);
	const int unk = vocab_id(&m->src_vocab, "<unk>");
	int missing = 0, n = m->src_spm->n;
	for (int i = 0; i < n; i++)
		missing += m->src_spm_map[i] == unk && strcmp(m->src_spm->piece[i], "<unk>") != 0;
	if (missing * 2 > n)
		return err_set(e, "%s: %d of source.spm's %d pieces are missing from vocab.json "
			       "(is it this model's?)", vocab_json, missing, n);
	return 0;
}

/* T5Tokenizer's sentinels after the SentencePiece pieces: <extra_id_0>
 * has the last of the 100 ids (extra_ids' default), <extra_id_99> the
 * first; as many as the embedding has rows for. */
static int t5_extra_ids(struct vocab *v, int vocab, struct err *e)
{
	const int n0 = v->n, nx = vocab - n0 < 100 ? vocab - n0 : 100;
	if (nx <= 0)
		return 0;
	char **all = calloc((size_t)(n0 + nx), sizeof *all);
	int rc = -1;
	if (!all)
		return err_set(e, "out of memory");
	for (int i = 0; i < n0 + nx; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, "<extra_id_%d>", nx - 1 - (i - n0));
		if (!(all[i] = strdup(i < n0 ? v->tok[i] : buf)))
			goto out;
	}
	struct vocab nv;
	if (vocab_init(&nv, (const char *const *)all, n0 + nx, "vocabulary", e) == 0) {
		vocab_free(v);
		*v = nv;
		rc = 0;
	}
out:
	for (int i = 0; i < n0 + nx; i++)
		free(all[i]);
	free(all);
	return rc;
}

/* The specials as config.json gives them: the source is wrapped as
 * tokens </s> (BART: <s> tokens </s>), the decoder starts from
 * decoder_start_token_id (and BART's forced_bos_token_id). */
static int specials(struct model *m, enum fam f, const struct hf_ids *id, struct err *e)
{
	const int bart = f == F_BART || f == F_MBART;
	const int unk = vocab_id(&m->src_vocab, "<unk>");
	/* BART: <s> … </s>; Marian, T5 and mBART (whose language code after
	   </s> comes from its own tokenizer): … </s> */
	const int src[TOK_NSPECIAL] = { id->pad, f == F_BART ? id->bos : -1, id->eos, unk };
	const int tgt[TOK_NSPECIAL] = { id->pad, bart ? id->bos : id->start, id->eos, unk };
	struct tokenizer_cfg *t = &m->cfg.tok;
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		m->src_sp[i] = src[i] < m->src_vocab.n ? src[i] : -1;
		m->tgt_sp[i] = tgt[i] < m->tgt_vocab.n ? tgt[i] : -1;
		free(t->specials[i]);
		t->specials[i] = NULL;
		const char *s = m->tgt_sp[i] >= 0 ? vocab_str(&m->tgt_vocab, m->tgt_sp[i]) : NULL;
		if (s && !(t->specials[i] = strdup(s)))
			return err_set(e, "out of memory");
	}
	m->dec_start[0] = id->start;
	m->ndec_start = 1;
	if (bart && id->forced_bos >= 0)
		m->dec_start[m->ndec_start++] = id->forced_bos;
	t->wrap_source = 1;
	return 0;
}

int hf_translators_tokenizer(struct model *m, const char *dir, const struct hf_ids *id,
			     int vocab, struct err *e)
{
	static const char *const MARIAN[] = { "source.spm", "target.spm", "vocab.json", NULL };
	static const char *const T5[] = { "spiece.model", NULL };
	static const char *const BART[] = { "vocab.json", "merges.txt", NULL };
	const enum fam f = (enum fam)family(m->cfg.hf_type);
	const char *const *names = f == F_MARIAN ? MARIAN : f == F_T5 ? T5 : BART;
	char *p[4] = { NULL };
	int rc = -1;
	if (files(dir, names, p, m->cfg.hf_type, e))
		goto out;
	if (f == F_MARIAN)
		rc = model_tok_spm(m, p[0], p[1], e) || model_tok_spm_vocab(m, p[2], e) ||
		     marian_vocab_check(m, p[2], e);
	else if (f == F_T5)
		rc = model_tok_spm(m, p[0], NULL, e) || t5_extra_ids(&m->src_vocab, vocab, e) ||
		     t5_extra_ids(&m->tgt_vocab, vocab, e);
	else
		rc = model_tok_gpt2(m, p[0], p[1], e);
	/* the embedding's spare rows: <unused:ID> */
	if (!rc && m->src_vocab.n < vocab)
		rc = vocab_pad(&m->src_vocab, vocab, e) || vocab_pad(&m->tgt_vocab, vocab, e);
	if (!rc && m->src_vocab.n != vocab)
		rc = err_set(e, "%s/config.json: vocab_size is %d, and the tokenizer's vocabulary "
			     "has %d tokens", dir, vocab, m->src_vocab.n);
	if (!rc)
		rc = specials(m, f, id, e);
out:
	for (int i = 0; i < 4; i++)
		free(p[i]);
	return rc ? -1 : 0;
}
