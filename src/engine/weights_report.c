/* weights_report.c - the report of a weights file that does not fit the
 * model: every unexpected, missing and misshapen tensor, and the layout
 * or architecture that would fit instead. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "weights_int.h"
#include "base/i18n.h"
#include "base/safetext.h"

/* Every tensor found has the shape it needs. */
static int shapes_fit(const struct wants *ws, const struct wmatch *mt, const struct fnames *F)
{
	for (int i = 0; i < ws->n; i++)
		for (int k = 0; k < mt[i].nparts; k++)
			if (mt[i].part[k] >= 0 &&
			    !want_part_fits(&ws->w[i], mt[i].nparts, k, &F->t[mt[i].part[k]]))
				return 0;
	return 1;
}

/* Whether layout fits the file's names, with what it implies (and
 * without the YAML's tensor_names); arch >= 0: as that architecture;
 * shapes: the shapes too. */
static int layout_fits(const struct model *m, int layout, int arch, const struct fnames *F,
		       int shapes)
{
	struct model tmp = *m;
	struct wants ws = { 0 };
	struct wmatch *mt = NULL;
	int fits = 0, nobias;
	layout_imply(layout, &tmp.cfg, m->cfg.given);
	if (arch >= 0)
		tmp.cfg.arch = (enum arch)arch;
	if (tmp.cfg.arch == ARCH_DEC_ONLY)
		tmp.cfg.enc_layers = 0;
	else if (tmp.cfg.arch == ARCH_ENC_ONLY)
		tmp.cfg.dec_layers = 0;
	tmp.enc = calloc((size_t)tmp.cfg.enc_layers + 1, sizeof *tmp.enc);
	tmp.dec = calloc((size_t)tmp.cfg.dec_layers + 1, sizeof *tmp.dec);
	int *cl = calloc((size_t)F->n + 1, sizeof *cl);
	if (tmp.enc && tmp.dec && cl && !wants_build(&tmp, &ws) &&
	    (mt = calloc((size_t)ws.n + 1, sizeof *mt)))
		fits = weights_resolve(&tmp.cfg, &ws, layout, 0, F, mt, cl, &nobias) == 0 &&
		       (!shapes || shapes_fit(&ws, mt, F));
	free(mt);
	free(cl);
	free(ws.w);
	free(tmp.enc);
	free(tmp.dec);
	return fits;
}

/* A growing message (at most one err's worth). */
struct msgbuf {
	char s[sizeof ((struct err *)0)->msg];
	size_t n;
	int lines, dropped;
};

/* Appends one line (already made safe). */
static void put(struct msgbuf *b, const char *line)
{
	size_t l = strlen(line);
	if (b->n + l + 160 >= sizeof b->s) {   /* keep room for the last lines */
		b->dropped++;
		return;
	}
	if (b->lines++)
		b->s[b->n++] = '\n';
	memcpy(b->s + b->n, line, l + 1);
	b->n += l;
}

/* The lines of one kind of problem (unexpected, missing, misshapen), kept
 * so that a few of each come first and the rest after. */
struct kind {
	char **l;
	int n, cap;
};

static void kind_say(struct kind *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kind_say(struct kind *k, const char *fmt, ...)
{
	char raw[512], line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, _(fmt), ap);
	va_end(ap);
	safetext_copy(line, sizeof line, raw, 0);   /* names from the file */
	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 16;
		char **l = realloc(k->l, (size_t)cap * sizeof *l);
		if (!l)
			return;
		k->l = l;
		k->cap = cap;
	}
	if ((k->l[k->n] = strdup(line)))
		k->n++;
}

static void kind_free(struct kind *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->l[i]);
	free(k->l);
}

static void st_shape_str(char *buf, size_t n, const struct st_tensor *t)
{
	snprintf(buf, n, "[");
	for (int k = 0; k < t->ndim; k++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%llu", k ? ", " : "",
			 (unsigned long long)t->shape[k]);
	snprintf(buf + strlen(buf), n - strlen(buf), "]");
}

/* How many lines of each kind come before the rest. */
#define MISMATCH_FIRST 3

static const char *const ARCH_WORDS[] = { "encoder-decoder", "decoder-only", "encoder-only" };

/* What would fit instead, into k: another layout (its names), and when
 * the names do not fit as they are (names), another architecture (the
 * YAML forgot architecture: or gave the wrong one), names and shapes,
 * with the layout it needs when the layout alone does not do. */
static void suggest(const struct model *m, const struct fnames *F, const char *path,
		    int names, struct kind *k)
{
	const struct config *c = &m->cfg;
	int fits[LAYOUT_N] = { 0 };
	for (int L = 0; L < LAYOUT_N; L++)
		if (L != c->layout && (fits[L] = layout_fits(m, L, -1, F, 0)))
			kind_say(k, N_("%s: these names fit layout: %s"), path, LAYOUT_NAMES[L]);
	for (int A = 0; A < 3 && names; A++)
		for (int L = 0; L < LAYOUT_N; L++) {
			if (A == (int)c->arch || fits[L] || !layout_fits(m, L, A, F, 1))
				continue;
			if (L == c->layout)
				kind_say(k, N_("%s: these tensors fit architecture: %s"), path,
					 ARCH_WORDS[A]);
			else
				kind_say(k, N_("%s: these tensors fit layout: %s with architecture: %s"),
					 path, LAYOUT_NAMES[L], ARCH_WORDS[A]);
		}
}

