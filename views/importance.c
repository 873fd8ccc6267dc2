/* importance.c - the head importance table (src/engine/importance.h):
 * for every attention head, how much log-probability the labels lose when
 * it is zeroed, and with a held-out set the exact match left.
 *
 *   head importance: Σ log p(labels) lost when one head is zeroed (nats)
 *                      head 0   head 1   head 2   head 3
 *   encoder 0 self      +0.02    +1.73    −0.01    +0.40
 *   decoder 1 cross     +9.12    +0.03    …
 *   most important: decoder 1 cross-attention head 0 (+9.12) · …
 *
 * A cell is the drop, its bar the drop against the largest one; the three
 * largest are accented, drops under 0.01 nats muted.  All numbers are the
 * engine's (struct importance). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/importance.h"

#define CELL_W 9

static void kind_label(const struct head_score *h, char *buf, size_t n)
{
	if (h->block == BLK_ENCODER)
		/* TRANSLATORS: a row of the head importance table: the encoder
		   layer's self-attention */
		snprintf(buf, n, _("encoder %d self"), h->layer);
	else if (h->cross)
		/* TRANSLATORS: a decoder layer's cross-attention (short) */
		snprintf(buf, n, _("decoder %d cross"), h->layer);
	else
		snprintf(buf, n, _("decoder %d self"), h->layer);
}

static void head_name(const struct head_score *h, char *buf, size_t n)
{
	if (h->block == BLK_ENCODER)
		snprintf(buf, n, _("encoder %d self-attention head %d"), h->layer, h->head);
	else if (h->cross)
		snprintf(buf, n, _("decoder %d cross-attention head %d"), h->layer, h->head);
	else
		snprintf(buf, n, _("decoder %d self-attention head %d"), h->layer, h->head);
}

/* The rank of head i by drop (0: the largest). */
static int rank_of(const struct importance *imp, int i)
{
	int r = 0;
	for (int j = 0; j < imp->n; j++)
		r += imp->h[j].drop > imp->h[i].drop || (imp->h[j].drop == imp->h[i].drop && j < i);
	return r;
}

/* Head i's cell at (x, y): its bar (against the largest drop mx), the
 * drop, the exact match with it zeroed; `extra` columns more than a
 * cell's own (presenter): the drop first and a bar that long after it. */
