/* canvas.c - the cell grid, UTF-8 text placement and the text/ANSI
 * backends. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "base/safetext.h"
#include "base/utf8.h"

struct canvas *canvas_new(int w, int h, enum depth depth)
{
	struct canvas *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->depth = depth;
	if (canvas_resize(c, w, h)) {
		free(c);
		return NULL;
	}
	return c;
}

static void extras_free(struct canvas *c)
{
	for (int i = 0; i < c->npaths; i++)
		free(c->paths[i].xy);
	for (int i = 0; i < c->ntips; i++)
		free(c->tips[i].text);
	free(c->paths);
	free(c->tips);
	c->paths = NULL;
	c->tips = NULL;
	c->npaths = c->ntips = 0;
}

void canvas_free(struct canvas *c)
{
	if (c) {
		free(c->cells);
		extras_free(c);
	}
	free(c);
}

int canvas_path(struct canvas *c, const float *xy, int n, uint32_t color)
{
	if (n < 2)
		return 0;
	struct canvas_path *np = realloc(c->paths, (size_t)(c->npaths + 1) * sizeof *np);
	if (!np)
		return -1;
	c->paths = np;
	float *p = malloc((size_t)n * 2 * sizeof *p);
	if (!p)
		return -1;
	memcpy(p, xy, (size_t)n * 2 * sizeof *p);
	np[c->npaths++] = (struct canvas_path){ color, n, p };
	return 0;
}

int canvas_tip(struct canvas *c, int x, int y, int w, int h, const char *text)
{
	struct canvas_tip *nt = realloc(c->tips, (size_t)(c->ntips + 1) * sizeof *nt);
	if (!nt)
		return -1;
	c->tips = nt;
	char *t = strdup(text);
	if (!t)
		return -1;
	nt[c->ntips++] = (struct canvas_tip){ x, y, w, h, t };
	return 0;
}

int canvas_resize(struct canvas *c, int w, int h)
{
	if (w < 1) w = 1;
	if (h < 1) h = 1;
	if ((size_t)w * h > c->cap) {   /* a smaller size keeps the cells */
		struct cell *n = realloc(c->cells, (size_t)w * h * sizeof *n);
		if (!n)
			return -1;
		c->cells = n;
		c->cap = (size_t)w * h;
	}
	c->w = w;
	c->h = h;
	canvas_clear(c);
	return 0;
}

static int blank(const struct cell *x)
{
	return x->bg == COLOR_DEFAULT && !(x->attr & (ATTR_REVERSE | ATTR_UNDERLINE)) &&
	       x->glyph[0] == ' ' && !x->glyph[1];
}

void canvas_extent(const struct canvas *c, int *w, int *h)
{
	int mw = 0, mh = 0;
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++)
			if (!blank(&c->cells[(size_t)y * c->w + x])) {
				mw = x + 1 > mw ? x + 1 : mw;
				mh = y + 1;
			}
	*w = mw;
	*h = mh;
}

int canvas_crop(struct canvas *c, int w, int h)
{
	w = w < 1 ? 1 : w > c->w ? c->w : w;
	h = h < 1 ? 1 : h > c->h ? c->h : h;
	struct cell *n = malloc((size_t)w * h * sizeof *n);
	if (!n)
		return -1;
	for (int y = 0; y < h; y++)
		memcpy(n + (size_t)y * w, c->cells + (size_t)y * c->w, (size_t)w * sizeof *n);
	free(c->cells);
	c->cells = n;
	c->cap = (size_t)w * h;
	c->w = w;
	c->h = h;
	return 0;
}

void canvas_clear(struct canvas *c)
{
	extras_free(c);
	/* one blank cell, then copies of what is done, doubling: a screen
	   of cells is cleared on every draw */
	size_t n = (size_t)c->w * c->h, done = 1;
	struct cell *x = c->cells;
	memset(x, 0, sizeof *x);
	x->glyph[0] = ' ';
	x->fg = x->bg = COLOR_DEFAULT;
	x->attr = 0;
	while (done < n) {
		size_t k = done < n - done ? done : n - done;
		memcpy(x + done, x, k * sizeof *x);
		done += k;
	}
}

