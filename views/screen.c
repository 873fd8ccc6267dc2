/* screen.c - layout of the stepper: header, stage list, view, status. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "explain.h"
#include "palette.h"
#include "losscurve.h"
#include "screen.h"
#include "screen_int.h"
#include "base/i18n.h"
#include "base/safetext.h"
#include "base/utf8.h"
#include "engine/decode.h"
#include "engine/model.h"

#define SIDEBAR_W 24

/* Short name of a stage inside its layer: "self_attn.q" for
 * "encoder.0.self_attn.q". */
static const char *short_name(const struct stage *st)
{
	const char *n = st->name;
	if (st->layer >= 0) {
		const char *p = strchr(n, '.');
		p = p ? strchr(p + 1, '.') : NULL;
		return p ? p + 1 : n;
	}
	return n;
}

static void group_title(const struct stage *st, char *buf, size_t n)
{
	switch (st->block) {
	/* TRANSLATORS: headings of the stage list, at most 24 columns. */
	case BLK_SRC: snprintf(buf, n, "%s", _("source")); break;
	/* TRANSLATORS: a heading of the stage list, at most 24 columns. */
	case BLK_TGT: snprintf(buf, n, "%s", _("decoder input")); break;
	case BLK_OUTPUT: snprintf(buf, n, "%s", _("output")); break;
	case BLK_ENCODER:
		if (st->layer >= 0) snprintf(buf, n, _("encoder layer %d"), st->layer);
		else snprintf(buf, n, "%s", _("encoder"));
		break;
	case BLK_DECODER:
		/* TRANSLATORS: a heading of the stage list, at most 24 columns. */
		if (st->layer >= 0) snprintf(buf, n, _("decoder layer %d"), st->layer);
		else snprintf(buf, n, "%s", _("decoder"));
		break;
	}
}

static void draw_sidebar(struct screen *s, struct canvas *c, struct rect r)
{
	const struct trace *t = s->v.tr;
	/* lines: group titles and stages */
	int line_stage[4096];
	int nlines = 0, cur_line = 0;
	char prev[64] = "", title[64] = "";
	for (int i = 0; i < t->n && nlines < 4094; i++) {
		const struct stage *st = &t->stages[i];
		/* the title depends on the block and layer only: made again
		   (gettext, snprintf) where they change, not for every stage */
		if (i == 0 || st->block != st[-1].block || st->layer != st[-1].layer)
			group_title(st, title, sizeof title);
		if (strcmp(title, prev) != 0) {
			line_stage[nlines++] = -1 - i;   /* a heading before stage i */
			snprintf(prev, sizeof prev, "%s", title);
		}
		if (i == s->v.stage)
			cur_line = nlines;
		line_stage[nlines++] = i;
	}
	int first = cur_line - r.h / 2;
	if (first > nlines - r.h) first = nlines - r.h;
	if (first < 0) first = 0;
	s->sidebar = r;
	s->sidebar_first = first;
	for (int k = 0; k < r.h && first + k < nlines; k++) {
		int ls = line_stage[first + k];
		s->sidebar_map[k < 256 ? k : 255] = ls;
		if (ls < 0) {
			group_title(&t->stages[-1 - ls], title, sizeof title);
			put(c, r.x, r.y + k, r.w, R_HEADER, title);
			continue;
		}
		const struct stage *st = &t->stages[ls];
		char buf[96];
		snprintf(buf, sizeof buf, "  %s", short_name(st));
		enum role role = ls == s->v.stage ? R_SELECTED : R_TEXT;
		if (ls == s->v.stage) {
			struct style sel = role_style(R_SELECTED, c->depth);
			struct rect line = { r.x, r.y + k, r.w, 1 };
			canvas_fill(c, line, " ", sel.fg, sel.bg, sel.attr);
		}
		put(c, r.x, r.y + k, r.w, role, buf);
	}
	for (int k = r.h < 256 ? r.h : 256; k < 256; k++)
		s->sidebar_map[k] = -1;
	/* the divider */
	struct style b = role_style(R_BORDER, c->depth);
	for (int y = r.y; y < r.y + r.h; y++)
		canvas_put(c, r.x + r.w, y, "│", b.fg, b.bg, b.attr);
}

