/* actions.c - what each key does: one small function per action (enum
 * action), which changes the state and returns what changed (enum
 * reaction), as htop's actions return their reactions.  A change of the
 * pass's input or options answers RE_RECOMPUTE: app_action recomputes
 * the pass once, in one place, after the action. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "base/i18n.h"
#include "views/palette.h"

typedef unsigned action_fn(struct app *a, enum action act, int key);

static int is_attention_stage(const struct stage *s)
{
	return strstr(s->name, "_attn.") != NULL;
}

static int is_scores_or_weights(const struct stage *s)
{
	return s->kind == SK_SCORES || s->kind == SK_WEIGHTS;
}

/* ---- moving ---- */

static unsigned act_next(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_go_stage(a, a->scr.v.stage + 1);
	return RE_REDRAW;
}

static unsigned act_prev(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_go_stage(a, a->scr.v.stage - 1);
	return RE_REDRAW;
}

/* The cursor: ↑↓ h l, PgUp PgDn. */
static unsigned act_cursor(struct app *a, enum action act, int key)
{
	(void)key;
	struct view_state *v = &a->scr.v;
	switch (act) {
	case A_UP: v->row--; break;
	case A_DOWN: v->row++; break;
	case A_LEFT: v->col--; break;
	case A_RIGHT: v->col++; break;
	case A_PGUP: v->row -= 10; break;
	case A_PGDN: v->row += 10; break;
	default: break;
	}
	return RE_REDRAW;
}

/* A screenful of columns: the view and the cursor move together. */
static unsigned act_page(struct app *a, enum action act, int key)
{
	(void)key;
	struct view_state *v = &a->scr.v;
	int page = v->geom.valid && v->geom.nc > 0 ? v->geom.nc : 8;
	int d = act == A_PAGE_LEFT ? -page : page;
	v->col += d;
	v->left += d;
	if (v->left < 0)
		v->left = 0;
	return RE_REDRAW;
}

static unsigned act_head(struct app *a, enum action act, int key)
{
	(void)key;
	struct view_state *v = &a->scr.v;
	int H = view_heads(app_stage(a));
	v->head = (v->head + (act == A_HEAD_NEXT ? 1 : H - 1)) % H;
	return RE_REDRAW;
}

static unsigned act_layer(struct app *a, enum action act, int key)
{
	(void)key;
	app_go_layer(a, act == A_LAYER_NEXT ? 1 : -1);
	return RE_REDRAW;
}

static unsigned act_first(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_go_stage(a, 0);
	return RE_REDRAW;
}

static unsigned act_last(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_go_stage(a, a->tr->n - 1);
	return RE_REDRAW;
}

static unsigned act_block(struct app *a, enum action act, int key)
{
	(void)key;
	app_go_block(a, act == A_ENCODER ? BLK_ENCODER : act == A_DECODER ? BLK_DECODER :
		     BLK_OUTPUT);
	return RE_REDRAW;
}

/* X: the last decoder layer's cross-attention, the newest token's row. */
static unsigned act_cross(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	char name[STAGE_NAME_MAX];
	snprintf(name, sizeof name, "decoder.%d.cross_attn.weights", a->m->cfg.dec_layers - 1);
	int i = trace_index(a->tr, name);
	if (i < 0) {
		app_msg(a, 0, _("this model has no cross-attention"));
		return RE_REDRAW;
	}
	view_mode_off(v, VM_DECODE, VM_COMPARE);
	app_go_stage(a, i);
	/* the newest decoder token (the last row that is not padding) */
	v->row = a->tr->T - 1;
	while (v->row > 0 && !strcmp(a->tr->tgt_tokens[v->row], "<pad>"))
		v->row--;
	return RE_REDRAW;
}

/* ---- the views of a stage ---- */

/* Toggles mode m; need_attention: it starts only from an attention's
 * scores or weights (why says so otherwise). */
