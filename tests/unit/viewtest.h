/* viewtest.h - headless view rendering for snapshot tests.
 *
 * vt_render draws the view for a state into a canvas of a fixed size and
 * returns it as plain text; vt_snapshot compares text with
 * tests/snapshots/NAME.txt and, when ATTNSCOPE_UPDATE_SNAPSHOTS=1 is set,
 * writes the file instead (review the diff before committing it).  The
 * comparison is exact except for legend cells that sit exactly on a shade
 * boundary (vt_line_ok). */
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

/* Draws the view chosen by view_for into a new w×h canvas; caller frees. */
static inline struct canvas *vt_draw(struct view_state *v, int w, int h, enum depth d)
{
	struct canvas *c = canvas_new(w, h, d);
	view_clamp(v);
	view_for(v)->draw(v, c, (struct rect){ 0, 0, w, h });
	return c;
}

/* A canvas as text, one line a row; caller frees. */
static inline char *vt_text(const struct canvas *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	canvas_write_text(c, fp);
	fclose(fp);
	return buf;
}

/* Renders with the view chosen by view_for; caller frees. */
static inline char *vt_render(struct view_state *v, int w, int h, enum depth d)
{
	struct canvas *c = vt_draw(v, w, h, d);
	char *buf = vt_text(c);
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

/* ---- the one tolerance of the snapshot comparison (issue 19) ----
 *
 * A diverging legend "-M <bar> +M" samples the scale at the cell centres
 * v_i = M·(2i+1−n)/n of its n cells and shades each with level
 * lround(4|v_i|/M).  For some cells (n = 24: 4 of them) 4|v_i|/M is
 * exactly a half-integer, so the glyph is decided by the last bit of M,
 * i.e. by the BLAS kernel's rounding of the scores; both neighbours are a
 * correct drawing.  vt_line_ok accepts a line that differs from the
 * snapshot only in such tie cells, each showing one of the two levels
 * either side of its tie on the ramp of its sign.  Every other cell, and
 * every other line, must match exactly. */

/* The cells of a UTF-8 line (one code point each), up to max. */
static inline int vt_cells(const char *s, size_t len, const char **cell, int max)
{
	int n = 0;
	for (size_t i = 0; i < len && n < max; n++) {
		cell[n] = s + i;
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
	}
	return n;
}

static inline int vt_cell_is(const char *c, const char *glyph)
{
	return strncmp(c, glyph, strlen(glyph)) == 0;
}

/* The shade level 0…4 of cell c on the ramp of sign neg, or −1. */
static inline int vt_level(const char *c, int neg)
{
	static const char *const pos[] = { " ", "░", "▒", "▓", "█" };
	static const char *const ng[] = { " ", ".", ":", "=", "#" };
	for (int k = 4; k >= 0; k--)
		if (vt_cell_is(c, neg ? ng[k] : pos[k]))
			return k;
	return -1;
}

static inline int vt_line_ok(const char *got, size_t glen, const char *want,
			     size_t wlen)
{
	const char *g[512], *w[512];
	int ng = vt_cells(got, glen, g, 512), nw = vt_cells(want, wlen, w, 512);
	if (ng != nw || ng == 0)
		return 0;
	/* the diverging legend: "-<digits> " then the bar, " +<digit>" */
	if (!vt_cell_is(w[0], "-"))
		return 0;
	int b0 = 0, b1 = -1;
	while (b0 < nw && !vt_cell_is(w[b0], " "))
		b0++;
	b0++;
	for (int i = b0; i + 2 < nw; i++)
		if (vt_cell_is(w[i], " ") && vt_cell_is(w[i + 1], "+") &&
		    strchr("0123456789", *w[i + 2])) {
			b1 = i;
			break;
		}
	const int n = b1 - b0;
	if (b1 < 0 || n < 4)
		return 0;
	for (int i = 0; i < nw; i++) {
		size_t gl = (size_t)((i + 1 < ng ? g[i + 1] : got + glen) - g[i]);
		size_t wl = (size_t)((i + 1 < nw ? w[i + 1] : want + wlen) - w[i]);
		if (gl == wl && memcmp(g[i], w[i], gl) == 0)
			continue;
		if (i < b0 || i >= b1)
			return 0;
		int c = 2 * (i - b0) + 1 - n, a = c < 0 ? -c : c;
		if (8 * a % (2 * n) != n)   /* 4a/n is not a half-integer */
			return 0;
		int lo = 8 * a / (2 * n);   /* the tie between lo and lo + 1 */
		int lg = vt_level(g[i], c < 0), lw = vt_level(w[i], c < 0);
		if (lg < 0 || lw < 0 || (lg != lo && lg != lo + 1) ||
		    (lw != lo && lw != lo + 1))
			return 0;
	}
	return 1;
}

/* text equals want but for legend tie cells (vt_line_ok) */
static inline int vt_text_ok(const char *text, const char *want)
{
	while (*text || *want) {
		const char *te = strchr(text, '\n'), *we = strchr(want, '\n');
		size_t tl = te ? (size_t)(te - text) : strlen(text);
		size_t wl = we ? (size_t)(we - want) : strlen(want);
		if ((tl != wl || memcmp(text, want, tl)) && !vt_line_ok(text, tl, want, wl))
			return 0;
		if (!te != !we)
			return 0;
		text += tl + (te ? 1 : 0);
		want += wl + (we ? 1 : 0);
	}
	return 1;
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
	int exact = n >= 0 && strcmp(want, text) == 0;
	int ok = exact || (n >= 0 && vt_text_ok(text, want));
	tap_ok(ok, "snapshot %s", name);
	if (ok && !exact)
		printf("# %s: legend cells on a shade tie differ (either is right)\n", name);
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