int screen_stage_at(const struct screen *s, int x, int y)
{
	const struct rect r = s->sidebar;
	if (x < r.x || x >= r.x + r.w || y < r.y || y >= r.y + r.h)
		return -1;
	int k = y - r.y;
	if (k >= 256)
		return -1;
	int ls = s->sidebar_map[k];
	return ls >= 0 ? ls : -1;
}

/* The pieces of the status line, in the order they give up room when the
 * line is too narrow: the formula first, then the shape, the stage name
 * down to 12 columns, the cursor's labels down to 16, then both to nothing.
 * The value is never cut: it is laid out first. */
enum { SP_NAME, SP_FORMULA, SP_SHAPE, SP_WHERE, SP_N };

/* On the decoding page the cell cursor is not on screen: the status line
 * tells the step, the input it extends and the selected candidate with its
 * probability instead. */
static void decode_status(const struct view_state *v, char *name, size_t nn,
			  char *where, size_t wn, char *val, size_t vn)
{
	const struct decode_result *r = v->dec;
	int s = clampi(v->dec_step, 0, r->nsteps - 1);
	const struct decode_step *st = &r->steps[s];
	int h = clampi(v->dec_hyp, 0, st->nhyps - 1);
	const struct hyp *hy = st->nhyps ? &st->hyps[h] : NULL;
	const struct cand *cd = NULL;
	for (int i = 0, k = 0; i < st->ncands && !cd; i++)
		if (st->cands[i].parent == h && k++ == v->dec_cand)
			cd = &st->cands[i];
	const struct vocab *voc = v->m ? &v->m->tgt_vocab : v->tr->vocab;
	const char *last = hy && hy->n ? vocab_str(voc, hy->ids[hy->n - 1]) : "<s>";
	const struct tokenizer_cfg *tc = v->m ? &v->m->cfg.tok : v->tr->tok;
	char lb[2][64];
	if (last && tc)
		last = tokens_label(tc, last, lb[0], sizeof lb[0]);
	/* TRANSLATORS: the status line on the decoding page */
	snprintf(name, nn, _("decoding step %d of %d"), s + 1, r->nsteps);
	if (!cd) {
		snprintf(where, wn, _("after “%s”"), last ? last : "?");
		snprintf(val, vn, "—");
		return;
	}
	const char *tok = vocab_str(voc, cd->token);
	if (tok && tc)
		tok = tokens_label(tc, tok, lb[1], sizeof lb[1]);
	/* TRANSLATORS: after the last input token, the candidate next token
	 * and (after " = ") its probability */
	snprintf(where, wn, _("after “%s”: candidate “%s”, p"), last ? last : "?",
		 tok ? tok : "?");
	fmt_pct(val, vn, cd->prob);
}

/* s without its " (N)" position numbers. */
static void drop_positions(const char *s, char *out, size_t n)
{
	size_t k = 0;
	while (*s && k + 1 < n) {
		if (s[0] == ' ' && s[1] == '(' && s[2] >= '0' && s[2] <= '9') {
			const char *p = s + 2;
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p == ')') {
				s = p + 1;
				continue;
			}
		}
		out[k++] = *s++;
	}
	out[k] = 0;
}

