/* lattice.h - the decoding page's part (c), drawn by views/lattice.c:
 * the beam lattice and the ranking of the finished hypotheses. */
#ifndef ATTNSCOPE_LATTICE_H
#define ATTNSCOPE_LATTICE_H

#include "page.h"

/* (c) the beam lattice: its width in columns, the rows it needs at least and
 * would like in w columns (with the ranking under it unless rank_beside), and drawing it
 * (the ranking beside it in the last rank_w columns when rank_w > 0). */
int lattice_width(const struct page *P);
void lattice_rows(const struct page *P, int rank_beside, int w, int *min, int *want);
void lattice_draw(const struct page *P, struct canvas *c, struct rect r, int rank_w);
/* The finished hypotheses ranked by score: rows needed, and drawing them. */
int ranking_rows(const struct page *P);
void ranking_draw(const struct page *P, struct canvas *c, struct rect r);

#endif
