/* view.h - what a view reads and the table of view classes.
 *
 * A view draws one stage of a trace into a rectangle of a canvas.  It reads
 * the trace (never computes model math) and the cursor state below; the
 * only thing draw may change is the scroll offset, to keep the cursor in
 * sight.  Which view shows a stage is chosen by view_for from the mode
 * (enum view_mode) and the stage's kind.
 *
 * Axes: for an attention stage [h, nq, nk] rows are queries and columns
 * keys; for [n, d] activations rows are tokens and columns dimensions. */
#ifndef ATTNSCOPE_VIEW_H
#define ATTNSCOPE_VIEW_H

#include "canvas.h"
#include "engine/trace.h"

struct model;
struct decode_result;
struct sample_opts;
struct lens;
struct importance;

/* What the main view shows: one mode at a time (ncdu's pstate), each mode
 * a view class (view_for); a mode whose view does not apply to the stage
 * on screen (the inspector on a norm stage) shows the stage's own view
 * until a stage it applies to comes back. */
enum view_mode {
	VM_STAGE,        /* the stage's own view: heatmap, vectors, ids, ... */
	VM_HEADS,        /* grid of every head of an attention stage */
	VM_MEAN,         /* average over heads (long sequences) */
	VM_INSPECT,      /* cell inspector for the cursor's query/key */
	VM_MASK_DIFF,    /* with / without the causal mask, side by side */
	VM_CURVES,       /* sin/cos curves of the positional encoding */
	VM_DECODE,       /* decoding page: input so far, candidates, beam */
	VM_COMPARE,      /* greedy and beam side by side */
	VM_LINES,        /* head view: queries and keys joined by lines */
	VM_MODEL,        /* model view: every layer × head of one attention */
	VM_MAP,          /* architecture map (the paper's Figure 1) */
	VM_LENS,         /* the logit lens (v->lens) */
	VM_IMPORTANCE,   /* the head importance table (v->imp) */
	VM_COUNT
};

/* A region of the architecture map that a click jumps from: the stage it
 * leads to (set by the map's draw, like geom). */
struct map_hit {
	struct rect r;
	int stage;
};
#define MAP_HITS_MAX 48

/* The curves of the positional encoding: positions plotted whatever the
 * sentence's length (more when it is longer), and at most this many
 * dimensions at once. */
#define PE_CURVE_POSITIONS 100
#define PE_MAX_DIMS 4

/* How big a matrix cell is drawn: auto picks the largest that fits. */
enum zoom { ZOOM_AUTO, ZOOM_NUMBERS, ZOOM_CELLS, ZOOM_FIT,
	    ZOOM_BIG,    /* projector (presenter): 9 × 3 cells when they fit,
	                    else auto's cells on taller rows; every page
	                    spread over the screen (view_spread) */
	    ZOOM_OVERVIEW,   /* the whole matrix, blocks pooled (overview.c) */
	    ZOOM_COUNT };

/* Where a drawn matrix landed, so a mouse click can be mapped to a cell. */
struct grid_geom {
	int valid;
	int x0, y0;          /* screen position of the first visible cell */
	int cw, rh;          /* columns per cell; matrix rows per screen row */
	int top, left;       /* first visible matrix row and column */
	int nr, nc;          /* visible rows and columns */
	int ch;              /* lines per matrix row when > 1 (big cells,
	                        presenter's tall rows) */
};

/* views/presenter.c: presenter mode (zoom big) spreads a page over the
 * screen, in the same way in every view.  view_spread: the size (lines or
 * columns) of each of n items sharing room: `normal` at every other zoom
 * and when room holds no more, else room / n up to `most`.  view_pitch:
 * the lines a row of a list or matrix takes when `lines` hold `rows` of
 * them, 1 (the normal pitch), 2 or 3; a list writes a row on the first of
 * its lines, a matrix fills its cells on every line. */
int view_spread(enum zoom z, int room, int n, int normal, int most);
int view_pitch(enum zoom z, int lines, int rows);
/* Where visible row i (0: the first shown) of a drawn matrix lies: its
 * first line, and the line of its label and value (the middle one of a
 * tall row); the visible row drawn at line y (−1: above it or no
 * matrix; the caller checks it against nr). */
int grid_row_top(const struct grid_geom *g, int i);
int grid_row_mid(const struct grid_geom *g, int i);
int grid_row_at(const struct grid_geom *g, int y);

