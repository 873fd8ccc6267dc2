/* lattice.c - the decoding page's beam lattice and ranking (part (c) of
 * views/decoding.c): columns = steps, rows = beam slots, a line from every
 * kept continuation to its parent, the candidates pruned at the step on
 * screen under the newest column, and the finished hypotheses ranked by
 * score beside or under it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "lattice.h"
#include "palette.h"
#include "base/i18n.h"

#define LANES_MAX 8      /* connector lanes between lattice columns */

/* One kept continuation: a cell of a lattice column. */
struct lcell {
	const struct cand *cd;   /* NULL: the start column */
	int parent;
};

struct lcol {
	struct lcell live[SLOTS_MAX];
	int nlive;
	const struct cand *fin[SLOTS_MAX];
	int nfin;
};

/* Column j (0: <s>) = the continuations kept at step j-1. */
static void lattice_col(const struct page *P, int j, struct lcol *L)
{
	memset(L, 0, sizeof *L);
	if (j == 0) {
		L->live[0] = (struct lcell){ NULL, -1 };
		L->nlive = 1;
		return;
	}
	const struct decode_step *st = &P->d->steps[j - 1];
	for (int i = 0; i < st->ncands; i++) {
		const struct cand *cd = &st->cands[i];
		if (!cd->kept)
			continue;
		if (cd->finished) {
			if (L->nfin < SLOTS_MAX)
				L->fin[L->nfin++] = cd;
		} else if (L->nlive < SLOTS_MAX) {
			L->live[L->nlive++] = (struct lcell){ cd, cd->parent };
		}
	}
}

/* Lanes for the edges parent → child of a gap.  Edges from one parent in
 * one direction share a lane (a fan: ┬ ├ └).  At every row the lane
 * leaving it must lie left of the lane arriving at it, so that no two lines
 * merge unless they share a parent; straight edges need no lane.  Returns
 * the lane count, or -1 when there is no such order (a swap) or too many. */
static int assign_lanes(const struct lcol *L, int *lane)
{
	const int n = L->nlive;
	int gp[SLOTS_MAX], gdn[SLOTS_MAX], grp[SLOTS_MAX], gl[SLOTS_MAX];
	int indeg[SLOTS_MAX], ng = 0;
	for (int c = 0; c < n; c++) {
		int p = L->live[c].parent, g = 0;
		lane[c] = grp[c] = -1;
		if (p < 0 || p == c)
			continue;
		while (g < ng && !(gp[g] == p && gdn[g] == (c > p)))
			g++;
		if (g == ng) {
			gp[ng] = p;
			gdn[ng] = c > p;
			gl[ng] = -1;
			indeg[ng++] = 0;
		}
		grp[c] = g;
	}
	/* group g leaves row gp[g]; the group arriving there must come after */
	for (int g = 0; g < ng; g++)
		if (gp[g] < n && grp[gp[g]] >= 0)
			indeg[grp[gp[g]]]++;
	for (int nl = 0; nl < ng; nl++) {
		int pick = -1;
		for (int g = 0; g < ng && pick < 0; g++)
			if (gl[g] < 0 && indeg[g] == 0)
				pick = g;
		if (pick < 0 || nl >= LANES_MAX)
			return -1;
		gl[pick] = nl;
		if (gp[pick] < n && grp[gp[pick]] >= 0)
			indeg[grp[gp[pick]]]--;
	}
	for (int c = 0; c < n; c++)
		if (grp[c] >= 0)
			lane[c] = gl[grp[c]];
	return ng;
}

enum { DN = 1, DS = 2, DW = 4, DE = 8 };

static const char *box(int m)
{
	static const char *const g[16] = {
		" ", "│", "│", "│", "─", "┘", "┐", "┤",
		"─", "└", "┌", "├", "─", "┴", "┬", "┼",
	};
	return g[m & 15];
}

static int cell_w(int j, int tw, int sw, int rootw)
{
	return j == 0 ? 1 + rootw : 1 + tw + 1 + sw;
}

