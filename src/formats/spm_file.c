/* spm_file.c - a SentencePiece ModelProto file (sentencepiece_model.proto)
 * read into a struct spm_spec, then built by spm_new.
 *
 *   ModelProto     1 pieces (repeated SentencePiece)  2 trainer_spec
 *                  3 normalizer_spec  (4 self_test_data, 5 denormalizer_spec:
 *                  skipped)
 *   SentencePiece  1 piece  2 score (float)  3 type (enum spm_type)
 *   TrainerSpec    3 model_type  24 treat_whitespace_as_suffix
 *                  35 byte_fallback  44 unk_surface  46 bos_piece
 *                  47 eos_piece  48 pad_piece  (the rest: skipped)
 *   NormalizerSpec 1 name  2 precompiled_charsmap  3 add_dummy_prefix
 *                  4 remove_extra_whitespaces  5 escape_whitespaces */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spm_int.h"
#include "protobuf.h"
#include "base/i18n.h"
#include "base/safefile.h"

#define FILE_MAX_BYTES (256u << 20)

/* What the file says, spans into its bytes. */
struct proto {
	const uint8_t *base;
	struct spm_spec spec;
	char **pieces;
	float *scores;
	int32_t *types;
	int cap;
	const uint8_t *name, *surface, *bos, *eos, *pad;
	size_t name_len, surface_len, bos_len, eos_len, pad_len;
	int have_trainer;
};

/* A length-delimited span as a NUL-terminated copy (NULL: out of memory). */
static char *span_str(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	if (s) {
		memcpy(s, p, len);
		s[len] = 0;
	}
	return s;
}

static int bad(struct err *e, const char *what, const struct proto *pr, const uint8_t *where,
	       const char *why)
{
	return err_set(e, "%s: not a SentencePiece model: %s (at byte %zu)", what, _(why),
		       (size_t)(where - pr->base));
}

/* Expects wire type w for field f of message msg. */
static int want(const struct pb_field *f, int w, const char *msg, const struct proto *pr,
		const char *what, struct err *e)
{
	if (f->wire == w)
		return 0;
	return err_set(e, "%s: not a SentencePiece model: %s field %u has wire type %d, "
		       "expected %d (at byte %zu)", what, msg, (unsigned)f->num, f->wire, w, f->at);
}

static int read_piece(struct proto *pr, const struct pb_field *pf, const char *what,
		      struct err *e)
{
	struct pb_reader r;
	struct pb_field f;
	const char *why;
	int k, i = pr->spec.n;
	const uint8_t *text = NULL;
	size_t tlen = 0;
	if (i == pr->cap) {
		int cap = pr->cap ? pr->cap * 2 : 1024;
		if (cap > SPM_MAX_PIECES)
			return err_set(e, "%s: more than %d pieces", what, SPM_MAX_PIECES);
		char **np = realloc(pr->pieces, (size_t)cap * sizeof *np);
		if (np)
			pr->pieces = np;
		float *ns = np ? realloc(pr->scores, (size_t)cap * sizeof *ns) : NULL;
		if (ns)
			pr->scores = ns;
		int32_t *nt = ns ? realloc(pr->types, (size_t)cap * sizeof *nt) : NULL;
		if (!nt)
			return err_set(e, "%s: out of memory", what);
		pr->types = nt;
		pr->cap = cap;
	}
	pr->scores[i] = 0.0f;
	pr->types[i] = SPM_NORMAL;
	pb_init(&r, pf->data, pf->len);
	while ((k = pb_next(&r, pr->base, &f, &why)) == 1) {
		f.at += (size_t)(pf->data - pr->base);
		static const char msg[] = "ModelProto.SentencePiece";
		if (f.num == 1 && !want(&f, PB_LEN, msg, pr, what, e)) {
			text = f.data;
			tlen = f.len;
		} else if (f.num == 2 && !want(&f, PB_FIXED32, msg, pr, what, e)) {
			pr->scores[i] = pb_float(&f);
		} else if (f.num == 3 && !want(&f, PB_VARINT, msg, pr, what, e)) {
			pr->types[i] = f.v >= 1 && f.v <= 6 ? (int32_t)f.v : 0;
		} else if (f.num >= 1 && f.num <= 3) {
			return -1;
		}
	}
	if (k < 0)
		return bad(e, what, pr, r.p, why);
	if (!text || !tlen)
		return err_set(e, "%s: piece %d is empty (at byte %zu)", what, i,
			       (size_t)(pf->data - pr->base));
	if (memchr(text, 0, tlen))
		return err_set(e, "%s: piece %d holds a NUL byte", what, i);
	if (!(pr->pieces[i] = span_str(text, tlen)))
		return err_set(e, "%s: out of memory", what);
	pr->spec.n++;
	return 0;
}

