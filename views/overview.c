/* overview.c - a matrix larger than the screen drawn whole: each screen
 * cell (half a line with colour) is a square block of bq × bq entries,
 * coloured by the block's max or mean (v->pool_mean), the zoom said in
 * the title, the cursor's block marked and its exact entry, with its row
 * and column tokens, under the picture.  The heatmap view and the mean
 * over heads use it when even one column a key would show a small part of
 * the matrix (or with z at "overview"); z again shows the numbers around
 * the cursor.
 *
 * Dimension names: n rows (queries), m columns (keys). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"

/* The rows a line: two with half blocks (colour, UTF-8), else one. */
static int rows_a_line(const struct canvas *c)
{
	return c->depth != DEPTH_NONE && !canvas_ascii() ? 2 : 1;
}

int overview_wanted(const struct canvas *c, struct rect r, int n, int m)
{
	/* a one-column-a-key picture shows under half the matrix either way */
	return n > 2 * rows_a_line(c) * r.h || m > 2 * r.w;
}

int view_overview(const struct view_state *v, const struct canvas *c, struct rect r,
		  int n, int m)
{
	return v->zoom == ZOOM_OVERVIEW ||
	       (v->zoom == ZOOM_AUTO && !c->figure && overview_wanted(c, r, n, m));
}

/* The block (i, j) of side b pooled: its max, or the mean of its finite
 * entries; −∞ when they all are. */
static float block(const float *w, int n, int m, int b, int i, int j, int mean)
{
	float mx = -INFINITY;
	double sum = 0;
	long k = 0;
	for (int r = i * b; r < n && r < (i + 1) * b; r++)
		for (int c = j * b; c < m && c < (j + 1) * b; c++) {
			float x = w[(size_t)r * m + c];
			mx = x > mx ? x : mx;
			if (isfinite(x)) {
				sum += x;
				k++;
			}
		}
	return !mean ? mx : k ? (float)(sum / k) : -INFINITY;
}

struct ov_layout {
	int lw;        /* the row labels' width */
	int b;         /* a block's side in entries */
	int pr, pc;    /* blocks down and across */
	int rl;        /* rows (blocks) a line */
	int lines;     /* lines of blocks */
};

static int ov_fit(const struct canvas *c, struct rect r, int n, int m, struct ov_layout *L)
{
	char buf[16];
	L->lw = snprintf(buf, sizeof buf, "%d", n - 1) + 1;
	L->rl = rows_a_line(c);
	const int w = r.w - L->lw, h = r.h - 5;   /* title, ticks, cursor line, legend */
	if (w < 4 || h < 2)
		return 0;
	int bn = (n + L->rl * h - 1) / (L->rl * h), bm = (m + w - 1) / w;
	L->b = bn > bm ? bn : bm;
	L->b = L->b < 1 ? 1 : L->b;
	L->pr = (n + L->b - 1) / L->b;
	L->pc = (m + L->b - 1) / L->b;
	L->lines = (L->pr + L->rl - 1) / L->rl;
	return 1;
}

/* Title: what the picture is and its zoom. */
static int ov_title(struct canvas *c, struct rect r, const struct view_state *v,
		    const struct ov_layout *L, int n, int m)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const int mean = v->pool_mean != 0;
	char buf[256];
	/* TRANSLATORS: the overview of a matrix larger than the screen:
	 * rows × columns, then how many entries a cell shows */
	snprintf(buf, sizeof buf, _("overview %d × %d"), n, m);
	int x = r.x + clip_text(c, r, r.x, r.y, r.w, buf, &hd) + 2;
	snprintf(buf, sizeof buf, mean ?
		 /* TRANSLATORS: the zoom of the overview, and the keys */
		 _("zoom 1:%d, a cell = %d × %d entries, their mean · Z: max · z: numbers") :
		 _("zoom 1:%d, a cell = %d × %d entries, their max · Z: mean · z: numbers"),
		 L->b, L->b, L->b);
	char fit[256];
	text_fit(buf, r.x + r.w - x, fit, sizeof fit);
	clip_text(c, r, x, r.y, r.x + r.w - x, fit, &mu);
	return 1;
}

