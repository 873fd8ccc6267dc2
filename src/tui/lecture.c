/* lecture.c - reading and checking lecture scripts. */
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lecture.h"
#include "caption.h"
#include "base/i18n.h"
#include "base/path.h"
#include "base/safetext.h"
#include "engine/decode.h"
#include "engine/forward.h"
#include "engine/input.h"
#include "formats/ydoc.h"
#include "views/view.h"

static const char *const VIEW_NAMES[] = {
	"stage", "heads", "mean", "inspect", "maskdiff", "curves", "decode", "compare",
	"lines", "model", "map", "lens", "importance", NULL
};
static const char *const TOP_KEYS[] = { "title", "model", "steps", NULL };
static const char *const STEP_KEYS[] = {
	"caption", "model", "sentence", "target", "stage", "head", "view", "cursor",
	"masks", "decode", "explain", "snapshot", NULL
};
static const char *const MASK_KEYS[] = { "decoder", "encoder", NULL };
static const char *const DECODE_KEYS[] = { "search", "beam", "alpha", "step", "temperature",
					    "top_k", "top_p", "seed", NULL };

/* Where a mapping is: the whole script, a step, or the value of a key. */
enum where { IN_LECTURE, IN_STEP, IN_KEY };

/* Checks that map is a mapping with no keys but keys; key names the
 * mapping when where is IN_KEY. */
static int known(const struct ydoc *d, const struct ynode *map,
		 const char *const *keys, enum where where, const char *key,
		 struct err *e)
{
	if (map->kind != Y_MAP) {
		if (where == IN_LECTURE)
			return err_set(e, "%s:%d: the lecture must be a mapping", d->file, map->line);
		if (where == IN_STEP)
			return err_set(e, "%s:%d: a lecture step must be a mapping", d->file,
				       map->line);
		return err_set(e, "%s:%d: %s must be a mapping", d->file, map->line, key);
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->items[2 * i];
		int ok = 0;
		for (const char *const *p = keys; *p && k->kind == Y_SCALAR; p++)
			ok |= strcmp(*p, k->str) == 0;
		if (ok)
			continue;
		const char *name = k->kind == Y_SCALAR ? k->str : "?";
		if (where == IN_LECTURE)
			return err_set(e, "%s:%d: unknown key \"%.40s\" in the lecture", d->file,
				       k->line, name);
		if (where == IN_STEP)
			return err_set(e, "%s:%d: unknown key \"%.40s\" in a lecture step",
				       d->file, k->line, name);
		return err_set(e, "%s:%d: unknown key \"%.40s\" in %s", d->file, k->line,
			       name, key);
	}
	return 0;
}

/* A model path as the script gives it.  When that file does not exist (an
 * installed script, whose "../../models/" pointed into the source tree),
 * the model of the same name beside the installed lectures
 * (lectures/../models/), then in the installed data directory. */
static char *resolve_model(const char *script, const char *rel)
{
	char *p = path_beside(script, rel);
	if (!p || access(p, F_OK) == 0)
		return p;
	char *t1 = strdup(rel), *t2 = strdup(script);
	char alt[2][4096];
	if (!t1 || !t2) {
		free(t1);
		free(t2);
		return p;
	}
	const char *base = basename(t1);
	snprintf(alt[0], sizeof alt[0], "%s/../models/%s", dirname(t2), base);
	snprintf(alt[1], sizeof alt[1], "%s/models/%s", ATTNSCOPE_DATADIR, base);
	free(t2);
	for (int i = 0; i < 2; i++)
		if (access(alt[i], F_OK) == 0) {
			free(t1);
			free(p);
			return strdup(alt[i]);
		}
	free(t1);
	return p;   /* report the path the script gave */
}

/* The slot of the model file at path, adding it when new.  Files are
 * keyed by device and inode: "m.yaml", "./m.yaml", "../x/m.yaml" and a link
 * to it are one model, loaded once (30 spellings of a 150 MB model loaded
 * it 30 times).  A path that does not exist is keyed by its name, and its
 * load reports it. */
