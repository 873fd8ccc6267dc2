/* shot.c - `attnscope render --view stepper`: the stepper's whole screen,
 * drawn headless after a few keys, as text, ANSI or SVG.
 *
 * The state is opened as the stepper opens it (app_open: the model, its
 * first example or the sentence given, the target), the keys go through
 * the same key handler (app_key) one by one, and the frame is the same
 * app_draw into a canvas of --width × --height; no terminal is opened.
 * The README's pictures (doc/pictures/, `make pictures`) are drawn so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "tui.h"
#include "common/options.h"
#include "views/canvas.h"

/* The keys of --keys: each byte one key, as typed (no arrows or Enter:
 * n, p, h, j, k, l and ] [ stand for them in the key table). */
static void feed_keys(struct app *a, const char *keys)
{
	for (const char *k = keys; *k; k++) {
		char utf8[8] = { *k, 0 };
		if (app_key(a, (unsigned char)*k, utf8) & RE_QUIT)
			break;
	}
}

int tui_screen(struct cli *c)
{
	const char *fmt = c->format ? c->format : "text";
	enum depth d;
	if (!strcmp(fmt, "svg") || !strcmp(fmt, "ansi"))
		d = DEPTH_TRUE;
	else if (!strcmp(fmt, "text"))
		d = DEPTH_NONE;
	else
		return cli_fail("--view stepper draws a screen: --format text, ansi or svg, "
				"not \"%s\"", fmt);
	int w = c->width ? c->width : 120, h = c->height ? c->height : 36;
	if (w < SCREEN_MIN_W || h < SCREEN_MIN_H)
		return cli_fail("--view stepper needs at least %d × %d, not %d × %d",
				SCREEN_MIN_W, SCREEN_MIN_H, w, h);
	struct app a;
	if (app_open(&a, c))   /* as the stepper opens: model, sentence, pass */
		return 1;
	feed_keys(&a, c->keys ? c->keys : "");
	app_edit_check(&a);
	struct canvas *cv = canvas_new(w, h, d);
	int status = 1;
	if (!cv) {
		cli_fail("out of memory");
	} else {
		app_draw(&a, cv);
		if (d == DEPTH_NONE)
			canvas_write_text(cv, stdout);
		else if (!strcmp(fmt, "svg"))
			canvas_write_svg(cv, stdout);
		else
			canvas_write_ansi(cv, stdout);
		canvas_free(cv);
		status = 0;
	}
	app_close(&a);
	return status;
}
