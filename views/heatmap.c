/* heatmap.c - a matrix as coloured cells with token labels on both axes:
 * the shared drawing routine and the single-head heatmap view. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/model.h"

#define LABEL_MAX 14     /* a column (key) label */
#define ROW_LABEL_MAX 22 /* a row label: "adorável → </s>" */
#define FIGURE_LABEL_MAX 40   /* in a figure: whole labels */

static int neg_inf(float x)
{
	return isinf(x) && x < 0;
}

static enum axis row_axis(const struct stage *s)
{
	return s->axes[s->ndim == 3 ? 1 : 0];
}

static enum axis col_axis(const struct stage *s)
{
	return s->ndim == 1 ? AX_NONE : s->axes[s->ndim - 1];
}

static void label(const struct trace *t, enum axis a, int i, char *buf, size_t n,
		  int figure)
{
	char raw[160];
	trace_axis_label(t, a, i, raw, sizeof raw);
	if (a == AX_NONE)
		snprintf(raw, sizeof raw, "%d", i);
	text_fit(raw, figure ? FIGURE_LABEL_MAX : LABEL_MAX, buf, n);
}

/* A query row's label: the token and, at a decoder position, the word it
 * predicts ("gato → é"). */
static void row_label(const struct trace *t, enum axis a, int i, char *buf, size_t n,
		      int figure)
{
	char raw[160];
	trace_row_label(t, a, i, raw, sizeof raw);
	if (a == AX_NONE)
		snprintf(raw, sizeof raw, "%d", i);
	text_fit(raw, figure ? FIGURE_LABEL_MAX : ROW_LABEL_MAX, buf, n);
}

/* A value in cw−1 columns plus a space (fmt_cell_fit: the magnitude kept). */
static void cell_number(char *buf, size_t n, float x, int cw, int figure)
{
	char num[32];
	int w = cw - 1;
	fmt_cell_fit(num, sizeof num, x, figure && w > 6 ? 6 : w);   /* figure: cells
	    widened for their labels keep six-column numbers, set apart */
	int pad = w - utf8_width(num);
	snprintf(buf, n, "%*s%s ", pad > 0 ? pad : 0, "", num);
}

/* The width dk of a head in a `concat` stage [n, h·dk] (its sibling
 * `heads` stage [h, n, dk] says it), or 0: the columns where a head starts
 * are marked. */
static int head_width(const struct trace *t, const struct stage *s, int cols)
{
	size_t len = strlen(s->name);
	if (len < 7 || strcmp(s->name + len - 7, ".concat") != 0)
		return 0;
	char nm[STAGE_NAME_MAX + 8];
	snprintf(nm, sizeof nm, "%.*s.heads", (int)(len - 7), s->name);
	const struct stage *h = trace_find(t, nm);
	if (!h || h->ndim != 3 || h->shape[0] < 2 || h->shape[2] < 1 ||
	    h->shape[0] * h->shape[2] != cols)
		return 0;
	return h->shape[2];
}

static int is_token_axis(enum axis a)
{
	return a == AX_SRC || a == AX_TGT || a == AX_VOCAB || a == AX_CLASS;
}

/* The legend of numbered columns: "0 <s>  1 your  2 cat …" for the visible
 * columns left … left+nc−1, wrapped in r.w; the cursor's column in the
 * cursor's colours.  With c NULL it only counts the lines.  Returns them. */
