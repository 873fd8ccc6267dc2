/* app.c - the stepper: its state, recomputation, navigation, the loop.
 * (app.h says how the parts fit.) */
#include "config.h"

#ifdef HAVE_MALLOC_H
#include <malloc.h>   /* malloc_trim */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "term.h"
#include "engine/caveats.h"
#include "tui.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "views/figure.h"
#include "common/options.h"
#include "views/palette.h"

void app_msg(struct app *a, int is_err, const char *fmt, ...)
{
	va_list ap;
	a->msg[0] = ' ';   /* the message line starts one column in */
	va_start(ap, fmt);
	vsnprintf(a->msg + 1, sizeof a->msg - 1, fmt, ap);
	va_end(ap);
	a->scr.message = a->msg;
	a->scr.message_is_error = is_err;
}

static int blank(const char *s)
{
	return s[strspn(s, " \t\r\n\v\f")] == 0;
}

/* Without a target an encoder-decoder's decoder would see <s> alone (T =
 * 1: the causal mask has nothing to hide).  The stepper teacher-forces it
 * on the model's own greedy translation instead (a->own.ids), decoded with the
 * masks and ablation on screen, so that the header shows what decoding
 * gives now (decoding itself is always causal: m leaves it as it is; M
 * and x change it).  Made again when the sentence, the model or the
 * options change.  dump and render keep the contract's <s> alone
 * (README). */
void app_set_text(char **dst, const char *src)
{
	if (*dst == src)
		return;
	char *p = strdup(src ? src : "");
	if (!p)
		term_fatal("%s", _("out of memory"));
	free(*dst);
	*dst = p;
}

static void own_translation(struct app *a, const char *sentence, const char *target)
{
	if (a->m->cfg.arch != ARCH_ENC_DEC || !blank(target)) {
		a->own.ok = 0;
		return;
	}
	if (a->own.ok && a->own.m == a->m && a->own.sentence &&
	    strcmp(a->own.sentence, sentence) == 0 &&
	    memcmp(&a->own.opts, &a->opts, sizeof a->opts) == 0)
		return;
	a->own.ok = 0;
	struct pass_input in;
	struct pass_opts po;
	struct decode_opts o;
	struct decode_result r;
	struct err e;
	po = a->opts;
	if (input_build(a->m, sentence, NULL, &po, &in, &e))
		return;   /* run_into says why */
	decode_opts_default(&o);
	int rc = decode_run(a->m, &in, &po, &o, &r, &e);
	input_free(&in);
	if (rc)
		return;
	int32_t *ids = malloc((size_t)(r.nbest + 1) * sizeof *ids);
	if (ids) {
		if (r.nbest)
			memcpy(ids, r.best, (size_t)r.nbest * sizeof *ids);
		free(a->own.ids);
		a->own.ids = ids;
		a->own.n = r.nbest;
		a->own.ok = 1;
		a->own.m = a->m;
		a->own.opts = a->opts;
		app_set_text(&a->own.sentence, sentence);
		model_target_text(a->m, ids, r.nbest, sentence, a->own.text, sizeof a->own.text);
	}
	decode_result_free(&r);
}

/* The header's warnings (a->own.caveats): what the model cannot know of
 * the sentence (engine/caveats.h), against its own translation when there
 * is one.  The words outside the vocabulary have the header's own marker. */
