/* jsonout.c - the one JSON writer of the program's --json outputs. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/safetext.h"
#include "base/utf8.h"
#include "jsonout.h"

void jsonout_begin(struct jsonout *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	fputc('{', f);
}

void jsonout_str(struct jsonout *j, const char *s)
{
	FILE *f = j->f;
	fputc('"', f);
	for (int n; s && *s; s += n) {
		uint32_t c;
		n = utf8_decode((const unsigned char *)s, 4, &c);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (char)c);
		else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
			 (n == 1 && c == 0xfffd) || (safetext_ascii() && c < 0x10000 && c >= 0x80))
			fprintf(f, "\\u%04x", (unsigned)c);
		else if (safetext_ascii() && c >= 0x10000)   /* a surrogate pair */
			fprintf(f, "\\u%04x\\u%04x", 0xd800 + ((c - 0x10000) >> 10),
				0xdc00 + ((c - 0x10000) & 0x3ff));
		else
			fwrite(s, 1, (size_t)n, f);
	}
	fputc('"', f);
}

void jsonout_num(struct jsonout *j, const char *key, int prec, double v)
{
	if (isfinite(v)) {
		if (prec == JSONOUT_G)
			fprintf(j->f, "%g", v);
		else
			fprintf(j->f, "%.*f", prec, v);
		return;
	}
	if (!j->nonfinite++)
		snprintf(j->first, sizeof j->first, "%s", key ? key : "?");
	fputs("null", j->f);
}

void jsonout_field(struct jsonout *j, const char *key, int prec, double v)
{
	fprintf(j->f, ",\"%s\":", key);
	jsonout_num(j, key, prec, v);
}

int jsonout_end(struct jsonout *j)
{
	if (!j->nonfinite) {
		fputs("}\n", j->f);
		return 0;
	}
	return jsonout_end_warnings(j, "");
}

int jsonout_end_warnings(struct jsonout *j, const char *items)
{
	if (!*items && !j->nonfinite) {   /* nothing to warn about: no list */
		fputs("}\n", j->f);
		return 0;
	}
	fprintf(j->f, ",\"warnings\":[%s", items);
	if (j->nonfinite) {
		if (*items)
			fputc(',', j->f);
		char w[160];
		snprintf(w, sizeof w, "%d numbers not finite (NaN or infinite) written as null; "
			 "the first: %s", j->nonfinite, j->first);
		jsonout_str(j, w);
	}
	fputs("]}\n", j->f);
	return j->nonfinite;
}
