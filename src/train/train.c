/* train.c - the training loop: batches, Adam, schedule, clipping,
 * evaluation, checkpoints, progress. */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backprop.h"
#include "checkpoint.h"
#include "modelfile.h"
#include "train.h"
#include "trainavg.h"
#include "trainset.h"
#include "trainsnap.h"
#include "base/clock.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/decode.h"
#include "engine/input.h"

static const double BETA1 = 0.9, BETA2 = 0.98, ADAM_EPS = 1e-9;

void train_opts_default(struct train_opts *o)
{
	memset(o, 0, sizeof *o);
	o->steps = 2000;
	o->batch_tokens = 4096;
	o->warmup = 400;
	o->eval_every = 500;
	o->eval_size = 500;
	o->lr_scale = 1.0;
	o->smoothing = 0.1;
	o->clip = 1.0;
	o->seed = 1;
	o->threads = 1;
	o->log = stderr;
}

double train_lr(int d_model, double lr_scale, int warmup, long step)
{
	double s = step < 1 ? 1 : (double)step;
	double w = warmup < 1 ? 1 : (double)warmup;
	double a = 1 / sqrt(s), b = s * pow(w, -1.5);
	return lr_scale / sqrt((double)d_model) * (a < b ? a : b);
}

/* "2m31s" */
static const char *hms(double s, char *buf, size_t n)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
	return buf;
}

#define MAX_WORKERS 16

struct run;

/* One share of a batch: its pairs, its training pass and its gradients. */
struct worker {
	struct run *r;
	struct backprop *bp;
	struct tbatch tb;
	const int *idx; int n;         /* pairs of the batch */
	struct bp_loss l;
	int failed;
	struct err e;
	pthread_t th;
};

/* Everything one run holds. */
struct run {
	const struct train_opts *o;
	struct model *m;
	struct trainset train, held;
	struct worker w[MAX_WORKERS];  /* data parallel: a share of each batch */
	int nw;
	float *m1, *m2;                /* Adam moments, one per parameter */
	size_t np;
	struct ckpt_state st;          /* step done, epoch and next batch */
	struct epoch ep;
	char *state_path;
	long saved_step;               /* last checkpoint on disk (−1: none) */
	long start_step;               /* where this session began */
	/* progress */
	double t_train;                /* seconds spent in steps */
	long tokens;                   /* real tokens trained on (src + tgt) */
	double win_nll; long win_tok;  /* loss since the last report */
	double last_loss;              /* mean NLL of the last report window */
	double last_draw;
	long shown_step;               /* the step of the last progress line */
	int drawn;                     /* a redrawn line is on screen */
	double acc;                    /* last held-out exact match, −1 none */
	int acc_n;
	struct trainsnap snap;         /* --snapshots: the plan and the copies */
	struct trainavg avg;           /* --average: the plan and the sum */
};

static void clear_line(struct run *r)
{
	if (r->drawn) {
		fputs("\r\033[K", r->o->log);
		r->drawn = 0;
	}
}

static void say(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct run *r, const char *fmt, ...)
{
	va_list ap;
	clear_line(r);
	va_start(ap, fmt);
	safetext_vfprintf(r->o->log, 0, fmt, ap);   /* paths, tokens */
	va_end(ap);
	fputc('\n', r->o->log);
	fflush(r->o->log);
}

static void progress(struct run *r, int force)
{
	const struct train_opts *o = r->o;
	double t = clock_ms() / 1e3;
	/* a tty: redraw at most 5 times a second; else a line when forced,
	 * and at least every 30 s */
	if (!force && t - r->last_draw < (o->redraw ? 0.2 : 30))
		return;
	r->last_draw = t;
	r->shown_step = r->st.step;
	if (r->win_tok)
		r->last_loss = r->win_nll / r->win_tok;
	r->win_nll = 0;
	r->win_tok = 0;
	double tps = r->t_train > 0 ? r->tokens / r->t_train : 0;
	long done = r->st.step, todo = o->steps - done;
	double per_step = done > r->start_step ? r->t_train / (double)(done - r->start_step) : 0;
	char eta[32], bar[24];
	int fill = (int)(20.0 * done / (o->steps ? o->steps : 1));
	for (int i = 0; i < 20; i++)
		bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
	bar[20] = 0;
	char line[256];
	/* TRANSLATORS: the progress line, redrawn in place on a terminal: keep it
	 * about as long as the English (at most 80 columns); ETA: time left. */
	snprintf(line, sizeof line,
		 _("step %ld/%ld [%s] loss %.3f  lr %.2e  %.1fk tok/s  ETA %s"),
		 done, o->steps, bar, r->last_loss,
		 train_lr(r->m->cfg.d_model, o->lr_scale, o->warmup, done ? done : 1),
		 tps / 1000, hms(per_step * todo, eta, sizeof eta));
	if (o->redraw) {
		fprintf(o->log, "\r%s\033[K", line);
		r->drawn = 1;
	} else {
		fprintf(o->log, "%s\n", line);
	}
	fflush(o->log);
}

