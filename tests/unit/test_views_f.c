/* test_views_f.c - lecture-grade screens (issue 13), the review's items,
 * headless: the heads grid and model view in ASCII (no half blocks), the
 * "rows a–b of N · columns a–b of N" note on every view that cuts, the
 * colour scale named by its quantity, the positional-encoding strips
 * without overlaps, and a cursor that no scale colour can be taken for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "views/draw.h"
#include "views/palette.h"
#include "views/screen.h"

static struct canvas *draw_at(struct view_state *v, int w, int h, enum depth d)
{
	struct canvas *c = canvas_new(w, h, d);
	view_clamp(v);
	view_for(v)->draw(v, c, (struct rect){ 0, 0, w, h });
	return c;
}

static char *text_of(const struct canvas *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	canvas_write_text(c, fp);
	fclose(fp);
	return buf;
}

/* Cells of c whose glyph is g. */
static int count_glyph(const struct canvas *c, const char *g)
{
	int n = 0;
	for (int i = 0; i < c->w * c->h; i++)
		n += !strcmp(c->cells[i].glyph, g);
	return n;
}

/* Whether every cell of c holds ASCII. */
static int all_ascii(const struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++)
		for (const char *g = c->cells[i].glyph; *g; g++)
			if ((unsigned char)*g >= 0x80)
				return 0;
	return 1;
}

/* --- item 9: the heads grid's tiles and the model view in ASCII --- */
static void ascii_tiles(const struct model *m, const struct trace *t)
{
	static const struct { int flags, w, h; const char *what; } V[] = {
		{ VF_ALL_HEADS, 80, 24, "heads grid" }, { VF_MODEL, 120, 40, "model view" },
	};
	for (size_t k = 0; k < 2; k++) {
		struct view_state v;
		vt_state(&v, t, m, "encoder.0.self_attn.weights");   /* [4, 20, 20] */
		v.flags = V[k].flags;
		canvas_set_ascii(0);
		struct canvas *c = draw_at(&v, V[k].w, V[k].h, DEPTH_256);
		int utf_half = count_glyph(c, "▀");
		canvas_free(c);
		canvas_set_ascii(1);
		vt_state(&v, t, m, "encoder.0.self_attn.weights");
		v.flags = V[k].flags;
		c = draw_at(&v, V[k].w, V[k].h, DEPTH_256);
		int quotes = count_glyph(c, "\""), asc = all_ascii(c);
		if (quotes || !asc) {
			char *txt = text_of(c);
			printf("%s", txt);
			free(txt);
		}
		tap_ok(utf_half > 0 && quotes == 0 && asc && (k || v.geom.rh == 1),
		       "%s at %dx%d in ASCII: one row a line (UTF-8 has %d half blocks; ASCII %d "
		       "\"-for-half-block cells, rows a line %d)", V[k].what, V[k].w, V[k].h, utf_half, quotes,
		       v.geom.rh);
		canvas_free(c);
		canvas_set_ascii(0);
	}
}

int main(void)
{
	struct model *m = vt_model("tests/data/tiny.yaml");
	if (!m)
		return 1;
	/* 20 source tokens: tiles too small for one row a line at 80x24 */
	struct trace *t = vt_pass(m, "your cat is a lovely cat your cat is a lovely cat "
				  "your cat is a lovely cat", NULL, NULL);
	if (!t)
		return 1;
	ascii_tiles(m, t);
	trace_free(t);
	model_free(m);
	return tap_done();
}