static int model_slot(struct lecture *l, const char *path)
{
	struct stat sb;
	unsigned long long dev = 0, ino = 0;
	if (stat(path, &sb) == 0) {
		dev = (unsigned long long)sb.st_dev;
		ino = (unsigned long long)sb.st_ino;
	}
	for (int i = 0; i < l->nmodels; i++)
		if (ino ? l->model_ids[2 * i] == dev && l->model_ids[2 * i + 1] == ino
			: !l->model_ids[2 * i + 1] && strcmp(l->model_paths[i], path) == 0)
			return i;
	size_t n = (size_t)l->nmodels + 1;
	char **np = realloc(l->model_paths, n * sizeof *np);
	if (!np)
		return -1;
	l->model_paths = np;
	struct model **nm = realloc(l->models, n * sizeof *nm);
	if (!nm)
		return -1;
	l->models = nm;
	unsigned long long *ni = realloc(l->model_ids, 2 * n * sizeof *ni);
	if (!ni)
		return -1;
	l->model_ids = ni;
	if (!(np[l->nmodels] = strdup(path)))
		return -1;
	nm[l->nmodels] = NULL;
	ni[2 * l->nmodels] = dev;
	ni[2 * l->nmodels + 1] = ino;
	return l->nmodels++;
}

/* masks.NAME: causal or off into *on (left as it was when not given). */
static int parse_mask(const struct ydoc *d, const struct ynode *v, const char *name, int *on,
		      struct err *e)
{
	const struct ynode *m = ynode_get(v, name);
	if (!m)
		return 0;
	const char *t = ynode_str(d, m, e);
	if (!t || (strcmp(t, "causal") && strcmp(t, "off")))
		return err_set(e, "%s:%d: masks.%s must be causal or off", d->file, m->line, name);
	*on = strcmp(t, "causal") == 0;
	return 0;
}

/* A step's masks: {decoder: causal|off, encoder: causal|off}. */
static int parse_masks(const struct ydoc *d, const struct ynode *v, struct lstep *s,
		       struct err *e)
{
	return known(d, v, MASK_KEYS, IN_KEY, "masks", e) ||
	       parse_mask(d, v, "decoder", &s->causal, e) ||
	       parse_mask(d, v, "encoder", &s->encoder_causal, e) ? -1 : 0;
}

/* A step's decode: search, temperature, top_k, top_p, seed, beam, alpha,
 * step. */
static int parse_decode(const struct ydoc *d, const struct ynode *v, struct lstep *s,
			struct err *e)
{
	long long x;
	const struct ynode *m;
	if (known(d, v, DECODE_KEYS, IN_KEY, "decode", e))
		return -1;
	if ((m = ynode_get(v, "search"))) {
		const char *t = ynode_str(d, m, e);
		if (!t || (strcmp(t, "greedy") && strcmp(t, "beam") && strcmp(t, "sample")))
			return err_set(e, "%s:%d: decode.search must be greedy, beam or sample",
				       d->file, m->line);
		s->sample = strcmp(t, "sample") == 0;
		s->beam = strcmp(t, "beam") ? 1 : s->beam > 1 ? s->beam : 4;
	}
	if ((m = ynode_get(v, "temperature"))) {
		if (ynode_float(d, m, &s->temperature, e))
			return -1;
		if (!(s->temperature >= 0 && s->temperature <= 100))
			return err_set(e, "%s:%d: decode.temperature must be within 0…100",
				       d->file, m->line);
	}
	if ((m = ynode_get(v, "top_k"))) {
		if (ynode_int(d, m, 0, 1 << 30, &x, e))
			return -1;
		s->top_k = (int)x;
	}
	if ((m = ynode_get(v, "top_p"))) {
		if (ynode_float(d, m, &s->top_p, e))
			return -1;
		if (!(s->top_p > 0 && s->top_p <= 1))
			return err_set(e, "%s:%d: decode.top_p must be above 0 and at most 1",
				       d->file, m->line);
	}
	if ((m = ynode_get(v, "seed"))) {
		if (ynode_int(d, m, 0, LLONG_MAX, &x, e))
			return -1;
		s->seed = x;
	}
	if ((m = ynode_get(v, "beam"))) {
		if (ynode_int(d, m, 1, DECODE_MAX_BEAM, &x, e))
			return -1;
		s->beam = (int)x;
	}
	if ((m = ynode_get(v, "alpha")) && ynode_float(d, m, &s->alpha, e))
		return -1;
	if ((m = ynode_get(v, "step"))) {
		if (ynode_int(d, m, 1, 4096, &x, e))
			return -1;
		s->dec_step = (int)x - 1;   /* scripts count steps from 1 */
	}
	return 0;
}

