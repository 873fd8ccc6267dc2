/* checkpoint.c - weights and optimizer state as safetensors files. */
#include <inttypes.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "engine/snapshot.h"
#include "formats/safetensors.h"

char *ckpt_state_path(const char *weights_path)
{
	static const char EXT[] = ".safetensors";
	size_t n = strlen(weights_path), k = sizeof EXT - 1;
	char *p = malloc(n + 32);
	if (!p)
		return NULL;
	if (n > k && strcmp(weights_path + n - k, EXT) == 0)
		snprintf(p, n + 32, "%.*s.optim%s", (int)(n - k), weights_path, EXT);
	else
		snprintf(p, n + 32, "%s.optim", weights_path);
	return p;
}

static size_t numel(const struct wtensor *t)
{
	return (size_t)t->shape[0] * t->shape[1];
}

/* The tensor's shape as the writer takes it (ndim entries used). */
static void tshape(const struct wtensor *t, uint64_t *shape)
{
	shape[0] = (uint64_t)t->shape[0];
	shape[1] = (uint64_t)t->shape[1];
}

int ckpt_save_weights(const struct model *m, const char *path,
		      const char *const *keys, const char *const *vals, int nmeta,
		      struct err *e)
{
	return ckpt_save_snaps(m, path, keys, vals, nmeta, NULL, e);
}

int ckpt_save_snaps(const struct model *m, const char *path,
		    const char *const *keys, const char *const *vals, int nmeta,
		    const struct ckpt_snaps *s, struct err *e)
{
	const int ns = s ? s->n : 0;
	struct st_writer *w = st_writer_new();
	/* names of the snapshots' tensors and their figures' keys */
	char (*names)[192] = calloc((size_t)ns * (m->ntensors + 1) + 1, sizeof *names);
	char *steps = calloc((size_t)ns + 1, 24);
	int rc = -1;
	if (!w || !names || !steps) {
		err_set(e, "out of memory");
		goto out;
	}
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		uint64_t shape[2];
		tshape(t, shape);
		st_writer_add(w, t->name, ST_F32, t->ndim, shape, t->data);
	}
	for (int k = 0; k < ns; k++) {
		size_t off = 0;
		char (*nk)[192] = names + (size_t)k * (m->ntensors + 1);
		for (int i = 0; i < m->ntensors; i++) {
			const struct wtensor *t = &m->tensors[i];
			uint64_t shape[2];
			tshape(t, shape);
			snapshot_name(nk[i], sizeof nk[i], s->step[k], t->name);
			st_writer_add(w, nk[i], ST_F16, t->ndim, shape, s->data[k] + 2 * off);
			off += numel(t);
		}
		snprintf(nk[m->ntensors], sizeof nk[0], "attnscope.snapshot.%ld", s->step[k]);
		if (s->figures && s->figures[k])
			st_writer_meta(w, nk[m->ntensors], s->figures[k]);
		snprintf(steps + strlen(steps), 24, "%s%ld", k ? " " : "", s->step[k]);
	}
	for (int i = 0; i < nmeta; i++)
		st_writer_meta(w, keys[i], vals[i]);
	if (ns)
		st_writer_meta(w, "attnscope.snapshots", steps);
	rc = st_writer_write(w, path, e);
out:
	st_writer_free(w);
	free(names);
	free(steps);
	return rc;
}

int ckpt_load_snap(const struct model *m, const char *path, long step,
		   unsigned char *out, char *fig, size_t figlen, struct err *e)
{
	struct st_file f;
	char name[192];
	size_t off = 0;
	int rc = -1;
	if (st_open(&f, path, e))
		return -1;
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		snapshot_name(name, sizeof name, step, t->name);
		const struct st_tensor *s = st_find(&f, name);
		if (!s) {
			err_set(e, "%s: no snapshot of step %ld (missing tensor %s); --snapshots "
				"with --resume needs the plan of the run resumed", path, step, name);
			goto out;
		}
		if (s->dtype != ST_F16 || s->numel != numel(t)) {
			err_set(e, "%s: tensor %s is not F16 of the model's shape", path, name);
			goto out;
		}
		memcpy(out + 2 * off, s->bytes, 2 * numel(t));
		off += numel(t);
	}
	snprintf(name, sizeof name, "attnscope.snapshot.%ld", step);
	const char *v = st_meta(&f, name);
	snprintf(fig, figlen, "%s", v ? v : "");
	rc = 0;
