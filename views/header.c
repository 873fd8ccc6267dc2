/* header.c - the stepper's header: program, model, training time,
 * sentence, target, unknown words and the masks, always on screen. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "losscurve.h"
#include "screen_int.h"
#include "base/i18n.h"
#include "base/utf8.h"
#include "engine/model.h"

/* "  ⚠ unknown: reads, xyz · left out: ." while the pass has tokens typed
 * as words the vocabulary lacks, or punctuation it left out. */
static void input_marker(const struct trace *t, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < 2; k++) {
		char **typed = k ? t->tgt_typed : t->src_typed;
		int m = k ? t->T : t->S;
		for (int i = 0; typed && i < m; i++) {
			if (!typed[i])
				continue;
			/* each word once */
			int seen = 0;
			for (int kk = 0; kk <= k && !seen; kk++) {
				char **ty = kk ? t->tgt_typed : t->src_typed;
				int mm = kk == k ? i : t->S;
				for (int j = 0; ty && j < mm && !seen; j++)
					seen = ty[j] && !strcmp(ty[j], typed[i]);
			}
			if (seen || len + 8 >= n)
				continue;
			/* TRANSLATORS: the header's marker of words outside the
			 * vocabulary, then the words */
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : _("  ⚠ unknown: "),
						typed[i]);
		}
	}
	for (int i = 0; i < t->ndropped && len + 8 < n; i++)
		/* TRANSLATORS: the header's marker of punctuation left out */
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " :
					len ? _(" · left out: ") : _("  ⚠ left out: "), t->dropped[i]);
}

/* Training time in the header, after the model's name: "· training step
 * 54 of 3000, loss 2.31 ⠑⠢⣀⣀" with the snapshot on screen lit in the loss
 * curve.  Returns the column after it. */
static int draw_training(struct screen *s, struct canvas *c, int x)
{
	const struct model *m = s->v.m;
	if (!s->show_training || !m || (m->cfg.nsnaps < 1 && m->cfg.snapshot < 0))
		return x;
	const struct config *g = &m->cfg;
	int cur = g->snapshot < 0 ? g->nsnaps - 1 : model_snapshot_index(m, g->snapshot);
	long step = g->snapshot >= 0 ? g->snapshot : g->snaps[g->nsnaps - 1].step;
	char buf[160];
	if (g->snapshot < 0 && g->avg_k)
		/* TRANSLATORS: the header in training time on the trained weights
		   of train --average: the mean of that many checkpoints */
		snprintf(buf, sizeof buf, _("· trained: the mean of %d checkpoints, steps %ld to %ld "),
			 g->avg_k, g->avg_first, g->avg_last);
	else if (cur >= 0 && !isnan(g->snaps[cur].loss))
		/* TRANSLATORS: the header in training time (< >): the training
		   snapshot on screen, the run's last step and its training loss */
		snprintf(buf, sizeof buf, _("· training step %ld of %ld, loss %.2f "), step,
			 g->snaps[g->nsnaps - 1].step, g->snaps[cur].loss);
	else if (g->nsnaps)
		snprintf(buf, sizeof buf, _("· training step %ld of %ld "), step,
			 g->snaps[g->nsnaps - 1].step);
	else
		snprintf(buf, sizeof buf, _("· training step %ld "), step);
	/* a narrow terminal: the short form, so that the sentence shows */
	if (c->w - x - utf8_width(buf) - g->nsnaps < 40 && g->snapshot < 0 && g->avg_k)
		/* TRANSLATORS: the short form of "· trained: the mean of %d
		   checkpoints, steps %ld to %ld " for narrow terminals */
		snprintf(buf, sizeof buf, _("· mean of steps %ld–%ld "), g->avg_first, g->avg_last);
	else if (c->w - x - utf8_width(buf) - g->nsnaps < 40 && cur >= 0 &&
		 !isnan(g->snaps[cur].loss))
		/* TRANSLATORS: the short form of "· training step %ld of %ld,
		   loss %.2f " for narrow terminals */
		snprintf(buf, sizeof buf, _("· step %ld/%ld, loss %.2f "), step,
			 g->snaps[g->nsnaps - 1].step, g->snaps[cur].loss);
	x += put(c, x, 0, c->w - x, R_TITLE, i18n_decimals(buf));
	if (g->nsnaps < 2 || x + g->nsnaps + 1 >= c->w)
		return x;
	char curve[8 * 64];
	int at[65];
	int n = losscurve_text(g->snaps, g->nsnaps < 64 ? g->nsnaps : 64, cur, curve,
			       sizeof curve, at);
	int x0 = x;
	x += put(c, x, 0, c->w - x, R_TITLE, curve);
	if (cur >= 0 && cur < n) {   /* where you are: the bar, in the cursor's colours */
		char one[8];
		snprintf(one, sizeof one, "%.*s", at[cur + 1] - at[cur], curve + at[cur]);
		put(c, x0 + cur, 0, 1, R_CURSOR, one);
	}
	return x + put(c, x, 0, c->w - x, R_TITLE, " ");
}

