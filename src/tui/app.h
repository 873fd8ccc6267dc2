/* app.h - the stepper's state and the parts that change it.
 *
 * The loop (app.c) owns the state: model, sentence, masks, trace, cursor.
 * Each key (keys.c) changes the state; a change of the model's input or
 * masks recomputes the pass (app.c), or the decoding (decoding.c) while
 * decoding; a lecture (player.c) sets the state of each step.  Then the
 * screen is drawn: screen_draw into a canvas, term_show to the terminal.
 * The screen and the views only read. */
#ifndef ATTNSCOPE_APP_H
#define ATTNSCOPE_APP_H

#include "lecture.h"
#include "lineedit.h"
#include "engine/decode.h"
#include "engine/forward.h"
#include "engine/importance.h"
#include "engine/lens.h"
#include "views/screen.h"

#define EDIT_MAX LINEEDIT_MAX

struct app {
	struct model *m;
	int churn;                   /* big buffers freed since the last trim */
	char sentence[EDIT_MAX], target[EDIT_MAX];
	/* no target given (encoder-decoder): the decoder is teacher-forced on
	 * the model's own greedy translation, own[0..nown) (own_text for the
	 * header); own_ok 0 when there is none (decoder-only, or it failed) */
	int32_t *own;
	int nown, own_ok;
	char own_text[EDIT_MAX];
	char own_for[EDIT_MAX];      /* the sentence it translates, */
	char caveats[512];           /* what the model cannot know of the
	                                sentence, for the header (caveats.h) */
	const struct model *own_m;   /*   with this model */
	struct pass_opts opts;
	struct trace *tr;            /* the pass on screen */
	struct trace *alt;           /* causal mask flipped, for the mask diff */
	struct screen scr;
	char msg[768];
	int editing;                 /* 0, or which text: 1 sentence, 2 target */
	struct lineedit edit;
	int edit_dirty;              /* edited since the length was checked */
	int edit_bad;                /* the check's message is on screen */
	int pasting;                 /* between the brackets of a paste */
	char edit_hint[512];         /* Tab's completions, shown while editing */
	int quit;
	/* decoding: the trace on screen is the pass of one decoding step */
	int decoding;
	struct decode_result dec[3];  /* greedy, beam, sampling */
	int which;                    /* the search shown: 0 greedy, 1 beam,
	                                 2 sampling */
	int beam_w;
	double alpha;
	struct sample_opts so;        /* sampling: temperature, top-k, top-p,
	                                 seed */
	int force_step[3], force_token[3], force_hyp[3];
	/* training time (training.c): a snapshot of snap_base on screen,
	 * owned here (a->m is it), or NULL: a->m is the model as loaded */
	struct model *snap, *snap_base;
	/* the logit lens and head importance of the pass on screen, computed
	 * again when pass_gen (one more each new pass) moves on */
	struct lens lens;
	struct importance imp;
	int pass_gen, lens_gen, imp_gen;
	/* lecture mode: the script and the step on screen */
	struct lecture *lec;
	int lstep;
	char caption[4096];           /* its caption, references filled in */
	int deck;                     /* 1 while --export writes the page */
	int play_ms;                  /* --play: advance every play_ms (0: off) */
	/* the PE curves' table (forward_pe_table) for pe_m, pe_want positions */
	float *pe_tab;
	int pe_n, pe_want;
	const struct model *pe_m;
};

