/* lens.c - the logit lens view: each decoder layer's output read through
 * the final norm and the generator (src/engine/lens.h), layer by layer.
 *
 *   logit lens · top guess per layer, and p of the word finally chosen
 *                  <s> → seu   seu → gato   gato → é
 *   embedding      o     3%    um     1%    o      0%
 *   layer 0        seu  61%    gato  12%    é     40%
 *   layer 1 (out)  seu  89%    gato  99%    é     91%
 *   ─ position 2 “seu → gato”: “gato” is the top guess from layer 1 on
 *   embedding      um 4% · o 3% · …                 gato: rank 37, 0.1%
 *   ...
 *
 * Columns are decoder positions (the cursor's row v->row picks one, as on
 * the output stages), rows the lens rows: the embedding, then each layer.
 * A cell is the row's top-1 token and the probability the row gives the
 * chosen word, accented when the top-1 is the chosen word.  Under the grid,
 * the cursor's position in full: every row's top tokens and the chosen
 * word's rank.  All numbers are the engine's (struct lens). */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/lens.h"
#include "formats/vocab.h"

#define CELL_W 13
#define LABEL_MAX 16

static const char *tok(const struct trace *t, int32_t id, char *buf, size_t n)
{
	const char *s = id >= 0 && t->vocab ? vocab_str(t->vocab, id) : NULL;
	if (!s)
		snprintf(buf, n, "%s", id < 0 ? "·" : "?");
	return s ? s : buf;
}

static void row_label(const struct lens *l, int row, char *buf, size_t n)
{
	if (row == 0)
		/* TRANSLATORS: the first row of the logit lens: the decoder's
		   input embedding (+ position), before any layer */
		snprintf(buf, n, "%s", _("embedding"));
	else if (row == l->L - 1)
		/* TRANSLATORS: the last decoder layer of the logit lens (its
		   output is the model's output) */
		snprintf(buf, n, _("layer %d (out)"), row - 1);
	else
		snprintf(buf, n, _("layer %d"), row - 1);
}

/* Position pos in full from line *y: what it predicts, then each row's
 * top tokens and the chosen word's rank. */
