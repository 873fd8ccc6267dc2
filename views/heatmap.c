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
#define CURSOR_MARK RGB(255, 0, 255)

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

struct rect heatmap_draw(struct canvas *c, struct rect r, const struct trace *t,
			 const struct stage *s, const float *m, int rows,
			 int cols, const struct scale *sc, enum zoom z,
			 int *top, int *left, int crow, int ccol,
			 struct grid_geom *geom)
{
	const int color = c->depth != DEPTH_NONE;
	const enum axis ra = row_axis(s), ca = col_axis(s);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style mut = role_style(R_MUTED, c->depth);
	const struct style cur = role_style(R_CURSOR, c->depth);
	char buf[128];
	struct rect used = { r.x, r.y, 0, 0 };
	/* a figure has no cursor, and cells wide enough for whole labels */
	const int fig = c->figure;
	if (fig)
		crow = ccol = -1;

	/* nothing drawn (too small) leaves no stale geometry for mouse clicks
	 * and the mask diff's −∞ marks */
	if (geom)
		geom->valid = 0;
	/* row label column */
	int lw = 1;
	for (int i = 0; i < rows && i < 4096; i++) {
		row_label(t, ra, i, buf, sizeof buf, fig);
		int w = utf8_width(buf);
		lw = w > lw ? w : lw;
	}
	lw += 1;
	int avail = r.w - lw;
	if (avail < 1 || r.h < 2)
		return used;

	/* column label width (for the header) */
	int clw = 1;
	for (int j = 0; j < cols && j < 4096; j++) {
		label(t, ca, j, buf, sizeof buf, fig);
		int w = utf8_width(buf);
		clw = w > clw ? w : clw;
	}

	/* (two blanks between labels: they stay apart as words in an SVG) */
	const int ncw = fig && clw + 2 > 7 ? (clw + 2 < 24 ? clw + 2 : 24) : 7;
	if (z == ZOOM_BIG && !(cols * 9 <= avail && rows * 3 + 1 <= r.h))
		z = ZOOM_AUTO;
	if (z == ZOOM_AUTO) {
		if (cols * ncw <= avail && rows + 1 <= r.h)
			z = ZOOM_NUMBERS;
		else if (cols * 3 <= avail)
			z = ZOOM_CELLS;
		else
			z = ZOOM_FIT;
	}
	const int cw = z == ZOOM_BIG ? 9 : z == ZOOM_NUMBERS ? ncw : z == ZOOM_CELLS ? 3 : 1;
	const int ch = z == ZOOM_BIG ? 3 : 1;   /* lines per matrix row */
	const int half = z == ZOOM_FIT && color;
	int hh;   /* header rows */
	if (z == ZOOM_CELLS && ca != AX_NONE)
		hh = fig ? clw : clampi(clw, 1, r.h / 3 > 6 ? 6 : (r.h / 3 > 1 ? r.h / 3 : 1));
	else
		hh = 1;
	int vc = avail / cw;
	int vr = (r.h - hh) * (half ? 2 : 1) / ch;
	if (vr < 1)
		return used;
	view_follow(left, ccol, vc, cols);
	view_follow(top, crow, vr, rows);
	int nc = cols - *left < vc ? cols - *left : vc;
	int nr = rows - *top < vr ? rows - *top : vr;

