/* lineedit.c - the stepper's one-line text editor. */
#include <stdio.h>
#include <string.h>

#include "lineedit.h"
#include "term.h"

enum { CTRL_A = 1, CTRL_E = 5, CTRL_U = 21 };

void lineedit_set(struct lineedit *le, const char *text)
{
	/* memmove: text may be le->text itself (the stepper reopens an edit) */
	size_t n = text ? strnlen(text, sizeof le->text - 1) : 0;
	memmove(le->text, text ? text : "", n);
	le->text[n] = 0;
	le->cur = (int)n;
	le->selected = 0;
}

void lineedit_set_selected(struct lineedit *le, const char *text)
{
	lineedit_set(le, text);
	le->selected = le->text[0] != 0;
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
	char *t = le->text;
	int n = (int)strlen(t);
	if (le->cur < 0 || le->cur > n)
		le->cur = n;
	if (le->selected) {
		le->selected = 0;
		size_t tl = utf8 ? strlen(utf8) : 0;
		int text = tl && (unsigned char)utf8[0] >= 32 && key != TK_ENTER && key != TK_ESC;
		if (text || key == TK_BACKSPACE || key == TK_DELETE || key == CTRL_U) {
			t[0] = 0;
			le->cur = n = 0;
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
	case CTRL_U: t[0] = 0; le->cur = 0; return LE_NONE;
	case TK_BACKSPACE: {
		int p = utf8_prev(t, le->cur);
		memmove(t + p, t + le->cur, (size_t)(n - le->cur + 1));
		le->cur = p;
		return LE_NONE;
	}
	case TK_DELETE: {
		int q = utf8_next(t, le->cur);
		memmove(t + le->cur, t + q, (size_t)(n - q + 1));
		return LE_NONE;
	}
	default:
		break;
	}
	size_t len = utf8 ? strlen(utf8) : 0;
	if (!len || (unsigned char)utf8[0] < 32)
		return LE_NONE;
	if (len >= LINEEDIT_MAX || n + (int)len >= LINEEDIT_MAX - 1)
		return LE_FULL;
	memmove(t + le->cur + len, t + le->cur, (size_t)(n - le->cur + 1));
	memcpy(t + le->cur, utf8, len);
	le->cur += (int)len;
	return LE_NONE;
}