static int parse_step(struct lecture *l, const struct ydoc *d, const struct ynode *n,
		      struct lstep *s, struct err *e)
{
	const struct ynode *v;
	long long x;
	if (known(d, n, STEP_KEYS, IN_STEP, NULL, e))
		return -1;
	s->line = n->line;
	s->caption = NULL;
	if ((v = ynode_get(n, "caption")) && !(s->caption = ynode_str(d, v, e)))
		return -1;
	s->caption_line = v ? v->line : n->line;
	if ((v = ynode_get(n, "model"))) {
		const char *m = ynode_str(d, v, e);
		char *p = m ? resolve_model(l->path, m) : NULL;
		int k = p ? model_slot(l, p) : -1;
		free(p);
		if (k < 0)
			return m ? err_set(e, "out of memory") : -1;
		s->model = l->model_paths[k];
	}
	if ((v = ynode_get(n, "sentence")) && !(s->sentence = ynode_str(d, v, e)))
		return -1;
	if ((v = ynode_get(n, "target")) && !(s->target = ynode_str(d, v, e)))
		return -1;
	if ((v = ynode_get(n, "stage")) && !(s->stage = ynode_str(d, v, e)))
		return -1;
	if ((v = ynode_get(n, "head"))) {
		if (ynode_int(d, v, 0, 4096, &x, e))
			return -1;
		s->head = (int)x;
	}
	if ((v = ynode_get(n, "snapshot"))) {   /* a step, or "trained" */
		if (v->kind == Y_SCALAR && strcmp(v->str, "trained") == 0)
			s->snapshot = -1;
		else if (ynode_int(d, v, 0, 2147483647, &x, e))
			return -1;
		else
			s->snapshot = (long)x;
	}
	if ((v = ynode_get(n, "view"))) {
		const char *name = ynode_str(d, v, e);
		int k = -1;
		for (int i = 0; name && VIEW_NAMES[i]; i++)
			if (strcmp(VIEW_NAMES[i], name) == 0)
				k = i;
		if (k < 0 && name) {   /* the list from the table: it cannot drift */
			char list[256] = "";
			for (int i = 0; VIEW_NAMES[i]; i++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 /* TRANSLATORS: before the last of a list of
					    names: "a, b or c" */
					 i ? VIEW_NAMES[i + 1] ? ", " : _(" or ") : "", VIEW_NAMES[i]);
			return err_set(e, "%s:%d: view must be %s, not \"%.30s\"", d->file, v->line,
				       list, name);
		}
		if (k < 0)
			return -1;
		s->view = (enum lview)k;
	}
	if ((v = ynode_get(n, "cursor"))) {
		long long r, c;
		if (v->kind != Y_SEQ || v->n != 2)
			return err_set(e, "%s:%d: cursor must be [row, column]", d->file, v->line);
		if (ynode_int(d, v->items[0], 0, 1 << 20, &r, e) ||
		    ynode_int(d, v->items[1], 0, 1 << 20, &c, e))
			return -1;
		s->row = (int)r;
		s->col = (int)c;
	}
	if ((v = ynode_get(n, "masks")) && parse_masks(d, v, s, e))
		return -1;
	if ((v = ynode_get(n, "decode")) && parse_decode(d, v, s, e))
		return -1;
	if ((v = ynode_get(n, "explain")) && ynode_bool(d, v, &s->explain, e))
		return -1;
	return 0;
}

