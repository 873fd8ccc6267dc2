/* test_worddiff.c - the compare page's word diff (views/worddiff.c) on
 * edit scripts worked out by hand. */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "views/worddiff.h"

/* Words as letters: "abc" is three tokens.  The script as a string:
 * = same, ~ substituted, - deleted (only in a), + inserted (only in b). */
static void check(const char *a, const char *b, const char *want)
{
	int32_t ia[64], ib[64];
	int na = (int)strlen(a), nb = (int)strlen(b);
	for (int i = 0; i < na; i++)
		ia[i] = a[i];
	for (int i = 0; i < nb; i++)
		ib[i] = b[i];
	struct wd_op ops[128];
	int n = worddiff_run(ia, na, ib, nb, ops);
	char got[130];
	int ok = n >= 0, pa = 0, pb = 0;
	for (int k = 0; ok && k < n; k++) {
		got[k] = "=~-+"[ops[k].kind];
		/* positions run in order and name the right tokens */
		if (ops[k].kind != WD_INS)
			ok &= ops[k].ia == pa++;
		if (ops[k].kind != WD_DEL)
			ok &= ops[k].ib == pb++;
		if (ops[k].kind == WD_SAME)
			ok &= ia[ops[k].ia] == ib[ops[k].ib];
		if (ops[k].kind == WD_SUB)
			ok &= ia[ops[k].ia] != ib[ops[k].ib];
	}
	got[n > 0 ? n : 0] = 0;
	/* want may list equally short scripts: "=~-=|=-~=" */
	int match = 0;
	for (const char *w = want; *w;) {
		size_t l = strcspn(w, "|");
		match |= l == strlen(got) && strncmp(got, w, l) == 0;
		w += l + (w[l] == '|');
	}
	ok &= pa == na && pb == nb && (match || (!*want && !*got));
	tap_ok(ok, "\"%s\" vs \"%s\": %s (want %s)", a, b, got, want);
}

int main(void)
{
	check("abc", "abc", "===");
	check("", "", "");
	check("abc", "", "---");
	check("", "ab", "++");
	/* one word dropped: everything after it is still the same */
	check("havia", "hava", "===-=");
	/* one word substituted in the middle */
	check("abcde", "abXde", "==~==");
	/* "gosto de as maçãs" → "gosto das maçãs": a substitution and a
	 * deletion, in either order */
	check("gdAm", "gDm", "=~-=|=-~=");
	/* one word inserted at the front */
	check("abc", "Xabc", "+===");
	/* a shift: deleting one and inserting one keeps the rest the same
	 * (2 edits) rather than substituting all (3) */
	check("abc", "bcd", "-==+");
	return tap_done();
}
