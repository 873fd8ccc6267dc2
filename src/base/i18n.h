/* i18n.h - translated messages (GNU gettext).
 *
 * Every user-visible literal is marked: _("...") where it is used, N_("...")
 * in static tables that are translated later with _(). The error helpers
 * (err_set, err_prefix, warn_msg, cli_fail) translate their format
 * themselves, so their literals need no mark; xgettext knows them as
 * keywords (po/Makevars). Identifiers that are part of a file format or of
 * the trace contract (stage names, YAML keys, JSON fields) stay English. */
#ifndef ATTNSCOPE_I18N_H
#define ATTNSCOPE_I18N_H

#include "config.h"

#include <stddef.h>

#if ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#define P_(one, many, n) ngettext(one, many, (unsigned long)(n))
#else
#define _(s) (s)
#define P_(one, many, n) ((n) == 1 ? (one) : (many))
#endif
#define N_(s) (s)

/* Sets the locale (numbers always print and parse with a dot) and the
 * message language: lang ("pt_BR", "pt", "en", ...) when given, else the
 * locale's. A language without a catalog falls back to English silently. */
void i18n_init(const char *lang);

/* x with prec decimals as prose writes it in the message language: the
 * language's decimal separator ("0,58" in Portuguese) and a true minus
 * ("−0.58"; never "−0.00").  For numbers in sentences (captions,
 * explanations), not for tables or output that programs read.  Returns buf. */
const char *i18n_num(char *buf, size_t n, double x, int prec);

/* The same for a line already formatted with "%.2f": each '.' between two
 * digits becomes the language's separator, in place ("entropy 1,52 bits").
 * For labels and titles in prose, never for a cell's value a user may
 * copy.  Returns s. */
char *i18n_decimals(char *s);


/* The value of the last --lang or --lang=X in argv, else NULL (read before the
 * options are parsed, so that even their errors are translated). */
const char *i18n_lang_arg(int argc, char **argv);

#endif