static struct cell *at(struct canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return NULL;
	return &c->cells[(size_t)y * c->w + x];
}

static void set(struct cell *x, const char *g, size_t len, uint32_t fg,
		uint32_t bg, uint8_t attr)
{
	if (len == 1 && (unsigned char)g[0] >= 0x20 && (unsigned char)g[0] < 0x7f) {
		/* printable ASCII, the common case: nothing to replace */
		*x = (struct cell){ .glyph = { g[0] }, .fg = fg, .bg = bg, .attr = attr };
		return;
	}
	if (len >= GLYPH_MAX)
		len = GLYPH_MAX - 1;
	/* no cell ever holds a control: backends write glyphs as they are */
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)g[i];
		if (b < 0x20 || b == 0x7f || (b == 0xc2 && i + 1 < len &&
					     (unsigned char)g[i + 1] < 0xa0)) {
			g = "\xEF\xBF\xBD";   /* U+FFFD */
			len = 3;
			break;
		}
	}
	memcpy(x->glyph, g, len);
	x->glyph[len] = 0;
	if (canvas_ascii() && ((unsigned char)x->glyph[0] & 0x80)) {
		/* a non-UTF-8 terminal: one ASCII character (views/ascii.c) */
		const char *a = canvas_ascii_glyph(x->glyph);
		memmove(x->glyph, a, strlen(a) + 1);
	}
	x->fg = fg;
	x->bg = bg;
	x->attr = attr;
}

void canvas_put(struct canvas *c, int x, int y, const char *glyph, uint32_t fg,
		uint32_t bg, uint8_t attr)
{
	struct cell *p = at(c, x, y);
	if (p)
		set(p, glyph, strlen(glyph), fg, bg, attr);
}

/* Printable ASCII: one column a byte, never an escape, the same in ASCII mode. */
static const char PRINTABLE[] = " !\"#$%&'()*+,-./0123456789:;<=>?@"
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

int canvas_text(struct canvas *c, int x, int y, int maxw, const char *s,
		uint32_t fg, uint32_t bg, uint8_t attr)
{
	char ascii[2048];
	if (canvas_ascii())
		s = canvas_ascii_text(s, ascii, sizeof ascii);
	const unsigned char *p = (const unsigned char *)s;
	int used = 0;
	if (y < 0 || y >= c->h)
		return 0;
	char esc[8];
	int k = 0, nesc = 0;   /* the escape being drawn, k of nesc bytes done */
	struct cell *row = &c->cells[(size_t)y * c->w];
	while ((k < nesc || *p) && used < maxw) {
		uint32_t cp;
		char g[4];
		/* a run of printable ASCII, most of any screen, at once */
		if (k == nesc) {
			long long run = (long long)strspn((const char *)p, PRINTABLE);
			run = run < maxw - used ? run : maxw - used;
			long long a = (long long)x + used, b = a + run;   /* columns */
			b = b < c->w ? b : c->w;
			struct cell t = { .fg = fg, .bg = bg, .attr = attr };
			for (long long cx = a > 0 ? a : 0; cx < b; cx++) {
				t.glyph[0] = (char)p[cx - a];
				row[cx] = t;
			}
			p += run;
			used += (int)run;
		}
		if (!((k < nesc || *p) && used < maxw))
			break;
		if (k == nesc) {   /* a control shows as its escape (base/safetext.h) */
			int n;
			k = nesc = 0;
			if (safetext_unit((const char *)p, 0, esc, &n)) {
				p += n;
				nesc = (int)strlen(esc);
			}
		}
		if (k < nesc)
			cp = (unsigned char)esc[k++];
		else
			p += utf8_decode(p, 4, &cp);
		int w = utf8_cp_width(cp);
		if (w == 0) {
			/* combining mark: append to the previous cell's glyph */
			struct cell *prev = at(c, x + used - 1, y);
			int gl = utf8_encode(cp, g);
			if (prev && strlen(prev->glyph) + (size_t)gl < GLYPH_MAX)
				strncat(prev->glyph, g, (size_t)gl);
			continue;
		}
		if (used + w > maxw)
			break;
		struct cell *cell = at(c, x + used, y);
		if (cell)
			set(cell, g, (size_t)utf8_encode(cp, g), fg, bg, attr);
		if (w == 2) {
			struct cell *cont = at(c, x + used + 1, y);
			if (cont)
				set(cont, "", 0, fg, bg, attr);
			if (!cont && cell)   /* a wide glyph cut by the edge */
				set(cell, " ", 1, fg, bg, attr);
		}
		used += w;
	}
	return used;
}

