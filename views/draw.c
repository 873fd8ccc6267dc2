/* draw.c - drawing pieces the views share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "base/i18n.h"

int rect_has(struct rect r, int x, int y)
{
	return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

struct rect rect_sub(struct rect r, int x, int y, int w, int h)
{
	struct rect o = { x, y, w, h };
	if (o.x < r.x) { o.w -= r.x - o.x; o.x = r.x; }
	if (o.y < r.y) { o.h -= r.y - o.y; o.y = r.y; }
	if (o.x + o.w > r.x + r.w) o.w = r.x + r.w - o.x;
	if (o.y + o.h > r.y + r.h) o.h = r.y + r.h - o.y;
	if (o.w < 0) o.w = 0;
	if (o.h < 0) o.h = 0;
	return o;
}

void clip_put(struct canvas *c, struct rect r, int x, int y, const char *g,
	      uint32_t fg, uint32_t bg, uint8_t attr)
{
	if (rect_has(r, x, y))
		canvas_put(c, x, y, g, fg, bg, attr);
}

void clip_puts(struct canvas *c, struct rect r, int x, int y, const char *g,
	       const struct style *st)
{
	clip_put(c, r, x, y, g, st->fg, st->bg, st->attr);
}

int clip_text(struct canvas *c, struct rect r, int x, int y, int maxw,
	      const char *s, const struct style *st)
{
	if (!rect_has(r, x, y))
		return 0;
	if (maxw > r.x + r.w - x)
		maxw = r.x + r.w - x;
	if (maxw <= 0)
		return 0;
	return canvas_text(c, x, y, maxw, s, st->fg, st->bg, st->attr);
}

void clip_rtext(struct canvas *c, struct rect r, int x, int y, int w,
		const char *s, const struct style *st)
{
	int tw = utf8_width(s);
	clip_text(c, r, x + (tw < w ? w - tw : 0), y, w, s, st);
}

static int is_cut(struct shown a)
{
	return a.total > 0 && a.n < a.total;
}

static void shown_part(char *buf, size_t n, struct shown a)
{
	const int f = a.first, t = a.total;
	const int l = a.first + (a.n > 0 ? a.n : 1) - 1;
	/* TRANSLATORS: what of a list or matrix that does not fit is on
	 * screen: the first and last shown (from 0, as the labels count),
	 * of all; rows and columns go together as "rows 3–9 of 20 ·
	 * columns 0–5 of 64" */
	switch (a.what) {
	case SH_COLUMNS: snprintf(buf, n, _("columns %d–%d of %d"), f, l, t); break;
	case SH_STEPS: snprintf(buf, n, _("steps %d–%d of %d"), f, l, t); break;
	case SH_POSITIONS: snprintf(buf, n, _("positions %d–%d of %d"), f, l, t); break;
	case SH_LAYERS: snprintf(buf, n, _("layers %d–%d of %d"), f, l, t); break;
	case SH_KEYS: snprintf(buf, n, _("keys %d–%d of %d"), f, l, t); break;
	case SH_HEADS: snprintf(buf, n, _("heads %d–%d of %d"), f, l, t); break;
	default: snprintf(buf, n, _("rows %d–%d of %d"), f, l, t); break;
	}
}

const char *fmt_shown(char *buf, size_t n, int maxw, struct shown a, struct shown b)
{
	char pa[96] = "", pb[96] = "";
	if (n)
		buf[0] = 0;
	if (!is_cut(a) && !is_cut(b))
		return buf;
	if (a.total > 0)
		shown_part(pa, sizeof pa, a);
	if (b.total > 0)
		shown_part(pb, sizeof pb, b);
	if (*pa && *pb && utf8_width(pa) + 3 + utf8_width(pb) <= maxw)
		snprintf(buf, n, "%s · %s", pa, pb);
	else
		snprintf(buf, n, "%s", is_cut(b) ? pb : pa);
	if (utf8_width(buf) > maxw) {   /* a narrow list: "3–9/20" */
		struct shown k = is_cut(b) ? b : a;
		snprintf(buf, n, "%d–%d/%d", k.first, k.first + (k.n > 0 ? k.n : 1) - 1, k.total);
	}
	return buf;
}