static void draw_cell(const struct importance *imp, int i, struct canvas *c, struct rect r,
		      int x, int y, int extra, double mx)
{
	const struct roles R = roles_at(c->depth);
	const struct head_score *s = &imp->h[i];
	const int top = rank_of(imp, i) < 3 && s->drop > 0.01;
	const struct style *st = top ? &R.ac : s->drop < 0 ? &R.wa :
				 fabs(s->drop) < 0.01 ? &R.mu : &R.tx;
	const int bw = extra > 0 ? extra : 2;                     /* the bar */
	const int xd = extra > 0 ? 0 : 2, xbar = extra > 0 ? CELL_W - 2 : 0;
	const int xe = extra > 0 ? xbar + bw + 1 : CELL_W - 1;    /* from x */
	char n1[32], n2[32];
	if (s->drop > 0 && mx > 0 && CELL_W + (imp->nsent > 0 ? 6 : 0) + extra >= 12)
		draw_bar(c, r, x + xbar, y, bw, s->drop / mx, st->fg, st->bg, st->attr);
	snprintf(n1, sizeof n1, "%s%s", s->drop > 0 ? "+" : "", fmt_num(n2, sizeof n2, s->drop, 2));
	clip_rtext(c, r, x + xd, y, CELL_W - 3, n1, st);
	if (imp->nsent > 0 && s->exact >= 0) {
		fmt_pct(n2, sizeof n2, s->exact);
		clip_rtext(c, r, x + xe, y, 6, n2, s->exact < imp->base_exact ? &R.wa : &R.mu);
	}
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct importance *imp = v->imp;
	if (!view_begin(v, c, r, !imp || imp->n < 1, _("no head importance for this pass")))
		return;
	const struct roles R = roles_at(c->depth);
	char buf[512], b1[64], n1[32];
	int y = r.y;
	snprintf(buf, sizeof buf, _("head importance: Σ log p of the labels lost when one head "
				    "is zeroed (nats; with every head Σ −log p = %s over %d labels)"),
		 fmt_num(n1, sizeof n1, imp->base_nll, 3), imp->nlabels);
	draw_headline(c, r, y++, buf, _("head importance: log p lost when zeroed (nats)"));
	if (imp->nsent > 0) {
		fmt_pct(n1, sizeof n1, imp->base_exact);
		snprintf(buf, sizeof buf, _("held-out exact match over %d sentences: %s with every "
					    "head; each cell's second number: with that head zeroed"),
			 imp->nsent, n1);
		clip_text(c, r, r.x, y++, r.w, buf, &R.mu);
	}
	/* rows: one per (block, layer, kind); the heads are consecutive */
	int H = 1;
	while (H < imp->n && imp->h[H].block == imp->h[0].block &&
	       imp->h[H].layer == imp->h[0].layer && imp->h[H].cross == imp->h[0].cross)
		H++;
	const int rows = imp->n / H;
	int lw = 0;
	for (int k = 0; k < rows; k++) {
		kind_label(&imp->h[k * H], buf, sizeof buf);
		int w = utf8_width(buf);
		lw = w > lw ? w : lw;
	}
	lw += 2;
	/* a cell: its bar, the drop, the exact match; presenter: wider, the
	 * drop first and a longer bar after it, the rows up to 3 lines apart */
	const int cw0 = imp->nsent > 0 ? CELL_W + 6 : CELL_W;
	const int cw = view_spread(v->zoom, r.w - lw, H, cw0, cw0 + 24), wide = cw > cw0;
	double mx = 0;
	for (int i = 0; i < imp->n; i++)
		mx = imp->h[i].drop > mx ? imp->h[i].drop : mx;
	const int vis = (r.w - lw) / cw > 0 ? (r.w - lw) / cw : 1;
	if (y < r.y + r.h) {
		for (int h = 0; h < H && h < vis; h++) {
			snprintf(buf, sizeof buf, _("head %d"), h);
			if (wide)
				clip_text(c, r, r.x + lw + h * cw, y, cw - 1, buf, &R.lab);
			else
				clip_rtext(c, r, r.x + lw + h * cw, y, cw - 1, buf, &R.lab);
		}
		y++;
	}
	const int foot = r.y + r.h - y > rows + 1 ? 2 : 0;
	const int p = view_pitch(v->zoom, r.y + r.h - y - foot, rows);
	/* rows or heads out of sight: a line under the table says which */
	const int cut = (vis < H || r.y + r.h - foot - y < rows) && r.y + r.h - foot - y > 1;
	const int nrows = r.y + r.h - foot - cut - y < rows ? r.y + r.h - foot - cut - y : rows;
	for (int k = 0; k < nrows; k++, y += p) {
		kind_label(&imp->h[k * H], buf, sizeof buf);
		clip_text(c, r, r.x, y, lw - 1, buf, &R.lab);
		for (int h = 0; h < H && h < vis; h++)
			draw_cell(imp, k * H + h, c, r, r.x + lw + h * cw, y, cw - cw0, mx);
	}
	y += 1 - p;   /* the line after the last row */
	if (cut)
		y += draw_shown(c, r, r.x, y, r.w, (struct shown){ SH_ROWS, 0, nrows, rows },
				(struct shown){ SH_HEADS, 0, vis < H ? vis : H, H }) > 0;
	if (!foot || y + 1 >= r.y + r.h)
		return;
	/* the three that matter most, in words */
	y++;
	int x = r.x;
	x += clip_text(c, r, x, y, r.w, _("matters most: "), &R.hd);
	for (int k = 0; k < 3 && k < imp->n; k++) {
		int best = -1;
		for (int i = 0; i < imp->n; i++)
			if (rank_of(imp, i) == k)
				best = i;
		if (best < 0)
			break;
		head_name(&imp->h[best], b1, sizeof b1);
		snprintf(buf, sizeof buf, "%s%s (%s%s)", k ? " · " : "", b1,
			 imp->h[best].drop > 0 ? "+" : "", fmt_num(n1, sizeof n1, imp->h[best].drop, 2));
		x += clip_text(c, r, x, y, r.x + r.w - x, buf, k ? &R.tx : &R.ac);
	}
}

const struct view_class importance_view = {
	.name = "importance",
	.draw = draw,
};