/* Greedy exact match over the first n held-out pairs (all when n <= 0). */
static int evaluate(struct run *r, int n, struct err *e)
{
	const struct model *m = r->m;
	struct pass_opts po;
	struct decode_opts dopt;
	pass_opts_default(&po);
	decode_opts_default(&dopt);
	dopt.beam = 1;
	dopt.topk = 1;
	if (n <= 0 || n > r->held.n)
		n = r->held.n;
	int right = 0;
	for (int i = 0; i < n; i++) {
		const struct tpair *p = &r->held.p[i];
		struct pass_input in;
		struct decode_result res;
		if (input_build(m, p->cp->src, NULL, &po, &in, e))
			return err_prefix(e, "%s:%d", r->o->heldout, p->cp->line);
		dopt.max_len = p->T + 8;
		if (decode_run(m, &in, &po, &dopt, &res, e)) {
			input_free(&in);
			return -1;
		}
		/* the gold target is the decoder input after <s> */
		int ok = res.nbest == p->T - 1;
		for (int j = 0; ok && j < res.nbest; j++)
			ok = res.best[j] == p->tgt[j + 1];
		right += ok;
		decode_result_free(&res);
		input_free(&in);
	}
	r->acc = n ? (double)right / n : 0;
	r->acc_n = n;
	return 0;
}

static int save(struct run *r, struct err *e)
{
	const struct train_opts *o = r->o;
	char step[32], loss[32], seed[32], bt[32], lr[32], sm[32];
	snprintf(step, sizeof step, "%ld", r->st.step);
	snprintf(loss, sizeof loss, "%.4f", r->last_loss);
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	snprintf(bt, sizeof bt, "%d", o->batch_tokens);
	snprintf(lr, sizeof lr, "%g", o->lr_scale);
	snprintf(sm, sizeof sm, "%g", o->smoothing);
	char avg[64];
	snprintf(avg, sizeof avg, "%d %d %ld", r->avg.k, r->avg.every, r->avg.last);
	const char *keys[] = { "format", "attnscope.step", "attnscope.loss",
			       "attnscope.corpus", "attnscope.seed",
			       "attnscope.batch_tokens", "attnscope.lr_scale",
			       "attnscope.label_smoothing", "attnscope.average" };
	const char *vals[] = { "pt", step, loss, o->corpus, seed, bt, lr, sm, avg };
	struct ckpt_snaps cs;
	struct ckpt_avg ca;
	const char **figs = calloc((size_t)r->snap.n + 1, sizeof *figs);
	if (!figs)
		return err_set(e, "out of memory");
	trainsnap_ckpt(&r->snap, &cs, figs);
	/* the weights' metadata names an average only when they are one */
	int bad = ckpt_save_snaps(r->m, o->out, keys, vals, r->avg.applied ? 9 : 8, &cs, e);
	free(figs);
	if (bad || ckpt_save_state(r->m, r->state_path, r->m1, r->m2, &r->st,
				   trainavg_ckpt(&r->avg, &ca), e))
		return -1;
	r->saved_step = r->st.step;
	return 0;
}

static double grad_norm(const float *g, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)g[i] * g[i];
	return sqrt(s);
}

