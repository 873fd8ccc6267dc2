/* presenter.c - how presenter mode (zoom big, for a projector) spreads a
 * page over the screen, for every view alike: a terminal cannot draw
 * bigger glyphs, so the room is used instead (taller rows, wider cells and
 * bars, more space between columns), picked from what is available so
 * that the page fills the screen and nothing is cut; and where a matrix
 * drawn so lies on screen, for the mouse. */
#include "view.h"

int view_spread(enum zoom z, int room, int n, int normal, int most)
{
	if (z != ZOOM_BIG || n < 1 || room / n <= normal)
		return normal;
	return room / n < most ? room / n : most;
}

int view_pitch(enum zoom z, int lines, int rows)
{
	return view_spread(z, lines, rows, 1, 3);
}

/* Lines of one matrix row (1 but for tall rows). */
static int row_lines(const struct grid_geom *g)
{
	return g->ch > 1 ? g->ch : 1;
}

int grid_row_top(const struct grid_geom *g, int i)
{
	return g->y0 + (i / (g->rh > 1 ? g->rh : 1)) * row_lines(g);
}

int grid_row_mid(const struct grid_geom *g, int i)
{
	const int ch = row_lines(g);
	return grid_row_top(g, i) + (ch - (ch >= 4) - 1) / 2;
}

int grid_row_at(const struct grid_geom *g, int y)
{
	if (!g->valid || y < g->y0)
		return -1;
	const int ch = row_lines(g);
	return (y - g->y0) / ch * (g->rh > 1 ? g->rh : 1);
}
