/* hf.h - a Hugging Face model folder as a model (DESIGN.md "Hugging Face
 * model folders"): config.json with model_type gpt2 or bert, the weights
 * in model.safetensors (or pytorch_model.bin) under Hugging Face's names,
 * and the tokenizer's vocabulary (vocab.json, vocab.txt). */
#ifndef ATTNSCOPE_HF_H
#define ATTNSCOPE_HF_H

#include "model.h"

/* Whether path is a directory (model_load then reads it as a folder). */
int hf_is_folder(const char *path);

/* Loads the folder dir.  Returns the model (model_free frees it), or NULL
 * with e naming the file and what is wrong. */
struct model *hf_load(const char *dir, struct err *e);

#endif
