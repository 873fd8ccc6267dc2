/* err.c - one-line error messages for library code. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "i18n.h"
#include "safetext.h"

int err_set(struct err *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		e->lines = 0;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, _(fmt), ap);
		va_end(ap);
	}
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	if (e) {
		char prefix[256], old[sizeof e->msg];
		int n;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(prefix, sizeof prefix, _(fmt), ap);
		va_end(ap);
		memcpy(old, e->msg, sizeof old);
		n = snprintf(e->msg, sizeof e->msg, "%s: ", prefix);
		if (n >= 0 && (size_t)n < sizeof e->msg)
			snprintf(e->msg + n, sizeof e->msg - (size_t)n, "%s", old);
	}
	return -1;
}

static int nwarn;
static char first_warn[512];

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	fputs(_("attnscope: warning: "), stderr);
	va_start(ap, fmt);
	safetext_vfprintf(stderr, 0, _(fmt), ap);   /* the arguments come from files */
	va_end(ap);
	fputc('\n', stderr);
	if (!nwarn++) {
		char raw[512];
		va_start(ap, fmt);
		vsnprintf(raw, sizeof raw, _(fmt), ap);
		va_end(ap);
		safetext_copy(first_warn, sizeof first_warn, raw, 0);
	}
}

int warn_count(void)
{
	return nwarn;
}

const char *warn_first(void)
{
	return first_warn;
}
