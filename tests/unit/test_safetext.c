/* test_safetext.c - the sanitiser (base/safetext.h), the canvas that uses
 * it, and the safe writer's refusals (base/safefile.h), against
 * hand-derived expectations. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "../tmpfiles.h"
#include "base/safefile.h"
#include "base/safetext.h"
#include "views/canvas.h"

static void copy_is(const char *in, int flags, const char *want, const char *what)
{
	char buf[256];
	tap_str(safetext_copy(buf, sizeof buf, in, flags), want, what);
}

/* Whether any cell holds a C0, DEL or C1 byte sequence. */
static int canvas_clean(const struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++)
		for (const unsigned char *g = (const unsigned char *)c->cells[i].glyph; *g; g++)
			if (*g < 0x20 || *g == 0x7f || (g[0] == 0xc2 && g[1] >= 0x80 && g[1] < 0xa0))
				return 0;
	return 1;
}

static void sanitiser(void)
{
	copy_is("plain ASCII", 0, "plain ASCII", "printable ASCII is kept");
	copy_is("gato é um gato adorável ∞ 猫", 0, "gato é um gato adorável ∞ 猫",
		"printable UTF-8 is kept");
	copy_is("a\x1b[2Jb", 0, "a\\x1b[2Jb", "ESC is shown as \\x1b");
	copy_is("\x07\x08\t\r\x7f", 0, "\\x07\\x08\\x09\\x0d\\x7f", "C0 controls and DEL as \\xNN");
	copy_is("x\xc2\x9b" "31m", 0, "x\\u009b31m", "C1 CSI (U+009B) as \\u009b");
	copy_is("\xc2\x85\xc2\xa0", 0, "\\u0085\xc2\xa0", "NEL escaped, NBSP kept");
	copy_is("a\xffz\xc3", 0, "a\\xffz\\xc3", "bytes that are not UTF-8 as \\xNN");
	copy_is("\xe2\x80\xae" "abc\xe2\x81\xa6", 0, "\\u202eabc\\u2066",
		"bidi override and isolate as \\uNNNN");
	copy_is("one\ntwo", 0, "one\\x0atwo", "a line break is escaped by default");
	copy_is("one\ntwo", SAFETEXT_KEEP_NL, "one\ntwo", "SAFETEXT_KEEP_NL keeps it");
	copy_is("back\\slash", 0, "back\\slash", "a backslash is kept");
	char small[6];
	tap_str(safetext_copy(small, sizeof small, "ab\x1b" "cd", 0), "ab",
		"a copy that does not fit is cut before the escape, not inside it");
	tap_ok(safetext_is_control("\x1b") && safetext_is_control("\xc2\x9b") &&
	       !safetext_is_control("a") && !safetext_is_control("é"),
	       "safetext_is_control tells controls from characters");
}

static void canvas(void)
{
	struct canvas *c = canvas_new(40, 3, DEPTH_NONE);
	if (!c) {
		tap_ok(0, "canvas_new");
		return;
	}
	int w = canvas_text(c, 0, 0, 40, "t\x1b[31mx\xc2\x9b", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	char line[64] = "";
	for (int x = 0; x < w; x++)
		strcat(line, c->cells[x].glyph);
	tap_str(line, "t\\x1b[31mx\\u009b", "canvas_text draws a control as its escape");
	tap_ok(w == 16, "... as wide as the escape (%d columns, want 16)", w);
	canvas_put(c, 0, 1, "\x1b", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	canvas_put(c, 1, 1, "\xc2\x9b", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	canvas_fill(c, (struct rect){ 2, 1, 3, 1 }, "\x7f", COLOR_DEFAULT, COLOR_DEFAULT, 0);
	char fit[64];
	text_fit("ab\x1b" "cdef", 6, fit, sizeof fit);
	tap_str(fit, "ab…", "text_fit counts an escape's columns and never cuts one");
	canvas_text(c, 0, 2, 40, fit, COLOR_DEFAULT, COLOR_DEFAULT, 0);
	tap_ok(canvas_clean(c), "no cell holds a control byte (canvas_put, canvas_fill)");
	canvas_free(c);
}

static void writer(void)
{
	struct err e = { "" };
	struct safefile f;
	char in[256], out[256];   /* tpath's buffers rotate */
	snprintf(in, sizeof in, "%s", tpath("in.txt"));
	snprintf(out, sizeof out, "%s", tpath("out.txt"));
	write_file(in, "input\n");
	int fd = safefile_open_read(in, &e);
	tap_ok(fd >= 0, "safefile_open_read opens a regular file");
	if (fd >= 0)
		close(fd);
	tap_ok(safefile_open(&f, in, 0, &e) < 0 && strstr(e.msg, "reads"),
	       "an input is refused as an output: %s", e.msg);
	char link_path[256];
	snprintf(link_path, sizeof link_path, "%s", tpath("hard.txt"));
	tap_ok(link(in, link_path) == 0 && safefile_open(&f, link_path, 0, &e) < 0 &&
	       strstr(e.msg, "in.txt"), "... and so is a hard link to it, naming the input: %s",
	       e.msg);
	mkfifo(tpath("fifo"), 0600);
	tap_ok(safefile_open_read(tpath("fifo"), &e) < 0 && strstr(e.msg, "not a regular file"),
	       "reading a FIFO is refused without blocking: %s", e.msg);
	tap_ok(safefile_open(&f, tpath("fifo"), 0, &e) < 0 && strstr(e.msg, "FIFO"),
	       "writing a FIFO is refused: %s", e.msg);
	tap_ok(safefile_open(&f, "", 0, &e) < 0, "an empty name is refused: %s", e.msg);
	tap_ok(safefile_open(&f, tmpdir, 0, &e) < 0 && strstr(e.msg, "directory"),
	       "a directory is refused: %s", e.msg);
	int ok = safefile_open(&f, out, 0, &e) == 0;
	if (ok) {
		fputs("new\n", f.fp);
		struct stat sb;
		ok = stat(out, &sb) != 0 && errno == ENOENT;   /* not there until commit */
		ok = safefile_commit(&f, &e) == 0 && ok;
	}
	FILE *fp = fopen(out, "r");
	char buf[16] = "";
	if (fp) {
		if (!fgets(buf, sizeof buf, fp))
			buf[0] = 0;
		fclose(fp);
	}
	tap_ok(ok && strcmp(buf, "new\n") == 0, "a new output appears complete at commit");
	tap_ok(safefile_open(&f, out, SAFEFILE_NEW, &e) < 0 && errno == EEXIST,
	       "SAFEFILE_NEW refuses an existing name with EEXIST");
	safefile_forget_input(in);
	ok = safefile_open(&f, in, 0, &e) == 0;
	if (ok)
		safefile_abort(&f);
	tap_ok(ok, "a forgotten input may be replaced (train --resume CKPT --out CKPT)");
	unlink(tpath("fifo"));
	unlink(link_path);
	unlink(in);
	unlink(out);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_safetext.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		puts("Bail out! mkdtemp");
		return 1;
	}
	sanitiser();
	canvas();
	writer();
	rmdir(tmpdir);
	return tap_done();
}
