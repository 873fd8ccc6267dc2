/* steppertest.h - the stepper driven in process, for key-flow tests.
 *
 * stp_open loads a model and a sentence as `attnscope --model MODEL
 * SENTENCE` would (app_open), without a terminal; st_keys feeds keys
 * through app_key, as the loop does; st_screen draws the whole screen at
 * a size into a canvas and returns it as plain text (no colour), so that
 * a test compares what a user would see.  Messages are in English (no
 * catalog is bound). */
#ifndef ATTNSCOPE_STEPPERTEST_H
#define ATTNSCOPE_STEPPERTEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "common/options.h"
#include "tui/app.h"
#include "tui/term.h"
#include "views/canvas.h"

/* Ctrl-U in the line editor */
#define ST_CTRL_U 21

static char st_text[1 << 16];

static inline const char *st_srcdir(void)
{
	const char *d = getenv("top_srcdir");
	return d && *d ? d : ".";
}

/* Opens the stepper on models/NAME.yaml (a path with a '/': relative to
 * top_srcdir) and the sentence (NULL: the model's first example), with
 * the options in extra (apart by tabs; NULL: none).  Returns 0 or -1. */
static inline int stp_open(struct app *a, struct cli *c, const char *model,
			  const char *sentence, const char *extra)
{
	static char path[4096];
	if (strchr(model, '/'))
		snprintf(path, sizeof path, "%s/%s", st_srcdir(), model);
	else
		snprintf(path, sizeof path, "%s/models/%s.yaml", st_srcdir(), model);
	static char args[1024];
	char *argv[24];
	int argc = 0;
	argv[argc++] = (char *)"attnscope";
	argv[argc++] = (char *)"--model";
	argv[argc++] = path;
	/* extra: options apart by tabs ("--seed\t4\t--target\tseu gato") */
	snprintf(args, sizeof args, "%s", extra ? extra : "");
	for (char *p = extra ? strtok(args, "\t") : NULL; p && argc < 20; p = strtok(NULL, "\t"))
		argv[argc++] = p;
	if (sentence)
		argv[argc++] = (char *)sentence;
	argv[argc] = NULL;
	if (cli_parse(c, "", argc, argv))
		return -1;
	return app_open(a, c) ? -1 : 0;
}

static inline void stp_close(struct app *a, struct cli *c)
{
	app_close(a);
	cli_free(c);
}

/* One key (a TK_ code, or a printable ASCII character). */
static inline unsigned st_key(struct app *a, int key)
{
	char u[2] = { key > 0 && key < 127 ? (char)key : 0, 0 };
	unsigned r = app_key(a, key, u);
	app_edit_check(a);
	return r;
}

/* Typed text, character by character (UTF-8 sequences as key 0). */
static inline void st_type(struct app *a, const char *s)
{
	while (*s) {
		int len = 1;
		unsigned char b = (unsigned char)*s;
		if (b >= 0xF0) len = 4; else if (b >= 0xE0) len = 3; else if (b >= 0xC0) len = 2;
		char u[8];
		snprintf(u, sizeof u, "%.*s", len, s);
		app_key(a, b < 0x80 ? b : 0, u);
		s += len;
		app_edit_check(a);
	}
}

/* Keys as a string: each character a key (see st_key). */
static inline void st_keys(struct app *a, const char *keys)
{
	for (const char *k = keys; *k; k++)
		st_key(a, (unsigned char)*k);
}

/* Types a new sentence as a student does: e, the text, Enter. */
static inline void st_sentence(struct app *a, const char *s)
{
	st_key(a, 'e');
	st_type(a, s);
	st_key(a, TK_ENTER);
}

/* The screen at w × h as text (static buffer, lines joined by \n). */
static inline const char *st_screen(struct app *a, int w, int h)
{
	struct canvas *c = canvas_new(w, h, DEPTH_NONE);
	if (!c)
		return "";
	app_draw(a, c);
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	canvas_write_text(c, fp);
	fclose(fp);
	snprintf(st_text, sizeof st_text, "%s", buf ? buf : "");
	free(buf);
	canvas_free(c);
	return st_text;
}

/* Line y of a screen from st_screen (static buffer). */
static inline const char *st_line(const char *screen, int y)
{
	static char line[4096];
	const char *p = screen;
	for (int i = 0; i < y && p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p)
		return "";
	const char *e = strchr(p, '\n');
	size_t n = e ? (size_t)(e - p) : strlen(p);
	snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
	return line;
}

/* Prints a screen as TAP diagnostics. */
static inline void st_dump(const char *screen)
{
	const char *p = screen;
	while (*p) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);
		printf("#   |%.*s\n", n, p);
		if (!e)
			break;
		p = e + 1;
	}
}

/* Checks that screen contains want; prints the screen when not. */
static inline int st_has(const char *screen, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int st_has(const char *screen, const char *want, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	int ok = strstr(screen, want) != NULL;
	tap_ok(ok, "%s", what);
	if (!ok) {
		printf("# wanted: %s\n", want);
		st_dump(screen);
	}
	return ok;
}

#endif
