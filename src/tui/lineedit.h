/* lineedit.h - the stepper's one-line text editor (sentence, target).
 *
 * A fixed buffer of UTF-8 text and a cursor (a byte offset).  Keys are the
 * term.h codes (TK_LEFT, TK_ENTER, ...) plus the control keys Ctrl-A
 * (home), Ctrl-E (end) and Ctrl-U (clear); typed text arrives as UTF-8
 * bytes.  The editor never reads or writes outside its buffer whatever the
 * keys and bytes (tests/fuzz/fuzz_lineedit.c): the text stays
 * NUL-terminated and shorter than LINEEDIT_MAX - 1 bytes, and the cursor
 * stays within it.  It does not validate UTF-8: the tokenizer replaces
 * invalid bytes later, and the cursor steps over continuation bytes. */
#ifndef ATTNSCOPE_LINEEDIT_H
#define ATTNSCOPE_LINEEDIT_H

#define LINEEDIT_MAX 1024

struct lineedit {
	char text[LINEEDIT_MAX];   /* NUL-terminated */
	int cur;                   /* cursor: byte offset, 0 .. strlen(text) */
	int selected;              /* the whole text is selected: typed text,
	                              Backspace, Delete replace it; a cursor
	                              key keeps it and moves */
};

/* What a key did. */
enum lineedit_result {
	LE_NONE,     /* moved, edited, or ignored: keep editing */
	LE_ACCEPT,   /* Enter: the text is final */
	LE_CANCEL,   /* Esc: drop the edit */
	LE_FULL,     /* text not inserted: it would pass LINEEDIT_MAX - 2 bytes */
};

/* Starts editing text (cut at LINEEDIT_MAX - 1 bytes; it may be le->text
 * itself), cursor at the end, nothing selected. */
void lineedit_set(struct lineedit *le, const char *text);
/* The same, with the whole text selected (the stepper's e and t: typing
 * replaces the old sentence, an arrow edits it). */
void lineedit_set_selected(struct lineedit *le, const char *text);

/* Applies one key.  utf8 is the typed text for key 0 or a printable ASCII
 * key ("" otherwise); it is inserted when its first byte is not a control
 * character. */
enum lineedit_result lineedit_key(struct lineedit *le, int key, const char *utf8);

#endif
