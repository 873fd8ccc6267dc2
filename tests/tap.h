/* tap.h - a minimal TAP producer for the C unit tests.
 *
 * Each check prints "ok N - what" or "not ok N - what" with a diagnostic;
 * tap_done() prints the plan and returns the exit status (non-zero when any
 * check failed), so `return tap_done();` ends main. */
#ifndef ATTNSCOPE_TAP_H
#define ATTNSCOPE_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* Compares n floats; on mismatch prints the first differing index and the
 * largest difference. */
static inline int tap_close(const float *got, const float *want, size_t n,
			    double tol, const char *what)
{
	size_t first = n, worst = 0;
	double maxd = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)got[i] - (double)want[i]);
		int bad = !(d <= tol) &&
			  !(isinf(got[i]) && isinf(want[i]) &&
			    (got[i] > 0) == (want[i] > 0));
		if (bad && first == n)
			first = i;
		if (bad && !(d <= maxd)) {
			maxd = d;
			worst = i;
		}
	}
	int ok = first == n;
	tap_ok(ok, "%s (%zu values, tol %g)", what, n, tol);
	if (!ok)
		printf("# first mismatch at %zu: got %.9g want %.9g; "
		       "max |diff| %.3g at %zu\n",
		       first, got[first], want[first], maxd, worst);
	return ok;
}

static inline int tap_str(const char *got, const char *want, const char *what)
{
	int ok = got && want && strcmp(got, want) == 0;
	tap_ok(ok, "%s", what);
	if (!ok)
		printf("# got  \"%s\"\n# want \"%s\"\n", got ? got : "(null)",
		       want ? want : "(null)");
	return ok;
}

/* Checks that a message contains a substring. */
static inline int tap_contains(const char *msg, const char *needle,
			       const char *what)
{
	int ok = msg && strstr(msg, needle);
	tap_ok(ok, "%s", what);
	if (!ok)
		printf("# \"%s\" does not contain \"%s\"\n", msg ? msg : "(null)",
		       needle);
	return ok;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d checks failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
