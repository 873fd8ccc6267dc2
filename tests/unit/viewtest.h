/* viewtest.h - headless view rendering for snapshot tests.
 *
 * vt_render draws the view for a state into a canvas of a fixed size and
 * returns it as plain text; vt_snapshot compares text with
 * tests/snapshots/NAME.txt and, when ATTNSCOPE_UPDATE_SNAPSHOTS=1 is set,
 * writes the file instead (review the diff before committing it). */
#ifndef ATTNSCOPE_VIEWTEST_H
#define ATTNSCOPE_VIEWTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "views/canvas.h"
#include "engine/forward.h"
#include "engine/input.h"
#include "engine/model.h"
#include "views/view.h"

static inline const char *vt_srcdir(void)
{
	const char *d = getenv("top_srcdir");
	return d && *d ? d : ".";
}

static inline struct model *vt_model(const char *rel)
{
	char path[4096];
	struct err e;
	snprintf(path, sizeof path, "%s/%s", vt_srcdir(), rel);
	struct model *m = model_load(path, &e);
	if (!m)
		printf("# cannot load %s: %s\n", path, e.msg);
	return m;
}

static inline struct trace *vt_pass(const struct model *m, const char *sentence,
				    const char *target,
				    const struct pass_opts *o)
{
	struct pass_input in;
	struct err e;
	struct pass_opts def;
	if (!o) {
		pass_opts_default(&def);
		o = &def;
	}
	if (input_build(m, sentence, target, o, &in, &e)) {
		printf("# input: %s\n", e.msg);
		return NULL;
	}
	struct trace *t = forward_run(m, &in, o, NULL, &e);
	if (!t)
		printf("# forward: %s\n", e.msg);
	input_free(&in);
	return t;
}

/* A view state on the named stage (NULL if absent). */
static inline int vt_state(struct view_state *v, const struct trace *t,
			   const struct model *m, const char *stage)
{
	memset(v, 0, sizeof *v);
	v->tr = t;
	v->m = m;
	v->stage = trace_index(t, stage);
	if (v->stage < 0) {
		printf("# no stage %s\n", stage);
		return -1;
	}
	return 0;
}

/* Renders with the view chosen by view_for; caller frees. */
static inline char *vt_render(struct view_state *v, int w, int h, enum depth d)
{
	struct canvas *c = canvas_new(w, h, d);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct rect r = { 0, 0, w, h };
	view_clamp(v);
	view_for(v)->draw(v, c, r);
	canvas_write_text(c, fp);
	fclose(fp);
	canvas_free(c);
	return buf;
}

/* Draws the view into a w×h rect inside a larger canvas pre-filled with
 * '#' (3 cells of margin) at depth d, and returns how many cells outside
 * the rect changed (−1 when out of memory).  The view leaves its geometry
 * in v->geom, relative to the rect at (3, 3). */
static inline int vt_outside(struct view_state *v, int w, int h, enum depth d)
{
	const int pad = 3;
	struct canvas *c = canvas_new(w + 2 * pad, h + 2 * pad, d);
	if (!c)
		return -1;
	struct rect all = { 0, 0, c->w, c->h }, r = { pad, pad, w, h };
	canvas_fill(c, all, "#", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	view_clamp(v);
	view_for(v)->draw(v, c, r);
	int out = 0;
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			int in = x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
			if (!in && strcmp(c->cells[(size_t)y * c->w + x].glyph, "#"))
				out++;
		}
	canvas_free(c);
	return out;
}

static inline int vt_snapshot(const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/snapshots/%s.txt", vt_srcdir(), name);
	const char *upd = getenv("ATTNSCOPE_UPDATE_SNAPSHOTS");
	if (upd && strcmp(upd, "1") == 0) {
		FILE *fp = fopen(path, "w");
		int ok = fp && fputs(text, fp) >= 0;
		if (fp)
			fclose(fp);
		return tap_ok(ok, "snapshot %s written", name);
	}
	FILE *fp = fopen(path, "r");
	if (!fp)
		return tap_ok(0, "snapshot %s: cannot read %s", name, path);
	char *want = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&want, &cap, '\0', fp);
	fclose(fp);
	int ok = n >= 0 && strcmp(want, text) == 0;
	tap_ok(ok, "snapshot %s", name);
	if (!ok) {
		/* the first differing line */
		const char *a = text, *b = n >= 0 ? want : "";
		int line = 1;
		while (*a && *a == *b) {
			if (*a == '\n')
				line++;
			a++;
			b++;
		}
		printf("# first difference at line %d\n# got:\n", line);
		for (const char *p = text; *p; ) {
			const char *e = strchr(p, '\n');
			int l = e ? (int)(e - p) : (int)strlen(p);
			printf("#   |%.*s\n", l, p);
			p += l + (e ? 1 : 0);
		}
	}
	free(want);
	return ok;
}

#endif