struct view_state {
	const struct trace *tr;      /* the pass on screen */
	const struct trace *alt;     /* the same pass with the decoder causal
	                                mask flipped (mask diff), or NULL */
	const struct model *m;
	int labels_own;              /* no target was given: the pass is
	                                teacher-forced on the model's own
	                                translation, whose words are the labels */
	int stage;                   /* index into tr->stages */
	int head;                    /* selected head */
	int row, col;                /* cell cursor (row: query / token) */
	int top, left;               /* first visible row and column */
	enum zoom zoom;
	enum view_mode mode;
	int map_side;                /* a small map above the stage list */
	int pool_mean;               /* overviews and pooled tiles: the mean of
	                                each block, not its max */
	struct grid_geom geom;       /* set by draw: the cursor's matrix */
	unsigned long long heads_off; /* head view: heads hidden (bit h) */
	struct map_hit map_hits[MAP_HITS_MAX];   /* set by the map's draw */
	int nmap_hits;
	/* decoding (NULL when not decoding): the search being replayed, the
	 * step on screen (0-based; the trace is that step's pass), the
	 * hypothesis followed, and the other search (greedy ↔ beam) for the
	 * comparison */
	const struct decode_result *dec;
	const struct decode_result *dec_other;
	int dec_step, dec_hyp;
	int dec_cand;                /* selected candidate of the followed
	                                hypothesis at dec_step (what-if) */
	int dec_beam;                /* beam width of dec (1: greedy) */
	double dec_alpha;
	/* the positional-encoding curves (VM_CURVES): the model's PE over
	 * positions 0…pe_n−1, more than the sentence has [pe_n, d]
	 * (forward_pe_table; not owned), or NULL to plot the stage's own
	 * positions; the dimensions picked (pe_ndims 0: four from the
	 * cursor's column on, as the Annotated Transformer shows dims 4–7) */
	const float *pe_table;
	int pe_n;
	int pe_dims[PE_MAX_DIMS];
	int pe_ndims;
	const struct sample_opts *dec_sample;   /* dec was sampled with these
	                                           (NULL: greedy or beam) */
	const struct lens *lens;     /* the logit lens of tr (VM_LENS), or NULL;
	                                v->row is the position it details */
	const struct importance *imp;   /* head importance (VM_IMPORTANCE) */
};

/* The keys a view may take before the stepper's own (its on_key): the
 * stepper's ↑ ↓ h l and ] [ (tab). */
enum view_key { VK_UP, VK_DOWN, VK_LEFT, VK_RIGHT, VK_NEXT, VK_PREV };

/* What a view's key did (flags; 0: not this view's key, the stepper's
 * own meaning applies). */
enum view_reaction {
	VR_REDRAW = 1,
	VR_LAYER_UP = 2,      /* the same stage one layer up: the stepper moves */
	VR_LAYER_DOWN = 4,    /*   (it knows the trace's stages) */
	VR_STEP_PASS = 8,     /* the decoding step's pass again (another
	                         hypothesis followed) */
};

/* A line of the help a view adds for its own keys. */
struct view_help {
	const char *keys;     /* "↑↓" */
	const char *what;     /* N_() text: the help translates it */
};

struct view_class {
	const char *name;
	/* Draws v's stage into r.  May adjust v->top/v->left only. */
	void (*draw)(struct view_state *v, struct canvas *c, struct rect r);
	/* Its own meaning of key k (enum view_reaction), or NULL. */
	unsigned (*on_key)(struct view_state *v, enum view_key k);
	/* Its keys for the help, ended by a NULL keys (NULL: none). */
	const struct view_help *help;
};

/* The start of a view's draw: clears v->geom; returns 0 when there is
 * nothing to draw: r is empty, or the view's data is missing (then msg,
 * muted, on r's first line). */
int view_begin(struct view_state *v, struct canvas *c, struct rect r, int missing,
	       const char *msg);

/* Mode m on, or (on already) back to the stage's own view. */
static inline void view_mode_toggle(struct view_state *v, enum view_mode m)
{
	v->mode = v->mode == m ? VM_STAGE : m;
}

/* Back to the stage's own view when mode m or n is on screen. */
static inline void view_mode_off(struct view_state *v, enum view_mode m, enum view_mode n)
{
	if (v->mode == m || v->mode == n)
		v->mode = VM_STAGE;
}

/* The view for the mode and the stage on screen. */
const struct view_class *view_for(const struct view_state *v);
/* Whether mode m's view applies to the stage on screen (else view_for
 * shows the stage's own view). */
int view_mode_applies(const struct view_state *v, enum view_mode m);

/* The stage on screen. */
static inline const struct stage *view_stage(const struct view_state *v)
{
	return &v->tr->stages[v->stage];
}

/* Rows and columns of the 2-D slice shown for a stage (a head's matrix for
 * [h, n, m]; [n, 1] for 1-D stages). */
void view_dims(const struct stage *s, int *rows, int *cols);
/* Pointer to the 2-D slice of head h (clamped). */
const float *view_slice(const struct stage *s, int head);
/* Number of heads of a stage (1 unless it is [h, n, m]). */
int view_heads(const struct stage *s);
/* Clamps cursor and head to the stage's dimensions. */
void view_clamp(struct view_state *v);