static void adam(struct run *r, const float *g, double scale, double lr)
{
	const long t = r->st.step + 1;
	const double c1 = 1 - pow(BETA1, (double)t), c2 = 1 - pow(BETA2, (double)t);
	const float b1 = (float)BETA1, b2 = (float)BETA2;
	const float a = (float)(lr / c1), ic2 = (float)(1 / c2), sc = (float)scale;
	size_t off = 0;
	for (int i = 0; i < r->m->ntensors; i++) {
		struct wtensor *w = &r->m->tensors[i];
		size_t n = (size_t)w->shape[0] * w->shape[1];
		float *p = w->data, *m1 = r->m1 + off, *m2 = r->m2 + off;
		const float *gi = g + off;
		for (size_t j = 0; j < n; j++) {
			float gj = gi[j] * sc;
			m1[j] = b1 * m1[j] + (1 - b1) * gj;
			m2[j] = b2 * m2[j] + (1 - b2) * gj * gj;
			p[j] -= a * m1[j] / (sqrtf(m2[j] * ic2) + (float)ADAM_EPS);
		}
		off += n;
	}
}

/* Shares the next batch out to the workers; returns how many got pairs. */
static int next_batch(struct run *r, struct err *e)
{
	while (r->st.batch >= r->ep.nbatches) {
		epoch_free(&r->ep);
		r->st.epoch++;
		r->st.batch = 0;
		if (trainset_epoch(&r->train, r->o->seed, r->st.epoch, r->o->batch_tokens,
				   &r->ep, e))
			return -1;
	}
	const int k = r->st.batch;
	const int *idx = r->ep.order + r->ep.start[k];
	const int n = r->ep.start[k + 1] - r->ep.start[k];
	const int nw = n < r->nw ? n : r->nw;
	for (int i = 0; i < nw; i++) {
		r->w[i].idx = idx + (size_t)n * i / nw;
		r->w[i].n = (int)((size_t)n * (i + 1) / nw - (size_t)n * i / nw);
	}
	return nw;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct run *r = w->r;
	w->failed = trainset_batch(&r->train, w->idx, w->n, &w->tb, &w->e) ||
		    backprop_forward(w->bp, &w->tb.b, (float)r->o->smoothing, &w->l, &w->e);
	/* a non-finite loss is reported by the caller; no backward for it */
	if (!w->failed && isfinite(w->l.nll) && isfinite(w->l.smoothed))
		w->failed = backprop_backward(w->bp, &w->e) != 0;
	return NULL;
}

/* Forward and backward of one batch over nw workers; the gradient of the
 * batch's mean loss ends in worker 0's buffer (each worker's gradient is
 * the mean over its own tokens, so they are weighted by their counts). */
static int step_batch(struct run *r, int nw, struct bp_loss *l, struct err *e)
{
	int started[MAX_WORKERS] = { 0 };
	for (int i = 1; i < nw; i++)
		started[i] = pthread_create(&r->w[i].th, NULL, work, &r->w[i]) == 0;
	work(&r->w[0]);
	for (int i = 1; i < nw; i++) {
		if (started[i])
			pthread_join(r->w[i].th, NULL);
		else
			work(&r->w[i]);
	}
	memset(l, 0, sizeof *l);
	for (int i = 0; i < nw; i++) {
		if (r->w[i].failed) {
			*e = r->w[i].e;
			return -1;
		}
		l->nll += r->w[i].l.nll;
		l->smoothed += r->w[i].l.smoothed;
		l->ntok += r->w[i].l.ntok;
	}
	if (nw > 1 && l->ntok && isfinite(l->nll) && isfinite(l->smoothed)) {
		float *g = backprop_grads(r->w[0].bp);
		cblas_sscal((int)r->np, (float)r->w[0].l.ntok / (float)l->ntok, g, 1);
		for (int i = 1; i < nw; i++)
			cblas_saxpy((int)r->np, (float)r->w[i].l.ntok / (float)l->ntok,
				    backprop_grads(r->w[i].bp), 1, g, 1);
	}
	return 0;
}

static int load_data(struct run *r, struct err *e)
{
	const struct train_opts *o = r->o;
	if (trainset_load(&r->train, r->m, o->corpus, e))
		return -1;
	if (o->heldout && r->m->cfg.arch == ARCH_ENC_DEC &&
	    trainset_load(&r->held, r->m, o->heldout, e))
		return -1;
	return 0;
}

/* What load_data read, said once the outputs are known to be writable
 * (a refusal is one line). */
