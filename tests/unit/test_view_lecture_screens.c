/* test_view_lecture_screens.c - lecture-grade screens (issue 13), headless: one line per
 * token when the height allows and both labels when two rows share a line;
 * numbered columns with a legend instead of letters stacked vertically;
 * presenter cells that use the screen and a grid without notches; titles on
 * two lines rather than cut; "rows … · columns …" and head boundaries in
 * concat. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "views/draw.h"
#include "views/losscurve.h"
#include "views/palette.h"
#include "views/screen.h"

/* Whether every cell of c holds ASCII (or a wide glyph's continuation). */
static int all_ascii(const struct canvas *c, char *bad, size_t n)
{
	for (int i = 0; i < c->w * c->h; i++)
		for (const char *g = c->cells[i].glyph; *g; g++)
			if ((unsigned char)*g >= 0x80) {
				snprintf(bad, n, "%s at (%d, %d)", c->cells[i].glyph, i % c->w, i / c->w);
				return 0;
			}
	return 1;
}

/* The line of a rendered text that contains needle (its index), or −1. */
static int line_of(const char *text, const char *needle, char *out, size_t n)
{
	int k = 0;
	for (const char *p = text; *p; k++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[2048];
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		if (strstr(line, needle)) {
			if (out)
				snprintf(out, n, "%s", line);
			return k;
		}
		p += len + (e ? 1 : 0);
	}
	return -1;
}

/* The x of the first cell at line y of c whose glyph starts text s, or −1. */
static int find_cells(const struct canvas *c, int y, const char *s)
{
	for (int x = 0; x < c->w; x++) {
		int ok = 1, xx = x;
		for (const char *p = s; *p && ok; xx++) {
			int len = 1;
			unsigned char b = (unsigned char)*p;
			if (b >= 0xF0) len = 4; else if (b >= 0xE0) len = 3; else if (b >= 0xC0) len = 2;
			ok = xx < c->w && !strncmp(c->cells[(size_t)y * c->w + xx].glyph, p, (size_t)len) &&
			     c->cells[(size_t)y * c->w + xx].glyph[len] == 0;
			p += len;
		}
		if (ok)
			return x;
	}
	return -1;
}

/* The loss curve marks the snapshot on screen by the shape of its cell
 * (the whole left dot column), not by colour alone: decoded by hand from
 * the braille bits (U+2800 + dots; left column 0x01 0x02 0x04 0x40). */
static void test_losscurve_mark(void)
{
	struct snapshot s[4];
	memset(s, 0, sizeof s);
	const double loss[4] = { 6.0, 3.0, 1.0, 1.0 };
	for (int i = 0; i < 4; i++)
		s[i].loss = loss[i];
	char plain[64], marked[64];
	int at[5], n0 = losscurve_text(s, 4, -1, plain, sizeof plain, NULL);
	int n1 = losscurve_text(s, 4, 2, marked, sizeof marked, at);
	/* rows 0-3 from 6.0 down to 1.0: 6 is row 0 (left 0x01), halfway to
	   3 (4.5) row 1 (right 0x10); 3 row 2 (0x04), 2.0 row 2 (0x20); 1 and
	   1 row 3 (0x40 | 0x80); the last point has no right dot */
	tap_ok(n0 == 4 && !strcmp(plain, "\u2811\u2824\u28c0\u2840"),
	       "loss curve 6, 3, 1, 1 without a mark: %s", plain);
	tap_ok(n1 == 4 && !strncmp(marked + at[2], "\u28c7", 3) &&
	       !strncmp(marked, plain, (size_t)at[2]) && !strcmp(marked + at[3], plain + at[3]),
	       "the snapshot on screen is a bar (U+28C7), the others as without a mark: %s",
	       marked);
}

