/* trainsnap.c - a training run's snapshots: the plan, the copies, their
 * losses, the checkpoint and YAML sides (trainsnap.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backprop.h"
#include "modelfile.h"
#include "trainsnap.h"
#include "formats/safetensors.h"

enum { CHUNK = 32 };   /* pairs a loss pass */

int trainsnap_steps(int n, long steps, long *out, struct err *e)
{
	if (n < 2)
		return err_set(e, "--snapshots needs at least 2 (step 0, the random "
			       "initialisation, and the last step), got %d", n);
	if ((long)n - 1 > steps)
		return err_set(e, "--snapshots %d needs at least %d steps (one snapshot a "
			       "step from 0), got --steps %ld", n, n - 1, steps);
	for (int k = 0; k < n; k++) {
		double x = pow((double)steps + 1, (double)k / (n - 1));
		long s = (long)floor(x + 0.5) - 1;
		if (k && s <= out[k - 1])
			s = out[k - 1] + 1;
		out[k] = s;
	}
	/* the bumps can push past the end only when n is near steps + 1;
	   pull the tail back under steps, one apart */
	out[n - 1] = steps;
	for (int k = n - 2; k >= 0 && out[k] >= out[k + 1]; k--)
		out[k] = out[k + 1] - 1;
	return 0;
}

int trainsnap_plan(struct trainsnap *s, const struct model *m, int n, long steps,
		   struct err *e)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < m->ntensors; i++)
		s->np += (size_t)m->tensors[i].shape[0] * m->tensors[i].shape[1];
	s->step = calloc((size_t)(n > 0 ? n : 1), sizeof *s->step);
	s->data = calloc((size_t)(n > 0 ? n : 1), sizeof *s->data);
	s->fig = calloc((size_t)(n > 0 ? n : 1), sizeof *s->fig);
	if (!s->step || !s->data || !s->fig)
		return err_set(e, "out of memory");
	if (trainsnap_steps(n, steps, s->step, e))
		return -1;
	s->n = n;
	for (int k = 0; k < n; k++)
		if (!(s->data[k] = malloc(2 * (s->np ? s->np : 1))))
			return err_set(e, "out of memory for %d snapshots of %zu parameters",
				       n, s->np);
	if (!(s->bp = backprop_new(m, e)))
		return -1;
	return 0;
}

int trainsnap_due(const struct trainsnap *s, long step)
{
	return s->taken < s->n && s->step[s->taken] == step;
}

/* Mean −log p(label) a counted token over ts's first n pairs. */
static int mean_nll(struct trainsnap *s, const struct trainset *ts, int n,
		    double *out, struct err *e)
{
	double nll = 0;
	long ntok = 0;
	int idx[CHUNK];
	if (n > ts->n)
		n = ts->n;
	for (int i = 0; i < n; i += CHUNK) {
		int k = n - i < CHUNK ? n - i : CHUNK;
		struct bp_loss l;
		for (int j = 0; j < k; j++)
			idx[j] = i + j;
		if (trainset_batch(ts, idx, k, &s->tb, e) ||
		    backprop_forward(s->bp, &s->tb.b, 0, &l, e))
			return -1;
		nll += l.nll;
		ntok += l.ntok;
	}
	*out = ntok ? nll / (double)ntok : 0;
	return 0;
}

int trainsnap_take(struct trainsnap *s, const struct model *m,
		   const struct trainset *train, const struct trainset *held, int held_n,
		   double exact, struct err *e)
{
	if (s->taken >= s->n)
		return 0;
	unsigned char *d = s->data[s->taken];
	size_t off = 0;
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		size_t n = (size_t)t->shape[0] * t->shape[1];
		for (size_t j = 0; j < n; j++, off++) {
			uint16_t h = st_f16_from_f32(t->data[j]);
			d[2 * off] = (unsigned char)(h & 0xff);
			d[2 * off + 1] = (unsigned char)(h >> 8);
		}
	}
	double loss, hl;
	if (mean_nll(s, train, TRAINSNAP_LOSS_PAIRS, &loss, e))
		return -1;
	char *f = s->fig[s->taken];
	size_t fl = sizeof s->fig[0];
	/* data in the YAML and the checkpoint: C numbers whatever the locale */
	snprintf(f, fl, "loss: %.4f", loss);
	if (held && held->n && held_n > 0) {
		if (mean_nll(s, held, held_n, &hl, e))
			return -1;
		snprintf(f + strlen(f), fl - strlen(f), ", heldout_loss: %.4f", hl);
	}
	if (exact >= 0)
		snprintf(f + strlen(f), fl - strlen(f), ", heldout_exact_match: %.1f", exact);
	s->taken++;
	return 0;
}

