/* model_arch.c - the keys of today's decoder-only models (model_arch.h). */
#include <stdio.h>
#include <string.h>

#include "model_arch.h"
#include "model_keys.h"

#define ARCH_MAX_DIM 65536

static const char *const NORM_TYPES[] = { "layernorm", "layernorm_std", "rmsnorm",
					  "gemma_rmsnorm", NULL };
static const char *const FFN_NAMES[] = { "plain", "gated", NULL };
static const char *const SCALING_NAMES[] = { "none", "linear", "llama3", NULL };
static const char *const SCALING_KEYS[] = {
	"type", "rope_type", "factor", "low_freq_factor", "high_freq_factor",
	"original_max_position_embeddings", NULL
};

static int get_float(const struct ydoc *d, const struct ynode *map, const char *key,
		     double lo, double hi, double *out, struct err *e)
{
	const struct ynode *n = ynode_get(map, key);
	if (!n)
		return 0;
	if (ynode_float(d, n, out, e))
		return ynode_keyed(d, n, key, e);
	if (!(*out > lo && *out < hi))
		return err_set(e, "%s:%d: %s must be in (%g, %g)", d->file, n->line, key, lo, hi);
	return 0;
}

static int parse_scaling(struct config *c, const struct ydoc *d, const struct ynode *n,
			 struct err *e)
{
	struct rope_cfg *r = &c->rope;
	int type = 0;
	if (mkey_check(d, n, SCALING_KEYS, "rope_scaling", e) ||
	    mkey_enum(d, n, ynode_get(n, "type") ? "type" : "rope_type", SCALING_NAMES,
		      &type, e) ||
	    get_float(d, n, "factor", 0, 1e6, &r->factor, e) ||
	    get_float(d, n, "low_freq_factor", 0, 1e6, &r->low_freq, e) ||
	    get_float(d, n, "high_freq_factor", 0, 1e6, &r->high_freq, e) ||
	    mkey_int(d, n, "original_max_position_embeddings", 1, 1 << 24, &r->orig_max, e))
		return -1;
	r->scaling = (enum rope_scaling)type;
	if (r->scaling != ROPE_PLAIN && !(r->factor > 0))
		return err_set(e, "%s:%d: rope_scaling needs factor", d->file, n->line);
	if (r->scaling == ROPE_LLAMA3 &&
	    (!(r->low_freq > 0) || !(r->high_freq > r->low_freq) || !r->orig_max))
		return err_set(e, "%s:%d: rope_scaling of type llama3 needs low_freq_factor < "
			       "high_freq_factor and original_max_position_embeddings",
			       d->file, n->line);
	return 0;
}

int model_arch_parse(struct config *c, const struct ydoc *d, const struct ynode *r,
		     struct err *e)
{
	int nk = c->norm_kind, ffn = c->ffn_gated;
	const struct ynode *n;
	if (mkey_enum(d, r, "norm_type", NORM_TYPES, &nk, e) ||
	    mkey_enum(d, r, "ffn", FFN_NAMES, &ffn, e) ||
	    mkey_int(d, r, "kv_heads", 1, ARCH_MAX_DIM, &c->kv_heads, e) ||
	    mkey_int(d, r, "head_dim", 1, ARCH_MAX_DIM, &c->head_dim, e) ||
	    mkey_bool(d, r, "qkv_bias", &c->qkv_bias, e) ||
	    mkey_bool(d, r, "qk_norm", &c->qk_norm, e) ||
	    mkey_int(d, r, "sliding_window", 1, 1 << 30, &c->sliding_window, e) ||
	    get_float(d, r, "rope_theta", 0, 1e12, &c->rope.theta, e))
		return -1;
	c->norm_kind = (enum norm_kind)nk;
	c->ffn_gated = ffn;
	if ((n = ynode_get(r, "rope_scaling")) && parse_scaling(c, d, n, e))
		return -1;
	const char *which = ynode_get(r, "rope_theta") ? "rope_theta" :
			    ynode_get(r, "rope_scaling") ? "rope_scaling" : NULL;
	if (which && c->pe != PE_ROPE)
		return err_set(e, "%s:%d: %s needs positional_encoding: rope", d->file,
			       ynode_get(r, which)->line, which);
	/* the heads' line, as model.c names it for the same checks */
	char what[600];
	const struct ynode *h = ynode_get(r, "heads");
	snprintf(what, sizeof what, "%s:%d", d->file, (h ? h : r)->line);
	return model_arch_check(c, what, e);
}

int model_arch_check(const struct config *c, const char *what, struct err *e)
{
	const int h = c->heads, hkv = c->kv_heads ? c->kv_heads : h;
	if (hkv > h || h % hkv)
		return err_set(e, "%s: kv_heads %d must divide heads %d", what, hkv, h);
	if (!c->head_dim && c->d_model % h)
		return err_set(e, "%s: d_model %d is not divisible by heads %d (give head_dim)",
			       what, c->d_model, h);
	if (c->pe == PE_ROPE && cfg_dk(c) % 2)
		return err_set(e, "%s: rotary embeddings need an even head_dim, not %d", what,
			       cfg_dk(c));
	if (c->qk_norm && c->norm_kind != NK_RMS && c->norm_kind != NK_RMS1)
		return err_set(e, "%s: qk_norm is an RMSNorm: give norm_type: rmsnorm", what);
	return 0;
}
