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
	[A_PRESENTER] = N_("presenter mode for projectors: each page spread over the screen, no stage list"),
	/* TRANSLATORS: the zoom levels, as the "zoom: %s" message names them */
	[A_ZOOM] = N_("zoom: auto / numbers / cells / fit / big / overview"),
	[A_JUMP] = N_("jump to a token: type it, Enter (again: its next place)"),
	[A_POOL] = N_("overviews of long matrices: the max or the mean of each block"),
	[A_LINES] = N_("head view: queries and keys joined by lines, all heads overlaid"),
	[A_HEAD_SHOW] = N_("head view: show/hide head 0–8 (0: show all)"),
	[A_MODEL] = N_("model view: every layer × head of this attention (Enter opens one)"),
	[A_MAP] = N_("architecture map (the paper's Figure 1): the stage lit, click a box to jump"),
	[A_MAP_SIDE] = N_("a small architecture map above the stage list on/off"),
	[A_STAGE_LIST] = N_("the stage list on/off: its width to the view (80 columns)"),
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
	{ 'o', "o", A_MAP }, { 'u', "u", A_MAP_SIDE }, { '|', "|", A_STAGE_LIST },
	{ '1', "1–9", A_HEAD_SHOW }, { '2', NULL, A_HEAD_SHOW }, { '3', NULL, A_HEAD_SHOW },
	{ '4', NULL, A_HEAD_SHOW }, { '5', NULL, A_HEAD_SHOW }, { '6', NULL, A_HEAD_SHOW },
	{ '7', NULL, A_HEAD_SHOW }, { '8', NULL, A_HEAD_SHOW }, { '9', NULL, A_HEAD_SHOW },
	{ '0', "0", A_HEAD_SHOW }, { '?', "?", A_HELP }, { TK_F1, "F1", A_HELP },
	{ TK_ESC, "Esc", A_ESCAPE }, { 'q', "q", A_QUIT },
};

/* Help lines made from KEYS: the keys of each action, in table order. */
int keys_build_help(struct app *a)
{
	_Static_assert(A_COUNT <= A_COUNT_MAX, "A_COUNT_MAX");
	int n = 0;
	for (int act = 0; act < A_COUNT; act++) {
		char *k = a->help_keys[n];
		k[0] = 0;
		for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
			if ((int)KEYS[i].act != act || !KEYS[i].name)
				continue;
			size_t l = strlen(k);
			snprintf(k + l, sizeof a->help_keys[n] - l, "%s%s", l ? " " : "", KEYS[i].name);
		}
		if (!k[0])
			continue;
		a->help[n].keys = k;
		a->help[n].what = _(ACTION_HELP[act]);
		n++;
	}
	a->scr.keys = a->help;
	a->scr.nkeys = n;
	return n;
}

/* ---- the line editor ---- */

void app_edit_open(struct app *a, int which)
{
	if (which == 2 && a->m->cfg.arch == ARCH_ENC_ONLY) {
		app_msg(a, 0, _("an encoder-only model has no decoder: no target to edit"));
		return;
	}
	a->ed.which = which;
	a->ed.dirty = a->ed.bad = 0;
	a->ed.hint[0] = 0;
	lineedit_set_selected(&a->ed.line, which == 1 ? a->sentence : which == 2 ? a->target :
			      a->jump);
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
		a->ed.line.selected = 0;
		/* the sentence is the source unless the model has no encoder */
		const struct vocab *voc = a->ed.which == 1 && a->m->cfg.arch != ARCH_DEC_ONLY ?
					  &a->m->src_vocab : &a->m->tgt_vocab;
		complete_word(&a->ed.line, voc, a->m->cfg.tok.lowercase, a->ed.hint,
			      sizeof a->ed.hint);
		a->ed.dirty = 1;
		return;
	}
	switch (lineedit_key(&a->ed.line, key, utf8)) {
	case LE_CANCEL:
		a->ed.which = 0;
		break;
	case LE_ACCEPT: {
		int which = a->ed.which, rc;
		a->ed.which = 0;
		a->scr.message = NULL;
		if (which == 3) {
			jump_to(a, a->ed.line.text);
			break;
		}
		/* a new text is a new decode session: from step 1, on the
		 * decoding page when it is open, else none */
		if (strcmp(a->ed.line.text, which == 1 ? a->sentence : a->target))
			app_decode_reset(a);
		if (which == 1)
			rc = app_recompute(a, a->ed.line.text, a->target);
		else
			rc = app_recompute(a, a->sentence, a->ed.line.text);
		if (rc)
			a->ed.which = which;   /* too long...: the message says; fix it */
		break;
	}
	case LE_FULL:
		app_msg(a, 1, _("the text cannot grow: out of memory, or past %zu MiB"),
			(size_t)(LINEEDIT_MAX >> 20));
		break;
	case LE_NONE:
		a->ed.dirty = 1;
		break;
	}
}