static void find_caveats(struct app *a, const char *sentence)
{
	struct caveats cv = { NULL, 0 };
	struct err e;
	char *out = a->own.caveats, *sh = a->own.caveats_short;
	size_t k = 0, n = sizeof a->own.caveats, ks = 0, ns = sizeof a->own.caveats_short;
	out[0] = sh[0] = 0;
	if (caveats_find(a->m, sentence, a->own.ok ? a->own.ids : NULL, a->own.ok ? a->own.n : -1,
			 &cv, &e))
		return;
	for (int i = 0; i < cv.n && k + 1 < n; i++) {
		if (cv.v[i].kind == CAV_UNK)
			continue;
		int w = snprintf(out + k, n - k, "%s%s%s%s", k ? " · " : "  ⚠ ",
				 cv.v[i].word, *cv.v[i].word ? ": " : "", _(cv.v[i].tag));
		k = w < 0 || (size_t)w >= n - k ? n - 1 : k + (size_t)w;
		w = snprintf(sh + ks, ns - ks, "%s%s?", ks ? " " : "  ⚠ ",
			     *cv.v[i].word ? cv.v[i].word : _(cv.v[i].tag));
		ks = w < 0 || (size_t)w >= ns - ks ? ns - 1 : ks + (size_t)w;
	}
	caveats_free(&cv);
}

/* Runs the pass for sentence/target/opts into *into (no target: the
 * model's translation, when own_translation made one).  On failure keeps
 * the old trace and returns -1 with the reason in a message. */
static int run_into(struct app *a, const char *sentence, const char *target,
		    const struct pass_opts *o, struct trace **into, int report)
{
	struct pass_input in;
	struct err e;
	if (input_build(a->m, sentence, *target ? target : NULL, o, &in, &e)) {
		app_msg(a, 1, "%s", e.msg);
		return -1;
	}
	if (a->own.ok && blank(target) &&
	    decode_teacher_force(a->m, &in, a->own.ids, a->own.n, o->pad_target))
		term_fatal("%s", _("out of memory"));
	a->scr.v.labels_own = a->own.ok && blank(target);   /* not the user's target */
	if (report) {
		char buf[600];
		if (in.nunknown)
			app_msg(a, 1, "%s%s", input_unknown_summary(&in, buf, sizeof buf),
				a->own.caveats);
		else if (in.ndropped)
			app_msg(a, 0, "%s", input_dropped_summary(&in, buf, sizeof buf));
		if (in.invalid_utf8)
			app_msg(a, 1, P_("%d invalid UTF-8 byte replaced by U+FFFD",
					 "%d invalid UTF-8 bytes replaced by U+FFFD", in.invalid_utf8),
				in.invalid_utf8);
	}
	if (!*into && !(*into = trace_new()))
		term_fatal("%s", _("out of memory"));
	if (!forward_run(a->m, &in, o, *into, &e))
		term_fatal("%s", e.msg);
	input_free(&in);
	return 0;
}

/* Recomputes the pass (and the mask-diff pass when shown), keeping the
 * stage on screen by name.  While decoding, the search runs again and the
 * pass is that of the step on screen. */
int app_recompute(struct app *a, const char *sentence, const char *target)
{
	a->churn = 1;
	if (a->ds.on) {
		if (app_decode_all(a, sentence))
			return -1;
		app_set_text(&a->sentence, sentence);
		app_set_text(&a->target, target);
		return app_step_pass(a);
	}
	char name[STAGE_NAME_MAX] = "";
	if (a->tr && a->tr->n)
		snprintf(name, sizeof name, "%s", a->tr->stages[a->scr.v.stage].name);
	own_translation(a, sentence, target);
	find_caveats(a, sentence);
	if (run_into(a, sentence, target, &a->opts, &a->tr, 1))
		return -1;
	app_set_text(&a->sentence, sentence);
	app_set_text(&a->target, target);
	if (a->scr.v.mode == VM_MASK_DIFF) {
		struct pass_opts o = a->opts;
		o.causal = !o.causal;
		run_into(a, a->sentence, a->target, &o, &a->alt, 0);
	}
	a->scr.v.tr = a->tr;
	a->ins.pass_gen++;
	a->scr.v.alt = (a->scr.v.mode == VM_MASK_DIFF) ? a->alt : NULL;
	int i = *name ? trace_index(a->tr, name) : -1;
	a->scr.v.stage = i >= 0 ? i : (a->scr.v.stage < a->tr->n ? a->scr.v.stage : 0);
	if (a->ds.reopen) {   /* a new session, on the page it replaces */
		a->ds.reopen = 0;
		app_decode_start(a);
	}
	return 0;
}