int canvas_printf(struct canvas *c, int x, int y, int maxw, uint32_t fg,
		  uint32_t bg, uint8_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return canvas_text(c, x, y, maxw, buf, fg, bg, attr);
}

void canvas_fill(struct canvas *c, struct rect r, const char *glyph,
		 uint32_t fg, uint32_t bg, uint8_t attr)
{
	/* clipped to the canvas; one cell made, then copied (doubling) */
	long long x0 = r.x > 0 ? r.x : 0, y0 = r.y > 0 ? r.y : 0;
	long long x1 = (long long)r.x + r.w, y1 = (long long)r.y + r.h;
	x1 = x1 < c->w ? x1 : c->w;
	y1 = y1 < c->h ? y1 : c->h;
	if (x0 >= x1 || y0 >= y1)
		return;
	struct cell *row = &c->cells[(size_t)y0 * c->w + x0];
	size_t n = (size_t)(x1 - x0), done = 1;
	set(row, glyph, strlen(glyph), fg, bg, attr);
	while (done < n) {
		size_t k = done < n - done ? done : n - done;
		memcpy(row + done, row, k * sizeof *row);
		done += k;
	}
	for (long long y = y0 + 1; y < y1; y++)
		memcpy(&c->cells[(size_t)y * c->w + x0], row, n * sizeof *row);
}

int canvas_wrap(struct canvas *c, struct rect r, const char *s, uint32_t fg,
		uint32_t bg, uint8_t attr)
{
	int y = 0;
	char line[1024];
	while (*s && y < r.h && r.w > 0) {
		while (*s == ' ')
			s++;
		if (*s == '\n') {
			s++;
			y++;
			continue;
		}
		/* take words while they fit */
		size_t len = 0, best = 0;
		int w = 0;
		const char *p = s;
		while (*p && *p != '\n') {
			const char *q = p;
			while (*q && *q != ' ' && *q != '\n')
				q++;
			size_t wl = (size_t)(q - p);
			char word[512];
			snprintf(word, sizeof word, "%.*s", (int)(wl < sizeof word ? wl : sizeof word - 1), p);
			int ww = utf8_width(word);
			if (w + (len ? 1 : 0) + ww > r.w || len + wl + 2 >= sizeof line)
				break;
			if (len)
				line[len++] = ' ';
			memcpy(line + len, p, wl);
			len += wl;
			w += (best ? 1 : 0) + ww;
			best = len;
			p = q;
			while (*p == ' ')
				p++;
		}
		if (!best) {
			/* one word wider than the line: cut it */
			if (c)
				canvas_text(c, r.x, r.y + y, r.w, s, fg, bg, attr);
			while (*s && *s != ' ' && *s != '\n')
				s++;
		} else {
			line[best] = 0;
			if (c)
				canvas_text(c, r.x, r.y + y, r.w, line, fg, bg, attr);
			s = p;
		}
		y++;
	}
	return y;
}

