/* cmd_render.c - `attnscope render`: one stage to stdout as a table of
 * numbers (text), CSV, a coloured heatmap (ANSI) or an SVG picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "commands.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/forward.h"
#include "engine/lens.h"
#include "views/canvas.h"
#include "views/figure.h"
#include "views/view.h"
#include "tui/tui.h"

static int out_width(const struct cli *c)
{
	struct winsize ws;
	if (c->width)
		return c->width;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 100;
}

/* A value of a text table, with the message language's decimal
 * separator (CSV keeps the point: its fields are split at commas). */
static void fmt_value(char *buf, size_t n, float x)
{
	if (isinf(x) && x < 0)
		snprintf(buf, n, "%s", safetext_ascii() ? "-inf" : "−∞");
	else if (fabsf(x) >= 1e4f || (x != 0 && fabsf(x) < 1e-4f))
		snprintf(buf, n, "%.3e", x);
	else
		snprintf(buf, n, "%.4f", x);
	i18n_decimals(buf);
}

/* A row or column label cut to w columns; in safetext's ASCII mode (a
 * locale that is not UTF-8) with its characters beyond ASCII escaped. */
static const char *label_fit(const char *lab, int w, char *fit, size_t n)
{
	char safe[512];
	if (safetext_ascii())
		lab = safetext_copy(safe, sizeof safe, lab, 0);
	return text_fit(lab, w, fit, n);
}

/* Beyond this many vocabulary columns (GPT-2's 50257, BERT's 30522) the
 * text table shows each row's top tokens instead of every column. */
#define RENDER_VOCAB_MAX 1000

/* Row i's top-k columns of m[rows, cols] by value into idx[k]. */
static int row_top(const float *r, int cols, int k, int *idx)
{
	int n = 0;
	for (int j = 0; j < cols; j++) {
		if (n == k && !(r[j] > r[idx[k - 1]]))
			continue;
		int p = n < k ? n++ : k - 1;
		while (p > 0 && r[j] > r[idx[p - 1]]) {
			idx[p] = idx[p - 1];
			p--;
		}
		idx[p] = j;
	}
	return n;
}

/* A [rows, V] stage of a large vocabulary: each row's top tokens. */
static void print_top(const struct trace *t, const struct stage *s, const float *m,
		      int rows, int cols, int lw, int width)
{
	enum axis ra = s->axes[0], ca = s->axes[1];
	char lab[96], fit[64], val[32], cell[128];
	int idx[10];
	int k = (width - lw) / 20;
	k = k < 3 ? 3 : k > 10 ? 10 : k;
	/* TRANSLATORS: render --format text over a large vocabulary */
	printf(_("top %d of %d columns per row (--format csv has them all)\n"), k, cols);
	for (int i = 0; i < rows; i++) {
		trace_row_label(t, ra, i, lab, sizeof lab);
		utf8_fpad(stdout, label_fit(lab, 24, fit, sizeof fit), lw, 1);
		int n = row_top(m + (size_t)i * cols, cols, k, idx);
		for (int j = 0; j < n; j++) {
			trace_axis_label(t, ca, idx[j], lab, sizeof lab);
			fmt_value(val, sizeof val, m[(size_t)i * cols + idx[j]]);
			snprintf(cell, sizeof cell, "  %s %s", label_fit(lab, 12, fit, sizeof fit), val);
			fputs(cell, stdout);
		}
		putchar('\n');
	}
}