/* ---- navigation ---- */

const struct stage *app_stage(const struct app *a)
{
	return &a->tr->stages[a->scr.v.stage];
}

void app_go_stage(struct app *a, int i)
{
	if (i < 0 || i >= a->tr->n)
		return;
	if (i != a->scr.v.stage) {
		a->scr.v.top = a->scr.v.left = 0;
	}
	a->scr.v.stage = i;
	view_clamp(&a->scr.v);
}

/* The same stage name in layer layer+delta ("encoder.1.norm2" → ".2."). */
void app_go_layer(struct app *a, int delta)
{
	const struct stage *s = app_stage(a);
	if (s->layer < 0) {
		app_msg(a, 0, _("this stage is not inside a layer"));
		return;
	}
	const char *rest = strchr(s->name, '.');
	rest = rest ? strchr(rest + 1, '.') : NULL;
	const char *stack = s->block == BLK_ENCODER ? "encoder" : "decoder";
	char name[STAGE_NAME_MAX];
	snprintf(name, sizeof name, "%s.%d%s", stack, s->layer + delta, rest ? rest : "");
	int i = trace_index(a->tr, name);
	if (i >= 0)
		app_go_stage(a, i);
	else
		app_msg(a, 0, s->block == BLK_ENCODER ? _("no encoder layer %d") :
			_("no decoder layer %d"), s->layer + delta);
}

void app_go_block(struct app *a, enum block b)
{
	for (int i = 0; i < a->tr->n; i++)
		if (a->tr->stages[i].block == b) {
			app_go_stage(a, i);
			return;
		}
	app_msg(a, 0, b == BLK_ENCODER ? _("this model has no encoder") :
		b == BLK_DECODER ? _("this model has no decoder") :
		_("this model has no output stage"));
}

void app_draw(struct app *a, struct canvas *c)
{
	/* TRANSLATORS: the prompts of the line editor (e and t keys); keep the
	   space at each end */
	static const char *const prompt[] = { "", N_(" sentence: "), N_(" target: "),
					      N_(" jump to token: ") };
	struct screen *s = &a->scr;
	/* a lazy trace keeps the layer on screen while the model view or the
	 * lens reads the others */
	trace_pin(a->tr, a->scr.v.stage);
	s->model_name = a->m->cfg.name;
	s->sentence = a->sentence;
	s->target = *a->target ? a->target : a->own.ok && !a->ds.on ? a->own.text : NULL;
	s->target_is_own = !*a->target && a->own.ok && !a->ds.on;
	s->caveats = a->own.caveats;
	s->caveats_short = a->own.caveats_short;
	s->edit_prompt = a->ed.which ? _(prompt[a->ed.which]) : NULL;
	s->edit_text = a->ed.line.text;
	s->edit_cursor = a->ed.line.cur;
	s->edit_selected = a->ed.which && a->ed.line.selected;
	s->edit_hint = a->ed.which ? a->ed.hint : NULL;
	app_pe_curves(a);
	app_inside_sync(a);
	screen_draw(s, c);
}

void app_pe_curves(struct app *a)
{
	struct view_state *v = &a->scr.v;
	const struct stage *st = app_stage(a);
	v->pe_table = NULL;
	if ((v->mode == VM_CURVES) && st->ndim == 2) {
		int want = st->shape[0] > PE_CURVE_POSITIONS ? st->shape[0] : PE_CURVE_POSITIONS;
		if (a->pe.m != a->m || a->pe.want != want || !a->pe.tab) {
			free(a->pe.tab);
			a->pe.tab = forward_pe_table(a->m, want, &a->pe.n);
			a->pe.m = a->m;
			a->pe.want = want;
		}
		v->pe_table = a->pe.tab;   /* NULL (out of memory): the stage's */
		v->pe_n = a->pe.n;
	}
}