	/* column header */
	int x0 = r.x + lw;
	if (z == ZOOM_CELLS && ca != AX_NONE) {
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			label(t, ca, col, buf, sizeof buf, fig);
			const struct style *st = col == ccol ? &cur : &lab;
			/* one character a row, top to bottom */
			const char *p = buf;
			for (int k = 0; k < hh && *p; k++) {
				char g[8];
				int len = 1;
				unsigned char b0 = (unsigned char)*p;
				if (b0 >= 0xF0) len = 4;
				else if (b0 >= 0xE0) len = 3;
				else if (b0 >= 0xC0) len = 2;
				snprintf(g, sizeof g, "%.*s", len, p);
				p += strnlen(p, (size_t)len);
				canvas_text(c, x0 + j * cw + 1, r.y + k, 1, g, st->fg, st->bg, st->attr);
			}
		}
	} else if (z == ZOOM_NUMBERS || z == ZOOM_BIG) {
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			char raw[96];
			trace_axis_label(t, ca, col, raw, sizeof raw);
			if (ca == AX_NONE)
				snprintf(raw, sizeof raw, "%d", col);
			text_fit(raw, cw - 1, buf, sizeof buf);
			const struct style *st = col == ccol ? &cur : &lab;
			int w = utf8_width(buf);
			canvas_text(c, x0 + j * cw + (cw - 1 - w), r.y, cw - 1, buf,
				    st->fg, st->bg, st->attr);
		}
	} else {
		/* index ticks every 8 (or 4 at cell width) columns */
		int step = cw == 1 ? 8 : 4;
		for (int j = 0; j < nc; j++) {
			int col = *left + j;
			if (col % step == 0 || col == ccol) {
				snprintf(buf, sizeof buf, "%d", col);
				const struct style *st = col == ccol ? &cur : &mut;
				canvas_text(c, x0 + j * cw, r.y, (nc - j) * cw, buf,
					    st->fg, st->bg, st->attr);
			}
		}
	}

	/* rows */
	const int yrows = half ? (nr + 1) / 2 : nr;
	for (int yy = 0; yy < yrows; yy++) {
		int y = r.y + hh + yy * ch + (ch > 1);   /* big cells: the middle line */
		int i0 = *top + yy * (half ? 2 : 1);
		int i1 = half && i0 + 1 < rows && yy * 2 + 1 < nr ? i0 + 1 : -1;
		row_label(t, ra, i0, buf, sizeof buf, fig);
		int on = crow >= 0 && (i0 == crow || i1 == crow);
		const struct style *st = on ? &cur : &lab;
		canvas_text(c, r.x + lw - 1 - utf8_width(buf), y, lw - 1, buf,
			    st->fg, st->bg, st->attr);
		for (int j = 0; j < nc; j++) {
			int col = *left + j, x = x0 + j * cw;
			float v0 = m[(size_t)i0 * cols + col];
			int is_cur = i0 == crow && col == ccol;
			if (half) {
				uint32_t top_c = is_cur ? CURSOR_MARK : scale_color(sc, v0);
				uint32_t bot_c = COLOR_DEFAULT;
				if (i1 >= 0) {
					float v1 = m[(size_t)i1 * cols + col];
					bot_c = (i1 == crow && col == ccol) ? CURSOR_MARK : scale_color(sc, v1);
				}
				/* both halves −∞: the glyph, which reads in every
				 * colour mode (a colour alone may not) */
				if (!is_cur && neg_inf(v0) && (i1 < 0 || (neg_inf(m[(size_t)i1 * cols + col]) &&
								    !(i1 == crow && col == ccol))))
					canvas_put(c, x, y, NEGINF_GLYPH, NEGINF_FG, NEGINF_BG, 0);
				else
					canvas_put(c, x, y, "▀", top_c, bot_c, 0);
				continue;
			}
			uint32_t bg = color ? scale_color(sc, v0) : COLOR_DEFAULT;
			uint32_t fg = color ? contrast_fg(bg) : COLOR_DEFAULT;
			uint8_t attr = 0;
			if (isinf(v0) && v0 < 0 && color)
				fg = NEGINF_FG;
			if (z == ZOOM_NUMBERS || z == ZOOM_BIG) {
				cell_number(buf, sizeof buf, v0, cw, fig);
				if (is_cur) {
					fg = cur.fg; bg = cur.bg; attr = cur.attr | ATTR_UNDERLINE;
					if (!color) attr = ATTR_REVERSE | ATTR_BOLD;
				}
				if (ch > 1) {   /* the cell's colour above and below */
					canvas_fill(c, (struct rect){ x, y - 1, cw - 1, 1 }, " ", fg, bg, 0);
					canvas_fill(c, (struct rect){ x, y + 1, cw - 1, 1 }, " ", fg, bg, 0);
				}
				canvas_text(c, x, y, cw, buf, fg, bg, attr | (ch > 1 ? ATTR_BOLD : 0));
			} else if (z == ZOOM_CELLS) {
				const char *g = color ? " " : scale_glyph(sc, v0);
				if (isinf(v0) && v0 < 0)
					g = NEGINF_GLYPH;
				for (int k = 0; k < cw; k++)
					canvas_put(c, x + k, y, k == 1 || !color ? g : " ",
						   fg, bg, 0);
				if (is_cur) {
					canvas_put(c, x, y, "[", color ? CURSOR_MARK : COLOR_DEFAULT, bg, ATTR_BOLD);
					canvas_put(c, x + cw - 1, y, "]", color ? CURSOR_MARK : COLOR_DEFAULT, bg, ATTR_BOLD);
				}
			} else {
				const char *g = color ? " " : scale_glyph(sc, v0);
				if (is_cur) {
					g = color ? "●" : "@";
					fg = color ? CURSOR_MARK : COLOR_DEFAULT;
					attr = color ? 0 : ATTR_REVERSE;
				}
				canvas_put(c, x, y, g, fg, bg, attr);
			}
		}
	}
	used.w = lw + nc * cw;
	used.h = hh + yrows * ch;
	if (geom)
		*geom = (struct grid_geom){ 1, x0, r.y + hh, cw, half ? 2 : 1,
					    *top, *left, nr, nc, ch };

	/* what is out of sight */
	if ((nr < rows || nc < cols) && used.h < r.h) {
		snprintf(buf, sizeof buf, _("rows %d–%d of %d · cols %d–%d of %d"),
			 *top, *top + nr - 1, rows, *left, *left + nc - 1, cols);
		canvas_text(c, r.x, r.y + used.h, r.w, buf, mut.fg, mut.bg, mut.attr);
		used.h++;
	}
	return used;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct style ti = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	int rows, cols;
	view_dims(s, &rows, &cols);
	const float *m = view_slice(s, v->head);
	struct scale sc = scale_for(s, m, (size_t)rows * cols);
	int x = r.x;
	char buf[160];

	/* title: head, axes, entropy and pattern */
	if (view_heads(s) > 1) {
		snprintf(buf, sizeof buf, _("head %d of %d"), v->head, view_heads(s));
		x += canvas_text(c, x, r.y, r.w, buf, ti.fg, ti.bg, ti.attr) + 2;
	}
	snprintf(buf, sizeof buf, _("rows: %s · columns: %s"), view_row_title(s),
		 view_col_title(s));
	x += canvas_text(c, x, r.y, r.x + r.w - x, buf, mu.fg, mu.bg, mu.attr) + 2;
	if (s->kind == SK_WEIGHTS) {
		const char *pat = attn_pattern(m, rows, cols);
		snprintf(buf, sizeof buf, _("entropy %.2f bits%s%s"),
			 attn_entropy(m, rows, cols), *pat ? " · " : "", pat);
		canvas_text(c, x, r.y, r.x + r.w - x, buf, mu.fg, mu.bg, mu.attr);
	}
	int has_inf = 0;
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		has_inf |= isinf(m[i]) && m[i] < 0;
	struct rect area = { r.x, r.y + 2, r.w, r.h - 4 };
	struct rect u = heatmap_draw(c, area, v->tr, s, m, rows, cols, &sc, v->zoom,
				     &v->top, &v->left, v->row, v->col, &v->geom);
	draw_legend(c, r.x, area.y + u.h + 1, r.w, &sc, has_inf);
}

const struct view_class heatmap_view = {
	.name = "heatmap",
	.draw = draw,
};
