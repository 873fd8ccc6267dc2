/* snapshot.c - training snapshots: their tensor names, the YAML list, and
 * the weights of one step picked out of a file (snapshot.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_keys.h"
#include "snapshot.h"

static const char PREFIX[] = "snapshot.";
static const char *const SNAP_KEYS[] = { "step", "loss", "heldout_loss",
					  "heldout_exact_match", NULL };

const char *snapshot_name(char *buf, size_t n, long step, const char *name)
{
	snprintf(buf, n, "%s%ld.%s", PREFIX, step, name);
	return buf;
}

int snapshot_split(const char *name, long *step, const char **rest)
{
	const size_t k = sizeof PREFIX - 1;
	if (strncmp(name, PREFIX, k) != 0)
		return 0;
	const char *p = name + k;
	long s = 0;
	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (s > (LONG_MAX - 9) / 10)
			return 0;
		s = s * 10 + (*p - '0');
	}
	if (*p != '.' || !p[1])
		return 0;
	*step = s;
	*rest = p + 1;
	return 1;
}

static int get_float(const struct ydoc *d, const struct ynode *map, const char *key,
		     double *out, struct err *e)
{
	const struct ynode *v = ynode_get(map, key);
	*out = NAN;
	if (!v)
		return 0;
	if (ynode_float(d, v, out, e))
		return ynode_keyed(d, v, key, e);
	if (!isfinite(*out) || *out < 0)
		return err_set(e, "%s:%d: snapshots: %s must be a number from 0 up", d->file,
			       v->line, key);
	return 0;
}

int snapshot_parse(const struct ydoc *d, const struct ynode *n,
		   struct snapshot **out, int *nout, struct err *e)
{
	*out = NULL;
	*nout = 0;
	if (n->kind != Y_SEQ)
		return err_set(e, "%s:%d: snapshots must be a list of {step: N, loss: X, ...}",
			       d->file, n->line);
	struct snapshot *s = calloc(n->n ? n->n : 1, sizeof *s);
	if (!s)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *it = n->items[i];
		int step = -1;
		if (mkey_check(d, it, SNAP_KEYS, "snapshots", e))
			goto bad;
		if (!ynode_get(it, "step")) {
			err_set(e, "%s:%d: a snapshot needs step: N", d->file, it->line);
			goto bad;
		}
		if (mkey_int(d, it, "step", 0, INT_MAX, &step, e) ||
		    get_float(d, it, "loss", &s[i].loss, e) ||
		    get_float(d, it, "heldout_loss", &s[i].heldout_loss, e) ||
		    get_float(d, it, "heldout_exact_match", &s[i].heldout_exact, e))
			goto bad;
		s[i].step = step;
		if (i && step <= s[i - 1].step) {
			err_set(e, "%s:%d: snapshot steps must increase (step %d after %ld)",
				d->file, it->line, step, s[i - 1].step);
			goto bad;
		}
	}
	*out = s;
	*nout = (int)n->n;
	return 0;
bad:
	free(s);
	return -1;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* "0, 3, 10, …" into buf: the distinct steps of t[]'s snapshots. */
static void list_steps(const struct st_tensor *t, int n, char *buf, size_t len)
{
	long *st = malloc((n > 0 ? (size_t)n : 1) * sizeof *st);
	int k = 0;
	const char *rest;
	buf[0] = 0;
	if (!st)
		return;
	for (int i = 0; i < n; i++)
		if (snapshot_split(t[i].name, &st[k], &rest))
			k++;
	qsort(st, (size_t)k, sizeof *st, cmp_long);
	for (int i = 0, shown = 0; i < k; i++) {
		if (i && st[i] == st[i - 1])
			continue;
		size_t l = strlen(buf);
		if (l + 32 >= len || shown == 24) {
			snprintf(buf + l, len - l, ", …");
			break;
		}
		snprintf(buf + l, len - l, "%s%ld", shown++ ? ", " : "", st[i]);
	}
	free(st);
}

int snapshot_select(const struct st_tensor *t, int n, long step, const char *path,
		    struct st_tensor **out, int *nout, struct err *e)
{
	struct st_tensor *o = malloc((n > 0 ? (size_t)n : 1) * sizeof *o);
	int k = 0;
	if (!o)
		return err_set(e, "out of memory");
	for (int i = 0; i < n; i++) {
		long s;
		const char *rest;
		int is_snap = snapshot_split(t[i].name, &s, &rest);
		if (step < 0 ? is_snap : !is_snap || s != step)
			continue;
		o[k] = t[i];
		if (is_snap)
			o[k].name = (char *)(uintptr_t)rest;
		k++;
	}
	if (step >= 0 && !k) {
		char steps[400];
		list_steps(t, n, steps, sizeof steps);
		free(o);
		if (!*steps)
			return err_set(e, "%s: no training snapshots in this file (train with "
				       "--snapshots N to keep some)", path);
		return err_set(e, "%s: no training snapshot at step %ld (the snapshots are "
			       "steps %s)", path, step, steps);
	}
	*out = o;
	*nout = k;
	return 0;
}
