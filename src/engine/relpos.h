/* relpos.h - T5's relative position buckets (modeling_t5.py's
 * _relative_position_bucket), shared by the traced pass and the cached
 * decoder so both read the same rows of the bias table. */
#ifndef ATTNSCOPE_RELPOS_H
#define ATTNSCOPE_RELPOS_H

/* The bucket of a key at relative position rel = key − query:
 * bidirectional (the encoder) gives half of nb to keys after the query;
 * otherwise (the decoder) keys after the query share bucket 0.  Exact
 * buckets up to half the (half) range, then logarithmic up to max_dist,
 * computed in float as Hugging Face's float32 tensors do. */
int relpos_bucket(int rel, int bidirectional, int nb, int max_dist);

#endif
