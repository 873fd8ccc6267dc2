/* i18n.c - the message language: --lang, else the locale, else English.
 *
 * The catalogs are looked for where `make install` puts them, else in the
 * build tree (so ./attnscope speaks Portuguese before it is installed).
 * A locale that names a language the machine has no locale data for
 * (LANG=pt_BR.UTF-8 on a machine without it generated) still selects the
 * language: gettext ignores languages under the "C" locale, so we run under
 * C.UTF-8 and pass the language through LANGUAGE. */
#include <dirent.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"

const char *i18n_lang_arg(int argc, char **argv)
{
	const char *lang = NULL;   /* the last one counts, as for other options */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc)
			lang = argv[++i];
		else if (strncmp(argv[i], "--lang=", 7) == 0)
			lang = argv[i] + 7;
	}
	return lang;
}

#if ENABLE_NLS
/* Whether dir holds the catalog for lang (dir/lang/LC_MESSAGES/PACKAGE.mo). */
static int has_catalog(const char *dir, const char *lang)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/" PACKAGE ".mo", dir, lang);
	return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

/* The first of dir's catalogs whose language starts with prefix ("pt" ->
 * "pt_BR"), copied into out; 0 when there is none. */
static int find_catalog(const char *dir, const char *prefix, char *out, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t len = strlen(prefix);
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d)))
		if (de->d_name[0] != '.' && strncmp(de->d_name, prefix, len) == 0 &&
		    (de->d_name[len] == 0 || de->d_name[len] == '_') &&
		    strlen(de->d_name) < n && has_catalog(dir, de->d_name)) {
			strcpy(out, de->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

/* "pt_BR.UTF-8@x" -> "pt_BR" in out. */
static void bare_language(const char *s, char *out, size_t n)
{
	size_t len = strcspn(s, ".@:");
	if (len >= n)
		len = n - 1;
	memcpy(out, s, len);
	out[len] = 0;
}

/* The language the environment asks for, as gettext reads it. */
static const char *env_language(void)
{
	static const char *const VARS[] = { "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG" };
	for (size_t i = 0; i < sizeof VARS / sizeof *VARS; i++) {
		const char *v = getenv(VARS[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* The catalog for want ("pt_BR.UTF-8", "pt", ...) as a language name in
 * out, looked for where `make install` puts catalogs, then in the build
 * tree; *dir is where it was found.  0 when there is none. */
static int find_language(const char *want, char *out, size_t n, const char **dir)
{
	static const char *const DIRS[] = { ATTNSCOPE_LOCALEDIR, ATTNSCOPE_BUILD_LOCALEDIR };
	char bare[64];
	bare_language(want, bare, sizeof bare);
	if (!bare[0] || strcmp(bare, "C") == 0 || strcmp(bare, "POSIX") == 0 ||
	    strlen(bare) >= n)
		return 0;
	for (size_t i = 0; i < sizeof DIRS / sizeof *DIRS; i++) {
		*dir = DIRS[i];
		if (has_catalog(DIRS[i], bare)) {
			strcpy(out, bare);
			return 1;
		}
		/* its country variant we ship ("pt" -> "pt_BR") */
		if (find_catalog(DIRS[i], bare, out, n))
			return 1;
	}
	return 0;
}
#endif

void i18n_init(const char *lang)
{
	int have_locale = setlocale(LC_ALL, "") != NULL;
	if (!have_locale)
		setlocale(LC_ALL, "C.UTF-8");
	setlocale(LC_NUMERIC, "C");
#if ENABLE_NLS
	const char *want = lang ? lang : env_language();
	const char *dir = ATTNSCOPE_LOCALEDIR;
	char found[64];
	int ok = want && find_language(want, found, sizeof found, &dir);
	bindtextdomain(PACKAGE, dir);
	bind_textdomain_codeset(PACKAGE, "UTF-8");
	textdomain(PACKAGE);
	if (!lang && have_locale)
		return;             /* gettext reads the locale itself */
	/* a language with a catalog, else English: an unknown name is not an
	 * error */
	setenv("LANGUAGE", ok ? found : "en", 1);
	/* LANGUAGE is ignored under the C locale */
	const char *msgs = setlocale(LC_MESSAGES, NULL);
	if (!msgs || strcmp(msgs, "C") == 0 || strcmp(msgs, "POSIX") == 0)
		setlocale(LC_MESSAGES, "C.UTF-8");
#else
	(void)lang;
#endif
}

/* The separator: "." unless the catalog says otherwise. */
static const char *separator(void)
{
	/* TRANSLATORS: the decimal separator of numbers written in prose
	 * (lecture captions, explanations): "," in Portuguese */
	return _(".");
}

char *i18n_decimals(char *s)
{
	const char *sep = separator();
	if (strcmp(sep, ".") == 0 || strlen(sep) != 1)
		return s;
	for (char *p = s; *p; p++)
		if (*p == '.' && p > s && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9')
			*p = *sep;
	return s;
}

const char *i18n_num(char *buf, size_t n, double x, int prec)
{
	if (n == 0)
		return buf;
	if (x != x) {
		snprintf(buf, n, "?");
		return buf;
	}
	if (x > 1e300 || x < -1e300) {
		snprintf(buf, n, "%s", x < 0 ? "−∞" : "∞");
		return buf;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*f", prec < 0 ? 0 : prec > 9 ? 9 : prec, x < 0 ? -x : x);
	int neg = x < 0 && strspn(tmp, "0.") != strlen(tmp);
	char *dot = strchr(tmp, '.');
	if (dot)
		*dot = 0;
	const char *sep = separator();
	snprintf(buf, n, "%s%s%s%s", neg ? "−" : "", tmp, dot ? sep : "", dot ? dot + 1 : "");
	return buf;
}