static int read_trainer(struct proto *pr, const struct pb_field *pf, const char *what,
			struct err *e)
{
	struct pb_reader r;
	struct pb_field f;
	const char *why;
	int k;
	pb_init(&r, pf->data, pf->len);
	pr->have_trainer = 1;
	while ((k = pb_next(&r, pr->base, &f, &why)) == 1) {
		f.at += (size_t)(pf->data - pr->base);
		int num = (int)f.num;
		if (num == 3 || num == 24 || num == 35) {
			if (want(&f, PB_VARINT, "trainer_spec", pr, what, e))
				return -1;
			if (num == 3)
				pr->spec.model = f.v >= 1 && f.v <= 4 ? (enum spm_model)f.v : 0;
			else if (num == 24)
				pr->spec.treat_whitespace_as_suffix = f.v != 0;
			else
				pr->spec.byte_fallback = f.v != 0;
		} else if (num == 44 || (num >= 46 && num <= 48)) {
			if (want(&f, PB_LEN, "trainer_spec", pr, what, e))
				return -1;
			const uint8_t **dst = num == 44 ? &pr->surface : num == 46 ? &pr->bos :
					      num == 47 ? &pr->eos : &pr->pad;
			size_t *dl = num == 44 ? &pr->surface_len : num == 46 ? &pr->bos_len :
				     num == 47 ? &pr->eos_len : &pr->pad_len;
			*dst = f.data;
			*dl = f.len;
		}
	}
	return k < 0 ? bad(e, what, pr, r.p, why) : 0;
}

static int read_normalizer(struct proto *pr, const struct pb_field *pf, const char *what,
			   struct err *e)
{
	struct pb_reader r;
	struct pb_field f;
	const char *why;
	int k;
	pb_init(&r, pf->data, pf->len);
	while ((k = pb_next(&r, pr->base, &f, &why)) == 1) {
		f.at += (size_t)(pf->data - pr->base);
		if (f.num == 1 || f.num == 2) {
			if (want(&f, PB_LEN, "normalizer_spec", pr, what, e))
				return -1;
			if (f.num == 1) {
				pr->name = f.data;
				pr->name_len = f.len;
			} else {
				pr->spec.charsmap = f.data;
				pr->spec.charsmap_len = f.len;
			}
		} else if (f.num >= 3 && f.num <= 5) {
			if (want(&f, PB_VARINT, "normalizer_spec", pr, what, e))
				return -1;
			int *dst = f.num == 3 ? &pr->spec.add_dummy_prefix :
				   f.num == 4 ? &pr->spec.remove_extra_whitespaces :
				   &pr->spec.escape_whitespaces;
			*dst = f.v != 0;
		}
	}
	return k < 0 ? bad(e, what, pr, r.p, why) : 0;
}