static void print_matrix(const struct trace *t, const struct stage *s,
			 int head, int width)
{
	int rows, cols;
	char lab[96], fit[64], val[32];
	view_dims(s, &rows, &cols);
	const float *m = view_slice(s, head);
	enum axis ra = s->axes[s->ndim == 3 ? 1 : 0], ca = s->axes[s->ndim - 1];
	int lw = 4;
	for (int i = 0; i < rows; i++) {
		trace_row_label(t, ra, i, lab, sizeof lab);
		int w = utf8_width(label_fit(lab, 24, fit, sizeof fit));
		lw = w > lw ? w : lw;
	}
	if (s->ndim == 2 && ca == AX_VOCAB && cols > RENDER_VOCAB_MAX) {
		print_top(t, s, m, rows, cols, lw, width);
		return;
	}
	const int cw = 11;
	int per = width > 0 ? (width - lw) / cw : cols;   /* 0: every column */
	if (per < 1)
		per = 1;
	if (s->ndim == 1)
		per = cols = 1;
	for (int c0 = 0; c0 < cols; c0 += per) {
		int c1 = c0 + per < cols ? c0 + per : cols;
		if (cols > per)
			printf(safetext_ascii() ? "columns %d-%d of %d\n" : "columns %d–%d of %d\n",
			       c0, c1 - 1, cols);
		utf8_fpad(stdout, "", lw, 1);
		for (int j = c0; j < c1 && s->ndim > 1; j++) {
			trace_axis_label(t, ca, j, lab, sizeof lab);
			utf8_fpad(stdout, label_fit(lab, cw - 1, fit, sizeof fit), cw, 1);
		}
		putchar('\n');
		for (int i = 0; i < rows; i++) {
			trace_row_label(t, ra, i, lab, sizeof lab);
			utf8_fpad(stdout, label_fit(lab, 24, fit, sizeof fit), lw, 1);
			for (int j = c0; j < c1; j++) {
				if (s->dtype == DT_I32)
					snprintf(val, sizeof val, "%d", ((const int32_t *)s->data)[i]);
				else
					fmt_value(val, sizeof val, m[(size_t)i * cols + j]);
				utf8_fpad(stdout, val, cw, 1);
			}
			putchar('\n');
		}
		if (c1 < cols)
			putchar('\n');
	}
}

static void csv_field(const char *s0)
{
	char buf[512];   /* a label (≤ 96 bytes) made safe: CSV has no escapes */
	const char *s = safetext_copy(buf, sizeof buf, s0, 0);
	int quote = strpbrk(s, ",\"\n") != NULL;
	if (!quote) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct trace *t, const struct stage *s, int head)
{
	int rows, cols, h0 = head >= 0 ? head : 0;
	int h1 = head >= 0 ? head + 1 : view_heads(s);
	char lab[96];
	view_dims(s, &rows, &cols);
	enum axis ra = s->axes[s->ndim == 3 ? 1 : 0], ca = s->axes[s->ndim - 1];
	/* TRANSLATORS: render --format csv's column names (one word each,
	 * no comma): the head, the row's token, a 1-D stage's value */
	if (s->ndim == 3)
		printf("%s,", _("head"));
	fputs(_("row"), stdout);
	for (int j = 0; j < cols; j++) {
		putchar(',');
		if (s->ndim == 1)
			fputs(_("value"), stdout);
		else
			csv_field(trace_axis_label(t, ca, j, lab, sizeof lab));
	}
	putchar('\n');
	for (int h = h0; h < h1; h++) {
		const float *m = view_slice(s, h);
		for (int i = 0; i < rows; i++) {
			if (s->ndim == 3)
				printf("%d,", h);
			csv_field(trace_row_label(t, ra, i, lab, sizeof lab));
			for (int j = 0; j < cols; j++) {
				if (s->dtype == DT_I32)
					printf(",%d", ((const int32_t *)s->data)[i]);
				else if (isinf(m[(size_t)i * cols + j]))
					printf(",%s", m[(size_t)i * cols + j] < 0 ? "-inf" : "inf");
				else
					printf(",%.9g", m[(size_t)i * cols + j]);
			}
			putchar('\n');
		}
	}
}

static enum depth env_depth(void)
{
	const char *nc = getenv("NO_COLOR"), *ct = getenv("COLORTERM");
	if (nc && *nc)
		return DEPTH_NONE;
	if (ct && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0))
		return DEPTH_TRUE;
	return DEPTH_256;
}

/* A figure (views/figure.c): title, the view without cursor or hints. */
static int print_picture(const struct trace *t, const struct model *m,
			 int idx, int head, int width, int svg, const struct cli *cl)
{
	const struct stage *s = &t->stages[idx];
	struct view_state v;
	memset(&v, 0, sizeof v);
	v.tr = t;
	v.m = m;
	v.stage = idx;
	v.head = head >= 0 ? head : 0;
	if (head < 0 && view_heads(s) > 1)
		v.mode = VM_HEADS;
	float *pe = NULL;
	if (cl->ndims) {   /* the PE curves of these dimensions */
		v.mode = VM_CURVES;
		v.pe_ndims = cl->ndims;
		memcpy(v.pe_dims, cl->dims, (size_t)cl->ndims * sizeof *cl->dims);
		/* over PE_CURVE_POSITIONS positions, the model's table (the
		 * engine computes it; the view only draws) */
		if (s->ndim == 2) {
			int want = s->shape[0] > PE_CURVE_POSITIONS ? s->shape[0] : PE_CURVE_POSITIONS;
			v.pe_table = pe = forward_pe_table(m, want, &v.pe_n);
		}
	}
	struct canvas *c = figure_new(&v, width, svg ? DEPTH_TRUE : env_depth());
	free(pe);
	if (!c)
		return cli_fail("out of memory");
	if (svg)
		canvas_write_svg(c, stdout);
	else if (c->depth == DEPTH_NONE)
		canvas_write_text(c, stdout);
	else
		canvas_write_ansi(c, stdout);
	canvas_free(c);
	return 0;
}

