/* tui.c - the interactive stepper: state, the key table, recomputation.
 *
 * The loop owns the state (model, sentence, masks, trace, cursor); each
 * key changes the state, recomputes the pass when the model's input or
 * masks changed, and redraws: screen_draw into a canvas, term_show to the
 * terminal.  The screen and the views only read. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "forward.h"
#include "lineedit.h"
#include "screen.h"
#include "term.h"
#include "tui.h"

#define EDIT_MAX LINEEDIT_MAX

struct app {
	struct model *m;
	char sentence[EDIT_MAX], target[EDIT_MAX];
	struct pass_opts opts;
	struct trace *tr;            /* the pass on screen */
	struct trace *alt;           /* causal mask flipped, for the mask diff */
	struct screen scr;
	char msg[768];
	int editing;                 /* 0, or which text: 1 sentence, 2 target */
	struct lineedit edit;
	int quit;
};

enum action {
	A_NEXT, A_PREV, A_UP, A_DOWN, A_LEFT, A_RIGHT, A_PGUP, A_PGDN,
	A_HEAD_NEXT, A_HEAD_PREV, A_LAYER_NEXT, A_LAYER_PREV,
	A_FIRST, A_LAST, A_ENCODER, A_DECODER, A_OUTPUT,
	A_HEADS, A_OPEN, A_INSPECT, A_DIFF, A_CURVES, A_MEAN,
	A_MASK_DEC, A_MASK_ENC, A_ABLATE, A_EDIT, A_EDIT_TARGET,
	A_ZOOM, A_HELP, A_ESCAPE, A_QUIT,
};

struct binding {
	int key;
	enum action act;
};

/* One key table: the loop dispatches from it, the help screen lists it. */
static const struct binding KEYS[] = {
	{ TK_RIGHT, A_NEXT }, { 'n', A_NEXT }, { ' ', A_NEXT },
	{ TK_LEFT, A_PREV }, { 'p', A_PREV }, { TK_BACKSPACE, A_PREV },
	{ TK_UP, A_UP }, { 'k', A_UP }, { TK_DOWN, A_DOWN }, { 'j', A_DOWN },
	{ 'h', A_LEFT }, { TK_SLEFT, A_LEFT }, { 'l', A_RIGHT }, { TK_SRIGHT, A_RIGHT },
	{ TK_PGUP, A_PGUP }, { TK_PGDN, A_PGDN },
	{ ']', A_HEAD_NEXT }, { '[', A_HEAD_PREV }, { TK_TAB, A_HEAD_NEXT }, { TK_BTAB, A_HEAD_PREV },
	{ '}', A_LAYER_NEXT }, { '{', A_LAYER_PREV },
	{ TK_HOME, A_FIRST }, { 'g', A_FIRST }, { TK_END, A_LAST }, { 'G', A_LAST },
	{ 'E', A_ENCODER }, { 'D', A_DECODER }, { 'O', A_OUTPUT },
	{ 'a', A_HEADS }, { TK_ENTER, A_OPEN }, { 'i', A_INSPECT }, { 'd', A_DIFF },
	{ 'c', A_CURVES }, { 'A', A_MEAN },
	{ 'm', A_MASK_DEC }, { 'M', A_MASK_ENC }, { 'x', A_ABLATE },
	{ 'e', A_EDIT }, { '/', A_EDIT }, { 't', A_EDIT_TARGET },
	{ 'z', A_ZOOM }, { '?', A_HELP }, { TK_F1, A_HELP }, { TK_ESC, A_ESCAPE },
	{ 'q', A_QUIT },
};

static const struct key_help HELP[] = {
	{ "→ n space", "next stage" },
	{ "← p backspace", "previous stage" },
	{ "↑ ↓ k j", "move the cursor: row (query / token)" },
	{ "h l shift-← →", "move the cursor: column (key / dimension)" },
	{ "PgUp PgDn", "cursor 10 rows up / down" },
	{ "] [ tab", "next / previous head" },
	{ "} {", "same stage in the next / previous layer" },
	{ "g G home end", "first / last stage" },
	{ "E D O", "jump to the encoder / decoder / output" },
	{ "a", "all heads at once (Enter opens the selected head)" },
	{ "A", "mean over heads (long sequences)" },
	{ "i", "cell inspector: q·k term by term, ÷√dk, mask, softmax, ·V" },
	{ "d", "mask diff: this head with and without the causal mask" },
	{ "c", "positional encoding: sin/cos curves" },
	{ "m", "decoder causal mask on/off (recomputes)" },
	{ "M", "encoder causal mask on/off (recomputes)" },
	{ "x", "what-if: zero the selected head and recompute (again: restore)" },
	{ "e /", "edit the sentence" },
	{ "t", "edit the target (teacher forcing); empty: none" },
	{ "z", "zoom: auto / numbers / cells / fit" },
	{ "mouse", "click a stage or a cell" },
	{ "? F1", "this help (Esc closes)" },
	{ "q", "quit" },
};

