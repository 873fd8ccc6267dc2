/* tui.c - the interactive stepper: state, the key table, recomputation.
 *
 * The loop owns the state (model, sentence, masks, trace, cursor); each
 * key changes the state, recomputes the pass when the model's input or
 * masks changed, and redraws: screen_draw into a canvas, term_show to the
 * terminal.  The screen and the views only read. */
#include "config.h"

#ifdef HAVE_MALLOC_H
#include <malloc.h>   /* malloc_trim */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode.h"
#include "forward.h"
#include "i18n.h"
#include "lecture.h"
#include "lineedit.h"
#include "palette.h"
#include "screen.h"
#include "term.h"
#include "tui.h"

#define EDIT_MAX LINEEDIT_MAX

struct app {
	struct model *m;
	int churn;                   /* big buffers freed since the last trim */
	char sentence[EDIT_MAX], target[EDIT_MAX];
	struct pass_opts opts;
	struct trace *tr;            /* the pass on screen */
	struct trace *alt;           /* causal mask flipped, for the mask diff */
	struct screen scr;
	char msg[768];
	int editing;                 /* 0, or which text: 1 sentence, 2 target */
	struct lineedit edit;
	int quit;
	/* decoding: the trace on screen is the pass of one decoding step */
	int decoding;
	struct decode_result dec[2];  /* greedy, beam */
	int which;                    /* the search shown: 0 greedy, 1 beam */
	int beam_w;
	double alpha;
	int force_step[2], force_token[2];
	/* lecture mode: the script and the step on screen */
	struct lecture *lec;
	int lstep;
	int play_ms;                  /* --play: advance every play_ms (0: off) */
};

enum action {
	A_NEXT, A_PREV, A_UP, A_DOWN, A_LEFT, A_RIGHT, A_PGUP, A_PGDN,
	A_HEAD_NEXT, A_HEAD_PREV, A_LAYER_NEXT, A_LAYER_PREV,
	A_FIRST, A_LAST, A_ENCODER, A_DECODER, A_OUTPUT,
	A_HEADS, A_OPEN, A_INSPECT, A_DIFF, A_CURVES, A_MEAN,
	A_MASK_DEC, A_MASK_ENC, A_ABLATE, A_EDIT, A_EDIT_TARGET,
	A_DECODE, A_DECODE_OFF, A_STEP_NEXT, A_STEP_PREV, A_STEP_LAST,
	A_BEAM_TOGGLE, A_BEAM_MORE, A_BEAM_LESS, A_ALPHA_UP, A_ALPHA_DOWN,
	A_COMPARE, A_FORCE, A_UNFORCE, A_CROSS, A_EXPLAIN, A_SCHEME, A_SVG, A_PRESENTER,
	A_ZOOM, A_HELP, A_ESCAPE, A_QUIT, A_COUNT
};