int draw_shown(struct canvas *c, struct rect r, int x, int y, int maxw,
	       struct shown a, struct shown b)
{
	char buf[200];
	const struct style mu = role_style(R_MUTED, c->depth);
	if (!*fmt_shown(buf, sizeof buf, maxw, a, b))
		return 0;
	return clip_text(c, r, x, y, maxw, buf, &mu);
}

struct roles roles_at(enum depth d)
{
	return (struct roles){ role_style(R_HEADER, d), role_style(R_MUTED, d),
			       role_style(R_TEXT, d), role_style(R_LABEL, d),
			       role_style(R_ACCENT, d), role_style(R_CURSOR, d),
			       role_style(R_WARN, d) };
}

void draw_headline(struct canvas *c, struct rect r, int y, const char *text,
		   const char *brief)
{
	const struct style hd = role_style(R_HEADER, c->depth);
	clip_text(c, r, r.x, y, r.w, utf8_width(text) > r.w ? brief : text, &hd);
}

void draw_tile_frame(struct canvas *c, struct rect r, int x, int y, int w, int lines,
		     int sel, const char *title, const char *note)
{
	const struct style bo = role_style(sel ? R_ACCENT : R_BORDER, c->depth);
	const struct style ti = role_style(sel ? R_CURSOR : R_LABEL, c->depth);
	const struct style mu = role_style(R_MUTED, c->depth);
	const char *const *box = sel ?
		(const char *const[]){ "╔", "═", "╗", "║", "╚", "╝" } :
		(const char *const[]){ "┌", "─", "┐", "│", "└", "┘" };
	const int bot = y + lines + 1, iw = w - 2;
	char fit[160];
	clip_put(c, r, x, y, box[0], bo.fg, bo.bg, bo.attr);
	clip_put(c, r, x + w - 1, y, box[2], bo.fg, bo.bg, bo.attr);
	clip_put(c, r, x, bot, box[4], bo.fg, bo.bg, bo.attr);
	clip_put(c, r, x + w - 1, bot, box[5], bo.fg, bo.bg, bo.attr);
	for (int k = 1; k < w - 1; k++) {
		clip_put(c, r, x + k, y, box[1], bo.fg, bo.bg, bo.attr);
		clip_put(c, r, x + k, bot, box[1], bo.fg, bo.bg, bo.attr);
	}
	for (int k = 1; k <= lines; k++) {
		clip_put(c, r, x, y + k, box[3], bo.fg, bo.bg, bo.attr);
		clip_put(c, r, x + w - 1, y + k, box[3], bo.fg, bo.bg, bo.attr);
	}
	if (title && iw > 0)
		clip_text(c, r, x + 1, y, iw, text_fit(title, iw, fit, sizeof fit), &ti);
	if (note && iw > 0)
		clip_text(c, r, x + 1, bot, iw, text_fit(note, iw, fit, sizeof fit), &mu);
}

void view_follow(int *first, int cur, int vis, int total)
{
	if (vis < 1)
		vis = 1;
	if (cur >= 0 && cur < *first)
		*first = cur;
	if (cur >= 0 && cur >= *first + vis)
		*first = cur - vis + 1;
	*first = clampi(*first, 0, total > vis ? total - vis : 0);
}

