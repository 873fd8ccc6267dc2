/* svg.c - a canvas as an SVG picture (for slides and papers).
 *
 * Backgrounds are rectangles, one per run of cells of the same colour on
 * a line; text is one <text> per run of glyphs of one colour and weight
 * (a label, a number, a sentence: words joined by single spaces stay one
 * element, two spaces or more start a new one), stretched with textLength
 * to exactly its cells so that a different font cannot shift the grid.
 * Block elements (half blocks, eighths, shades) and braille dots are drawn
 * as shapes, not glyphs: they need no font.  The page is white, so a
 * foreground meant for a dark terminal (pale yellow labels, grey hints) is
 * darkened, hue kept, until it reads on white (WCAG contrast 4.5:1). */
#include <math.h>
#include <string.h>

#include "base/safetext.h"
#include "base/utf8.h"
#include "canvas.h"

#define CELL_W 9
#define CELL_H 18
#define BASELINE 14

static const uint32_t PAGE_BG = RGB(255, 255, 255), PAGE_FG = RGB(20, 20, 20);

static void rgb(FILE *fp, uint32_t c)
{
	fprintf(fp, "#%02x%02x%02x", (c >> 16) & 255, (c >> 8) & 255, c & 255);
}

/* Whether XML 1.0 allows the code point in a document (its Char
 * production): tab, newline, CR, U+0020-U+D7FF, U+E000-U+FFFD and
 * U+10000-U+10FFFF; not the other C0 controls, the surrogates, nor the
 * noncharacters U+FFFE and U+FFFF, which a browser meets with a parse
 * error instead of the figure. */
static int xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* s as XML character data: markup escaped; what XML does not allow, a
 * C1 control (a terminal's command, invisible in a figure) and a byte
 * that is not UTF-8 as U+FFFD; in safetext's ASCII mode (a locale that
 * is not UTF-8) every character beyond ASCII as a character reference. */
static void escaped(FILE *fp, const char *s)
{
	for (int n; *s; s += n) {
		uint32_t c;
		n = utf8_decode((const unsigned char *)s, 4, &c);
		if (!xml_char(c) || (c >= 0x7f && c <= 0x9f))
			c = 0xfffd;
		switch (c) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default:
			if (c >= 0x80 && safetext_ascii())
				fprintf(fp, "&#x%x;", (unsigned)c);
			else if (c == 0xfffd)
				fputs("\xEF\xBF\xBD", fp);
			else
				fwrite(s, 1, (size_t)n, fp);
		}
	}
}

