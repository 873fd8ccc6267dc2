/* test_view_presenter.c - presenter mode (P, --presenter) spreads every
 * page over a projector's screen ("Lecture-ready"), in process.
 *
 * Each page is reached by its keys on the shipped en-pt-small (a sentence
 * of 12 source and 13 target tokens), as a user
 * would, and drawn whole at 200×60 with P: its last item is on screen and
 * lies far enough down (taller rows), the widest line far enough across
 * (wider cells and bars), measured against the screen.  The same page at
 * 80×24, 120×40 and 200×60 shows with P at least what it shows without
 * (nothing cut: presenter falls back to the normal pitch when there is no
 * room), the view draws nothing outside its rectangle, and where rows are
 * tall a click on any of their lines picks the row drawn there. */
#include <stdlib.h>
#include <string.h>

#include "steppertest.h"
#include "base/utf8.h"
#include "views/draw.h"
#include "views/view.h"

static struct app A;
static struct cli C;

#define SENTENCE "my little brother and his friends play football every saturday"

/* A page, its keys from the first stage (without P), what it must show
 * wherever it shows it without presenter (the stage list hidden, as
 * presenter hides it), and at 200×60 with P: the line
 * of its last item (`last`, the lowest line holding it) and its widest
 * line, at least. */
struct page_case {
	const char *name, *keys;
	const char *needle[3];
	const char *last;
	int min_line, min_cols;
};

/* The figures before presenter spread the pages (200×60, the same
 * sentence) are in the comments: last item's line, widest line. */
static const struct page_case PAGES[] = {
	/* 10 tokens 3 lines apart (was lines 3–12, 36 columns) */
	{ "token ids", "", { "</s>", "saturday", NULL }, "</s>", 30, 80 },
	/* [10, 128]: rows of 3 lines (was one a line, line 13) */
	{ "embedding", "n", { "</s>", "saturday", "value" }, "</s>", 30, 130 },
	/* a head's [10, 32]: cells 5 wide (was 3: 104 columns) */
	{ "per-head vectors", "nnnnnn", { "</s>", "value", NULL }, "</s>", 30, 150 },
	/* big cells: filled already */
	{ "attention weights", "nnnnnnnnn", { "</s>", "attention weight", NULL },
	  "attention weight", 50, 130 },
	/* 4 tiles of 12 × 12 side by side, cells 3 × 2 (with 3 × 1 cells, line 22) */
	{ "all heads", "nnnnnnnnna", { "h3", "</s>", NULL }, "Enter: open head", 34, 100 },
	/* 3 layers of 12 queries: cells 3 wide, layers apart (10 queries: 4 wide;
	 * was 139) */
	{ "model view", "nnnnnnnnnV", { "L2", "</s>", "key:" }, "key:", 45, 160 },
	/* the rows of cells 3 lines tall, cells 5 wide (was 20, 106) */
	{ "cell inspector", "nnnnnnnnni", { "head out", "weights", NULL }, "head output =", 32,
	  160 },
	/* 12 × 12 numbers of 3 lines (was 25 lines) */
	{ "mask diff", "Dnnnnnd", { "sábados → </s>", "total variation", NULL }, "sábados → </s>", 35,
	  190 },
	/* early step: rows 3 lines apart, bars 3 times as long (was 10, 139) */
	{ "decoding step 2", "r.", { "→ irmão", "top 5", NULL }, "p tops out", 18, 180 },
	/* the last step (was 18, 157) */
	{ "decoding last step", "r$", { "→ </s>", "final ranking", NULL }, "final ranking", 42,
	  180 },
	{ "beam search", "rb...", { "→ e", "finished so far", NULL }, "finished so far", 42, 180 },
	{ "sampling", "rT...", { "u = ", "◆ drawn", NULL }, "◆ drawn", 20, 180 },
	/* 12 aligned tokens 3 lines apart (was 25, 106) */
	{ "greedy vs beam", "rC", { "13 </s>", "= same", NULL }, "= same", 42, 130 },
	{ "logit lens", "y", { "layer 2 (out)", NULL, NULL }, "layer 2 (out)", 50, 190 },
	/* 9 rows 3 lines apart, bars 23 long (was 13, 141) */
	{ "head importance", "I", { "decoder 2 cross", "matters most", NULL }, "matters most",
	  27, 140 },
	/* 15 candidates 3 lines apart, bars 100 long (was 20, 112) */
	{ "output", "O", { "of 4096 tokens", "12 sábados → </s>", NULL }, "of 4096 tokens", 42, 150 },
	{ "loss", "G", { "sábados", "↑↓ position", NULL }, "sábados", 35, 80 },
};

/* The lowest line of screen (h lines) holding s, or −1. */
static int line_of(const char *screen, int h, const char *s)
{
	for (int y = h - 1; y >= 0; y--)
		if (strstr(st_line(screen, y), s))
			return y;
	return -1;
}

/* The widest line of the main area (below the header, above the status
 * lines), in terminal columns, trailing blanks aside. */
static int widest(const char *screen, int h)
{
	int w = 0;
	for (int y = 2; y < h - 3; y++) {
		char line[4096];
		snprintf(line, sizeof line, "%s", st_line(screen, y));
		size_t n = strlen(line);
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = 0;
		int lw = utf8_width(line);
		w = lw > w ? lw : w;
	}
	return w;
}

/* Cells the view on screen draws outside its rectangle (the stepper's
 * main area at w × h, no stage list) in a canvas pre-filled with '#'. */
