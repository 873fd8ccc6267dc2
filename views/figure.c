/* figure.c - a view drawn as a still figure: title, formula and shape
 * above the view, no cursor, no key hints, cut to what was drawn.
 *
 * Dimension names: h heads, n rows (queries, tokens), m columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "figure.h"
#include "palette.h"
#include "base/i18n.h"

#define FIGURE_MAX_H 400

void figure_title(const struct view_state *v, char *buf, size_t n)
{
	const struct stage *s = view_stage(v);
	const int H = view_heads(s);
	char what[96] = "";
	if (H > 1 && (v->mode == VM_MEAN))
		snprintf(what, sizeof what, P_("mean over %d heads", "mean over %d heads", H), H);
	else if (H > 1 && (v->mode == VM_HEADS))
		snprintf(what, sizeof what, P_("all %d heads", "all %d heads", H), H);
	else if (H > 1)
		snprintf(what, sizeof what, _("head %d of %d"), v->head, H);
	snprintf(buf, n, "%s%s%s", s->name, *what ? " · " : "", what);
}

/* Lines the view needs to show the whole stage (the canvas is cut to
 * what is drawn afterwards, so a generous guess costs nothing). */
static int view_lines(const struct view_state *v)
{
	const struct stage *s = view_stage(v);
	int rows, cols, H = view_heads(s);
	view_dims(s, &rows, &cols);
	if (v->dec && ((v->mode == VM_DECODE || v->mode == VM_COMPARE)))
		return 60;
	if (v->mode == VM_MAP)
		return 36;   /* the figure with a line between boxes */
	const struct stage *w = view_attn_weights(v->tr, s);
	if (w && (v->mode == VM_MODEL)) {
		/* a row of tiles a layer, a line a query: as tall as the deepest
		 * stack (the canvas is cut to what is drawn) */
		int L = 0;
		for (int i = 0; i < v->tr->n; i++)
			if (v->tr->stages[i].layer >= L)
				L = v->tr->stages[i].layer + 1;
		return L * (w->shape[1] + 2) + 6;
	}
	if (w && (v->mode == VM_LINES)) {
		int n = w->shape[1] > w->shape[2] ? w->shape[1] : w->shape[2];
		return 2 * n + 5;   /* two lines a token, as render --view */
	}
	if (v->mode == VM_INSPECT)
		return 60;
	if (v->mode == VM_CURVES)
		return 40;   /* the plot takes the height it is given: strips of 7 */
	if (s->kind == SK_LOGITS || s->kind == SK_PROBS || s->kind == SK_LOSS)
		return rows > 20 ? rows + 8 : 28;
	if (v->mode == VM_MASK_DIFF)
		return 2 * rows + 16;
	if (H > 1 && (v->mode == VM_HEADS) && !(v->mode == VM_MEAN))
		return (rows + 4) * H + 8;
	return rows + 10;
}

/* Each visible cell of the view's matrix (v->geom) gets its value and its
 * row and column tokens as a hover text (the SVG's <title>): "“a” × “is” =
 * 0.6101", as the stepper's status line says it. */
static void cell_tips(const struct view_state *v, struct canvas *c)
{
	const struct grid_geom *g = &v->geom;
	const struct stage *s = view_stage(v);
	if (!g->valid || g->rh > 1 || !v->tr || s->dtype != DT_F32 || g->cw < 1)
		return;
	int rows, cols;
	view_dims(s, &rows, &cols);
	const float *m = view_slice(s, s->ndim == 3 ? v->head : 0);
	enum axis ra = s->axes[s->ndim == 3 ? 1 : 0], ca = s->axes[s->ndim - 1];
	const int lines = g->ch > 1 ? g->ch : 1;
	char rl[96], cl[96], num[48], buf[320];
	for (int i = g->top; i < g->top + g->nr && i < rows; i++)
		for (int j = g->left; j < g->left + g->nc && j < cols; j++) {
			trace_row_label(v->tr, ra, i, rl, sizeof rl);
			if (s->ndim > 1)
				trace_axis_label(v->tr, ca, j, cl, sizeof cl);
			fmt_cell(num, sizeof num, m[(size_t)i * cols + j]);
			if (s->ndim > 1)
				snprintf(buf, sizeof buf, "“%s” × “%s” = %s", rl, cl, num);
			else
				snprintf(buf, sizeof buf, "“%s” = %s", rl, num);
			if (canvas_tip(c, g->x0 + (j - g->left) * g->cw, grid_row_top(g, i - g->top),
				       g->cw, lines, buf))
				return;
		}
}

struct canvas *figure_new(struct view_state *v, int width, enum depth d)
{
	const struct stage *s = view_stage(v);
	const struct style ti = role_style(R_HEADER, d);
	const struct style mu = role_style(R_MUTED, d);
	char buf[512], shape[96];
	int h = 3 + view_lines(v);
	if (h > FIGURE_MAX_H)
		h = FIGURE_MAX_H;
	if (width < 20)
		width = 20;
	struct canvas *c = canvas_new(width, h, d);
	if (!c)
		return NULL;
	c->figure = 1;
	struct rect all = { 0, 0, width, h };

	/* title: the stage (and head); the formula and the shape */
	figure_title(v, buf, sizeof buf);
	if (v->dec && ((v->mode == VM_DECODE || v->mode == VM_COMPARE)))
		snprintf(buf, sizeof buf, "%s", v->mode == VM_COMPARE ?
			 _("greedy and beam search side by side") : _("decoding step by step"));
	clip_text(c, all, 0, 0, width, buf, &ti);
	if (!(v->dec && ((v->mode == VM_DECODE || v->mode == VM_COMPARE)))) {
		view_shape_text(s, shape, sizeof shape);
		if (s->wdtype[0])   /* a GGUF model's weight: its type in the file */
			snprintf(shape + strlen(shape), sizeof shape - strlen(shape), " · W %s",
				 s->wdtype);
		snprintf(buf, sizeof buf, "%s%s%s", s->formula && *s->formula ? _(s->formula) : "",
			 s->formula && *s->formula ? "   " : "", shape);
		clip_text(c, all, 0, 1, width, buf, &mu);
	}

	struct rect r = { 0, 3, width, h - 3 };
	view_clamp(v);
	/* (the PE curves' table over more positions than the sentence's is
	 * the caller's: v->pe_table; a view computes no model math) */
	view_for(v)->draw(v, c, r);
	cell_tips(v, c);
	int w2, h2;
	canvas_extent(c, &w2, &h2);
	canvas_crop(c, w2 + 1, h2 + 1);   /* a margin; failing leaves it whole */
	return c;
}