/* Position ticks over the columns, every ten cells or so. */
static void ov_ticks(struct canvas *c, struct rect r, int y, const struct ov_layout *L)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	char buf[16];
	int end = -1;
	for (int j = 0; j < L->pc; j += 10) {
		int x = r.x + L->lw + j, w = snprintf(buf, sizeof buf, "%d", j * L->b);
		if (x <= end || x + w > r.x + r.w)
			continue;
		clip_text(c, r, x, y, w, buf, &mu);
		end = x + w;
	}
}

/* The cursor's entry: its exact value and its row and column tokens. */
static void ov_cursor(struct canvas *c, struct rect r, int y, const struct view_state *v,
		      const struct stage *s, const float *w, int m)
{
	const struct style cu = role_style(R_CURSOR, c->depth);
	const int ra = s->ndim == 3 ? 1 : 0, ca = s->ndim - 1;
	char rl[96], cl[96], num[32], buf[300];
	trace_axis_label(v->tr, s->axes[ra], v->row, rl, sizeof rl);
	trace_axis_label(v->tr, s->axes[ca], v->col, cl, sizeof cl);
	fmt_cell(num, sizeof num, w[(size_t)v->row * m + v->col]);
	/* TRANSLATORS: the overview's cursor: row position and token,
	 * column position and token, the exact value */
	snprintf(buf, sizeof buf, _("cursor: row %d %s · column %d %s = %s"), v->row, rl,
		 v->col, cl, num);
	clip_text(c, r, r.x, y, r.w, buf, &cu);
}

void overview_draw(struct view_state *v, struct canvas *c, struct rect r,
		   const struct stage *s, const float *w, int n, int m,
		   const struct scale *sc)
{
	struct ov_layout L;
	v->geom.valid = 0;
	if (!w || !ov_fit(c, r, n, m, &L))
		return;
	const int mean = v->pool_mean != 0, color = c->depth != DEPTH_NONE;
	const struct style lab = role_style(R_LABEL, c->depth);
	const int cr = v->row / L.b, cc = v->col / L.b;   /* the cursor's block */
	int y = r.y + ov_title(c, r, v, &L, n, m);
	ov_ticks(c, r, y++, &L);
	char buf[16];
	int has_inf = 0;
	for (int line = 0; line < L.lines; line++, y++) {
		const int i0 = line * L.rl, i1 = L.rl == 2 && i0 + 1 < L.pr ? i0 + 1 : -1;
		if (line % 4 == 0 || (cr >= i0 && cr <= i0 + L.rl - 1)) {
			snprintf(buf, sizeof buf, "%d", i0 * L.b);
			clip_rtext(c, r, r.x, y, L.lw - 1, buf, &lab);
		}
		for (int j = 0; j < L.pc; j++) {
			const int x = r.x + L.lw + j;
			float a = block(w, n, m, L.b, i0, j, mean);
			float b = i1 >= 0 ? block(w, n, m, L.b, i1, j, mean) : NAN;
			has_inf |= (isinf(a) && a < 0) || (isinf(b) && b < 0);
			int cur0 = i0 == cr && j == cc, cur1 = i1 == cr && j == cc;
			if (!color) {
				clip_put(c, r, x, y, cur0 ? "@" : isinf(a) && a < 0 ? NEGINF_GLYPH :
					 scale_glyph(sc, a), COLOR_DEFAULT, COLOR_DEFAULT,
					 cur0 ? ATTR_REVERSE : 0);
			} else if (L.rl == 1) {
				clip_put(c, r, x, y, cur0 ? "●" : " ", CURSOR_MARK, scale_color(sc, a), 0);
			} else if (!cur0 && !cur1 && isinf(a) && a < 0 && (i1 < 0 || (isinf(b) && b < 0))) {
				clip_put(c, r, x, y, NEGINF_GLYPH, NEGINF_FG, NEGINF_BG, 0);
			} else {
				uint32_t bot = i1 < 0 ? COLOR_DEFAULT : cur1 ? CURSOR_MARK : scale_color(sc, b);
				clip_put(c, r, x, y, "▀", cur0 ? CURSOR_MARK : scale_color(sc, a), bot, 0);
			}
		}
	}
	ov_cursor(c, r, y++, v, s, w, m);
	if (y < r.y + r.h)
		draw_legend(c, r.x, y, r.w, sc, has_inf);
}