void draw_bar(struct canvas *c, struct rect r, int x, int y, int w,
	      double frac, uint32_t fg, uint32_t bg, uint8_t attr)
{
	static const char *const part[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	if (!(frac > 0) || w < 1)
		return;
	if (frac > 1)
		frac = 1;
	int eighths = (int)lround(frac * w * 8), k = 0;
	for (; k < eighths / 8; k++)
		clip_put(c, r, x + k, y, "█", fg, bg, attr);
	if (eighths % 8 && k < w)
		clip_put(c, r, x + k, y, part[eighths % 8], fg, bg, attr);
	else if (eighths == 0)
		clip_put(c, r, x, y, "▏", fg, bg, attr);   /* not zero */
}

const char *fmt_num(char *buf, size_t n, double x, int prec)
{
	size_t k = 0;
	if (isnan(x) || isinf(x)) {
		snprintf(buf, n, "%s", isnan(x) ? "nan" : canvas_ascii() ? x < 0 ? "-inf" : "inf" :
			 x < 0 ? "−∞" : "∞");
		return buf;
	}
	/* the sign only when the rounded value is not zero */
	if (x < 0 && -x >= 0.5 * pow(10.0, -prec) && n > 4) {
		k = canvas_ascii() ? 1 : 3;   /* (ASCII: views/ascii.c) */
		memcpy(buf, canvas_ascii() ? "-" : "−", k);
	}
	snprintf(buf + k, n - k, "%.*f", prec, fabs(x));
	return i18n_decimals(buf);
}

/* "-" for a negative x, then |x| with prec decimals, fixed or scientific
 * (sci), with the message language's decimal separator.  The ASCII minus,
 * as the stage tables always had it: a value copied from an English
 * screen parses (Python's float, strtod). */
static const char *signed_fmt(char *buf, size_t n, double x, int sci, int prec)
{
	size_t k = 0;
	if (x < 0 && n > 2)
		buf[k++] = '-';
	if (sci)
		snprintf(buf + k, n - k, "%.*e", prec, fabs(x));
	else
		snprintf(buf + k, n - k, "%.*f", prec, fabs(x));
	return i18n_decimals(buf);
}

/* Infinities, NaN and zero; NULL for any other x. */
static const char *special(char *buf, size_t n, double x)
{
	if (isnan(x))
		snprintf(buf, n, "nan");
	else if (isinf(x))   /* (a terminal without UTF-8: "-inf") */
		snprintf(buf, n, "%s", canvas_ascii() ? x < 0 ? "-inf" : "inf" : x < 0 ? "−∞" : "∞");
	else if (x == 0)
		snprintf(buf, n, "0");
	else
		return NULL;
	return buf;
}

const char *fmt_cell(char *buf, size_t n, double x)
{
	if (special(buf, n, x))
		return buf;
	double a = fabs(x);
	if (a >= 0.0009995 && a < 99999.5) {
		int mag = (int)floor(log10(a));
		int dec = clampi(3 - mag, 0, 6);
		/* 9.9996 rounds to 10.00, not 10.000: four digits still */
		double p = pow(10.0, dec);
		if (dec > 0 && (int)floor(log10(round(a * p) / p)) > mag)
			dec--;
		return signed_fmt(buf, n, x, 0, dec);
	}
	return signed_fmt(buf, n, x, 1, 2);
}

const char *fmt_cell_fit(char *buf, size_t n, double x, int w)
{
	if (special(buf, n, x))
		return buf;
	double a = fabs(x);
	/* at most four significant digits (three decimals below 10) */
	int top = a >= 1 ? clampi(3 - (int)floor(log10(a)), 0, 3) : 3;
	if (a >= 0.0005)
		for (int dec = top; dec >= 0; dec--) {
			signed_fmt(buf, n, x, 0, dec);
			if (utf8_width(buf) <= w)
				return buf;
		}
	for (int prec = 2; prec > 0; prec--) {
		signed_fmt(buf, n, x, 1, prec);
		if (utf8_width(buf) <= w)
			return buf;
	}
	return signed_fmt(buf, n, x, 1, 0);
}

void fmt_pct(char *buf, size_t n, double p)
{
	if (p >= 0.0005)
		snprintf(buf, n, "%.1f%%", p * 100);
	else if (p > 0)
		snprintf(buf, n, "<0.1%%");
	else
		snprintf(buf, n, "0%%");
	i18n_decimals(buf);
}

const char *fmt_sig(char *buf, size_t n, const char *sign, double x, int sig)
{
	snprintf(buf, n, "%s%.*g", sign ? sign : "", sig, x);
	return i18n_decimals(buf);
}