int lecture_load(struct lecture *l, const char *path, struct err *e)
{
	memset(l, 0, sizeof *l);
	struct ydoc *d = calloc(1, sizeof *d);
	if (!d || !(l->path = strdup(path))) {
		free(d);
		return err_set(e, "out of memory");
	}
	l->strings = d;
	if (ydoc_load(d, path, e))
		return -1;
	const struct ynode *r = d->root, *v;
	if (!r)
		return err_set(e, "%s: the lecture is empty", path);
	if (known(d, r, TOP_KEYS, IN_LECTURE, NULL, e))
		return -1;
	if ((v = ynode_get(r, "title"))) {
		const char *t = ynode_str(d, v, e);
		if (!t || !(l->title = strdup(t)))
			return -1;
		l->title_line = v->line;
	}
	struct lstep cur = { .head = 0, .row = -1, .col = -1, .causal = 1, .beam = 1,
			     .snapshot = -1,
			     .alpha = 0.6, .temperature = 1, .top_p = 1, .target = "" };
	if ((v = ynode_get(r, "model"))) {
		const char *m = ynode_str(d, v, e);
		char *p = m ? resolve_model(path, m) : NULL;
		int k = p ? model_slot(l, p) : -1;
		free(p);
		if (k < 0)
			return -1;
		cur.model = l->model_paths[k];
	}
	const struct ynode *steps = ynode_get(r, "steps");
	if (!steps || steps->kind != Y_SEQ || steps->n == 0)
		return err_set(e, "%s:%d: a lecture needs steps: a non-empty list", path,
			       steps ? steps->line : r->line);
	l->steps = calloc(steps->n, sizeof *l->steps);
	if (!l->steps)
		return err_set(e, "out of memory");
	for (size_t i = 0; i < steps->n; i++) {
		cur.row = cur.col = -1;   /* the cursor and the view do not carry over */
		cur.view = LV_STAGE;
		if (parse_step(l, d, steps->items[i], &cur, e))
			return -1;
		if (!cur.model)
			return err_set(e, "%s:%d: no model: give model: at the top or in the step",
				       path, cur.line);
		if (!cur.sentence)
			return err_set(e, "%s:%d: no sentence yet", path, cur.line);
		l->steps[l->n++] = cur;
	}
	return 0;
}

static const struct model *load_model(struct lecture *l, const char *path,
				      int line, struct err *e)
{
	for (int i = 0; i < l->nmodels; i++) {
		if (strcmp(l->model_paths[i], path) != 0)
			continue;
		if (!l->models[i] && !(l->models[i] = model_load(path, e))) {
			err_prefix(e, "%s:%d", l->path, line);
			return NULL;
		}
		return l->models[i];
	}
	err_set(e, "%s:%d: model %s was not declared", l->path, line, path);
	return NULL;
}

/* Runs step s's pass once and checks its stage, head and cursor. */
static int check_pass(struct lecture *l, const struct lstep *s, const struct model *m,
		      struct err *e);

/* Runs step s's pass once (with its training snapshot, loaded for the
 * check: the player loads it again when the step is shown). */
static int check_step(struct lecture *l, const struct lstep *s, struct err *e)
{
	const struct model *m = load_model(l, s->model, s->line, e);
	if (!m || s->snapshot < 0)
		return m ? check_pass(l, s, m, e) : -1;
	struct model *sm = model_load_snapshot(s->model, s->snapshot, e);
	if (!sm)
		return err_prefix(e, "%s:%d", l->path, s->line);
	int rc = check_pass(l, s, sm, e);
	model_free(sm);
	return rc;
}

/* The beam width a decoding step's beam search uses (the player's too). */
int lecture_beam_width(const struct lstep *s)
{
	return s->beam > 1 ? s->beam : 4;
}

/* A decoding step: runs the step's own search into dec[0..2] (greedy, beam,
 * sampling; greedy and beam both when its caption has references), checks
 * its decoding step, and sets in's decoder side to that step's input, as
 * the player shows it. */