/* The columns draw_training takes (measured on a scratch line). */
static int training_width(struct screen *s, const struct canvas *c)
{
	if (!s->show_training)
		return 0;
	struct canvas *sc = canvas_new(c->w, 1, c->depth);
	int w = sc ? draw_training(s, sc, 0) : 0;
	canvas_free(sc);
	return w;
}

/* The masks (and an ablated head) as the header says them: the long form,
 * or (short != 0) the short one for narrow terminals. */
static void masks_text(const struct screen *s, int brief, char *buf, size_t n)
{
	const struct pass_opts *o = &s->v.tr->opts;
	enum arch arch = s->v.m ? s->v.m->cfg.arch : ARCH_ENC_DEC;
	char dm[96] = "", em[96] = "";
	if (arch != ARCH_ENC_ONLY)
		/* TRANSLATORS: the header's state of the masks, always on
		 * screen; the short forms (dec, enc) are for narrow terminals. */
		snprintf(dm, sizeof dm, " %s", brief ? (o->causal ? _("dec causal") : _("dec OFF")) :
			 o->causal ? _("decoder mask causal") : _("decoder mask OFF"));
	if (arch != ARCH_DEC_ONLY)
		snprintf(em, sizeof em, "%s %s", *dm ? " ·" : "",
			 brief ? (o->encoder_causal ? _("enc causal") : _("enc off")) :
			 o->encoder_causal ? _("encoder mask causal") : _("encoder mask off"));
	snprintf(buf, n, "%s%s%s%s ", dm, em, o->ablate_head >= 0 ? " · " : "",
		 o->ablate_head >= 0 ? (brief ? _("ablated") : _("head ablated")) : "");
}

/* The target after the sentence: the one typed, or the model's
 * translation (brief 0: the long form, 1: the short one, 2: the text
 * alone); "" without one. */
static void target_text(const struct screen *s, int brief, char *buf, size_t n)
{
	buf[0] = 0;
	if (s->target && s->target_is_own && !brief)
		/* TRANSLATORS: the header, when no target was given: the
		 * decoder is teacher-forced on the model's own translation. */
		snprintf(buf, n, _(" → target: the model's translation “%s”"), s->target);
	else if (s->target && s->target_is_own && brief == 1)
		/* TRANSLATORS: the short form of the above. */
		snprintf(buf, n, _(" → model's: %s"), s->target);
	else if (s->target)
		snprintf(buf, n, " → %s", s->target);
}

/* The header: the program, the model (and training time), the sentence,
 * then the target and the words the model does not know, and the masks,
 * right-aligned, always.  All on one line when it holds them (the masks'
 * short form if need be); else the target and the masks go to a second
 * line, so that nothing is cut that two lines can hold.  Returns the
 * lines used (1 or 2). */