static void report_data(struct run *r)
{
	const struct train_opts *o = r->o;
	char buf[1024];
	int skipped = 0;
	for (int k = 0; k < CORPUS_NBAD; k++)
		skipped += r->train.corpus.nbad[k];
	if (skipped)
		say(r, _("corpus %s: %d pairs, %ld source and %ld target words (bad lines "
			 "skipped, see above)"), o->corpus, r->train.n, r->train.src_tokens,
		    r->train.tgt_tokens);
	else
		say(r, _("corpus %s: %d pairs, %ld source and %ld target words"), o->corpus,
		    r->train.n, r->train.src_tokens, r->train.tgt_tokens);
	if (r->train.unknown)
		say(r, _("attnscope: warning: %s: %s"), o->corpus,
		    trainset_unknown_summary(&r->train, buf, sizeof buf));
	if (o->heldout && r->m->cfg.arch != ARCH_ENC_DEC) {
		say(r, _("attnscope: warning: %s: held-out translation accuracy needs an "
			 "encoder-decoder model; not measured"), o->heldout);
	} else if (o->heldout) {
		say(r, _("held-out %s: %d pairs"), o->heldout, r->held.n);
		if (r->held.unknown)
			say(r, _("attnscope: warning: %s: %s"), o->heldout,
			    trainset_unknown_summary(&r->held, buf, sizeof buf));
	}
}

/* The average in the state file sp: a finished run's weights file holds
 * the mean, and training goes on from the last step's own weights. */
static int resume_average(struct run *r, const char *sp, struct err *e)
{
	float *sum = malloc((r->np ? r->np : 1) * sizeof *sum);
	float *raw = malloc((r->np ? r->np : 1) * sizeof *raw);
	struct ckpt_avg ca = { .sum = sum, .raw = raw };
	int rc = sum && raw ? ckpt_load_avg(r->m, sp, &ca, e) : err_set(e, "out of memory");
	if (rc == 0 && ca.raw)
		trainavg_restore(r->m, ca.raw);
	if (rc >= 0)
		rc = trainavg_resume(&r->avg, rc == 0 ? &ca : NULL, sp, r->st.step, e);
	if (rc == 0 && !r->avg.k && ca.count)
		say(r, _("attnscope: warning: %s was averaging %d checkpoints (--average); "
			 "this run, without --average, ends with its last step's own weights"),
		    r->o->resume, ca.k);
	free(sum);
	free(raw);
	return rc;
}

static int resume(struct run *r, struct err *e)
{
	const struct train_opts *o = r->o;
	long wstep;
	char *sp = ckpt_state_path(o->resume);
	if (!sp)
		return err_set(e, "out of memory");
	if (ckpt_load_weights(r->m, o->resume, &wstep, e)) {
		free(sp);
		return -1;
	}
	if (access(sp, F_OK) != 0) {
		say(r, _("attnscope: warning: %s: no optimizer state (%s); Adam and the "
			 "schedule start afresh from these weights"), o->resume, sp);
		free(sp);
		return 0;
	}
	int rc = ckpt_load_state(r->m, sp, r->m1, r->m2, &r->st, e);
	if (!rc)
		rc = resume_average(r, sp, e);
	if (!rc && wstep != r->st.step)
		rc = err_set(e, "%s holds step %ld but %s holds step %ld; they do not belong "
			     "together", o->resume, wstep, sp, r->st.step);
	if (!rc && r->st.seed != o->seed)
		say(r, _("attnscope: warning: resuming with the checkpoint's seed %llu "
			 "(not %llu) to keep its batch order"), (unsigned long long)r->st.seed,
		    (unsigned long long)o->seed);
	if (!rc)
		say(r, _("resumed from %s at step %ld (epoch %d, batch %d)"), o->resume,
		    r->st.step, r->st.epoch, r->st.batch);
	if (!rc && strcmp(o->resume, o->out) == 0)
		r->saved_step = r->st.step;   /* the good checkpoint on disk */
	/* both are in memory now: --out may be the checkpoint resumed from */
	safefile_forget_input(o->resume);
	safefile_forget_input(sp);
	free(sp);
	return rc;
}

/* Everything that training will write, checked before the first step so
 * that a run never trains for hours and then fails to save: the outputs
 * (regular files or new, not an input, in a folder that takes files) and
 * the paths recorded in them (the checkpoint's metadata and the YAML's
 * training: record hold them as UTF-8 text). */