static unsigned toggle_mode(struct app *a, enum view_mode m, int need_attention, const char *why)
{
	if (a->scr.v.mode != m && need_attention && !is_scores_or_weights(app_stage(a))) {
		app_msg(a, 0, "%s", why);
		return RE_REDRAW;
	}
	view_mode_toggle(&a->scr.v, m);
	return RE_REDRAW;
}

static unsigned act_heads(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	if (view_heads(app_stage(a)) > 1)
		a->scr.v.mode = a->scr.v.mode == VM_HEADS || a->scr.v.mode == VM_MEAN ? VM_STAGE :
				VM_HEADS;
	else
		app_msg(a, 0, _("this stage has no heads to show side by side"));
	return RE_REDRAW;
}

static unsigned act_mean(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	if (view_heads(app_stage(a)) > 1)
		v->mode = v->mode == VM_MEAN ? VM_HEADS : VM_MEAN;
	return RE_REDRAW;
}

static unsigned act_open(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	if (v->mode == VM_HEADS || v->mode == VM_MEAN || v->mode == VM_MODEL || v->mode == VM_MAP)
		v->mode = VM_STAGE;
	return RE_REDRAW;
}

static unsigned act_inspect(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	return toggle_mode(a, VM_INSPECT, 1, _("the inspector works on attention scores and weights"));
}

/* d: the mask diff needs the pass with the causal mask flipped. */
static unsigned act_diff(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	toggle_mode(a, VM_MASK_DIFF, 1, _("the mask diff works on attention scores and weights"));
	if (a->scr.v.mode == VM_MASK_DIFF)
		return RE_RECOMPUTE;
	a->scr.v.alt = NULL;
	return RE_REDRAW;
}

static unsigned act_curves(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	const struct stage *st = app_stage(a);
	if (strstr(st->name, "_rot")) {   /* the rotary picture */
		view_mode_toggle(v, VM_CURVES);
		return RE_REDRAW;
	}
	if (!strstr(st->name, ".pos")) {
		app_msg(a, 0, _("curves are for the positional encoding stages (src.pos, tgt.pos; "
				"q_rot, k_rot with rotary embeddings)"));
		return RE_REDRAW;
	}
	view_mode_toggle(v, VM_CURVES);
	/* from the first column: the Annotated Transformer's dims 4–7 (h l
	 * pick others) */
	if ((v->mode == VM_CURVES) && v->col == 0 && st->ndim == 2 && st->shape[1] >= 8)
		v->col = 4;
	return RE_REDRAW;
}

static unsigned act_lines(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	if (!(v->mode == VM_LINES) && !view_attn_weights(a->tr, app_stage(a)))
		app_msg(a, 0, "%s", _("the head view works on the stages of an attention"));
	else
		view_mode_toggle(v, VM_LINES);
	return RE_REDRAW;
}

/* 1…9 hide or show head 0…8 of the head view, 0 shows every head. */
static unsigned act_head_show(struct app *a, enum action act, int key)
{
	(void)act;
	struct view_state *v = &a->scr.v;
	if (!(v->mode == VM_LINES)) {
		app_msg(a, 0, "%s", _("digits show and hide heads in the head view (v)"));
		return RE_REDRAW;
	}
	if (key == '0') {
		v->heads_off = 0;
		return RE_REDRAW;
	}
	int h = key - '1';
	const struct stage *w = view_attn_weights(a->tr, app_stage(a));
	if (!w || h >= w->shape[0]) {
		app_msg(a, 0, _("this attention has no head %d"), h);
		return RE_REDRAW;
	}
	v->heads_off ^= 1ull << h;
	return RE_REDRAW;
}

static unsigned act_model(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	if (!(v->mode == VM_MODEL) && (!view_attn_weights(a->tr, app_stage(a)) ||
				       app_stage(a)->layer < 0))
		app_msg(a, 0, "%s", _("the model view works on the stages of an attention"));
	else
		view_mode_toggle(v, VM_MODEL);
	return RE_REDRAW;
}