static int column_legend(struct canvas *c, struct rect r, const struct trace *t,
			 enum axis ca, int left, int nc, int ccol)
{
	const struct style lab = role_style(R_LABEL, c ? c->depth : DEPTH_NONE);
	const struct style mut = role_style(R_MUTED, c ? c->depth : DEPTH_NONE);
	const struct style cur = role_style(R_CURSOR, c ? c->depth : DEPTH_NONE);
	int x = 0, y = 0;
	char num[16], tok[160], cut[160];
	for (int j = 0; j < nc; j++) {
		int col = left + j;
		snprintf(num, sizeof num, "%d", col);
		label(t, ca, col, tok, sizeof tok, 0);
		text_fit(tok, r.w - utf8_width(num) - 1, cut, sizeof cut);
		int w = utf8_width(num) + 1 + utf8_width(cut);
		if (x > 0 && x + 2 + w > r.w) {
			x = 0;
			y++;
		}
		if (x > 0)
			x += 2;
		if (c && y < r.h) {
			const struct style *st = col == ccol ? &cur : &lab;
			canvas_text(c, r.x + x, r.y + y, utf8_width(num), num, mut.fg, mut.bg, mut.attr);
			canvas_text(c, r.x + x + utf8_width(num) + 1, r.y + y, w, cut,
				    st->fg, st->bg, st->attr);
		}
		x += w;
	}
	return nc > 0 ? y + 1 : 0;
}

/* Marks the cursor's number cell at (x, y), cw columns (the last one the
 * gap) × lines, in the scheme's cursor mark (a hue of no scale): a frame
 * drawn on the cell's own colour for a big cell, "[" and "]" in the gap
 * columns either side of a one-line cell. */
static void cursor_frame(struct canvas *c, int x, int y, int cw, int lines)
{
	const uint32_t mk = CURSOR_MARK;
	if (lines < 2) {
		const int at[2] = { x - 1, x + cw - 1 };
		for (int k = 0; k < 2; k++) {
			if (at[k] < 0 || at[k] >= c->w || y < 0 || y >= c->h)
				continue;
			uint32_t bg = c->cells[(size_t)y * c->w + at[k]].bg;
			canvas_put(c, at[k], y, k ? "]" : "[", mk, bg, ATTR_BOLD);
		}
		return;
	}
	const int w = cw - 1;
	for (int yy = 0; yy < lines; yy++)
		for (int xx = 0; xx < w; xx++) {
			const int top = yy == 0, bot = yy == lines - 1;
			const int l = xx == 0, rt = xx == w - 1;
			const char *g = top ? l ? "┏" : rt ? "┓" : "━" :
					bot ? l ? "┗" : rt ? "┛" : "━" :
					l || rt ? "┃" : NULL;
			if (!g || x + xx < 0 || x + xx >= c->w || y + yy < 0 || y + yy >= c->h)
				continue;
			uint32_t bg = c->cells[(size_t)(y + yy) * c->w + x + xx].bg;
			canvas_put(c, x + xx, y + yy, g, mk, bg, ATTR_BOLD);
		}
}

/* What heatmap_draw lays out before it paints: the zoom it settled on,
 * the label column, the cell size and how many rows and columns show. */
struct hm {
	struct canvas *c;
	struct rect r;
	const struct trace *t;
	const struct stage *s;
	const float *m;              /* [rows, cols] */
	int rows, cols;
	const struct scale *sc;
	enum zoom z;
	enum axis ra, ca;
	int crow, ccol, top, left;   /* cursor (−1: none) and scroll */
	int color, fig, dk;
	int lw, rlw, cw, ch, hh;     /* label widths, cell size, header lines */
	int numbered, half;
	int nr, nc, x0;              /* visible rows and columns, first cell's x */
};

/* The zoom H's matrix settles on in avail columns and its cell size cw ×
 * ch (ncw: a number cell's width): big cells (presenter) as big as the
 * screen allows from 9 × 3, else auto's choice, which presenter widens as
 * far as avail allows (cells stay narrower than numbers). */