/* The mode of a --view name (enum view_mode), or 0 when there is none. */
/* --view overview: the heatmap at zoom overview (a mode of its own here) */
#define RENDER_OVERVIEW (VM_COUNT + 1)

static int view_flag(const char *name)
{
	static const struct { const char *name; int flag; } V[] = {
		{ "lines", VM_LINES }, { "model", VM_MODEL }, { "map", VM_MAP },
		{ "heads", VM_HEADS }, { "overview", RENDER_OVERVIEW },
		{ "lens", VM_LENS },
	};
	for (size_t i = 0; i < sizeof V / sizeof *V; i++)
		if (!strcmp(V[i].name, name))
			return V[i].flag;
	return 0;
}

/* The stage a view starts on without --stage: the first attention's
 * weights (the map: the first stage; the lens: the output). */
static int view_default_stage(const struct trace *t, int flag)
{
	if (flag == VM_LENS)
		return t->n - 1;
	for (int i = 0; i < t->n; i++)
		if (t->stages[i].kind == SK_WEIGHTS)
			return i;
	return flag == VM_LINES || flag == VM_MODEL || flag == VM_HEADS ||
	       flag == RENDER_OVERVIEW ? -1 : 0;
}

/* --view lens --format csv: one line per lens row and position. */
static void print_lens_csv(const struct trace *t, const struct lens *l)
{
	char lab[96];
	fputs("row,stage,position,input,chosen,p_chosen,rank_chosen", stdout);
	for (int k = 0; k < l->K; k++)
		printf(",top%d,p%d", k + 1, k + 1);
	putchar('\n');
	for (int row = 0; row < l->L; row++)
		for (int i = 0; i < l->T; i++) {
			const size_t at = (size_t)row * l->T + i;
			printf("%d,%s,%d,", row, l->row_stage[row], i);
			csv_field(trace_axis_label(t, AX_TGT, i, lab, sizeof lab));
			putchar(',');
			csv_field(l->chosen[i] >= 0 ? vocab_str(t->vocab, l->chosen[i]) : "");
			printf(",%.9g,%d", l->p_chosen[at], l->rank_chosen[at]);
			for (int k = 0; k < l->K; k++) {
				putchar(',');
				csv_field(vocab_str(t->vocab, l->top[at * l->K + k]));
				printf(",%.9g", l->top_p[at * l->K + k]);
			}
			putchar('\n');
		}
}

/* render --view NAME: the view drawn headless, as plain text (--format
 * text, no colour), ANSI or SVG, W × H cells (H: --height, else what the
 * view needs at most). */
