/* screen_int.h - what screen.c, header.c and help.c share: the stepper's
 * screen drawn in parts. */
#ifndef ATTNSCOPE_SCREEN_INT_H
#define ATTNSCOPE_SCREEN_INT_H

#include "draw.h"
#include "palette.h"
#include "screen.h"

static inline void fill_line(struct canvas *c, int y, enum role r)
{
	struct style st = role_style(r, c->depth);
	struct rect line = { 0, y, c->w, 1 };
	canvas_fill(c, line, " ", st.fg, st.bg, st.attr);
}

/* Text in a role's style; returns columns used. */
static inline int put(struct canvas *c, int x, int y, int maxw, enum role r,
	       const char *s)
{
	struct style st = role_style(r, c->depth);
	return canvas_text(c, x, y, maxw, s, st.fg, st.bg, st.attr);
}

/* The header (header.c): the program, model, sentence, target and masks
 * on max_lines lines at most (1 or 2); returns the lines used. */
int screen_draw_header(struct screen *s, struct canvas *c, int max_lines);
/* The key table over r (help.c). */
void screen_draw_help(struct screen *s, struct canvas *c, struct rect r);

#endif
