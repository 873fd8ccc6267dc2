/* cmd_info.c - `attnscope info`: configuration, parameters per block and
 * the tensor list. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "engine/layout.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/blas.h"
#include "formats/gguf.h"
#include "formats/tensorfile.h"

static void count_line(const char *what, size_t n)
{
	fputs("  ", stdout);
	utf8_fpad(stdout, what, 22, 0);
	printf(" %12zu\n", n);
}

/* The labels of the first lines, as wide as the widest of them. */
static const char *const LABELS[] = {
	/* TRANSLATORS: labels of `attnscope info`, one per line before the
	   value ("model        en-pt-tiny"); the values line up after the
	   widest label.  "generator" is the output layer. */
	N_("model"), N_("description"), N_("file"), N_("architecture"),
	N_("weights"), N_("seed"), N_("generator"), N_("training"), N_("example"),
	/* TRANSLATORS: label of `attnscope info`: one line for each training
	   snapshot (a copy of the weights taken during training) */
	N_("snapshot"),
	/* TRANSLATORS: label of `attnscope info`: the linear-algebra
	   library that does the matrix products */
	N_("BLAS"),
	/* TRANSLATORS: labels of `attnscope info` on a Hugging Face folder:
	   the files it read, and BERT's masked-LM head */
	N_("folder"), N_("MLM head"),
};

static int label_width(void)
{
	int w = 12;
	for (size_t i = 0; i < sizeof LABELS / sizeof *LABELS; i++) {
		int k = utf8_width(_(LABELS[i]));
		w = k > w ? k : w;
	}
	return w;
}

/* A Hugging Face folder: the files found in dir that attnscope reads. */
static void hf_files(const struct model *m, char *buf, size_t cap)
{
	static const char *const files[] = {
		"config.json", "model.safetensors", "pytorch_model.bin", "vocab.json",
		"merges.txt", "vocab.txt", "tokenizer_config.json",
	};
	const char *w = strrchr(m->cfg.weights_path, '/');
	/* TRANSLATORS: `info` on a folder: its model_type, then the files */
	snprintf(buf, cap, _("%s (Hugging Face):"), m->cfg.hf_type);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", m->path, files[i]);
		/* of the weights files, the one read */
		if ((i == 1 || i == 2) && (!w || strcmp(w + 1, files[i]) != 0))
			continue;
		if (access(p, R_OK) == 0)
			snprintf(buf + strlen(buf), cap - strlen(buf), " %s", files[i]);
	}
}

/* "label" padded to the label column, a space, then the value. */
/* What input_build puts around the source, with the vocabulary's own
 * spellings: ", source wrapped in <s> … </s>", or only a start ([CLS]),
 * or only an end (T5's and Marian's </s>); "" when nothing. */
static void wrap_text(const struct model *m, char *buf, size_t n)
{
	const int sos = m->src_sp[TOK_SOS], eos = m->src_sp[TOK_EOS];
	char a[64], b[64];
	buf[0] = 0;
	if (!m->cfg.tok.wrap_source || m->cfg.arch == ARCH_DEC_ONLY || (sos < 0 && eos < 0))
		return;
	if (sos >= 0)
		safetext_copy(a, sizeof a, vocab_str(&m->src_vocab, sos), 0);
	if (eos >= 0)
		safetext_copy(b, sizeof b, vocab_str(&m->src_vocab, eos), 0);
	if (sos >= 0 && eos >= 0)
		snprintf(buf, n, _(", source wrapped in %s … %s"), a, b);
	else if (sos >= 0)
		snprintf(buf, n, _(", source begins with %s"), a);
	else
		snprintf(buf, n, _(", source followed by %s"), b);   /* T5, Marian */
}

static void field(int lw, const char *label, const char *value)
{
	utf8_fpad(stdout, label, lw, 0);
	putchar(' ');
	safetext_fputs(value, stdout, 0);   /* the model file's text */
	putchar('\n');
}

/* The BLAS: its build string (version, kernels), the file, the kernels in
 * use and whether attnscope chose them, and its threads. */
