/* blas.h - which OpenBLAS runs the products: its kernel, version, threads.
 *
 * OpenBLAS picks its kernels ("core") once, when it is loaded, and reads
 * OPENBLAS_CORETYPE only then.  Releases older than the CPU (0.3.21 of
 * Debian 12 on a Sapphire Rapids Xeon) do not recognise it and fall back
 * to the generic Prescott kernels, 3-5× slower.  blas_better_core() says
 * which kernel to ask for instead; the program re-executes itself with
 * OPENBLAS_CORETYPE set to it (src/cli/main.c), and marks that it did in
 * BLAS_ENV_FROM so that the new process neither loops nor mistakes the
 * choice for the user's. */
#ifndef ATTNSCOPE_BLAS_H
#define ATTNSCOPE_BLAS_H

#define BLAS_ENV_CORE "OPENBLAS_CORETYPE"
#define BLAS_ENV_FROM "ATTNSCOPE_BLAS_CORRECTED_FROM"   /* the core replaced */

/* The kernel to run on ("Cooperlake", "SkylakeX", "Haswell") when OpenBLAS
 * runs a generic core below what this CPU and its OS support; NULL when
 * the core is fine, when the user set OPENBLAS_CORETYPE, or when this
 * process already is the re-executed one. */
const char *blas_better_core(void);

struct blas_info {
	const char *library;    /* the shared object's path, or "OpenBLAS" */
	const char *config;     /* openblas_get_config(): version and build */
	char version[32];       /* "0.3.21", from config */
	const char *core;       /* kernels in use */
	const char *from;       /* the core replaced by the re-exec, or NULL */
	int user_core;          /* OPENBLAS_CORETYPE was set by the user */
	int threads;            /* OpenBLAS threads */
	const char *parallel;   /* "pthreads", "OpenMP" or "sequential" */
};
void blas_info_get(struct blas_info *b);

#endif
