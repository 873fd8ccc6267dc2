/* gguf_model.h - `--model FILE.gguf`: a llama.cpp / Ollama GGUF file (v2,
 * v3) of the architectures llama, qwen2, qwen3, gemma and phi3 as a model
 * (DESIGN.md "The models people run today").
 *
 * The config is gguf_map_config's in struct config's terms (the fields
 * hf_llama.c sets from a folder's config.json; the layout llama, or phi3
 * for its fused projections); the rope_freqs.weight tensor of Llama 3.1's
 * files becomes the per-pair divisors of rope.freq_factors, as llama.cpp
 * applies them.  Every tensor is dequantised to F32 (gguf_map_tensor: in
 * Hugging Face's order and values) and bound by the layout as a Hugging
 * Face folder's tensors are; each struct wtensor keeps the type it had in
 * the file (dtype: "Q4_K", "Q6_K", "F16").  The tokenizer is
 * tokenizer.ggml.*'s (gguf_model_tok.c).  Nothing of the file is kept
 * mapped: the model owns F32 copies. */
#ifndef ATTNSCOPE_GGUF_MODEL_H
#define ATTNSCOPE_GGUF_MODEL_H

#include "model.h"

struct gguf_file;

/* Whether path names a GGUF file: *.gguf, or a file starting with the
 * magic "GGUF" (an Ollama blob has no extension). */
int gguf_model_is(const char *path);

/* Loads path.  Returns the model (model_free frees it), or NULL with e
 * holding one line that names the file. */
struct model *gguf_model_load(const char *path, struct err *e);

/* The tokenizer of f as m's (model_tok.h): vocabulary, specials (sos only
 * when the file adds BOS).  Returns 0, or -1 with e naming the file. */
int gguf_model_tok(struct model *m, const struct gguf_file *f, struct err *e);

#endif
