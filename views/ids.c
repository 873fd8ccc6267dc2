/* ids.c - token ids: position, token and id, one line each (presenter:
 * spread over the screen). */
#include <stdio.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const int32_t *ids = s->data;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	char tok[96], buf[320];
	int n = s->shape[0];

	/* the columns (position, token, id) 10, 18 and 8 wide; presenter:
	 * up to 3 times as wide, the rows up to 3 lines apart */
	const int f = view_spread(v->zoom, r.w, 36, 1, 3);
	const int xt = 10 * f, xi = 28 * f;
	/* the headings over the columns at 0, xt (the token) and xi (the
	 * id), counted in terminal columns */
	/* TRANSLATORS: column headings of the token id list: position (at
	 * most 9 columns), token (at most 17), id. */
	const char *h1 = _("position"), *h2 = _("token"), *h3 = _("id");
	int p1 = xt - utf8_width(h1), p2 = xi - xt - utf8_width(h2);
	snprintf(buf, sizeof buf, "%s%*s%s%*s%s", h1, p1 > 1 ? p1 : 1, "", h2,
		 p2 > 1 ? p2 : 1, "", h3);
	canvas_text(c, r.x, r.y, r.w, buf, hd.fg, hd.bg, hd.attr);
	const int lines = r.h - 3, pitch = view_pitch(v->zoom, lines, n);
	int vis = lines / pitch;
	if (vis < 1)
		return;
	const int cut = n > vis && vis > 1;
	vis -= cut;   /* the line under the list says which are shown */
	if (v->row < v->top) v->top = v->row;
	if (v->row >= v->top + vis) v->top = v->row - vis + 1;
	for (int k = 0; k < vis && v->top + k < n; k++) {
		int i = v->top + k, y = r.y + 1 + k * pitch;
		trace_row_label(v->tr, s->axes[0], i, tok, sizeof tok);
		char fit[128];
		text_fit(tok, xi - xt - 2, fit, sizeof fit);
		/* the position under its heading, the token in its column */
		snprintf(buf, sizeof buf, "%8d%*s%s", i, xt - 8, "", fit);
		const struct style *st = i == v->row ? &cur : &tx;
		canvas_text(c, r.x, y, r.w, buf, st->fg, st->bg, st->attr);
		snprintf(buf, sizeof buf, "%6d", ids[i]);
		canvas_text(c, r.x + xi, y, 8, buf, st->fg, st->bg, st->attr);
	}
	const int nvis = n - v->top < vis ? n - v->top : vis;
	v->geom = (struct grid_geom){ 1, r.x, r.y + 1, xi + 6, 1, v->top, 0, nvis, 1, pitch };
	if (cut)
		draw_shown(c, r, r.x, r.y + 1 + vis, r.w,
			   (struct shown){ SH_POSITIONS, v->top, nvis, n }, (struct shown){ 0 });
	canvas_text(c, r.x, r.y + r.h - 1, r.w,
		    _("ids index the embedding table: row id of E is the token's vector"),
		    mu.fg, mu.bg, mu.attr);
}

const struct view_class ids_view = {
	.name = "ids",
	.draw = draw,
};
