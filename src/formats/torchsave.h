/* torchsave.h - reading torch.save files (the zip format of PyTorch >= 1.6)
 * without Python and without running anything.
 *
 * A torch.save file is a zip archive (zipfile.h) holding FOLDER/data.pkl, a
 * pickle (pickle.h) of the saved object whose tensors refer by key to
 * storages FOLDER/data/KEY (raw little-endian bytes), plus FOLDER/version
 * and, in newer files, FOLDER/byteorder.  ts_open reads a state_dict (a dict
 * name -> tensor) or a checkpoint dict holding one into the same table the
 * safetensors reader fills (struct st_file), so the weights loader has one
 * path for both formats.
 *
 * Which dict: key (the model YAML's weights_key) names the entry of a
 * checkpoint dict; without it the first of state_dict, model_state_dict,
 * model that is a dict holding tensors, else the top-level dict itself.
 * In the chosen dict, tensor values become st_tensors; other values are
 * ignored.  Elsewhere in the file anything the restricted unpickler can
 * build may appear (optimizer state, iter_num, model_args, even instances
 * of unknown classes such as argparse.Namespace, which stay opaque); a
 * call of a function the unpickler does not know (os.system, builtins.eval)
 * refuses the whole file.
 *
 * Tensors: F32, F16, BF16, F64 (converted by st_to_f32), I64, I32, and
 * I16/I8/U8/BOOL/C64/C128 as ST_OTHER (listed, not converted).  A tensor
 * laid out contiguously points into the mapping (several may share one
 * storage: tied weights); any other strides are copied into t->owned in
 * row-major order, unless they make two elements share a place (an error),
 * as is a tensor reaching past its storage.  A big-endian file is an error.
 *
 * f->meta describes the file for `attnscope info`:
 *   "torch:state_dict"  the key of the chosen dict, "" for the top level
 *   "torch:entry:NAME"  each other entry of the top-level dict (the chosen
 *                       dict's own non-tensor entries too), a short
 *                       description such as "int 5" or "dict (3 entries)". */
#ifndef ATTNSCOPE_TORCHSAVE_H
#define ATTNSCOPE_TORCHSAVE_H

#include "safetensors.h"

/* Maps path and reads it as above; key may be NULL.  st_close frees it
 * (the owned copies too).  Returns 0, or -1 with e naming path (f zeroed). */
int ts_open(struct st_file *f, const char *path, const char *key, struct err *e);

/* Whether buf (the first n >= 4 bytes of a file) starts like a zip archive
 * or a pickle: what ts_open reads or explains. */
int ts_sniff(const unsigned char *buf, size_t n);

#endif