out:
	st_close(&f);
	return rc;
}

/* Converts f's tensor `name`, which must have t's shape, into out. */
static int read_f32(const struct st_file *f, const char *path, const char *name,
		    const struct wtensor *t, float *out, struct err *e)
{
	const struct st_tensor *s = st_find(f, name);
	if (!s)
		return err_set(e, "%s: missing tensor %s", path, name);
	int same = s->ndim == t->ndim && s->shape[0] == (uint64_t)t->shape[0] &&
		   (t->ndim == 1 || s->shape[1] == (uint64_t)t->shape[1]);
	if (!same)
		return err_set(e, "%s: tensor %s has another shape than the model's", path, name);
	if (st_to_f32(s, out, e))
		return err_prefix(e, "%s", path);
	return 0;
}

static long meta_long(const struct st_file *f, const char *key)
{
	const char *v = st_meta(f, key);
	char *end;
	if (!v)
		return -1;
	long x = strtol(v, &end, 10);
	return end != v && !*end ? x : -1;
}

int ckpt_load_weights(struct model *m, const char *path, long *step,
		      struct err *e)
{
	struct st_file f;
	if (st_open(&f, path, e))
		return -1;
	int rc = -1, nw = 0;
	long sstep;
	const char *rest;
	for (int i = 0; i < f.n; i++)   /* the snapshots are not the weights */
		nw += !snapshot_split(f.t[i].name, &sstep, &rest);
	if (nw != m->ntensors) {
		/* name the stray tensor, if there is one */
		for (int i = 0; i < f.n; i++)
			if (!snapshot_split(f.t[i].name, &sstep, &rest) &&
			    !model_tensor(m, f.t[i].name)) {
				err_set(e, "%s: unexpected tensor \"%.80s\" (not part of this "
					"model's configuration)", path, f.t[i].name);
				goto out;
			}
	}
	for (int i = 0; i < m->ntensors; i++) {
		struct wtensor *t = &m->tensors[i];
		if (t->mapped) {
			err_set(e, "%s: the model's tensors are read-only", m->path);
			goto out;
		}
		if (read_f32(&f, path, t->name, t, t->data, e))
			goto out;
	}
	if (step)
		*step = meta_long(&f, "attnscope.step");
	rc = 0;
out:
	st_close(&f);
	return rc;
}

int ckpt_save_state(const struct model *m, const char *path, const float *m1,
		    const float *m2, const struct ckpt_state *s,
		    const struct ckpt_avg *avg, struct err *e)
{
	struct st_writer *w = st_writer_new();
	char (*names)[160] = calloc((size_t)m->ntensors * 4 + 1, sizeof *names);
	if (!w || !names) {
		st_writer_free(w);
		free(names);
		return err_set(e, "out of memory");
	}
	size_t off = 0;
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		uint64_t shape[2];
		tshape(t, shape);
		snprintf(names[2 * i], sizeof names[0], "adam.m.%s", t->name);
		snprintf(names[2 * i + 1], sizeof names[0], "adam.v.%s", t->name);
		st_writer_add(w, names[2 * i], ST_F32, t->ndim, shape, m1 + off);
		st_writer_add(w, names[2 * i + 1], ST_F32, t->ndim, shape, m2 + off);
		if (avg) {
			char (*an)[160] = names + 2 * m->ntensors;
			snprintf(an[2 * i], sizeof an[0], "avg.sum.%s", t->name);
			st_writer_add(w, an[2 * i], ST_F32, t->ndim, shape, avg->sum + off);
			snprintf(an[2 * i + 1], sizeof an[0], "raw.%s", t->name);
			if (avg->raw)
				st_writer_add(w, an[2 * i + 1], ST_F32, t->ndim, shape,
					      avg->raw + off);
		}
		off += numel(t);
	}
	char buf[5][64];
	snprintf(buf[0], sizeof buf[0], "%ld", s->step);
	snprintf(buf[1], sizeof buf[1], "%d", s->epoch);
	snprintf(buf[2], sizeof buf[2], "%d", s->batch);
	snprintf(buf[3], sizeof buf[3], "%" PRIu64, s->seed);
	st_writer_meta(w, "attnscope.step", buf[0]);
	st_writer_meta(w, "attnscope.epoch", buf[1]);
	st_writer_meta(w, "attnscope.batch", buf[2]);
	st_writer_meta(w, "attnscope.seed", buf[3]);
	if (avg) {
		snprintf(buf[4], sizeof buf[4], "%d %d %ld %d", avg->k, avg->every, avg->last,
			 avg->count);
		st_writer_meta(w, "attnscope.average", buf[4]);
	}
	int rc = st_writer_write(w, path, e);
	st_writer_free(w);
	free(names);
	return rc;
}

