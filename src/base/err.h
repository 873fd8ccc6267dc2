/* err.h - error reporting for library code.
 *
 * Library functions never exit: they fill a struct err with one line that
 * names the file (and line, for YAML) and what was expected versus found,
 * and return -1 (or NULL).  Only main() and the TUI decide to exit. */
#ifndef ATTNSCOPE_ERR_H
#define ATTNSCOPE_ERR_H

struct err {
	char msg[8192];   /* one line; a tensor mismatch lists one per tensor */
	int lines;        /* msg holds several lines the program made (each
	                     line's text from files already made safe) */
};

/* Formats msg into e (if e is non-NULL) and returns -1. */
int err_set(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefixes the existing message: "prefix: old message". Returns -1. */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prints "attnscope: warning: ..." to stderr. Warnings are for conditions
 * that do not stop the program (a NaN in weights, unknown words). */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The warnings so far: their count, and the first one's text (made safe;
 * "" when none).  The stepper takes the screen after the model loaded,
 * and shows them there: what went to stderr is hidden behind it. */
int warn_count(void);
const char *warn_first(void);

#endif