static int read_model(struct proto *pr, const uint8_t *buf, size_t len, const char *what,
		      struct err *e)
{
	struct pb_reader r;
	struct pb_field f;
	const char *why;
	int k;
	pb_init(&r, buf, len);
	while ((k = pb_next(&r, buf, &f, &why)) == 1) {
		if (f.num >= 1 && f.num <= 3 && want(&f, PB_LEN, "ModelProto", pr, what, e))
			return -1;
		if ((f.num == 1 && read_piece(pr, &f, what, e)) ||
		    (f.num == 2 && read_trainer(pr, &f, what, e)) ||
		    (f.num == 3 && read_normalizer(pr, &f, what, e)))
			return -1;
	}
	if (k < 0)
		return bad(e, what, pr, r.p, why);
	if (!pr->spec.n)
		return err_set(e, "%s: not a SentencePiece model: no pieces", what);
	if (!pr->spec.model)
		return err_set(e, "%s: trainer_spec.model_type is not one of unigram (1), bpe (2), "
			       "word (3), char (4)", what);
	for (int i = 0; i < pr->spec.n; i++)
		if (!pr->types[i])
			return err_set(e, "%s: piece %d (\"%.60s\") has a type outside 1 … 6", what,
				       i, pr->pieces[i]);
	return 0;
}

/* The library's bos_id() and the like: the id of the spelling (default
 * def) when that piece is a CONTROL piece, else -1. */
static int control_id(const struct spm *s, const uint8_t *p, size_t len, const char *def)
{
	if (!p) {
		p = (const uint8_t *)def;
		len = strlen(def);
	}
	int id = spm_piece_id(s, (const char *)p, len);
	return id >= 0 && s->type[id] == SPM_CONTROL ? id : -1;
}

struct spm *spm_load_buffer(const void *buf, size_t len, const char *what, struct err *e)
{
	struct proto pr = { .base = buf };
	struct spm *s = NULL;
	char *surface = NULL;
	pr.spec.model = SPM_UNIGRAM;
	pr.spec.add_dummy_prefix = pr.spec.remove_extra_whitespaces = 1;
	pr.spec.escape_whitespaces = 1;
	pr.spec.bos_id = pr.spec.eos_id = pr.spec.pad_id = -1;
	if (read_model(&pr, buf, len, what, e))
		goto out;
	pr.spec.pieces = (const char *const *)pr.pieces;
	pr.spec.scores = pr.scores;
	pr.spec.types = pr.types;
	if (pr.surface && !(surface = span_str(pr.surface, pr.surface_len))) {
		err_set(e, "%s: out of memory", what);
		goto out;
	}
	pr.spec.unk_surface = surface;
	if (!(s = spm_new(&pr.spec, what, e)))
		goto out;
	s->bos_id = control_id(s, pr.bos, pr.bos_len, "<s>");
	s->eos_id = control_id(s, pr.eos, pr.eos_len, "</s>");
	s->pad_id = control_id(s, pr.pad, pr.pad_len, "<pad>");
	if (pr.name) {
		char *nm = span_str(pr.name, pr.name_len);
		if (!nm) {
			spm_free(s);
			s = NULL;
			err_set(e, "%s: out of memory", what);
			goto out;
		}
		free(s->norm_name);
		s->norm_name = nm;
	}
out:
	for (int i = 0; i < pr.spec.n; i++)
		free(pr.pieces[i]);
	free(pr.pieces);
	free(pr.scores);
	free(pr.types);
	free(surface);
	return s;
}

struct spm *spm_load(const char *path, struct err *e)
{
	int fd = safefile_open_read(path, e);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			err_set(e, "%s: out of memory", path);
			break;
		}
		if (n == cap) {
			if (cap >= FILE_MAX_BYTES) {
				err_set(e, "%s: larger than %u MB: not a SentencePiece model", path,
					FILE_MAX_BYTES >> 20);
				break;
			}
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
			continue;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			err_set(e, "%s: cannot read", path);
			break;
		}
		if (r == 0) {
			close(fd);
			struct spm *s = spm_load_buffer(buf, n, path, e);
			free(buf);
			return s;
		}
		n += (size_t)r;
	}
	close(fd);
	free(buf);
	return NULL;
}