static enum zoom hm_cells(const struct hm *H, int avail, int ncw, int *cw, int *ch)
{
	const int rows = H->rows, cols = H->cols;
	enum zoom z = H->z;
	if (z == ZOOM_BIG && cols * 9 <= avail && rows * 3 + 1 <= H->r.h) {
		*ch = clampi((H->r.h - 1) / rows, 3, 7);
		*cw = clampi(avail / cols, 9, 2 * *ch + 4);
		return z;
	}
	if (z == ZOOM_AUTO || z == ZOOM_BIG) {
		if (cols * ncw <= avail && rows + 1 <= H->r.h)
			z = ZOOM_NUMBERS;
		else if (cols * 3 <= avail)
			z = ZOOM_CELLS;
		else
			z = ZOOM_FIT;
	}
	*cw = z == ZOOM_NUMBERS ? ncw : z == ZOOM_CELLS ? 3 : 1;
	*cw = view_spread(H->z, avail, cols, *cw, z == ZOOM_NUMBERS ? *cw + 2 :
			  z == ZOOM_CELLS ? 6 : 2);
	*ch = 1;
	return z;
}

/* The layout of H's matrix in H->r (the zoom, the label column, the cell
 * size, what is visible), the scroll kept on the cursor.  Returns 0 when
 * nothing fits. */
static int hm_layout(struct hm *H)
{
	const struct trace *t = H->t;
	const struct rect r = H->r;
	const int rows = H->rows, cols = H->cols, fig = H->fig;
	char buf[256];
	/* row label column */
	int lw = 1;
	for (int i = 0; i < rows && i < 4096; i++) {
		row_label(t, H->ra, i, buf, sizeof buf, fig);
		int w = utf8_width(buf);
		lw = w > lw ? w : lw;
	}
	lw += 1;
	int avail = r.w - lw;
	if (avail < 1 || r.h < 2)
		return 0;

	/* column label width (for a figure's header) */
	int clw = 1;
	for (int j = 0; j < cols && j < 4096; j++) {
		label(t, H->ca, j, buf, sizeof buf, fig);
		int w = utf8_width(buf);
		clw = w > clw ? w : clw;
	}
	/* (two blanks between labels: they stay apart as words in an SVG) */
	const int ncw = fig && clw + 2 > 7 ? (clw + 2 < 24 ? clw + 2 : 24) : 7;

	int cw, ch;
	const enum zoom z = hm_cells(H, avail, ncw, &cw, &ch);
	const int big = H->z == ZOOM_BIG;
	/* cells too narrow for a token: the columns are numbered and a legend
	 * under the matrix names them, on screen and in a figure alike (letters
	 * stacked one a line read as noise: issue 43) */
	const int numbered = z == ZOOM_CELLS && (fig ? H->ca != AX_NONE : is_token_axis(H->ca));
	const int hh = 1;   /* header lines */
	int vc = avail / cw;
	int legend = numbered ? column_legend(NULL, r, t, H->ca, 0, vc < cols ? vc : cols, -1) : 0;
	/* lines under the matrix: the legend, and "rows … · columns …" when
	 * something is out of sight */
	int below = legend + (vc < cols);
	int lines = r.h - hh - below;
	if (rows * ch > lines && !(vc < cols)) {
		below++;
		lines--;
	}
	/* presenter: auto's cells on rows of 2 or 3 lines when they fit */
	if (big && z != ZOOM_BIG)
		ch = view_pitch(ZOOM_BIG, lines, rows);
	/* two rows a line (half blocks) only when one a line does not fit */
	const int half = z == ZOOM_FIT && H->color && rows > lines && !canvas_ascii();
	int rlw = 0;   /* half blocks: the odd rows' labels on the right */
	if (half) {
		for (int i = 1; i < rows && i < 4096; i += 2) {
			row_label(t, H->ra, i, buf, sizeof buf, fig);
			int w = utf8_width(buf) + 3;   /* " ▄ " and the label */
			rlw = w > rlw ? w : rlw;
		}
		lw += 2;   /* the label and " ▀" */
		avail = r.w - lw - rlw;
		if (avail < 1)
			return 0;
		vc = avail / cw;
		if (vc < cols && below == legend) {
			below++;
			lines--;
		}
	}
	int vr = lines * (half ? 2 : 1) / ch;
	if (vr < 1 || vc < 1)
		return 0;
	view_follow(&H->left, H->ccol, vc, cols);
	view_follow(&H->top, H->crow, vr, rows);
	H->z = z;
	H->lw = lw;
	H->rlw = rlw;
	H->cw = cw;
	H->ch = ch;
	H->hh = hh;
	H->numbered = numbered;
	H->half = half;
	H->nc = cols - H->left < vc ? cols - H->left : vc;
	H->nr = rows - H->top < vr ? rows - H->top : vr;
	H->x0 = r.x + lw;
	return 1;
}

