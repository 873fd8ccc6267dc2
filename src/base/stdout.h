/* stdout.h - the one check of what the program wrote to standard output.
 *
 * Every command writes its results through stdio's stdout (printf, fputs,
 * the canvas backends).  A write that fails there (a full disk behind
 * `> fig.svg`, /dev/full, an I/O error) only sets the stream's error flag;
 * stdout_close flushes and closes the stream at the end of main and turns
 * any failure into one line on stderr and a non-zero exit, as files
 * written through safefile do.
 *
 * A closed pipe (`attnscope render ... | head -c 10`): the reader has
 * stopped reading, which is not an error worth a message, yet the output
 * was not all delivered, so it is not success either.  The program leaves
 * SIGPIPE at its default (stdout_init restores it when the parent ignored
 * it), so the first write into a closed pipe ends the process by SIGPIPE,
 * silently, as cat, grep and sort do: the shell sees status 141 (128 + 13)
 * under `set -o pipefail`.  Should a write still see EPIPE (SIGPIPE
 * blocked), stdout_close exits the same way: no message, status 141. */
#ifndef ATTNSCOPE_STDOUT_H
#define ATTNSCOPE_STDOUT_H

#include <stddef.h>

/* The exit status when stdout was a pipe its reader closed: 128 + SIGPIPE. */
#define STDOUT_EXIT_PIPE 141

/* Restores SIGPIPE's default action (a parent may have ignored it). */
void stdout_init(void);
/* Flushes and closes stdout.  Returns status unchanged when every write
 * succeeded; otherwise prints "attnscope: standard output: REASON" (none
 * for a closed pipe) and returns 1 (STDOUT_EXIT_PIPE for a closed pipe),
 * or status itself when status already said failure. */
int stdout_close(int status);

/* ASCII output for a locale that is not UTF-8 (LANG=C): a terminal of
 * another charset takes UTF-8's bytes one by one, and 0x80-0x9F are its
 * C1 controls (0x9B is CSI on an 8-bit terminal).  Replaces stdout with a
 * stream that writes ASCII through and every other character as
 * translit makes it (the canvas's ASCII table: "−" as "-", "∞" as "inf");
 * text from files was escaped before (base/safetext.h, ASCII mode).  Not
 * for the stepper: ncurses needs the real stdout.  Returns 0, or -1 when
 * the stream cannot be made (stdout is left as it was). */
typedef const char *(*stdout_translit)(const char *s, char *buf, size_t n);
int stdout_set_ascii(stdout_translit translit);
/* Flushes the ASCII stream and puts the real stdout back (before the
 * stepper starts).  Returns 0, or EOF when the flush failed. */
int stdout_unset_ascii(void);

#endif
