/* test_view_numbers.c - a picture you can trust (issue 12): the number
 * formatter, the status line's value, and −∞ in every colour mode.
 *
 * fmt_cell / fmt_cell_fit against hand-written expectations; the status
 * line at widths 60…200 in English and pt_BR always ends with the whole
 * value, which equals the stored cell to four significant digits (the
 * shipped model's 2.90066e-12 in decoder.1.cross_attn.weights, head 0,
 * (2, 2) once read "= 2.90"); and for every colour scheme × depth (none, 8,
 * 256, truecolor) every role's colours, the −∞ colours and every glyph the
 * views draw differ in foreground and background once mapped to the
 * terminal's colours, and masked cells carry a glyph (× or −∞) at every
 * zoom. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewtest.h"
#include "base/i18n.h"
#include "views/draw.h"
#include "views/palette.h"
#include "views/screen.h"

static void check_fmt(double x, const char *want)
{
	char buf[64];
	fmt_cell(buf, sizeof buf, x);
	tap_ok(strcmp(buf, want) == 0, "fmt_cell(%.9g) = \"%s\" (want \"%s\")", x, buf, want);
}

static void check_fit(double x, int w, const char *want)
{
	char buf[64];
	fmt_cell_fit(buf, sizeof buf, x, w);
	tap_ok(strcmp(buf, want) == 0 && utf8_width(buf) <= w,
	       "fmt_cell_fit(%.9g, %d) = \"%s\" (want \"%s\")", x, w, buf, want);
}

/* The value at the end of a status line (" … = VALUE "), parsed with the
 * message language's decimal separator ("2,22e-06" in pt_BR; NAN for a
 * point there); the text after "= " in val. */
static double status_value(const char *line, char *val, size_t n)
{
	const char *p = strstr(line, " = "), *q;
	while (p && (q = strstr(p + 1, " = ")))
		p = q;
	if (!p)
		return NAN;
	snprintf(val, n, "%s", p + 3);
	size_t l = strlen(val);
	while (l && val[l - 1] == ' ')
		val[--l] = 0;
	const char *s = val;
	int neg = !strncmp(s, "−", 3);
	if (neg)
		s += 3;
	if (!strncmp(s, "∞", 3))
		return neg ? -INFINITY : INFINITY;
	char num[64], *end;
	const char *sep = _(".");
	snprintf(num, sizeof num, "%s", s);
	for (char *c = num; *c; c++)
		if (*c == '.' && *sep != '.')
			return NAN;   /* a point where the language writes a comma */
		else if (*c == *sep)
			*c = '.';
	double x = strtod(num, &end);
	return end == num ? NAN : neg ? -x : x;
}

static void status_lines(const struct model *m, const struct trace *t)
{
	static const int W[] = { 60, 80, 100, 120, 160, 200 };
	struct view_state v;
	char line[1024], val[64];
	/* the lecture's cell: 2.90066e-12 */
	if (vt_state(&v, t, m, "decoder.1.cross_attn.weights"))
		return;
	v.head = 0;
	v.row = 2;
	v.col = 2;
	const struct stage *s = view_stage(&v);
	float want = view_slice(s, 0)[2 * s->shape[2] + 2];
	for (size_t i = 0; i < sizeof W / sizeof *W; i++) {
		screen_status_line(&v, W[i], line, sizeof line);
		double got = status_value(line, val, sizeof val);
		int ok = utf8_width(line) <= W[i] && fabs(got - want) <= 5.01e-3 * fabs(want);
		tap_ok(ok, "status at %d columns ends with the value %s (stored %.6g)", W[i],
		       val, want);
		if (!ok)
			printf("# |%s|\n", line);
	}
	/* a masked key's weight says it is masked, not just 0 */
	if (!vt_state(&v, t, m, "decoder.0.self_attn.weights")) {
		v.row = 0;
		v.col = 3;
		screen_status_line(&v, 120, line, sizeof line);
		status_value(line, val, sizeof val);
		tap_ok(!strcmp(val, _("0 (masked)")), "a masked key's weight reads \"%s\"", val);
	}
	/* every cell of some stages at 60 and 120 columns */
	static const char *const ST[] = { "decoder.0.self_attn.masked",
					  "decoder.0.self_attn.weights",
					  "encoder.1.ffn.hidden", "loss", "logits" };
	for (size_t k = 0; k < sizeof ST / sizeof *ST; k++) {
		if (vt_state(&v, t, m, ST[k]))
			continue;
		s = view_stage(&v);
		int rows, cols, bad = 0, cells = 0;
		view_dims(s, &rows, &cols);
		for (int w = 60; w <= 120; w += 60)
			for (int i = 0; i < rows; i++)
				for (int j = 0; j < cols && j < 40; j++) {
					v.row = i;
					v.col = j;
					float x = view_slice(s, 0)[(size_t)i * cols + j];
					screen_status_line(&v, w, line, sizeof line);
					double got = status_value(line, val, sizeof val);
					int ok = utf8_width(line) <= w &&
						 (isinf(x) ? got == x && !strcmp(val, _("−∞ (masked)")) :
						  fabs(got - x) <= (strchr(val, 'e') ? 5.01e-3 : 5.01e-4) *
						  fabs(x) + 1e-12);
					if (!ok && !bad++)
						printf("# %s (%d,%d) = %.9g at %d: |%s|\n", ST[k], i, j,
						       x, w, line);
					cells++;
				}
		tap_ok(bad == 0 && cells > 0, "%s: the status line's value is the cell's, "
		       "uncut, in %d cells at 60 and 120 columns", ST[k], cells);
	}
}