/* The steps of the snapshots in a checkpoint ("attnscope.snapshots"), at
 * most max of them into out; returns how many, or -1 with e set. */
static int file_steps(const char *path, long *out, int max, struct err *e)
{
	struct st_file f;
	if (st_open(&f, path, e))
		return -1;
	const char *v = st_meta(&f, "attnscope.snapshots");
	int k = 0;
	for (const char *p = v; p && *p && k < max;) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x < 0 || (k && x <= out[k - 1])) {
			st_close(&f);
			return err_set(e, "%s: bad attnscope.snapshots metadata \"%.60s\"", path, v);
		}
		out[k++] = x;
		p = end;
		while (*p == ' ')
			p++;
	}
	st_close(&f);
	return k;
}

int trainsnap_resume(struct trainsnap *s, const struct model *m, const char *path,
		     long upto, struct err *e)
{
	/* the checkpoint's own snapshots up to its step, then this plan's
	   after it (the same plan when the run resumed had the same --steps) */
	long *old = malloc((size_t)(s->n + 1000) * sizeof *old);
	if (!old)
		return err_set(e, "out of memory");
	int nold = file_steps(path, old, s->n + 1000, e), keep = 0;
	if (nold < 0) {
		free(old);
		return -1;
	}
	while (keep < nold && old[keep] <= upto)
		keep++;
	int rest = 0;
	/* a step passed that the file has no snapshot of is gone; the
	   resumed step itself is taken now (the weights are that step's) */
	while (rest < s->n && (s->step[rest] < upto || (keep && s->step[rest] <= old[keep - 1])))
		rest++;
	int total = keep + s->n - rest;
	long *step = malloc((size_t)(total ? total : 1) * sizeof *step);
	unsigned char **data = calloc((size_t)(total ? total : 1), sizeof *data);
	char (*fig)[160] = calloc((size_t)(total ? total : 1), sizeof *fig);
	int rc = -1;
	if (!step || !data || !fig) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int k = 0; k < total; k++) {
		step[k] = k < keep ? old[k] : s->step[rest + k - keep];
		if (!(data[k] = malloc(2 * (s->np ? s->np : 1)))) {
			err_set(e, "out of memory");
			goto out;
		}
	}
	for (int k = 0; k < keep; k++)
		if (ckpt_load_snap(m, path, step[k], data[k], fig[k], sizeof fig[0], e))
			goto out;
	for (int k = 0; k < s->n; k++)
		free(s->data[k]);
	free(s->data);
	free(s->step);
	free(s->fig);
	s->step = step;
	s->data = data;
	s->fig = fig;
	s->n = total;
	s->taken = keep;
	step = NULL;
	data = NULL;
	fig = NULL;
	rc = 0;
out:
	for (int k = 0; data && k < total; k++)
		free(data[k]);
	free(data);
	free(step);
	free(fig);
	free(old);
	return rc;
}

void trainsnap_ckpt(const struct trainsnap *s, struct ckpt_snaps *c,
		    const char **figs)
{
	for (int k = 0; k < s->taken; k++)
		figs[k] = s->fig[k];
	c->n = s->taken;
	c->step = s->step;
	c->data = s->data;
	c->figures = figs;
}

int trainsnap_record(const struct trainsnap *s, const char *yaml, struct err *e)
{
	char (*lines)[200] = calloc((size_t)s->taken + 1, sizeof *lines);
	const char **l = calloc((size_t)s->taken + 1, sizeof *l);
	int rc = -1;
	if (!lines || !l) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int k = 0; k < s->taken; k++) {
		snprintf(lines[k], sizeof lines[k], "  - {step: %ld%s%s}", s->step[k],
			 *s->fig[k] ? ", " : "", s->fig[k]);
		l[k] = lines[k];
	}
	rc = modelfile_set_snapshots(yaml, l, s->taken, e);
out:
	free(lines);
	free(l);
	return rc;
}

void trainsnap_free(struct trainsnap *s)
{
	for (int k = 0; s->data && k < s->n; k++)
		free(s->data[k]);
	free(s->data);
	free(s->step);
	free(s->fig);
	backprop_free(s->bp);
	tbatch_free(&s->tb);
	memset(s, 0, sizeof *s);
}
