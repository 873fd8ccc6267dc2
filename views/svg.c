/* svg.c - a canvas as an SVG picture (for slides): one rectangle a cell
 * background, the glyphs as monospace text, colours as on screen. */
#include <string.h>

#include "canvas.h"

#define CELL_W 9
#define CELL_H 18

static void rgb(FILE *fp, uint32_t c)
{
	fprintf(fp, "#%02x%02x%02x", (c >> 16) & 255, (c >> 8) & 255, c & 255);
}

static void escaped(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

void canvas_write_svg(const struct canvas *c, FILE *fp)
{
	const uint32_t page_bg = RGB(255, 255, 255), page_fg = RGB(20, 20, 20);
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"14\">\n",
		c->w * CELL_W, c->h * CELL_H);
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"");
	rgb(fp, page_bg);
	fputs("\"/>\n", fp);
	for (int y = 0; y < c->h; y++) {
		for (int x = 0; x < c->w; x++) {
			const struct cell *p = &c->cells[(size_t)y * c->w + x];
			uint32_t bg = p->bg, fg = p->fg;
			if (p->attr & ATTR_REVERSE) {
				uint32_t t = bg == COLOR_DEFAULT ? page_bg : bg;
				bg = fg == COLOR_DEFAULT ? page_fg : fg;
				fg = t;
			}
			if (bg != COLOR_DEFAULT) {
				fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
					x * CELL_W, y * CELL_H, CELL_W, CELL_H);
				rgb(fp, bg);
				fputs("\"/>\n", fp);
			}
			if (!p->glyph[0] || strcmp(p->glyph, " ") == 0)
				continue;
			if (strcmp(p->glyph, "▀") == 0) {   /* half block: top half in fg */
				fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
					x * CELL_W, y * CELL_H, CELL_W, CELL_H / 2);
				rgb(fp, fg == COLOR_DEFAULT ? page_fg : fg);
				fputs("\"/>\n", fp);
				continue;
			}
			fprintf(fp, "<text x=\"%d\" y=\"%d\" fill=\"", x * CELL_W, y * CELL_H + 14);
			rgb(fp, fg == COLOR_DEFAULT ? page_fg : fg);
			fputc('"', fp);
			if (p->attr & ATTR_BOLD)
				fputs(" font-weight=\"bold\"", fp);
			fputc('>', fp);
			escaped(fp, p->glyph);
			fputs("</text>\n", fp);
		}
	}
	fputs("</svg>\n", fp);
}
