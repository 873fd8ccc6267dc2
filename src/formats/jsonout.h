/* jsonout.h - the one JSON writer of the program's --json outputs.
 *
 * Strings: besides " and \ and the C0 controls, DEL, the C1 controls and
 * the line separators U+2028/U+2029 are escaped (valid JSON either way,
 * and nothing a terminal obeys: a C1 byte such as 0x9B is CSI on an 8-bit
 * terminal); a byte that is not UTF-8 becomes \ufffd.  In safetext's
 * ASCII mode (a locale that is not UTF-8) every character beyond ASCII is
 * escaped too (\uNNNN, a surrogate pair beyond the BMP): the same JSON.
 *
 * Numbers: JSON has no NaN or infinity (RFC 8259, section 6), and a
 * reader that meets `nan` refuses the whole document.  A number that is
 * not finite is written as null and counted; jsonout_end then adds a
 * "warnings" list that says how many and which key first had one, so a
 * reader can tell a missing number from a broken one, and the command
 * also says so on stderr (its exit status is its own decision:
 * `translate` fails when its distribution was not finite). */
#ifndef ATTNSCOPE_JSONOUT_H
#define ATTNSCOPE_JSONOUT_H

#include <stdio.h>

struct jsonout {
	FILE *f;
	int nonfinite;          /* numbers written as null */
	char first[64];         /* the key of the first of them */
};

/* Starts a top-level object on f: writes "{". */
void jsonout_begin(struct jsonout *j, FILE *f);
/* A JSON string of s (UTF-8, escaped as above). */
void jsonout_str(struct jsonout *j, const char *s);
/* prec for %g rather than a fixed count of decimals */
#define JSONOUT_G (-1)

/* A number with prec decimals (%.*f; JSONOUT_G: %g), or null when v is
 * NaN or infinite; key names it in the warning. */
void jsonout_num(struct jsonout *j, const char *key, int prec, double v);
/* ,"key":number: the usual case of jsonout_num inside an object. */
void jsonout_field(struct jsonout *j, const char *key, int prec, double v);
/* Ends the top-level object: the "warnings" list when a number was not
 * finite, then "}\n".  Returns the count of such numbers. */
int jsonout_end(struct jsonout *j);
/* The same with items first in the "warnings" list (JSON values separated
 * by commas, or ""), then the note on numbers that were not finite; no
 * list when there is neither.  For a command whose output has warnings of
 * its own (translate's words the model cannot know). */
int jsonout_end_warnings(struct jsonout *j, const char *items);

#endif
