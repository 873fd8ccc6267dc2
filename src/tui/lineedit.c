/* lineedit.c - the stepper's one-line text editor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lineedit.h"
#include "term.h"

enum { CTRL_A = 1, CTRL_E = 5, CTRL_U = 21 };

/* Room for need bytes and the NUL; doubles, so appending is amortised. */
static int reserve(struct lineedit *le, size_t need)
{
	if (need + 1 <= le->cap && le->text)
		return 0;
	size_t cap = le->cap ? le->cap : 256;
	while (cap < need + 1)
		cap *= 2;
	char *p = realloc(le->text, cap);
	if (!p)
		return -1;
	le->text = p;
	le->cap = cap;
	return 0;
}

int lineedit_set(struct lineedit *le, const char *text)
{
	size_t n = text ? strnlen(text, LINEEDIT_MAX - 1) : 0;
	/* text may point into le->text (the stepper reopens an edit) */
	size_t off = text && le->text && text >= le->text && text < le->text + le->cap ?
		     (size_t)(text - le->text) : (size_t)-1;
	if (reserve(le, n)) {
		if (le->text)
			le->text[0] = 0;
		le->len = 0;
		le->cur = 0;
		return -1;
	}
	if (off != (size_t)-1)
		text = le->text + off;   /* reserve may have moved it */
	memmove(le->text, text ? text : "", n);
	le->text[n] = 0;
	le->len = n;
	le->cur = (int)n;
	le->selected = 0;
	return 0;
}

int lineedit_set_selected(struct lineedit *le, const char *text)
{
	int rc = lineedit_set(le, text);
	le->selected = le->text && le->text[0] != 0;
	return rc;
}

void lineedit_free(struct lineedit *le)
{
	free(le->text);
	memset(le, 0, sizeof *le);
}

/* Start of the code point before byte i (continuation bytes skipped). */
static int utf8_prev(const char *s, int i)
{
	if (i <= 0)
		return 0;
	i--;
	while (i > 0 && (s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* Start of the code point after the one at byte i. */
static int utf8_next(const char *s, int i)
{
	if (!s[i])
		return i;
	i++;
	while (s[i] && (s[i] & 0xC0) == 0x80)
		i++;
	return i;
}

enum lineedit_result lineedit_key(struct lineedit *le, int key, const char *utf8)
{
	if (!le->text && lineedit_set(le, ""))
		return LE_FULL;
	char *t = le->text;
	int n = (int)le->len;
	if (le->cur < 0 || le->cur > n)
		le->cur = n;
	if (le->selected) {
		le->selected = 0;
		size_t tl = utf8 ? strlen(utf8) : 0;
		int text = tl && (unsigned char)utf8[0] >= 32 && key != TK_ENTER && key != TK_ESC;
		if (text || key == TK_BACKSPACE || key == TK_DELETE || key == CTRL_U) {
			t[0] = 0;
			le->cur = n = 0;
			le->len = 0;
			if (!text)
				return LE_NONE;
		}
	}
	switch (key) {
	case TK_ESC:
		return LE_CANCEL;
	case TK_ENTER:
		return LE_ACCEPT;
	case TK_LEFT: le->cur = utf8_prev(t, le->cur); return LE_NONE;
	case TK_RIGHT: le->cur = utf8_next(t, le->cur); return LE_NONE;
	case TK_HOME: case CTRL_A: le->cur = 0; return LE_NONE;
	case TK_END: case CTRL_E: le->cur = n; return LE_NONE;
	case CTRL_U: t[0] = 0; le->cur = 0; le->len = 0; return LE_NONE;
	case TK_BACKSPACE: {
		int p = utf8_prev(t, le->cur);
		memmove(t + p, t + le->cur, (size_t)(n - le->cur + 1));
		le->len -= (size_t)(le->cur - p);
		le->cur = p;
		return LE_NONE;
	}
	case TK_DELETE: {
		int q = utf8_next(t, le->cur);
		memmove(t + le->cur, t + q, (size_t)(n - q + 1));
		le->len -= (size_t)(q - le->cur);
		return LE_NONE;
	}
	default:
		break;
	}
	size_t len = utf8 ? strlen(utf8) : 0;
	if (!len || (unsigned char)utf8[0] < 32)
		return LE_NONE;
	if (len >= LINEEDIT_MAX || (size_t)n + len >= LINEEDIT_MAX - 1 || reserve(le, (size_t)n + len))
		return LE_FULL;
	t = le->text;
	memmove(t + le->cur + len, t + le->cur, (size_t)(n - le->cur + 1));
	memcpy(t + le->cur, utf8, len);
	le->cur += (int)len;
	le->len += len;
	return LE_NONE;
}
