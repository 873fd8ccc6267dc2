/* export.c - a lecture as one self-contained HTML page (--export DIR).
 *
 * Each step is played as the stepper plays it (player.c sets the state,
 * the pass is recomputed) and drawn as a figure (views/figure.c: title,
 * the view without cursor or key hints) into an inline SVG, with the
 * step's caption in the language of the messages.  The page needs nothing
 * else: its style and a small script are inline; the script shows one
 * step at a time (→ ↓ space PageDown: next; ← ↑ Backspace PageUp:
 * previous; Home, End; #N in the address opens step N); without
 * JavaScript every step shows, one under the other.  DIR/index.html is
 * written through safefile (a temporary renamed over it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "base/i18n.h"
#include "base/safefile.h"
#include "base/safetext.h"
#include "common/options.h"
#include "views/figure.h"

#define FIGURE_W 160   /* columns of each step's figure at most */

/* s as HTML text: <, >, &, " escaped; control characters (a script file
 * is not trusted) dropped, newlines kept. */
static void html_text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default:
			if (ch >= 0x20 || ch == '\n')
				fputc(ch, fp);
			else if (ch == '\t')
				fputc(' ', fp);
		}
	}
}

static const char STYLE[] =
	"body{margin:0;font-family:DejaVu Sans,Helvetica,Arial,sans-serif;color:#141414;"
	"background:#fff}\n"
	"header{padding:.6em 1.2em;border-bottom:1px solid #ccc;display:flex;gap:1em;"
	"align-items:center;flex-wrap:wrap}\n"
	"header h1{font-size:1.25em;margin:0;flex:1}\n"
	"nav button{font-size:1em;padding:.2em .8em}\n"
	"section.step{padding:1em 1.2em;border-bottom:1px solid #eee}\n"
	"html.js section.step{display:none;border:0}\n"
	"html.js section.step.on{display:block}\n"
	"section.step h2{font-size:1em;color:#555;margin:0 0 .5em}\n"
	"figure{margin:0}\n"
	"figure svg{max-width:100%;height:auto;display:block}\n"
	"figcaption{font-size:1.2em;line-height:1.45;max-width:60em;margin-top:.8em}\n";

/* The script: one step at a time, keys and buttons, #N, the counter. */
static const char SCRIPT[] =
	"(function(){\n"
	"document.documentElement.className='js';\n"
	"var steps=document.querySelectorAll('section.step'),cur=0;\n"
	"var count=document.getElementById('count');\n"
	"function show(i){\n"
	" if(i<0)i=0;if(i>=steps.length)i=steps.length-1;\n"
	" steps[cur].className='step';cur=i;steps[cur].className='step on';\n"
	" count.textContent=(cur+1)+' / '+steps.length;\n"
	" if(location.hash!=='#'+(cur+1))history.replaceState(null,'','#'+(cur+1));\n"
	"}\n"
	"window.lectureShow=show;\n"
	"window.lectureStep=function(){return cur;};\n"
	"document.addEventListener('keydown',function(e){\n"
	" var k=e.key;\n"
	" if(k==='ArrowRight'||k==='ArrowDown'||k===' '||k==='PageDown')show(cur+1);\n"
	" else if(k==='ArrowLeft'||k==='ArrowUp'||k==='Backspace'||k==='PageUp')show(cur-1);\n"
	" else if(k==='Home')show(0);\n"
	" else if(k==='End')show(steps.length-1);\n"
	" else return;\n"
	" e.preventDefault();\n"
	"});\n"
	"document.getElementById('prev').onclick=function(){show(cur-1);};\n"
	"document.getElementById('next').onclick=function(){show(cur+1);};\n"
	"var n=parseInt(location.hash.slice(1),10);\n"
	"show(n>0?n-1:0);\n"
	"})();\n";

/* Creates dir when it does not exist; a file of that name is an error. */
static int make_dir(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		return cli_fail("%s: exists and is not a folder", dir);
	return cli_fail("%s: %s", dir, strerror(errno));
}

int app_lecture_export(struct app *a, const char *dir)
{
	const struct lecture *l = a->lp.lec;
	char path[4096];
	struct err e = { "", 0 };
	struct safefile sf;
	if (!*dir)
		return cli_fail("--export needs a folder");
	if (make_dir(dir))
		return 1;
	if (snprintf(path, sizeof path, "%s/index.html", dir) >= (int)sizeof path)
		return cli_fail("%s: the folder's name is too long", dir);
	if (safefile_open(&sf, path, 0, &e))
		return cli_fail("%s", e.msg);
	FILE *fp = sf.fp;
	const char *title = l->title ? _(l->title) : _("untitled lecture");
	/* TRANSLATORS: the language of this catalog as an HTML lang code
	 * (the exported lecture page's <html lang>): "pt-BR" */
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"attnscope " PACKAGE_VERSION "\">\n<title>",
		_("en"));
	html_text(fp, title);
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header><h1>", STYLE);
	html_text(fp, title);
	fputs("</h1><nav><button id=\"prev\" type=\"button\">←</button> <span id=\"count\">",
	      fp);
	fprintf(fp, "%d", l->n);
	fputs("</span> <button id=\"next\" type=\"button\">→</button></nav>"
	      "<small>", fp);
	/* TRANSLATORS: the hint in the exported lecture page's header */
	html_text(fp, _("← → or space: step"));
	fputs("</small></header>\n<main>\n", fp);

	int status = 0;
	a->lp.deck = 1;   /* the captions' {deck: …} parts, not their {tui: …} */
	for (int i = 0; i < l->n && !status; i++) {
		a->scr.message = NULL;
		a->scr.message_is_error = 0;
		app_lecture_go(a, i);
		if (!a->tr || (a->scr.message && a->scr.message_is_error)) {
			status = cli_fail("%s:%d: %s", a->lp.lec->path, l->steps[i].line,
					  a->scr.message ? a->msg + 1 : _("the step did not run"));
			break;
		}
		app_pe_curves(a);
		struct view_state fv = a->scr.v;   /* figures change scroll only */
		struct canvas *cv = figure_new(&fv, FIGURE_W, DEPTH_TRUE);
		if (!cv) {
			status = cli_fail("out of memory");
			break;
		}
		fprintf(fp, "<section class=\"step\" id=\"step-%d\" data-step=\"%d\">\n<h2>",
			i + 1, i + 1);
		html_text(fp, a->scr.caption_title);
		fputs("</h2>\n<figure>\n", fp);
		canvas_write_svg(cv, fp);
		canvas_free(cv);
		fputs("<figcaption>", fp);
		html_text(fp, a->scr.caption ? a->scr.caption : "");
		fputs("</figcaption>\n</figure>\n</section>\n", fp);
	}
	fprintf(fp, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", SCRIPT);
	if (status) {
		safefile_abort(&sf);
		return status;
	}
	if (safefile_commit(&sf, &e))
		return cli_fail("%s", e.msg);
	char shown[1024];
	printf(P_("%s: %d step\n", "%s: %d steps\n", l->n),
	       safetext_copy(shown, sizeof shown, path, 0), l->n);
	return 0;
}