void screen_status_line(const struct view_state *v, int width, char *out,
			size_t n)
{
	const struct stage *st = view_stage(v);
	char shape[64], where[256], val[64], cut[SP_N][256], dname[96];
	const char *name = st->name, *formula = st->formula && *st->formula ?
						  _(st->formula) : "";
	if (v->dec && ((v->mode == VM_DECODE || v->mode == VM_COMPARE)) && v->dec->nsteps > 0) {
		decode_status(v, dname, sizeof dname, where, sizeof where, val, sizeof val);
		name = dname;
		formula = "";
		shape[0] = 0;
	} else {
		view_shape_text(st, shape, sizeof shape);
		if (st->wdtype[0])   /* a GGUF model's weight: its type in the file */
			snprintf(shape + strlen(shape), sizeof shape - strlen(shape), " · W %s",
				 st->wdtype);
		view_cursor_text(v, where, sizeof where, val, sizeof val);
	}
	char asc[SP_N + 1][256];
	if (canvas_ascii()) {
		/* measured as drawn: ASCII writes "√" as "sqrt" (views/ascii.c) */
		name = canvas_ascii_text(name, asc[0], sizeof asc[0]);
		formula = canvas_ascii_text(formula, asc[1], sizeof asc[1]);
		snprintf(where, sizeof where, "%s", canvas_ascii_text(where, asc[2], sizeof asc[2]));
		snprintf(val, sizeof val, "%s", canvas_ascii_text(val, asc[3], sizeof asc[3]));
	}
	const char *piece[SP_N] = { name, formula, shape, where };
	char compact[256];
	drop_positions(where, compact, sizeof compact);
	int w[SP_N];
	for (int i = 0; i < SP_N; i++)
		w[i] = utf8_width(piece[i]);
	/* " = VALUE " after the labels: the part that always shows */
	const int fixed = 3 + utf8_width(val) + 1;
	static const struct { int piece, floor; } ORDER[] = {
		{ SP_FORMULA, 0 }, { SP_SHAPE, 0 }, { SP_NAME, 12 }, { SP_WHERE, 16 },
		{ SP_NAME, 0 }, { SP_WHERE, 0 },
	};
	for (size_t k = 0;; k++) {
		/* " NAME  FORMULA  SHAPE  │ WHERE": separators of the pieces shown */
		int total = fixed + 1 + w[SP_NAME] + 4 + w[SP_WHERE];
		total += w[SP_FORMULA] ? 2 + w[SP_FORMULA] : 0;
		total += w[SP_SHAPE] ? 2 + w[SP_SHAPE] : 0;
		if (total <= width || k >= sizeof ORDER / sizeof *ORDER)
			break;
		int p = ORDER[k].piece, lo = ORDER[k].floor;
		if (p == SP_WHERE && piece[p] != compact) {
			/* first the positions go: “gato → é” × “lovely” */
			piece[p] = compact;
			w[p] = utf8_width(compact);
			k--;
			continue;
		}
		if (w[p] <= lo)
			continue;
		int want = w[p] - (total - width);
		/* a piece cut to a stub of "…" says nothing: drop it */
		w[p] = want < lo ? lo : want < 4 ? 0 : want;
		if (p == SP_SHAPE && w[p] < utf8_width(shape))
			w[p] = 0;   /* a shape is read whole or not at all */
	}
	for (int i = 0; i < SP_N; i++)
		text_fit(piece[i], w[i], cut[i], sizeof cut[i]);
	snprintf(out, n, " %s%s%s%s%s  │ %s = %s ", cut[SP_NAME],
		 w[SP_FORMULA] ? "  " : "", cut[SP_FORMULA], w[SP_SHAPE] ? "  " : "",
		 cut[SP_SHAPE], cut[SP_WHERE], val);
}

/* Key hints ("  "-separated items, "? keys" and "q quit" among them) in
 * width w: the items that fit whole, in order, and always the help's and
 * quit's at the end, so that the line never ends in a cut word. */
static const char *hints_fit(const char *hints, int w, char *out, size_t n)
{
	if (utf8_width(hints) <= w)
		return hints;
	const char *item[64];
	int len[64], wid[64], k = 0, tail = 0;
	for (const char *p = hints; *p && k < 64;) {
		while (*p == ' ')
			p++;
		const char *e = strstr(p, "  ");
		int l = e ? (int)(e - p) : (int)strlen(p);
		if (!l)
			break;
		char tmp[256];
		snprintf(tmp, sizeof tmp, "%.*s", l, p);
		item[k] = p;
		len[k] = l;
		wid[k] = utf8_width(tmp);
		if ((p[0] == '?' || p[0] == 'q') && p[1] == ' ')
			tail += wid[k] + 2;
		k++;
		p += l;
	}
	size_t used = 0;
	int x = 1;
	out[0] = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < k; i++) {
			int is_tail = (item[i][0] == '?' || item[i][0] == 'q') && item[i][1] == ' ';
			if (is_tail != pass || x + wid[i] + (pass ? 0 : tail) > w)
				continue;
			used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? "  " : " ",
						 len[i], item[i]);
			x += wid[i] + 2;
			if (used >= n)
				return out;
		}
	return out;
}

