/* vectors.c - [tokens × d] activations (embedding, PE, add, norm, FFN): a
 * heatmap with one row a token, plus each row's mean and variance on the
 * right for the stages a norm reads or writes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "palette.h"
#include "view.h"
#include "base/i18n.h"

static int wants_stats(const struct stage *s)
{
	return strstr(s->name, "norm") || strstr(s->name, "add") ||
	       strstr(s->name, "memory");
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	char rtb[64], ctb[64];   /* the axes' titles */
	const struct stage *s = view_stage(v);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	int rows, cols;
	view_dims(s, &rows, &cols);
	const float *m = view_slice(s, 0);
	struct scale sc = scale_for(s, m, (size_t)rows * cols);
	char buf[160];

	snprintf(buf, sizeof buf, _("rows: %s · columns: %s"), view_row_title(s, rtb, sizeof rtb),
		 view_col_title(s, ctb, sizeof ctb));
	int tl = view_title(c, r, "", buf, "");
	int ty = tl < 2 ? 2 : tl;

	int stats = wants_stats(s) && r.w > 40;
	int sw = stats ? 22 : 0;
	struct rect area = { r.x, r.y + ty, r.w - sw, r.h - ty - 2 };
	struct rect u = heatmap_draw(c, area, v->tr, s, m, rows, cols, &sc, v->zoom,
				     &v->top, &v->left, v->row, v->col, &v->geom);
	if (stats && v->geom.valid) {
		int x = r.x + u.w + 2;
		/* the two headings right-aligned over "%8.3f %9.3f" */
		/* TRANSLATORS: column heading over a token's mean, at most 8
		 * columns. */
		const char *hm = _("mean");
		/* TRANSLATORS: column heading, at most 9 columns. */
		const char *hv = _("variance");
		int pm = 8 - utf8_width(hm), pv = 9 - utf8_width(hv);
		snprintf(buf, sizeof buf, "%*s%s %*s%s", pm > 0 ? pm : 0, "", hm,
			 pv > 0 ? pv : 0, "", hv);
		canvas_text(c, x, v->geom.y0 - 1, sw, buf, hd.fg, hd.bg, hd.attr);
		for (int k = 0; k < v->geom.nr; k += v->geom.rh) {
			const float *row = m + (size_t)(v->geom.top + k) * cols;
			double mean = 0, var = 0;
			for (int j = 0; j < cols; j++)
				mean += row[j];
			mean /= cols;
			for (int j = 0; j < cols; j++)
				var += (row[j] - mean) * (row[j] - mean);
			var /= cols;
			snprintf(buf, sizeof buf, "%8.3f %9.3f", mean, var);
			i18n_decimals(buf);
			canvas_text(c, x, grid_row_mid(&v->geom, k), sw, buf,
				    mu.fg, mu.bg, v->geom.top + k == v->row ? ATTR_BOLD : 0);
		}
	}
	draw_legend(c, r.x, area.y + u.h + 1, r.w, &sc, 0);
}

const struct view_class vectors_view = {
	.name = "vectors",
	.draw = draw,
};
