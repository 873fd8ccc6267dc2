/* rotary.c - the rotary position embedding as a picture: how far each
 * dimension pair of q and k is turned at each position.
 *
 * RoPE turns the pair (j, j + dk/2) of a head's q and k at position p by
 * the angle p·θ_j (rope.h).  One row a pair, one column a position: an
 * arrow pointing along the angle (→ 0, ↑ 90°, ← 180°, ↓ 270°) and, with
 * colour, a hue going once round the colour wheel per turn.  The first
 * pairs turn fast (a period of a few positions), the last barely move: q·k
 * then depends on how far apart two tokens are, at every scale.  The
 * sentence's positions are drawn bright, the ones after it dim.
 *
 * Dimension names: P positions drawn, J pairs (dk/2).  The frequencies
 * come from the trace (tr->rope_inv, what the pass used); the angle of a
 * cell is only its coordinate p·θ_j. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"

static const char *const ARROW[8] = { "→", "↗", "↑", "↖", "←", "↙", "↓", "↘" };

/* A hue for an angle in [0, 2π): the colour wheel, full saturation. */
static uint32_t hue(double a)
{
	double h = a / (2 * M_PI) * 6, f = h - floor(h);
	int i = (int)floor(h) % 6;
	int q = (int)lround(255 * (1 - f)), t = (int)lround(255 * f);
	switch (i) {
	case 0: return RGB(255, t, 0);
	case 1: return RGB(q, 255, 0);
	case 2: return RGB(0, 255, t);
	case 3: return RGB(0, q, 255);
	case 4: return RGB(t, 0, 255);
	default: return RGB(255, 0, q);
	}
}

/* The label of pair j: its index, θ_j, and the positions of a whole turn
 * (2π/θ_j), in the columns the header names. */
static void pair_label(char *buf, size_t n, int j, float th)
{
	const double period = th > 0 ? 2 * M_PI / th : INFINITY;
	char a[24], b[24];
	snprintf(buf, n, "%3d %9s %9s", j, fmt_sig(a, sizeof a, NULL, th, 3),
		 fmt_sig(b, sizeof b, NULL, period, 3));
}

static void draw(struct view_state *v, struct canvas *c, struct rect r)
{
	const struct trace *t = v->tr;
	const struct stage *s = view_stage(v);
	const struct roles ro = roles_at(c->depth);
	const int color = c->depth != DEPTH_NONE;
	char buf[160];

	v->geom.valid = 0;
	if (r.w < 20 || r.h < 6)
		return;
	if (!t->rope_inv || t->rope_pairs < 1 || s->ndim != 3) {
		clip_text(c, r, r.x, r.y, r.w, _("this model has no rotary embeddings"), &ro.mu);
		return;
	}
	const int J = t->rope_pairs, n = s->shape[1];   /* the sentence's positions */
	draw_headline(c, r, r.y, _("RoPE: pair (j, j+dk/2) of q and k turned by p·θⱼ at position p; "
				   "one row a pair, one column a position"), _("RoPE: angle p·θⱼ"));
	clip_text(c, r, r.x, r.y + 1, r.w, _("the first pairs turn fast, the last hardly move: "
					  "q·k depends on the distance between tokens"), &ro.mu);
	const int lw = 24, top = r.y + 3, rows = r.h - 5;
	/* TRANSLATORS: the rotary picture's column titles: the pair j, its
	   frequency θⱼ, the positions of one whole turn; keep the widths */
	clip_text(c, r, r.x, r.y + 2, lw - 1, _("  j        θⱼ      turn"), &ro.hd);
	const int P = r.w - lw - 1;   /* positions: one column each */
	if (P < 4 || rows < 1)
		return;
	const int shown = rows < J ? rows : J;
	for (int k = 0; k < shown; k++) {
		/* every pair when they fit, else evenly spread from 0 to J − 1 */
		const int j = shown == J ? k : (int)lround((double)k * (J - 1) / (shown - 1 > 0 ? shown - 1 : 1));
		const float th = t->rope_inv[j];
		pair_label(buf, sizeof buf, j, th);
		clip_text(c, r, r.x, top + k, lw - 1, buf, &ro.lab);
		for (int p = 0; p < P; p++) {
			double a = fmod((double)((float)p * th), 2 * M_PI);
			int o = (int)lround(a / (M_PI / 4)) & 7;
			const int in = p < n;
			const int cur = p == v->row;
			uint32_t fg = color ? hue(a) : 0;
			uint8_t attr = cur ? ATTR_REVERSE : in ? ATTR_BOLD : 0;
			if (color && !in)
				fg = RGB((fg >> 17 & 0x7f), (fg >> 9 & 0x7f), (fg >> 1 & 0x7f));
			clip_put(c, r, r.x + lw + p, top + k, ARROW[o], color ? fg : ro.tx.fg,
				 ro.tx.bg, attr);
		}
	}
	/* the axis: positions, the sentence's marked */
	const int ay = top + shown;
	clip_text(c, r, r.x, ay, lw - 1, _("position →"), &ro.mu);
	for (int p = 0; p < P; p += 10) {
		snprintf(buf, sizeof buf, "%d", p);
		clip_text(c, r, r.x + lw + p, ay, 6, buf, &ro.mu);
	}
	snprintf(buf, sizeof buf, _("positions 0–%d are the sentence's (bright); row %d is the "
				   "cursor's; the angle of a cell is p·θⱼ mod 2π"), n - 1, v->row);
	clip_text(c, r, r.x, ay + 1, r.w, buf, &ro.mu);
}

const struct view_class rotary_view = {
	.name = "rotary",
	.draw = draw,
};