/* WCAG relative luminance of an sRGB colour. */
static double luminance(uint32_t c)
{
	double ch[3] = { (c >> 16) & 255, (c >> 8) & 255, c & 255 };
	for (int i = 0; i < 3; i++) {
		double v = ch[i] / 255.0;
		ch[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

/* c darkened (same hue) until it has 4.5:1 contrast on white. */
static uint32_t on_white(uint32_t c)
{
	for (int k = 0; k < 40 && 1.05 / (luminance(c) + 0.05) < 4.5; k++)
		c = RGB(((c >> 16) & 255) * 7 / 8, ((c >> 8) & 255) * 7 / 8, (c & 255) * 7 / 8);
	return c;
}

struct look {
	uint32_t fg, bg;     /* bg COLOR_DEFAULT: the page; fg for text */
	uint32_t ink;        /* fg as it is, for shapes (a colour scale's) */
	int bold;
};

static struct look look_of(const struct cell *p)
{
	uint32_t bg = p->bg, fg = p->fg;
	if (p->attr & ATTR_REVERSE) {
		uint32_t t = bg == COLOR_DEFAULT ? PAGE_BG : bg;
		bg = fg == COLOR_DEFAULT ? PAGE_FG : fg;
		fg = t;
	}
	if (fg == COLOR_DEFAULT)
		fg = PAGE_FG;
	uint32_t ink = fg;
	if (bg == COLOR_DEFAULT || bg == PAGE_BG) {
		bg = COLOR_DEFAULT;
		fg = on_white(fg);
	}
	return (struct look){ fg, bg, ink, (p->attr & ATTR_BOLD) != 0 };
}

static void rect(FILE *fp, double x, double y, double w, double h, uint32_t fill,
		 double opacity)
{
	fprintf(fp, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"", x, y, w, h);
	rgb(fp, fill);
	if (opacity < 1)
		fprintf(fp, "\" fill-opacity=\"%g", opacity);
	fputs("\"/>\n", fp);
}

/* The code point of a 3-byte UTF-8 glyph, or 0. */
static unsigned cp3(const char *g)
{
	const unsigned char *u = (const unsigned char *)g;
	if ((u[0] & 0xF0) != 0xE0 || (u[1] & 0xC0) != 0x80 || (u[2] & 0xC0) != 0x80 || u[3])
		return 0;
	return ((unsigned)(u[0] & 0x0F) << 12) | ((unsigned)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
}

/* Draws a block element or braille pattern as shapes; returns 0 when the
 * glyph is text. */
static int shape(FILE *fp, const char *g, int x, int y, uint32_t fg)
{
	const unsigned cp = cp3(g);
	const double X = x * CELL_W, Y = y * CELL_H;
	if (cp == 0x2580) {                          /* ▀ upper half */
		rect(fp, X, Y, CELL_W, CELL_H / 2.0, fg, 1);
	} else if (cp >= 0x2581 && cp <= 0x2588) {   /* ▁…█ lower k/8 */
		double h = CELL_H * (cp - 0x2580) / 8.0;
		rect(fp, X, Y + CELL_H - h, CELL_W, h, fg, 1);
	} else if (cp >= 0x2589 && cp <= 0x258F) {   /* ▉…▏ left k/8 */
		rect(fp, X, Y, CELL_W * (0x2590 - cp) / 8.0, CELL_H, fg, 1);
	} else if (cp == 0x2590) {                   /* ▐ right half */
		rect(fp, X + CELL_W / 2.0, Y, CELL_W / 2.0, CELL_H, fg, 1);
	} else if (cp >= 0x2591 && cp <= 0x2593) {   /* ░▒▓ shades */
		rect(fp, X, Y, CELL_W, CELL_H, fg, (cp - 0x2590) / 4.0);
	} else if (cp == 0x2594) {                   /* ▔ upper eighth */
		rect(fp, X, Y, CELL_W, CELL_H / 8.0, fg, 1);
	} else if (cp == 0x2595) {                   /* ▕ right eighth */
		rect(fp, X + CELL_W * 7 / 8.0, Y, CELL_W / 8.0, CELL_H, fg, 1);
	} else if (cp > 0x2800 && cp <= 0x28FF) {    /* braille: 2 × 4 dots */
		static const int BIT[4][2] = { { 0, 3 }, { 1, 4 }, { 2, 5 }, { 6, 7 } };
		for (int row = 0; row < 4; row++)
			for (int col = 0; col < 2; col++)
				if ((cp - 0x2800) & (1u << BIT[row][col])) {
					fprintf(fp, "<circle cx=\"%g\" cy=\"%g\" r=\"1.5\" fill=\"",
						X + CELL_W * (col ? 0.72 : 0.28),
						Y + CELL_H * (0.14 + 0.24 * row));
					rgb(fp, fg);
					fputs("\"/>\n", fp);
				}
	} else {
		return 0;
	}
	return 1;
}

static int is_space(const struct cell *p)
{
	return p->glyph[0] == ' ' && !p->glyph[1];
}

/* Cell x of row is text (a glyph that is neither blank nor a shape). */
static int is_text(const struct cell *row, int x)
{
	const char *g = row[x].glyph;
	if (!g[0] || is_space(&row[x]))
		return 0;
	unsigned cp = cp3(g);
	return !((cp >= 0x2580 && cp <= 0x2595) || (cp > 0x2800 && cp <= 0x28FF));
}

static int same_text(struct look a, struct look b)
{
	return a.fg == b.fg && a.bold == b.bold;
}

static void text_run(FILE *fp, const struct cell *row, int x0, int x1, int y, struct look lk)
{
	int spaces = 0;
	for (int x = x0; x < x1; x++)
		spaces |= is_space(&row[x]);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"%s fill=\"",
		x0 * CELL_W, y * CELL_H + BASELINE, (x1 - x0) * CELL_W,
		spaces ? " xml:space=\"preserve\"" : "");
	rgb(fp, lk.fg);
	fputc('"', fp);
	if (lk.bold)
		fputs(" font-weight=\"bold\"", fp);
	fputc('>', fp);
	for (int x = x0; x < x1; x++)
		escaped(fp, row[x].glyph);
	fputs("</text>\n", fp);
}

/* The curves as paths, then the hover texts as transparent rectangles
 * with a <title> (browsers show it under the pointer). */
static void write_extras(const struct canvas *c, FILE *fp)
{
	for (int i = 0; i < c->npaths; i++) {
		const struct canvas_path *p = &c->paths[i];
		fputs("<path fill=\"none\" stroke-width=\"1.8\" stroke-linejoin=\"round\" "
		      "stroke=\"", fp);
		rgb(fp, p->color == COLOR_DEFAULT ? PAGE_FG : p->color);
		fputs("\" d=\"", fp);
		for (int k = 0; k < p->n; k++)
			fprintf(fp, "%s%.1f %.1f", k ? " L" : "M", p->xy[2 * k] * CELL_W,
				p->xy[2 * k + 1] * CELL_H);
		fputs("\"/>\n", fp);
	}
	for (int i = 0; i < c->ntips; i++) {
		const struct canvas_tip *t = &c->tips[i];
		fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"#000\" fill-opacity=\"0\"><title>", t->x * CELL_W, t->y * CELL_H,
			t->w * CELL_W, t->h * CELL_H);
		escaped(fp, t->text);
		fputs("</title></rect>\n", fp);
	}
}

void canvas_write_svg(const struct canvas *c, FILE *fp)
{
	const int W = c->w * CELL_W, H = c->h * CELL_H;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
		"font-size=\"15\">\n", W, H, W, H);
	rect(fp, 0, 0, W, H, PAGE_BG, 1);
	for (int y = 0; y < c->h; y++) {
		const struct cell *row = &c->cells[(size_t)y * c->w];
		/* backgrounds, a rectangle per run of one colour */
		for (int x = 0; x < c->w;) {
			struct look lk = look_of(&row[x]);
			int x1 = x + 1;
			while (x1 < c->w && look_of(&row[x1]).bg == lk.bg)
				x1++;
			if (lk.bg != COLOR_DEFAULT)
				rect(fp, x * CELL_W, y * CELL_H, (x1 - x) * CELL_W, CELL_H, lk.bg, 1);
			x = x1;
		}
		/* shapes (braille dots: not where curves are drawn as paths) */
		for (int x = 0; x < c->w; x++)
			if (row[x].glyph[0] && !is_space(&row[x]) && !is_text(row, x) &&
			    !(c->npaths && cp3(row[x].glyph) >= 0x2800 && cp3(row[x].glyph) <= 0x28FF))
				shape(fp, row[x].glyph, x, y, look_of(&row[x]).ink);
		/* text runs: glyphs of one look, words joined by single spaces */
		for (int x = 0; x < c->w;) {
			if (!is_text(row, x)) {
				x++;
				continue;
			}
			struct look lk = look_of(&row[x]);
			int x1 = x + 1;
			for (;;) {
				while (x1 < c->w && !row[x1].glyph[0])
					x1++;   /* a wide glyph's second cell */
				if (x1 < c->w && is_text(row, x1) && same_text(look_of(&row[x1]), lk)) {
					x1++;
					continue;
				}
				if (x1 + 1 < c->w && is_space(&row[x1]) && is_text(row, x1 + 1) &&
				    same_text(look_of(&row[x1 + 1]), lk)) {
					x1 += 2;
					continue;
				}
				break;
			}
			text_run(fp, row, x, x1, y, lk);
			x = x1;
		}
	}
	write_extras(c, fp);
	fputs("</svg>\n", fp);
}