static int check_outputs(const struct run *r, struct err *e)
{
	const struct train_opts *o = r->o;
	if (!utf8_valid(o->corpus))
		return err_set(e, "%s: the corpus file name is not valid UTF-8, and the "
			       "checkpoint records it as text (rename the file)", o->corpus);
	if (o->record && o->heldout && !utf8_valid(o->heldout))
		return err_set(e, "%s: the held-out file name is not valid UTF-8, and "
			       "--record writes it into the YAML (rename the file)", o->heldout);
	if (safefile_check(o->out, 0, e) || safefile_check(r->state_path, 0, e))
		return -1;
	if (o->record && safefile_check(o->model, SAFEFILE_INPUT_OK, e))
		return err_prefix(e, "--record");
	if (o->snapshots && safefile_check(o->model, SAFEFILE_INPUT_OK, e))
		return err_prefix(e, "--snapshots");
	return 0;
}

static void record(struct run *r, double minutes, double tps)
{
	const struct train_opts *o = r->o;
	char v[14][64];
	snprintf(v[0], sizeof v[0], "%d", r->train.n);
	snprintf(v[1], sizeof v[1], "%ld", o->steps);
	snprintf(v[2], sizeof v[2], "%d", o->batch_tokens);
	snprintf(v[3], sizeof v[3], "%g", o->lr_scale);
	snprintf(v[4], sizeof v[4], "%d", o->warmup);
	snprintf(v[5], sizeof v[5], "%g", o->smoothing);
	snprintf(v[6], sizeof v[6], "%g", o->clip);
	snprintf(v[7], sizeof v[7], "%llu", (unsigned long long)o->seed);
	snprintf(v[8], sizeof v[8], "%d", r->nw);
	snprintf(v[9], sizeof v[9], "%.4f", r->last_loss);
	/* the record is data in the model's YAML: English whatever the language */
	snprintf(v[10], sizeof v[10], "%.2f%% of %d (greedy)", 100 * r->acc, r->acc_n);
	snprintf(v[11], sizeof v[11], "%.0f", tps);
	snprintf(v[12], sizeof v[12], "%.1f", minutes);
	snprintf(v[13], sizeof v[13], "mean of the last %d checkpoints (steps %ld to %ld)",
		 r->avg.k, trainavg_first(&r->avg), r->avg.last);
	const char *keys[] = { "corpus", "pairs", "steps", "batch_tokens", "lr_scale",
			       "warmup", "label_smoothing", "clip", "seed", "threads",
			       "final_loss", "heldout", "heldout_exact_match",
			       "tokens_per_second", "minutes", "average" };
	const char *vals[] = { o->corpus, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			       v[7], v[8], v[9], o->heldout ? o->heldout : "none",
			       r->acc >= 0 ? v[10] : "not measured", v[11], v[12], v[13] };
	struct err e;
	if (modelfile_set_training(o->model, keys, vals, r->avg.applied ? 16 : 15, &e))
		say(r, _("attnscope: warning: the training record was not written: %s"), e.msg);
	else
		say(r, _("training record written into %s"), o->model);
}

/* The snapshots in the weights file, listed in the YAML's snapshots:
 * (with --record and none taken, a list left from an earlier run goes:
 * the new weights file has no snapshots). */
static void record_snapshots(struct run *r)
{
	struct err e;
	char w[256];
	if (!r->snap.taken && !r->o->record)
		return;
	if (!modelfile_weights_are(r->o->model, r->o->out, w, sizeof w)) {
		/* the list describes the file weights: names, which is not this
		 * one: --snapshot could not load what it would list */
		if (r->snap.taken)
			say(r, *w ? _("%d snapshots kept in %s (snapshot.STEP.*); not listed in "
				      "%s, whose weights: is %s (point it at %s to use them)")
				  : _("%d snapshots kept in %s (snapshot.STEP.*); not listed in "
				      "%s, which has no weights: file%s (point weights: at %s to "
				      "use them)"), r->snap.taken, r->o->out, r->o->model, w,
			    r->o->out);
		return;
	}
	if (trainsnap_record(&r->snap, r->o->model, &e))
		say(r, _("attnscope: warning: the snapshots: list was not written: %s"), e.msg);
	else if (r->snap.taken)
		say(r, P_("%d snapshot kept in %s (snapshot.STEP.*), listed in %s",
			  "%d snapshots kept in %s (snapshot.STEP.*), listed in %s",
			  r->snap.taken), r->snap.taken, r->o->out, r->o->model);
}

