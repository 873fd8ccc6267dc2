/* caption.c - filling a lecture caption's references from the trace
 * (the syntax: caption.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caption.h"
#include "base/i18n.h"
#include "formats/vocab.h"
#include "views/view.h"

enum fn { FN_VALUE, FN_ARGMAX, FN_MAX, FN_MIN, FN_ENTROPY, FN_MEAN, FN_SCORE, FN_LOGP,
	  FN_OUTPUT };
static const char *const FN_NAMES[] = {
	"value", "argmax", "max", "min", "entropy", "mean", "score", "logp", "output", NULL
};

/* One parsed reference. */
struct ref {
	enum fn fn;
	char name[STAGE_NAME_MAX];
	int idx[3];          /* h, row, col; −1 not given */
	int pct;             /* ":%" */
	int prec;            /* decimals (−1: the function's default) */
	char text[160];      /* the reference as written, for errors */
};

enum { I_H, I_ROW, I_COL };
static const char *const IDX_NAMES[] = { "h", "row", "col" };

/* x with prec decimals (as a percentage: ×100 and "%") in the message
 * language's prose. */
static void put_num(char *buf, size_t n, double x, int prec, int pct)
{
	char num[64];
	if (isinf(x) || isnan(x))
		pct = 0;
	snprintf(buf, n, "%s%s", i18n_num(num, sizeof num, pct ? x * 100 : x, prec),
		 pct ? "%" : "");
}

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n')
		(*p)++;
}

/* Parses "[h=1, row=2, col=3]" at *p into r->idx. */
static int parse_index(const char **p, struct ref *r, struct err *e)
{
	(*p)++;   /* '[' */
	for (;;) {
		skip_ws(p);
		int k = -1;
		for (int i = 0; i < 3; i++) {
			size_t l = strlen(IDX_NAMES[i]);
			if (strncmp(*p, IDX_NAMES[i], l) == 0 && !isalnum((unsigned char)(*p)[l]) &&
			    (*p)[l] != '_')
				k = i;
		}
		if (k < 0)
			return err_set(e, "caption reference {%s}: an index is h=, row= or col=",
				       r->text);
		*p += strlen(IDX_NAMES[k]);
		skip_ws(p);
		if (**p != '=')
			return err_set(e, "caption reference {%s}: %s needs = and a number",
				       r->text, IDX_NAMES[k]);
		(*p)++;
		skip_ws(p);
		char *end;
		long v = strtol(*p, &end, 10);
		if (end == *p || v < 0 || v > 1 << 24 || r->idx[k] >= 0)
			return err_set(e, "caption reference {%s}: %s needs one number from 0",
				       r->text, IDX_NAMES[k]);
		r->idx[k] = (int)v;
		*p = end;
		skip_ws(p);
		if (**p == ']')
			break;
		if (**p != ',')
			return err_set(e, "caption reference {%s}: indices are separated by commas",
				       r->text);
		(*p)++;
	}
	(*p)++;
	return 0;
}

/* Parses the inside of a reference (body, len bytes) into r. */
static int parse_ref(const char *body, size_t len, struct ref *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	r->idx[0] = r->idx[1] = r->idx[2] = r->prec = -1;
	snprintf(r->text, sizeof r->text, "%.*s", (int)(len < 150 ? len : 150), body);
	char buf[256];
	if (len >= sizeof buf)
		return err_set(e, "caption reference {%s…}: too long", r->text);
	memcpy(buf, body, len);
	buf[len] = 0;
	const char *p = buf;
	skip_ws(&p);
	size_t w = strcspn(p, " \t\n[:");
	for (int i = 1; FN_NAMES[i]; i++)
		if (strlen(FN_NAMES[i]) == w && strncmp(p, FN_NAMES[i], w) == 0 &&
		    strchr(" \t\n", p[w]) && p[w]) {
			r->fn = (enum fn)i;
			p += w;
			skip_ws(&p);
		}
	size_t nl = strcspn(p, " \t\n[:");
	if (nl == 0 || nl >= sizeof r->name)
		return err_set(e, "caption reference {%s}: no stage or search named", r->text);
	memcpy(r->name, p, nl);
	p += nl;
	skip_ws(&p);
	if (*p == '[' && parse_index(&p, r, e))
		return -1;
	skip_ws(&p);
	if (*p == ':') {
		p++;
		if (*p == '%')
			r->pct = 1, p++;
		if (*p == '.' && isdigit((unsigned char)p[1]))
			r->prec = p[1] - '0', p += 2;
		skip_ws(&p);
		if (*p || (!r->pct && r->prec < 0))
			return err_set(e, "caption reference {%s}: the format after : is %%, "
				       ".N or %%.N", r->text);
	}
	if (*p)
		return err_set(e, "caption reference {%s}: unexpected \"%.20s\"", r->text, p);
	return 0;
}