/* Want i's problems (missing parts, wrong shapes) into miss and shape. */
static void want_problems(const struct want *w, const struct wmatch *x, const struct fnames *F,
			  int nobias, const char *path, struct kind *miss, struct kind *shape)
{
	char s1[96], s2[96];
	want_shape_str(s2, sizeof s2, w->ndim, w->shape);
	if (!x->nparts && w->required)
		kind_say(miss, N_("%s: missing tensor %s %s"), path, w->name, s2);
	for (int k = 0; k < x->nparts; k++) {
		int p = x->part[k];
		if (p < 0 && x->nparts > 1)
			kind_say(miss, N_("%s: missing tensor %s (part %d of %d of %s %s)"), path,
				 x->fname[k], k + 1, x->nparts, w->name, s2);
		else if (p < 0 && w->required && !(w->is_bias && nobias) &&
			 strcmp(w->name, x->fname[k]) == 0)
			kind_say(miss, N_("%s: missing tensor %s %s"), path, w->name, s2);
		else if (p < 0 && w->required && !(w->is_bias && nobias))
			kind_say(miss, N_("%s: missing tensor %s %s (as %s in the file)"), path,
				 w->name, s2, x->fname[k]);
		else if (p >= 0 && !want_part_fits(w, x->nparts, k, &F->t[p])) {
			st_shape_str(s1, sizeof s1, &F->t[p]);
			if (x->nparts > 1) {
				int rows = want_part_rows(w, x->nparts, k);
				if (w->ndim == 1)
					snprintf(s2, sizeof s2, "[%d]", rows);
				else
					snprintf(s2, sizeof s2, "[%d, %d]", rows, w->shape[1]);
			}
			if (w->transposed)   /* as the file stores it */
				snprintf(s2, sizeof s2, "[%d, %d]", w->shape[1], w->shape[0]);
			kind_say(shape, N_("%s: tensor %s has shape %s; %s needs %s"), path,
				 F->t[p].name, s1, w->name, s2);
		}
	}
}

/* Lists every mismatch into e: the counts, what would fit, a few of each
 * kind (unexpected, missing, misshapen), then the rest of each: the
 * message buffer fills, and what helps must come before it does. */
int weights_mismatch(const struct model *m, const struct wants *ws,
		     const struct fnames *F, const struct wmatch *mt,
		     const int *claimed, int nobias, struct err *e)
{
	const struct config *c = &m->cfg;
	const char *path = c->weights_path;
	struct msgbuf *b = calloc(1, sizeof *b);
	struct kind k[4] = { { 0 } };   /* unexpected, missing, shape, suggestions */
	char s1[96];
	if (!b)
		return err_set(e, "out of memory");
	for (int i = 0; i < F->n; i++)
		if (!claimed[i] && !layout_ignored(c, c->layout, F->canon[i])) {
			st_shape_str(s1, sizeof s1, &F->t[i]);
			kind_say(&k[0], N_("%s: unexpected tensor %s %s"), path, F->t[i].name, s1);
		}
	for (int i = 0; i < ws->n; i++)
		want_problems(&ws->w[i], &mt[i], F, nobias, path, &k[1], &k[2]);
	suggest(m, F, path, k[0].n + k[1].n > 0, &k[3]);
	if (k[0].n + k[1].n + k[2].n + k[3].n > 1) {   /* one problem: one line */
		char head[512], line[1024];
		snprintf(head, sizeof head, _("%s: the tensors do not fit the model (layout %s): "
					      "%d unexpected, %d missing, %d of the wrong shape"),
			 path, LAYOUT_NAMES[c->layout], k[0].n, k[1].n, k[2].n);
		put(b, safetext_copy(line, sizeof line, head, 0));
	}
	for (int i = 0; i < k[3].n; i++)
		put(b, k[3].l[i]);
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < k[j].n && i < MISMATCH_FIRST; i++)
			put(b, k[j].l[i]);
	for (int j = 0; j < 3; j++)
		for (int i = MISMATCH_FIRST; i < k[j].n; i++)
			put(b, k[j].l[i]);
	if (b->dropped) {   /* put kept room for this line */
		char more[128];
		snprintf(more, sizeof more, _("… and %d more"), b->dropped);
		snprintf(b->s + b->n, sizeof b->s - b->n, "\n%s", more);
		b->lines++;
	}
	for (int j = 0; j < 4; j++)
		kind_free(&k[j]);
	err_set(e, "%s", b->s);
	e->lines = b->lines > 1;
	free(b);
	return -1;
}