static int outside(int w, int h)
{
	struct view_state v = A.scr.v;
	const int pad = 3;
	struct rect r = { pad, pad, w - 2, h - 5 };
	struct canvas *c = canvas_new(r.w + 2 * pad, r.h + 2 * pad, DEPTH_NONE);
	if (!c)
		return -1;
	canvas_fill(c, (struct rect){ 0, 0, c->w, c->h }, "#", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	view_clamp(&v);
	view_for(&v)->draw(&v, c, r);
	int out = 0;
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++)
			if (!rect_has(r, x, y) && strcmp(c->cells[(size_t)y * c->w + x].glyph, "#"))
				out++;
	canvas_free(c);
	return out;
}

/* Where rows are tall, a click on any line of row i picks row i, and the
 * row's label is on one of those lines (a list's on the first, a
 * matrix's on the middle one): the geometry follows the drawing. */
static void clicks_follow(const char *name, const char *screen)
{
	const struct grid_geom *g = &A.scr.v.geom;
	if (!g->valid || g->ch < 2 || g->rh != 1)
		return;
	/* (the inspector's one row of weights is labelled "weights") */
	const int labels = view_for(&A.scr.v) != &inspect_view;
	const struct stage *s = view_stage(&A.scr.v);
	const enum axis ra = s->axes[s->ndim == 3 ? 1 : 0];
	int picked = 1, labelled = 1;
	char lab[160];
	for (int i = 0; i < g->nr; i++) {
		const int y0 = grid_row_top(g, i);
		int on = 0;
		trace_row_label(A.scr.v.tr, ra, g->top + i, lab, sizeof lab);
		if (s->kind == SK_LOSS)   /* its rows: the input token, then → label */
			trace_axis_label(A.scr.v.tr, ra, g->top + i, lab, sizeof lab);
		for (int y = y0; y < y0 + g->ch; y++) {
			picked &= grid_row_at(g, y) == i;
			on |= strstr(st_line(screen, y), lab) != NULL;
		}
		picked &= grid_row_mid(g, i) >= y0 && grid_row_mid(g, i) < y0 + g->ch;
		if (labels && !on) {
			printf("# %s: row %d's label “%s” not on lines %d–%d\n", name, g->top + i,
			       lab, y0, y0 + g->ch - 1);
			labelled = 0;
		}
	}
	tap_ok(picked && labelled, "%s: rows %d lines tall, a click on each line picks its "
	       "row, the label on one of them", name, g->ch);
}

static void check_page(const struct page_case *p)
{
	static const int SZ[3][2] = { { 80, 24 }, { 120, 40 }, { 200, 60 } };
	static char normal[3][1 << 16];
	if (stp_open(&A, &C, "en-pt-small", SENTENCE, NULL)) {
		tap_ok(0, "%s: en-pt-small opens", p->name);
		return;
	}
	st_keys(&A, p->keys);
	st_key(&A, '|');   /* the stage list hidden, as presenter hides it */
	for (int k = 0; k < 3; k++)
		snprintf(normal[k], sizeof normal[k], "%s", st_screen(&A, SZ[k][0], SZ[k][1]));
	st_key(&A, 'P');
	for (int k = 0; k < 3; k++) {
		const int w = SZ[k][0], h = SZ[k][1];
		const char *s = st_screen(&A, w, h);
		int kept = 1;
		for (int n = 0; n < 3 && p->needle[n]; n++)
			if ((strstr(normal[k], p->needle[n]) || w == 200) &&
			    !strstr(s, p->needle[n])) {
				printf("# %s at %d×%d: “%s” shows without presenter, not with\n", p->name,
				       w, h, p->needle[n]);
				kept = 0;
			}
		if (!kept)
			st_dump(s);
		tap_ok(kept, "%s at %d×%d: presenter shows what the page shows without", p->name,
		       w, h);
		if (w == 200)
			clicks_follow(p->name, s);
		int out = outside(w, h);
		tap_ok(out == 0, "%s at %d×%d: nothing drawn outside the view (%d cells)", p->name,
		       w, h, out);
		if (w != 200)
			continue;
		const int y = line_of(s, h, p->last), cols = widest(s, h);
		printf("# %s at 200×60: “%s” at line %d (without presenter %d), widest line %d "
		       "(without %d)\n", p->name, p->last, y, line_of(normal[k], h, p->last), cols,
		       widest(normal[k], h));
		if (!tap_ok(y >= p->min_line && cols >= p->min_cols, "%s at 200×60 fills the screen: "
			    "its last item at line %d >= %d, its widest line %d >= %d columns",
			    p->name, y, p->min_line, cols, p->min_cols))
			st_dump(s);
	}
	stp_close(&A, &C);
}

/* The helper itself: the normal pitch at every other zoom, 2 or 3 lines
 * when the room holds them, never more than the room. */
static void spread_rules(void)
{
	tap_ok(view_pitch(ZOOM_AUTO, 60, 10) == 1 && view_pitch(ZOOM_NUMBERS, 60, 10) == 1,
	       "view_pitch: 1 but at zoom big");
	tap_ok(view_pitch(ZOOM_BIG, 60, 10) == 3 && view_pitch(ZOOM_BIG, 25, 10) == 2 &&
	       view_pitch(ZOOM_BIG, 19, 10) == 1 && view_pitch(ZOOM_BIG, 5, 10) == 1 &&
	       view_pitch(ZOOM_BIG, 60, 0) == 1, "view_pitch at zoom big: 3, 2, 1 as the room "
	       "allows");
	tap_ok(view_spread(ZOOM_BIG, 100, 1, 30, 80) == 80 &&
	       view_spread(ZOOM_BIG, 50, 1, 30, 80) == 50 &&
	       view_spread(ZOOM_BIG, 20, 1, 30, 80) == 30 &&
	       view_spread(ZOOM_AUTO, 100, 1, 30, 80) == 30,
	       "view_spread: normal, else the room up to the most");
}

int main(void)
{
	spread_rules();
	for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++)
		check_page(&PAGES[i]);
	return tap_done();
}
