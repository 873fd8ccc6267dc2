/* view.c - choosing a view, stage geometry, cursor text and attention
 * diagnostics shared by the views. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "view.h"
#include "base/i18n.h"

int view_heads(const struct stage *s)
{
	return s->ndim == 3 ? s->shape[0] : 1;
}

void view_dims(const struct stage *s, int *rows, int *cols)
{
	switch (s->ndim) {
	case 1: *rows = s->shape[0]; *cols = 1; break;
	case 2: *rows = s->shape[0]; *cols = s->shape[1]; break;
	default: *rows = s->shape[1]; *cols = s->shape[2]; break;
	}
}

const float *view_slice(const struct stage *s, int head)
{
	int rows, cols, h = view_heads(s);
	view_dims(s, &rows, &cols);
	if (head < 0) head = 0;
	if (head >= h) head = h - 1;
	return (const float *)s->data + (size_t)head * rows * cols;
}

void view_clamp(struct view_state *v)
{
	const struct stage *s = view_stage(v);
	int rows, cols, h = view_heads(s);
	view_dims(s, &rows, &cols);
	if (v->head >= h) v->head = h - 1;
	if (v->head < 0) v->head = 0;
	if (v->row >= rows) v->row = rows - 1;
	if (v->row < 0) v->row = 0;
	if (v->col >= cols) v->col = cols - 1;
	if (v->col < 0) v->col = 0;
}

static int is_attention(const struct stage *s)
{
	return s->kind == SK_SCORES || s->kind == SK_WEIGHTS;
}

const struct stage *view_attn_weights(const struct trace *t, const struct stage *s)
{
	const char *a = strstr(s->name, "_attn.");
	char nm[STAGE_NAME_MAX + 16];
	if (!a)
		return NULL;
	snprintf(nm, sizeof nm, "%.*s_attn.weights", (int)(a - s->name), s->name);
	const struct stage *w = trace_find(t, nm);
	return w && w->ndim == 3 && w->dtype == DT_F32 && w->kind == SK_WEIGHTS ? w : NULL;
}

/* The stage's own view, by its kind. */
static const struct view_class *stage_view(const struct stage *s)
{
	switch (s->kind) {
	case SK_IDS:
		return &ids_view;
	case SK_VECTORS:
		return &vectors_view;
	case SK_LOGITS:
	case SK_PROBS:
	case SK_LOSS:
		return &output_view;
	case SK_CLASS_LOGITS:
	case SK_CLASS_PROBS:
		return &classes_view;
	default:
		return &heatmap_view;
	}
}

int view_mode_applies(const struct view_state *v, enum view_mode m)
{
	const struct stage *s = view_stage(v);
	switch (m) {
	case VM_HEADS:
	case VM_MEAN:
		return is_attention(s) || (s->kind == SK_PERHEAD && m == VM_HEADS);
	case VM_INSPECT:
	case VM_MASK_DIFF:
		return is_attention(s);
	case VM_CURVES:   /* the PE curves, or the rotary picture of q_rot, k_rot */
		return (s->kind == SK_VECTORS && strstr(s->name, ".pos") != NULL) ||
		       (s->kind == SK_PERHEAD && strstr(s->name, "_rot") != NULL);
	case VM_DECODE:
	case VM_COMPARE:
		return v->dec != NULL;
	case VM_LINES:
		return view_attn_weights(v->tr, s) != NULL;
	case VM_MODEL:
		return view_attn_weights(v->tr, s) != NULL && s->layer >= 0;
	case VM_LENS:
		return v->lens != NULL;
	case VM_IMPORTANCE:
		return v->imp != NULL;
	default:
		return 1;
	}
}

/* Each mode's view (NULL: the stage's own). */
static const struct view_class *const MODE_VIEW[VM_COUNT] = {
	[VM_HEADS] = &heads_view, [VM_MEAN] = &heads_view, [VM_INSPECT] = &inspect_view,
	[VM_MASK_DIFF] = &maskdiff_view, [VM_CURVES] = &posenc_view,
	[VM_DECODE] = &decoding_view, [VM_COMPARE] = &compare_view, [VM_LINES] = &lines_view,
	[VM_MODEL] = &modelview_view, [VM_MAP] = &map_view, [VM_LENS] = &lens_view,
	[VM_IMPORTANCE] = &importance_view,
};