void app_release(struct app *a)
{
	trace_free(a->tr);
	trace_free(a->alt);
	a->tr = a->alt = NULL;
	for (int k = 0; k < 3; k++)
		decode_result_free(&a->ds.res[k]);
	app_inside_free(a);
	free(a->own.ids);
	a->own.ids = NULL;
	free(a->pe.tab);
	a->pe.tab = NULL;
	free(a->sentence);
	free(a->target);
	free(a->own.sentence);
	free(a->jump);
	a->sentence = a->target = a->own.sentence = a->jump = NULL;
	lineedit_free(&a->ed.line);
}

/* Writes the view on screen as a figure to attnscope-N.svg in the current
 * directory (the first N not taken). */
void app_save_svg(struct app *a)
{
	char path[64];
	int w, h;
	term_size(&w, &h);
	/* the view on screen as a figure (views/figure.c): title, no cursor,
	 * no key hints; on a copy of the state, so the scroll stays as it is */
	struct view_state fv = a->scr.v;
	struct canvas *cv = figure_new(&fv, w > 200 ? w : 200, DEPTH_TRUE);
	if (!cv) {
		app_msg(a, 1, _("out of memory"));
		return;
	}
	/* the first free name; an existing file (or link, FIFO...) is never
	 * touched: the temporary is linked to a name that must not exist */
	struct err e = { "", 0 };
	int rc = -1;
	for (int n = 1; n < 10000; n++) {
		struct safefile sf;
		snprintf(path, sizeof path, "attnscope-%d.svg", n);
		if (safefile_open(&sf, path, SAFEFILE_NEW, &e)) {
			if (errno == EEXIST)
				continue;
			break;
		}
		canvas_write_svg(cv, sf.fp);
		if ((rc = safefile_commit(&sf, &e)) == 0 || errno != EEXIST)
			break;
	}
	canvas_free(cv);
	if (rc && e.msg[0])
		app_msg(a, 1, "%s", e.msg);
	else if (rc)
		app_msg(a, 1, _("cannot write an SVG file in this directory"));
	else
		app_msg(a, 0, _("saved %s"), path);
}

/* The state from the command line, up to the first lecture (c->lecture:
 * returns 2, the caller plays it). */
static int app_settings(struct app *a, struct cli *c)
{
	memset(a, 0, sizeof *a);
	app_set_text(&a->sentence, "");
	app_set_text(&a->target, "");
	if (c->scheme) {
		int sch = palette_scheme_by_name(c->scheme);
		if (sch < 0)
			return cli_fail("--scheme must be default, high-contrast or colorblind, "
					"not \"%s\"", c->scheme);
		palette_set_scheme((enum scheme)sch);
	}
	a->scr.presenter = c->presenter;
	a->scr.v.zoom = c->presenter ? ZOOM_BIG : ZOOM_AUTO;
	a->opts = c->pass;
	a->ds.beam_w = c->beam > 1 ? c->beam : 4;
	a->ds.alpha = c->alpha;
	a->ds.force_step[0] = a->ds.force_step[1] = a->ds.force_step[2] = -1;
	sample_opts_default(&a->ds.so);
	a->ds.so.temperature = c->temperature;
	a->ds.so.top_k = c->top_k;
	a->ds.so.top_p = c->top_p;
	a->ds.so.seed = c->seed;
	if (c->sample)
		a->ds.which = 2;
	keys_build_help(a);
	return 0;
}

