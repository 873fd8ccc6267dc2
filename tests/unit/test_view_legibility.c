/* test_view_legibility.c - lecture-grade screens (issue 13), the review's items,
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
		{ VM_HEADS, 80, 24, "heads grid" }, { VM_MODEL, 120, 40, "model view" },
	};
	for (size_t k = 0; k < 2; k++) {
		struct view_state v;
		vt_state(&v, t, m, "encoder.0.self_attn.weights");   /* [4, 20, 20] */
		v.mode = (enum view_mode)V[k].flags;
		canvas_set_ascii(0);
		struct canvas *c = vt_draw(&v, V[k].w, V[k].h, DEPTH_256);
		int utf_half = count_glyph(c, "▀");
		canvas_free(c);
		canvas_set_ascii(1);
		vt_state(&v, t, m, "encoder.0.self_attn.weights");
		v.mode = (enum view_mode)V[k].flags;
		c = vt_draw(&v, V[k].w, V[k].h, DEPTH_256);
		int quotes = count_glyph(c, "\""), asc = all_ascii(c);
		if (quotes || !asc) {
			char *txt = vt_text(c);
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

static double rgb_dist(uint32_t a, uint32_t b)
{
	double dr = (double)((a >> 16) & 255) - ((b >> 16) & 255);
	double dg = (double)((a >> 8) & 255) - ((b >> 8) & 255);
	double db = (double)(a & 255) - (b & 255);
	return sqrt(dr * dr + dg * dg + db * db);
}

/* --- item 5: the cursor on every scheme --- */
static void cursor_marks(const struct model *m, const struct trace *t)
{
	static const char *const NAME[] = { "default", "high-contrast", "colorblind" };
	for (int k = 0; k < SCHEME_COUNT; k++) {
		palette_set_scheme((enum scheme)k);
		/* the mark is no colour of either scale, nor −∞'s */
		double near = rgb_dist(CURSOR_MARK, NEGINF_BG);
		struct scale seq = { 0, 0, 1, NULL }, div = { 1, -1, 1, NULL };
		for (int i = 0; i <= 1000; i++) {
			double a = rgb_dist(CURSOR_MARK, scale_color(&seq, (float)(i / 1000.0)));
			double b = rgb_dist(CURSOR_MARK, scale_color(&div, (float)(i / 500.0 - 1)));
			near = a < near ? a : b < near ? b : near;
		}
		tap_ok(near > 150, "%s: the cursor mark #%06x is %.0f (RGB) from the nearest colour "
		       "of its scales and of -inf", NAME[k], (unsigned)CURSOR_MARK, near);
		/* presenter (big) cells and one-line numbers: the cursor's cell
		 * keeps its value's colour and carries a frame / brackets */
		static const enum zoom Z[] = { ZOOM_BIG, ZOOM_NUMBERS };
		for (int z = 0; z < 2; z++) {
			struct view_state v;
			vt_state(&v, t, m, "encoder.0.self_attn.weights");   /* [4, 8, 8] */
			v.zoom = Z[z];
			v.row = 2;
			v.col = 5;
			struct canvas *c = vt_draw(&v, z ? 100 : 160, z ? 30 : 48, DEPTH_TRUE);
			const struct stage *s = view_stage(&v);
			struct scale sc = scale_for(s, view_slice(s, 0), 64);
			const uint32_t want = scale_color(&sc, view_slice(s, 0)[2 * 8 + 5]);
			const struct grid_geom *g = &v.geom;
			int x = g->x0 + (v.col - g->left) * g->cw;
			int y = g->y0 + (v.row - g->top) * (g->ch > 1 ? g->ch : 1);
			int lines = g->ch > 1 ? g->ch - (g->ch >= 4) : 1, same = 1;
			for (int yy = 0; yy < lines; yy++)
				for (int xx = 0; xx < g->cw - 1; xx++)
					same &= c->cells[(size_t)(y + yy) * c->w + x + xx].bg == want;
			const struct cell *mk = z ? &c->cells[(size_t)y * c->w + x - 1] :
					    &c->cells[(size_t)y * c->w + x];
			const char *glyph = z ? "[" : "┏";
			tap_ok(g->valid && (z || g->ch >= 3) && same && !strcmp(mk->glyph, glyph) &&
			       mk->fg == CURSOR_MARK,
			       "%s, %s cells: the cursor's cell keeps its value's colour #%06x (%s) "
			       "and is marked with %s in the mark colour (got '%s' #%06x)", NAME[k],
			       z ? "one-line number" : "presenter", (unsigned)want, same ? "yes" : "no",
			       glyph, mk->glyph, (unsigned)mk->fg);
			canvas_free(c);
		}
	}
	palette_set_scheme(SCHEME_DEFAULT);
}

/* The text of the UTF-8 cells of line y from x0 on. */
static void line_text(const struct canvas *c, int y, int x0, char *out, size_t n)
{
	size_t k = 0;
	for (int x = x0 < 0 ? 0 : x0; x < c->w && k + GLYPH_MAX < n; x++) {
		const char *g = c->cells[(size_t)y * c->w + x].glyph;
		size_t l = strlen(g);
		memcpy(out + k, *g ? g : "", l);
		k += l;
	}
	out[k] = 0;
}

static int is_braille(const char *g)
{
	/* U+2801…U+28FF: E2 A0 81 … E2 A3 BF */
	return (unsigned char)g[0] == 0xE2 && ((unsigned char)g[1] & 0xFC) == 0xA0 &&
	       strcmp(g, "\u2800");
}

/* --- item 6: the PE strips' names never on a curve --- */
static void pe_strips(const struct model *m, const struct trace *t)
{
	static const int SZ[][2] = { { 80, 24 }, { 100, 30 }, { 120, 40 } };
	int n = 0;
	float *pe = forward_pe_table(m, PE_CURVE_POSITIONS, &n);   /* [100, d] */
	for (size_t k = 0; k < 3; k++) {
		struct screen sc;
		memset(&sc, 0, sizeof sc);
		vt_state(&sc.v, t, m, "src.pos");
		sc.v.mode = VM_CURVES;
		sc.v.pe_table = pe;
		sc.v.pe_n = n;
		sc.model_name = "tiny";
		sc.sentence = "your cat is a lovely cat";
		struct canvas *c = canvas_new(SZ[k][0], SZ[k][1], DEPTH_256);
		screen_draw(&sc, c);
		/* the plot's first column: the leftmost braille cell */
		int px = c->w;
		for (int i = 0; i < c->w * c->h; i++)
			if (is_braille(c->cells[i].glyph) && i % c->w < px)
				px = i % c->w;
		int strips = 0, names = 0, clash = 0;
		char line[4096];
		for (int y = 0; y < c->h; y++) {
			int braille = 0, letters = 0;
			for (int x = px; x < c->w; x++) {
				const char *g = c->cells[(size_t)y * c->w + x].glyph;
				braille += is_braille(g);
				letters += (g[0] >= 'a' && g[0] <= 'z') || (g[0] >= 'A' && g[0] <= 'Z');
			}
			line_text(c, y, px - 3, line, sizeof line);
			strips += strstr(line, "+1┤") != NULL;
			char *d = strstr(line, "dim ");
			int len = (int)strlen(line);
			while (len > 0 && line[len - 1] == ' ')
				line[--len] = 0;
			names += d && !strchr(d, '+') && (strstr(d, "sin") || strstr(d, "cos")) &&
				 (!strcmp(line + len - 3, "sin") || !strcmp(line + len - 3, "cos"));
			if (braille && letters) {
				clash++;
				printf("# %dx%d line %d: letters on a curve: %s\n", SZ[k][0], SZ[k][1], y, line);
			}
		}
		tap_ok(px < c->w && strips >= 2 && names == strips && !clash,
		       "PE curves at %dx%d: %d strips, each named at the right of the line above it "
		       "(%d names), no name on a line with a curve (%d clashes)", SZ[k][0], SZ[k][1],
		       strips, names, clash);
		if (clash || names != strips) {
			char *txt = vt_text(c);
			printf("%s", txt);
			free(txt);
		}
		canvas_free(c);
	}
	free(pe);
}

/* --- item 7: every view that cuts says what it shows --- */
static void cut_notes(const struct model *m, const struct trace *t)
{
	static const struct { const char *stage; int flags, w, h; const char *want, *what; } V[] = {
		{ "src.ids", 0, 60, 12, "positions 0–7 of 20", "ids" },
		{ "probs", 0, 80, 12, "0–9/19", "output (probs): the position list" },
		{ "loss", 0, 80, 12, "positions 0–6 of 19", "output (loss)" },
		{ "encoder.0.self_attn.weights", VM_INSPECT, 26, 40, "keys 0–16 of 20", "inspector's weights" },
		{ "encoder.0.self_attn.weights", VM_HEADS, 80, 24, "rows 0–19 of 20 · columns 0–16 of 20",
		  "heads grid" },
	};
	for (size_t k = 0; k < sizeof V / sizeof *V; k++) {
		struct view_state v;
		if (vt_state(&v, t, m, V[k].stage))
			continue;
		v.mode = (enum view_mode)V[k].flags;
		struct canvas *c = vt_draw(&v, V[k].w, V[k].h, DEPTH_256);
		char *txt = vt_text(c);
		int ok = strstr(txt, V[k].want) != NULL;
		tap_ok(ok, "%s at %dx%d says '%s…'", V[k].what, V[k].w, V[k].h, V[k].want);
		if (!ok)
			printf("%s", txt);
		free(txt);
		canvas_free(c);
	}
	/* and nothing when nothing is cut */
	char buf[64];
	tap_ok(!*fmt_shown(buf, sizeof buf, 80, (struct shown){ SH_ROWS, 0, 8, 8 },
			   (struct shown){ SH_COLUMNS, 0, 8, 8 }) &&
	       !strcmp(fmt_shown(buf, sizeof buf, 80, (struct shown){ SH_ROWS, 0, 8, 8 },
				 (struct shown){ SH_COLUMNS, 2, 3, 8 }), "rows 0–7 of 8 · columns 2–4 of 8") &&
	       !strcmp(fmt_shown(buf, sizeof buf, 20, (struct shown){ SH_ROWS, 0, 8, 8 },
				 (struct shown){ SH_COLUMNS, 2, 3, 8 }), "columns 2–4 of 8") &&
	       !strcmp(fmt_shown(buf, sizeof buf, 10, (struct shown){ SH_ROWS, 0, 8, 8 },
				 (struct shown){ SH_COLUMNS, 2, 3, 8 }), "2–4/8"),
	       "fmt_shown: \"\" when nothing is cut, both axes when they fit, the cut one when "
	       "not, without words when narrow");
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
	t = vt_pass(m, "your cat is a lovely cat your cat is a lovely cat your cat is a lovely cat",
		    "seu gato é um gato adorável seu gato é um gato adorável seu gato é um gato adorável",
		    NULL);
	if (!t)
		return 1;
	cut_notes(m, t);
	trace_free(t);
	t = vt_pass(m, "your cat is a lovely cat", NULL, NULL);
	if (!t)
		return 1;
	cursor_marks(m, t);
	pe_strips(m, t);
	trace_free(t);
	model_free(m);
	return tap_done();
}