/* What each action does: the help screen's text (translated in build_help). */
static const char *const ACTION_HELP[A_COUNT] = {
	/* TRANSLATORS: the help screen (? key): what a key does, beside the key
	   names in a column; keep each one short. */
	[A_NEXT] = N_("next stage"),
	[A_PREV] = N_("previous stage"),
	[A_UP] = N_("cursor up: row (query / token; candidate on the decoding page)"),
	[A_DOWN] = N_("cursor down"),
	[A_LEFT] = N_("cursor left: column (key / dimension)"),
	[A_RIGHT] = N_("cursor right"),
	[A_PGUP] = N_("cursor 10 rows up"),
	[A_PGDN] = N_("cursor 10 rows down"),
	[A_HEAD_NEXT] = N_("next head (decoding page: next hypothesis)"),
	[A_HEAD_PREV] = N_("previous head (decoding page: previous hypothesis)"),
	[A_LAYER_NEXT] = N_("same stage in the next layer"),
	[A_LAYER_PREV] = N_("same stage in the previous layer"),
	[A_FIRST] = N_("first stage"),
	[A_LAST] = N_("last stage"),
	[A_ENCODER] = N_("jump to the encoder"),
	[A_DECODER] = N_("jump to the decoder"),
	[A_OUTPUT] = N_("jump to the output"),
	[A_HEADS] = N_("all heads at once (Enter opens the selected head)"),
	[A_OPEN] = N_("open the selected head"),
	[A_INSPECT] = N_("cell inspector: q·k term by term, ÷√dk, mask, softmax, ·V"),
	[A_DIFF] = N_("mask diff: this head with and without the causal mask"),
	[A_CURVES] = N_("positional encoding: sin/cos curves"),
	[A_MEAN] = N_("mean over heads (long sequences)"),
	[A_MASK_DEC] = N_("decoder causal mask on/off (recomputes)"),
	[A_MASK_ENC] = N_("encoder causal mask on/off (recomputes)"),
	[A_ABLATE] = N_("what-if: zero the selected head and recompute (again: restore)"),
	[A_EDIT] = N_("edit the sentence"),
	[A_EDIT_TARGET] = N_("edit the target (teacher forcing); empty: none"),
	[A_DECODE] = N_("decoding page on/off (starts decoding the sentence)"),
	[A_DECODE_OFF] = N_("stop decoding: back to the teacher-forced pass"),
	[A_STEP_NEXT] = N_("decoding: next step"),
	[A_STEP_PREV] = N_("decoding: previous step"),
	[A_STEP_LAST] = N_("decoding: run to the end"),
	[A_BEAM_TOGGLE] = N_("decoding: greedy ↔ beam search"),
	[A_BEAM_MORE] = N_("decoding: beam width +1"),
	[A_BEAM_LESS] = N_("decoding: beam width −1"),
	[A_ALPHA_UP] = N_("decoding: length penalty α +0.1"),
	[A_ALPHA_DOWN] = N_("decoding: length penalty α −0.1"),
	[A_COMPARE] = N_("decoding: greedy and beam side by side"),
	[A_FORCE] = N_("what-if: force the selected candidate at this step"),
	[A_UNFORCE] = N_("what-if: undo the forced token"),
	[A_CROSS] = N_("cross-attention of the last decoder layer, newest token's row"),
	[A_EXPLAIN] = N_("what this stage does: the explanation panel"),
	/* TRANSLATORS: the three colour schemes, in the order S cycles them */
	[A_SCHEME] = N_("colours: default / high contrast / colour-blind safe"),
	[A_SVG] = N_("save the view as SVG (the path is shown)"),
	[A_PRESENTER] = N_("presenter mode for projectors: big cells, no stage list"),
	/* TRANSLATORS: the zoom levels, as the "zoom: %s" message names them */
	[A_ZOOM] = N_("zoom: auto / numbers / cells / fit / big"),
	[A_HELP] = N_("this help (Esc closes)"),
	[A_ESCAPE] = N_("close help and overlays"),
	[A_QUIT] = N_("quit"),
};

struct binding {
	int key;
	const char *name;    /* as the help screen shows it */
	enum action act;
};

/* The one key table: the loop dispatches from it, the help screen is made
 * from it. */
static const struct binding KEYS[] = {
	{ TK_RIGHT, "→", A_NEXT }, { 'n', "n", A_NEXT }, { ' ', "space", A_NEXT },
	{ TK_LEFT, "←", A_PREV }, { 'p', "p", A_PREV }, { TK_BACKSPACE, "backspace", A_PREV },
	{ TK_UP, "↑", A_UP }, { 'k', "k", A_UP }, { TK_DOWN, "↓", A_DOWN }, { 'j', "j", A_DOWN },
	{ 'h', "h", A_LEFT }, { TK_SLEFT, "shift-←", A_LEFT },
	{ 'l', "l", A_RIGHT }, { TK_SRIGHT, "shift-→", A_RIGHT },
	{ TK_PGUP, "PgUp", A_PGUP }, { TK_PGDN, "PgDn", A_PGDN },
	{ ']', "]", A_HEAD_NEXT }, { TK_TAB, "tab", A_HEAD_NEXT },
	{ '[', "[", A_HEAD_PREV }, { TK_BTAB, "shift-tab", A_HEAD_PREV },
	{ '}', "}", A_LAYER_NEXT }, { '{', "{", A_LAYER_PREV },
	{ TK_HOME, "home", A_FIRST }, { 'g', "g", A_FIRST },
	{ TK_END, "end", A_LAST }, { 'G', "G", A_LAST },
	{ 'E', "E", A_ENCODER }, { 'D', "D", A_DECODER }, { 'O', "O", A_OUTPUT },
	{ 'a', "a", A_HEADS }, { TK_ENTER, "Enter", A_OPEN }, { 'A', "A", A_MEAN },
	{ 'i', "i", A_INSPECT }, { 'd', "d", A_DIFF }, { 'c', "c", A_CURVES },
	{ 'm', "m", A_MASK_DEC }, { 'M', "M", A_MASK_ENC }, { 'x', "x", A_ABLATE },
	{ 'e', "e", A_EDIT }, { '/', "/", A_EDIT }, { 't', "t", A_EDIT_TARGET },
	{ 'r', "r", A_DECODE }, { 'R', "R", A_DECODE_OFF },
	{ '.', ".", A_STEP_NEXT }, { '>', ">", A_STEP_NEXT },
	{ ',', ",", A_STEP_PREV }, { '<', "<", A_STEP_PREV }, { '$', "$", A_STEP_LAST },
	{ 'b', "b", A_BEAM_TOGGLE }, { '+', "+", A_BEAM_MORE }, { '=', "=", A_BEAM_MORE },
	{ '-', "-", A_BEAM_LESS }, { ')', ")", A_ALPHA_UP }, { '(', "(", A_ALPHA_DOWN },
	{ 'w', "w", A_EXPLAIN }, { 'P', "P", A_PRESENTER }, { 'S', "S", A_SCHEME }, { 's', "s", A_SVG },
	{ 'X', "X", A_CROSS }, { 'C', "C", A_COMPARE }, { 'f', "f", A_FORCE }, { 'F', "F", A_UNFORCE },
	{ 'z', "z", A_ZOOM }, { '?', "?", A_HELP }, { TK_F1, "F1", A_HELP },
	{ TK_ESC, "Esc", A_ESCAPE }, { 'q', "q", A_QUIT },
};

