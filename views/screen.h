/* screen.h - the stepper's layout: header, stage list, main view, status.
 *
 *   ┌ header: model · sentence · target · masks ────────────────────┐
 *   │ stage list │ main view (chosen by view_for)                    │
 *   │ (sidebar)  │                                                   │
 *   ├ status: stage name · formula · shape · value under the cursor ┤
 *   └ hints / message / line editor ────────────────────────────────┘
 *
 * The screen only reads: the TUI loop owns the state and fills this. */
#ifndef ATTNSCOPE_SCREEN_H
#define ATTNSCOPE_SCREEN_H

#include "canvas.h"
#include "view.h"

#define SCREEN_MIN_W 60
#define SCREEN_MIN_H 18
/* In a lecture the stage list shows from this width on (below it, a
 * one-line breadcrumb, unless show_stages). */
#define SCREEN_LECTURE_SIDEBAR_W 120

struct key_help {
	const char *keys;      /* "→ n space" */
	const char *what;      /* "next stage" */
};

struct screen {
	struct view_state v;
	const char *model_name;
	const char *sentence, *target;
	int target_is_own;             /* target is the model's translation */
	const char *caveats;           /* "  ⚠ transformers: new word · …": what
	                                  the model cannot know, or NULL */
	const char *caveats_short;     /*   "  ⚠ transformers?" where that is
	                                  too long, or NULL */
	const char *message;           /* one line for the user, or NULL */
	int message_is_error;
	const char *edit_prompt;       /* line editor open: prompt, text, */
	const char *edit_text;         /*   and the cursor's byte offset */
	int edit_cursor;
	int edit_selected;             /*   the whole text selected (typing
	                                    replaces it) */
	const char *edit_hint;         /*   and Tab's completions, or NULL */
	int show_help;
	int help_top;                  /* first key shown when the help scrolls */
	int show_explain;              /* the "what this stage does" panel */
	int presenter;                 /* projector: no stage list, big cells */
	int hide_stages;               /* the stage list hidden (| key): the
	                                  view takes the width */
	const char *caption;           /* lecture: the step's caption, or NULL */
	char caption_title[160];       /*   "step 3 of 12 · title" */
	int caption_page;              /*   the page shown when it does not fit */
	int lecture;                   /* a lecture plays: below 120 columns the
	                                  stage list gives way to a breadcrumb */
	int show_stages;               /*   unless a key that needs it was used */
	int show_training;             /* the header says the training step (a
	                                  snapshot is on screen, or < > were used) */
	const struct key_help *keys;
	int nkeys;
	/* set by screen_draw, for mouse clicks */
	struct rect sidebar;
	int sidebar_first;             /* stage index of the sidebar's first line */
	int sidebar_map[256];          /* stage index per sidebar line (−1: heading) */
	int caption_pages;             /* pages the caption took (1: it fits) */
};

/* Draws everything.  Below SCREEN_MIN_W × SCREEN_MIN_H it draws only a
 * "terminal too small" notice. */
void screen_draw(struct screen *s, struct canvas *c);

/* The status line for a width: stage name, formula, shape, then the cell
 * under the cursor and its value; the value is never cut (the rest is
 * shortened with "…" or dropped first). */
void screen_status_line(const struct view_state *v, int width, char *out,
			size_t n);

/* The stage at a sidebar line, or −1. */
int screen_stage_at(const struct screen *s, int x, int y);

#endif