static void blas_lines(int lw)
{
	struct blas_info b;
	char line[512];
	blas_info_get(&b);
	snprintf(line, sizeof line, "%s (%s)", b.config, b.library);
	field(lw, _("BLAS"), line);
	if (b.from)
		/* TRANSLATORS: %1$s and %2$s are OpenBLAS kernel names
		   (SkylakeX, Prescott) */
		snprintf(line, sizeof line, _("kernels %s, corrected from %s by attnscope "
					      "(OPENBLAS_CORETYPE)"), b.core, b.from);
	else if (b.user_core)
		snprintf(line, sizeof line, _("kernels %s, as OPENBLAS_CORETYPE asks"), b.core);
	else
		snprintf(line, sizeof line, _("kernels %s"), b.core);
	size_t n = strlen(line);
	snprintf(line + n, sizeof line - n, P_("; %d thread (%s)", "; %d threads (%s)",
					      b.threads), b.threads, b.parallel);
	field(lw, "", line);
}

/* `attnscope info FILE` on a weights file: what is in it, before any YAML
 * exists, so that a user sees the names to map. */
static int info_weights(const char *path)
{
	struct st_file f;
	struct err e;
	if (tensorfile_open(&f, path, NULL, &e)) {
		cli_fail("%s", e.msg);
		return 1;
	}
	const char *sdkey = st_meta(&f, "torch:state_dict");
	const int lw = label_width();
	field(lw, _("file"), path);
	/* TRANSLATORS: a label of `attnscope info FILE` on a weights file */
	field(lw, _("format"), sdkey ? "torch.save" : "safetensors");
	if (sdkey) {
		char buf[200];
		if (*sdkey)
			/* TRANSLATORS: where the tensors are: a checkpoint dict's entry */
			snprintf(buf, sizeof buf, _("entry \"%s\" of a checkpoint dict"), sdkey);
		else
			snprintf(buf, sizeof buf, "%s", _("the top-level dict"));
		/* TRANSLATORS: a label of `attnscope info FILE`: which entry of
		   the file holds the tensors */
		field(lw, _("state_dict"), buf);
		int any = 0;
		for (int i = 0; i < f.nmeta; i++) {
			const char *k = f.meta_keys[i];
			if (strncmp(k, "torch:entry:", 12))
				continue;
			if (!any++)
				fputs(_("\nother entries (not read)\n"), stdout);
			char sk[1024];
			fputs("  ", stdout);
			utf8_fpad(stdout, safetext_copy(sk, sizeof sk, k + 12, 0), 28, 0);
			putchar(' ');
			safetext_fputs(f.meta_vals[i], stdout, 0);
			putchar('\n');
		}
	} else {
		/* the file's own text: made safe for the terminal */
		for (int i = 0; i < f.nmeta; i++) {
			fputs(i ? "" : _("\nmetadata\n"), stdout);
			safetext_fputs(f.meta_keys[i], stdout, 0);
			fputs(": ", stdout);
			safetext_fputs(f.meta_vals[i], stdout, 0);
			putchar('\n');
		}
	}
	int nw = 8;
	unsigned long long params = 0;
	char sn[2048];
	for (int i = 0; i < f.n; i++) {
		int w = utf8_width(safetext_copy(sn, sizeof sn, f.t[i].name, 0));
		nw = w > nw ? (w < 64 ? w : 64) : nw;
		params += f.t[i].numel;
	}
	printf(P_("\ntensors (%d, %llu values)\n", "\ntensors (%d, %llu values)\n", f.n),
	       f.n, params);
	for (int i = 0; i < f.n; i++) {
		const struct st_tensor *t = &f.t[i];
		char sh[200] = "[";
		for (int k = 0; k < t->ndim; k++)
			snprintf(sh + strlen(sh), sizeof sh - strlen(sh), "%s%llu", k ? ", " : "",
				 (unsigned long long)t->shape[k]);
		strncat(sh, "]", sizeof sh - strlen(sh) - 1);
		char sd[64];
		fputs("  ", stdout);
		utf8_fpad(stdout, safetext_copy(sn, sizeof sn, t->name, 0), nw, 0);
		printf(" %-5s %s\n", safetext_copy(sd, sizeof sd, t->dtype_str, 0), sh);
	}
	st_close(&f);
	return 0;
}

/* The components of today's models, when the model has any: grouped-query
 * attention, RMSNorm, the gated feed-forward, rotary positions, the window,
 * the weights' dtype. */
