/* fuzz_lineedit.c - libFuzzer target: the stepper's line editor, and the
 * screen that shows it.
 *
 * The input is a stream of events.  A byte below 0x20 is a key from a
 * table (arrows, Home/End, Backspace, Delete, Enter, Esc, Ctrl-A/E/U, keys
 * the editor ignores), or one of: 0x1C the canvas size for the next draw (next two bytes:
 * width, height), 0x1D draw the screen, 0x1E choose the stage on screen
 * and view mode (next two bytes), 0x1F insert the next 1..7 raw bytes as
 * one piece of "typed" text (invalid UTF-8 welcome).  Any other byte
 * starts typed text: it and the continuation bytes its lead byte implies.
 * After every key: the text is NUL-terminated and shorter than
 * LINEEDIT_MAX - 1 bytes and the cursor is within it.  The screen is drawn
 * with the editor open (the tiny model's pass) at the end, and on 0x1D and
 * Enter/Esc once more an input (drawing is most of the cost). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/forward.h"
#include "engine/input.h"
#include "engine/model.h"
#include "tui/lineedit.h"
#include "tui/term.h"
#include "views/screen.h"

static struct model *m;
static struct trace *tr;
static struct canvas *cv;   /* one for the run: each input starts at 80 × 24, blank */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err e;
	struct pass_opts o;
	struct pass_input in;
	pass_opts_default(&o);
	if (!(m = model_load(ATTNSCOPE_SRCDIR "/tests/data/tiny.yaml", &e)) ||
	    input_build(m, "your cat is a lovely cat", "seu gato", &o, &in, &e) ||
	    !(tr = forward_run(m, &in, &o, NULL, &e))) {
		fprintf(stderr, "fuzz_lineedit: %s\n", e.msg);
		abort();
	}
	input_free(&in);
	if (!(cv = canvas_new(80, 24, DEPTH_256)))
		abort();
	return 0;
}

static const int KEYS[28] = {
	TK_LEFT, TK_RIGHT, TK_HOME, TK_END, TK_BACKSPACE, TK_DELETE, TK_ENTER,
	TK_ESC, 1, 5, 21, TK_UP, TK_DOWN, TK_PGUP, TK_PGDN, TK_TAB, TK_BTAB,
	TK_MOUSE, TK_RESIZE, TK_F1, TK_SLEFT, TK_SRIGHT, TK_NONE, 0, 2, 8, 27, 127,
};

static void check(const struct lineedit *le)
{
	size_t n = strnlen(le->text, sizeof le->text);
	if (n >= LINEEDIT_MAX - 1 || le->cur < 0 || (size_t)le->cur > n) {
		fprintf(stderr, "line editor broken: %zu bytes, cursor %d\n", n, le->cur);
		abort();
	}
}

static void draw(struct screen *s, const struct lineedit *le, int editing,
		 struct canvas *c, int w, int h)
{
	if (w != c->w || h != c->h)
		canvas_resize(c, w, h);
	static const struct key_help help[] = { { "q", "quit" } };
	s->v.tr = tr;
	s->v.m = m;
	s->model_name = m->cfg.name;
	s->sentence = le->text;   /* the header shows the text too */
	s->target = NULL;
	s->edit_prompt = editing ? " sentence: " : NULL;
	s->edit_text = le->text;
	s->edit_cursor = le->cur;
	s->keys = help;
	s->nkeys = 1;
	view_clamp(&s->v);
	screen_draw(s, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lineedit le;
	struct screen s;
	int editing = 1, draws = 0, want_w = 80, want_h = 24;
	if (canvas_resize(cv, 80, 24))
		abort();
	memset(&s, 0, sizeof s);
	lineedit_set(&le, "your cat is a lovely cat");
	for (size_t i = 0; i < size;) {
		unsigned b = data[i++];
		char utf8[8] = "";
		int key;
		if (b == 0x1C && i + 2 <= size) {
			/* the size counts at the next draw: resizing clears the
			   whole canvas, so a run of resizes costs one */
			want_w = data[i];
			want_h = data[i + 1] % 128;
			i += 2;
			continue;
		}
		if (b == 0x1D) {   /* a few draws an input keep the fuzzer fast */
			if (draws++ < 1)
				draw(&s, &le, editing, cv, want_w, want_h);
			continue;
		}
		if (b == 0x1E && i + 2 <= size) {
			s.v.stage = data[i] % tr->n;
			/* the modes a stage's own data draws (no decoding, lens or
			 * importance here) */
			s.v.mode = (enum view_mode)(data[i + 1] % (VM_CURVES + 1));
			s.v.zoom = (enum zoom)(data[i + 1] % ZOOM_COUNT);
			i += 2;
			continue;
		}
		if (b == 0x1F && i < size) {
			size_t n = data[i++] % 7 + 1;
			n = n < size - i ? n : size - i;
			memcpy(utf8, data + i, n);
			i += n;
			key = 0;
		} else if (b < 0x1C) {
			key = KEYS[b];
		} else {
			size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
			utf8[0] = (char)b;
			for (size_t k = 1; k < n && i < size; k++)
				utf8[k] = (char)data[i++];
			key = b < 0x80 ? (int)b : 0;
		}
		switch (lineedit_key(&le, key, utf8)) {
		case LE_ACCEPT:
		case LE_CANCEL:
			/* the stepper closes the editor; the next edit reopens it */
			editing = 0;
			if (draws++ < 1)
				draw(&s, &le, editing, cv, want_w, want_h);
			lineedit_set(&le, le.text);
			editing = 1;
			break;
		default:
			break;
		}
		check(&le);
	}
	draw(&s, &le, editing, cv, want_w, want_h);
	return 0;
}
