/* rope.c - rotary position embeddings (rope.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rope.h"

void rope_inv_freq(const struct config *c, int dk, float *inv)
{
	const struct rope_cfg *r = &c->rope;
	const float base = (float)(r->theta > 0 ? r->theta : 10000.0);
	for (int j = 0; j < dk / 2; j++) {
		/* 1 / base^(2j/dk), each step in F32 */
		float ex = (float)(2 * j) / (float)dk;
		float f = 1.0f / powf(base, ex);
		if (r->scaling == ROPE_LINEAR) {
			f = f / (float)r->factor;
		} else if (r->scaling == ROPE_LLAMA3) {
			const double lo_wl = r->orig_max / r->low_freq;
			const double hi_wl = r->orig_max / r->high_freq;
			const double wl = 2 * M_PI / f;
			if (wl > lo_wl) {
				f = f / (float)r->factor;
			} else if (wl >= hi_wl) {   /* between: blend */
				float s = (float)((r->orig_max / wl - r->low_freq) /
						  (r->high_freq - r->low_freq));
				f = (1 - s) * f / (float)r->factor + s * f;
			}
		}
		if (r->freq_factors && j < r->nfreq_factors)
			f = f / r->freq_factors[j];
		inv[j] = f;
	}
}

float rope_angle(const float *inv, int j, int p)
{
	return (float)p * inv[j];
}

void rope_apply(const float *x, int ldx, int n, int dk, int pos0,
		const float *inv, float *out, int ldo)
{
	const int half = dk / 2;
	for (int i = 0; i < n; i++) {
		const float *r = x + (size_t)i * ldx;
		float *o = out + (size_t)i * ldo;
		for (int j = 0; j < half; j++) {
			const float a = rope_angle(inv, j, pos0 + i);
			const float cs = (float)cos(a), sn = (float)sin(a);
			const float x1 = r[j], x2 = r[j + half];
			o[j] = x1 * cs - x2 * sn;
			o[j + half] = x2 * cs + x1 * sn;
		}
	}
}