static void detail(const struct view_state *v, struct canvas *c, struct rect r, int pos,
		   int lw, int *yp)
{
	const struct lens *l = v->lens;
	const struct trace *t = v->tr;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	char buf[512], b1[64], b2[64], pc[32];
	int y = *yp;
	trace_row_label(t, AX_TGT, pos, b1, sizeof b1);
	const int32_t ch = l->chosen[pos];
	if (ch < 0)
		snprintf(buf, sizeof buf, _("position %d “%s”: padding, nothing is predicted"), pos, b1);
	else if (l->appears[pos] < 0)
		snprintf(buf, sizeof buf, _("position %d “%s”: “%s” is not the top guess at the end"),
			 pos, b1, tok(t, ch, b2, sizeof b2));
	else if (l->appears[pos] == 0)
		snprintf(buf, sizeof buf, _("position %d “%s”: “%s” is the top guess from the "
					    "embedding on"), pos, b1, tok(t, ch, b2, sizeof b2));
	else
		/* TRANSLATORS: the logit lens: from this layer on, the word the
		   model finally outputs is already its best guess */
		snprintf(buf, sizeof buf, _("position %d “%s”: “%s” is the top guess from layer %d on"),
			 pos, b1, tok(t, ch, b2, sizeof b2), l->appears[pos] - 1);
	clip_text(c, r, r.x, y++, r.w, buf, &hd);
	for (int row = 0; row < l->L && y < r.y + r.h; row++, y++) {
		row_label(l, row, buf, sizeof buf);
		clip_text(c, r, r.x, y, lw - 1, buf, &lab);
		const size_t at = (size_t)row * l->T + pos;
		int x = r.x + lw;
		const int right = ch >= 0 && r.w >= lw + 60 ? 24 : 0;
		for (int k = 0; k < l->K && x < r.x + r.w - right; k++) {
			const int32_t id = l->top[at * l->K + k];
			fmt_pct(pc, sizeof pc, l->top_p[at * l->K + k]);
			text_fit(tok(t, id, b2, sizeof b2), 10, b1, sizeof b1);
			snprintf(buf, sizeof buf, "%s%s %s", k ? " · " : "", b1, pc);
			if (k && x + utf8_width(buf) > r.x + r.w - right - 1)
				break;   /* whole tokens only */
			x += clip_text(c, r, x, y, r.x + r.w - right - x, buf, id == ch ? &ac : &tx);
		}
		if (right) {
			fmt_pct(pc, sizeof pc, l->p_chosen[at]);
			text_fit(tok(t, ch, b2, sizeof b2), 8, b1, sizeof b1);
			/* TRANSLATORS: the chosen word's rank among all the
			   vocabulary at this layer, and its probability */
			snprintf(buf, sizeof buf, _("%s: rank %d, %s"), b1, l->rank_chosen[at], pc);
			clip_rtext(c, r, r.x + r.w - right, y, right, buf,
				   l->rank_chosen[at] == 1 ? &ac : &mu);
		}
	}
	*yp = y;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct lens *l = v->lens;
	const struct trace *t = v->tr;
	if (!view_begin(v, c, r, !l || l->L < 1 || l->T < 1, _("no logit lens for this pass")))
		return;
	const struct roles R = roles_at(c->depth);
	char buf[512], b1[64], b2[64], pc[32];
	const int pos = clampi(v->row, 0, l->T - 1);
	draw_headline(c, r, r.y, _("logit lens: each layer's output through the final norm "
				   "and the generator · top guess, and p of the word finally "
				   "chosen"), _("logit lens: top guess · p(chosen)"));

	/* the grid: label column, then positions scrolled to the cursor */
	int lw = 0;
	for (int row = 0; row < l->L; row++) {
		row_label(l, row, buf, sizeof buf);
		int w = utf8_width(buf);
		lw = w > lw ? w : lw;
	}
	lw = (lw > LABEL_MAX ? LABEL_MAX : lw) + 2;
	const int vis = (r.w - lw) / CELL_W > 0 ? (r.w - lw) / CELL_W : 1;
	view_follow(&v->left, pos, vis, l->T);
	int y = r.y + 1;
	for (int k = 0; k < vis && v->left + k < l->T; k++) {
		const int i = v->left + k;
		trace_row_label(t, AX_TGT, i, buf, sizeof buf);
		text_fit(buf, CELL_W - 1, b1, sizeof b1);
		clip_text(c, r, r.x + lw + k * CELL_W, y, CELL_W - 1, b1, i == pos ? &R.cur : &R.lab);
	}
	y++;
	const int grid_rows = l->L, room = r.y + r.h - y;
	const int rows_shown = grid_rows < room ? grid_rows : room;
	for (int row = 0; row < rows_shown; row++, y++) {
		row_label(l, row, buf, sizeof buf);
		clip_text(c, r, r.x, y, lw - 1, buf, &R.lab);
		for (int k = 0; k < vis && v->left + k < l->T; k++) {
			const int i = v->left + k;
			const size_t at = (size_t)row * l->T + i;
			const int32_t top1 = l->top[at * l->K];
			const int is = l->chosen[i] >= 0 && top1 == l->chosen[i];
			const int x = r.x + lw + k * CELL_W;
			text_fit(tok(t, top1, b2, sizeof b2), 7, b1, sizeof b1);
			clip_text(c, r, x, y, 7, b1, is ? &R.ac : &R.tx);
			if (l->chosen[i] >= 0) {
				fmt_pct(pc, sizeof pc, l->p_chosen[at]);
				clip_rtext(c, r, x + 7, y, 5, pc, is ? &R.ac : &R.mu);
			}
		}
	}
	/* layers and positions out of sight */
	const int nvp = l->T - v->left < vis ? l->T - v->left : vis;
	if (y < r.y + r.h)
		y += draw_shown(c, r, r.x, y, r.w, (struct shown){ SH_LAYERS, 0, rows_shown, grid_rows },
				(struct shown){ SH_POSITIONS, v->left, nvp, l->T }) > 0;
	if (y + 2 >= r.y + r.h)
		return;

	/* the cursor's position in full, then the ones after it while room */
	for (int k = 0; k < l->T && y + 2 < r.y + r.h; k++) {
		y++;
		detail(v, c, r, (pos + k) % l->T, lw, &y);
	}
}

const struct view_class lens_view = {
	.name = "lens",
	.draw = draw,
};