static unsigned act_map(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	view_mode_toggle(&a->scr.v, VM_MAP);
	return RE_REDRAW;
}

static unsigned act_map_side(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	v->map_side = !v->map_side;
	if ((v->map_side) && a->scr.sidebar.w == 0)
		app_msg(a, 0, "%s", _("the small map shows in the stage list, from 80 columns on"));
	return RE_REDRAW;
}

/* |: the stage list gives its width to the view, or comes back. */
static unsigned act_stage_list(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->scr.hide_stages = !a->scr.hide_stages;
	if (a->scr.hide_stages)
		app_msg(a, 0, "%s", _("stage list hidden: ←→ still step, | shows it"));
	return RE_REDRAW;
}

static unsigned act_lens(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_inside_toggle(a, VM_LENS);
	return RE_REDRAW;
}

static unsigned act_importance(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_inside_toggle(a, VM_IMPORTANCE);
	return RE_REDRAW;
}

/* ---- the what-ifs: masks and ablation (the pass is recomputed) ---- */

static unsigned act_mask_dec(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	if (a->m->cfg.arch == ARCH_ENC_ONLY) {
		app_msg(a, 0, _("an encoder-only model has no decoder mask (M: encoder mask)"));
		return RE_REDRAW;
	}
	a->opts.causal = !a->opts.causal;
	app_msg(a, 0, a->opts.causal ? _("decoder causal mask ON: a token sees only the past") :
		_("decoder causal mask OFF: every decoder token sees the future"));
	return RE_RECOMPUTE;
}

static unsigned act_mask_enc(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	if (a->m->cfg.arch == ARCH_DEC_ONLY) {
		app_msg(a, 0, _("a decoder-only model has no encoder"));
		return RE_REDRAW;
	}
	a->opts.encoder_causal = !a->opts.encoder_causal;
	app_msg(a, 0, a->opts.encoder_causal ? _("encoder causal mask ON") :
		_("encoder causal mask OFF"));
	return RE_RECOMPUTE;
}

/* x: zero the selected head of the attention on screen (again: restore). */
static unsigned act_ablate(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	const struct stage *s = app_stage(a);
	struct pass_opts *o = &a->opts;
	if (o->ablate_head >= 0) {
		o->ablate_head = -1;
		app_msg(a, 0, _("head restored"));
		return RE_RECOMPUTE;
	}
	if (!is_attention_stage(s)) {
		app_msg(a, 0, _("select an attention stage to ablate one of its heads"));
		return RE_REDRAW;
	}
	o->ablate_block = s->block;
	o->ablate_layer = s->layer;
	o->ablate_attn = strstr(s->name, "cross_attn") != NULL;
	o->ablate_head = a->scr.v.head;
	/* (the encoder has self-attention only) */
	app_msg(a, 0, s->block == BLK_ENCODER ?
		_("what-if: encoder layer %d self-attention head %d zeroed — step on to see "
		  "the effect; x restores") : o->ablate_attn ?
		_("what-if: decoder layer %d cross-attention head %d zeroed — step on to see "
		  "the effect; x restores") :
		_("what-if: decoder layer %d self-attention head %d zeroed — step on to see "
		  "the effect; x restores"), s->layer, o->ablate_head);
	return RE_RECOMPUTE;
}

/* ---- editing, decoding, training time ---- */

static unsigned act_edit(struct app *a, enum action act, int key)
{
	(void)key;
	app_edit_open(a, act == A_EDIT_TARGET ? 2 : 1);
	return RE_REDRAW;
}

static unsigned act_decode(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	if (a->ds.on && (v->mode == VM_DECODE || v->mode == VM_COMPARE))
		v->mode = VM_STAGE;
	else
		app_decode_start(a);
	return RE_REDRAW;
}

static unsigned act_decode_off(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_decode_stop(a);
	return RE_REDRAW;
}

/* The keys of the decoding page: step, search, what-if: app_action hands
 * them to decoding.c with their action (this entry marks them). */
