/* map.c - the architecture map: the paper's Figure 1 in the terminal, the
 * encoder stack on the left and the decoder stack on the right (bottom to
 * top: embedding, positional encoding, the layer's sublayers, then linear
 * and softmax), the box of the stage on screen lit and its layer named in
 * the stack's frame.  Every box is a click target (v->map_hits: the stage
 * it leads to, in the layer on screen).  map_draw_mini draws a small one
 * for the stepper's sidebar.
 *
 * The map reads only the trace's stage names, blocks and layers; a model
 * without an encoder (decoder-only) or a decoder (encoder-only) draws one
 * stack. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "base/utf8.h"

/* The boxes of the figure. */
enum elem {
	E_NONE = -1,
	E_SRC_EMB, E_SRC_POS,
	E_ENC_ATT, E_ENC_AN1, E_ENC_FF, E_ENC_AN2, E_ENC_OUT,
	E_TGT_EMB, E_TGT_POS,
	E_DEC_ATT, E_DEC_AN1, E_DEC_CROSS, E_DEC_AN2, E_DEC_FF, E_DEC_AN3, E_DEC_OUT,
	E_LINEAR, E_SOFTMAX, E_COUNT
};

/* Labels: the paper's, a short form (main view under 100 columns) and a
 * tiny one (the sidebar), translated where drawn. */
static const char *const LABEL[E_COUNT][3] = {
	/* TRANSLATORS: the boxes of the architecture map (the paper's Figure
	   1): the full name, a short form of at most 15 columns and a tiny one
	   of at most 9 */
	[E_SRC_EMB] = { N_("Input Embedding"), N_("Input Embed."), N_("Embed") },
	[E_SRC_POS] = { N_("⊕ Positional Encoding"), N_("⊕ Positional"), N_("⊕ Pos") },
	[E_ENC_ATT] = { N_("Multi-Head Attention"), N_("Multi-Head Att."), N_("MH Att") },
	[E_ENC_AN1] = { N_("Add & Norm"), N_("Add & Norm"), N_("Add&Norm") },
	[E_ENC_FF] = { N_("Feed Forward"), N_("Feed Forward"), N_("FFN") },
	[E_ENC_AN2] = { N_("Add & Norm"), N_("Add & Norm"), N_("Add&Norm") },
	[E_ENC_OUT] = { N_("Norm → memory"), N_("Norm → memory"), N_("memory") },
	[E_TGT_EMB] = { N_("Output Embedding"), N_("Output Embed."), N_("Embed") },
	[E_TGT_POS] = { N_("⊕ Positional Encoding"), N_("⊕ Positional"), N_("⊕ Pos") },
	[E_DEC_ATT] = { N_("Masked Multi-Head Attention"), N_("Masked M-H Att."), N_("Masked") },
	[E_DEC_AN1] = { N_("Add & Norm"), N_("Add & Norm"), N_("Add&Norm") },
	[E_DEC_CROSS] = { N_("Multi-Head Attention"), N_("Multi-Head Att."), N_("MH Att") },
	[E_DEC_AN2] = { N_("Add & Norm"), N_("Add & Norm"), N_("Add&Norm") },
	[E_DEC_FF] = { N_("Feed Forward"), N_("Feed Forward"), N_("FFN") },
	[E_DEC_AN3] = { N_("Add & Norm"), N_("Add & Norm"), N_("Add&Norm") },
	[E_DEC_OUT] = { N_("Norm"), N_("Norm"), N_("Norm") },
	[E_LINEAR] = { N_("Linear"), N_("Linear"), N_("Linear") },
	[E_SOFTMAX] = { N_("Softmax"), N_("Softmax"), N_("Softmax") },
};

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The box a stage belongs to.  The sublayers are numbered by their add /
 * norm: the decoder's feed-forward follows add2 without cross-attention. */