/* The column header: numbers (narrow cells, with a legend), the
 * labels, or index ticks (and where each head starts, in a concat). */
static void hm_header(const struct hm *H)
{
	struct canvas *c = H->c;
	const struct trace *t = H->t;
	const struct rect r = H->r;
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style mut = role_style(R_MUTED, c->depth);
	const struct style cur = role_style(R_CURSOR, c->depth);
	const struct style hdr = role_style(R_HEADER, c->depth);
	const enum axis ca = H->ca;
	const enum zoom z = H->z;
	const int nc = H->nc, cw = H->cw, x0 = H->x0, dk = H->dk;
	const int ccol = H->ccol;
	const int *left = &H->left;
	char buf[256];
	if (H->numbered) {
		/* each visible column's number, centred on its cell, skipped
		 * where it would touch the one before */
		int end = -1;
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			snprintf(buf, sizeof buf, "%d", col);
			int w = utf8_width(buf), x = x0 + j * cw + (cw - w) / 2;
			if (x <= end && col != ccol)
				continue;
			const struct style *st = col == ccol ? &cur : &lab;
			canvas_text(c, x, r.y, w, buf, st->fg, st->bg, st->attr);
			end = x + w;
		}
	} else if (z == ZOOM_NUMBERS || z == ZOOM_BIG) {
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			char raw[96];
			trace_axis_label(t, ca, col, raw, sizeof raw);
			if (ca == AX_NONE)
				snprintf(raw, sizeof raw, "%d", col);
			text_fit(raw, cw - 1, buf, sizeof buf);
			const struct style *st = col == ccol ? &cur : dk && col % dk == 0 ? &hdr : &lab;
			int w = utf8_width(buf);
			canvas_text(c, x0 + j * cw + (cw - 1 - w) / (H->ch > 1 ? 2 : 1), r.y, cw - 1, buf,
				    st->fg, st->bg, st->attr);
		}
	} else {
		/* index ticks every 8 (or 4 at cell width) columns; in a
		 * concat, where each head starts: "h0", "h1" … */
		int step = dk ? dk : cw == 1 ? 8 : 4;
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			if (col % step == 0 || col == ccol) {
				if (dk && col != ccol)
					/* "h1 16": head 1 starts at dim 16 (dk) */
					snprintf(buf, sizeof buf, dk * cw >= 8 && col ? "h%d %d" : "h%d",
						 col / dk, col);
				else
					snprintf(buf, sizeof buf, "%d", col);
				const struct style *st = col == ccol ? &cur : dk ? &hdr : &mut;
				canvas_text(c, x0 + j * cw, r.y, (nc - j) * cw, buf,
					    st->fg, st->bg, st->attr);
			}
		}
	}
}

/* A number cell (zoom numbers or big) of value v0 at x, y (its middle
 * line), bg and fg its colours; a head starts at it when edge. */