static unsigned act_decoding(struct app *a, enum action act, int key)
{
	(void)a;
	(void)act;
	(void)key;
	return 0;
}

static unsigned act_snapshot(struct app *a, enum action act, int key)
{
	(void)key;
	app_snapshot_step(a, act == A_SNAP_PREV ? -1 : 1);
	return RE_REDRAW;
}

/* ---- the screen ---- */

/* The zoom levels in enum zoom order, for the message of z. */
static const char *const ZOOM_NAMES[ZOOM_COUNT] = {
	/* TRANSLATORS: zoom levels (z key), shown as "zoom: %s" and listed in
	   the help line "zoom: auto / numbers / cells / fit / big" */
	N_("auto"), N_("numbers"), N_("cells"), N_("fit"), N_("big")
};

static unsigned act_zoom(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	struct view_state *v = &a->scr.v;
	v->zoom = (v->zoom + 1) % ZOOM_COUNT;
	app_msg(a, 0, _("zoom: %s"), _(ZOOM_NAMES[v->zoom]));
	return RE_REDRAW;
}

static unsigned act_explain(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->scr.show_explain = !a->scr.show_explain;
	return RE_REDRAW;
}

static unsigned act_scheme(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	enum scheme sch = (enum scheme)((palette_scheme() + 1) % SCHEME_COUNT);
	palette_set_scheme(sch);
	app_msg(a, 0, _("colours: %s"), palette_scheme_name(sch));
	return RE_REDRAW;
}

static unsigned act_svg(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	app_save_svg(a);
	return RE_REDRAW;
}

static unsigned act_presenter(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->scr.presenter = !a->scr.presenter;
	a->scr.v.zoom = a->scr.presenter ? ZOOM_BIG : ZOOM_AUTO;
	return RE_REDRAW;
}

static unsigned act_help(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->scr.show_help = !a->scr.show_help;
	a->scr.help_top = 0;
	return RE_REDRAW;
}

/* Esc: the help and every overlay close. */
static unsigned act_escape(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->scr.show_help = 0;
	a->scr.v.mode = VM_STAGE;
	return RE_REDRAW;
}

static unsigned act_quit(struct app *a, enum action act, int key)
{
	(void)act;
	(void)key;
	a->quit = 1;
	return RE_QUIT;
}

static action_fn *const ACTIONS[A_COUNT] = {
	[A_NEXT] = act_next, [A_PREV] = act_prev,
	[A_UP] = act_cursor, [A_DOWN] = act_cursor, [A_LEFT] = act_cursor,
	[A_RIGHT] = act_cursor, [A_PGUP] = act_cursor, [A_PGDN] = act_cursor,
	[A_PAGE_LEFT] = act_page, [A_PAGE_RIGHT] = act_page,
	[A_HEAD_NEXT] = act_head, [A_HEAD_PREV] = act_head,
	[A_LAYER_NEXT] = act_layer, [A_LAYER_PREV] = act_layer,
	[A_FIRST] = act_first, [A_LAST] = act_last,
	[A_ENCODER] = act_block, [A_DECODER] = act_block, [A_OUTPUT] = act_block,
	[A_HEADS] = act_heads, [A_OPEN] = act_open, [A_INSPECT] = act_inspect,
	[A_DIFF] = act_diff, [A_CURVES] = act_curves, [A_MEAN] = act_mean,
	[A_MASK_DEC] = act_mask_dec, [A_MASK_ENC] = act_mask_enc, [A_ABLATE] = act_ablate,
	[A_EDIT] = act_edit, [A_EDIT_TARGET] = act_edit,
	[A_DECODE] = act_decode, [A_DECODE_OFF] = act_decode_off,
	[A_STEP_NEXT] = act_decoding, [A_STEP_PREV] = act_decoding, [A_STEP_LAST] = act_decoding,
	[A_BEAM_TOGGLE] = act_decoding, [A_BEAM_MORE] = act_decoding,
	[A_BEAM_LESS] = act_decoding, [A_ALPHA_UP] = act_decoding,
	[A_ALPHA_DOWN] = act_decoding, [A_SAMPLE] = act_decoding, [A_RESEED] = act_decoding,
	[A_TOPK] = act_decoding, [A_COMPARE] = act_decoding, [A_FORCE] = act_decoding,
	[A_UNFORCE] = act_decoding,
	[A_LENS] = act_lens, [A_IMPORTANCE] = act_importance, [A_CROSS] = act_cross,
	[A_EXPLAIN] = act_explain, [A_SCHEME] = act_scheme, [A_SVG] = act_svg,
	[A_PRESENTER] = act_presenter, [A_ZOOM] = act_zoom, [A_LINES] = act_lines,
	[A_HEAD_SHOW] = act_head_show, [A_MODEL] = act_model, [A_MAP] = act_map,
	[A_MAP_SIDE] = act_map_side, [A_STAGE_LIST] = act_stage_list,
	[A_SNAP_PREV] = act_snapshot, [A_SNAP_NEXT] = act_snapshot,
	[A_HELP] = act_help, [A_ESCAPE] = act_escape, [A_QUIT] = act_quit,
};

