/* metapkl.h - nanoGPT's meta.pkl: a character vocabulary as a pickle.
 *
 * nanoGPT's data/shakespeare_char/prepare.py writes
 *   pickle.dump({'vocab_size': V, 'itos': {id: char}, 'stoi': {char: id}}, f)
 * The file is read with the restricted unpickler (pickle.h, no globals at
 * all) and itos gives the tokens: ids 0..V-1, each once, each a string. */
#ifndef ATTNSCOPE_METAPKL_H
#define ATTNSCOPE_METAPKL_H

#include "base/err.h"

/* Whether path starts like a pickle (protocol 2-5). */
int metapkl_sniff(const char *path);
/* Reads path's itos into *toks (n malloc'd strings in id order, the array
 * malloc'd too: free each, then the array) and *n.  Returns 0, or -1 with
 * e naming path and the problem. */
int metapkl_load(const char *path, char ***toks, int *n, struct err *e);

#endif