/* Help lines made from KEYS: the keys of each action, in table order. */
static struct key_help help_lines[A_COUNT];
static char help_keys[A_COUNT][48];

static int build_help(void)
{
	int n = 0;
	for (int act = 0; act < A_COUNT; act++) {
		help_keys[n][0] = 0;
		for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
			if ((int)KEYS[i].act != act)
				continue;
			size_t l = strlen(help_keys[n]);
			snprintf(help_keys[n] + l, sizeof help_keys[n] - l, "%s%s",
				 l ? " " : "", KEYS[i].name);
		}
		if (!help_keys[n][0])
			continue;
		help_lines[n].keys = help_keys[n];
		help_lines[n].what = _(ACTION_HELP[act]);
		n++;
	}
	return n;
}

/* ---- recomputation ---- */

static void set_msg(struct app *a, int is_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_msg(struct app *a, int is_err, const char *fmt, ...)
{
	va_list ap;
	a->msg[0] = ' ';   /* the message line starts one column in */
	va_start(ap, fmt);
	vsnprintf(a->msg + 1, sizeof a->msg - 1, fmt, ap);
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
		set_msg(a, 1, "%s", e.msg);
		return -1;
	}
	if (report) {
		char buf[600];
		if (in.nunknown)
			set_msg(a, 1, "%s", input_unknown_summary(&in, buf, sizeof buf));
		if (in.invalid_utf8)
			set_msg(a, 1, P_("%d invalid UTF-8 byte replaced by U+FFFD",
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

static int decode_all(struct app *a, const char *sentence);
static int step_pass(struct app *a);

/* Recomputes the pass (and the mask-diff pass when shown), keeping the
 * stage on screen by name.  While decoding, the search runs again and the
 * pass is that of the step on screen. */
static int recompute(struct app *a, const char *sentence, const char *target)
{
	a->churn = 1;
	if (a->decoding) {
		if (decode_all(a, sentence))
			return -1;
		if (sentence != a->sentence)
			snprintf(a->sentence, sizeof a->sentence, "%s", sentence);
		if (target != a->target)
			snprintf(a->target, sizeof a->target, "%s", target);
		return step_pass(a);
	}
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

/* ---- decoding ---- */

/* Runs greedy and beam search on the sentence. */
static int decode_all(struct app *a, const char *sentence)
{
	a->churn = 1;
	struct pass_input in;
	struct decode_opts o;
	struct decode_result r[2];
	struct err e;
	if (a->m->cfg.arch == ARCH_ENC_ONLY) {
		set_msg(a, 0, _("an encoder-only model has no decoder: there is nothing to decode"));
		return -1;
	}
	if (input_build(a->m, sentence, NULL, &a->opts, &in, &e)) {
		set_msg(a, 1, "%s", e.msg);
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		decode_opts_default(&o);
		o.beam = k ? a->beam_w : 1;
		o.alpha = a->alpha;
		o.force_step = a->force_step[k];
		o.force_token = a->force_token[k];
		if (decode_run(a->m, &in, &a->opts, &o, &r[k], &e)) {
			if (k)
				decode_result_free(&r[0]);
			input_free(&in);
			set_msg(a, 1, "%s", e.msg);
			return -1;
		}
	}
	input_free(&in);
	for (int k = 0; k < 2; k++) {
		decode_result_free(&a->dec[k]);
		a->dec[k] = r[k];
	}
	return 0;
}

/* The pass of the step on screen: the followed hypothesis's decoder input
 * (<s> + its tokens so far); its last row is the step's distribution. */
static int step_pass(struct app *a)
{
	struct view_state *v = &a->scr.v;
	const struct decode_result *r = &a->dec[a->which];
	struct pass_input in;
	struct err e;
	char name[STAGE_NAME_MAX] = "";
	if (a->tr && a->tr->n)
		snprintf(name, sizeof name, "%s", a->tr->stages[v->stage].name);
	if (v->dec_step >= r->nsteps) v->dec_step = r->nsteps - 1;
	if (v->dec_step < 0) v->dec_step = 0;
	const struct decode_step *st = &r->steps[v->dec_step];
	if (v->dec_hyp >= st->nhyps) v->dec_hyp = st->nhyps - 1;
	if (v->dec_hyp < 0) v->dec_hyp = 0;
	const struct hyp *h = &st->hyps[v->dec_hyp];
	if (input_build(a->m, a->sentence, NULL, &a->opts, &in, &e)) {
		set_msg(a, 1, "%s", e.msg);
		return -1;
	}
	if (decode_set_target(a->m, &in, h->ids, h->n, a->opts.pad_target))
		term_fatal("%s", _("out of memory"));
	if (!a->tr && !(a->tr = trace_new()))
		term_fatal("%s", _("out of memory"));
	if (!forward_run(a->m, &in, &a->opts, a->tr, &e))
		term_fatal("%s", e.msg);
	int in_len = in.tgt_len;
	input_free(&in);
	v->tr = a->tr;
	v->alt = NULL;
	v->dec = r;
	v->dec_other = &a->dec[!a->which];
	v->dec_beam = a->which ? a->beam_w : 1;
	v->dec_alpha = a->alpha;
	int i = *name ? trace_index(a->tr, name) : -1;
	v->stage = i >= 0 ? i : 0;
	v->row = in_len - 1;     /* the newest token: the row this step adds */
	return 0;
}

static void decode_start(struct app *a)
{
	if (!a->decoding) {
		a->decoding = 1;
		a->scr.v.dec_step = a->scr.v.dec_hyp = a->scr.v.dec_cand = 0;
		if (decode_all(a, a->sentence) || step_pass(a)) {
			a->decoding = 0;
			return;
		}
	}
	a->scr.v.flags |= VF_DECODE;
}

static void decode_stop(struct app *a)
{
	struct view_state *v = &a->scr.v;
	if (!a->decoding)
		return;
	a->decoding = 0;
	v->flags &= ~(VF_DECODE | VF_COMPARE);
	v->dec = v->dec_other = NULL;
	for (int k = 0; k < 2; k++)
		decode_result_free(&a->dec[k]);
	recompute(a, a->sentence, a->target);
}

/* Actions that need decoding start it first. */
static int need_decoding(struct app *a)
{
	if (!a->decoding)
		decode_start(a);
	return a->decoding;
}

static void decode_action(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (!need_decoding(a))
		return;
	const struct decode_result *r = &a->dec[a->which];
	switch (act) {
	case A_STEP_NEXT:
		if (v->dec_step + 1 < r->nsteps)
			v->dec_step++;
		else
			set_msg(a, 0, r->hit_max_len ?
				_("the last step: the length limit was reached without </s>") :
				_("the last step: the best hypothesis ended with </s>"));
		break;
	case A_STEP_PREV: if (v->dec_step > 0) v->dec_step--; break;
	case A_STEP_LAST: v->dec_step = r->nsteps - 1; break;
	case A_BEAM_TOGGLE: a->which = !a->which; break;
	case A_BEAM_MORE:
	case A_BEAM_LESS: {
		int w = a->beam_w + (act == A_BEAM_MORE ? 1 : -1);
		if (w < 2 || w > 16) {
			set_msg(a, 0, _("beam width stays within 2…16 here (b switches to greedy)"));
			return;
		}
		a->beam_w = w;
		a->which = 1;
		if (decode_all(a, a->sentence))
			return;
		set_msg(a, 0, _("beam width %d"), w);
		break;
	}
	case A_ALPHA_UP:
	case A_ALPHA_DOWN: {
		double al = a->alpha + (act == A_ALPHA_UP ? 0.1 : -0.1);
		if (al < -1e-9 || al > 2.0 + 1e-9) {
			set_msg(a, 0, _("α stays within 0…2"));
			return;
		}
		a->alpha = al < 1e-9 ? 0 : al;
		if (decode_all(a, a->sentence))
			return;
		set_msg(a, 0, _("length penalty α = %.1f"), a->alpha);
		break;
	}
	case A_COMPARE: v->flags ^= VF_COMPARE; break;
	case A_FORCE: {
		const struct decode_step *st = &r->steps[v->dec_step];
		int k = 0, tok = -1;
		for (int i = 0; i < st->ncands; i++)
			if (st->cands[i].parent == v->dec_hyp && k++ == v->dec_cand)
				tok = st->cands[i].token;
		if (tok < 0) {
			set_msg(a, 0, _("select a candidate with ↑/↓ first"));
			return;
		}
		/* the forced token continues the followed hypothesis: follow it */
		a->force_step[a->which] = v->dec_step;
		a->force_token[a->which] = tok;
		if (decode_all(a, a->sentence))
			return;
		v->dec_hyp = 0;
		set_msg(a, 0, _("what-if: step %d forced to “%s”; decoding continues from there "
				"(F undoes)"), v->dec_step + 1, vocab_str(&a->m->tgt_vocab, tok));
		break;
	}
	case A_UNFORCE:
		a->force_step[a->which] = -1;
		if (decode_all(a, a->sentence))
			return;
		break;
	default:
		break;
	}
	step_pass(a);
}

/* ---- lecture mode ---- */

static void lecture_go(struct app *a, int i)
{
	const struct lecture *l = a->lec;
	struct view_state *v = &a->scr.v;
	if (i < 0 || i >= l->n) {
		set_msg(a, 0, i < 0 ? _("the first step of the lecture") :
			_("the end of the lecture (← goes back, q quits)"));
		return;
	}
	const struct lstep *s = &l->steps[i];
	a->lstep = i;
	a->m = lecture_model(l, i);
	v->m = a->m;
	a->opts.causal = s->causal;
	a->opts.encoder_causal = s->encoder_causal;
	a->opts.ablate_head = -1;
	snprintf(a->sentence, sizeof a->sentence, "%s", s->sentence);
	snprintf(a->target, sizeof a->target, "%s", s->target);
	v->flags = 0;
	a->scr.show_help = 0;
	int decoding = s->view == LV_DECODE || s->view == LV_COMPARE;
	if (a->decoding) {
		a->decoding = 0;
		v->dec = v->dec_other = NULL;
	}
	if (decoding) {
		a->which = s->beam > 1;
		if (s->beam > 1)
			a->beam_w = s->beam;
		a->alpha = s->alpha;
		a->force_step[0] = a->force_step[1] = -1;
		v->dec_step = s->dec_step;
		v->dec_hyp = v->dec_cand = 0;
		a->decoding = 1;
		if (decode_all(a, a->sentence) || step_pass(a)) {
			a->decoding = 0;
			return;
		}
		v->flags |= s->view == LV_DECODE ? VF_DECODE : VF_COMPARE;
	} else if (recompute(a, a->sentence, a->target)) {
		return;
	}
	if (s->stage) {
		int k = trace_index(a->tr, s->stage);
		if (k >= 0)
			v->stage = k;
	}
	v->head = s->head;
	v->top = v->left = 0;
	if (s->row >= 0) {
		v->row = s->row;
		v->col = s->col;
	}
	static const int FLAGS[] = {
		[LV_STAGE] = 0, [LV_HEADS] = VF_ALL_HEADS,
		[LV_MEAN] = VF_ALL_HEADS | VF_MEAN_HEADS, [LV_INSPECT] = VF_INSPECT,
		[LV_MASKDIFF] = VF_MASK_DIFF, [LV_CURVES] = VF_PE_CURVES,
		[LV_DECODE] = VF_DECODE, [LV_COMPARE] = VF_COMPARE,
	};
	v->flags |= FLAGS[s->view];
	if (s->view == LV_MASKDIFF)
		recompute(a, a->sentence, a->target);   /* the other pass, too */
	view_clamp(v);
	a->scr.caption = s->caption ? _(s->caption) : NULL;   /* po/lecture-captions.pot */
	a->scr.show_explain = s->explain;
	snprintf(a->scr.caption_title, sizeof a->scr.caption_title, "%d / %d%s%s",
		 i + 1, l->n, l->title ? " · " : "", l->title ? _(l->title) : "");
	a->scr.message = NULL;
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
		set_msg(a, 0, _("this stage is not inside a layer"));
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
		set_msg(a, 0, s->block == BLK_ENCODER ? _("no encoder layer %d") :
			_("no decoder layer %d"), s->layer + delta);
}

static void go_block(struct app *a, enum block b)
{
	for (int i = 0; i < a->tr->n; i++)
		if (a->tr->stages[i].block == b) {
			go_stage(a, i);
			return;
		}
	set_msg(a, 0, b == BLK_ENCODER ? _("this model has no encoder") :
		b == BLK_DECODER ? _("this model has no decoder") :
		_("this model has no output stage"));
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
		set_msg(a, 0, "%s", why);
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
		set_msg(a, 0, _("head restored"));
		return;
	}
	if (!is_attention_stage(s)) {
		set_msg(a, 0, _("select an attention stage to ablate one of its heads"));
		return;
	}
	o->ablate_block = s->block;
	o->ablate_layer = s->layer;
	o->ablate_attn = strstr(s->name, "cross_attn") != NULL;
	o->ablate_head = a->scr.v.head;
	recompute(a, a->sentence, a->target);
	/* (the encoder has self-attention only) */
	set_msg(a, 0, s->block == BLK_ENCODER ?
		_("what-if: encoder layer %d self-attention head %d zeroed — step on to see "
		  "the effect; x restores") : o->ablate_attn ?
		_("what-if: decoder layer %d cross-attention head %d zeroed — step on to see "
		  "the effect; x restores") :
		_("what-if: decoder layer %d self-attention head %d zeroed — step on to see "
		  "the effect; x restores"), s->layer, o->ablate_head);
}

/* ---- the line editor ---- */

static void edit_open(struct app *a, int which)
{
	if (which == 2 && a->m->cfg.arch == ARCH_ENC_ONLY) {
		set_msg(a, 0, _("an encoder-only model has no decoder: no target to edit"));
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
		set_msg(a, 1, _("the text is limited to %d bytes"), EDIT_MAX - 2);
		break;
	case LE_NONE:
		break;
	}
}

static void draw(struct app *a, struct canvas *c);

/* Writes the screen as it is now to attnscope-N.svg in the current
 * directory (the first N not taken). */
static void save_svg(struct app *a)
{
	char path[64];
	FILE *fp = NULL;
	for (int n = 1; n < 10000 && !fp; n++) {
		snprintf(path, sizeof path, "attnscope-%d.svg", n);
		fp = fopen(path, "wx");   /* x: never overwrite */
	}
	if (!fp) {
		set_msg(a, 1, _("cannot write an SVG file in this directory"));
		return;
	}
	int w, h;
	term_size(&w, &h);
	struct canvas *cv = canvas_new(w, h, DEPTH_TRUE);
	if (!cv) {
		fclose(fp);
		set_msg(a, 1, _("out of memory"));
		return;
	}
	a->scr.message = NULL;
	draw(a, cv);
	canvas_write_svg(cv, fp);
	canvas_free(cv);
	if (fclose(fp))
		set_msg(a, 1, _("writing %s failed"), path);
	else
		set_msg(a, 0, _("saved %s"), path);
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
	int col = (x - g->x0) / g->cw;
	int row = g->ch > 1 ? (y - g->y0) / g->ch : (y - g->y0) * g->rh;
	if (col < g->nc && row < g->nr) {
		a->scr.v.col = g->left + col;
		a->scr.v.row = g->top + row;
	}
}

/* On the decoding page ↑↓ pick a candidate and [ ] a hypothesis. */
static int decoding_page_key(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (!a->decoding || !(v->flags & VF_DECODE) || (v->flags & VF_COMPARE))
		return 0;
	const struct decode_step *st = &a->dec[a->which].steps[v->dec_step];
	int ncand = 0;
	for (int i = 0; i < st->ncands; i++)
		ncand += st->cands[i].parent == v->dec_hyp;
	switch (act) {
	case A_UP: if (v->dec_cand > 0) v->dec_cand--; return 1;
	case A_DOWN: if (v->dec_cand + 1 < ncand) v->dec_cand++; return 1;
	case A_HEAD_NEXT:
	case A_HEAD_PREV:
		v->dec_hyp = (v->dec_hyp + (act == A_HEAD_NEXT ? 1 : st->nhyps - 1)) % st->nhyps;
		v->dec_cand = 0;
		step_pass(a);
		return 1;
	default:
		return 0;
	}
}

/* The zoom levels in enum zoom order, for the message of z. */
static const char *const ZOOM_NAMES[ZOOM_COUNT] = {
	/* TRANSLATORS: zoom levels (z key), shown as "zoom: %s" and listed in
	   the help line "zoom: auto / numbers / cells / fit / big" */
	N_("auto"), N_("numbers"), N_("cells"), N_("fit"), N_("big")
};

static void do_action(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (a->lec && (act == A_NEXT || act == A_PREV)) {
		/* a lecture: the space bar plays the script */
		lecture_go(a, a->lstep + (act == A_NEXT ? 1 : -1));
		return;
	}
	if (decoding_page_key(a, act))
		return;
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
			set_msg(a, 0, _("this stage has no heads to show side by side"));
		break;
	case A_MEAN:
		if (view_heads(cur_stage(a)) > 1)
			v->flags ^= VF_MEAN_HEADS | (v->flags & VF_ALL_HEADS ? 0 : VF_ALL_HEADS);
		break;
	case A_OPEN: v->flags &= ~(VF_ALL_HEADS | VF_MEAN_HEADS); break;
	case A_INSPECT:
		toggle_flag(a, VF_INSPECT, 1, _("the inspector works on attention scores and weights"));
		break;
	case A_DIFF:
		toggle_flag(a, VF_MASK_DIFF, 1, _("the mask diff works on attention scores and weights"));
		if (v->flags & VF_MASK_DIFF)
			recompute(a, a->sentence, a->target);
		else
			v->alt = NULL;
		break;
	case A_CURVES:
		if (strstr(cur_stage(a)->name, ".pos"))
			v->flags ^= VF_PE_CURVES;
		else
			set_msg(a, 0, _("curves are for the positional encoding stages (src.pos, tgt.pos)"));
		break;
	case A_MASK_DEC:
		if (a->m->cfg.arch == ARCH_ENC_ONLY) {
			set_msg(a, 0, _("an encoder-only model has no decoder mask (M: encoder mask)"));
			break;
		}
		a->opts.causal = !a->opts.causal;
		recompute(a, a->sentence, a->target);
		set_msg(a, 0, a->opts.causal ? _("decoder causal mask ON: a token sees only the past") :
			_("decoder causal mask OFF: every decoder token sees the future"));
		break;
	case A_MASK_ENC:
		if (a->m->cfg.arch == ARCH_DEC_ONLY) {
			set_msg(a, 0, _("a decoder-only model has no encoder"));
			break;
		}
		a->opts.encoder_causal = !a->opts.encoder_causal;
		recompute(a, a->sentence, a->target);
		set_msg(a, 0, a->opts.encoder_causal ? _("encoder causal mask ON") :
			_("encoder causal mask OFF"));
		break;
	case A_ABLATE: ablate(a); break;
	case A_EDIT: edit_open(a, 1); break;
	case A_EDIT_TARGET: edit_open(a, 2); break;
	case A_ZOOM:
		v->zoom = (v->zoom + 1) % ZOOM_COUNT;
		set_msg(a, 0, _("zoom: %s"), _(ZOOM_NAMES[v->zoom]));
		break;
	case A_DECODE:
		if (a->decoding && (v->flags & VF_DECODE))
			v->flags &= ~(VF_DECODE | VF_COMPARE);
		else
			decode_start(a);
		break;
	case A_DECODE_OFF: decode_stop(a); break;
	case A_STEP_NEXT: case A_STEP_PREV: case A_STEP_LAST: case A_BEAM_TOGGLE:
	case A_BEAM_MORE: case A_BEAM_LESS: case A_ALPHA_UP: case A_ALPHA_DOWN:
	case A_COMPARE: case A_FORCE: case A_UNFORCE:
		decode_action(a, act);
		break;
	case A_CROSS: {
		char name[STAGE_NAME_MAX];
		snprintf(name, sizeof name, "decoder.%d.cross_attn.weights",
			 a->m->cfg.dec_layers - 1);
		int i = trace_index(a->tr, name);
		if (i < 0) {
			set_msg(a, 0, _("this model has no cross-attention"));
			break;
		}
		v->flags &= ~(VF_DECODE | VF_COMPARE);
		go_stage(a, i);
		/* the newest decoder token (the last row that is not padding) */
		v->row = a->tr->T - 1;
		while (v->row > 0 && !strcmp(a->tr->tgt_tokens[v->row], "<pad>"))
			v->row--;
		break;
	}
	case A_EXPLAIN: a->scr.show_explain = !a->scr.show_explain; break;
	case A_SCHEME: {
		enum scheme sch = (enum scheme)((palette_scheme() + 1) % SCHEME_COUNT);
		palette_set_scheme(sch);
		set_msg(a, 0, _("colours: %s"), palette_scheme_name(sch));
		break;
	}
	case A_SVG: save_svg(a); break;
	case A_PRESENTER:
		a->scr.presenter = !a->scr.presenter;
		v->zoom = a->scr.presenter ? ZOOM_BIG : ZOOM_AUTO;
		break;
	case A_COUNT: break;
	case A_HELP:
		a->scr.show_help = !a->scr.show_help;
		a->scr.help_top = 0;
		break;
	case A_ESCAPE:
		a->scr.show_help = 0;
		v->flags &= ~(VF_INSPECT | VF_MASK_DIFF | VF_ALL_HEADS | VF_MEAN_HEADS |
			      VF_PE_CURVES | VF_DECODE | VF_COMPARE);
		break;
	case A_QUIT: a->quit = 1; break;
	}
}

/* The action bound to key, or A_COUNT when none is. */
static enum action key_action(int key)
{
	for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++)
		if (KEYS[i].key == key)
			return KEYS[i].act;
	return A_COUNT;
}

/* While the help is open the cursor keys scroll it (it scrolls only on a
 * terminal too small for the whole table).  Returns whether act did. */
static int help_scroll(struct app *a, enum action act)
{
	int d = act == A_DOWN ? 1 : act == A_UP ? -1 : act == A_PGDN ? 10 :
		act == A_PGUP ? -10 : 0;
	if (!d)
		return 0;
	int top = a->scr.help_top + d;
	a->scr.help_top = top < 0 ? 0 : top >= a->scr.nkeys ? a->scr.nkeys - 1 : top;
	return 1;
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
	enum action act = key_action(key);
	if (act == A_COUNT || (a->scr.show_help && help_scroll(a, act)))
		return;
	do_action(a, act);
	view_clamp(&a->scr.v);
}

static void draw(struct app *a, struct canvas *c)
{
	/* TRANSLATORS: the prompts of the line editor (e and t keys); keep the
	   space at each end */
	static const char *const prompt[] = { "", N_(" sentence: "), N_(" target: ") };
	struct screen *s = &a->scr;
	s->model_name = a->m->cfg.name;
	s->sentence = a->sentence;
	s->target = *a->target ? a->target : NULL;
	s->edit_prompt = a->editing ? _(prompt[a->editing]) : NULL;
	s->edit_text = a->edit.text;
	s->edit_cursor = a->edit.cur;
	screen_draw(s, c);
}

static int loop(struct app *a);
static int lecture_run(struct app *a, struct cli *c);

int tui_run(struct cli *c)
{
	struct app a;
	memset(&a, 0, sizeof a);
	if (c->scheme) {
		int sch = palette_scheme_by_name(c->scheme);
		if (sch < 0)
			return cli_fail("--scheme must be default, high-contrast or colorblind, "
					"not \"%s\"", c->scheme);
		palette_set_scheme((enum scheme)sch);
	}
	a.scr.presenter = c->presenter;
	a.scr.v.zoom = c->presenter ? ZOOM_BIG : ZOOM_AUTO;
	a.opts = c->pass;
	a.beam_w = c->beam > 1 ? c->beam : 4;
	a.alpha = c->alpha;
	a.force_step[0] = a.force_step[1] = -1;
	if (c->lecture)
		return lecture_run(&a, c);
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
	int status = loop(&a);
	model_free(a.m);
	return status;
}

/* Opens the terminal and runs the key loop until q. */
static int loop(struct app *a)
{
	struct err e;
	a->scr.keys = help_lines;
	a->scr.nkeys = build_help();
	if (term_init(&e)) {
		trace_free(a->tr);
		return cli_fail("%s", e.msg);
	}
	int w, h;
	term_size(&w, &h);
	struct canvas *cv = canvas_new(w, h, term_depth());
	if (!cv)
		term_fatal("%s", _("out of memory"));
	while (!a->quit) {
		draw(a, cv);
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
		int playing = a->lec && a->play_ms > 0 && a->lstep + 1 < a->lec->n &&
			      !a->editing;
		int key = term_key(playing ? a->play_ms : -1, utf8);
		if (key == TK_NONE && playing) {
			lecture_go(a, a->lstep + 1);
			continue;
		}
		if (key == TK_RESIZE || key == TK_NONE) {
			term_size(&w, &h);
			if ((w != cv->w || h != cv->h) && canvas_resize(cv, w, h))
				term_fatal("%s", _("out of memory"));
			a->churn = 1;
			if (key == TK_NONE)
				continue;
		}
		on_key(a, key, utf8);
	}
	term_end();
	canvas_free(cv);
	trace_free(a->tr);
	trace_free(a->alt);
	for (int k = 0; k < 2; k++)
		decode_result_free(&a->dec[k]);
	return 0;
}

/* --lecture FILE: check the whole script first, then play it. */
static int lecture_run(struct app *a, struct cli *c)
{
	struct lecture l;
	struct err e;
	if (c->pot) {
		int r = lecture_load(&l, c->lecture, &e);
		if (!r)
			lecture_write_pot(&l, stdout);
		lecture_free(&l);
		return r ? cli_fail("%s", e.msg) : 0;
	}
	if (lecture_load(&l, c->lecture, &e) || lecture_check(&l, &e)) {
		lecture_free(&l);
		return cli_fail("%s", e.msg);
	}
	if (c->check) {
		/* (the English says "steps" for one step too) */
		printf(P_("%s: %d steps, every stage, head and cursor exists\n",
			  "%s: %d steps, every stage, head and cursor exists\n", l.n),
		       c->lecture, l.n);
		lecture_free(&l);
		return 0;
	}
	a->lec = &l;
	a->play_ms = c->play_ms;
	a->m = lecture_model(&l, 0);
	a->scr.v.m = a->m;
	lecture_go(a, 0);
	if (!a->tr) {
		lecture_free(&l);
		return cli_fail("%s", a->msg + 1);
	}
	int status = loop(a);
	lecture_free(&l);
	return status;
}