/* A key the view on screen takes first (its on_key): the model view's
 * layers and heads, the decoding page's candidates and hypotheses.
 * Returns whether it took it. */
static int view_key(struct app *a, enum action act)
{
	static const int VK[A_COUNT] = {
		[A_UP] = 1 + VK_UP, [A_DOWN] = 1 + VK_DOWN, [A_LEFT] = 1 + VK_LEFT,
		[A_RIGHT] = 1 + VK_RIGHT, [A_HEAD_NEXT] = 1 + VK_NEXT, [A_HEAD_PREV] = 1 + VK_PREV,
	};
	const struct view_class *vc = view_for(&a->scr.v);
	if (!vc->on_key || !VK[act])
		return 0;
	unsigned r = vc->on_key(&a->scr.v, (enum view_key)(VK[act] - 1));
	if (r & VR_LAYER_UP)
		app_go_layer(a, -1);
	if (r & VR_LAYER_DOWN)
		app_go_layer(a, 1);
	if ((r & VR_STEP_PASS) && a->ds.on)
		app_step_pass(a);
	return r != 0;
}

/* Recomputes the pass for a reaction that asks (the action's message
 * stays, unless the pass cannot be made). */
static unsigned react(struct app *a, unsigned r)
{
	if (!(r & RE_RECOMPUTE))
		return r;
	char keep[sizeof a->msg];
	const char *had = a->scr.message;
	int was_err = a->scr.message_is_error;
	memcpy(keep, a->msg, sizeof keep);
	a->scr.message = NULL;
	if (app_recompute(a, a->sentence, a->target) == 0 && had) {
		memcpy(a->msg, keep, sizeof keep);
		a->scr.message = a->msg;
		a->scr.message_is_error = was_err;
	}
	return r | RE_PASS | RE_REDRAW;
}

unsigned app_action(struct app *a, enum action act, int key)
{
	if (act >= A_COUNT || !ACTIONS[act])
		return 0;
	if (a->lp.lec && (act == A_NEXT || act == A_PREV)) {
		/* a lecture: the space bar plays the script */
		app_lecture_advance(a, act == A_NEXT ? 1 : -1);
		return RE_REDRAW;
	}
	/* keys that move between stages bring the stage list back (a
	 * lecture below 120 columns shows a breadcrumb instead) */
	if (act == A_FIRST || act == A_LAST || act == A_ENCODER || act == A_DECODER ||
	    act == A_OUTPUT || act == A_LAYER_NEXT || act == A_LAYER_PREV || act == A_CROSS)
		a->scr.show_stages = 1;
	if (view_key(a, act))
		return RE_REDRAW;
	if (ACTIONS[act] == act_decoding) {
		app_decode_action(a, act);
		return RE_REDRAW;
	}
	return react(a, ACTIONS[act](a, act, key));
}