/* A key between the brackets of a paste: text, never a command.  In the
 * editor a pasted line break or tab is a space (the text is one line);
 * outside it the paste is dropped with a word on how to paste. */
static void paste_key(struct app *a, int key, const char *utf8)
{
	if (!a->ed.which)
		return;
	if (key == TK_ENTER || key == TK_TAB)
		edit_key(a, 0, " ");
	else if (utf8 && *utf8)
		edit_key(a, 0, utf8);
}

void app_edit_check(struct app *a)
{
	if (!a->ed.which || !a->ed.dirty || a->ed.which == 3)
		return;
	a->ed.dirty = 0;
	struct pass_input in;
	struct err e;
	const char *s = a->ed.which == 1 ? a->ed.line.text : a->sentence;
	const char *t = a->ed.which == 2 ? a->ed.line.text : a->target;
	if (input_build(a->m, s, *t ? t : NULL, &a->opts, &in, &e) == 0) {
		input_free(&in);
		if (a->ed.bad)   /* fixed: the message goes */
			a->scr.message = NULL;
		a->ed.bad = 0;
	} else {
		/* too many tokens for max_len...: said now, not only at Enter */
		app_msg(a, 1, "%s", e.msg);
		a->ed.bad = 1;
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
	int row = grid_row_at(g, y);   /* (tall rows: any of their lines) */
	if (col < g->nc && row >= 0 && row < g->nr) {
		a->scr.v.col = g->left + col;
		a->scr.v.row = g->top + row;
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

static unsigned on_key(struct app *a, int key, const char *utf8)
{
	if (key == TK_RESIZE)
		return RE_REDRAW;
	if (key == TK_PASTE_BEGIN || key == TK_PASTE_END) {
		a->ed.pasting = key == TK_PASTE_BEGIN;
		if (a->ed.pasting && !a->ed.which)
			app_msg(a, 0, _("a paste is text, not keys: press e (the sentence) or t "
					"(the target), then paste"));
		return RE_REDRAW;
	}
	if (a->ed.pasting) {
		paste_key(a, key, utf8);
		return RE_REDRAW;
	}
	if (a->ed.which) {
		edit_key(a, key, utf8);
		return RE_REDRAW;
	}
	a->scr.message = NULL;
	if (key == TK_MOUSE) {
		mouse_click(a);
		return RE_REDRAW;
	}
	enum action act = key_action(key);
	if (act == A_COUNT || (a->scr.show_help && help_scroll(a, act)))
		return RE_REDRAW;
	unsigned r = app_action(a, act, key);
	view_clamp(&a->scr.v);
	return r;
}

unsigned app_key(struct app *a, int key, const char *utf8)
{
	int gen = a->ins.pass_gen;
	unsigned r = on_key(a, key, utf8) | RE_REDRAW;
	return (r & ~RE_RECOMPUTE) | (a->ins.pass_gen != gen ? RE_PASS : 0) | (a->quit ? RE_QUIT : 0);
}