int screen_draw_header(struct screen *s, struct canvas *c, int max_lines)
{
	char buf[1024], masks[2][256], tgt[3][1024], mark[512], cut[1024];
	for (int k = 0; k < 3; k++) {
		if (k < 2)
			masks_text(s, k, masks[k], sizeof masks[k]);
		target_text(s, k, tgt[k], sizeof tgt[k]);
	}
	input_marker(s->v.tr, mark, sizeof mark);
	if (s->caveats && strlen(mark) + strlen(s->caveats) < sizeof mark)
		strcat(mark, s->caveats);   /* what the model cannot know */
	fill_line(c, 0, R_TITLE);
	snprintf(buf, sizeof buf, "│ %s ", s->model_name);
	const int kw = utf8_width(mark), nw = utf8_width(buf);
	const int sw = utf8_width(s->sentence) + 2;   /* "│ sentence" */
	/* one line: the long forms, the short masks, the short target, then
	 * without the program's name; else two lines */
	static const struct { int name, tk, mk; } ONE[] = {
		{ 1, 0, 0 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 },
	};
	/* (a tall screen has a line to spare for the target's long form) */
	const size_t none = c->h >= 30 ? 2 : sizeof ONE / sizeof *ONE;
	int lines = 2, mk = 0, tk = 0, name = 1;
	for (size_t k = 0; k < none && lines == 2; k++)
		if ((ONE[k].name ? 11 : 1) + nw + training_width(s, c) + sw +
		    utf8_width(tgt[ONE[k].tk]) + kw + utf8_width(masks[ONE[k].mk]) + 1 <= c->w) {
			lines = 1;
			name = ONE[k].name;
			tk = ONE[k].tk;
			mk = ONE[k].mk;
		}
	if (lines == 2 && max_lines == 1) {   /* the shortest, the target cut */
		lines = 1;
		name = 0;
		tk = mk = 1;
	}
	int x = put(c, 0, 0, c->w, R_TITLE, name ? " attnscope " : " ");
	x += put(c, x, 0, c->w - x, R_TITLE, buf);
	x = draw_training(s, c, x);
	snprintf(buf, sizeof buf, "│ %s", s->sentence);
	x += put(c, x, 0, c->w - x, R_TITLE, text_fit(buf, c->w - x, cut, sizeof cut));
	int y = 0, right = c->w;
	if (lines == 2) {
		fill_line(c, 1, R_TITLE);
		y = 1;
		x = 0;
		/* the long forms, else the short masks, else the short target,
		 * else the target's text alone */
		static const struct { int tk, mk; } TWO[] = { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 } };
		tk = 2;
		mk = 1;
		for (size_t k = 0; k < sizeof TWO / sizeof *TWO; k++)
			if (utf8_width(tgt[TWO[k].tk]) + kw + utf8_width(masks[TWO[k].mk]) + 1 <= c->w) {
				tk = TWO[k].tk;
				mk = TWO[k].mk;
				break;
			}
	}
	int mw = utf8_width(masks[mk]);
	put(c, right - mw, y, mw, R_TITLE, masks[mk]);
	/* the caveats' short form ("⚠ cancelled?") when the long one would
	 * cut the target, and the sign alone when only that keeps the target
	 * whole (`translate` names the words) */
	int room = right - mw - 1 - x - kw;
	if (s->caveats_short && room < utf8_width(tgt[tk])) {
		input_marker(s->v.tr, mark, sizeof mark);
		const int base = utf8_width(mark);
		const char *tail = s->caveats_short;
		if (right - mw - 1 - x - base - utf8_width(tail) < utf8_width(tgt[tk]) &&
		    right - mw - 1 - x - base - 3 >= utf8_width(tgt[tk]))
			tail = "  ⚠";
		if (strlen(mark) + strlen(tail) < sizeof mark)
			strcat(mark, tail);
		room = right - mw - 1 - x - utf8_width(mark);
	}
	/* the target gives way to the marker: cut at its end if need be */
	x += put(c, x, y, room > 12 ? room : 12, R_TITLE,
		 text_fit(tgt[tk], room > 12 ? room : 12, cut, sizeof cut));
	if (*mark) {
		struct style wn = role_style(R_WARN, c->depth), ti = role_style(R_TITLE, c->depth);
		canvas_text(c, x, y, right - mw - 1 - x, mark, wn.fg, ti.bg, wn.attr | ATTR_BOLD);
	}
	return lines;
}

