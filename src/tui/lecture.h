/* lecture.h - lecture scripts: a list of steps a teacher plays with the
 * space bar.
 *
 * A script (YAML, examples/lectures/) names a model and a list of steps.
 * Each step may set the model, sentence, target, masks, stage, head, view,
 * cursor, decoding state and a caption; what a step does not set carries
 * over from the step before, except the view and the cursor (a step shows
 * the plain stage unless it says otherwise).  lecture_load parses and checks the keys;
 * lecture_check loads the models and runs each step's pass once, so a
 * stage, layer or head that does not exist is an error with file:line
 * before the lecture starts, and so is a caption's reference into the trace
 * that does not resolve (caption.h). */
#ifndef ATTNSCOPE_LECTURE_H
#define ATTNSCOPE_LECTURE_H

#include <stdio.h>

#include "base/err.h"
#include "engine/model.h"

enum lview {
	LV_STAGE, LV_HEADS, LV_MEAN, LV_INSPECT, LV_MASKDIFF, LV_CURVES,
	LV_DECODE, LV_COMPARE, LV_LINES, LV_MODEL, LV_MAP, LV_LENS, LV_IMPORTANCE
};

struct lstep {
	int line;                  /* of the step in the script */
	const char *model;         /* resolved path (owned by the lecture) */
	const char *sentence, *target;   /* target "" = none */
	const char *stage;
	int head;
	enum lview view;
	int row, col;              /* −1: leave the cursor alone */
	int causal, encoder_causal;
	int beam;                  /* decoding: 1 greedy, else the width */
	double alpha;
	int sample;                /* decoding: draw (temperature, top_k,
	                              top_p, seed) instead of greedy/beam */
	double temperature, top_p;
	int top_k;
	long long seed;
	int dec_step;              /* decoding step shown (0-based) */
	int explain;               /* show the explanation panel */
	long snapshot;             /* training snapshot shown (-1: trained) */
	const char *caption;
	int caption_line;          /* of the caption in the script */
};

struct lecture {
	char *path;
	char *title;
	int title_line;
	struct lstep *steps;
	int n;
	/* models, loaded by lecture_check, one per distinct file: paths that
	 * name the same file (device and inode) share one slot, and one load */
	char **model_paths;
	struct model **models;
	unsigned long long *model_ids;   /* [nmodels, 2]: device, inode (0, 0:
					    not found, keyed by the path) */
	int nmodels;
	void *strings;             /* private */
};

int lecture_load(struct lecture *l, const char *path, struct err *e);
int lecture_check(struct lecture *l, struct err *e);
void lecture_free(struct lecture *l);
/* Writes the script's title and captions to f as gettext PO entries (with
 * file:line references), for po/lecture-captions.pot: the TUI shows them
 * through gettext, so the msgids must be exactly what the loader reads. */
void lecture_write_pot(const struct lecture *l, FILE *f);
/* The beam width of step s's beam search (its decode.beam, else 4): the
 * player's, and what lecture_check fills a caption's {score beam} from. */
int lecture_beam_width(const struct lstep *s);
/* The model of step i (after lecture_check). */
struct model *lecture_model(const struct lecture *l, int i);

#endif