static int check_decode(struct lecture *l, const struct lstep *s, const struct model *m,
			struct pass_input *in, const struct pass_opts *o,
			struct decode_result dec[3], struct err *e)
{
	if (m->cfg.arch == ARCH_ENC_ONLY)
		return err_set(e, "%s:%d: %s is encoder-only: it cannot decode", l->path,
			       s->line, m->cfg.name);
	const int shown = s->sample ? 2 : s->beam > 1;
	const int refs = s->caption && (caption_has_refs(s->caption) ||
					caption_has_refs(_(s->caption)));
	for (int k = 0; k < 3; k++) {
		struct decode_opts d;
		if (k != shown && (k == 2 || !refs))
			continue;   /* {score greedy} and {score beam} need both */
		decode_opts_default(&d);
		d.beam = k == 1 ? lecture_beam_width(s) : 1;
		d.alpha = s->alpha;
		d.sample = k == 2;
		d.so.temperature = s->temperature;
		d.so.top_k = s->top_k;
		d.so.top_p = s->top_p;
		d.so.seed = (uint64_t)s->seed;
		if (decode_run(m, in, o, &d, &dec[k], e))
			return err_prefix(e, "%s:%d", l->path, s->line);
	}
	const struct decode_result *r = &dec[shown];
	int n = r->nsteps;
	if (s->dec_step >= n)
		return err_set(e, P_("%s:%d: decode step %d, but this search ends after %d "
				     "step", "%s:%d: decode step %d, but this search ends "
				     "after %d steps", n), l->path, s->line,
			       s->dec_step + 1, n);
	const struct hyp *h = &r->steps[s->dec_step].hyps[0];
	if (decode_set_target(m, in, h->ids, h->n, o->pad_target))
		return err_set(e, "out of memory");
	return 0;
}

/* A step of an encoder-decoder without a target: as the stepper does, the
 * decoder is teacher-forced on the model's own greedy translation (with
 * the default masks), so the pass checked is the pass shown. */
static int check_own(const struct lecture *l, const struct lstep *s,
		     const struct model *m, struct pass_input *in, struct err *e)
{
	struct pass_opts po;
	struct decode_opts d;
	struct decode_result r;
	pass_opts_default(&po);
	decode_opts_default(&d);
	if (decode_run(m, in, &po, &d, &r, e))
		return err_prefix(e, "%s:%d", l->path, s->line);
	int rc = decode_teacher_force(m, in, r.best, r.nbest, 0);
	decode_result_free(&r);
	return rc ? err_set(e, "out of memory") : 0;
}

/* Checks that step s's stage, head and cursor exist in t. */
static int check_stage(const struct lecture *l, const struct lstep *s,
		       const struct model *m, const struct trace *t, struct err *e)
{
	const struct stage *st = trace_find(t, s->stage);
	if (!st)
		return err_set(e, "%s:%d: stage \"%s\" does not exist in %s's pass",
			       l->path, s->line, s->stage, m->cfg.name);
	int heads = st->ndim == 3 ? st->shape[0] : 1;
	int rows = st->ndim == 3 ? st->shape[1] : st->shape[0];
	int cols = st->ndim == 1 ? 1 : st->shape[st->ndim - 1];
	if (s->head >= heads)
		return err_set(e, P_("%s:%d: head %d does not exist: %s has %d head",
				     "%s:%d: head %d does not exist: %s has %d heads",
				     heads), l->path, s->line, s->head, s->stage, heads);
	if ((s->view == LV_LINES || s->view == LV_MODEL) &&
	    (!view_attn_weights(t, st) || st->layer < 0))
		return err_set(e, "%s:%d: view %s needs an attention stage, not %s",
			       l->path, s->line, s->view == LV_LINES ? "lines" : "model",
			       s->stage);
	if (s->row >= rows || s->col >= cols)
		return err_set(e, "%s:%d: cursor [%d, %d] is outside %s [%d × %d]",
			       l->path, s->line, s->row, s->col, s->stage, rows, cols);
	return 0;
}

/* Fills step s's caption (and its translation, when there is one) from
 * the step's pass: a reference that does not resolve is an error. */
static int check_caption(const struct lecture *l, const struct lstep *s,
			 const struct model *m, const struct trace *t,
			 const struct decode_result *dec, struct err *e)
{
	if (!s->caption)
		return 0;
	struct caption_src src = { t, s->stage, dec ? &dec[0] : NULL, dec ? &dec[1] : NULL,
				   0, m, s->sentence };
	char out[4096];
	const char *tr = _(s->caption);
	for (src.deck = 0; src.deck < 2; src.deck++)
		if (caption_fill(s->caption, &src, out, sizeof out, e) ||
		    (tr != s->caption && caption_fill(tr, &src, out, sizeof out, e)))
			return err_prefix(e, "%s:%d", l->path, s->caption_line);
	return 0;
}

