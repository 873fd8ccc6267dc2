/* weights_int.h - the parts of the weights binder (weights.c) that its
 * files share: the tensors a configuration wants (weights_want.c), their
 * places among a file's tensors (weights.c) and the report of a file
 * that does not fit (weights_report.c).  Internal to src/engine. */
#ifndef ATTNSCOPE_WEIGHTS_INT_H
#define ATTNSCOPE_WEIGHTS_INT_H

#include <stddef.h>

#include "layout.h"
#include "model.h"
#include "formats/tensorfile.h"

enum winit { WI_XAVIER, WI_ZERO, WI_ONE };

/* One tensor the configuration expects. */
struct want {
	char name[96];
	int ndim, shape[2];
	int required;         /* absent is an error */
	int in_random;        /* a random model creates it */
	enum winit init;
	const float **dest;
	int found;            /* index into m->tensors, or -1 */
	int is_bias;          /* all biases of a file are present, or none */
	int transposed;       /* the file stores it [in, out] (GPT-2's Conv1D) */
	int part_rows[TNAME_MAXPARTS];   /* rows of each part joined along the
	                                    first dimension (Q, K, V of
	                                    grouped-query attention); 0: equal */
};

struct wants {
	struct want *w;
	int n, cap;
};

/* Where one want's parts are among the file's tensors (-1: absent). */
struct wmatch {
	int nparts;
	int part[TNAME_MAXPARTS];
	char fname[TNAME_MAXPARTS][LAYOUT_NAME_MAX];
};

struct fnames {
	const struct st_tensor *t; int n;
	const char **canon;              /* the names without wrapper prefixes */
	char prefix[LAYOUT_NAME_MAX];    /* nn.Transformer's common prefix */
	int copy;                        /* no tensor in place (shards) */
};

/* The tensors m's configuration needs, appended to ws (which the caller
 * frees: ws->w).  Returns 0, or -1 out of memory. */
int wants_build(struct model *m, struct wants *ws);
/* "[d0]" or "[d0, d1]". */
void want_shape_str(char *buf, size_t n, int ndim, const int *shape);
/* The numbers w holds. */
size_t want_numel(const struct want *w);
/* The rows of part k of nparts of want w. */
int want_part_rows(const struct want *w, int nparts, int k);
/* Part k of nparts of want w: t's shape fits (learned positions may hold
 * more rows than max_len). */
int want_part_fits(const struct want *w, int nparts, int k, const struct st_tensor *t);

/* Maps every want onto the file's tensors under layout (tensor_names
 * too when use_tn) and marks the claimed ones.  Returns the number of
 * problems: missing parts of wanted tensors and file tensors neither
 * claimed nor ignored.  *nobias: the file has none of the biases. */
int weights_resolve(const struct config *c, const struct wants *ws, int layout,
		    int use_tn, const struct fnames *F, struct wmatch *mt,
		    int *claimed, int *nobias);

/* Lists every mismatch into e: the counts, what would fit, a few of each
 * kind (unexpected, missing, misshapen), then the rest of each.  Returns
 * -1. */
int weights_mismatch(const struct model *m, const struct wants *ws,
		     const struct fnames *F, const struct wmatch *mt,
		     const int *claimed, int nobias, struct err *e);

#endif