static void info_today(const struct config *g)
{
	const int hkv = cfg_kv_heads(g);
	if (hkv != g->heads)
		/* TRANSLATORS: `attnscope info`: grouped-query attention */
		printf(_("attention: %d query heads share %d key/value heads (%d each)%s\n"),
		       g->heads, hkv, g->heads / hkv, hkv == 1 ? _(", multi-query") : "");
	if (g->norm_kind == NK_RMS || g->norm_kind == NK_RMS1 || g->ffn_gated || g->qk_norm)
		printf("%s%s%s%s\n", g->norm_kind == NK_RMS ? "RMSNorm" :
		       g->norm_kind == NK_RMS1 ? "RMSNorm ·(1 + g)" : norm_kind_name(g->norm_kind),
		       g->ffn_gated ? (g->act == ACT_SILU ? ", SwiGLU" : ", GeGLU") : "",
		       g->qk_norm ? ", q/k norms" : "", g->qkv_bias && !g->bias ? ", Q/K/V biases" : "");
	if (g->pe == PE_ROPE) {
		/* TRANSLATORS: `attnscope info`: rotary position embeddings,
		   their base theta, then "" or the scaling */
		printf(_("rotary positions: theta %g%s, context %d\n"), g->rope.theta > 0 ?
		       g->rope.theta : 10000.0, g->rope.scaling == ROPE_LINEAR ? _(", linear scaling") :
		       g->rope.scaling == ROPE_LLAMA3 ? _(", llama3 scaling") : "", g->max_len);
	}
	if (g->sliding_window)
		/* TRANSLATORS: `attnscope info`: each query sees its N last keys */
		printf(_("sliding window: %d keys (from layer %d)\n"), g->sliding_window,
		       g->window_from);
	if (g->wdtype[0])
		/* TRANSLATORS: `attnscope info`: the dtypes of the weights file
		   (F32, BF16, ...), converted to F32 on load */
		printf(_("weights stored as %s (computed in F32)\n"), g->wdtype);
}

/* A GGUF file: named *.gguf, or starting with the magic "GGUF". */
static int is_gguf(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".gguf")) || gguf_sniff(path);
}

/* The first lines: the model's name, file and architecture, its sizes and
 * components. */
static void info_header(const struct model *m, int lw)
{
	const struct config *g = &m->cfg;
	field(lw, _("model"), g->name);
	if (g->description)
		field(lw, _("description"), g->description);
	field(lw, _("file"), m->path);
	field(lw, _("architecture"), arch_name(g->arch));
	if (g->hf_type)
		/* TRANSLATORS: `attnscope info` of a Hugging Face folder: its
		   model_type (llama, qwen2, gpt2, ...) */
		field(lw, _("family"), g->hf_type);
	printf(_("d_model %d, heads %d (dk %d), d_ff %d, encoder layers %d, decoder layers %d\n"),
	       g->d_model, g->heads, cfg_dk(g), g->d_ff, g->enc_layers,
	       g->dec_layers);
	info_today(g);
	/* TRANSLATORS: the values after norm, activation and positional
	   encoding are the YAML values (post, pre, relu, sinusoidal, ...) and
	   stay as they are; the last %s is empty or ", embeddings scaled by
	   √d_model". */
	printf(_("norm %s (eps %g), activation %s, positional encoding %s, max_len %d%s\n"),
	       norm_name(g->norm), g->norm_eps, act_name(g->act), pe_name(g->pe),
	       g->max_len, g->scale_embedding ? _(", embeddings scaled by √d_model") : "");
}

/* The tokenizer line, and the BPE merges when there are any. */
static void info_tokenizer(const struct model *m)
{
	const struct config *g = &m->cfg;
	/* TRANSLATORS: the first %s is the YAML value word, char, bpe, gpt2,
	   wordpiece, sentencepiece or hf; the next
	   two are empty or ", lowercase" and ", source wrapped in <s> … </s>"
	   (or begins with / ends with a special);
	   the last is empty or " (shared)". */
	char wrap[256];
	wrap_text(m, wrap, sizeof wrap);
	printf(_("tokenizer %s%s%s; source vocab %d, target vocab %d%s\n"),
	       tok_name(g->tok.type),
	       g->tok.lowercase ? _(", lowercase") : "", wrap,
	       /* TRANSLATORS: the vocabulary is shared by source and target */
	       m->src_vocab.n, m->tgt_vocab.n, m->shared_vocab ? _(" (shared)") : "");
	if (m->src_bpe || m->tgt_bpe)
		/* TRANSLATORS: `attnscope info` of a model with BPE tokens:
		   the number of merges of each side (0: words, no BPE) */
		printf(_("BPE merges: source %d, target %d%s\n"),
		       m->src_bpe ? m->src_bpe->n : 0, m->tgt_bpe ? m->tgt_bpe->n : 0,
		       m->src_bpe == m->tgt_bpe ? _(" (shared)") : "");
}

