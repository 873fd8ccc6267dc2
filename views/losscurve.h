/* losscurve.h - a training run's loss as a one-line braille curve, for the
 * stepper's header: one point a snapshot (evenly spaced: the snapshots are
 * log-spaced in steps, so this is loss over log step), linear in the loss
 * between the run's lowest (bottom dots) and highest (top dots), two dot
 * columns a point (the second one halfway to the next point). */
#ifndef ATTNSCOPE_LOSSCURVE_H
#define ATTNSCOPE_LOSSCURVE_H

#include <stddef.h>

#include "engine/snapshot.h"

/* The curve of the n snapshots' losses as UTF-8 into out (one braille
 * character a snapshot; a snapshot without a loss is left blank).
 * Snapshot mark (or none: −1) gets its whole left dot column, a bar
 * through the curve that says where you are without colour.  Returns the
 * number of characters; *cells_bytes[i] is where character i starts in
 * out (cells_bytes: n + 1 entries, or NULL). */
int losscurve_text(const struct snapshot *s, int n, int mark, char *out,
		   size_t outsz, int *cells_bytes);

#endif
