/* ids.c - token ids: position, token and id, one line each. */
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
	char tok[96], buf[160];
	int n = s->shape[0];

	/* the headings over the columns at 0 ("%8d"), 10 (the token) and 28
	 * (the id), counted in terminal columns */
	/* TRANSLATORS: column headings of the token id list: position (at
	 * most 9 columns), token (at most 17), id. */
	const char *h1 = _("position"), *h2 = _("token"), *h3 = _("id");
	int p1 = 10 - utf8_width(h1), p2 = 18 - utf8_width(h2);
	snprintf(buf, sizeof buf, "%s%*s%s%*s%s", h1, p1 > 1 ? p1 : 1, "", h2,
		 p2 > 1 ? p2 : 1, "", h3);
	canvas_text(c, r.x, r.y, r.w, buf, hd.fg, hd.bg, hd.attr);
	int vis = r.h - 3;
	if (vis < 1)
		return;
	const int cut = n > vis && vis > 1;
	vis -= cut;   /* the line under the list says which are shown */
	if (v->row < v->top) v->top = v->row;
	if (v->row >= v->top + vis) v->top = v->row - vis + 1;
	for (int k = 0; k < vis && v->top + k < n; k++) {
		int i = v->top + k;
		trace_row_label(v->tr, s->axes[0], i, tok, sizeof tok);
		char fit[64];
		text_fit(tok, 16, fit, sizeof fit);
		snprintf(buf, sizeof buf, "%8d  %s", i, fit);
		const struct style *st = i == v->row ? &cur : &tx;
		canvas_text(c, r.x, r.y + 1 + k, r.w, buf, st->fg, st->bg, st->attr);
		snprintf(buf, sizeof buf, "%6d", ids[i]);
		canvas_text(c, r.x + 10 + 18, r.y + 1 + k, 8, buf, st->fg, st->bg, st->attr);
	}
	const int nvis = n - v->top < vis ? n - v->top : vis;
	v->geom = (struct grid_geom){ 1, r.x, r.y + 1, 34, 1, v->top, 0, nvis, 1, 0 };
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