/* The stage r names: next to the step's stage first, then further out. */
static const struct stage *find_stage(const struct caption_src *src, const struct ref *r)
{
	if (!src->t)
		return NULL;
	if (src->stage) {
		char name[2 * STAGE_NAME_MAX];
		size_t k = strlen(src->stage);
		while (k > 0) {
			while (k > 0 && src->stage[k - 1] != '.')
				k--;   /* the prefix up to and with a dot */
			if (k == 0)
				break;
			snprintf(name, sizeof name, "%.*s%s", (int)k, src->stage, r->name);
			const struct stage *st = trace_find(src->t, name);
			if (st)
				return st;
			k--;
		}
	}
	return trace_find(src->t, r->name);
}

/* The flat offset of the cell r's indices give, with the last axis at 0
 * when it is left free; checks them against the shape. */
static int ref_offset(const struct stage *st, const struct ref *r, int free_last,
		      size_t *off, struct err *e)
{
	int map[3];   /* stage axis → index slot */
	if (st->ndim == 3)
		map[0] = I_H, map[1] = I_ROW, map[2] = I_COL;
	else if (st->ndim == 2)
		map[0] = I_ROW, map[1] = I_COL;
	else
		map[0] = I_ROW;
	if (st->ndim < 3 && r->idx[I_H] >= 0)
		return err_set(e, "caption reference {%s}: %s has no heads", r->text, st->name);
	if (st->ndim < 2 && r->idx[I_COL] >= 0)
		return err_set(e, "caption reference {%s}: %s has rows only", r->text, st->name);
	*off = 0;
	for (int a = 0; a < st->ndim; a++) {
		int v = r->idx[map[a]];
		int last = a == st->ndim - 1;
		if (last && free_last && v >= 0)
			return err_set(e, "caption reference {%s}: %s takes a whole row: leave "
				       "out %s=", r->text, FN_NAMES[r->fn], IDX_NAMES[map[a]]);
		if (v < 0 && !(last && free_last))
			return err_set(e, "caption reference {%s}: %s needs %s=", r->text,
				       st->name, IDX_NAMES[map[a]]);
		if (v >= st->shape[a])
			return err_set(e, "caption reference {%s}: %s=%d is outside %s (%d)",
				       r->text, IDX_NAMES[map[a]], v, st->name, st->shape[a]);
		*off = *off * (size_t)st->shape[a] + (size_t)(v < 0 ? 0 : v);
	}
	return 0;
}

static double stage_at(const struct stage *st, size_t i)
{
	return st->dtype == DT_I32 ? (double)((const int32_t *)st->data)[i]
				   : (double)stage_f32(st)[i];
}

/* The mean, largest or smallest value over the indices r leaves out. */
static int ref_reduce(const struct stage *st, const struct ref *r, double *out,
		      struct err *e)
{
	static const int SLOT3[] = { I_H, I_ROW, I_COL }, SLOT2[] = { I_ROW, I_COL };
	const int *slot = st->ndim == 3 ? SLOT3 : SLOT2;
	if (st->ndim < 3 && r->idx[I_H] >= 0)
		return err_set(e, "caption reference {%s}: %s has no heads", r->text, st->name);
	for (int a = 0; a < st->ndim; a++)
		if (r->idx[slot[a]] >= st->shape[a])
			return err_set(e, "caption reference {%s}: %s=%d is outside %s (%d)",
				       r->text, IDX_NAMES[slot[a]], r->idx[slot[a]], st->name,
				       st->shape[a]);
	size_t n = stage_numel(st), cnt = 0;
	double acc = r->fn == FN_MAX ? -INFINITY : r->fn == FN_MIN ? INFINITY : 0;
	for (size_t i = 0; i < n; i++) {
		size_t rest = i;
		int keep = 1;
		for (int a = st->ndim - 1; a >= 0; a--) {
			int want = r->idx[slot[a]];
			keep &= want < 0 || (size_t)want == rest % (size_t)st->shape[a];
			rest /= (size_t)st->shape[a];
		}
		if (!keep)
			continue;
		double x = stage_at(st, i);
		acc = r->fn == FN_MAX ? fmax(acc, x) : r->fn == FN_MIN ? fmin(acc, x) : acc + x;
		cnt++;
	}
	*out = !cnt ? NAN : r->fn == FN_MEAN ? acc / (double)cnt : acc;
	return 0;
}

