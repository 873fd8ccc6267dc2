/* tensorfile.h - one way to open a weights file, whatever its format.
 *
 * The format is chosen by the file's first bytes, not by its name: a zip
 * archive (or a pickle, which gets an explanation) is a torch.save file
 * (torchsave.h), anything else is read as safetensors (safetensors.h).
 * Both fill the same struct st_file. */
#ifndef ATTNSCOPE_TENSORFILE_H
#define ATTNSCOPE_TENSORFILE_H

#include "safetensors.h"

/* key: the checkpoint entry holding the state_dict (torch.save only; NULL
 * for the default search).  Returns 0, or -1 with e naming path. */
int tensorfile_open(struct st_file *f, const char *path, const char *key,
		    struct err *e);
/* Whether path starts like a weights file (safetensors or torch.save)
 * rather than a YAML document: for commands that take either. */
int tensorfile_sniff(const char *path);

#endif