static int print_view(struct cli *c, const struct trace *t, const struct model *m,
		      int flag, int idx, const char *fmt)
{
	struct view_state v;
	int svg = !strcmp(fmt, "svg"), ansi = !strcmp(fmt, "ansi");
	struct lens l = { 0 };
	if (flag == VM_LENS) {
		struct err e;
		if (lens_compute(m, t, &l, &e))
			return cli_fail("%s", e.msg);
		if (!strcmp(fmt, "csv")) {
			print_lens_csv(t, &l);
			lens_free(&l);
			return 0;
		}
	}
	memset(&v, 0, sizeof v);
	v.lens = flag == VM_LENS ? &l : NULL;
	v.tr = t;
	v.m = m;
	v.stage = idx;
	v.head = c->head >= 0 ? c->head : 0;
	v.mode = flag == RENDER_OVERVIEW ? VM_STAGE : (enum view_mode)flag;
	v.zoom = flag == RENDER_OVERVIEW ? ZOOM_OVERVIEW : ZOOM_AUTO;
	const struct stage *w = view_attn_weights(t, &t->stages[idx]);
	if ((flag == VM_LINES || flag == VM_MODEL || flag == VM_HEADS || flag == RENDER_OVERVIEW) &&
	    !w)
		return cli_fail("--view %s draws an attention stage; %s is not one (try "
				"--stage %s)", c->view, t->stages[idx].name,
				t->stages[view_default_stage(t, flag) >= 0 ?
					  view_default_stage(t, flag) : idx].name);
	int h = c->height;
	if (!h && flag == VM_LENS)   /* the grid, then every position in full */
		h = 3 + l.L + l.T * (l.L + 2);
	if (!h) {
		int n = w ? (w->shape[1] > w->shape[2] ? w->shape[1] : w->shape[2]) : 8;
		h = 2 * n + 5;
		if (flag == RENDER_OVERVIEW || flag == VM_HEADS)
			h = h < 60 ? h : 60;   /* a screenful: the picture fits it */
		if (flag == VM_MAP)
			h = 36;   /* the figure with a line between boxes */
		if (flag == VM_MODEL) {   /* every layer: a row of tiles each */
			int L = 0;
			for (int i = 0; i < t->n; i++)
				if (t->stages[i].block == w->block && t->stages[i].layer >= L)
					L = t->stages[i].layer + 1;
			h = L * (w->shape[1] + 2) + 6;
		}
	}
	if (w && c->head >= w->shape[0]) {
		char msg[256];
		snprintf(msg, sizeof msg, P_("--head %d: %s has %d head",
					     "--head %d: %s has %d heads", w->shape[0]),
			 c->head, w->name, w->shape[0]);
		return cli_fail("%s", msg);
	}
	if (h > 400)
		h = 400;
	struct canvas *cv = canvas_new(out_width(c), h, svg ? DEPTH_TRUE :
				       ansi ? env_depth() : DEPTH_NONE);
	if (!cv) {
		lens_free(&l);
		return cli_fail("out of memory");
	}
	struct rect r = { 0, 0, cv->w, h };
	cv->figure = svg || ansi;   /* a still picture: no key hints */
	view_for(&v)->draw(&v, cv, r);
	if (svg && !c->height) {
		int w2, h2;
		canvas_extent(cv, &w2, &h2);
		canvas_crop(cv, w2 + 1, h2 + 1);   /* failing leaves it whole */
	}
	if (svg)
		canvas_write_svg(cv, stdout);
	else if (cv->depth == DEPTH_NONE)
		canvas_write_text(cv, stdout);
	else
		canvas_write_ansi(cv, stdout);
	canvas_free(cv);
	lens_free(&l);
	return 0;
}

/* The options that need no model: the format and the view, and what goes
 * with them.  0 with *vflag the view (0: none), or cli_fail's status. */
static int render_options(const struct cli *c, const char *fmt, int svg, int ansi, int *vflag)
{
	if (!svg && !ansi && strcmp(fmt, "text") && strcmp(fmt, "csv"))
		return cli_fail("--format must be text, ansi, svg or csv, not \"%s\"", fmt);
	/* a locale that is not UTF-8: pictures for a terminal drawn in ASCII,
	 * as the stepper draws them (an SVG's characters are its own) */
	if (safetext_ascii() && !svg)
		canvas_set_ascii(1);
	if (c->keys)
		return cli_fail("render uses --keys only with --view stepper");
	*vflag = c->view ? view_flag(c->view) : 0;
	if (c->view && !*vflag)
		return cli_fail("--view must be lines, model, map, lens, heads, overview or "
				"stepper, not \"%s\"", c->view);
	if (*vflag && *vflag != VM_LENS && !strcmp(fmt, "csv"))
		return cli_fail("--view draws a picture: --format text, ansi or svg, not csv");
	if (*vflag == VM_LENS && (c->head >= 0 || c->stage))
		return cli_fail("--view lens shows every layer of the output: no --stage or --head");
	if (!c->stage && !*vflag)
		return cli_fail("render needs --stage NAME (--stage list prints the names)");
	return 0;
}

/* --head and --dims against the stage s: 0, or cli_fail's status. */
static int stage_options(const struct cli *c, const struct stage *s, int svg, int ansi)
{
	if (c->head >= view_heads(s)) {
		char msg[256];
		snprintf(msg, sizeof msg, P_("--head %d: %s has %d head",
					     "--head %d: %s has %d heads", view_heads(s)),
			 c->head, s->name, view_heads(s));
		return cli_fail("%s", msg);
	}
	if (c->ndims) {
		int d = s->ndim == 2 ? s->shape[1] : 0;
		if (s->kind != SK_VECTORS || !strstr(s->name, ".pos"))
			return cli_fail("--dims draws the positional encoding: a .pos stage (src.pos, "
					"tgt.pos), not %s", s->name);
		if (!svg && !ansi)
			return cli_fail("--dims draws curves: --format svg or ansi");
		for (int k = 0; k < c->ndims; k++)
			if (c->dims[k] >= d)
				return cli_fail("--dims: %s has dimensions 0–%d, not %d", s->name,
						d - 1, c->dims[k]);
	}
	return 0;
}