void canvas_frame(struct canvas *c, struct rect r, const char *title,
		  uint32_t fg, uint32_t bg, uint8_t attr)
{
	if (r.w < 2 || r.h < 2)
		return;
	for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
		canvas_put(c, x, r.y, "─", fg, bg, attr);
		canvas_put(c, x, r.y + r.h - 1, "─", fg, bg, attr);
	}
	for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
		canvas_put(c, r.x, y, "│", fg, bg, attr);
		canvas_put(c, r.x + r.w - 1, y, "│", fg, bg, attr);
	}
	canvas_put(c, r.x, r.y, "┌", fg, bg, attr);
	canvas_put(c, r.x + r.w - 1, r.y, "┐", fg, bg, attr);
	canvas_put(c, r.x, r.y + r.h - 1, "└", fg, bg, attr);
	canvas_put(c, r.x + r.w - 1, r.y + r.h - 1, "┘", fg, bg, attr);
	if (title && *title && r.w > 6) {
		char t[256];
		snprintf(t, sizeof t, " %s ", title);
		canvas_text(c, r.x + 2, r.y, r.w - 4, t, fg, bg, attr | ATTR_BOLD);
	}
}

const char *text_fit(const char *s, int maxw, char *buf, size_t bufsz)
{
	size_t out = 0, len = strlen(s);
	int w = 0, total = 0;
	char u[8];
	int n;
	if (maxw <= 0 || bufsz < 8) {
		if (bufsz)
			buf[0] = 0;
		return buf;
	}
	if (strspn(s, PRINTABLE) == len) {
		/* printable ASCII, most labels: a column a byte; the loops
		   below would stop at the same byte */
		total = len > (size_t)maxw ? maxw + 1 : (int)len;
		size_t limit = (size_t)(total > maxw ? maxw - 1 : maxw);
		out = limit < len ? limit : len;
		out = out < bufsz - 5 ? out : bufsz - 5;
		memcpy(buf, s, out);
	} else {
		/* widths of what is shown: a control is its escape (base/safetext.h) */
		for (const char *p = s; safetext_unit(p, 0, u, &n), n; p += n)
			total += utf8_width(u);
		int limit = total > maxw ? maxw - 1 : maxw;
		for (const char *p = s; safetext_unit(p, 0, u, &n), n; p += n) {
			int cw = utf8_width(u);
			size_t gl = strlen(u);
			if (w + cw > limit || out + gl + 4 >= bufsz)
				break;
			memcpy(buf + out, u, gl);
			out += gl;
			w += cw;
		}
	}
	if (total > maxw) {
		memcpy(buf + out, "…", 3);
		out += 3;
	}
	buf[out] = 0;
	return buf;
}

/* ---- colour quantisation ---- */

static int cube_level(int v)
{
	/* xterm cube levels 0, 95, 135, 175, 215, 255 */
	return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40;
}

static const int LEVELS[6] = { 0, 95, 135, 175, 215, 255 };

int color_to_256(uint32_t rgb)
{
	int r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255;
	int cr = cube_level(r), cg = cube_level(g), cb = cube_level(b);
	int dr = LEVELS[cr] - r, dg = LEVELS[cg] - g, db = LEVELS[cb] - b;
	int cube_err = dr * dr + dg * dg + db * db;
	int avg = (r + g + b) / 3;
	int gi = avg > 238 ? 23 : avg < 8 ? 0 : (avg - 8) / 10;
	int gv = 8 + gi * 10;
	int gray_err = (gv - r) * (gv - r) + (gv - g) * (gv - g) + (gv - b) * (gv - b);
	if (gray_err < cube_err)
		return 232 + gi;
	return 16 + 36 * cr + 6 * cg + cb;
}

int color_to_8(uint32_t rgb)
{
	int r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255;
	int mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
	if (mx < 80)
		return 0;                        /* black (and dark greys) */
	int t = mx / 2;
	return (r > t ? 1 : 0) | (g > t ? 2 : 0) | (b > t ? 4 : 0);
}