const struct view_class *view_for(const struct view_state *v)
{
	enum view_mode m = (unsigned)v->mode < VM_COUNT ? v->mode : VM_STAGE;
	if (MODE_VIEW[m] && view_mode_applies(v, m))
		return m == VM_CURVES && view_stage(v)->kind == SK_PERHEAD ? &rotary_view :
		       MODE_VIEW[m];
	return stage_view(view_stage(v));
}

static const char *axis_noun(enum axis a)
{
	switch (a) {
	case AX_SRC: return _("source token");
	case AX_TGT: return _("decoder token");
	case AX_VOCAB: return _("vocabulary");
	/* TRANSLATORS: the axis of a classifier's labels (a noun). */
	case AX_CLASS: return _("label");
	/* TRANSLATORS: the axis of attention heads (a noun). */
	case AX_HEAD: return _("head");
	default: return _("dimension");
	}
}

const char *view_row_title(const struct stage *s, char *buf, size_t n)
{
	enum axis a = s->axes[s->ndim == 3 ? 1 : 0];
	if (is_attention(s))
		/* TRANSLATORS: the rows of an attention matrix; %s is "source
		 * token", "decoder token", ... */
		snprintf(buf, n, _("query: %s"), axis_noun(a));
	else
		snprintf(buf, n, "%s", axis_noun(a));
	return buf;
}

const char *view_col_title(const struct stage *s, char *buf, size_t n)
{
	if (s->ndim == 1)
		return "";
	enum axis a = s->axes[s->ndim - 1];
	if (is_attention(s))
		/* TRANSLATORS: the columns of an attention matrix; %s is "source
		 * token", "decoder token", ... */
		snprintf(buf, n, _("key: %s"), axis_noun(a));
	else
		snprintf(buf, n, "%s", axis_noun(a));
	return buf;
}

/* Whether the cursor's key is masked (−∞ in the sibling .masked stage of
 * an attention weights stage). */
static int masked_key(const struct view_state *v)
{
	const struct stage *s = view_stage(v);
	char nm[STAGE_NAME_MAX + 8];
	const char *dot = strrchr(s->name, '.');
	if (!dot || strcmp(dot, ".weights"))
		return 0;
	snprintf(nm, sizeof nm, "%.*s.masked", (int)(dot - s->name), s->name);
	const struct stage *m = trace_find(v->tr, nm);
	if (!m || m->ndim != s->ndim || m->shape[0] != s->shape[0] ||
	    m->shape[1] != s->shape[1] || m->shape[2] != s->shape[2])
		return 0;
	int rows, cols;
	view_dims(m, &rows, &cols);
	float x = view_slice(m, v->head)[(size_t)v->row * cols + v->col];
	return isinf(x) && x < 0;
}

void view_cursor_text(const struct view_state *v, char *where, size_t wn,
		      char *val, size_t vn)
{
	const struct stage *s = view_stage(v);
	const struct trace *t = v->tr;
	int rows, cols;
	char rl[96], cl[96];
	view_dims(s, &rows, &cols);
	enum axis ra = s->axes[s->ndim == 3 ? 1 : 0];
	enum axis ca = s->axes[s->ndim - 1];
	trace_row_label(t, ra, v->row, rl, sizeof rl);
	if (s->dtype == DT_I32) {
		const int32_t *ids = s->data;
		snprintf(where, wn, _("position %d “%s”"), v->row, rl);
		snprintf(val, vn, _("id %d"), ids[v->row]);
		return;
	}
	float x = view_slice(s, v->head)[(size_t)v->row * cols + (s->ndim == 1 ? 0 : v->col)];
	if (isinf(x) && x < 0)
		snprintf(val, vn, "%s", _("−∞ (masked)"));
	else if (x == 0 && s->kind == SK_WEIGHTS && masked_key(v))
		/* TRANSLATORS: the weight of a masked key in the status line */
		snprintf(val, vn, "%s", _("0 (masked)"));
	else
		fmt_cell(val, vn, x);
	if (s->ndim == 1) {
		snprintf(where, wn, "%s %d “%s”", axis_noun(ra), v->row, rl);
		return;
	}
	trace_axis_label(t, ca, v->col, cl, sizeof cl);
	if (is_attention(s))
		snprintf(where, wn, _("head %d · query “%s” (%d) × key “%s” (%d)"),
			 v->head, rl, v->row, cl, v->col);
	else if (ca == AX_NONE)
		/* TRANSLATORS: "dim" is a dimension (a column) of a token's vector. */
		snprintf(where, wn, _("“%s” (%d), dim %d"), rl, v->row, v->col);
	else
		snprintf(where, wn, "“%s” (%d) × “%s” (%d)", rl, v->row, cl, v->col);
}

