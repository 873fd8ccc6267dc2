/* keys.c - the stepper's one key table, the help screen made from it, and
 * what each key does to the state (app.h). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "complete.h"
#include "term.h"
#include "base/i18n.h"
#include "views/palette.h"

/* What each action does: the help screen's text (translated in keys_build_help). */
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
	[A_PAGE_LEFT] = N_("page left: the previous screenful of columns"),
	[A_PAGE_RIGHT] = N_("page right: the next screenful of columns (wide stages)"),
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
	[A_EDIT_TARGET] = N_("edit the target (teacher forcing); empty: the model's translation"),
	[A_DECODE] = N_("decoding page on/off (starts decoding the sentence)"),
	[A_DECODE_OFF] = N_("stop decoding: back to the teacher-forced pass"),
	[A_STEP_NEXT] = N_("decoding: next step"),
	[A_STEP_PREV] = N_("decoding: previous step"),
	[A_STEP_LAST] = N_("decoding: run to the end"),
	[A_BEAM_TOGGLE] = N_("decoding: greedy ↔ beam search"),
	[A_BEAM_MORE] = N_("decoding: beam width +1 (sampling: temperature +0.1)"),
	[A_BEAM_LESS] = N_("decoding: beam width −1 (sampling: temperature −0.1)"),
	[A_ALPHA_UP] = N_("decoding: length penalty α +0.1 (sampling: top-p +0.05)"),
	[A_ALPHA_DOWN] = N_("decoding: length penalty α −0.1 (sampling: top-p −0.05)"),
	[A_SAMPLE] = N_("decoding: sampling (temperature, top-k, top-p) ↔ greedy"),
	[A_RESEED] = N_("sampling: draw again with the next seed"),
	[A_TOPK] = N_("sampling: top-k 0 (no cut), 1, 2, 3, 5, 10, 20, 50"),
	[A_LENS] = N_("logit lens: every decoder layer's top guesses for the next word"),
	[A_IMPORTANCE] = N_("head importance: the labels' log p lost with each head zeroed"),
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
	[A_ZOOM] = N_("zoom: auto / numbers / cells / fit / big / overview"),
	[A_JUMP] = N_("jump to a token: type it, Enter (again: its next place)"),
	[A_POOL] = N_("overviews of long matrices: the max or the mean of each block"),
	[A_LINES] = N_("head view: queries and keys joined by lines, all heads overlaid"),
	[A_HEAD_SHOW] = N_("head view: show/hide head 0–8 (0: show all)"),
	[A_MODEL] = N_("model view: every layer × head of this attention (Enter opens one)"),
	[A_MAP] = N_("architecture map (the paper's Figure 1): the stage lit, click a box to jump"),
	[A_MAP_SIDE] = N_("a small architecture map above the stage list on/off"),
	[A_SNAP_PREV] = N_("training time: the previous training snapshot (same sentence and stage)"),
	[A_SNAP_NEXT] = N_("training time: the next training snapshot, up to the trained weights"),
	[A_HELP] = N_("this help (Esc closes)"),
	[A_ESCAPE] = N_("close help and overlays"),
	[A_QUIT] = N_("quit"),
};

struct binding {
	int key;
	const char *name;    /* as the help screen shows it (NULL: told by
	                        the binding before it, "1–9") */
	enum action act;
};

/* The one key table: the loop dispatches from it, the help screen is made
 * from it. */