/* The gap before column j: " " + connectors; lanes or ↖/↙ markers. */
static int gap_w(int nl)
{
	return nl < 0 ? 1 + 3 : 1 + 2 + nl;
}

static void draw_gap(struct canvas *c, struct rect r, int x, int y0,
		     const struct lcol *L, int nl, const int *lane, int path_child,
		     const struct style *ln, const struct style *pa)
{
	char buf[16];
	if (nl < 0) {
		/* markers: the parent's slot, up or down */
		for (int ch = 0; ch < L->nlive; ch++) {
			int p = L->live[ch].parent;
			const struct style *st = ch == path_child ? pa : ln;
			if (p == ch)
				clip_text(c, r, x + 1, y0 + ch, 3, "───", st);
			else {
				snprintf(buf, sizeof buf, "%s%d", p < ch ? "↖" : "↙", p);
				clip_rtext(c, r, x + 1, y0 + ch, 3, buf, st);
			}
		}
		return;
	}
	const int gw = 2 + nl;
	uint8_t m[LANES_MAX + 2][SLOTS_MAX], hot[LANES_MAX + 2][SLOTS_MAX];
	int rows = 0;
	memset(m, 0, sizeof m);
	memset(hot, 0, sizeof hot);
	for (int ch = 0; ch < L->nlive; ch++) {
		int p = L->live[ch].parent, on = ch == path_child;
		if (p < 0 || p >= SLOTS_MAX)
			continue;
		rows = ch + 1 > rows ? ch + 1 : rows;
		rows = p + 1 > rows ? p + 1 : rows;
		if (p == ch) {
			for (int k = 0; k < gw; k++) {
				m[k][ch] |= DW | DE;
				hot[k][ch] |= on;
			}
			continue;
		}
		int L1 = 1 + lane[ch], down = ch > p;
		for (int k = 0; k < L1; k++) {
			m[k][p] |= DW | DE;
			hot[k][p] |= on;
		}
		m[L1][p] |= DW | (down ? DS : DN);
		hot[L1][p] |= on;
		for (int y = (down ? p : ch) + 1; y < (down ? ch : p); y++) {
			m[L1][y] |= DN | DS;
			hot[L1][y] |= on;
		}
		m[L1][ch] |= (down ? DN : DS) | DE;
		hot[L1][ch] |= on;
		for (int k = L1 + 1; k < gw; k++) {
			m[k][ch] |= DW | DE;
			hot[k][ch] |= on;
		}
	}
	for (int y = 0; y < rows; y++)
		for (int k = 0; k < gw; k++)
			if (m[k][y])
				clip_puts(c, r, x + 1 + k, y0 + y, box(m[k][y]), hot[k][y] ? pa : ln);
}

/* The lattice's columns 0…ncol-1 with their lanes and widths. */
struct lat {
	int ncol;
	struct lcol *col;            /* [ncol] */
	int (*lanes)[SLOTS_MAX];     /* [ncol] lane of each child's edge */
	int *nl;                     /* [ncol] lanes of the gap before (-1: markers) */
	int tw, sw, nslots, maxfin;  /* token and score widths, rows */
};

static void lat_free(struct lat *L)
{
	free(L->col);
	free(L->lanes);
	free(L->nl);
}

static int lat_build(const struct page *P, int ncol, struct lat *L)
{
	char b[32], n1[32];
	memset(L, 0, sizeof *L);
	L->ncol = ncol;
	L->col = malloc((size_t)ncol * sizeof *L->col);
	L->lanes = malloc((size_t)ncol * sizeof *L->lanes);
	L->nl = malloc((size_t)ncol * sizeof *L->nl);
	if (!L->col || !L->lanes || !L->nl) {
		lat_free(L);
		return -1;
	}
	L->tw = 3;
	L->sw = 4;
	L->nslots = 1;
	for (int j = 0; j < ncol; j++) {
		struct lcol *C = &L->col[j];
		lattice_col(P, j, C);
		L->nl[j] = j ? assign_lanes(C, L->lanes[j]) : 0;
		L->nslots = C->nlive > L->nslots ? C->nlive : L->nslots;
		L->maxfin = C->nfin > L->maxfin ? C->nfin : L->maxfin;
		for (int i = 0; j && i < C->nlive; i++) {
			const struct cand *cd = C->live[i].cd;
			int w = utf8_width(page_tok(P, cd->token, b, sizeof b));
			L->tw = w > L->tw ? w : L->tw;
			w = utf8_width(fmt_num(n1, sizeof n1, cd->score, 2));
			L->sw = w > L->sw ? w : L->sw;
		}
	}
	L->tw = L->tw > TOKEN_MAX ? TOKEN_MAX : L->tw;
	return 0;
}