double attn_entropy(const float *w, int nq, int nk)
{
	double total = 0;
	int rows = 0;
	for (int i = 0; i < nq; i++) {
		double h = 0, sum = 0;
		for (int j = 0; j < nk; j++) {
			double p = w[(size_t)i * nk + j];
			sum += p;
			if (p > 0)
				h -= p * log2(p);
		}
		if (sum > 0.5) {   /* fully masked rows (all zero) do not count */
			total += h;
			rows++;
		}
	}
	return rows ? total / rows : 0;
}

/* Share of rows whose largest weight sits where pick(i) says. */
static double share(const float *w, int nq, int nk, int kind)
{
	int hit = 0, rows = 0;
	for (int i = 0; i < nq; i++) {
		const float *r = w + (size_t)i * nk;
		int best = 0;
		for (int j = 1; j < nk; j++)
			if (r[j] > r[best])
				best = j;
		if (r[best] <= 0)
			continue;
		int want = kind == 0 ? i : kind == 1 ? i - 1 : 0;
		if (kind == 1 && i == 0)
			continue;
		rows++;
		hit += best == want && r[best] >= 0.5f;
	}
	return rows ? (double)hit / rows : 0;
}

const char *attn_pattern(const float *w, int nq, int nk)
{
	if (nq < 2 || nk < 2)
		return "";
	if (nq == nk && share(w, nq, nk, 0) >= 0.6)
		/* TRANSLATORS: attention patterns of a head, shown after its
		 * entropy; the short forms "self", "previous", "first" are used
		 * when these do not fit. */
		return _("attends to itself");
	if (share(w, nq, nk, 1) >= 0.6)
		return _("previous token");
	if (share(w, nq, nk, 2) >= 0.6)
		return _("first token");
	if (attn_entropy(w, nq, nk) >= 0.8 * log2(nk))
		/* TRANSLATORS: attention spread over many keys (high entropy). */
		return _("broad");
	return "";
}

const char *attn_pattern_fit(const char *tag, int room, char *buf, size_t n)
{
	/* TRANSLATORS: short forms of "attends to itself", "previous token"
	 * and "first token" for the border of a small tile (a few columns). */
	static const struct { const char *full, *brief; } T[] = {
		{ N_("attends to itself"), N_("self") },
		{ N_("previous token"), N_("previous") },
		{ N_("first token"), N_("first") },
	};
	if (utf8_width(tag) <= room)
		return tag;
	for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
		if (strcmp(tag, _(T[i].full)) == 0) {
			tag = _(T[i].brief);
			break;
		}
	return text_fit(tag, room, buf, n);
}

void view_shape_text(const struct stage *st, char *buf, size_t n)
{
	static const char *dim[] = { "", "h", "S", "T", "V", "C" };
	size_t len = (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < st->ndim && len < n; i++) {
		const char *nm = (unsigned)st->axes[i] < sizeof dim / sizeof *dim ?
				 dim[st->axes[i]] : "";
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s%d", i ? ", " : "",
					nm, *nm ? "=" : "", st->shape[i]);
	}
	if (len < n)
		snprintf(buf + len, n - len, "]");
}

int view_begin(struct view_state *v, struct canvas *c, struct rect r, int missing,
	       const char *msg)
{
	v->geom.valid = 0;
	if (r.w < 1 || r.h < 1)
		return 0;
	if (missing) {
		const struct style mu = role_style(R_MUTED, c->depth);
		clip_text(c, r, r.x, r.y, r.w, msg, &mu);
		return 0;
	}
	return 1;
}
