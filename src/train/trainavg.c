/* trainavg.c - the mean of a run's last checkpoints (trainavg.h). */
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "trainavg.h"

/* m's weights, in the order of its tensors, copied to flat (get) or set
 * from scale·flat (put). */
static void flat_get(const struct model *m, float *flat)
{
	size_t off = 0;
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		size_t n = (size_t)t->shape[0] * t->shape[1];
		memcpy(flat + off, t->data, n * sizeof *t->data);
		off += n;
	}
}

static void flat_put(struct model *m, const float *flat, float scale)
{
	size_t off = 0;
	for (int i = 0; i < m->ntensors; i++) {
		struct wtensor *t = &m->tensors[i];
		size_t n = (size_t)t->shape[0] * t->shape[1];
		for (size_t j = 0; j < n; j++)
			t->data[j] = flat[off + j] * scale;
		off += n;
	}
}

int trainavg_plan(struct trainavg *a, size_t np, int k, int every, long last,
		  struct err *e)
{
	if (every < 1)
		return err_set(e, "--average %d takes a checkpoint every --eval-every steps, "
			       "and --eval-every is 0", k);
	if (k < 2 || (long)(k - 1) * every >= last)
		return err_set(e, "--average %d checkpoints %d steps apart need more than %ld "
			       "steps (--steps is %ld)", k, every, (long)(k - 1) * every, last);
	a->k = k;
	a->every = every;
	a->last = last;
	a->np = np;
	a->sum = calloc(a->np ? a->np : 1, sizeof *a->sum);
	a->raw = malloc((a->np ? a->np : 1) * sizeof *a->raw);
	if (!a->sum || !a->raw)
		return err_set(e, "out of memory");
	return 0;
}

/* Whether step is a checkpoint of the plan (k, every, last). */
static int in_plan(int k, int every, long last, long step)
{
	return k && step >= 1 && step <= last && (last - step) % every == 0 &&
	       (last - step) / every < k;
}

int trainavg_due(const struct trainavg *a, long step)
{
	return in_plan(a->k, a->every, a->last, step);
}

long trainavg_first(const struct trainavg *a)
{
	return a->last - (long)(a->k - 1) * a->every;
}

void trainavg_add(struct trainavg *a, const struct model *m)
{
	flat_get(m, a->raw);   /* raw is free until the mean is applied */
	cblas_saxpy((int)a->np, 1.0f, a->raw, 1, a->sum, 1);
	a->count++;
}

void trainavg_apply(struct trainavg *a, struct model *m)
{
	if (a->applied || !a->k || a->count != a->k)
		return;
	flat_get(m, a->raw);
	flat_put(m, a->sum, 1.0f / (float)a->k);
	a->applied = 1;
}

void trainavg_restore(struct model *m, const float *raw)
{
	flat_put(m, raw, 1.0f);
}

/* How many checkpoints of the plan (k, every, last) are at or before step:
 * those of last − (k−1)·every, …, last that are ≥ 1 and ≤ step. */
static int upto_count(int k, int every, long last, long step)
{
	int c = 0;
	for (int i = 0; i < k; i++)
		c += in_plan(k, every, last, last - (long)i * every) &&
		     last - (long)i * every <= step;
	return c;
}

int trainavg_resume(struct trainavg *a, const struct ckpt_avg *s, const char *path,
		    long upto, struct err *e)
{
	int mine = a->k ? upto_count(a->k, a->every, a->last, upto) : 0;
	if (s && s->count != upto_count(s->k, s->every, s->last, upto))
		return err_set(e, "%s: attnscope.average sums %d checkpoints, but %d of its "
			       "plan are at or before step %ld", path, s->count,
			       upto_count(s->k, s->every, s->last, upto), upto);
	if (!mine)
		return 0;   /* this run's checkpoints are all ahead */
	int same = s != NULL && s->count == mine;
	for (int i = 0; same && i < a->k; i++) {
		long step = a->last - (long)i * a->every;
		if (step <= upto)
			same = in_plan(s->k, s->every, s->last, step);
	}
	if (!same)
		return err_set(e, "%s: the run resumed did not sum this run's checkpoints "
			       "(--average %d every %d steps up to step %ld); resume with the "
			       "--average, --eval-every and --steps it ran with", path, a->k,
			       a->every, a->last);
	memcpy(a->sum, s->sum, a->np * sizeof *a->sum);
	a->count = mine;
	return 0;
}

const struct ckpt_avg *trainavg_ckpt(const struct trainavg *a, struct ckpt_avg *c)
{
	if (!a->k)
		return NULL;
	c->k = a->k;
	c->every = a->every;
	c->last = a->last;
	c->count = a->count;
	c->sum = a->sum;
	c->raw = a->applied ? a->raw : NULL;
	return c;
}

void trainavg_free(struct trainavg *a)
{
	free(a->sum);
	free(a->raw);
	memset(a, 0, sizeof *a);
}
