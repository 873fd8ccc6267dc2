/* rope.h - rotary position embeddings (Su et al., RoFormer), as Hugging
 * Face's Llama-family code applies them: "rotate half".
 *
 * A head's row q[dk] at position p becomes
 *   q_rot[j]        = q[j]·cos(p·θ_j) − q[j + dk/2]·sin(p·θ_j)
 *   q_rot[j + dk/2] = q[j + dk/2]·cos(p·θ_j) + q[j]·sin(p·θ_j)
 * for j < dk/2, θ_j = theta^(−2j/dk) (then rope_scaling: linear divides
 * every θ_j by factor; llama3 divides the low frequencies, keeps the high
 * ones and blends between; a GGUF file's rope_freqs.weight divides θ_j by
 * its factor j, as llama.cpp does).  Dimension pairs (j, j + dk/2) turn by the
 * angle p·θ_j, so q·k depends on the two positions only through their
 * difference.  The frequencies and angles are computed in float as the
 * reference code does (its inv_freq, pos·inv_freq and cos/sin are F32). */
#ifndef ATTNSCOPE_ROPE_H
#define ATTNSCOPE_ROPE_H

#include "model.h"

/* θ_j for j < dk/2 into inv[dk/2]. */
void rope_inv_freq(const struct config *c, int dk, float *inv);

/* The rotation angle of pair j at position p (radians, as the F32 the
 * pass uses): for the rotary picture. */
float rope_angle(const float *inv, int j, int p);

/* Rotates n rows of x (row stride ldx, dk values each; positions pos0,
 * pos0 + 1, …) into out (row stride ldo; may be x with the same stride). */
void rope_apply(const float *x, int ldx, int n, int dk, int pos0,
		const float *inv, float *out, int ldo);

#endif
