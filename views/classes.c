/* classes.c - a classifier's answer: one bar per label (its probability)
 * with the logit beside it, the most likely label marked.
 *
 * Dimension names: C labels.  Stages: class_logits [C], class_probs [C];
 * the probabilities are read from class_probs, never recomputed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "base/utf8.h"

#define LABEL_MAX 20          /* columns for a label */

static const struct stage *sibling(const struct trace *t, const char *name, int C)
{
	const struct stage *s = trace_find(t, name);
	return s && s->ndim == 1 && s->shape[0] == C && s->dtype == DT_F32 ? s : NULL;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style cur = role_style(c->figure ? R_HEADER : R_CURSOR, c->depth);
	char buf[256], name[96], fit[96], num[32];
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return;
	if (s->ndim != 1 || s->dtype != DT_F32 || s->shape[0] < 1) {
		clip_text(c, r, r.x, r.y, r.w, _("not a classifier stage"), &mu);
		return;
	}
	const int C = s->shape[0];
	const struct stage *ps = sibling(t, "class_probs", C);
	const struct stage *ls = sibling(t, "class_logits", C);
	const float *p = ps ? stage_f32(ps) : NULL;    /* [C] */
	const float *lg = ls ? stage_f32(ls) : NULL;   /* [C] */
	const float *key = p ? p : lg;
	int best = 0;
	for (int i = 1; i < C; i++)
		best = key[i] > key[best] ? i : best;
	v->row = clampi(v->row, 0, C - 1);

	trace_axis_label(t, AX_CLASS, best, name, sizeof name);
	/* TRANSLATORS: title of the classifier's view: the label with the
	 * largest probability, and how many labels there are. */
	snprintf(buf, sizeof buf, _("the classifier's answer: “%s” (of %d labels)"), name, C);
	clip_text(c, r, r.x, r.y, r.w, buf, &hd);

	int lw = 5;
	for (int i = 0; i < C; i++) {
		trace_axis_label(t, AX_CLASS, i, name, sizeof name);
		int w = utf8_width(name);
		lw = w > lw ? w : lw;
	}
	lw = lw > LABEL_MAX ? LABEL_MAX : lw;
	const int pw = 7, lgw = 10;
	int bw = r.w - 2 - lw - 1 - pw - lgw;
	if (bw > 50)
		bw = 50;
	if (bw < 0)
		bw = 0;
	int y = r.y + 2;
	int vis = r.h - 4 > 1 ? r.h - 4 : 1;
	view_follow(&v->top, v->row, vis, C);
	for (int i = v->top; i < C && y < r.y + r.h - 1; i++, y++) {
		const int on = i == v->row;
		const struct style *st = on ? &cur : i == best ? &ac : &tx;
		clip_text(c, r, r.x, y, 2, i == best ? "▸ " : "  ", st);
		trace_axis_label(t, AX_CLASS, i, name, sizeof name);
		text_fit(name, lw, fit, sizeof fit);
		clip_text(c, r, r.x + 2, y, lw, fit, st);
		int bx = r.x + 2 + lw + 1;
		if (p && bw > 0)
			draw_bar(c, r, bx, y, bw, p[i], st->fg, COLOR_DEFAULT, 0);
		if (p) {
			fmt_pct(num, sizeof num, p[i]);
			snprintf(buf, sizeof buf, "%*s", pw, num);
			clip_text(c, r, bx + bw, y, pw, buf, st);
		}
		if (lg) {
			snprintf(buf, sizeof buf, "%*.4f", lgw, lg[i]);
			clip_text(c, r, bx + bw + pw, y, lgw, i18n_decimals(buf), &tx);
		}
	}
	v->geom = (struct grid_geom){ 1, r.x, r.y + 2, r.w, 1, v->top, 0, vis, 1, 0 };
	if (C > vis && y < r.y + r.h)
		y += draw_shown(c, r, r.x, y, r.w, (struct shown){ SH_ROWS, v->top, y - (r.y + 2), C },
				(struct shown){ 0 }) > 0;
	if (y + 1 < r.y + r.h)
		clip_text(c, r, r.x, y + 1, r.w,
		     _("↑↓ label · bar: probability (class_probs) · right: the logit"), &mu);
}

const struct view_class classes_view = {
	.name = "classes",
	.draw = draw,
};