static enum elem elem_of(const struct trace *t, const struct stage *s)
{
	const char *n = s->name;
	int cross = trace_find(t, "decoder.0.cross_attn.weights") != NULL;
	switch (s->block) {
	case BLK_SRC:
		return strstr(n, ".pos") || !strcmp(n, "src.input") || strstr(n, "input_norm") ?
		       E_SRC_POS : E_SRC_EMB;
	case BLK_TGT:
		return strstr(n, ".pos") || !strcmp(n, "tgt.input") ? E_TGT_POS : E_TGT_EMB;
	case BLK_ENCODER:
		if (s->layer < 0)
			return E_ENC_OUT;
		if (strstr(n, "self_attn."))
			return E_ENC_ATT;
		if (strstr(n, ".ffn."))
			return E_ENC_FF;
		return ends(n, "1") ? E_ENC_AN1 : E_ENC_AN2;
	case BLK_DECODER:
		if (s->layer < 0)
			return E_DEC_OUT;
		if (strstr(n, "self_attn."))
			return E_DEC_ATT;
		if (strstr(n, "cross_attn."))
			return E_DEC_CROSS;
		if (strstr(n, ".ffn."))
			return E_DEC_FF;
		if (ends(n, "1"))
			return E_DEC_AN1;
		if (ends(n, "2"))
			return cross ? E_DEC_AN2 : E_DEC_AN3;
		return E_DEC_AN3;
	case BLK_OUTPUT:
		if (!strcmp(n, "memory"))
			return E_ENC_OUT;
		return s->kind == SK_LOGITS || s->kind == SK_CLASS_LOGITS ||
		       s->kind == SK_POOLED || s->kind == SK_VECTORS ? E_LINEAR : E_SOFTMAX;
	}
	return E_NONE;
}

/* The stage a click on box e leads to: its first stage in the layer on
 * screen (the same layer number in the other stack, clamped), else in any
 * layer; −1 when the pass has none. */