/* Which columns fit in w (the newest always, then back towards the
 * oldest): the first shown, and each shown column's x from the lattice's
 * left edge in colx[j].  Returns the first column. */
static int lat_place(const struct page *P, const struct lat *L, int w, int *colx)
{
	char rootb[48];
	const int rootw = utf8_width(page_label(P, P->prompt[P->np - 1], rootb, sizeof rootb));
	const int lw = 2 + (L->nslots > 10 ? 2 : 1) + 1;
	int first = L->ncol - 1, used = lw + cell_w(first, L->tw, L->sw, rootw);
	while (first > 0) {
		int add = gap_w(L->nl[first]) + cell_w(first - 1, L->tw, L->sw, rootw);
		if (used + add > w)
			break;
		used += add;
		first--;
	}
	int x = lw;
	for (int j = first; j < L->ncol; j++) {
		if (j > first)
			x += gap_w(L->nl[j]);
		colx[j] = x;
		x += cell_w(j, L->tw, L->sw, rootw);
	}
	return first;
}

/* The text of a finished marker: "● </s> −4.70 from #0". */
static const char *fin_text(const struct cand *cd, char *buf, size_t n)
{
	char n1[32];
	/* TRANSLATORS: a hypothesis that ended: its score and the slot it
	 * came from. */
	snprintf(buf, n, _("● </s> %s from #%d"), fmt_num(n1, sizeof n1, cd->score, 2),
		 cd->parent);
	return buf;
}

/* Lays out the finished markers of the shown columns under the slots,
 * each at its column's x, on the first line where it does not touch the
 * one before it (no two ever overlap).  row[j][i] is marker i of column
 * j's line; returns the lines used. */
static int fin_place(const struct lat *L, int first, const int *colx,
		     int (*row)[SLOTS_MAX])
{
	int end[SLOTS_MAX * 4], nrows = 0;   /* where each line is free from */
	char buf[96];
	for (int j = first; j < L->ncol; j++)
		for (int i = 0; i < L->col[j].nfin; i++) {
			int x = colx[j], w = utf8_width(fin_text(L->col[j].fin[i], buf, sizeof buf));
			int k = 0;
			while (k < nrows && end[k] > x)
				k++;
			if (k == nrows && nrows < (int)(sizeof end / sizeof *end))
				nrows++;
			if (k >= nrows)
				k = nrows - 1;
			end[k] = x + w + 1;
			row[j][i] = k;
		}
	return nrows;
}

/* Rows the ranking needs (title + entries visible, or a "none" line). */
int ranking_rows(const struct page *P)
{
	int n = 0;
	for (int f = 0; f < P->d->nfinished; f++)
		n += page_fin_visible(P, f);
	return 1 + (n ? n : 1);
}