/* "query: decoder token" style axis names for a stage's rows and columns,
 * written into buf[n] (returned). */
const char *view_row_title(const struct stage *s, char *buf, size_t n);
const char *view_col_title(const struct stage *s, char *buf, size_t n);

/* The cell under the cursor: where it is ("head 0 · query “cat” (2) × key
 * “your” (1)") and its value as fmt_cell writes it ("0.4213", "2.90e-12",
 * "−∞ (masked)"), apart so that the status line can shorten the first and
 * never the second. */
void view_cursor_text(const struct view_state *v, char *where, size_t wn,
		      char *val, size_t vn);

/* Attention diagnostics of one head's weights [nq, nk]: mean row entropy
 * in bits and a pattern tag ("self", "previous", "first", "broad", or ""). */
double attn_entropy(const float *w, int nq, int nk);
const char *attn_pattern(const float *w, int nq, int nk);
/* The next position after `after` (wrapping) whose token on the rows of
 * the stage on screen is text (case aside; GPT-2's pieces also without
 * their space mark), -1 when none; *count: how many positions have it. */
int view_find_token(const struct view_state *v, const char *text, int after, int *count);
/* The same for head h of an attention stage [h, nq, nk], from what a lazy
 * trace kept (no layer computed again) or from its data. */
double view_head_entropy(const struct stage *s, int h);
const char *view_head_pattern(const struct stage *s, int h);
/* A pattern tag in at most room columns: itself, its short form
 * ("previous token" → "previous"), or that cut (into buf). */
const char *attn_pattern_fit(const char *tag, int room, char *buf, size_t n);

/* "[h=4, S=8, S=8]": a stage's shape with its axis names, into buf. */
void view_shape_text(const struct stage *st, char *buf, size_t n);

/* The view classes (one file each). */
extern const struct view_class heatmap_view;
extern const struct view_class heads_view;
extern const struct view_class vectors_view;
extern const struct view_class posenc_view;
extern const struct view_class rotary_view;
extern const struct view_class output_view;
extern const struct view_class classes_view;
extern const struct view_class inspect_view;
extern const struct view_class maskdiff_view;
extern const struct view_class ids_view;
extern const struct view_class decoding_view;
extern const struct view_class compare_view;
extern const struct view_class lens_view;
extern const struct view_class importance_view;
extern const struct view_class lines_view;
extern const struct view_class modelview_view;
extern const struct view_class map_view;

/* The small architecture map for the stepper's sidebar (views/map.c):
 * draws into r (at least 8 × 4), appends its click targets to
 * v->map_hits, returns the lines used (0: it did not fit). */
int map_draw_mini(struct view_state *v, struct canvas *c, struct rect r);

/* The attention weights stage [h, nq, nk] that an attention stage (q, k,
 * v, scores, masked, weights, heads, concat, out) belongs to, or NULL. */
const struct stage *view_attn_weights(const struct trace *t, const struct stage *s);

/* A view's title from line r.y: the head ("head 0 of 4", may be ""), the
 * axes ("rows: … · columns: …") and a diagnostic (may be ""), each piece
 * where it fits whole, the axes split at their " · " when need be, on up to
 * three lines; only what they cannot hold is cut.  Returns the lines used. */
int view_title(struct canvas *c, struct rect r, const char *head,
	       const char *axes, const char *ent);

/* Shared drawing for heatmap-like views: draws the matrix m[rows, cols]
 * with row/column labels at r, scrolled by top and left (adjusted to keep the
 * cursor in sight), cursor at (crow, ccol) (−1: none), coloured by sc.
 * Fills geom (may be NULL).  Returns the rectangle it used. */
struct scale;
struct rect heatmap_draw(struct canvas *c, struct rect r, const struct trace *t,
			 const struct stage *s, const float *m, int rows,
			 int cols, const struct scale *sc, enum zoom z,
			 int *top, int *left, int crow, int ccol,
			 struct grid_geom *geom);

/* overview.c: a matrix larger than the screen, whole (blocks pooled by
 * max, or by mean with v->pool_mean), the cursor's block marked and its
 * entry written under it.  overview_wanted: whether at zoom auto a matrix
 * of n × m in r is drawn so (one column a key would show under half). */
int overview_wanted(const struct canvas *c, struct rect r, int n, int m);
void overview_draw(struct view_state *v, struct canvas *c, struct rect r,
		   const struct stage *s, const float *w, int n, int m,
		   const struct scale *sc);
/* Whether v shows a matrix n × m in r as an overview (zoom overview, or
 * auto and overview_wanted). */
int view_overview(const struct view_state *v, const struct canvas *c, struct rect r,
		  int n, int m);

#endif
