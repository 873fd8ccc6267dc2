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

/* The exit status when stdout was a pipe its reader closed: 128 + SIGPIPE. */
#define STDOUT_EXIT_PIPE 141

/* Restores SIGPIPE's default action (a parent may have ignored it). */
void stdout_init(void);
/* Flushes and closes stdout.  Returns status unchanged when every write
 * succeeded; otherwise prints "attnscope: standard output: REASON" (none
 * for a closed pipe) and returns 1 (STDOUT_EXIT_PIPE for a closed pipe),
 * or status itself when status already said failure. */
int stdout_close(int status);

#endif
