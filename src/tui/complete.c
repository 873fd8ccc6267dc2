/* complete.c - Tab completion of the word under the editor's cursor from
 * the vocabulary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "complete.h"
#include "base/i18n.h"

static int is_special(const char *t)
{
	return t[0] == '<' && t[strlen(t) - 1] == '>' && strlen(t) > 2;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int complete_word(struct lineedit *le, const struct vocab *v, int lowercase,
		  char *hint, size_t n)
{
	int start = le->cur;
	while (start > 0 && le->text[start - 1] != ' ')
		start--;
	int wl = le->cur - start;
	char *word = malloc((size_t)wl + 1);
	if (!word) {
		snprintf(hint, n, "%s", _("out of memory"));
		return 0;
	}
	memcpy(word, le->text + start, (size_t)wl);
	word[wl] = 0;
	if (lowercase)
		for (char *p = word; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
	const char **match = malloc((size_t)(v->n ? v->n : 1) * sizeof *match);
	int nm = 0;
	if (!match) {
		snprintf(hint, n, "%s", _("out of memory"));
		free(word);
		return 0;
	}
	for (int i = 0; i < v->n; i++)
		if (!is_special(v->tok[i]) && !strncmp(v->tok[i], word, (size_t)wl))
			match[nm++] = v->tok[i];
	qsort(match, (size_t)nm, sizeof *match, by_str);
	if (!nm) {
		snprintf(hint, n, _("no word of the model's vocabulary starts with “%s” "
				    "(it would be <unk>)"), word);
		free(match);
		free(word);
		return 0;
	}
	/* the longest common prefix of the matches */
	size_t common = strlen(match[0]);
	for (int i = 1; i < nm; i++) {
		size_t k = 0;
		while (k < common && match[i][k] == match[0][k])
			k++;
		common = k;
	}
	while (common > 0 && ((unsigned char)match[0][common] & 0xC0) == 0x80)
		common--;   /* never half a UTF-8 character */
	free(word);
	/* the text with the word replaced: start, the completion, the rest */
	size_t rl = common + (nm == 1), tail = le->len - (size_t)le->cur;
	char *t = (size_t)start + rl + tail < LINEEDIT_MAX - 1 ?
		  malloc((size_t)start + rl + tail + 1) : NULL;
	if (t) {
		memcpy(t, le->text, (size_t)start);
		memcpy(t + start, match[0], common);
		if (nm == 1)
			t[start + common] = ' ';
		memcpy(t + start + rl, le->text + le->cur, tail + 1);
		if (lineedit_set(le, t) == 0)
			le->cur = start + (int)rl;
		free(t);
	}
	if (nm == 1) {
		snprintf(hint, n, _("“%s” is a word of the model's vocabulary"), match[0]);
	} else {
		int len = snprintf(hint, n, P_("%d word of the vocabulary:", "%d words of the vocabulary:",
					       nm), nm), i = 0;
		for (; i < nm && len >= 0 && (size_t)len + 40 < n; i++)
			len += snprintf(hint + len, n - (size_t)len, " %s", match[i]);
		if (i < nm && len >= 0)
			snprintf(hint + len, n - (size_t)len, " …");
	}
	free(match);
	return nm;
}