static void run_free(struct run *r)
{
	trainset_free(&r->train);
	trainset_free(&r->held);
	for (int i = 0; i < r->nw; i++) {
		backprop_free(r->w[i].bp);
		tbatch_free(&r->w[i].tb);
	}
	free(r->m1);
	free(r->m2);
	epoch_free(&r->ep);
	free(r->state_path);
	trainsnap_free(&r->snap);
	trainavg_free(&r->avg);
	model_free(r->m);
}

/* The plan's snapshot of this step, if it is one: the weights, the
 * losses, and the held-out exact match on the periodic evaluation's pairs
 * (the run's own evaluation figures are left as they were). */
static int snapshot(struct run *r, struct err *e)
{
	if (!trainsnap_due(&r->snap, r->st.step))
		return 0;
	double acc = r->acc;
	int acc_n = r->acc_n;
	double exact = -1;
	if (r->held.n) {
		if (evaluate(r, r->o->eval_size, e))
			return -1;
		exact = 100 * r->acc;
	}
	r->acc = acc;
	r->acc_n = acc_n;
	return trainsnap_take(&r->snap, r->m, &r->train, r->held.n ? &r->held : NULL,
			      r->o->eval_size, exact, e);
}

static enum train_status loop(struct run *r, struct err *e)
{
	const struct train_opts *o = r->o;
	int save_due = 0;
	while (r->st.step < o->steps) {
		if (o->stop && *o->stop)
			return TRAIN_STOPPED;
		double t0 = clock_ms() / 1e3;
		struct bp_loss l;
		int nw = next_batch(r, e);
		if (nw < 0 || step_batch(r, nw, &l, e))
			return TRAIN_FAILED;
		double loss = l.ntok ? l.nll / l.ntok : 0;
		if (!isfinite(loss) || !isfinite(l.smoothed)) {
			if (isnan(loss))
				err_set(e, "the loss became NaN at step %ld", r->st.step + 1);
			else
				err_set(e, "the loss became infinite at step %ld", r->st.step + 1);
			return TRAIN_NAN;
		}
		const float *g = backprop_grads(r->w[0].bp);
		double gn = grad_norm(g, r->np);
		if (!isfinite(gn)) {
			err_set(e, "the gradient became NaN at step %ld", r->st.step + 1);
			return TRAIN_NAN;
		}
		/* the weights of the last step gave a finite loss: keep them */
		if (save_due) {
			if (save(r, e))
				return TRAIN_FAILED;
			save_due = 0;
		}
		double scale = o->clip > 0 && gn > o->clip ? o->clip / gn : 1.0;
		adam(r, g, scale, train_lr(r->m->cfg.d_model, o->lr_scale, o->warmup,
					   r->st.step + 1));
		r->st.step++;
		r->st.batch++;
		if (trainavg_due(&r->avg, r->st.step))
			trainavg_add(&r->avg, r->m);
		for (int i = 0; i < nw; i++)
			r->tokens += r->w[i].tb.src_tokens + r->w[i].tb.tgt_tokens;
		r->win_nll += l.nll;
		r->win_tok += l.ntok;
		r->t_train += clock_ms() / 1e3 - t0;
		if (snapshot(r, e))
			return TRAIN_FAILED;
		const long every = o->steps >= 20 ? o->steps / 20 : 1;
		progress(r, !o->redraw && r->st.step % every == 0);
		if (o->eval_every && r->st.step % o->eval_every == 0 && r->st.step < o->steps) {
			if (r->held.n) {
				if (evaluate(r, o->eval_size, e))
					return TRAIN_FAILED;
				say(r, _("step %ld: held-out exact match %.1f%% (%d pairs, greedy)"),
				    r->st.step, 100 * r->acc, r->acc_n);
			}
			save_due = 1;
		}
	}
	return TRAIN_DONE;
}

