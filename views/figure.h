/* figure.h - a view as a still figure, for slides, papers and the lecture
 * export: a title (the stage, its head, formula and shape), then the view
 * drawn on a canvas marked as a figure (no cursor, no key hints, labels
 * whole), cut to what was drawn.  `render --format svg|ansi`, the
 * stepper's SVG key and `--lecture --export` all draw through this. */
#ifndef ATTNSCOPE_FIGURE_H
#define ATTNSCOPE_FIGURE_H

#include "canvas.h"
#include "view.h"

/* Draws v into a new canvas at most width columns wide (as tall as the
 * view needs, up to 400 lines), at depth d.  The caller frees it with
 * canvas_free.  Returns NULL when out of memory.  v's scroll offsets may
 * change (as any draw may), nothing else. */
struct canvas *figure_new(struct view_state *v, int width, enum depth d);

/* The title line of a figure: "encoder.0.self_attn.weights · head 1 of 4"
 * (or "all 4 heads", "mean over 4 heads") into buf. */
void figure_title(const struct view_state *v, char *buf, size_t n);

#endif