static const struct binding KEYS[] = {
	{ TK_RIGHT, "→", A_NEXT }, { 'n', "n", A_NEXT }, { ' ', "space", A_NEXT },
	{ TK_LEFT, "←", A_PREV }, { 'p', "p", A_PREV }, { TK_BACKSPACE, "backspace", A_PREV },
	{ TK_UP, "↑", A_UP }, { 'k', "k", A_UP }, { TK_DOWN, "↓", A_DOWN }, { 'j', "j", A_DOWN },
	{ 'h', "h", A_LEFT }, { 'l', "l", A_RIGHT },
	{ TK_SLEFT, "shift-←", A_PAGE_LEFT }, { 'H', "H", A_PAGE_LEFT },
	{ TK_SRIGHT, "shift-→", A_PAGE_RIGHT }, { 'L', "L", A_PAGE_RIGHT },
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
	{ '.', ".", A_STEP_NEXT }, { ',', ",", A_STEP_PREV }, { '$', "$", A_STEP_LAST },
	{ '<', "<", A_SNAP_PREV }, { '>', ">", A_SNAP_NEXT },
	{ 'b', "b", A_BEAM_TOGGLE }, { '+', "+", A_BEAM_MORE }, { '=', "=", A_BEAM_MORE },
	{ '-', "-", A_BEAM_LESS }, { ')', ")", A_ALPHA_UP }, { '(', "(", A_ALPHA_DOWN },
	{ 'T', "T", A_SAMPLE }, { '#', "#", A_RESEED }, { '*', "*", A_TOPK },
	{ 'y', "y", A_LENS }, { 'I', "I", A_IMPORTANCE },
	{ 'w', "w", A_EXPLAIN }, { 'P', "P", A_PRESENTER }, { 'S', "S", A_SCHEME }, { 's', "s", A_SVG },
	{ 'X', "X", A_CROSS }, { 'C', "C", A_COMPARE }, { 'f', "f", A_FORCE }, { 'F', "F", A_UNFORCE },
	{ 'z', "z", A_ZOOM }, { 'J', "J", A_JUMP }, { 'Z', "Z", A_POOL }, { 'v', "v", A_LINES }, { 'V', "V", A_MODEL },
	{ 'o', "o", A_MAP }, { 'u', "u", A_MAP_SIDE },
	{ '1', "1–9", A_HEAD_SHOW }, { '2', NULL, A_HEAD_SHOW }, { '3', NULL, A_HEAD_SHOW },
	{ '4', NULL, A_HEAD_SHOW }, { '5', NULL, A_HEAD_SHOW }, { '6', NULL, A_HEAD_SHOW },
	{ '7', NULL, A_HEAD_SHOW }, { '8', NULL, A_HEAD_SHOW }, { '9', NULL, A_HEAD_SHOW },
	{ '0', "0", A_HEAD_SHOW }, { '?', "?", A_HELP }, { TK_F1, "F1", A_HELP },
	{ TK_ESC, "Esc", A_ESCAPE }, { 'q', "q", A_QUIT },
};

/* Help lines made from KEYS: the keys of each action, in table order. */
static struct key_help help_lines[A_COUNT];
static char help_keys[A_COUNT][48];

