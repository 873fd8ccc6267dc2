/* lineedit.h - the stepper's one-line text editor (sentence, target).
 *
 * A growing buffer of UTF-8 text and a cursor (a byte offset).  Keys are the
 * term.h codes (TK_LEFT, TK_ENTER, ...) plus the control keys Ctrl-A
 * (home), Ctrl-E (end) and Ctrl-U (clear); typed text arrives as UTF-8
 * bytes.  The editor never reads or writes outside its buffer whatever the
 * keys and bytes (tests/fuzz/fuzz_lineedit.c): the text stays
 * NUL-terminated, at most LINEEDIT_MAX - 1 bytes (64 MiB, far above any
 * model's context: the tokenizer says when a text is too long for the
 * model), and the cursor stays within it.  Typing or pasting at the end
 * costs no more per byte as the text grows.  It does not validate UTF-8: the tokenizer replaces
 * invalid bytes later, and the cursor steps over continuation bytes. */
#ifndef ATTNSCOPE_LINEEDIT_H
#define ATTNSCOPE_LINEEDIT_H

#define LINEEDIT_MAX ((size_t)64 << 20)

/* Zero-initialised before the first lineedit_set; lineedit_free frees it. */
struct lineedit {
	char *text;                /* NUL-terminated (after lineedit_set) */
	size_t len, cap;           /* strlen(text), its buffer's size */
	int cur;                   /* cursor: byte offset, 0 .. len */
	int selected;              /* the whole text is selected: typed text,
	                              Backspace, Delete replace it; a cursor
	                              key keeps it and moves */
};

/* What a key did. */
enum lineedit_result {
	LE_NONE,     /* moved, edited, or ignored: keep editing */
	LE_ACCEPT,   /* Enter: the text is final */
	LE_CANCEL,   /* Esc: drop the edit */
	LE_FULL,     /* text not inserted: it would pass LINEEDIT_MAX - 1
	                bytes, or memory ran out */
};

/* Starts editing text (cut at LINEEDIT_MAX - 1 bytes; it may point into
 * le->text), cursor at the end, nothing selected.  Returns 0, or -1 out of
 * memory (then the text is empty). */
int lineedit_set(struct lineedit *le, const char *text);
/* The same, with the whole text selected (the stepper's e and t: typing
 * replaces the old sentence, an arrow edits it). */
int lineedit_set_selected(struct lineedit *le, const char *text);
void lineedit_free(struct lineedit *le);

/* Applies one key.  utf8 is the typed text for key 0 or a printable ASCII
 * key ("" otherwise); it is inserted when its first byte is not a control
 * character. */
enum lineedit_result lineedit_key(struct lineedit *le, int key, const char *utf8);

#endif