static void hm_number(const struct hm *H, int x, int y, float v0, int is_cur, int edge,
		      uint32_t fg, uint32_t bg)
{
	struct canvas *c = H->c;
	const int cw = H->cw, ch = H->ch, color = H->color;
	const struct style bnd = role_style(R_TEXT, c->depth);
	/* tall cells: the cell's colour on all its lines but the last of a
	 * cell of 4 or more, the gap column blank on every line (a grid of
	 * tiles, not notched); the cursor framed from 3 lines on */
	const int tall = ch - (ch >= 4), framed = is_cur && color && tall >= 3;
	char buf[256];
	uint8_t attr = 0;
	if (ch > 1) {   /* centred in a tall cell (the cursor's inside its frame) */
		char num[32];
		int w = framed ? cw - 3 : cw - 1;
		fmt_cell_fit(num, sizeof num, v0, w < 8 ? w : 8);
		int pad = (cw - 1 - utf8_width(num)) / 2;
		snprintf(buf, sizeof buf, "%*s%s", pad > 0 ? pad : 0, "", num);
	} else {
		cell_number(buf, sizeof buf, v0, cw, H->fig);
	}
	/* the cursor keeps its value's colour (a cursor colour of its own
	 * would read as a value of the scale) and is marked by shape: bold,
	 * underlined, framed (below); reverse without colour */
	if (is_cur)
		attr = color ? ATTR_BOLD | ATTR_UNDERLINE : ATTR_REVERSE | ATTR_BOLD;
	if (ch > 1)
		canvas_fill(c, (struct rect){ x, y - (tall - 1) / 2, cw - 1, tall }, " ", fg, bg, 0);
	canvas_text(c, x, y, ch > 1 ? cw - 1 : cw, buf, fg, bg, attr | (ch > 1 ? ATTR_BOLD : 0));
	if (edge)
		for (int k = 0; k < tall; k++)
			canvas_put(c, x, y - (tall - 1) / 2 + k, "▏", bnd.fg == COLOR_DEFAULT ?
				   contrast_fg(bg) : bnd.fg, bg, 0);
	if (is_cur && color)
		cursor_frame(c, x, framed ? y - (tall - 1) / 2 : y, cw, framed ? tall : 1);
}

/* A cell of zoom cells or fit (one glyph a value) at x, y (its middle
 * line); on every line of a tall row, the marks on the middle one. */
static void hm_glyph(const struct hm *H, int x, int y, float v0, int is_cur, int edge,
		     uint32_t fg, uint32_t bg)
{
	struct canvas *c = H->c;
	const int cw = H->cw, tall = H->ch, color = H->color;
	const int cells = H->z == ZOOM_CELLS;
	const int vanish = color && palette_vanishes(c->depth, bg);
	const char *g = !color ? scale_glyph(H->sc, v0) : cells ? vanish ? "·" : " " :
			edge ? "▏" : vanish ? "·" : " ";
	uint8_t attr = 0;
	if (cells && isinf(v0) && v0 < 0)
		g = NEGINF_GLYPH;
	for (int l = 0; l < tall; l++) {
		const int yy = y - (tall - 1) / 2 + l, mid = yy == y;
		/* colour: the glyph on the middle line, the cell's colour on
		 * the others; without colour the glyph on every line */
		const char *gl = mid || !color ? g : edge ? "▏" : " ";
		for (int k = 0; k < cw; k++)
			canvas_put(c, x + k, yy, !color || (cells ? k == cw / 2 : k == 0) ? gl : " ",
				   fg, bg, 0);
		if (cells && edge)
			canvas_put(c, x, yy, "▏", contrast_fg(bg), bg, 0);
	}
	if (!is_cur)
		return;
	if (cells) {
		canvas_put(c, x, y, "[", color ? CURSOR_MARK : COLOR_DEFAULT, bg, ATTR_BOLD);
		canvas_put(c, x + cw - 1, y, "]", color ? CURSOR_MARK : COLOR_DEFAULT, bg, ATTR_BOLD);
		return;
	}
	fg = color ? CURSOR_MARK : COLOR_DEFAULT;
	attr = color ? 0 : ATTR_REVERSE;
	canvas_put(c, x, y, color ? "●" : "@", fg, bg, attr);
}