int keys_build_help(const struct key_help **lines)
{
	*lines = help_lines;
	int n = 0;
	for (int act = 0; act < A_COUNT; act++) {
		help_keys[n][0] = 0;
		for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
			if ((int)KEYS[i].act != act || !KEYS[i].name)
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

static int is_attention_stage(const struct stage *s)
{
	return strstr(s->name, "_attn.") != NULL;
}

static void toggle_flag(struct app *a, int flag, int need_attention,
			const char *why)
{
	const struct stage *s = app_stage(a);
	if (!(a->scr.v.flags & flag) && need_attention &&
	    !(s->kind == SK_SCORES || s->kind == SK_WEIGHTS)) {
		app_msg(a, 0, "%s", why);
		return;
	}
	a->scr.v.flags ^= flag;
}

static void ablate(struct app *a)
{
	const struct stage *s = app_stage(a);
	struct pass_opts *o = &a->opts;
	if (o->ablate_head >= 0) {
		o->ablate_head = -1;
		app_recompute(a, a->sentence, a->target);
		app_msg(a, 0, _("head restored"));
		return;
	}
	if (!is_attention_stage(s)) {
		app_msg(a, 0, _("select an attention stage to ablate one of its heads"));
		return;
	}
	o->ablate_block = s->block;
	o->ablate_layer = s->layer;
	o->ablate_attn = strstr(s->name, "cross_attn") != NULL;
	o->ablate_head = a->scr.v.head;
	app_recompute(a, a->sentence, a->target);
	/* (the encoder has self-attention only) */
	app_msg(a, 0, s->block == BLK_ENCODER ?
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
		app_msg(a, 0, _("an encoder-only model has no decoder: no target to edit"));
		return;
	}
	a->editing = which;
	a->edit_dirty = a->edit_bad = 0;
	a->edit_hint[0] = 0;
	lineedit_set(&a->edit, which == 1 ? a->sentence : which == 2 ? a->target : a->jump);
}

/* J: the cursor to the next position (after the cursor's, wrapping) of
 * the token typed, on the rows and, for a self-attention, the columns. */
static void jump_to(struct app *a, const char *text)
{
	struct view_state *v = &a->scr.v;
	const struct stage *s = app_stage(a);
	app_set_text(&a->jump, text);
	int n = 0, at = view_find_token(v, text, v->row, &n);
	if (at < 0) {
		app_msg(a, 1, _("no token “%s” on the rows of %s"), text, s->name);
		return;
	}
	v->row = at;
	if (s->ndim >= 2 && s->axes[s->ndim - 1] == s->axes[s->ndim == 3 ? 1 : 0])
		v->col = at;
	view_clamp(v);
	app_msg(a, 0, P_("“%s” at position %d (%d place)", "“%s” at position %d (%d places)", n),
		text, at, n);
}

static void edit_key(struct app *a, int key, const char *utf8)
{
	if (key == TK_TAB) {
		/* the sentence is the source unless the model has no encoder */
		const struct vocab *voc = a->editing == 1 && a->m->cfg.arch != ARCH_DEC_ONLY ?
					  &a->m->src_vocab : &a->m->tgt_vocab;
		complete_word(&a->edit, voc, a->m->cfg.tok.lowercase, a->edit_hint,
			      sizeof a->edit_hint);
		a->edit_dirty = 1;
		return;
	}
	switch (lineedit_key(&a->edit, key, utf8)) {
	case LE_CANCEL:
		a->editing = 0;
		break;
	case LE_ACCEPT: {
		int which = a->editing, rc;
		a->editing = 0;
		a->scr.message = NULL;
		if (which == 3) {
			jump_to(a, a->edit.text);
			break;
		}
		if (which == 1)
			rc = app_recompute(a, a->edit.text, a->target);
		else
			rc = app_recompute(a, a->sentence, a->edit.text);
		if (rc)
			a->editing = which;   /* too long...: the message says; fix it */
		break;
	}
	case LE_FULL:
		app_msg(a, 1, _("the text cannot grow: out of memory, or past %zu MiB"),
			(size_t)(LINEEDIT_MAX >> 20));
		break;
	case LE_NONE:
		a->edit_dirty = 1;
		break;
	}
}

/* A key between the brackets of a paste: text, never a command.  In the
 * editor a pasted line break or tab is a space (the text is one line);
 * outside it the paste is dropped with a word on how to paste. */
static void paste_key(struct app *a, int key, const char *utf8)
{
	if (!a->editing)
		return;
	if (key == TK_ENTER || key == TK_TAB)
		edit_key(a, 0, " ");
	else if (utf8 && *utf8)
		edit_key(a, 0, utf8);
}

void app_edit_check(struct app *a)
{
	if (!a->editing || !a->edit_dirty || a->editing == 3)
		return;
	a->edit_dirty = 0;
	struct pass_input in;
	struct err e;
	const char *s = a->editing == 1 ? a->edit.text : a->sentence;
	const char *t = a->editing == 2 ? a->edit.text : a->target;
	if (input_build(a->m, s, *t ? t : NULL, &a->opts, &in, &e) == 0) {
		input_free(&in);
		if (a->edit_bad)   /* fixed: the message goes */
			a->scr.message = NULL;
		a->edit_bad = 0;
	} else {
		/* too many tokens for max_len...: said now, not only at Enter */
		app_msg(a, 1, "%s", e.msg);
		a->edit_bad = 1;
	}
}

static void mouse_click(struct app *a)
{
	int x, y;
	term_mouse(&x, &y);
	/* a box of the architecture map (the view or the sidebar's) */
	for (int i = 0; i < a->scr.v.nmap_hits; i++) {
		struct rect h = a->scr.v.map_hits[i].r;
		if (x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + h.h) {
			app_go_stage(a, a->scr.v.map_hits[i].stage);
			return;
		}
	}
	int st = screen_stage_at(&a->scr, x, y);
	if (st >= 0) {
		app_go_stage(a, st);
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

/* The zoom levels in enum zoom order, for the message of z. */
static const char *const ZOOM_NAMES[ZOOM_COUNT] = {
	/* TRANSLATORS: zoom levels (z key), shown as "zoom: %s" and listed in
	   the help line "zoom: auto / numbers / cells / fit / big" */
	N_("auto"), N_("numbers"), N_("cells"), N_("fit"), N_("big"), N_("overview")
};

/* In the model view ↑↓ choose the layer and h l the head.  Returns
 * whether act was taken so. */
static int model_view_key(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (!(v->flags & VF_MODEL) || view_for(v) != &modelview_view)
		return 0;
	const struct stage *w = view_attn_weights(a->tr, app_stage(a));
	int H = w ? w->shape[0] : 1;
	switch (act) {
	case A_UP: app_go_layer(a, -1); return 1;
	case A_DOWN: app_go_layer(a, 1); return 1;
	case A_LEFT: v->head = (v->head + H - 1) % H; return 1;
	case A_RIGHT: v->head = (v->head + 1) % H; return 1;
	default: return 0;
	}
}

/* The key being handled (the digits of A_HEAD_SHOW tell their head). */
static int cur_key;

/* 1…9 hide or show head 0…8 of the head view, 0 shows every head. */
static void head_show(struct app *a)
{
	struct view_state *v = &a->scr.v;
	if (!(v->flags & VF_LINES)) {
		app_msg(a, 0, "%s", _("digits show and hide heads in the head view (v)"));
		return;
	}
	if (cur_key == '0') {
		v->heads_off = 0;
		return;
	}
	int h = cur_key - '1';
	const struct stage *w = view_attn_weights(a->tr, app_stage(a));
	if (!w || h >= w->shape[0]) {
		app_msg(a, 0, _("this attention has no head %d"), h);
		return;
	}
	v->heads_off ^= 1ull << h;
}

static void do_action(struct app *a, enum action act)
{
	struct view_state *v = &a->scr.v;
	if (a->lec && (act == A_NEXT || act == A_PREV)) {
		/* a lecture: the space bar plays the script */
		app_lecture_advance(a, act == A_NEXT ? 1 : -1);
		return;
	}
	/* keys that move between stages bring the stage list back (a
	 * lecture below 120 columns shows a breadcrumb instead) */
	if (act == A_FIRST || act == A_LAST || act == A_ENCODER || act == A_DECODER ||
	    act == A_OUTPUT || act == A_LAYER_NEXT || act == A_LAYER_PREV || act == A_CROSS)
		a->scr.show_stages = 1;
	if (app_decoding_page_key(a, act))
		return;
	if (model_view_key(a, act))
		return;
	switch (act) {
	case A_NEXT: app_go_stage(a, v->stage + 1); break;
	case A_PREV: app_go_stage(a, v->stage - 1); break;
	case A_UP: v->row--; break;
	case A_DOWN: v->row++; break;
	case A_LEFT: v->col--; break;
	case A_RIGHT: v->col++; break;
	case A_PGUP: v->row -= 10; break;
	case A_PGDN: v->row += 10; break;
	case A_PAGE_LEFT: case A_PAGE_RIGHT: {
		/* a screenful of columns: the view and the cursor move together */
		int page = v->geom.valid && v->geom.nc > 0 ? v->geom.nc : 8;
		int d = act == A_PAGE_LEFT ? -page : page;
		v->col += d;
		v->left += d;
		if (v->left < 0)
			v->left = 0;
		break;
	}
	case A_HEAD_NEXT: v->head = (v->head + 1) % view_heads(app_stage(a)); break;
	case A_HEAD_PREV: v->head = (v->head + view_heads(app_stage(a)) - 1) % view_heads(app_stage(a)); break;
	case A_LAYER_NEXT: app_go_layer(a, 1); break;
	case A_LAYER_PREV: app_go_layer(a, -1); break;
	case A_FIRST: app_go_stage(a, 0); break;
	case A_LAST: app_go_stage(a, a->tr->n - 1); break;
	case A_ENCODER: app_go_block(a, BLK_ENCODER); break;
	case A_DECODER: app_go_block(a, BLK_DECODER); break;
	case A_OUTPUT: app_go_block(a, BLK_OUTPUT); break;
	case A_HEADS:
		if (view_heads(app_stage(a)) > 1)
			v->flags ^= VF_ALL_HEADS;
		else
			app_msg(a, 0, _("this stage has no heads to show side by side"));
		break;
	case A_MEAN:
		if (view_heads(app_stage(a)) > 1)
			v->flags ^= VF_MEAN_HEADS | (v->flags & VF_ALL_HEADS ? 0 : VF_ALL_HEADS);
		break;
	case A_OPEN: v->flags &= ~(VF_ALL_HEADS | VF_MEAN_HEADS | VF_MODEL | VF_MAP); break;
	case A_INSPECT:
		toggle_flag(a, VF_INSPECT, 1, _("the inspector works on attention scores and weights"));
		break;
	case A_DIFF:
		toggle_flag(a, VF_MASK_DIFF, 1, _("the mask diff works on attention scores and weights"));
		if (v->flags & VF_MASK_DIFF)
			app_recompute(a, a->sentence, a->target);
		else
			v->alt = NULL;
		break;
	case A_CURVES:
		if (strstr(app_stage(a)->name, ".pos")) {
			v->flags ^= VF_PE_CURVES;
			/* from the first column: the Annotated Transformer's
			 * dims 4–7 (h l pick others) */
			if ((v->flags & VF_PE_CURVES) && v->col == 0 && app_stage(a)->ndim == 2 &&
			    app_stage(a)->shape[1] >= 8)
				v->col = 4;
		} else if (strstr(app_stage(a)->name, "_rot")) {   /* the rotary picture */
			v->flags ^= VF_PE_CURVES;
		} else
			app_msg(a, 0, _("curves are for the positional encoding stages (src.pos, tgt.pos; "
					"q_rot, k_rot with rotary embeddings)"));
		break;
	case A_MASK_DEC:
		if (a->m->cfg.arch == ARCH_ENC_ONLY) {
			app_msg(a, 0, _("an encoder-only model has no decoder mask (M: encoder mask)"));
			break;
		}
		a->opts.causal = !a->opts.causal;
		app_recompute(a, a->sentence, a->target);
		app_msg(a, 0, a->opts.causal ? _("decoder causal mask ON: a token sees only the past") :
			_("decoder causal mask OFF: every decoder token sees the future"));
		break;
	case A_MASK_ENC:
		if (a->m->cfg.arch == ARCH_DEC_ONLY) {
			app_msg(a, 0, _("a decoder-only model has no encoder"));
			break;
		}
		a->opts.encoder_causal = !a->opts.encoder_causal;
		app_recompute(a, a->sentence, a->target);
		app_msg(a, 0, a->opts.encoder_causal ? _("encoder causal mask ON") :
			_("encoder causal mask OFF"));
		break;
	case A_ABLATE: ablate(a); break;
	case A_EDIT: edit_open(a, 1); break;
	case A_JUMP: edit_open(a, 3); break;
	case A_POOL:
		v->flags ^= VF_POOL_MEAN;
		app_msg(a, 0, (v->flags & VF_POOL_MEAN) ? _("overviews: the mean of each block") :
			_("overviews: the max of each block"));
		break;
	case A_EDIT_TARGET: edit_open(a, 2); break;
	case A_SNAP_PREV: app_snapshot_step(a, -1); break;
	case A_SNAP_NEXT: app_snapshot_step(a, 1); break;
	case A_ZOOM:
		v->zoom = (v->zoom + 1) % ZOOM_COUNT;
		app_msg(a, 0, _("zoom: %s"), _(ZOOM_NAMES[v->zoom]));
		break;
	case A_DECODE:
		if (a->decoding && (v->flags & VF_DECODE))
			v->flags &= ~(VF_DECODE | VF_COMPARE);
		else
			app_decode_start(a);
		break;
	case A_DECODE_OFF: app_decode_stop(a); break;
	case A_STEP_NEXT: case A_STEP_PREV: case A_STEP_LAST: case A_BEAM_TOGGLE:
	case A_BEAM_MORE: case A_BEAM_LESS: case A_ALPHA_UP: case A_ALPHA_DOWN:
	case A_COMPARE: case A_FORCE: case A_UNFORCE: case A_SAMPLE: case A_RESEED: case A_TOPK:
		app_decode_action(a, act);
		break;
	case A_CROSS: {
		char name[STAGE_NAME_MAX];
		snprintf(name, sizeof name, "decoder.%d.cross_attn.weights",
			 a->m->cfg.dec_layers - 1);
		int i = trace_index(a->tr, name);
		if (i < 0) {
			app_msg(a, 0, _("this model has no cross-attention"));
			break;
		}
		v->flags &= ~(VF_DECODE | VF_COMPARE);
		app_go_stage(a, i);
		/* the newest decoder token (the last row that is not padding) */
		v->row = a->tr->T - 1;
		while (v->row > 0 && !strcmp(a->tr->tgt_tokens[v->row], "<pad>"))
			v->row--;
		break;
	}
	case A_LENS: app_inside_toggle(a, VF_LENS); break;
	case A_IMPORTANCE: app_inside_toggle(a, VF_IMPORTANCE); break;
	case A_EXPLAIN: a->scr.show_explain = !a->scr.show_explain; break;
	case A_SCHEME: {
		enum scheme sch = (enum scheme)((palette_scheme() + 1) % SCHEME_COUNT);
		palette_set_scheme(sch);
		app_msg(a, 0, _("colours: %s"), palette_scheme_name(sch));
		break;
	}
	case A_SVG: app_save_svg(a); break;
	case A_PRESENTER:
		a->scr.presenter = !a->scr.presenter;
		v->zoom = a->scr.presenter ? ZOOM_BIG : ZOOM_AUTO;
		break;
	case A_COUNT: break;
	case A_LINES:
		if (!(v->flags & VF_LINES) && !view_attn_weights(a->tr, app_stage(a)))
			app_msg(a, 0, "%s", _("the head view works on the stages of an attention"));
		else
			v->flags ^= VF_LINES;
		break;
	case A_HEAD_SHOW: head_show(a); break;
	case A_MAP: v->flags ^= VF_MAP; break;
	case A_MAP_SIDE:
		v->flags ^= VF_MAP_SIDE;
		if ((v->flags & VF_MAP_SIDE) && a->scr.sidebar.w == 0)
			app_msg(a, 0, "%s", _("the small map shows in the stage list, from 80 columns on"));
		break;
	case A_MODEL:
		if (!(v->flags & VF_MODEL) && (!view_attn_weights(a->tr, app_stage(a)) ||
					       app_stage(a)->layer < 0))
			app_msg(a, 0, "%s", _("the model view works on the stages of an attention"));
		else
			v->flags ^= VF_MODEL;
		break;
	case A_HELP:
		a->scr.show_help = !a->scr.show_help;
		a->scr.help_top = 0;
		break;
	case A_ESCAPE:
		a->scr.show_help = 0;
		v->flags &= ~(VF_INSPECT | VF_MASK_DIFF | VF_ALL_HEADS | VF_MEAN_HEADS |
			      VF_PE_CURVES | VF_DECODE | VF_COMPARE | VF_LINES | VF_MODEL |
			      VF_MAP | VF_LENS | VF_IMPORTANCE);
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

void app_on_key(struct app *a, int key, const char *utf8)
{
	if (key == TK_RESIZE)
		return;
	if (key == TK_PASTE_BEGIN || key == TK_PASTE_END) {
		a->pasting = key == TK_PASTE_BEGIN;
		if (a->pasting && !a->editing)
			app_msg(a, 0, _("a paste is text, not keys: press e (the sentence) or t "
					"(the target), then paste"));
		return;
	}
	if (a->pasting) {
		paste_key(a, key, utf8);
		return;
	}
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
	cur_key = key;
	do_action(a, act);
	view_clamp(&a->scr.v);
}

