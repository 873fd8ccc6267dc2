/* shot.c - `attnscope render --view stepper`: the stepper's whole screen,
 * drawn headless after a few keys, as text, ANSI or SVG.
 *
 * The state is set up as the stepper sets it up (tui_run: the model, its
 * first example or the sentence given, the target), the keys go through
 * the same key handler one by one, and the frame is the same app_draw into
 * a canvas of --width × --height; no terminal is opened.  The README's
 * pictures (doc/pictures/, `make pictures`) are drawn so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "tui.h"
#include "common/options.h"
#include "engine/model.h"
#include "views/canvas.h"
#include "views/palette.h"

/* The keys of --keys: each byte one key, as typed (no arrows or Enter:
 * n, p, h, j, k, l, Tab's ] and [ stand for them in the key table). */
static void feed_keys(struct app *a, const char *keys)
{
	for (const char *k = keys; *k && !a->quit; k++) {
		char utf8[8] = { *k, 0 };
		app_on_key(a, (unsigned char)*k, utf8);
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
	memset(&a, 0, sizeof a);
	a.scr.v.zoom = ZOOM_AUTO;
	a.opts = c->pass;
	a.beam_w = 4;
	a.alpha = c->alpha;
	a.force_step[0] = a.force_step[1] = a.force_step[2] = -1;
	sample_opts_default(&a.so);
	if (!(a.m = cli_load_model(c)))
		return 1;
	const char *sentence = c->sentence ? c->sentence :
			       a.m->cfg.nexamples ? a.m->cfg.examples[0] : NULL;
	int status = 1;
	if (!sentence) {
		cli_fail("%s: no sentence given and the model has no examples", c->model);
		goto out;
	}
	if (strlen(sentence) >= EDIT_MAX || (c->target && strlen(c->target) >= EDIT_MAX)) {
		cli_fail("the sentence is limited to %d bytes", EDIT_MAX - 1);
		goto out;
	}
	snprintf(a.sentence, sizeof a.sentence, "%s", sentence);
	snprintf(a.target, sizeof a.target, "%s", c->target ? c->target : "");
	if (app_recompute(&a, a.sentence, a.target)) {
		cli_fail("%s", a.msg + 1);
		goto release;
	}
	a.scr.v.m = a.m;
	a.scr.nkeys = keys_build_help(&a.scr.keys);
	feed_keys(&a, c->keys ? c->keys : "");
	struct canvas *cv = canvas_new(w, h, d);
	if (!cv) {
		cli_fail("out of memory");
		goto release;
	}
	app_draw(&a, cv);
	if (d == DEPTH_NONE)
		canvas_write_text(cv, stdout);
	else if (!strcmp(fmt, "svg"))
		canvas_write_svg(cv, stdout);
	else
		canvas_write_ansi(cv, stdout);
	canvas_free(cv);
	status = 0;
release:
	app_release(&a);
out:
	app_snapshot_reset(&a);
	model_free(a.m);
	return status;
}