int ckpt_load_state(const struct model *m, const char *path, float *m1,
		    float *m2, struct ckpt_state *s, struct err *e)
{
	struct st_file f;
	if (st_open(&f, path, e))
		return -1;
	int rc = -1;
	size_t off = 0;
	char name[160];
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		snprintf(name, sizeof name, "adam.m.%s", t->name);
		if (read_f32(&f, path, name, t, m1 + off, e))
			goto out;
		snprintf(name, sizeof name, "adam.v.%s", t->name);
		if (read_f32(&f, path, name, t, m2 + off, e))
			goto out;
		off += numel(t);
	}
	s->step = meta_long(&f, "attnscope.step");
	long ep = meta_long(&f, "attnscope.epoch"), b = meta_long(&f, "attnscope.batch");
	const char *sd = st_meta(&f, "attnscope.seed");
	s->seed = sd ? strtoull(sd, NULL, 10) : 0;
	if (s->step < 0 || ep < 0 || b < 0 || ep > INT_MAX || b > INT_MAX) {
		err_set(e, "%s: missing or bad attnscope.step/epoch/batch metadata", path);
		goto out;
	}
	/* every epoch but the first begins with a step: a crafted epoch past
	   the step count (2147483647 overflowed the next epoch's number) is
	   not a state training reached; the batch is checked against the
	   epoch's batches by the caller */
	if (ep > s->step) {
		err_set(e, "%s: attnscope.epoch %ld is past attnscope.step %ld (each epoch "
			"takes a step at least)", path, ep, s->step);
		goto out;
	}
	s->epoch = (int)ep;
	s->batch = (int)b;
	rc = 0;
out:
	st_close(&f);
	return rc;
}

int ckpt_load_avg(const struct model *m, const char *path, struct ckpt_avg *a,
		  struct err *e)
{
	struct st_file f;
	if (st_open(&f, path, e))
		return -1;
	int rc = -1;
	const char *v = st_meta(&f, "attnscope.average");
	if (!v) {
		rc = 1;
		goto out;
	}
	int k, every, count, used = 0;
	long last;
	if (sscanf(v, "%d %d %ld %d%n", &k, &every, &last, &count, &used) != 4 || v[used] ||
	    k < 2 || every < 1 || last < 1 || count < 0 || count > k ||
	    (long)(k - 1) * every >= last) {
		err_set(e, "%s: bad attnscope.average metadata \"%.40s\" (K EVERY LAST COUNT)",
			path, v);
		goto out;
	}
	a->k = k;
	a->every = every;
	a->last = last;
	a->count = count;
	char name[160];
	size_t off = 0;
	snprintf(name, sizeof name, "raw.%s", m->ntensors ? m->tensors[0].name : "");
	int has_raw = m->ntensors && st_find(&f, name);
	for (int i = 0; i < m->ntensors; i++) {
		const struct wtensor *t = &m->tensors[i];
		snprintf(name, sizeof name, "avg.sum.%s", t->name);
		if (read_f32(&f, path, name, t, a->sum + off, e))
			goto out;
		snprintf(name, sizeof name, "raw.%s", t->name);
		if (has_raw && read_f32(&f, path, name, t, a->raw + off, e))
			goto out;
		off += numel(t);
	}
	if (!has_raw)
		a->raw = NULL;
	rc = 0;
out:
	st_close(&f);
	return rc;
}