static int color_index_at(enum depth d, uint32_t rgb)
{
	if (rgb == COLOR_DEFAULT)
		return -1;
	switch (d) {
	case DEPTH_TRUE: return (int)rgb;
	case DEPTH_256: return color_to_256(rgb);
	case DEPTH_8: return color_to_8(rgb);
	default: return -1;
	}
}

void color_pair_at(enum depth d, const char *glyph, uint32_t fg, uint32_t bg,
		   int *fi, int *bi)
{
	*fi = color_index_at(d, fg);
	*bi = color_index_at(d, bg);
	if (*fi < 0 || *fi != *bi || !strcmp(glyph, " ") || !strcmp(glyph, "▀") ||
	    !*glyph)
		return;
	int r = (bg >> 16) & 255, g = (bg >> 8) & 255, b = bg & 255;
	int light = 2126 * r + 7152 * g + 722 * b > 1400000;
	if (d == DEPTH_8)   /* the 8 colours' own lightness: white, yellow, cyan, green */
		light = *bi == 7 || *bi == 3 || *bi == 6 || *bi == 2;
	*fi = color_index_at(d, light ? RGB(0, 0, 0) : RGB(255, 255, 255));
}

/* ---- text and ANSI backends ---- */

void canvas_write_text(const struct canvas *c, FILE *fp)
{
	for (int y = 0; y < c->h; y++) {
		const struct cell *row = &c->cells[(size_t)y * c->w];
		int last = c->w - 1;
		while (last >= 0 && strcmp(row[last].glyph, " ") == 0)
			last--;
		for (int x = 0; x <= last; x++)
			fputs(row[x].glyph, fp);
		fputc('\n', fp);
	}
}

/* One colour of a cell (an index from color_pair_at) as SGR parameters. */
static void sgr_color(FILE *fp, enum depth d, int idx, int bg)
{
	if (idx < 0) {
		fprintf(fp, ";%d", bg ? 49 : 39);
		return;
	}
	switch (d) {
	case DEPTH_TRUE:
		fprintf(fp, ";%d;2;%d;%d;%d", bg ? 48 : 38, (idx >> 16) & 255,
			(idx >> 8) & 255, idx & 255);
		break;
	case DEPTH_256:
		fprintf(fp, ";%d;5;%d", bg ? 48 : 38, idx);
		break;
	case DEPTH_8:
		fprintf(fp, ";%d", (bg ? 40 : 30) + idx);
		break;
	case DEPTH_NONE:
		break;
	}
}

void canvas_write_ansi(const struct canvas *c, FILE *fp)
{
	for (int y = 0; y < c->h; y++) {
		const struct cell *row = &c->cells[(size_t)y * c->w];
		const struct cell *prev = NULL;
		for (int x = 0; x < c->w; x++) {
			const struct cell *p = &row[x];
			int fi, bi, pf = 0, pb = 0;
			color_pair_at(c->depth, p->glyph, p->fg, p->bg, &fi, &bi);
			if (prev)
				color_pair_at(c->depth, prev->glyph, prev->fg, prev->bg, &pf, &pb);
			if (!prev || fi != pf || bi != pb || p->attr != prev->attr) {
				fputs("\033[0", fp);
				if (p->attr & ATTR_BOLD) fputs(";1", fp);
				if (p->attr & ATTR_DIM) fputs(";2", fp);
				if (p->attr & ATTR_UNDERLINE) fputs(";4", fp);
				if (p->attr & ATTR_REVERSE) fputs(";7", fp);
				sgr_color(fp, c->depth, fi, 0);
				sgr_color(fp, c->depth, bi, 1);
				fputc('m', fp);
				prev = p;
			}
			fputs(p->glyph, fp);
		}
		fputs("\033[0m\n", fp);
	}
}