void ranking_draw(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct decode_result *d = P->d;
	char buf[512], n1[32], n2[32], b[32];
	if (r.h < 1 || r.w < 1)
		return;
	const int last = P->s == P->N - 1;
	const char *title = last ? _("final ranking, best first: score · log p · output") :
			    _("finished so far (</s>)");
	if (last && utf8_width(title) > r.w)
		/* TRANSLATORS: the short form of "final ranking, best first:
		   score · log p · output" */
		title = _("final ranking: score · log p · output");
	clip_text(c, r, r.x, r.y, r.w, title, &hd);
	int y = r.y + 1, shown = 0, rank = 0;
	const int sw = 7;
	for (int f = 0; f < d->nfinished && y < r.y + r.h; f++) {
		if (!page_fin_visible(P, f))
			continue;
		const struct hyp *h = &d->finished[f];
		rank++;
		snprintf(buf, sizeof buf, "%d", rank);
		int x = r.x;
		const struct style *st = rank == 1 && last ? &gd : &tx;
		clip_rtext(c, r, x, y, 2, buf, st);
		x += 3;
		clip_rtext(c, r, x, y, sw, fmt_num(n1, sizeof n1, h->score, 3), st);
		x += sw + 1;
		if (r.w >= 36) {
			clip_rtext(c, r, x, y, sw + 1, fmt_num(n2, sizeof n2, h->logp, 3), &mu);
			x += sw + 3;
		}
		size_t used = 0;
		buf[0] = 0;
		for (int i = 0; i < h->n && used < sizeof buf - 40; i++)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
						 i ? " " : "", page_tok(P, h->ids[i], b, sizeof b));
		snprintf(buf + used, sizeof buf - used, "%s",
			 d->hit_max_len ? _(" (no </s>)") : " </s>");
		char fit[512];
		text_fit(buf, r.x + r.w - x, fit, sizeof fit);
		clip_text(c, r, x, y, r.x + r.w - x, fit, st);
		y++;
		shown++;
	}
	if (!shown && y < r.y + r.h)
		/* TRANSLATORS: no finished hypothesis yet. */
		clip_text(c, r, r.x, y, r.w, _("none yet"), &mu);
}

/* Pruned candidates of step s: how many. */
static int npruned(const struct page *P)
{
	const struct decode_step *st = &P->d->steps[P->s];
	int n = 0;
	for (int i = 0; i < st->ncands; i++)
		n += !st->cands[i].kept;
	return n;
}

/* rank_w: width the lattice keeps when the ranking goes to its right
 * (0: the ranking goes under it). */
/* Under the newest column (from px0): the np candidates step s pruned,
 * down to line bottom.  Returns the line after them. */
static int draw_pruned(const struct page *P, struct canvas *c, struct rect lr, int yp,
		       int bottom, int px0, int tw, int sw, int np)
{
	const struct style mu = role_style(R_MUTED, c->depth);
	char buf[160], b[32], n1[32];
	const struct decode_step *st = &P->d->steps[P->s];
	snprintf(buf, sizeof buf, _("✗ pruned at step %d: %d"), P->s + 1, np);
	int need = 2 + tw + 1 + sw + 8, px = px0;
	need = utf8_width(buf) > need ? utf8_width(buf) : need;
	if (lr.x + lr.w - px < need)
		px = lr.x + lr.w - need > lr.x ? lr.x + lr.w - need : lr.x;
	int pw = lr.x + lr.w - px;
	clip_text(c, lr, px, yp++, pw, buf, &mu);
	int room = bottom - yp, shown = 0;
	int show = np <= room ? np : room >= 2 ? room - 1 : 0;
	for (int i = 0; i < st->ncands && shown < show; i++) {
		const struct cand *cd = &st->cands[i];
		if (cd->kept)
			continue;
		text_fit(page_tok(P, cd->token, b, sizeof b), tw, n1, sizeof n1);
		int xx = px;
		xx += clip_text(c, lr, xx, yp, 2, "✗ ", &mu);
		clip_text(c, lr, xx, yp, tw, n1, &mu);
		xx += tw + 1;
		clip_rtext(c, lr, xx, yp, sw, fmt_num(n1, sizeof n1, cd->score, 2), &mu);
		xx += sw + 1;
		snprintf(buf, sizeof buf, _("from #%d"), cd->parent);
		clip_text(c, lr, xx, yp, lr.x + lr.w - xx, buf, &mu);
		yp++;
		shown++;
	}
	if (shown < np && show > 0) {
		snprintf(buf, sizeof buf, _("  ⋮ %d more"), np - shown);
		clip_text(c, lr, px, yp++, pw, buf, &mu);
	}
	return yp;
}