/* Cell (i0, col) at x, y (its middle line); i1 ≥ 0: the row drawn in its
 * lower half (half blocks). */
static void hm_cell(const struct hm *H, int x, int y, int i0, int i1, int col)
{
	struct canvas *c = H->c;
	const struct scale *sc = H->sc;
	const float *m = H->m;
	const int cols = H->cols, crow = H->crow, ccol = H->ccol, color = H->color;
	const float v0 = m[(size_t)i0 * cols + col];
	const int is_cur = i0 == crow && col == ccol;
	const int edge = H->dk && col % H->dk == 0 && col > 0 && color;   /* a head starts */
	if (H->half) {
		uint32_t top_c = is_cur ? CURSOR_MARK : scale_color(sc, v0);
		uint32_t bot_c = COLOR_DEFAULT;
		if (i1 >= 0) {
			float v1 = m[(size_t)i1 * cols + col];
			bot_c = (i1 == crow && col == ccol) ? CURSOR_MARK : scale_color(sc, v1);
		}
		/* both halves −∞: the glyph, which reads in every colour mode
		 * (a colour alone may not) */
		if (!is_cur && neg_inf(v0) && (i1 < 0 || (neg_inf(m[(size_t)i1 * cols + col]) &&
							    !(i1 == crow && col == ccol))))
			canvas_put(c, x, y, NEGINF_GLYPH, NEGINF_FG, NEGINF_BG, 0);
		else
			canvas_put(c, x, y, "▀", top_c, bot_c, 0);
		return;
	}
	uint32_t bg = color ? scale_color(sc, v0) : COLOR_DEFAULT;
	uint32_t fg = color ? contrast_fg(bg) : COLOR_DEFAULT;
	if (isinf(v0) && v0 < 0 && color)
		fg = NEGINF_FG;
	if (H->z == ZOOM_NUMBERS || H->z == ZOOM_BIG)
		hm_number(H, x, y, v0, is_cur, edge, fg, bg);
	else
		hm_glyph(H, x, y, v0, is_cur, edge, fg, bg);
}

/* The rows: each one's label (half blocks: the odd rows' on the right),
 * then its cells. */
static void hm_rows(const struct hm *H)
{
	struct canvas *c = H->c;
	const struct trace *t = H->t;
	const struct rect r = H->r;
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style mut = role_style(R_MUTED, c->depth);
	const struct style cur = role_style(R_CURSOR, c->depth);
	const int half = H->half, nr = H->nr, nc = H->nc, ch = H->ch, cw = H->cw;
	const int hh = H->hh, lw = H->lw, rlw = H->rlw, x0 = H->x0, rows = H->rows;
	const int crow = H->crow, fig = H->fig;
	const enum axis ra = H->ra;
	const int *top = &H->top, *left = &H->left;
	char buf[256];
	const int yrows = half ? (nr + 1) / 2 : nr;
	for (int yy = 0; yy < yrows; yy++) {
		/* big cells: the middle line of the coloured ones */
		int y = r.y + hh + yy * ch + (ch - (ch >= 4) - 1) / 2;
		int i0 = *top + yy * (half ? 2 : 1);
		int i1 = half && i0 + 1 < rows && yy * 2 + 1 < nr ? i0 + 1 : -1;
		row_label(t, ra, i0, buf, sizeof buf, fig);
		const struct style *st = i0 == crow ? &cur : &lab;
		int lx = r.x + (lw - (half ? 2 : 0)) - 1 - utf8_width(buf);
		canvas_text(c, lx, y, lw - 1, buf, st->fg, st->bg, st->attr);
		if (half) {
			/* which half of the line is whose: ▀ the left label's
			 * row, ▄ the right one's */
			canvas_text(c, r.x + lw - 2, y, 1, "▀", mut.fg, mut.bg, 0);
			if (i1 >= 0) {
				int rx = x0 + nc * cw + 1;
				canvas_text(c, rx, y, 1, "▄", mut.fg, mut.bg, 0);
				row_label(t, ra, i1, buf, sizeof buf, fig);
				st = i1 == crow ? &cur : &lab;
				canvas_text(c, rx + 2, y, rlw - 3, buf, st->fg, st->bg, st->attr);
			}
		}
		for (int j = 0; j < nc; j++)
			hm_cell(H, x0 + j * cw, y, i0, i1, *left + j);
	}
}