/* Fg and bg of every drawn glyph differ at the canvas's depth. */
static int legible(const struct canvas *c, const char *what)
{
	int bad = 0;
	for (int i = 0; i < c->w * c->h; i++) {
		const struct cell *p = &c->cells[i];
		int fi, bi;
		color_pair_at(c->depth, p->glyph, p->fg, p->bg, &fi, &bi);
		if (fi >= 0 && fi == bi && strcmp(p->glyph, " ") && strcmp(p->glyph, "▀") &&
		    *p->glyph) {
			if (!bad++)
				printf("# %s: \"%s\" at (%d,%d) in colour %d on %d\n", what,
				       p->glyph, i % c->w, i / c->w, fi, bi);
		}
	}
	return bad;
}

static int count_glyph(const struct canvas *c, const char *g)
{
	int n = 0;
	for (int i = 0; i < c->w * c->h; i++)
		n += !strcmp(c->cells[i].glyph, g);
	return n;
}

static void colours(const struct model *m, const struct trace *t)
{
	static const enum depth D[] = { DEPTH_NONE, DEPTH_8, DEPTH_256, DEPTH_TRUE };
	static const char *const DN[] = { "none", "8", "256", "truecolor" };
	for (int sc = 0; sc < SCHEME_COUNT; sc++) {
		palette_set_scheme((enum scheme)sc);
		for (size_t d = 0; d < sizeof D / sizeof *D; d++) {
			/* the scheme's own pairs, before any correction */
			int bad = 0;
			for (int r = 0; r < R_NROLES; r++) {
				struct style st = role_style((enum role)r, D[d]);
				int fi, bi;
				color_pair_at(D[d], " ", st.fg, st.bg, &fi, &bi);
				if (fi >= 0 && fi == bi && !bad++)
					printf("# role %d: colour %d on %d\n", r, fi, bi);
			}
			int fi, bi;
			color_pair_at(D[d], " ", D[d] == DEPTH_NONE ? COLOR_DEFAULT : NEGINF_FG,
				      D[d] == DEPTH_NONE ? COLOR_DEFAULT : NEGINF_BG, &fi, &bi);
			if (fi >= 0 && fi == bi && !bad++)
				printf("# −∞: colour %d on %d\n", fi, bi);
			tap_ok(bad == 0, "%s, %s colours: every role and −∞ have fg ≠ bg",
			       palette_scheme_name((enum scheme)sc), DN[d]);

			/* what the views draw: −∞ has a glyph, and glyphs read */
			static const struct { const char *stage; int flags; enum zoom z; int w, h; } V[] = {
				{ "decoder.0.self_attn.masked", 0, ZOOM_NUMBERS, 100, 30 },
				{ "decoder.0.self_attn.masked", 0, ZOOM_CELLS, 100, 30 },
				{ "decoder.0.self_attn.masked", 0, ZOOM_FIT, 100, 30 },
				{ "decoder.0.self_attn.masked", 0, ZOOM_BIG, 200, 60 },
				{ "decoder.0.self_attn.masked", VM_HEADS, ZOOM_AUTO, 100, 30 },
				{ "decoder.0.self_attn.weights", VM_INSPECT, ZOOM_AUTO, 100, 30 },
			};
			for (size_t k = 0; k < sizeof V / sizeof *V; k++) {
				struct view_state v;
				if (vt_state(&v, t, m, V[k].stage))
					continue;
				v.mode = (enum view_mode)V[k].flags;
				v.zoom = V[k].z;
				v.row = 1;
				v.col = 1;
				struct canvas *c = canvas_new(V[k].w, V[k].h, D[d]);
				view_clamp(&v);
				view_for(&v)->draw(&v, c, (struct rect){ 0, 0, c->w, c->h });
				char what[160];
				snprintf(what, sizeof what, "%s %s flags %d zoom %d", palette_scheme_name((enum scheme)sc),
					 DN[d], V[k].flags, V[k].z);
				int nb = legible(c, what);
				int marks = count_glyph(c, NEGINF_GLYPH) + count_glyph(c, "−");
				tap_ok(nb == 0 && marks > 0, "%s: −∞ drawn with a glyph (%d), "
				       "every glyph readable (%d not)", what, marks, nb);
				canvas_free(c);
			}
		}
	}
	palette_set_scheme(SCHEME_DEFAULT);
}

