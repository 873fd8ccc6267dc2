/* cmd_info_gguf.c - `attnscope info FILE.gguf`: the metadata that matters,
 * the tensor types, and the memory the weights take as F32 (the model is
 * not loaded: the file is mapped and its tables read). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/gguf_map.h"
#include "formats/gguf.h"
#include "formats/quant.h"

/* llama.cpp's llama_ftype (general.file_type) */
static const char *ftype_name(uint32_t t)
{
	static const char *const names[] = {
		[0] = "F32", [1] = "F16", [2] = "Q4_0", [3] = "Q4_1", [7] = "Q8_0",
		[8] = "Q5_0", [9] = "Q5_1", [10] = "Q2_K", [11] = "Q3_K_S", [12] = "Q3_K_M",
		[13] = "Q3_K_L", [14] = "Q4_K_S", [15] = "Q4_K_M", [16] = "Q5_K_S",
		[17] = "Q5_K_M", [18] = "Q6_K", [19] = "IQ2_XXS", [20] = "IQ2_XS",
		[21] = "Q2_K_S", [22] = "IQ3_XS", [23] = "IQ3_XXS", [24] = "IQ1_S",
		[25] = "IQ4_NL", [26] = "IQ3_S", [27] = "IQ3_M", [28] = "IQ2_S", [29] = "IQ2_M",
		[30] = "IQ4_XS", [31] = "IQ1_M", [32] = "BF16", [36] = "TQ1_0", [37] = "TQ2_0",
		[38] = "MXFP4_MOE",
	};
	return t < sizeof names / sizeof *names && names[t] ? names[t] : "?";
}

static void line(const char *label, const char *value)
{
	utf8_fpad(stdout, label, 18, 0);
	putchar(' ');
	safetext_fputs(value, stdout, 0);
	putchar('\n');
}

static const char *bytes_str(char *buf, size_t cap, double b)
{
	if (b >= 1e9)
		/* TRANSLATORS: gigabytes, megabytes, kilobytes (10^9, 10^6, 10^3 bytes) */
		snprintf(buf, cap, _("%.2f GB"), b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, cap, _("%.1f MB"), b / 1e6);
	else
		snprintf(buf, cap, _("%.1f kB"), b / 1e3);
	return buf;
}

/* MemAvailable of /proc/meminfo in bytes, or 0 when unknown. */
static double mem_available(void)
{
	FILE *fp = fopen("/proc/meminfo", "r");
	char l[256];
	double kb = 0;
	while (fp && fgets(l, sizeof l, fp))
		if (sscanf(l, "MemAvailable: %lf kB", &kb) == 1)
			break;
	if (fp)
		fclose(fp);
	return kb * 1024;
}

static void config_lines(const struct gguf_file *f, const struct gguf_config *g,
			 const struct gguf_tokenizer *tk)
{
	char b[512];
	/* TRANSLATORS: `info FILE.gguf`, the format line: GGUF's version,
	   then the counts of metadata keys and tensors */
	snprintf(b, sizeof b, _("GGUF v%" PRIu32 ", %zu metadata keys, %zu tensors"), f->version,
		 f->nkv, f->nt);
	line(_("format"), b);
	line(_("architecture"), g->arch_name);
	if (*g->name)
		line(_("name"), g->name);
	snprintf(b, sizeof b, "%s (%u)", ftype_name(g->file_type), (unsigned)g->file_type);
	line(_("file type"), g->file_type == UINT32_MAX ? "-" : b);
	snprintf(b, sizeof b, "%" PRIu32, g->context_length);
	line(_("context length"), b);
	snprintf(b, sizeof b, _("%" PRIu32 " (d_ff %" PRIu32 ")"), g->embedding_length,
		 g->feed_forward_length);
	line(_("embedding length"), b);
	snprintf(b, sizeof b, "%" PRIu32, g->block_count);
	line(_("blocks"), b);
	snprintf(b, sizeof b, _("%" PRIu32 ", key/value heads %" PRIu32 ", head size %" PRIu32),
		 g->head_count, g->head_count_kv, g->head_dim);
	line(_("heads"), b);
	int k = snprintf(b, sizeof b, "%g", (double)g->rope_freq_base);
	if (g->rope_scaling != GGUF_ROPE_NONE)
		snprintf(b + k, sizeof b - (size_t)k, _(", scaling %s × %g"), g->rope_scaling_name,
			 (double)g->rope_scaling_factor);
	else if (g->has_rope_freqs)
		snprintf(b + k, sizeof b - (size_t)k, "%s", _(", frequency factors (rope_freqs)"));
	line(_("rope theta"), b);
	snprintf(b, sizeof b, "%g", (double)g->rms_eps);
	line(_("RMSNorm eps"), b);
	if (g->sliding_window) {
		snprintf(b, sizeof b, "%" PRIu32, g->sliding_window);
		line(_("sliding window"), b);
	}
	snprintf(b, sizeof b, _("%s%s%s, %" PRIu32 " tokens%s%s"), tk->model_name,
		 *tk->pre ? " / " : "", tk->pre, g->vocab_size,
		 tk->nmerges ? _(", merges") : "", g->tied ? _(", output tied to the embedding") : "");
	line(_("tokenizer"), b);
}

static void type_lines(const struct gguf_file *f, double *f32_bytes)
{
	uint64_t count[QUANT_NTYPES] = { 0 }, values[QUANT_NTYPES] = { 0 };
	double total = 0;
	for (size_t i = 0; i < f->nt; i++) {
		count[f->t[i].type]++;
		values[f->t[i].type] += f->t[i].numel;
		total += (double)f->t[i].numel;
	}
	fputs(_("\ntensor types\n"), stdout);
	for (uint32_t t = 0; t < QUANT_NTYPES; t++)
		if (count[t])
			printf(P_("  %-8s %6" PRIu64 " tensor  %14" PRIu64 " values%s\n",
				  "  %-8s %6" PRIu64 " tensors %14" PRIu64 " values%s\n", count[t]),
			       quant_name(t), count[t], values[t],
			       quant_can_dequant(t) ? "" : _("  (not converted)"));
	*f32_bytes = total * 4;
}

int cmd_info_gguf(const char *path)
{
	struct gguf_file f;
	struct gguf_config g;
	struct gguf_tokenizer tk;
	struct err e;
	if (gguf_open(&f, path, &e))
		return cli_fail("%s", e.msg);
	if (gguf_map_config(&f, &g, &e) || gguf_map_tokenizer(&f, &tk, &e)) {
		gguf_close(&f);
		return cli_fail("%s", e.msg);
	}
	line(_("file"), path);
	config_lines(&f, &g, &tk);
	double need, avail = mem_available();
	type_lines(&f, &need);
	char a[64], b[64], l[256];
	snprintf(l, sizeof l, _("%s as F32 (the file: %s)"), bytes_str(a, sizeof a, need),
		 bytes_str(b, sizeof b, (double)f.maplen));
	putchar('\n');
	line(_("weights"), l);
	if (avail > 0 && need > avail)
		warn_msg(_("%s: the weights take %s as F32, more than the %s of memory available "
			   "(MemAvailable)"), path, a, bytes_str(b, sizeof b, avail));
	gguf_tokenizer_free(&tk);
	gguf_close(&f);
	return 0;
}