/* {entropy weights[h=1]}: the mean row entropy of a head, in bits, as the
 * model view titles it (fully masked rows left out). */
static int ref_head_entropy(const struct stage *st, const struct ref *r, char *buf,
			    size_t n, struct err *e)
{
	if (st->ndim < 2 || st->dtype != DT_F32)
		return err_set(e, "caption reference {%s}: entropy needs rows", r->text);
	if (st->ndim == 3 && r->idx[I_H] < 0)
		return err_set(e, "caption reference {%s}: %s needs h=", r->text, st->name);
	int h = st->ndim == 3 ? r->idx[I_H] : 0;
	if (h >= st->shape[0] || r->idx[I_COL] >= 0)
		return err_set(e, "caption reference {%s}: entropy takes h= (and row=) within "
			       "%s", r->text, st->name);
	int nq = st->shape[st->ndim - 2], nk = st->shape[st->ndim - 1];
	put_num(buf, n, attn_entropy(stage_f32(st) + (size_t)h * nq * nk, nq, nk),
		r->prec >= 0 ? r->prec : 2, 0);
	return 0;
}

/* A row function (argmax, entropy) of the row r names. */
static int ref_row(const struct caption_src *src, const struct stage *st,
		   const struct ref *r, char *buf, size_t n, struct err *e)
{
	size_t off;
	if (ref_offset(st, r, 1, &off, e))
		return -1;
	int w = st->shape[st->ndim - 1], best = 0;
	double h = 0, mx = -INFINITY;
	for (int k = 0; k < w; k++) {
		double x = stage_at(st, off + (size_t)k);
		if (x > mx || (k == 0 && isnan(mx)))
			mx = x, best = k;
		if (x > 0)
			h -= x * log2(x);
	}
	if (r->fn == FN_ARGMAX) {
		char lab[256];
		trace_axis_label(src->t, st->axes[st->ndim - 1], best, lab, sizeof lab);
		snprintf(buf, n, "%s", lab);
	} else {
		if (st->kind != SK_WEIGHTS && st->kind != SK_PROBS && st->kind != SK_CLASS_PROBS)
			return err_set(e, "caption reference {%s}: entropy needs a distribution "
				       "(weights or probs), not %s", r->text, st->name);
		put_num(buf, n, h, r->prec >= 0 ? r->prec : 2, 0);
	}
	return 0;
}

/* A decoding step's search: {score beam}, {logp greedy}, {output beam}. */
static int ref_search(const struct caption_src *src, const struct ref *r, char *buf,
		      size_t n, struct err *e)
{
	int beam = strcmp(r->name, "beam") == 0;
	if (!beam && strcmp(r->name, "greedy") != 0)
		return err_set(e, "caption reference {%s}: %s takes beam or greedy, not \"%s\"",
			       r->text, FN_NAMES[r->fn], r->name);
	const struct decode_result *d = beam ? src->beam : src->greedy;
	if (!d || !src->t)
		return err_set(e, "caption reference {%s}: only a decoding step "
			       "(view: decode or compare) has searches", r->text);
	if (r->fn == FN_SCORE || r->fn == FN_LOGP) {
		put_num(buf, n, r->fn == FN_SCORE ? d->best_score : d->best_logp,
			r->prec >= 0 ? r->prec : 3, 0);
		return 0;
	}
	if (src->m) {
		model_target_text(src->m, d->best, d->nbest, src->sentence, buf, n);
		return 0;
	}
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < d->nbest && k + 1 < n; i++) {
		const char *tok = src->t->vocab ? vocab_str(src->t->vocab, d->best[i]) : NULL;
		int w = snprintf(buf + k, n - k, "%s%s", i ? " " : "", tok ? tok : "?");
		k = w < 0 ? n : k + (size_t)w;
	}
	return 0;
}