/* Under the matrix: the columns' legend (numbered columns), and what is
 * out of sight with the keys that page to it.  Returns the lines used
 * from line y0. */
static int hm_footer(const struct hm *H, int y0)
{
	struct canvas *c = H->c;
	const struct rect r = H->r;
	const struct style mut = role_style(R_MUTED, c->depth);
	const int nr = H->nr, nc = H->nc, rows = H->rows, cols = H->cols;
	int used = y0 - r.y;
	if (H->numbered && used < r.h)
		used += column_legend(c, rect_sub(r, r.x, r.y + used, r.w, r.h - used), H->t, H->ca,
				      H->left, nc, H->ccol);
	/* what is out of sight, and how to page to it */
	if ((nr < rows || nc < cols) && used < r.h) {
		const struct shown sr = { SH_ROWS, H->top, nr, rows };
		const struct shown sc2 = { SH_COLUMNS, H->left, nc, cols };
		int x = draw_shown(c, r, r.x, r.y + used, r.w, sr, sc2);
		/* TRANSLATORS: after "rows a–b of N · columns a–b of N": the
		 * keys that page */
		const char *keys = nc < cols && nr < rows ?
				   _("  (Shift+←→ or H L: page across · PgUp PgDn: rows)") :
				   nc < cols ? _("  (Shift+←→ or H L: page across)") :
				   _("  (PgUp PgDn: rows)");
		if (x + utf8_width(keys) > r.w && nc < cols)
			/* TRANSLATORS: the short form of the above */
			keys = _("  (H L: page)");
		if (!H->fig && x + utf8_width(keys) <= r.w)
			canvas_text(c, r.x + x, r.y + used, r.w - x, keys, mut.fg, mut.bg, mut.attr);
		used++;
	}
	return used - (y0 - r.y);
}

/* Layout, then paint: header, rows, footer. */
struct rect heatmap_draw(struct canvas *c, struct rect r, const struct trace *t,
			 const struct stage *s, const float *m, int rows,
			 int cols, const struct scale *sc, enum zoom z,
			 int *top, int *left, int crow, int ccol,
			 struct grid_geom *geom)
{
	struct rect used = { r.x, r.y, 0, 0 };
	/* a figure has no cursor, and cells wide enough for whole labels */
	if (c->figure)
		crow = ccol = -1;
	struct hm H = { .c = c, .r = r, .t = t, .s = s, .m = m, .rows = rows, .cols = cols,
			.sc = sc, .z = z, .ra = row_axis(s), .ca = col_axis(s), .crow = crow,
			.ccol = ccol, .top = *top, .left = *left, .color = c->depth != DEPTH_NONE,
			.fig = c->figure, .dk = head_width(t, s, cols) };
	/* nothing drawn (too small) leaves no stale geometry for mouse clicks
	 * and the mask diff's −∞ marks */
	if (geom)
		geom->valid = 0;
	if (!hm_layout(&H))
		return used;
	*top = H.top;
	*left = H.left;
	hm_header(&H);
	hm_rows(&H);
	used.w = H.lw + H.nc * H.cw + (H.half ? H.rlw + 1 : 0);
	used.h = H.hh + (H.half ? (H.nr + 1) / 2 : H.nr) * H.ch;
	if (geom)
		*geom = (struct grid_geom){ 1, H.x0, r.y + H.hh, H.cw, H.half ? 2 : 1,
					    H.top, H.left, H.nr, H.nc, H.ch };
	used.h += hm_footer(&H, r.y + used.h);
	return used;
}

