/* shards.c - safetensors shards and their index (shards.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "shards.h"
#include "ydoc.h"
#include "base/path.h"

#define SHARDS_MAX 4096

int shards_is_index(const char *path)
{
	size_t n = strlen(path), k = strlen(".index.json");
	return n > k && strcmp(path + n - k, ".index.json") == 0;
}

/* The distinct shard names of weight_map wm, in order of appearance. */
static int shard_names(const struct ydoc *d, const struct ynode *wm, const char ***out,
		       int *n, struct err *e)
{
	const char **names = calloc(wm->n + 1, sizeof *names);
	int k = 0;
	if (!names)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < wm->n; i++) {
		const struct ynode *v = wm->items[2 * i + 1];
		const char *s = v->kind == Y_SCALAR ? v->str : NULL;
		if (!s || !*s || strchr(s, '/') || strcmp(s, "..") == 0) {
			free(names);
			return err_set(e, "%s:%d: weight_map: \"%.80s\" must name a shard file "
				       "beside the index", d->file, v->line,
				       wm->items[2 * i]->str);
		}
		int j = 0;
		while (j < k && strcmp(names[j], s) != 0)
			j++;
		if (j == k)
			names[k++] = s;
	}
	if (k > SHARDS_MAX) {
		free(names);
		return err_set(e, "%s: %d shards (at most %d)", d->file, k, SHARDS_MAX);
	}
	*out = names;
	*n = k;
	return 0;
}

/* Appends shard s's tensors to f (their names and copies move to f), after
 * checking each against the index. */
static int take(struct st_file *f, struct st_file *s, const struct ynode *wm,
		const char *shard, const char *index, struct err *e)
{
	struct st_tensor *t = realloc(f->t, (size_t)(f->n + s->n + 1) * sizeof *t);
	if (!t)
		return err_set(e, "out of memory");
	f->t = t;
	for (int i = 0; i < s->n; i++) {
		const struct ynode *v = ynode_get(wm, s->t[i].name);
		if (v && strcmp(v->str, shard) != 0)
			return err_set(e, "%s: tensor %s is in %s, and the index names %s", index,
				       s->t[i].name, shard, v->str);
		for (int j = 0; j < f->n; j++)
			if (strcmp(f->t[j].name, s->t[i].name) == 0)
				return err_set(e, "%s: tensor %s is in two shards (%s and another)",
					       index, s->t[i].name, shard);
		f->t[f->n++] = s->t[i];
		s->t[i].name = NULL;
		s->t[i].owned = NULL;
	}
	void **xm = realloc(f->xmaps, (size_t)(f->nxmaps + 1) * sizeof *xm);
	if (xm)
		f->xmaps = xm;
	size_t *xl = xm ? realloc(f->xmaplens, (size_t)(f->nxmaps + 1) * sizeof *xl) : NULL;
	if (!xl)
		return err_set(e, "out of memory");
	f->xmaplens = xl;
	f->xmaps[f->nxmaps] = s->map;
	f->xmaplens[f->nxmaps++] = s->maplen;
	s->map = NULL;
	return 0;
}

/* Every tensor of the index is in the shards. */
static int all_found(const struct st_file *f, const struct ynode *wm, const char *index,
		     struct err *e)
{
	for (size_t i = 0; i < wm->n; i++) {
		const char *name = wm->items[2 * i]->str;
		if (!st_find(f, name))
			return err_set(e, "%s: tensor %s is not in its shard %s", index, name,
				       wm->items[2 * i + 1]->str);
	}
	return 0;
}

int shards_open(struct st_file *f, const char *index, struct err *e)
{
	struct ydoc d;
	const char **names = NULL;
	int n = 0, rc = -1;
	memset(f, 0, sizeof *f);
	if (!(f->path = strdup(index)))
		return err_set(e, "out of memory");
	if (json_load(&d, index, e))
		return -1;
	const struct ynode *wm = d.root && d.root->kind == Y_MAP ?
				 ynode_get(d.root, "weight_map") : NULL;
	if (!wm || wm->kind != Y_MAP || !wm->n) {
		err_set(e, "%s: no \"weight_map\" object naming the shards", index);
		goto out;
	}
	if (shard_names(&d, wm, &names, &n, e))
		goto out;
	for (int i = 0; i < n; i++) {
		struct st_file s;
		char *p = path_beside(index, names[i]);
		if (!p) {
			err_set(e, "out of memory");
			goto out;
		}
		int bad = st_open(&s, p, e);
		if (bad && access(p, F_OK) != 0)
			err_set(e, "%s: the shard %s it names is missing", index, names[i]);
		free(p);
		if (bad)
			goto out;
		bad = take(f, &s, wm, names[i], index, e);
		st_close(&s);
		if (bad)
			goto out;
	}
	rc = all_found(f, wm, index, e);
out:
	free(names);
	ydoc_free(&d);
	if (rc)
		st_close(f);
	return rc;
}
