/* shards.h - a model split into safetensors shards, as Hugging Face's
 * save_pretrained writes it: NAME.safetensors.index.json, whose
 * "weight_map" names the shard of every tensor.
 *
 * shards_open opens every shard the index names (beside the index) and
 * gives their tensors as one struct st_file: its t[] are the shards'
 * tensors (each checked to be in the shard the index names), its maps are
 * kept in xmaps (st_close unmaps them), and its own map is NULL, so no
 * tensor of it is used in place. */
#ifndef ATTNSCOPE_SHARDS_H
#define ATTNSCOPE_SHARDS_H

#include "safetensors.h"

/* Whether path names a shard index (ends in ".index.json"). */
int shards_is_index(const char *path);

/* Returns 0, or -1 with e naming the index (or the shard) and what is
 * wrong: a shard missing, a tensor in another shard than the index says,
 * a tensor in two shards. */
int shards_open(struct st_file *f, const char *index, struct err *e);

#endif
