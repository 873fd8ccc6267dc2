/* cmd_info.c - `attnscope info`: configuration, parameters per block and
 * the tensor list. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void count_line(const char *what, size_t n)
{
	printf("  %-22s %12zu\n", what, n);
}

int cmd_info(struct cli *c)
{
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	const struct config *g = &m->cfg;
	char p[64];
	printf("model        %s\n", g->name);
	if (g->description)
		printf("description  %s\n", g->description);
	printf("file         %s\n", m->path);
	printf("architecture %s\n", arch_name(g->arch));
	printf("d_model %d, heads %d (dk %d), d_ff %d, encoder layers %d, decoder layers %d\n",
	       g->d_model, g->heads, g->d_model / g->heads, g->d_ff, g->enc_layers,
	       g->dec_layers);
	printf("norm %s (eps %g), activation %s, positional encoding %s, max_len %d%s\n",
	       norm_name(g->norm), g->norm_eps, act_name(g->act), pe_name(g->pe),
	       g->max_len, g->scale_embedding ? ", embeddings scaled by √d_model" : "");
	printf("tokenizer %s%s%s; source vocab %d, target vocab %d%s\n",
	       g->tok.type == TOKENIZE_WORD ? "word" : "char",
	       g->tok.lowercase ? ", lowercase" : "",
	       g->tok.wrap_source ? ", source wrapped in <s> … </s>" : "",
	       m->src_vocab.n, m->tgt_vocab.n, m->shared_vocab ? " (shared)" : "");
	printf("weights      %s\n", g->wsrc == W_FILE ? g->weights_path :
	       g->wsrc == W_INLINE ? "inline in the YAML" : "seeded random (Xavier-uniform)");
	if (g->wsrc == W_RANDOM)
		printf("seed         %llu\n", g->seed);
	if (m->gen_tied)
		printf("generator    tied to the target embedding\n");
	for (int i = 0; i < g->ninfo; i++)
		printf("training     %s\n", g->info[i]);
	for (int i = 0; i < g->nexamples; i++)
		printf("example      %s\n", g->examples[i]);

	printf("\nparameters\n");
	count_line("src_embed", model_params(m, "src_embed."));
	if (model_tensor(m, "tgt_embed.weight"))
		count_line("tgt_embed", model_params(m, "tgt_embed."));
	if (model_tensor(m, "pos_embed.weight"))
		count_line("pos_embed", model_params(m, "pos_embed."));
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
	if (model_tensor(m, "generator.weight"))
		count_line("generator", model_params(m, "generator."));
	count_line("total", model_params(m, ""));

	printf("\ntensors\n");
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		if (t->ndim == 1)
			printf("  %-48s [%d]\n", t->name, t->shape[0]);
		else
			printf("  %-48s [%d, %d]\n", t->name, t->shape[0], t->shape[1]);
	}
	model_free(m);
	return 0;
}