static void draw_status(struct screen *s, struct canvas *c)
{
	char hb[1024];
	char buf[1024];
	int y = c->h - 2;
	fill_line(c, y, R_STATUS);
	if (s->edit_prompt && s->message) {   /* the editor has the last line */
		put(c, 0, y, c->w, s->message_is_error ? R_WARN : R_ACCENT, s->message);
	} else if (s->edit_prompt) {
		/* TRANSLATORS: the status line while the sentence or target is
		 * edited, until Tab completes a word */
		const char *hint = s->edit_hint && *s->edit_hint ? s->edit_hint : NULL;
		if (!hint && s->edit_selected) {
			/* TRANSLATORS: the status line when the editor opens with
			 * the old text selected; the short form for narrow
			 * terminals after it */
			hint = _("typing replaces the text · ← → edit it · Ctrl-U clears · "
				 "Tab completes a word · Enter runs · Esc cancels");
			if (utf8_width(hint) + 1 > c->w)
				hint = _("typing replaces · ←→ edit · Ctrl-U clears · Enter runs · "
					 "Esc cancels");
		} else if (!hint) {
			hint = _("Tab completes a word from the model's vocabulary · Ctrl-U clears · "
				 "Enter runs · Esc cancels");
			if (utf8_width(hint) + 1 > c->w)
				hint = _("Tab completes a word · Ctrl-U clears · Enter runs · Esc cancels");
		}
		snprintf(buf, sizeof buf, " %s", hint);
		put(c, 0, y, c->w, R_STATUS, buf);
	} else {
		screen_status_line(&s->v, c->w, buf, sizeof buf);
		put(c, 0, y, c->w, R_STATUS, buf);
	}

	y = c->h - 1;
	if (s->edit_prompt) {
		int x = put(c, 0, y, c->w, R_ACCENT, s->edit_prompt);
		/* the text with the cursor cell reversed, scrolled so that the
		 * cursor stays visible: one walk back from the cursor, as far as
		 * the room goes (each character as wide as canvas_text draws it) */
		int bw = 0, room = c->w - x - 1;
		const char *t = s->edit_text, *shown = t + s->edit_cursor;
		while (shown > t) {
			const char *p = shown - 1;
			char u[8];
			int used;
			while (p > t && (*(const unsigned char *)p & 0xC0) == 0x80)
				p--;
			safetext_unit(p, 0, u, &used);
			int w = utf8_width(u);
			if (bw + w > room)
				break;
			bw += w;
			shown = p;
		}
		put(c, x, y, room, s->edit_selected ? R_SELECTED : R_TEXT, shown);
		struct style cur = role_style(R_CURSOR, c->depth);
		char g[8] = " ";
		const char *at = s->edit_text + s->edit_cursor;
		if (*at) {
			int len = 1;
			unsigned char b0 = (unsigned char)*at;
			if (b0 >= 0xF0) len = 4; else if (b0 >= 0xE0) len = 3; else if (b0 >= 0xC0) len = 2;
			snprintf(g, sizeof g, "%.*s", len, at);
		}
		canvas_text(c, x + bw, y, 1, g, cur.fg, cur.bg, cur.attr);
		return;
	}
	if (s->message) {
		put(c, 0, y, c->w, s->message_is_error ? R_WARN : R_ACCENT, s->message);
		return;
	}
	const char *hints;
	if (s->caption)
		/* TRANSLATORS: key hints on the last line: items apart by two
		 * spaces, the most used first; those that do not fit are left
		 * out whole ("? keys" and "q quit" always stay); the keys
		 * themselves (←, ?, q, Esc ...) stay as they are. */
		hints = _(" lecture: space → next step  ← back  (any other key explores; "
			  "space returns to the script)  ? keys  q quit");
	else if (s->v.dec && s->v.dec_sample && (s->v.mode == VM_DECODE))
		/* TRANSLATORS: key hints of the decoding page while sampling. */
		hints = _(" . , step  $ to the end  T greedy  + - temperature  ( ) top-p  * top-k  "
			  "# another seed  f force  r stages  R stop  ? keys");
	else if (s->v.dec && ((s->v.mode == VM_DECODE || s->v.mode == VM_COMPARE)))
		/* TRANSLATORS: key hints of the decoding page (see above). */
		hints = _(" . , step  $ to the end  b greedy/beam  T sample  + - width  ( ) α  "
			  "↑↓ candidate  f force it  [ ] hypothesis  C compare  r stages  R stop  ? keys");
	else
		/* TRANSLATORS: key hints of the stepper (see above). */
		hints = _(" ←→ stage  ↑↓ hjkl cell  [ ] head  { } layer  a heads  i inspect  "
			  "d mask diff  m/M masks  x ablate  e edit  r decode  ? keys  q quit");
	put(c, 0, y, c->w, R_MUTED, hints_fit(hints, c->w, hb, sizeof hb));
}