/* Writes the value of reference r into buf. */
static int ref_eval(const struct caption_src *src, const struct ref *r, char *buf,
		    size_t n, struct err *e)
{
	if (r->fn == FN_SCORE || r->fn == FN_LOGP || r->fn == FN_OUTPUT)
		return ref_search(src, r, buf, n, e);
	const struct stage *st = find_stage(src, r);
	if (!st && src->stage)
		return err_set(e, "caption reference {%s}: no stage \"%s\" in this step's pass "
			       "near %s", r->text, r->name, src->stage);
	if (!st)
		return err_set(e, "caption reference {%s}: no stage \"%s\" in this step's pass",
			       r->text, r->name);
	if (r->fn == FN_ENTROPY && r->idx[I_ROW] < 0)
		return ref_head_entropy(st, r, buf, n, e);
	if (r->fn == FN_ARGMAX || r->fn == FN_ENTROPY)
		return ref_row(src, st, r, buf, n, e);
	double x = 0;
	size_t off;
	if (r->fn == FN_MEAN || r->fn == FN_MAX || r->fn == FN_MIN) {
		if (ref_reduce(st, r, &x, e))
			return -1;
	} else if (ref_offset(st, r, 0, &off, e)) {
		return -1;
	} else {
		x = stage_at(st, off);
	}
	int prec = r->prec >= 0 ? r->prec : r->pct ? 0 : st->dtype == DT_I32 &&
		   r->fn == FN_VALUE ? 0 : 2;
	put_num(buf, n, x, prec, r->pct);
	return 0;
}

/* Appends len bytes of s to out at *k (truncating). */
static void put(char *out, size_t n, size_t *k, const char *s, size_t len)
{
	if (*k + 1 >= n)
		return;
	if (len > n - 1 - *k)
		len = n - 1 - *k;
	memcpy(out + *k, s, len);
	*k += len;
	out[*k] = 0;
}

/* At a "{tui: …}" or "{deck: …}" (body: after the brace): 0 when it is
 * neither, 1 when it is the other medium's, else the offset of its text
 * from the brace. */
static size_t only_part(const char *body, int deck)
{
	static const char *const PARTS[] = { "tui:", "deck:" };
	for (int i = 0; i < 2; i++) {
		size_t l = strlen(PARTS[i]);
		if (strncmp(body, PARTS[i], l) == 0) {
			if (i != deck)
				return 1;
			return 1 + l;   /* the text as written, its space too */
		}
	}
	return 0;
}

int caption_fill(const char *text, const struct caption_src *src, char *out,
		 size_t n, struct err *e)
{
	size_t k = 0;
	if (n == 0)
		return err_set(e, "no room for the caption");
	out[0] = 0;
	for (const char *p = text; *p;) {
		size_t lit = strcspn(p, "{}");
		put(out, n, &k, p, lit);
		p += lit;
		if (!*p)
			break;
		if (p[0] == p[1]) {   /* "{{" or "}}" */
			put(out, n, &k, p, 1);
			p += 2;
			continue;
		}
		if (*p == '}')
			return err_set(e, "caption: a } without its {: write }} for a brace");
		const char *end = strchr(p, '}');
		const char *open = strchr(p + 1, '{');
		if (!end || (open && open < end))
			return err_set(e, "caption: a { without its }: write {{ for a brace");
		size_t part = only_part(p + 1, src->deck);
		if (part) {   /* {tui: …} or {deck: …} */
			if (part > 1)
				put(out, n, &k, p + part, (size_t)(end - p) - part);
			p = end + 1;
			continue;
		}
		struct ref r;
		char val[1024];
		if (parse_ref(p + 1, (size_t)(end - p - 1), &r, e) ||
		    ref_eval(src, &r, val, sizeof val, e))
			return -1;
		put(out, n, &k, val, strlen(val));
		p = end + 1;
	}
	return 0;
}

int caption_has_refs(const char *text)
{
	for (const char *p = text; (p = strchr(p, '{')); p += 2)
		if (p[1] != '{')
			return 1;
	return 0;
}