enum train_status train_run(const struct train_opts *o, struct err *e)
{
	struct run r = { .o = o, .saved_step = -1, .acc = -1, .shown_step = -1 };
	enum train_status status = TRAIN_FAILED;
	r.st.seed = o->seed;
	if (!(r.m = modelfile_load_fresh(o->model, o->seed, e)))
		goto out;
	if (load_data(&r, e))
		goto out;
	/* the workers are the parallelism: BLAS runs in each one's thread */
	openblas_set_num_threads(1);
	r.nw = o->threads < 1 ? 1 : o->threads > MAX_WORKERS ? MAX_WORKERS : o->threads;
	for (int i = 0; i < r.nw; i++) {
		r.w[i].r = &r;
		if (!(r.w[i].bp = backprop_new(r.m, e)))
			goto out;
	}
	r.np = backprop_nparams(r.w[0].bp);
	r.m1 = calloc(r.np ? r.np : 1, sizeof *r.m1);
	r.m2 = calloc(r.np ? r.np : 1, sizeof *r.m2);
	r.state_path = ckpt_state_path(o->out);
	if (!r.m1 || !r.m2 || !r.state_path) {
		err_set(e, "out of memory");
		goto out;
	}
	if (o->average &&
	    trainavg_plan(&r.avg, r.np, o->average, o->eval_every, o->steps, e))
		goto out;
	if (o->resume && resume(&r, e))
		goto out;
	if (check_outputs(&r, e))
		goto out;
	report_data(&r);
	r.start_step = r.st.step;
	struct train_opts o2 = *o;   /* the batch order follows the run's seed */
	o2.seed = r.st.seed;
	r.o = &o2;
	if (trainset_epoch(&r.train, o2.seed, r.st.epoch, o->batch_tokens, &r.ep, e))
		goto out;
	if (r.st.batch > r.ep.nbatches) {
		err_set(e, "%s: attnscope.batch %d is past the %d batches of an epoch", r.state_path,
			r.st.batch, r.ep.nbatches);
		goto out;
	}
	if (o->snapshots) {
		if (trainsnap_plan(&r.snap, r.m, o->snapshots, o->steps, e) ||
		    (o->resume && trainsnap_resume(&r.snap, r.m, o->resume, r.st.step, e)) ||
		    snapshot(&r, e))
			goto out;
		if (o->resume)   /* read again: --out may be it */
			safefile_forget_input(o->resume);
	}
	say(&r, P_("model %s: %zu parameters; %ld steps of ≤ %d tokens, %d batches an epoch, "
		   "%d thread",
		   "model %s: %zu parameters; %ld steps of ≤ %d tokens, %d batches an epoch, "
		   "%d threads", r.nw),
	    o->model, r.np, o->steps, o->batch_tokens, r.ep.nbatches, r.nw);
	double t0 = clock_ms() / 1e3;
	r.last_draw = t0;
	status = loop(&r, e);
	double minutes = (clock_ms() / 1e3 - t0) / 60;
	if (r.shown_step != r.st.step || o->redraw)
		progress(&r, 1);
	if (r.drawn) {   /* the final progress line stays */
		fputc('\n', o->log);
		r.drawn = 0;
	}
	double tps = r.t_train > 0 ? r.tokens / r.t_train : 0;
	if (status == TRAIN_NAN) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		if (r.saved_step >= 0)
			err_set(e, "%s; stopped, the last good checkpoint (step %ld) is kept in %s",
				msg, r.saved_step, o->out);
		else
			err_set(e, "%s; stopped before any checkpoint was written", msg);
		goto out;
	}
	if (status == TRAIN_FAILED)
		goto out;
	if (status == TRAIN_DONE)
		trainavg_apply(&r.avg, r.m);
	if (save(&r, e)) {
		status = TRAIN_FAILED;
		goto out;
	}
	record_snapshots(&r);
	if (status == TRAIN_STOPPED) {
		say(&r, _("interrupted at step %ld: checkpoint saved to %s (continue with "
			  "--resume %s)"), r.st.step, o->out, o->out);
		goto out;
	}
	say(&r, _("trained %ld steps in %.1f min: %.0f tokens/s (source + target), "
		  "final loss %.4f"), r.st.step, minutes, tps, r.last_loss);
	if (r.held.n) {
		if (evaluate(&r, 0, e)) {
			status = TRAIN_FAILED;
			goto out;
		}
		say(&r, _("held-out exact match %.2f%% (%d pairs, greedy)"), 100 * r.acc, r.acc_n);
	}
	if (r.avg.applied)
		say(&r, _("checkpoint %s: the mean of the last %d checkpoints (steps %ld to "
			  "%ld, every %d); the last step's own weights are in the optimizer "
			  "state %s"), o->out, r.avg.k, trainavg_first(&r.avg),
		    r.avg.last, r.avg.every, r.state_path);
	else
		say(&r, _("checkpoint %s (optimizer state %s)"), o->out, r.state_path);
	if (o->record)
		record(&r, minutes, tps);
out:
	run_free(&r);
	return status;
}