/* The lecture's breadcrumb in place of the stage list: "encoder layer 0 ›
 * self_attn.scores · stage 6 of 40", then the keys that bring the list back. */
static void draw_breadcrumb(struct screen *s, struct canvas *c, int y)
{
	const struct stage *st = view_stage(&s->v);
	char group[64], buf[256];
	group_title(st, group, sizeof group);
	/* TRANSLATORS: the lecture's one-line stage list (below 120 columns):
	 * the group, the stage, its position in the pass */
	snprintf(buf, sizeof buf, _(" %s › %s · stage %d of %d"), group, short_name(st),
		 s->v.stage + 1, s->v.tr->n);
	int x = put(c, 0, y, c->w, R_HEADER, buf);
	/* TRANSLATORS: after the breadcrumb: the keys that bring the stage
	 * list back */
	const char *keys = _("  (g G E D O { }: the stage list)");
	if (x + utf8_width(keys) <= c->w)
		put(c, x, y, c->w - x, R_MUTED, keys);
}

/* The lecture's caption in a frame at the bottom of main: as tall as its
 * text (the view keeps at least 9 lines); text that still does not fit is
 * paged (s->caption_page), with "▼ 1/2 · space: more" on the frame.
 * Returns the lines it took. */
static int draw_caption(struct screen *s, struct canvas *c, struct rect main)
{
	int tw = main.w - 4;
	if (tw < 8)
		return 0;
	int lines = canvas_wrap(NULL, (struct rect){ 0, 0, tw, 4096 }, s->caption, 0, 0, 0);
	int room = clampi(main.h - 9 - 2, 3, 4096);   /* text lines the box may take */
	int per = lines < 1 ? 1 : lines < room ? lines : room;
	int pages = (lines + per - 1) / per;
	if (pages < 1)
		pages = 1;
	int page = clampi(s->caption_page, 0, pages - 1);
	s->caption_pages = pages;
	int h = per + 2;
	struct rect box = { main.x, main.y + main.h - h, main.w, h };
	struct style fr = role_style(R_ACCENT, c->depth);
	struct style tx = role_style(R_TEXT, c->depth);
	canvas_frame(c, box, s->caption_title, fr.fg, fr.bg, 0);
	/* the page: the whole text wrapped into a scratch canvas, its lines
	 * copied */
	struct canvas *sc = canvas_new(tw, lines > 0 ? lines : 1, c->depth);
	if (sc) {
		canvas_fill(sc, (struct rect){ 0, 0, sc->w, sc->h }, " ", tx.fg, tx.bg, 0);
		canvas_wrap(sc, (struct rect){ 0, 0, tw, lines }, s->caption, tx.fg, tx.bg, tx.attr);
		for (int k = 0; k < per && page * per + k < lines; k++)
			for (int x = 0; x < tw; x++) {
				int cx = box.x + 2 + x, cy = box.y + 1 + k;
				if (cx < c->w && cy < c->h)
					c->cells[(size_t)cy * c->w + cx] =
						sc->cells[(size_t)(page * per + k) * tw + x];
			}
		canvas_free(sc);
	}
	if (pages > 1) {
		char mark[96];
		if (page + 1 < pages)
			/* TRANSLATORS: on the caption's frame when it has more
			 * pages: page %d of %d, and how to see the next one */
			snprintf(mark, sizeof mark, _(" ▼ %d/%d · space: more "), page + 1, pages);
		else
			/* TRANSLATORS: on the caption's frame, its last page */
			snprintf(mark, sizeof mark, _(" ▲ %d/%d · ← back "), page + 1, pages);
		int w = utf8_width(mark);
		canvas_text(c, box.x + box.w - 2 - w, box.y + box.h - 1, w, mark,
			    fr.fg, fr.bg, fr.attr | ATTR_BOLD);
	}
	return h;
}