/* ---- recomputation ---- */

static void set_msg(struct app *a, int is_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_msg(struct app *a, int is_err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->scr.message = a->msg;
	a->scr.message_is_error = is_err;
}

/* Runs the pass for sentence/target/opts into *into.  On failure keeps the
 * old trace and returns -1 with the reason in a message. */
static int run_into(struct app *a, const char *sentence, const char *target,
		    const struct pass_opts *o, struct trace **into, int report)
{
	struct pass_input in;
	struct err e;
	if (input_build(a->m, sentence, *target ? target : NULL, o, &in, &e)) {
		set_msg(a, 1, " %s", e.msg);
		return -1;
	}
	if (report) {
		char buf[600];
		if (in.nunknown)
			set_msg(a, 1, " %s", input_unknown_summary(&in, buf, sizeof buf));
		if (in.invalid_utf8)
			set_msg(a, 1, " %d invalid UTF-8 byte%s replaced by U+FFFD",
				in.invalid_utf8, in.invalid_utf8 == 1 ? "" : "s");
	}
	if (!*into && !(*into = trace_new()))
		term_fatal("out of memory");
	if (!forward_run(a->m, &in, o, *into, &e))
		term_fatal("%s", e.msg);
	input_free(&in);
	return 0;
}

/* Recomputes the pass (and the mask-diff pass when shown), keeping the
 * stage on screen by name. */
static int recompute(struct app *a, const char *sentence, const char *target)
{
	char name[STAGE_NAME_MAX] = "";
	if (a->tr && a->tr->n)
		snprintf(name, sizeof name, "%s", a->tr->stages[a->scr.v.stage].name);
	if (run_into(a, sentence, target, &a->opts, &a->tr, 1))
		return -1;
	if (sentence != a->sentence)
		snprintf(a->sentence, sizeof a->sentence, "%s", sentence);
	if (target != a->target)
		snprintf(a->target, sizeof a->target, "%s", target);
	if (a->scr.v.flags & VF_MASK_DIFF) {
		struct pass_opts o = a->opts;
		o.causal = !o.causal;
		run_into(a, a->sentence, a->target, &o, &a->alt, 0);
	}
	a->scr.v.tr = a->tr;
	a->scr.v.alt = (a->scr.v.flags & VF_MASK_DIFF) ? a->alt : NULL;
	int i = *name ? trace_index(a->tr, name) : -1;
	a->scr.v.stage = i >= 0 ? i : (a->scr.v.stage < a->tr->n ? a->scr.v.stage : 0);
	return 0;
}

/* ---- navigation ---- */

static const struct stage *cur_stage(const struct app *a)
{
	return &a->tr->stages[a->scr.v.stage];
}

static void go_stage(struct app *a, int i)
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
static void go_layer(struct app *a, int delta)
{
	const struct stage *s = cur_stage(a);
	if (s->layer < 0) {
		set_msg(a, 0, " this stage is not inside a layer");
		return;
	}
	const char *rest = strchr(s->name, '.');
	rest = rest ? strchr(rest + 1, '.') : NULL;
	const char *stack = s->block == BLK_ENCODER ? "encoder" : "decoder";
	char name[STAGE_NAME_MAX];
	snprintf(name, sizeof name, "%s.%d%s", stack, s->layer + delta, rest ? rest : "");
	int i = trace_index(a->tr, name);
	if (i >= 0)
		go_stage(a, i);
	else
		set_msg(a, 0, " no %s layer %d", stack, s->layer + delta);
}

static void go_block(struct app *a, enum block b)
{
	for (int i = 0; i < a->tr->n; i++)
		if (a->tr->stages[i].block == b) {
			go_stage(a, i);
			return;
		}
	set_msg(a, 0, " this model has no %s", b == BLK_ENCODER ? "encoder" :
		b == BLK_DECODER ? "decoder" : "output stage");
}

static int is_attention_stage(const struct stage *s)
{
	return strstr(s->name, "_attn.") != NULL;
}

static void toggle_flag(struct app *a, int flag, int need_attention,
			const char *why)
{
	const struct stage *s = cur_stage(a);
	if (!(a->scr.v.flags & flag) && need_attention &&
	    !(s->kind == SK_SCORES || s->kind == SK_WEIGHTS)) {
		set_msg(a, 0, " %s", why);
		return;
	}
	a->scr.v.flags ^= flag;
}

static void ablate(struct app *a)
{
	const struct stage *s = cur_stage(a);
	struct pass_opts *o = &a->opts;
	if (o->ablate_head >= 0) {
		o->ablate_head = -1;
		recompute(a, a->sentence, a->target);
		set_msg(a, 0, " head restored");
		return;
	}
	if (!is_attention_stage(s)) {
		set_msg(a, 0, " select an attention stage to ablate one of its heads");
		return;
	}
	o->ablate_block = s->block;
	o->ablate_layer = s->layer;
	o->ablate_attn = strstr(s->name, "cross_attn") != NULL;
	o->ablate_head = a->scr.v.head;
	recompute(a, a->sentence, a->target);
	set_msg(a, 0, " what-if: %s layer %d %s head %d zeroed — step on to see the "
		"effect; x restores", s->block == BLK_ENCODER ? "encoder" : "decoder",
		s->layer, o->ablate_attn ? "cross-attention" : "self-attention", o->ablate_head);
}

/* ---- the line editor ---- */

static void edit_open(struct app *a, int which)
{
	if (which == 2 && a->m->cfg.arch == ARCH_ENC_ONLY) {
		set_msg(a, 0, " an encoder-only model has no decoder: no target to edit");
		return;
	}
	a->editing = which;
	lineedit_set(&a->edit, which == 1 ? a->sentence : a->target);
}

static void edit_key(struct app *a, int key, const char *utf8)
{
	switch (lineedit_key(&a->edit, key, utf8)) {
	case LE_CANCEL:
		a->editing = 0;
		break;
	case LE_ACCEPT: {
		int which = a->editing;
		a->editing = 0;
		a->scr.message = NULL;
		if (which == 1)
			recompute(a, a->edit.text, a->target);
		else
			recompute(a, a->sentence, a->edit.text);
		break;
	}
	case LE_FULL:
		set_msg(a, 1, " the text is limited to %d bytes", EDIT_MAX - 2);
		break;
	case LE_NONE:
		break;
	}
}

/* ---- keys ---- */

static void mouse_click(struct app *a)
{
	int x, y;
	term_mouse(&x, &y);
	int st = screen_stage_at(&a->scr, x, y);
	if (st >= 0) {
		go_stage(a, st);
		return;
	}
	const struct grid_geom *g = &a->scr.v.geom;
	if (!g->valid || x < g->x0 || y < g->y0)
		return;
	int col = (x - g->x0) / g->cw, row = (y - g->y0) * g->rh;
	if (col < g->nc && row < g->nr) {
		a->scr.v.col = g->left + col;
		a->scr.v.row = g->top + row;
	}
}

static void do_action(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	switch (act) {
	case A_NEXT: go_stage(a, v->stage + 1); break;
	case A_PREV: go_stage(a, v->stage - 1); break;
	case A_UP: v->row--; break;
	case A_DOWN: v->row++; break;
	case A_LEFT: v->col--; break;
	case A_RIGHT: v->col++; break;
	case A_PGUP: v->row -= 10; break;
	case A_PGDN: v->row += 10; break;
	case A_HEAD_NEXT: v->head = (v->head + 1) % view_heads(cur_stage(a)); break;
	case A_HEAD_PREV: v->head = (v->head + view_heads(cur_stage(a)) - 1) % view_heads(cur_stage(a)); break;
	case A_LAYER_NEXT: go_layer(a, 1); break;
	case A_LAYER_PREV: go_layer(a, -1); break;
	case A_FIRST: go_stage(a, 0); break;
	case A_LAST: go_stage(a, a->tr->n - 1); break;
	case A_ENCODER: go_block(a, BLK_ENCODER); break;
	case A_DECODER: go_block(a, BLK_DECODER); break;
	case A_OUTPUT: go_block(a, BLK_OUTPUT); break;
	case A_HEADS:
		if (view_heads(cur_stage(a)) > 1)
			v->flags ^= VF_ALL_HEADS;
		else
			set_msg(a, 0, " this stage has no heads to show side by side");
		break;
	case A_MEAN:
		if (view_heads(cur_stage(a)) > 1)
			v->flags ^= VF_MEAN_HEADS | (v->flags & VF_ALL_HEADS ? 0 : VF_ALL_HEADS);
		break;
	case A_OPEN: v->flags &= ~(VF_ALL_HEADS | VF_MEAN_HEADS); break;
	case A_INSPECT:
		toggle_flag(a, VF_INSPECT, 1, "the inspector works on attention scores and weights");
		break;
	case A_DIFF:
		toggle_flag(a, VF_MASK_DIFF, 1, "the mask diff works on attention scores and weights");
		if (v->flags & VF_MASK_DIFF)
			recompute(a, a->sentence, a->target);
		else
			v->alt = NULL;
		break;
	case A_CURVES:
		if (strstr(cur_stage(a)->name, ".pos"))
			v->flags ^= VF_PE_CURVES;
		else
			set_msg(a, 0, " curves are for the positional encoding stages (src.pos, tgt.pos)");
		break;
	case A_MASK_DEC:
		if (a->m->cfg.arch == ARCH_ENC_ONLY) {
			set_msg(a, 0, " an encoder-only model has no decoder mask (M: encoder mask)");
			break;
		}
		a->opts.causal = !a->opts.causal;
		recompute(a, a->sentence, a->target);
		set_msg(a, 0, " decoder causal mask %s", a->opts.causal ? "ON: a token sees only the past" :
			"OFF: every decoder token sees the future");
		break;
	case A_MASK_ENC:
		if (a->m->cfg.arch == ARCH_DEC_ONLY) {
			set_msg(a, 0, " a decoder-only model has no encoder");
			break;
		}
		a->opts.encoder_causal = !a->opts.encoder_causal;
		recompute(a, a->sentence, a->target);
		set_msg(a, 0, " encoder causal mask %s", a->opts.encoder_causal ? "ON" : "OFF");
		break;
	case A_ABLATE: ablate(a); break;
	case A_EDIT: edit_open(a, 1); break;
	case A_EDIT_TARGET: edit_open(a, 2); break;
	case A_ZOOM:
		v->zoom = (v->zoom + 1) % ZOOM_COUNT;
		set_msg(a, 0, " zoom: %s", (const char *[]){ "auto", "numbers", "cells", "fit" }[v->zoom]);
		break;
	case A_HELP: a->scr.show_help = !a->scr.show_help; break;
	case A_ESCAPE:
		a->scr.show_help = 0;
		v->flags &= ~(VF_INSPECT | VF_MASK_DIFF | VF_ALL_HEADS | VF_MEAN_HEADS | VF_PE_CURVES);
		break;
	case A_QUIT: a->quit = 1; break;
	}
}

static void on_key(struct app *a, int key, const char *utf8)
{
	if (key == TK_RESIZE)
		return;
	if (a->editing) {
		edit_key(a, key, utf8);
		return;
	}
	a->scr.message = NULL;
	if (key == TK_MOUSE) {
		mouse_click(a);
		return;
	}
	for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
		if (KEYS[i].key == key) {
			do_action(a, KEYS[i].act);
			view_clamp(&a->scr.v);
			return;
		}
}

static void draw(struct app *a, struct canvas *c)
{
	static const char *const prompt[] = { "", " sentence: ", " target: " };
	struct screen *s = &a->scr;
	s->model_name = a->m->cfg.name;
	s->sentence = a->sentence;
	s->target = *a->target ? a->target : NULL;
	s->edit_prompt = a->editing ? prompt[a->editing] : NULL;
	s->edit_text = a->edit.text;
	s->edit_cursor = a->edit.cur;
	screen_draw(s, c);
}

int tui_run(struct cli *c)
{
	struct app a;
	struct err e;
	memset(&a, 0, sizeof a);
	a.opts = c->pass;
	if (!(a.m = cli_load_model(c)))
		return 1;
	const char *sentence = c->sentence ? c->sentence :
			       a.m->cfg.nexamples ? a.m->cfg.examples[0] : NULL;
	if (!sentence) {
		model_free(a.m);
		return cli_fail("%s: no sentence given and the model has no examples", c->model);
	}
	if (strlen(sentence) >= EDIT_MAX || (c->target && strlen(c->target) >= EDIT_MAX)) {
		model_free(a.m);
		return cli_fail("the sentence is limited to %d bytes", EDIT_MAX - 1);
	}
	snprintf(a.sentence, sizeof a.sentence, "%s", sentence);
	snprintf(a.target, sizeof a.target, "%s", c->target ? c->target : "");
	if (recompute(&a, a.sentence, a.target)) {
		model_free(a.m);
		return cli_fail("%s", a.msg + 1);
	}
	a.scr.v.m = a.m;
	a.scr.keys = HELP;
	a.scr.nkeys = (int)(sizeof HELP / sizeof *HELP);
	if (term_init(&e)) {
		trace_free(a.tr);
		model_free(a.m);
		return cli_fail("%s", e.msg);
	}
	int w, h;
	term_size(&w, &h);
	struct canvas *cv = canvas_new(w, h, term_depth());
	if (!cv)
		term_fatal("out of memory");
	while (!a.quit) {
		draw(&a, cv);
		term_show(cv);
		char utf8[8];
		int key = term_key(-1, utf8);
		if (key == TK_RESIZE || key == TK_NONE) {
			term_size(&w, &h);
			if ((w != cv->w || h != cv->h) && canvas_resize(cv, w, h))
				term_fatal("out of memory");
			if (key == TK_NONE)
				continue;
		}
		on_key(&a, key, utf8);
	}
	term_end();
	canvas_free(cv);
	trace_free(a.tr);
	trace_free(a.alt);
	model_free(a.m);
	return 0;
}