int main(void)
{
	struct model *m = vt_model("tests/data/tiny.yaml");
	if (!m)
		return 1;
	struct trace *t = vt_pass(m, "your cat is a lovely cat", NULL, NULL);
	if (!t)
		return 1;
	static const char *const SRC[] = { "<s>", "your", "cat", "is", "a", "lovely", "cat", "</s>" };
	struct view_state v;

	/* --- 3. one line per token when the height allows --- */
	vt_state(&v, t, m, "encoder.0.ffn.hidden");   /* [8, 32]: too wide for cells */
	struct canvas *c = vt_draw(&v, 60, 38, DEPTH_256);
	char *txt = vt_text(c), line[2048];
	int first = line_of(txt, " <s> ", NULL, 0), all = first >= 0;
	for (int i = 0; i < 8 && all; i++) {
		char want[32];
		snprintf(want, sizeof want, "%*s", 6, SRC[i]);
		/* line first + i starts with the label */
		const char *p = txt;
		for (int k = 0; k < first + i && p; k++)
			p = strchr(p, '\n'), p = p ? p + 1 : NULL;
		all = p && !strncmp(p, want, strlen(want));
		if (!all)
			printf("# line %d does not start with \"%s\"\n%s", first + i, want, txt);
	}
	tap_ok(all && v.geom.valid && v.geom.rh == 1,
	       "ffn.hidden [8, 32] at 60x38: one line per token, all 8 labels (rows a line: %d)",
	       v.geom.rh);
	free(txt);
	canvas_free(c);

	/* two rows a line only when the height does not allow one each: then
	 * both labels, and the highlighted one is the cursor's row */
	vt_state(&v, t, m, "encoder.0.ffn.hidden");
	v.row = 3;   /* "is", the lower half of the second line */
	c = vt_draw(&v, 60, 9, DEPTH_256);
	txt = vt_text(c);
	int ok = v.geom.valid && v.geom.rh == 2;
	for (int i = 0; i < 6 && ok; i++) {
		char want[32];
		snprintf(want, sizeof want, i % 2 ? "▄ %s" : "%s ▀", SRC[i]);
		ok = line_of(txt, want, NULL, 0) >= 0;
		if (!ok)
			printf("# no label \"%s\"\n%s", want, txt);
	}
	tap_ok(ok, "ffn.hidden at 60x9: half blocks, both rows of each line labelled (▀ left, ▄ right)");
	struct style cur = role_style(R_CURSOR, DEPTH_256), lab = role_style(R_LABEL, DEPTH_256);
	int y = line_of(txt, "▄ is", NULL, 0);
	int xi = y >= 0 ? find_cells(c, y, "is") : -1, xc = y >= 0 ? find_cells(c, y, "cat") : -1;
	const struct cell *ci = xi >= 0 ? &c->cells[(size_t)y * c->w + xi] : NULL;
	const struct cell *cc = xc >= 0 ? &c->cells[(size_t)y * c->w + xc] : NULL;
	tap_ok(ci && cc && ci->bg == cur.bg && ci->fg == cur.fg && cc->fg == lab.fg && cc->bg != cur.bg,
	       "cursor on row 3 (is): its label is highlighted, not the line's other row (cat)");
	free(txt);
	canvas_free(c);

	/* --- 4. numbered columns and a legend, no vertical letters --- */
	vt_state(&v, t, m, "encoder.0.self_attn.weights");
	c = vt_draw(&v, 50, 22, DEPTH_256);
	txt = vt_text(c);
	int hy = line_of(txt, " 0  1  2  3  4  5  6  7", line, sizeof line);
	int ly = line_of(txt, "0 <s>  1 your  2 cat", NULL, 0);
	int stack = line_of(txt, "<  y  c", NULL, 0);
	tap_ok(hy >= 0 && ly > hy && stack < 0,
	       "attention at 50 columns: columns numbered 0-7 with a legend '0 <s>  1 your …', no letter stacks");
	ok = 1;
	for (int i = 0; i < 8 && ok; i++) {
		char want[32];
		snprintf(want, sizeof want, "%d %s", i, SRC[i]);
		ok = strstr(txt, want) != NULL;
	}
	tap_ok(ok, "the legend names every column with its whole token");
	free(txt);
	canvas_free(c);

	/* --- 5. titles on more lines rather than cut --- */
	c = vt_draw(&v, 40, 22, DEPTH_256);
	txt = vt_text(c);
	const struct stage *st = view_stage(&v);
	const float *w0 = view_slice(st, 0);
	char ent[128];
	const char *pat = attn_pattern(w0, 8, 8);
	snprintf(ent, sizeof ent, "entropy %.2f bits%s%s", attn_entropy(w0, 8, 8), *pat ? " · " : "", pat);
	tap_ok(line_of(txt, ent, NULL, 0) >= 0 && line_of(txt, "columns: key: source token", NULL, 0) >= 0,
	       "title at 40 columns: \"%s\" and the axes whole", ent);
	free(txt);
	canvas_free(c);

	/* --- 5. big cells use the screen; every line of a cell coloured alike --- */
	vt_state(&v, t, m, "encoder.0.self_attn.weights");
	v.zoom = ZOOM_BIG;
	c = vt_draw(&v, 198, 51, DEPTH_TRUE);
	const struct grid_geom g = v.geom;
	tap_ok(g.valid && g.cw >= 14 && g.ch >= 5 && g.nr == 8 && g.nc == 8,
	       "presenter at 198x51: 8x8 cells of %dx%d (was 9x3)", g.cw, g.ch);
	int even = g.valid;
	for (int i = 0; i < 8 && even; i++)
		for (int j = 0; j < 8 && even; j++) {
			int x = g.x0 + j * g.cw, y0 = g.y0 + i * g.ch;
			/* the number's line */
			uint32_t bg = c->cells[(size_t)(y0 + (g.ch - 2) / 2) * c->w + x].bg;
			for (int k = 0; k < g.ch - 1 && even; k++)
				for (int dx = 0; dx < g.cw && even; dx++) {
					const struct cell *p = &c->cells[(size_t)(y0 + k) * c->w + x + dx];
					even = dx < g.cw - 1 ? p->bg == bg : p->bg == COLOR_DEFAULT;
					if (!even)
						printf("# cell (%d,%d) line %d col %d: bg %06x, want %06x\n", i, j,
						       k, dx, p->bg, dx < g.cw - 1 ? bg : COLOR_DEFAULT);
				}
		}
	tap_ok(even, "big cells: every line of a cell has its colour, the gap column none (no notches)");
	canvas_free(c);

	/* --- 7. rows a-b / columns a-b, and head boundaries in concat --- */
	vt_state(&v, t, m, "encoder.0.ffn.hidden");   /* [8, 32] */
	v.col = 31;
	c = vt_draw(&v, 30, 20, DEPTH_256);
	txt = vt_text(c);
	tap_ok(line_of(txt, "columns 9–31 of 32", NULL, 0) >= 0,
	       "ffn.hidden at 30 columns, cursor on the last: 'columns 9–31 of 32'");
	free(txt);
	canvas_free(c);
	v.row = 7;
	c = vt_draw(&v, 60, 9, DEPTH_256);
	txt = vt_text(c);
	tap_ok(line_of(txt, "rows 2–7 of 8 · columns 0–31 of 32", NULL, 0) >= 0,
	       "at 60x9, cursor on the last row: 'rows 2–7 of 8 · columns 0–31 of 32'");
	free(txt);
	canvas_free(c);
	vt_state(&v, t, m, "encoder.0.self_attn.concat");   /* [8, 16], dk 4 */
	c = vt_draw(&v, 70, 20, DEPTH_256);
	txt = vt_text(c);
	ok = v.geom.valid;
	for (int h = 1; h < 4 && ok; h++) {
		int x = v.geom.x0 + 4 * h * v.geom.cw;
		for (int i = 0; i < 8 && ok; i++)
			ok = !strcmp(c->cells[(size_t)(v.geom.y0 + i) * c->w + x].glyph, "▏");
	}
	tap_ok(ok && strstr(txt, "h1") && strstr(txt, "h3"),
	       "concat [8, 16] of 4 heads: a line where heads 1-3 start (dims 4, 8, 12), h1 … h3 over them");
	free(txt);
	canvas_free(c);

	/* --- 9. high contrast: zero is never black on the black screen --- */
	palette_set_scheme(SCHEME_HIGH_CONTRAST);
	struct scale seq = { 0, 0, 1, NULL }, div = { 1, -1, 1, NULL };
	struct style bgst = role_style(R_TEXT, DEPTH_TRUE);
	static const enum depth DEPTHS[] = { DEPTH_256, DEPTH_TRUE };
	for (size_t k = 0; k < 2; k++) {
		int f, zs, zd, sb;
		color_pair_at(DEPTHS[k], " ", 0, scale_color(&seq, 0), &f, &zs);
		color_pair_at(DEPTHS[k], " ", 0, scale_color(&div, 0), &f, &zd);
		color_pair_at(DEPTHS[k], " ", 0, bgst.bg, &f, &sb);
		tap_ok(zs != sb && zd != sb, "high contrast at %d colours: 0 of both scales (%d, %d) "
		       "is not the screen's black (%d)", (int)DEPTHS[k], zs, zd, sb);
	}
	/* ReLU's zeros at 8 colours (every dark colour is black there) */
	vt_state(&v, t, m, "encoder.0.ffn.hidden");   /* [8, 32] */
	c = vt_draw(&v, 120, 20, DEPTH_8);
	int seen = v.geom.valid && v.geom.cw == 3, zeros = 0;
	const float *hid = view_slice(view_stage(&v), 0);
	for (int i = 0; i < 8 && seen; i++)
		for (int j = 0; j < 32 && seen; j++) {
			const struct cell *p = &c->cells[(size_t)(v.geom.y0 + i) * c->w + v.geom.x0 + j * 3 + 1];
			int fi, bi, sf, sbg;
			color_pair_at(DEPTH_8, p->glyph, p->fg, p->bg, &fi, &bi);
			color_pair_at(DEPTH_8, " ", bgst.bg, bgst.bg, &sf, &sbg);
			zeros += hid[i * 32 + j] == 0;
			seen = bi != sbg || (strcmp(p->glyph, " ") && fi != bi);
			if (!seen)
				printf("# cell (%d, %d) = %g: '%s' %d on %d, screen %d\n", i, j,
				       hid[i * 32 + j], p->glyph, fi, bi, sbg);
		}
	tap_ok(seen && zeros > 0, "high contrast at 8 colours: each of ffn.hidden's cells (%d zeros) "
	       "differs from the black screen or carries a glyph", zeros);
	canvas_free(c);
	palette_set_scheme(SCHEME_DEFAULT);

	/* --- 9. a terminal without UTF-8: ASCII only --- */
	canvas_set_ascii(1);
	struct trace *tt = vt_pass(m, "your cat is a lovely cat", "seu gato é um gato adorável", NULL);
	if (!tt)
		return 1;
	static const enum depth ALL[] = { DEPTH_NONE, DEPTH_8, DEPTH_256 };
	for (size_t k = 0; k < 3; k++) {
		struct screen sc;
		memset(&sc, 0, sizeof sc);
		vt_state(&sc.v, tt, m, "decoder.0.self_attn.masked");
		sc.model_name = "tiny";
		sc.sentence = "your cat is a lovely cat";
		sc.target = "seu gato é um gato adorável";
		sc.caption = "QKᵀ/√dk with the future masked… “masked” → softmax gives 0";
		snprintf(sc.caption_title, sizeof sc.caption_title, "1 / 2 · a lecture");
		sc.lecture = 1;
		c = canvas_new(100, 30, ALL[k]);
		screen_draw(&sc, c);
		char bad[64] = "";
		txt = vt_text(c);
		tap_ok(all_ascii(c, bad, sizeof bad) && strstr(txt, " -inf   -inf") && strstr(txt, "+----") &&
		       strstr(txt, "layer 0 > self_attn.masked") &&
		       strstr(txt, "sqrt") && strstr(txt, "\"masked\" > softmax") && strstr(txt, "e um gato adoravel"),
		       "ASCII at depth %d: every cell ASCII%s%s, -inf, +---- frames, sqrt, > and accents dropped",
		       (int)ALL[k], *bad ? ", not " : "", bad);
		if (k == 0)
			printf("%s", txt);
		free(txt);
		canvas_free(c);
	}
	/* the shade ramp without colour: positive . + * #, negative - : = % */
	vt_state(&v, t, m, "encoder.0.self_attn.scores");
	v.zoom = ZOOM_CELLS;
	c = vt_draw(&v, 60, 20, DEPTH_NONE);
	char bad[64] = "";
	tap_ok(all_ascii(c, bad, sizeof bad), "ASCII shade ramp of scores without colour%s%s",
	       *bad ? ": not " : "", bad);
	canvas_free(c);
	canvas_set_ascii(0);
	trace_free(tt);

	trace_free(t);
	model_free(m);
	test_losscurve_mark();
	return tap_done();
}
