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

#define OWN_TEXT_MAX 8192   /* the header's own translation (shown, cut) */
#define A_COUNT_MAX 80   /* at least A_COUNT (keys.c checks) */

/* The line editor of the sentence and the target (keys.c). */
struct app_edit {
	int which;                   /* 0, or which text: 1 sentence, 2 target,
	                                3 a token to jump to (J) */
	struct lineedit line;
	int dirty;                   /* edited since the length was checked */
	int bad;                     /* the check's message is on screen */
	int pasting;                 /* between the brackets of a paste */
	char hint[512];              /* Tab's completions, shown while editing */
};

/* The decode session (decoding.c): while on, the trace on screen is the
 * pass of one decoding step. */
struct app_decode {
	int on;
	int reopen;                  /* app_decode_reset closed the page: the
	                                next recompute opens it again */
	struct decode_result res[3]; /* greedy, beam, sampling */
	int which;                   /* the search shown: 0 greedy, 1 beam,
	                                2 sampling */
	int beam_w;
	double alpha;
	struct sample_opts so;       /* sampling: temperature, top-k, top-p,
	                                seed */
	int force_step[3], force_token[3], force_hyp[3];
};

/* No target given (encoder-decoder): the decoder is teacher-forced on the
 * model's own greedy translation, ids[0..n) (text for the header), under
 * the masks and ablation on screen; ok 0 when there is none (decoder-only,
 * or it failed).  Derived: made again when sentence, model or opts
 * change (app.c). */
struct app_own {
	int32_t *ids;
	int n, ok;
	char text[OWN_TEXT_MAX];
	char *sentence;              /* the sentence it translates (malloc'd), */
	const struct model *m;       /*   with this model */
	struct pass_opts opts;       /*   and these masks and ablation */
	char caveats[512];           /* what the model cannot know of the
	                                sentence, for the header (caveats.h), */
	char caveats_short[256];     /*   and the words alone ("transformers?") */
};

/* The logit lens and head importance of the pass on screen (inside.c),
 * computed again when pass_gen (one more each new pass) moves on. */
struct app_inside {
	struct lens lens;
	struct importance imp;
	int pass_gen, lens_gen, imp_gen;
};

struct app {
	/* the input: model, sentence, target, masks and ablation */
	struct model *m;
	char *sentence, *target;     /* malloc'd, never NULL once open
	                                (app_set_text): no cap in bytes, the
	                                model's context is the limit */
	char *jump;                  /* the last token J looked for (malloc'd) */
	struct pass_opts opts;
	/* derived from the input (app_recompute): the pass on screen, the
	 * mask diff's other pass, the model's own translation */
	struct trace *tr;            /* the pass on screen */
	struct trace *alt;           /* causal mask flipped, for the mask diff */
	struct app_own own;
	struct app_inside ins;
	struct app_decode ds;
	struct app_edit ed;
	/* the screen: view state, message, help */
	struct screen scr;
	char msg[768];
	struct key_help help[A_COUNT_MAX];   /* made from the key table */
	char help_keys[A_COUNT_MAX][48];
	/* the PE curves' table (forward_pe_table) for pe.m, pe.want positions */
	struct { float *tab; int n, want; const struct model *m; } pe;
	/* training time (training.c): a snapshot of base on screen, owned
	 * here (a->m is it), or NULL: a->m is the model as loaded */
	struct { struct model *snap, *base; } tt;
	/* lecture mode (player.c): the script, the step on screen, --play */
	struct {
		struct lecture *lec;
		int step, play_ms;
		char caption[4096];  /* the step's caption, references filled */
		int deck;            /* 1 while --export writes the page */
	} lp;
	int churn;                   /* big buffers freed since the last trim */
	int quit;
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
	A_ZOOM, A_LINES, A_HEAD_SHOW, A_MODEL, A_MAP, A_MAP_SIDE, A_STAGE_LIST, A_SNAP_PREV, A_SNAP_NEXT, A_HELP,
	A_JUMP, A_POOL,
	A_ESCAPE, A_QUIT, A_COUNT
};

struct cli;

/* app.c: messages, recomputation, navigation, drawing, the key loop */
void app_msg(struct app *a, int is_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* *dst = a copy of src (the old one freed; src may be *dst itself). */
void app_set_text(char **dst, const char *src);
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
/* The state for the command line c: the model, the sentence, the first
 * pass.  Returns 0, or 1 after printing the error (nothing to free). */
int app_open(struct app *a, struct cli *c);
/* Frees what app_open made (the terminal is app_loop's). */
void app_close(struct app *a);
/* Opens the terminal and runs the key loop until q. */
int app_loop(struct app *a);

/* What a key changed (app_key's answer), as htop's actions answer with
 * their reactions: the loop redraws, trims the heap or quits from it. */
enum reaction {
	RE_REDRAW = 1,     /* the screen changed */
	RE_PASS = 2,       /* the pass (and what derives from it) was recomputed */
	RE_QUIT = 4,
	RE_RECOMPUTE = 8,  /* (an action's answer) the pass's input or options
	                      changed: app_action recomputes it, once */
};

/* keys.c: the key table, the help made from it, the line editor */
int keys_build_help(struct app *a);
/* Handles one key (a term.h code; utf8 the typed text) and returns what
 * changed (enum reaction). */
unsigned app_key(struct app *a, int key, const char *utf8);
/* After a batch of keys: the text being edited against the model's
 * max_len, with a message when it is too long (Enter keeps the editor
 * open then). */
void app_edit_check(struct app *a);
/* Opens the line editor on the sentence (which 1) or the target (2). */
void app_edit_open(struct app *a, int which);

/* actions.c: what each key's action does; returns enum reaction (the pass
 * recomputed here when the action asks) */
unsigned app_action(struct app *a, enum action act, int key);

/* decoding.c: greedy, beam search and sampling, the step on screen */
int app_decode_all(struct app *a, const char *sentence);
int app_step_pass(struct app *a);
void app_decode_start(struct app *a);
void app_decode_stop(struct app *a);
/* Ends the decode session without a recompute (a new sentence or target:
 * app_recompute starts a new one, from step 1, when the decoding page was
 * open). */
void app_decode_reset(struct app *a);
void app_decode_action(struct app *a, enum action act);

/* training.c: < and >, the model's training snapshots */
void app_snapshot_step(struct app *a, int delta);
/* Shows snapshot `step` of the model as loaded (-1: its trained weights);
 * the caller recomputes.  Returns -1 with the reason in the message. */
int app_snapshot_load(struct app *a, long step);
/* Back to the model as loaded, freeing the snapshot. */
void app_snapshot_reset(struct app *a);
/* inside.c: the logit lens (y) and head importance (I) of the pass on
 * screen: toggle one (mode VM_LENS or VM_IMPORTANCE), bring them up to
 * date before drawing, free them */
void app_inside_toggle(struct app *a, enum view_mode m);
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