enum action {
	A_NEXT, A_PREV, A_UP, A_DOWN, A_LEFT, A_RIGHT, A_PGUP, A_PGDN,
	A_PAGE_LEFT, A_PAGE_RIGHT,
	A_HEAD_NEXT, A_HEAD_PREV, A_LAYER_NEXT, A_LAYER_PREV,
	A_FIRST, A_LAST, A_ENCODER, A_DECODER, A_OUTPUT,
	A_HEADS, A_OPEN, A_INSPECT, A_DIFF, A_CURVES, A_MEAN,
	A_MASK_DEC, A_MASK_ENC, A_ABLATE, A_EDIT, A_EDIT_TARGET,
	A_DECODE, A_DECODE_OFF, A_STEP_NEXT, A_STEP_PREV, A_STEP_LAST,
	A_BEAM_TOGGLE, A_BEAM_MORE, A_BEAM_LESS, A_ALPHA_UP, A_ALPHA_DOWN,
	A_SAMPLE, A_RESEED, A_TOPK, A_LENS, A_IMPORTANCE,
	A_COMPARE, A_FORCE, A_UNFORCE, A_CROSS, A_EXPLAIN, A_SCHEME, A_SVG, A_PRESENTER,
	A_ZOOM, A_LINES, A_HEAD_SHOW, A_MODEL, A_MAP, A_MAP_SIDE, A_SNAP_PREV, A_SNAP_NEXT, A_HELP,
	A_ESCAPE, A_QUIT, A_COUNT
};

struct cli;

/* app.c: messages, recomputation, navigation, drawing, the key loop */
void app_msg(struct app *a, int is_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Recomputes the pass for sentence/target (copied into the state),
 * keeping the stage on screen by name; while decoding, the search runs
 * again.  Returns -1 (the reason in the message) when the input is bad. */
int app_recompute(struct app *a, const char *sentence, const char *target);
const struct stage *app_stage(const struct app *a);
void app_go_stage(struct app *a, int i);
void app_go_layer(struct app *a, int delta);
void app_go_block(struct app *a, enum block b);
void app_draw(struct app *a, struct canvas *c);
/* Points the view at the PE curves' table (forward_pe_table, kept in the
 * state) when it shows the curves; app_draw does it before each frame. */
void app_pe_curves(struct app *a);
/* Frees the passes, decodings and tables of the state (app_loop's end). */
void app_release(struct app *a);
void app_save_svg(struct app *a);
/* Opens the terminal and runs the key loop until q. */
int app_loop(struct app *a);

/* keys.c: the key table, the help made from it, what each key does */
int keys_build_help(const struct key_help **lines);
void app_on_key(struct app *a, int key, const char *utf8);
/* After a batch of keys: the text being edited against the model's
 * max_len, with a message when it is too long (Enter keeps the editor
 * open then). */
void app_edit_check(struct app *a);

/* decoding.c: greedy, beam search and sampling, the step on screen */
int app_decode_all(struct app *a, const char *sentence);
int app_step_pass(struct app *a);
void app_decode_start(struct app *a);
void app_decode_stop(struct app *a);
void app_decode_action(struct app *a, enum action act);
/* On the decoding page ↑↓ pick a candidate and [ ] a hypothesis; returns
 * whether act was taken so. */
int app_decoding_page_key(struct app *a, enum action act);

/* training.c: < and >, the model's training snapshots */
void app_snapshot_step(struct app *a, int delta);
/* Shows snapshot `step` of the model as loaded (-1: its trained weights);
 * the caller recomputes.  Returns -1 with the reason in the message. */
int app_snapshot_load(struct app *a, long step);
/* Back to the model as loaded, freeing the snapshot. */
void app_snapshot_reset(struct app *a);
/* inside.c: the logit lens (L) and head importance (I) of the pass on
 * screen: toggle one (flag VF_LENS or VF_IMPORTANCE), bring them up to date
 * before drawing, free them */
void app_inside_toggle(struct app *a, int flag);
void app_inside_sync(struct app *a);
void app_inside_free(struct app *a);

/* player.c: lecture mode */
void app_lecture_go(struct app *a, int i);
/* Space (dir 1) and ← (dir −1) in a lecture: the caption's next or previous
 * page while it has one, else the next or previous step. */
void app_lecture_advance(struct app *a, int dir);
/* --lecture FILE: checks the whole script first, then plays it (or
 * exports it with --export DIR). */
int app_lecture_run(struct app *a, struct cli *c);

/* export.c: --lecture FILE --export DIR writes DIR/index.html, the lecture
 * as one self-contained page: a figure (views/figure.c, SVG) and the
 * caption of each step, stepped with the arrow keys, in the language of
 * the messages.  Returns 0, or 1 after printing the error. */
int app_lecture_export(struct app *a, const char *dir);

#endif