/* The specials as the vocabulary has them (DESIGN.md: by name). */
static void info_specials(const struct model *m, int lw)
{
	static const char *const role[] = { "pad", "sos", "eos", "unk" };
	char sp[512] = "";
	for (int i = 0; i < TOK_NSPECIAL; i++) {
		size_t l = strlen(sp);
		if (m->tgt_sp[i] >= 0)
			snprintf(sp + l, sizeof sp - l, "%s%s %.40s = %d", i ? ", " : "", role[i],
				 vocab_str(&m->tgt_vocab, m->tgt_sp[i]), m->tgt_sp[i]);
		else
			snprintf(sp + l, sizeof sp - l, "%s%s null", i ? ", " : "", role[i]);
	}
	field(lw, _("specials"), sp);
}

/* The layout, the folder's files, the heads on top of the pass. */
static void info_layout(const struct model *m, int lw)
{
	const struct config *g = &m->cfg;
	if (g->layout != LAYOUT_NN_TRANSFORMER)
		field(lw, _("layout"), LAYOUT_NAMES[g->layout]);
	if (g->hf_type) {
		char hf[1024];
		hf_files(m, hf, sizeof hf);
		field(lw, _("folder"), hf);
	}
	if (g->layout == LAYOUT_BERT)
		field(lw, _("MLM head"), m->mlm_w ?
		      /* TRANSLATORS: `info` on a BERT folder; the stage names stay */
		      _("cls.predictions: memory → mlm.hidden → logits → probs") :
		      _("none: the pass ends at memory"));
	if (g->head.nlabels) {
		static const char *const pool[] = { "mean", "first", "last" };
		char hd[512];
		/* TRANSLATORS: `info` on a classifier; the pool is a YAML value */
		snprintf(hd, sizeof hd, _("%d labels, pool %s"), g->head.nlabels, pool[g->head.pool]);
		field(lw, _("classifier"), hd);
	}
}

/* Where the weights come from: file, snapshot, inline or seeded; and
 * whether the generator is tied to the target embedding. */
static void info_weights_source(const struct model *m, int lw)
{
	const struct config *g = &m->cfg;
	if (g->snapshot >= 0) {
		char w[PATH_MAX + 96];
		/* TRANSLATORS: `attnscope info --snapshot STEP`: the weights line */
		snprintf(w, sizeof w, _("%s, training snapshot of step %ld"), g->weights_path,
			 g->snapshot);
		field(lw, _("weights"), w);
	} else
		field(lw, _("weights"), g->wsrc == W_FILE ? g->weights_path :
		      /* TRANSLATORS: values of the "weights" line of `attnscope
			 info` (where the weights come from) */
		      g->wsrc == W_INLINE ? _("inline in the YAML") : _("seeded random (Xavier-uniform)"));
	if (g->wsrc == W_RANDOM) {
		char seed[32];
		snprintf(seed, sizeof seed, "%llu", g->seed);
		field(lw, _("seed"), seed);
	}
	const struct wtensor *gw = model_tensor(m, "generator.weight"),
			     *te = model_tensor(m, "tgt_embed.weight");
	if (m->gen_tied || (gw && te && gw->data == te->data))   /* or mapped by hand */
		field(lw, _("generator"),
		      /* TRANSLATORS: the generator's weights are the target
			 embedding's (weight tying) */
		      _("tied to the target embedding"));
}