int view_title(struct canvas *c, struct rect r, const char *head,
	       const char *axes, const char *ent)
{
	const struct style ti = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	char rows_part[200], cols_part[200];
	const char *dot = strstr(axes, " · ");
	snprintf(rows_part, sizeof rows_part, "%.*s", dot ? (int)(dot - axes) : (int)strlen(axes), axes);
	snprintf(cols_part, sizeof cols_part, "%s", dot ? dot + strlen(" · ") : "");
	const char *piece[5] = { head, axes, ent, NULL, NULL };
	int np = 3;
	int whole = utf8_width(head) + utf8_width(axes) + utf8_width(ent) + 4;
	if (whole > r.w && utf8_width(head) + 2 + utf8_width(axes) > r.w && dot) {
		piece[1] = rows_part;
		piece[2] = cols_part;
		piece[3] = ent;
		np = 4;
	}
	int x = r.x, y = r.y;
	for (int i = 0; i < np; i++) {
		if (!piece[i] || !*piece[i])
			continue;
		int w = utf8_width(piece[i]);
		if (x > r.x && x + w > r.x + r.w && y < r.y + 2) {
			x = r.x;
			y++;
		}
		const struct style *st = piece[i] == head ? &ti : &mu;
		x += canvas_text(c, x, y, r.x + r.w - x, piece[i], st->fg, st->bg, st->attr) + 2;
	}
	return y - r.y + 1;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	char rtb[64], ctb[64];   /* the axes' titles */
	const struct stage *s = view_stage(v);
	int rows, cols;
	view_dims(s, &rows, &cols);
	const float *m = view_slice(s, v->head);
	struct scale sc = scale_for(s, m, (size_t)rows * cols);
	char head[64] = "", axes[200], ent[160] = "";

	/* title: head, axes, entropy and pattern, on two lines when one is
	 * too narrow (never cut while two lines hold it) */
	if (view_heads(s) > 1)
		snprintf(head, sizeof head, _("head %d of %d"), v->head, view_heads(s));
	snprintf(axes, sizeof axes, _("rows: %s · columns: %s"), view_row_title(s, rtb, sizeof rtb),
		 view_col_title(s, ctb, sizeof ctb));
	if (s->kind == SK_WEIGHTS) {   /* (a lazy trace kept them: no pass over T²) */
		const int hh = s->ndim == 3 ? clampi(v->head, 0, s->shape[0] - 1) : 0;
		const char *pat = s->ndim == 3 ? view_head_pattern(s, hh) : attn_pattern(m, rows, cols);
		snprintf(ent, sizeof ent, _("entropy %.2f bits%s%s"), s->ndim == 3 ?
			 view_head_entropy(s, hh) : attn_entropy(m, rows, cols), *pat ? " · " : "", pat);
		i18n_decimals(ent);
	}
	int tl = view_title(c, r, head, axes, ent);
	if (view_overview(v, c, rect_sub(r, r.x, r.y + tl + 1, r.w, r.h - tl - 1), rows, cols)) {
		overview_draw(v, c, rect_sub(r, r.x, r.y + tl + 1, r.w, r.h - tl - 1), s, m,
			      rows, cols, &sc);
		return;
	}
	int has_inf = 0;
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		has_inf |= isinf(m[i]) && m[i] < 0;
	/* a blank line under a one-line title */
	int ty = tl < 2 ? 2 : tl;
	struct rect area = { r.x, r.y + ty, r.w, r.h - ty - 2 };
	struct rect u = heatmap_draw(c, area, v->tr, s, m, rows, cols, &sc, v->zoom,
				     &v->top, &v->left, v->row, v->col, &v->geom);
	draw_legend(c, r.x, area.y + u.h + 1, r.w, &sc, has_inf);
}

const struct view_class heatmap_view = {
	.name = "heatmap",
	.draw = draw,
};