int main(void)
{
	/* the formatter */
	check_fmt(2.90066e-12, "2.90e-12");
	check_fmt(7.07908e-12, "7.08e-12");
	check_fmt(-3.5e-7, "-3.50e-07");
	check_fmt(1.0, "1.000");
	check_fmt(0.42133, "0.4213");
	check_fmt(0.0012345, "0.001234");
	check_fmt(-12.3456, "-12.35");
	check_fmt(9.99996, "10.00");
	check_fmt(12345.6, "12346");
	check_fmt(123456.0, "1.23e+05");
	check_fmt(0, "0");
	check_fmt(-INFINITY, "−∞");
	check_fit(2.90066e-12, 6, "3e-12");
	check_fit(-2.90066e-12, 6, "-3e-12");
	check_fit(0.42133, 6, "0.421");
	check_fit(-0.42133, 5, "-0.42");
	check_fit(0.0004, 6, "4e-04");
	check_fit(0.0006, 6, "0.001");
	check_fit(123.456, 6, "123.5");
	check_fit(19.1604, 6, "19.16");
	check_fit(1234567, 6, "1e+06");
	check_fit(2.90066e-12, 8, "2.90e-12");
	check_fit(-INFINITY, 6, "−∞");

	struct model *m = vt_model("models/en-pt-tiny.yaml");
	if (!tap_ok(m != NULL, "load the shipped en-pt-tiny"))
		return tap_done();
	struct trace *t = vt_pass(m, "your cat is a lovely cat", "seu gato é um gato adorável",
				  NULL);
	if (!tap_ok(t != NULL, "forward pass with a target"))
		return tap_done();
	i18n_init("en");
	status_lines(m, t);
	i18n_init("pt_BR");
	status_lines(m, t);
	i18n_init("en");
	colours(m, t);

	/* ReLU's output is never negative: a sequential scale from 0 */
	const struct stage *fh = trace_find(t, "encoder.1.ffn.hidden");
	if (tap_ok(fh != NULL, "encoder.1.ffn.hidden present")) {
		struct scale sc = scale_for(fh, stage_f32(fh), stage_numel(fh));
		tap_ok(!sc.diverging && sc.lo == 0 && sc.hi > 0,
		       "ffn.hidden (relu) on a sequential 0…max scale (diverging %d, lo %g)",
		       sc.diverging, sc.lo);
	}
	const struct stage *sa = trace_find(t, "encoder.1.self_attn.scores");
	if (sa) {
		struct scale sc = scale_for(sa, stage_f32(sa), stage_numel(sa));
		tap_ok(sc.diverging, "scores (signed) stay on a diverging scale");
	}

	/* the loss bars: 0 to ln V (a uniform guess), not 0 to the largest loss */
	{
		struct trace *lt = vt_pass(m, "i love you very much", "eu te amo muito", NULL);
		struct view_state v;
		if (tap_ok(lt && !vt_state(&v, lt, m, "loss"), "pass on the lecture's sentence")) {
			char *txt = vt_render(&v, 100, 30, DEPTH_NONE);
			char want[64];
			snprintf(want, sizeof want, "bar 0–%.2f = ln V", log((double)m->tgt_vocab.n));
			tap_contains(txt, want, "loss bars scaled 0 to ln V");
			/* the longest bar is the largest loss's share of ln V */
			const struct stage *ls = view_stage(&v);
			double mx = 0;
			for (int i = 0; i < ls->shape[0]; i++)
				mx = fmax(mx, stage_f32(ls)[i]);
			int longest = 0;
			for (const char *p = txt; *p;) {
				const char *e = strchr(p, '\n');
				int run = 0;
				for (const char *q = p; q < (e ? e : p + strlen(p)); q++)
					run += !strncmp(q, "█", 3);
				longest = run > longest ? run : longest;
				p = e ? e + 1 : p + strlen(p);
			}
			tap_ok(longest <= (int)ceil(40 * mx / log((double)m->tgt_vocab.n)) + 1,
			       "longest loss bar %d cells for a loss of %.3f (of 40 for ln V)",
			       longest, mx);
			free(txt);
		}
		trace_free(lt);
	}
	trace_free(t);
	model_free(m);
	return tap_done();
}