/* Runs step s's pass once with m and checks its stage, head, cursor and
 * caption. */
static int check_pass(struct lecture *l, const struct lstep *s, const struct model *m,
		      struct err *e)
{
	struct pass_input in;
	struct pass_opts o;
	struct decode_result dec[3];
	if (!m)
		return -1;
	pass_opts_default(&o);
	o.causal = s->causal;
	o.encoder_causal = s->encoder_causal;
	int decoding = s->view == LV_DECODE || s->view == LV_COMPARE;
	if (input_build(m, s->sentence, *s->target && !decoding ? s->target : NULL, &o,
			&in, e))
		return err_prefix(e, "%s:%d", l->path, s->line);
	memset(dec, 0, sizeof dec);
	struct trace *t = NULL;
	int rc = decoding ? check_decode(l, s, m, &in, &o, dec, e)
		 : m->cfg.arch == ARCH_ENC_DEC && !*s->target ? check_own(l, s, m, &in, e) : 0;
	if (!rc && !(t = forward_run(m, &in, &o, NULL, e)))
		rc = -1;
	input_free(&in);
	if (!rc && s->stage)
		rc = check_stage(l, s, m, t, e);
	else if (!rc && !decoding)
		rc = err_set(e, "%s:%d: no stage yet: give stage: (or view: decode)",
			     l->path, s->line);
	if (!rc)
		rc = check_caption(l, s, m, t, decoding ? dec : NULL, e);
	for (int k = 0; k < 3; k++)
		decode_result_free(&dec[k]);
	trace_free(t);
	return rc;
}

/* s as a PO string: quoted, escaped, one line per source line. */
static void po_string(FILE *f, const char *s)
{
	if (strchr(s, '\n') && s[strcspn(s, "\n") + 1])
		fputs("\"\"\n", f);
	fputc('"', f);
	for (; *s; s++) {
		switch (*s) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\t': fputs("\\t", f); break;
		case '\n': fputs(s[1] ? "\\n\"\n\"" : "\\n", f); break;
		default: {
			/* other controls (C0, DEL, C1) as octal escapes: the same
			 * bytes for gettext, nothing a terminal obeys */
			unsigned char c = (unsigned char)*s, c1 = (unsigned char)s[1];
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\%03o", c);
			else if (c == 0xc2 && c1 >= 0x80 && c1 < 0xa0)
				fprintf(f, "\\%03o\\%03o", c, c1), s++;
			else
				fputc(c, f);
		}
		}
	}
	fputs("\"\n", f);
}

static void po_entry(FILE *f, const char *comment, const char *path, int line,
		     const char *msgid)
{
	char sp[1024];
	fprintf(f, "\n#. %s\n#: %s:%d\nmsgid ", comment,
		safetext_copy(sp, sizeof sp, path, 0), line);
	po_string(f, msgid);
	fputs("msgstr \"\"\n", f);
}

void lecture_write_pot(const struct lecture *l, FILE *f)
{
	if (l->title)
		po_entry(f, "TRANSLATORS: the title of a lecture script", l->path, l->title_line, l->title);
	for (int i = 0; i < l->n; i++)
		if (l->steps[i].caption)
			po_entry(f, "TRANSLATORS: a lecture caption, shown under the view",
				 l->path, l->steps[i].line, l->steps[i].caption);
}

int lecture_check(struct lecture *l, struct err *e)
{
	for (int i = 0; i < l->n; i++)
		if (check_step(l, &l->steps[i], e))
			return -1;
	return 0;
}

struct model *lecture_model(const struct lecture *l, int i)
{
	for (int k = 0; k < l->nmodels; k++)
		if (strcmp(l->model_paths[k], l->steps[i].model) == 0)
			return l->models[k];
	return NULL;
}

void lecture_free(struct lecture *l)
{
	if (l->strings) {
		ydoc_free(l->strings);
		free(l->strings);
	}
	for (int i = 0; i < l->nmodels; i++) {
		free(l->model_paths[i]);
		model_free(l->models[i]);
	}
	free(l->model_paths);
	free(l->models);
	free(l->model_ids);
	free(l->steps);
	free(l->title);
	free(l->path);
	memset(l, 0, sizeof *l);
}