/* --format text: each head's table (or the one --head names) under its
 * title. */
static void print_text(const struct cli *c, const struct trace *t, const struct stage *s)
{
	for (int h = c->head >= 0 ? c->head : 0;
	     h < (c->head >= 0 ? c->head + 1 : view_heads(s)); h++) {
		printf("%s  %s", s->name, s->formula);
		if (view_heads(s) > 1)
			/* TRANSLATORS: render --format text, after the stage's name */
			printf(_("  head %d of %d"), h, view_heads(s));
		if (s->wdtype[0])   /* a GGUF model's weight, as the file stores it */
			printf("  weights %s", s->wdtype);
		char rtb[64], ctb[64];
		/* TRANSLATORS: render --format text: what the rows and the
		 * columns of the table are */
		printf(_("\nrows: %s%s%s\n"), view_row_title(s, rtb, sizeof rtb),
		       s->ndim > 1 ? _(" · columns: ") : "", view_col_title(s, ctb, sizeof ctb));
		print_matrix(t, s, h, c->width);   /* every column unless --width */
		if (h + 1 < view_heads(s) && c->head < 0)
			putchar('\n');
	}
}

/* The stage --stage names, in the format asked: a view, a picture, CSV or
 * text.  The exit status. */
static int render_stage(struct cli *c, struct trace *t, struct model *m, int vflag,
			const char *fmt)
{
	int svg = !strcmp(fmt, "svg"), ansi = !strcmp(fmt, "ansi");
	int idx = trace_index(t, c->stage);
	if (idx < 0)
		return cli_fail("no stage \"%s\" in this pass (--stage list prints the names)",
				c->stage);
	if (vflag)
		return print_view(c, t, m, vflag, idx, fmt);
	const struct stage *s = &t->stages[idx];
	if (stage_options(c, s, svg, ansi))
		return 1;
	if (svg || ansi)
		/* an SVG is as wide as the figure needs (cut to it), up to 200
		 * columns unless --width; ANSI fits the terminal */
		return print_picture(t, m, idx, c->head,
				     svg ? (c->width ? c->width : 200) : out_width(c), svg, c);
	/* the tables speak the message language (--lang pt_BR); their numbers
	 * keep the decimal point, which CSV and notebooks read */
	if (!strcmp(fmt, "csv"))
		print_csv(t, s, c->head);
	else
		print_text(c, t, s);
	return 0;
}

int cmd_render(struct cli *c)
{
	const char *fmt = c->format ? c->format : "text";
	int svg = !strcmp(fmt, "svg"), ansi = !strcmp(fmt, "ansi"), vflag = 0;
	if (c->view && !strcmp(c->view, "stepper")) {
		/* the whole screen, drawn headless; in ASCII under a locale that
		 * is not UTF-8, as the stepper draws it */
		if (safetext_ascii() && !svg)
			canvas_set_ascii(1);
		return tui_screen(c);
	}
	if (render_options(c, fmt, svg, ansi, &vflag))
		return 1;
	struct model *m = cli_load_model(c);
	if (!m)
		return 1;
	int listing = c->stage && !strcmp(c->stage, "list");
	if (listing && !c->sentence) {
		/* the names do not depend on the words: any sentence will do */
		const char *ex = m->cfg.nexamples ? m->cfg.examples[0] : "a";
		if (!(c->sentence = strdup(ex))) {
			model_free(m);
			return cli_fail("out of memory");
		}
	}
	struct trace *t = cli_run_pass(c, m);
	int status = 1;
	if (!t)
		goto out;
	if (vflag && !c->stage) {
		int i = view_default_stage(t, vflag);
		if (i < 0)
			cli_fail("--view %s: this pass has no attention stage", c->view);
		else
			status = print_view(c, t, m, vflag, i, fmt);
	} else if (listing) {
		for (int i = 0; i < t->n; i++)
			printf("%s\n", t->stages[i].name);
		status = 0;
	} else {
		status = render_stage(c, t, m, vflag, fmt);
	}
out:
	trace_free(t);
	model_free(m);
	return status;
}