static int target_of(const struct trace *t, enum elem e, int layer)
{
	int best = -1, best_d = 1 << 30;
	for (int i = 0; i < t->n; i++) {
		const struct stage *s = &t->stages[i];
		if (elem_of(t, s) != e)
			continue;
		int d = s->layer < 0 || layer < 0 ? 0 : s->layer > layer ? s->layer - layer :
			layer - s->layer;
		if (d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

/* A column's width: the longest label of the set, 2 spaces, the frame. */
static int box_width(int form)
{
	int bw = 8;
	for (int e = 0; e < E_COUNT; e++) {
		int w = utf8_width(_(LABEL[e][form])) + (form == 2 ? 2 : 6);
		bw = w > bw ? w : bw;
	}
	return bw;
}

/* Layers of a stack (0 when the pass has none). */
static int stack_layers(const struct trace *t, enum block b)
{
	int n = 0;
	for (int i = 0; i < t->n; i++)
		if (t->stages[i].block == b && t->stages[i].layer >= n)
			n = t->stages[i].layer + 1;
	return n;
}

struct mapctx {
	struct view_state *v;
	struct canvas *c;
	struct rect r;
	int form;          /* label set: 0 full, 1 short, 2 tiny */
	int pitch;         /* lines a box: 2 (separators) or 1 */
	enum elem lit;
	int layer;         /* the layer on screen, or −1 */
};

static void hit(struct mapctx *m, int x, int y, int w, enum elem e)
{
	struct view_state *v = m->v;
	int st = target_of(v->tr, e, m->layer);
	if (st < 0 || v->nmap_hits >= MAP_HITS_MAX)
		return;
	v->map_hits[v->nmap_hits++] = (struct map_hit){ rect_sub(m->r, x, y, w, 1), st };
}

/* Lines column() needs for n boxes of which k exist. */
static int column_h(const struct mapctx *m, const enum elem *el, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += el[i] != E_NONE && target_of(m->v->tr, el[i], -1) >= 0;
	return k ? 2 + k + (m->pitch == 2 ? k - 1 : 0) : 0;
}

/* A column of boxes, top to bottom, at (x, y) w wide: a frame with
 * separators between boxes (pitch 2) or without (pitch 1), title in the
 * top edge.  Boxes the pass lacks (E_NONE, or no stage) are skipped.
 * Returns the lines used. */
static int column(struct mapctx *m, int x, int y, int w, const enum elem *el, int n,
		  const char *title, int framed_title)
{
	struct canvas *c = m->c;
	const struct style bo = role_style(R_BORDER, c->depth);
	const struct style tx = role_style(R_TEXT, c->depth);
	const struct style lit = role_style(R_SELECTED, c->depth);
	const struct style hd = role_style(framed_title ? R_ACCENT : R_HEADER, c->depth);
	char fit[96];
	int k = 0, yy = y;
	if (column_h(m, el, n) == 0)
		return 0;
	clip_put(c, m->r, x, yy, "┌", bo.fg, bo.bg, bo.attr);
	clip_put(c, m->r, x + w - 1, yy, "┐", bo.fg, bo.bg, bo.attr);
	for (int i = 1; i < w - 1; i++)
		clip_put(c, m->r, x + i, yy, "─", bo.fg, bo.bg, bo.attr);
	if (title)
		clip_text(c, m->r, x + 1, yy, w - 2, text_fit(title, w - 2, fit, sizeof fit), &hd);
	yy++;
	for (int i = 0; i < n; i++) {
		if (el[i] == E_NONE || target_of(m->v->tr, el[i], -1) < 0)
			continue;
		if (k++ && m->pitch == 2) {
			clip_put(c, m->r, x, yy, "├", bo.fg, bo.bg, bo.attr);
			clip_put(c, m->r, x + w - 1, yy, "┤", bo.fg, bo.bg, bo.attr);
			for (int j = 1; j < w - 1; j++)
				clip_put(c, m->r, x + j, yy, "╌", bo.fg, bo.bg, bo.attr);
			yy++;
		}
		clip_put(c, m->r, x, yy, "│", bo.fg, bo.bg, bo.attr);
		clip_put(c, m->r, x + w - 1, yy, "│", bo.fg, bo.bg, bo.attr);
		const struct style *st = el[i] == m->lit ? &lit : &tx;
		canvas_fill(c, rect_sub(m->r, x + 1, yy, w - 2, 1), " ", st->fg, st->bg, st->attr);
		const char *lab = text_fit(_(LABEL[el[i]][m->form]), w - 2, fit, sizeof fit);
		int lw = utf8_width(lab);
		clip_text(c, m->r, x + 1 + (w - 2 - lw) / 2, yy, w - 2, lab, st);
		if (el[i] == m->lit && w - 2 - lw >= 4) {
			clip_put(c, m->r, x + 1, yy, "▶", st->fg, st->bg, st->attr | ATTR_BOLD);
			clip_put(c, m->r, x + w - 2, yy, "◀", st->fg, st->bg, st->attr | ATTR_BOLD);
		}
		hit(m, x + 1, yy, w - 2, el[i]);
		yy++;
	}
	clip_put(c, m->r, x, yy, "└", bo.fg, bo.bg, bo.attr);
	clip_put(c, m->r, x + w - 1, yy, "┘", bo.fg, bo.bg, bo.attr);
	for (int i = 1; i < w - 1; i++)
		clip_put(c, m->r, x + i, yy, "─", bo.fg, bo.bg, bo.attr);
	return yy - y + 1;
}

/* The line of box e in a column drawn from y (as column() lays it out). */
static int box_line(const struct mapctx *m, int y, const enum elem *el, int n, enum elem e)
{
	int k = 0, yy = y + 1;
	for (int i = 0; i < n; i++) {
		if (el[i] == E_NONE || target_of(m->v->tr, el[i], -1) < 0)
			continue;
		if (k++ && m->pitch == 2)
			yy++;
		if (el[i] == e)
			return yy;
		yy++;
	}
	return y;
}

static void arrow_up(struct mapctx *m, int x, int y)
{
	const struct style bo = role_style(R_BORDER, m->c->depth);
	clip_put(m->c, m->r, x, y, "▲", bo.fg, bo.bg, bo.attr);
}

/* The stack's frame title: "Encoder ×6", "Encoder · layer 2 of 6". */
static void stack_title(char *buf, size_t n, int dec, int L, int cur, int form)
{
	if (cur >= 0 && form == 0)
		snprintf(buf, n, dec ? _("Decoder · layer %d of %d") : _("Encoder · layer %d of %d"),
			 cur, L);
	else if (cur >= 0)
		snprintf(buf, n, dec ? _("Dec L%d/%d") : _("Enc L%d/%d"), cur, L);
	else
		/* TRANSLATORS: the stack's title on the map: N× layers */
		snprintf(buf, n, dec ? _("Decoder %d×") : _("Encoder %d×"), L);
}

/* Draws the figure in r with label set form and pitch; returns the lines
 * it needs (it draws only when c is not NULL... it always draws: callers
 * choose form and pitch from map_size first). */
static int figure(struct mapctx *m, int draw_it)
{
	const struct trace *t = m->v->tr;
	const int Le = stack_layers(t, BLK_ENCODER), Ld = stack_layers(t, BLK_DECODER);
	const int has_enc = Le > 0, has_dec = Ld > 0;
	const int cross = trace_find(t, "decoder.0.cross_attn.weights") != NULL;
	const struct stage *cur = view_stage(m->v);
	static const enum elem ENC[] = { E_ENC_OUT, E_ENC_AN2, E_ENC_FF, E_ENC_AN1, E_ENC_ATT };
	enum elem DEC[] = { E_DEC_OUT, E_DEC_AN3, E_DEC_FF, E_DEC_AN2, E_DEC_CROSS, E_DEC_AN1,
			    E_DEC_ATT };
	if (!cross) {   /* decoder-only: attention, add & norm, FFN, add & norm */
		DEC[3] = E_NONE;
		DEC[4] = E_NONE;
	}
	static const enum elem TOP[] = { E_SOFTMAX, E_LINEAR };
	static const enum elem SEMB[] = { E_SRC_POS, E_SRC_EMB };
	static const enum elem TEMB[] = { E_TGT_POS, E_TGT_EMB };
	const int bw = box_width(m->form);
	const int gap = m->form == 2 ? 1 : 6;
	const int ncol = has_enc + has_dec;
	const int total_w = ncol * bw + (ncol - 1) * gap;
	const int x0 = m->r.x + (m->r.w > total_w ? (m->r.w - total_w) / 2 : 0);
	const int xe = x0, xd = x0 + (has_enc ? bw + gap : 0);
	const int xtop = has_dec ? xd : xe;

	const int htop = column_h(m, TOP, 2);
	const int hd = has_dec ? column_h(m, DEC, 7) : 0;
	const int he = has_enc ? column_h(m, ENC, 5) : 0;
	const int hs = column_h(m, SEMB, 2), ht = column_h(m, TEMB, 2);
	const int hemb = hs > ht ? hs : ht;
	/* the decoder's bottom and the encoder's bottom on one line; the
	 * top box above the taller stack */
	const int hstack = hd > he ? hd : he;
	const int need = (htop ? htop + 1 : 0) + hstack + 1 + hemb;
	if (!draw_it)
		return need;

	int y = m->r.y;
	const int ys = y + (htop ? htop + 1 : 0);   /* top of the tallest stack */
	const int yb = ys + hstack;              /* line under the stacks */
	if (htop) {
		column(m, xtop, y, bw, TOP, 2, NULL, 0);
		arrow_up(m, xtop + bw / 2, y + htop);
	}
	char title[96];
	if (has_dec) {
		int yd = yb - hd;
		stack_title(title, sizeof title, 1, Ld,
			    cur->block == BLK_DECODER ? cur->layer : -1, m->form);
		column(m, xd, yd, bw, DEC, 7, title, cur->block == BLK_DECODER && cur->layer >= 0);
		arrow_up(m, xd + bw / 2, yb);
		column(m, xd, yb + 1, bw, TEMB, 2, NULL, 0);
	}
	if (has_enc) {
		int ye = yb - he;
		stack_title(title, sizeof title, 0, Le,
			    cur->block == BLK_ENCODER ? cur->layer : -1, m->form);
		column(m, xe, ye, bw, ENC, 5, title, cur->block == BLK_ENCODER && cur->layer >= 0);
		arrow_up(m, xe + bw / 2, yb);
		column(m, xe, yb + 1, bw, SEMB, 2, NULL, 0);
		if (has_dec && cross) {
			/* memory: out of the encoder's top, into the decoder's
			 * cross-attention */
			const struct style ac = role_style(R_ACCENT, m->c->depth);
			const int yc = box_line(m, yb - hd, DEC, 7, E_DEC_CROSS);
			const int xa = xe + bw, xz = xd - 1, xm = xa + (xz - xa) / 2;
			if (yc > ye && xm > xa) {
				for (int xx = xa; xx < xm; xx++)
					clip_put(m->c, m->r, xx, ye, "─", ac.fg, ac.bg, ac.attr);
				clip_put(m->c, m->r, xm, ye, "┐", ac.fg, ac.bg, ac.attr);
				for (int yy = ye + 1; yy < yc; yy++)
					clip_put(m->c, m->r, xm, yy, "│", ac.fg, ac.bg, ac.attr);
				clip_put(m->c, m->r, xm, yc, "└", ac.fg, ac.bg, ac.attr);
				for (int xx = xm + 1; xx < xz; xx++)
					clip_put(m->c, m->r, xx, yc, "─", ac.fg, ac.bg, ac.attr);
			} else {
				for (int xx = xa; xx < xz; xx++)
					clip_put(m->c, m->r, xx, yc, "─", ac.fg, ac.bg, ac.attr);
			}
			clip_put(m->c, m->r, xz, yc, "▶", ac.fg, ac.bg, ac.attr);
		}
	}
	return need;
}

/* Draws the map's legend lines under the figure: the inputs and outputs. */
static void io_lines(struct mapctx *m, struct rect r, int y)
{
	const struct trace *t = m->v->tr;
	const struct style mu = role_style(R_MUTED, m->c->depth);
	char buf[512], fit[512];
	size_t len = 0;
	buf[0] = 0;
	if (t->S > 0) {
		/* TRANSLATORS: under the map: the encoder's input tokens */
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", _("inputs:"));
		for (int i = 0; i < t->S && len + 2 < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, " %s", t->src_tokens[i]);
		clip_text(m->c, r, r.x, y++, r.w, text_fit(buf, r.w, fit, sizeof fit), &mu);
	}
	if (t->T > 0) {
		len = 0;
		/* TRANSLATORS: under the map: the decoder's input, the target
		 * shifted right (<s> first) */
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", _("outputs (shifted right):"));
		for (int i = 0; i < t->T && len + 2 < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, " %s", t->tgt_tokens[i]);
		clip_text(m->c, r, r.x, y, r.w, text_fit(buf, r.w, fit, sizeof fit), &mu);
	}
}

/* Picks the largest form and pitch whose figure fits r (h lines). */
static int fit_form(struct mapctx *m, int w, int h, int min_form)
{
	for (int form = min_form; form <= 2; form++)
		for (int pitch = 2; pitch >= 1; pitch--) {
			m->form = form;
			m->pitch = pitch;
			int bw = box_width(form);
			const struct trace *t = m->v->tr;
			int ncol = (stack_layers(t, BLK_ENCODER) > 0) + (stack_layers(t, BLK_DECODER) > 0);
			int tw = ncol * bw + (ncol - 1) * (form == 2 ? 1 : 6);
			if (tw <= w && figure(m, 0) <= h)
				return 1;
		}
	return 0;
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const struct style ac = role_style(R_ACCENT, c->depth);
	char buf[256], fit[256];
	v->geom.valid = 0;
	v->nmap_hits = 0;
	if (r.w < 1 || r.h < 1)
		return;
	const struct stage *cur = view_stage(v);
	struct mapctx m = { v, c, r, 0, 2, elem_of(v->tr, cur), cur->layer };
	/* TRANSLATORS: the map's title; %s is the stage on screen */
	snprintf(buf, sizeof buf, _("architecture (the paper's Figure 1) · %s"), cur->name);
	clip_text(c, r, r.x, r.y, r.w, text_fit(buf, r.w, fit, sizeof fit), &hd);
	/* the inputs' lines and the hint, then the blank line under the
	 * title, give way to the figure */
	static const int FOOT[][2] = { { 3, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
	int foot = 0, ok = 0;
	struct rect body = r;
	for (size_t k = 0; k < sizeof FOOT / sizeof *FOOT && !ok; k++) {
		foot = FOOT[k][0];
		if (foot == 1 && c->figure)
			foot = 0;
		body = (struct rect){ r.x, r.y + 1 + FOOT[k][1], r.w, r.h - 1 - FOOT[k][1] - foot };
		m.r = body;
		ok = body.h >= 4 && fit_form(&m, body.w, body.h, 0);
	}
	if (!ok) {
		clip_text(c, r, r.x, r.y + 1, r.w, _("too small for the map"), &mu);
		return;
	}
	int need = figure(&m, 0);
	if (body.h > need)
		m.r.y += (body.h - need) / 2;
	m.r = rect_sub(r, m.r.x, m.r.y, m.r.w, need);
	figure(&m, 1);
	if (foot >= 3)
		io_lines(&m, r, r.y + r.h - 3);
	if (foot >= 1 && !c->figure)
		/* TRANSLATORS: the map's key hint */
		clip_text(c, r, r.x, r.y + r.h - 1, r.w,
			  text_fit(_("←→ stage (the lit box follows) · { } layer · click a box to "
				     "jump · Enter or o: back to the stage"), r.w, fit, sizeof fit), &ac);
}

int map_draw_mini(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct stage *cur = view_stage(v);
	struct mapctx m = { v, c, r, 2, 1, elem_of(v->tr, cur), cur->layer };
	if (r.w < 8 || r.h < 4 || !fit_form(&m, r.w, r.h, 2))
		return 0;
	int need = figure(&m, 0);
	m.r = rect_sub(r, r.x, r.y, r.w, need);
	figure(&m, 1);
	return need;
}

const struct view_class map_view = {
	.name = "map",
	.draw = draw,
};