/* One training snapshot: its step, losses and whether it is loaded. */
static void info_snapshot(const struct config *g, const struct snapshot *sn, int lw)
{
	char buf[256];
	/* TRANSLATORS: `attnscope info`, a training snapshot: its step and
	   its training loss (nats a token); "(loaded)" marks the one loaded */
	int k = snprintf(buf, sizeof buf, _("step %ld"), sn->step);
	if (!isnan(sn->loss))
		k += snprintf(buf + k, sizeof buf - (size_t)k, _(", loss %.4f"), sn->loss);
	if (!isnan(sn->heldout_loss))
		k += snprintf(buf + k, sizeof buf - (size_t)k, _(", held-out loss %.4f"),
			      sn->heldout_loss);
	if (!isnan(sn->heldout_exact))
		k += snprintf(buf + k, sizeof buf - (size_t)k,
			      _(", held-out exact match %.1f%%"), sn->heldout_exact);
	if (sn->step == g->snapshot)
		snprintf(buf + k, sizeof buf - (size_t)k, "%s", _(" (loaded)"));
	field(lw, _("snapshot"), buf);
}

/* The training lines, the snapshots and the examples. */
static void info_training(const struct config *g, int lw)
{
	for (int i = 0; i < g->ninfo; i++)
		field(lw, _("training"), g->info[i]);
	for (int i = 0; i < g->nsnaps; i++)
		info_snapshot(g, &g->snaps[i], lw);
	for (int i = 0; i < g->nexamples; i++)
		field(lw, _("example"), g->examples[i]);
}

/* The parameters of each part: embeddings, each layer, the heads. */
static void info_params(const struct model *m)
{
	const struct config *g = &m->cfg;
	char p[64];
	fputs(_("\nparameters\n"), stdout);
	count_line("src_embed", model_params(m, "src_embed."));
	if (model_tensor(m, "tgt_embed.weight"))
		count_line("tgt_embed", model_params(m, "tgt_embed."));
	if (model_tensor(m, "pos_embed.weight"))
		count_line("pos_embed", model_params(m, "pos_embed."));
	if (model_tensor(m, "type_embed.weight"))
		count_line("type_embed", model_params(m, "type_embed."));
	if (model_tensor(m, "input_norm.weight"))
		count_line("input_norm", model_params(m, "input_norm."));
	for (int i = 0; i < g->enc_layers; i++) {
		snprintf(p, sizeof p, "encoder.layers.%d.", i);
		count_line(p, model_params(m, p));
	}
	if (model_tensor(m, "encoder.norm.weight"))
		count_line("encoder.norm", model_params(m, "encoder.norm."));
	for (int i = 0; i < g->dec_layers; i++) {
		snprintf(p, sizeof p, "decoder.layers.%d.", i);
		count_line(p, model_params(m, p));
	}
	if (model_tensor(m, "decoder.norm.weight"))
		count_line("decoder.norm", model_params(m, "decoder.norm."));
	if (model_tensor(m, "mlm.dense.weight"))
		count_line("mlm.", model_params(m, "mlm."));
	if (model_tensor(m, "generator.weight") || model_tensor(m, "generator.bias"))
		count_line("generator", model_params(m, "generator."));
	count_line(_("total"), model_params(m, ""));
}

/* The model's tensors with their shapes. */
static void info_tensors(const struct model *m)
{
	fputs(_("\ntensors\n"), stdout);
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		if (t->ndim == 1)
			printf("  %-48s [%d]\n", t->name, t->shape[0]);
		else
			printf("  %-48s [%d, %d]\n", t->name, t->shape[0], t->shape[1]);
	}
}

int cmd_info(struct cli *c)
{
	/* info FILE: a weights file lists its tensors, a GGUF file its
	   metadata (cmd_info_gguf.c); a YAML is a model */
	const char *gg = c->sentence ? c->sentence : c->model;
	if (gg && is_gguf(gg))
		return cmd_info_gguf(gg);
	if (c->sentence) {
		if (tensorfile_sniff(c->sentence))
			return info_weights(c->sentence);
		c->model = c->sentence;
	} else if (tensorfile_sniff(c->model)) {
		return info_weights(c->model);
	}
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	const int lw = label_width();
	info_header(m, lw);
	info_tokenizer(m);
	info_specials(m, lw);
	info_layout(m, lw);
	info_weights_source(m, lw);
	info_training(&m->cfg, lw);
	blas_lines(lw);

	info_params(m);
	info_tensors(m);
	model_free(m);
	return 0;
}
