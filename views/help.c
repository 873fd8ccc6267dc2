/* help.c - the stepper's help: the key table, made from the keys' own
 * table (src/tui/keys.c), wrapped, never cut. */
#include <stdio.h>

#include "screen_int.h"
#include "base/i18n.h"
#include "base/utf8.h"

/* Lines key i's description takes wrapped in dw columns (at most max). */
static int help_lines(const struct screen *s, int i, int dw, int max)
{
	int n = canvas_wrap(NULL, (struct rect){ 0, 0, dw, max }, s->keys[i].what, 0, 0, 0);
	return n > 0 ? n : 1;
}

/* Whether the key table fits in cols columns with descriptions wrapped
 * onto at most three lines. */
static int help_fits(const struct screen *s, int from, int cols, int rows, int dw,
		     int maxl)
{
	int col = 0, y = 0;
	for (int i = from; i < s->nkeys; i++) {
		int n = help_lines(s, i, dw, maxl + 1);
		if (n > maxl)
			return 0;
		if (y + n > rows) {
			col++;
			y = 0;
		}
		y += n;
	}
	return col < cols;
}

/* The key table: the fewest columns (at least 24 columns of text each) in
 * which every description fits wrapped on at most three lines; else (a
 * small terminal) the widest columns that keep 30, the descriptions
 * wrapped, scrolled from s->help_top.  A description is never cut. */
static void draw_keys(struct screen *s, struct canvas *c, struct rect r);

/* The view on screen's own keys first (its help rows), then the
 * stepper's. */
void screen_draw_help(struct screen *s, struct canvas *c, struct rect r)
{
	const struct view_help *vh = view_for(&s->v)->help;
	struct key_help all[160];
	int n = 0;
	for (int i = 0; vh && vh[i].keys && n < 16; i++)
		all[n++] = (struct key_help){ vh[i].keys, _(vh[i].what) };
	if (!n) {
		draw_keys(s, c, r);
		return;
	}
	for (int i = 0; i < s->nkeys && n < 160; i++)
		all[n++] = s->keys[i];
	const struct key_help *keys = s->keys;
	int nkeys = s->nkeys;
	s->keys = all;
	s->nkeys = n;
	draw_keys(s, c, r);
	s->keys = keys;
	s->nkeys = nkeys;
}

/* The key table of s->keys over r. */
static void draw_keys(struct screen *s, struct canvas *c, struct rect r)
{
	int rows = r.h - 2;
	if (rows < 1 || s->nkeys < 1) {
		put(c, r.x, r.y, r.w, R_HEADER, _("keys  (Esc closes)"));
		return;
	}
	int kw = 1;
	for (int i = 0; i < s->nkeys; i++)
		kw = clampi(utf8_width(s->keys[i].keys), kw, 16);
	int cols, fits = 0, first = 0;
	for (cols = 1; r.w / cols - kw - 2 >= 24; cols++)
		if ((fits = help_fits(s, 0, cols, rows, r.w / cols - kw - 2, 3)))
			break;
	if (!fits) {
		cols = clampi(r.w / (kw + 2 + 30), 1, s->nkeys);
		first = clampi(s->help_top, 0, s->nkeys - 1);
		/* the last page full: no scrolling past the end */
		while (first > 0 && help_fits(s, first - 1, cols, rows, r.w / cols - kw - 2, rows))
			first--;
		s->help_top = first;
	}
	int cw = r.w / cols, dw = cw - kw - 2, last = first;
	struct style st = role_style(R_TEXT, c->depth);
	char cut[256];
	for (int i = first, col = 0, y = 0; i < s->nkeys; i++) {
		int n = help_lines(s, i, dw, rows);
		if (y + n > rows) {
			col++;
			y = 0;
		}
		int x = r.x + col * cw;
		if (col >= cols || x + kw + 2 >= r.x + r.w)
			break;
		put(c, x, r.y + 2 + y, kw, R_ACCENT, s->keys[i].keys);
		canvas_wrap(c, (struct rect){ x + kw + 1, r.y + 2 + y, dw, n },
			    s->keys[i].what, st.fg, st.bg, st.attr);
		y += n;
		last = i;
	}
	if (first > 0 || last < s->nkeys - 1)
		/* TRANSLATORS: the help's title when it scrolls; %d-%d of %d keys */
		snprintf(cut, sizeof cut, _("keys %d–%d of %d  (↑↓ PgUp PgDn scroll, Esc closes)"),
			 first + 1, last + 1, s->nkeys);
	else
		snprintf(cut, sizeof cut, "%s", _("keys  (Esc closes)"));
	put(c, r.x, r.y, r.w, R_HEADER, cut);
}