int app_open(struct app *a, struct cli *c)
{
	if (app_settings(a, c))
		return app_release(a), 1;
	if (!(a->m = cli_load_model(c)))
		return app_release(a), 1;
	const char *sentence = c->sentence ? c->sentence :
			       a->m->cfg.nexamples ? a->m->cfg.examples[0] : NULL;
	if (!sentence) {
		app_release(a);
		model_free(a->m);
		return cli_fail("%s: no sentence given and the model has no examples", c->model);
	}
	/* --file -: the sentence came from standard input; the keys come
	 * from the terminal */
	if (c->file && !strcmp(c->file, "-") && !isatty(STDIN_FILENO) &&
	    !freopen("/dev/tty", "r", stdin)) {
		app_release(a);
		model_free(a->m);
		return cli_fail("--file -: the stepper reads keys from the terminal, and "
				"/dev/tty cannot be opened: %s", strerror(errno));
	}
	app_set_text(&a->sentence, sentence);
	app_set_text(&a->target, c->target ? c->target : "");
	if (app_recompute(a, a->sentence, a->target)) {
		app_release(a);
		model_free(a->m);
		return cli_fail("%s", a->msg + 1);
	}
	a->scr.v.m = a->m;
	a->scr.show_training = a->m->cfg.snapshot >= 0;   /* --snapshot STEP */
	/* what the loader warned (NaN weights...) went to stderr, which the
	 * stepper is about to cover: the status line says it too */
	if (warn_count() == 1)
		app_msg(a, 1, _("warning: %s"), warn_first());
	else if (warn_count() > 1)
		app_msg(a, 1, _("warning: %s (and %d more on stderr)"), warn_first(),
			warn_count() - 1);
	return 0;
}

void app_close(struct app *a)
{
	app_release(a);
	app_snapshot_reset(a);
	model_free(a->m);
	a->m = NULL;
}

int tui_run(struct cli *c)
{
	struct app a;
	if (c->lecture) {
		/* the texts app_settings made, the traces of a played lecture */
		int st = app_settings(&a, c) ? 1 : app_lecture_run(&a, c);
		app_release(&a);
		return st;
	}
	if (app_open(&a, c))
		return 1;
	int status = app_loop(&a);
	app_close(&a);
	return status;
}

/* Opens the terminal and runs the key loop until q. */
int app_loop(struct app *a)
{
	struct err e;
	if (term_init(&e))
		return cli_fail("%s", e.msg);
	int w, h;
	term_size(&w, &h);
	struct canvas *cv = canvas_new(w, h, term_depth());
	if (!cv)
		term_fatal("%s", _("out of memory"));
	while (!a->quit) {
		app_draw(a, cv);
		term_show(cv);
		if (a->churn) {
			/* A pass or a decoding frees buffers of megabytes; glibc
			 * keeps freed memory in its heap (and, after the first big
			 * free, serves big buffers from it too), so over a long
			 * session the resident size climbed by steps.  Giving the
			 * free pages back after each recompute keeps it flat
			 * (tests/keystorm.test) at the cost of a page fault when
			 * they are used again. */
#ifdef HAVE_MALLOC_TRIM
			malloc_trim(0);
#endif
			a->churn = 0;
		}
		char utf8[8];
		int playing = a->lp.lec && a->lp.play_ms > 0 && (a->lp.step + 1 < a->lp.lec->n ||
					a->scr.caption_page + 1 < a->scr.caption_pages) &&
			      !a->ed.which;
		/* a paste whose closing bracket never comes ends after a second */
		int key = term_key(playing ? a->lp.play_ms : a->ed.pasting ? 1000 : -1, utf8);
		if (key == TK_NONE && playing) {
			app_lecture_advance(a, 1);
			continue;
		}
		/* every key already waiting is handled before the next frame:
		 * typing ahead or a paste of 50 KB costs one redraw per batch,
		 * not one per byte (a frame redraws the whole screen) */
		for (int batch = 0; key != TK_NONE || batch == 0; batch++) {
			if (key == TK_RESIZE || key == TK_NONE) {
				term_size(&w, &h);
				if ((w != cv->w || h != cv->h) && canvas_resize(cv, w, h))
					term_fatal("%s", _("out of memory"));
				a->churn = 1;
				if (key == TK_NONE && a->ed.pasting)
					a->ed.pasting = 0;
			}
			if (key != TK_NONE)
				app_key(a, key, utf8);
			if (a->quit || a->churn || batch >= 65536)
				break;   /* a recompute shows at once */
			key = term_key(0, utf8);
		}
		app_edit_check(a);
	}
	term_end();
	canvas_free(cv);
	app_release(a);
	return 0;
}

