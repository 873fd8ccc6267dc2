/* importance.h - which attention heads the output needs: each head zeroed
 * in turn, the whole pass run again.
 *
 * For every head of the model (encoder self-attention, decoder
 * self-attention, cross-attention; each layer, each head) the pass runs
 * teacher forced on the same input with that head's output zeroed before
 * W_O (pass_opts.ablate_*, what the stepper's x does), and
 *   drop = Σ_t −log p_zeroed(label_t) − Σ_t −log p(label_t)
 * over the labelled positions (the trace's loss): how many nats of
 * log-probability the labels lose without the head.  Positive: the head
 * helps; near 0: it does not matter for this sentence; negative: the
 * output is better without it.
 *
 * importance_exact adds, over N held-out pairs, the share of sentences
 * that greedy decoding still translates exactly (token for token) with
 * the head zeroed: the sentence-level effect, as align-eval scores each
 * head over a corpus.
 *
 * Dimension names: N heads of the model (L_enc·h + L_dec·h, + L_dec·h
 * cross-attention ones). */
#ifndef ATTNSCOPE_IMPORTANCE_H
#define ATTNSCOPE_IMPORTANCE_H

#include "input.h"
#include "model.h"
#include "trace.h"

struct corpus;

struct head_score {
	int block;          /* BLK_ENCODER or BLK_DECODER */
	int layer;
	int cross;          /* 1: cross-attention */
	int head;
	double drop;        /* nats of Σ log p(label) lost when zeroed */
	double exact;       /* held-out exact match with it zeroed (0…1),
	                       −1 when not measured */
};

struct importance {
	struct head_score *h;   /* [n], in the model's order */
	int n;
	double base_nll;        /* Σ −log p(label) with every head */
	int nlabels;            /* labelled positions summed over */
	double base_exact;      /* held-out exact match with every head, or −1 */
	int nsent;              /* held-out pairs scored (0: none) */
};

/* Scores every head on in (which must hold labels: a target, or a
 * decode_teacher_force output).  po gives the masks; its ablation is
 * replaced.  Returns 0, or -1 with e filled. */
int importance_run(const struct model *m, const struct pass_input *in,
		   const struct pass_opts *po, struct importance *imp, struct err *e);

/* Adds held-out exact match over the first max pairs of c (0: all) to
 * an imp of importance_run: greedy decoding of each source with each head
 * zeroed, compared token for token with the pair's target.  Returns 0,
 * or -1 with e filled (a pair the model cannot read names its line). */
int importance_exact(const struct model *m, const struct corpus *c, int max,
		     const struct pass_opts *po, struct importance *imp, struct err *e);

/* The index of the head of largest drop (−1 when none). */
int importance_top(const struct importance *imp);
void importance_free(struct importance *imp);

#endif
