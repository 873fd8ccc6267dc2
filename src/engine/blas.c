/* blas.c - the BLAS behind every product: which kernels it runs, and which
 * it should run on this CPU. */
#include <cblas.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "blas.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* What the CPU and the OS together support: 2 AVX-512 (F, BW, VL, DQ with
 * the ZMM state saved by the OS), 1 AVX2 + FMA (YMM state saved), 0 less.
 * *bf16 is set when AVX-512 BF16 is there too. */
static int cpu_level(int *bf16)
{
	unsigned a, b, c, d;
	*bf16 = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	const int fma = c >> 12 & 1, osxsave = c >> 27 & 1, avx = c >> 28 & 1;
	if (!osxsave || !avx || !fma || __get_cpuid_max(0, NULL) < 7)
		return 0;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 0x6) != 0x6)          /* XMM and YMM state */
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(b >> 5 & 1))              /* AVX2 */
		return 0;
	const unsigned f = 1u << 16, dq = 1u << 17, bw = 1u << 30, vl = 1u << 31;
	if ((b & (f | dq | bw | vl)) != (f | dq | bw | vl) ||
	    (lo & 0xe0) != 0xe0)        /* opmask, ZMM_Hi256, Hi16_ZMM state */
		return 1;
	if (a >= 1) {                   /* leaf 7 has a subleaf 1 */
		unsigned a1, b1, c1, d1;
		__cpuid_count(7, 1, a1, b1, c1, d1);
		*bf16 = a1 >> 5 & 1;
	}
	return 2;
}
#else
static int cpu_level(int *bf16)
{
	*bf16 = 0;
	return 0;
}
#endif

/* The kernels OpenBLAS has for AVX2 (1) and AVX-512 (2) CPUs; any other
 * name (Prescott, Core2, Nehalem, Sandybridge, Barcelona, ...) is a
 * generic or older core (0). */
static int core_level(const char *core)
{
	static const char *const AVX2[] = { "Haswell", "Zen", "Excavator", NULL };
	static const char *const AVX512[] = { "SkylakeX", "Cooperlake",
					      "SapphireRapids", NULL };
	for (int i = 0; AVX512[i]; i++)
		if (strcasecmp(core, AVX512[i]) == 0)
			return 2;
	for (int i = 0; AVX2[i]; i++)
		if (strcasecmp(core, AVX2[i]) == 0)
			return 1;
	return 0;
}

const char *blas_better_core(void)
{
	if (getenv(BLAS_ENV_CORE) || getenv(BLAS_ENV_FROM))
		return NULL;
	const char *core = openblas_get_corename();
	if (!core || core_level(core) > 0)
		return NULL;
	int bf16, lv = cpu_level(&bf16);
	if (lv == 2)
		return bf16 ? "Cooperlake" : "SkylakeX";
	return lv == 1 ? "Haswell" : NULL;
}

void blas_info_get(struct blas_info *b)
{
	static char path[PATH_MAX];
	Dl_info dl;
	const char *from = getenv(BLAS_ENV_FROM), *set = getenv(BLAS_ENV_CORE);
	/* the file behind the alternatives' symlink: it names the variant */
	b->library = "OpenBLAS";
	if (dladdr((void *)cblas_sgemm, &dl) && dl.dli_fname)
		b->library = realpath(dl.dli_fname, path) ? path : dl.dli_fname;
	b->config = openblas_get_config();
	if (sscanf(b->config, "OpenBLAS %31s", b->version) != 1)
		snprintf(b->version, sizeof b->version, "?");
	b->core = openblas_get_corename();
	/* corrected: this process is the re-executed one, the variable ours */
	b->from = from && *from && set ? from : NULL;
	b->user_core = set && !b->from;
	b->threads = openblas_get_num_threads();
	int p = openblas_get_parallel();
	b->parallel = p == 1 ? "pthreads" : p == 2 ? "OpenMP" : "sequential";
}