void screen_draw(struct screen *s, struct canvas *c)
{
	/* the scheme's background (terminal default in the default scheme) */
	struct style base = role_style(R_TEXT, c->depth);
	canvas_clear(c);
	if (base.bg != COLOR_DEFAULT)
		canvas_fill(c, (struct rect){ 0, 0, c->w, c->h }, " ", base.fg, base.bg, 0);
	s->v.geom.valid = 0;
	s->v.nmap_hits = 0;
	if (c->w < SCREEN_MIN_W || c->h < SCREEN_MIN_H) {
		char buf[96];
		snprintf(buf, sizeof buf, _("terminal too small: %d×%d, need %d×%d"),
			 c->w, c->h, SCREEN_MIN_W, SCREEN_MIN_H);
		put(c, 0, c->h / 2, c->w, R_WARN, buf);
		put(c, 0, c->h / 2 + 1, c->w, R_MUTED, _("enlarge the window, or q to quit"));
		return;
	}
	view_clamp(&s->v);
	/* a lecture below 120 columns: the view needs the width more than the
	 * stage list does, which becomes a breadcrumb line (until a key that
	 * moves between stages asks for it); the header keeps to one line
	 * then, for the caption */
	int crumb = s->lecture && !s->show_stages && c->w < SCREEN_LECTURE_SIDEBAR_W;
	const int top = screen_draw_header(s, c, crumb ? 1 : 2);   /* 1 or 2 lines */
	int side = c->w >= 80 && !s->presenter && !crumb && !s->hide_stages ? SIDEBAR_W : 0;
	/* a breadcrumb below a two-line header takes a line of the view */
	const int my = crumb && !side ? top + 1 : 2;
	struct rect main = { side ? side + 2 : 1, my, c->w - (side ? side + 3 : 2), c->h - 3 - my };
	if (side) {
		struct rect sb = { 0, top, side, c->h - 2 - top };
		if ((s->v.map_side) && !(s->v.mode == VM_MAP) && sb.h >= 20) {
			/* the small map above the stage list, at most half of it */
			int used = map_draw_mini(&s->v, c, (struct rect){ 0, top, side, sb.h / 2 + 3 });
			struct style b = role_style(R_BORDER, c->depth);
			for (int y = top; y < top + used; y++)
				canvas_put(c, side, y, "│", b.fg, b.bg, b.attr);
			sb.y += used;
			sb.h -= used;
		}
		draw_sidebar(s, c, sb);
	} else {
		s->sidebar = (struct rect){ 0, 0, 0, 0 };
		if (crumb)
			draw_breadcrumb(s, c, top);
	}
	if (s->show_explain && main.h > 14) {
		/* the stage's explanation under the view */
		int h = main.h > 32 ? 8 : 6;
		struct rect box = { main.x, main.y + main.h - h, main.w, h };
		main.h -= h;
		const struct view_class *vc = view_for(&s->v);
		const char *page = vc == &lens_view ? "lens" : vc == &importance_view ? "importance" :
				   vc == &decoding_view && s->v.dec_sample ? "sample" : NULL;
		char note[1024];
		if (!page || explain_draw_page(c, box, page))
			explain_draw_view(c, box, view_stage(&s->v),
					  vc == &lines_view ? VM_LINES : vc == &modelview_view ? VM_MODEL :
					  vc == &map_view ? VM_MAP : VM_STAGE,
					  explain_note(&s->v, note, sizeof note));
	}
	s->caption_pages = 1;
	if (s->caption && main.h > 12)
		main.h -= draw_caption(s, c, main);
	if (s->show_help) {
		/* the key table over the whole body: its descriptions need the
		 * width more than the stage list does */
		struct rect body = { 1, 2, c->w - 2, c->h - 5 };
		canvas_fill(c, (struct rect){ 0, 1, c->w, c->h - 3 }, " ", base.fg, base.bg, 0);
		screen_draw_help(s, c, body);
	} else
		view_for(&s->v)->draw(&s->v, c, main);
	draw_status(s, c);
}