/* The lattice's title on r's first line: the long form, or the short one
 * without the score's formula. */
static void lattice_title(const struct page *P, struct canvas *c, struct rect r)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	char buf[160];
	snprintf(buf, sizeof buf, P_("beam: %d slot · cell = token and score "
				     "(Σ log p ÷ ((5+n)/6)^α) · ▸ followed",
				     "beam: %d slots · cell = token and score "
				     "(Σ log p ÷ ((5+n)/6)^α) · ▸ followed", P->beam), P->beam);
	if (utf8_width(buf) > r.w)
		/* TRANSLATORS: the short form of the lattice's title above */
		snprintf(buf, sizeof buf, P_("beam: %d slot · cell = token and score · ▸ followed",
					     "beam: %d slots · cell = token and score · ▸ followed",
					     P->beam), P->beam);
	clip_text(c, r, r.x, r.y, r.w, buf, &hd);
}

void lattice_draw(const struct page *P, struct canvas *c, struct rect r, int rank_w)
{
	const int rank_right = rank_w > 0;
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lab = role_style(R_LABEL, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	const struct style gd = role_style(R_GOOD, c->depth);
	const struct style bo = role_style(R_BORDER, c->depth);
	char buf[160], b[32], n1[32];
	if (r.h < 1 || r.w < 1)
		return;
	struct lat La;
	if (lat_build(P, P->s + 2, &La))   /* <s> and steps 1…s+1 */
		return;
	const int ncol = La.ncol, tw = La.tw, sw = La.sw, nslots = La.nslots;
	const struct lcol *col = La.col;
	const int *nl = La.nl;
	int (*lanes)[SLOTS_MAX] = La.lanes;
	char rootb[48];
	const int rootw = utf8_width(page_label(P, P->prompt[P->np - 1], rootb, sizeof rootb));

	/* the ranking beside the lattice takes the right of r */
	struct rect lr = r;
	if (rank_right) {
		lr.w = rank_w;
		struct rect rr = rect_sub(r, r.x + lr.w + 2, r.y, r.w - lr.w - 2, r.h);
		for (int y = rr.y; y < rr.y + rr.h; y++)
			clip_puts(c, r, rr.x - 2, y, "│", &bo);
		ranking_draw(P, c, rr);
	}

	lattice_title(P, c, lr);

	/* which columns fit: the newest always, then back to the oldest */
	int lw = 2 + (nslots > 10 ? 2 : 1) + 1;
	int *colx = malloc((size_t)ncol * sizeof *colx);
	int (*finrow)[SLOTS_MAX] = malloc((size_t)ncol * sizeof *finrow);
	if (!colx || !finrow) {
		free(colx);
		free(finrow);
		lat_free(&La);
		return;
	}
	int first = lat_place(P, &La, lr.w, colx);
	const int nfinrows = fin_place(&La, first, colx, finrow);
	const int yh = lr.y + 1, y0 = lr.y + 2;
	if (first > 0)
		clip_text(c, lr, lr.x, yh, lw, "…", &mu);
	for (int b2 = 0; b2 < nslots; b2++) {
		snprintf(buf, sizeof buf, "#%d", b2);
		clip_text(c, lr, lr.x, y0 + b2, lw, buf, b2 == P->hyp ? &ac : &lab);
	}
	int x = lr.x + lw, colx_new = x;
	for (int j = first; j < ncol; j++) {
		if (j > first) {
			int path_child = j <= P->s ? P->anc[j] : -1;
			draw_gap(c, lr, x, y0, &col[j], nl[j], lanes[j], path_child, &bo, &ac);
			x += gap_w(nl[j]);
		}
		if (j == ncol - 1)
			colx_new = x;
		/* header: the step that produced the column */
		if (j > 0) {
			/* TRANSLATORS: heading of a lattice column, at most 8
			 * columns. */
			snprintf(buf, sizeof buf, _("step %d"), j);
			clip_text(c, lr, x + 1, yh, cell_w(j, tw, sw, rootw) - 1, buf,
			     j == ncol - 1 ? &hd : &mu);
		}
		for (int i = 0; i < col[j].nlive; i++) {
			const struct lcell *lc = &col[j].live[i];
			int on_path = j <= P->s && P->anc[j] == i;
			int followed = j == P->s && i == P->hyp;
			const struct style *st = on_path ? &ac : j == ncol - 1 ? &tx : &mu;
			int y = y0 + i;
			if (followed)
				clip_puts(c, lr, x, y, "▸", &ac);
			if (!lc->cd) {
				clip_text(c, lr, x + 1, y, rootw, page_label(P, P->prompt[P->np - 1], rootb,
									   sizeof rootb), st);
				continue;
			}
			text_fit(page_tok(P, lc->cd->token, b, sizeof b), tw, buf, sizeof buf);
			clip_text(c, lr, x + 1, y, tw, buf, st);
			clip_rtext(c, lr, x + 2 + tw, y, sw, fmt_num(n1, sizeof n1, lc->cd->score, 2), st);
		}
		/* hypotheses that ended here, under the slots (fin_place) */
		for (int i = 0; i < col[j].nfin; i++)
			clip_text(c, lr, x, y0 + nslots + finrow[j][i], lr.x + lr.w - x,
				  fin_text(col[j].fin[i], buf, sizeof buf), &gd);
		x += cell_w(j, tw, sw, rootw);
	}

	/* under the newest column: what step s pruned */
	int yp = y0 + nslots + nfinrows;
	int bottom = lr.y + lr.h;
	if (!rank_right)
		bottom = r.y + r.h - (r.h - (yp - r.y) >= ranking_rows(P) + 2 ?
				      ranking_rows(P) + 1 : 0);
	int np = npruned(P);
	if (np && yp < bottom)
		yp = draw_pruned(P, c, lr, yp, bottom, colx_new, tw, sw, np);
	if (!rank_right) {
		int ry = yp + 1 > y0 + nslots + nfinrows + 1 ? yp + 1 : y0 + nslots + nfinrows + 1;
		if (ry < r.y + r.h)
			ranking_draw(P, c, rect_sub(r, r.x, ry, r.w, r.y + r.h - ry));
	}
	free(colx);
	free(finrow);
	lat_free(&La);
}

/* Natural width of the lattice with every column (for the ranking): the
 * slot labels, the cells and gaps, the pruned list's overhang. */
int lattice_width(const struct page *P)
{
	struct lat L;
	if (lat_build(P, P->N + 1, &L))
		return 1 << 20;
	int w = 2 + (L.nslots > 10 ? 2 : 1) + 1;
	char rootb[48];
	const int rootw = utf8_width(page_label(P, P->prompt[P->np - 1], rootb, sizeof rootb));
	for (int j = 0; j < L.ncol; j++)
		w += (j ? gap_w(L.nl[j]) : 0) + cell_w(j, L.tw, L.sw, rootw);
	w += 2 + 8;   /* "✗ " and " from #k" of the pruned list */
	lat_free(&L);
	return w < 60 ? 60 : w;
}

void lattice_rows(const struct page *P, int rank_beside, int w, int *min, int *want)
{
	struct lat L;
	*min = *want = 0;
	if (lat_build(P, P->s + 2, &L))
		return;
	int np = npruned(P), nfinrows = L.maxfin;
	int *colx = malloc((size_t)L.ncol * sizeof *colx);
	int (*finrow)[SLOTS_MAX] = malloc((size_t)L.ncol * sizeof *finrow);
	if (colx && finrow)
		nfinrows = fin_place(&L, lat_place(P, &L, w, colx), colx, finrow);
	free(colx);
	free(finrow);
	*min = 2 + L.nslots;
	*want = *min + nfinrows + (np ? 1 + (np < 6 ? np : 6) : 0) +
		(rank_beside ? 0 : 1 + ranking_rows(P));
	lat_free(&L);
}
