/* explain.c - the explanation of every stage family and its panel.
 *
 * The texts follow the seed lecture: what a stage computes, then why (why
 * √dk, why −∞ before softmax, layer norm versus batch norm, the residual
 * path, what several heads buy, teacher forcing).  They are plain literals
 * in one table so that gettext can mark them (N_ in the table, _ where
 * explain_text returns). */
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "palette.h"
#include "view.h"
#include "base/i18n.h"
#include "engine/model.h"

struct explanation {
	const char *family;
	const char *text;
};

static const struct explanation TEXTS[] = {
	/* ---- input ---- */
	{ "src.ids",
	  /* TRANSLATORS: this and the texts below explain a stage of the
	     forward pass in a small panel under the view: keep each about as
	     long as the English, and keep formulas, symbols and tokens (<s>,
	     </s>, <pad>) as they are. */
	  N_("The sentence is split into tokens, and each token becomes its line "
	     "number in the vocabulary. The source is wrapped as <s> … </s> so the "
	     "model sees where it starts and ends. These ids never change; only "
	     "the vectors they point to are learned.") },
	{ "tgt.ids",
	  N_("The decoder's input is the target shifted right: <s> followed by the "
	     "words so far (the correct ones in training, its own in decoding). "
	     "Shifting by one is what makes position i predict word i+1.") },
	{ "embed",
	  N_("Each id picks its row of the embedding table: a learned vector of "
	     "d_model numbers, the same every time the word appears. Training moves "
	     "these vectors so that words used in similar ways end up close "
	     "together.") },
	{ "embed.scaled",
	  N_("Each id picks its row of the embedding table: a learned vector of "
	     "d_model numbers, the same every time the word appears. As in the "
	     "paper it is multiplied by √d_model, so that the word's vector is not "
	     "drowned by the positional encoding added next.") },
	{ "pos",
	  N_("Attention alone does not know word order: shuffle the tokens and each "
	     "gets the same result. So every position gets a fixed vector of sines "
	     "(even dimensions) and cosines (odd) of different wavelengths, "
	     "computed once, not learned. Near positions get similar vectors, and "
	     "a shift by k is the same linear map everywhere, so relative positions "
	     "are easy to learn.") },
	{ "pos.learned",
	  N_("Attention alone does not know word order, so each position gets a "
	     "vector of its own. Here it is a learned table, one row per position "
	     "up to max_len, trained like the embeddings (the paper found this "
	     "works about as well as fixed sines and cosines).") },
	{ "pos.none",
	  N_("This model adds no positional encoding: the input is the embedding "
	     "alone. Without it self-attention sees the sentence as a bag of words "
	     "(a causal mask still lets a decoder count positions).") },
	{ "input",
	  N_("The layer's input is embedding + position: one vector of d_model "
	     "numbers per token that says both what the word is and where it is. "
	     "Adding instead of concatenating keeps the size at d_model; the model "
	     "learns to keep the two signals apart.") },

	/* ---- self-attention ---- */
	{ "q",
	  N_("Each token's vector times the learned matrix W_Q is its query: what "
	     "this token is looking for. The d_model numbers are cut into h heads "
	     "of dk = d_model/h, so every head sees the whole sentence but only a "
	     "slice of each vector.") },
	{ "k",
	  N_("Each token's key (times W_K) is what it can be found by: a query "
	     "matches a key when their dot product is large. It is a dictionary "
	     "lookup made soft, where every key matches a little.") },
	{ "v",
	  N_("Each token's value (times W_V) is what it passes on when it is "
	     "attended to. The keys decide how much each token counts; the values "
	     "are what gets mixed.") },
	{ "scores",
	  N_("Each entry is the dot product of a query with a key: how well that "
	     "token matches that one. It is divided by √dk because dot products "
	     "grow with dk; large scores would saturate the softmax (one weight "
	     "near 1, the rest near 0) and its gradients would vanish.") },
	{ "masked.enc",
	  N_("The mask puts −∞ on the scores a query must not use. In the encoder "
	     "only padding keys (<pad>) are masked, so every word sees the whole "
	     "sentence; without padding this equals the scores. (--encoder-causal, "
	     "or the key M, hides the future here too.)") },
	{ "masked",
	  N_("Scores of keys after the query are set to −∞: the causal mask. Since "
	     "exp(−∞) = 0, softmax gives those keys exactly zero weight, so "
	     "position i sees only positions up to i and the decoder cannot peek "
	     "at the word it has to predict. Padding keys are masked the same "
	     "way.") },
	{ "weights",
	  N_("Softmax turns each row of scores into weights that are at least 0 "
	     "and sum to 1: exponentiate, then divide by the row's sum. Row i says "
	     "how much token i takes from each token; masked keys get exactly 0. "
	     "This is the picture of attention: bright cells are where a word "
	     "looks.") },
	{ "heads",
	  N_("Each head multiplies its weights by V: every token gets a weighted "
	     "average of the value rows. The result is a new vector per token that "
	     "mixes in what it attended to; all heads do this in parallel.") },
	{ "concat",
	  N_("The h head outputs, dk numbers each, are put side by side: d_model "
	     "numbers per token again (h·dk = d_model). Several heads let the model "
	     "look in several ways at once (one head may follow the previous word, "
	     "another the subject) for the cost of one full-width head.") },
	{ "out",
	  N_("W_O mixes what the heads found into one vector of d_model numbers "
	     "per token. This is the attention sublayer's output; it goes to the "
	     "residual sum (add & norm).") },

	/* ---- cross-attention ---- */
	{ "cross.q",
	  N_("Cross-attention is how the decoder reads the source sentence: the "
	     "queries come from the decoder (what each target position needs), "
	     "while the keys and values come from the encoder's output, the "
	     "memory. These are the decoder's queries, times W_Q.") },
	{ "cross.k",
	  N_("In cross-attention the keys come from the encoder's memory, one per "
	     "source token, while the queries come from the decoder. They depend "
	     "only on the source, so they stay the same at every decoding step.") },
	{ "cross.v",
	  N_("In cross-attention the values come from the encoder's memory: what "
	     "each source token hands to the decoder when it is looked at. Like "
	     "the keys they depend only on the source sentence.") },
	{ "cross.scores",
	  N_("Cross-attention scores: each decoder query (rows, target tokens) "
	     "against each encoder key (columns, source tokens), divided by √dk "
	     "so the softmax does not saturate. The matrix is target × source, two "
	     "sentences rather than one sentence with itself.") },
	{ "cross.masked",
	  N_("Cross-attention has no causal mask: the source sentence is known in "
	     "full, so every target position may look at all of it. Only source "
	     "padding keys (<pad>) get −∞; without padding this equals the "
	     "scores.") },
	{ "cross.weights",
	  N_("For each target token, softmax over the source tokens: where the "
	     "decoder looks in the source while producing that word. Queries come "
	     "from the decoder, keys from the encoder's memory; in a trained "
	     "translator this is often a soft word alignment (\"amo\" looks at "
	     "\"love\").") },
	{ "cross.heads",
	  N_("Each head's weights times the encoder's values: for every target "
	     "token, a mix of source information. This is the only place where "
	     "the source sentence enters the decoder.") },
	{ "cross.concat",
	  N_("The cross-attention heads side by side: d_model numbers per target "
	     "token again, each head's slice carrying what it read from the "
	     "source.") },
	{ "cross.out",
	  N_("W_O mixes the heads into one vector per target token: what this "
	     "layer takes from the source sentence. It is added to the decoder's "
	     "own vectors in the next add & norm.") },

	/* ---- add & norm ---- */
	{ "add",
	  N_("The residual connection adds the sublayer's output to its input: "
	     "x + Sublayer(x). The sublayer only has to learn a change to x, and "
	     "the straight path keeps the signal and its gradient alive through "
	     "many layers.") },
	{ "add.pre",
	  N_("Pre-norm residual: x + Sublayer(LayerNorm(x)). The sum is not "
	     "normalised, so an untouched identity path runs through the whole "
	     "stack, keeping the signal and the gradient; deep models train more "
	     "stably this way.") },
	{ "norm",
	  N_("Layer normalisation rescales each token's vector over its d_model "
	     "features to mean 0 and variance 1, then applies a learned gain γ and "
	     "bias β. Unlike batch norm, which normalises each feature across the "
	     "examples of a batch, it looks at one token at a time, so it is "
	     "independent of the batch. Here it follows the residual sum "
	     "(post-norm, as in the paper).") },
	{ "norm.pre",
	  N_("Layer normalisation of the sublayer's input (pre-norm): each token's "
	     "vector is rescaled over its d_model features to mean 0 and variance "
	     "1, then by a learned γ and β. Unlike batch norm it never mixes tokens "
	     "or examples of a batch. The residual path goes around it, keeping "
	     "the raw signal.") },
	{ "norm.final",
	  N_("A last layer normalisation of the stack's output, each token's "
	     "vector over its d_model features (mean 0, variance 1, then γ and β). "
	     "Pre-norm models need it, since their residual sums are never "
	     "normalised inside the layers.") },

	/* ---- feed-forward ---- */
	{ "ffn.hidden",
	  N_("The feed-forward network works on each token on its own, with the "
	     "same weights for all: a linear layer widens the vector from d_model "
	     "to d_ff numbers, and ReLU sets the negatives to 0. Attention mixes "
	     "information between tokens; this is where each token's vector is "
	     "transformed.") },
	{ "ffn.hidden.gelu",
	  N_("The feed-forward network works on each token on its own, with the "
	     "same weights for all: a linear layer widens the vector from d_model "
	     "to d_ff numbers, then GELU (a smooth ReLU, x·Φ(x)) damps the "
	     "negatives. Attention mixes information between tokens; this is where "
	     "each token's vector is transformed.") },
	{ "ffn.out",
	  N_("A second linear layer brings the d_ff hidden numbers back to d_model "
	     "per token. Like the attention output, the result goes to the "
	     "residual sum.") },

	/* ---- encoder output and the output layer ---- */
	/* ---- today's decoder-only models (Llama, Mistral, Qwen, Gemma, Phi) ---- */
	{ "input.rope",
	  N_("The input is the embedding alone: no position vector is added. This "
	     "model gives positions inside attention instead, by turning each "
	     "query and key (rotary embeddings, RoPE), so order still counts.") },
	{ "norm.rms",
	  N_("RMSNorm before the sublayer (pre-norm): each token's vector divided "
	     "by the root of its mean square, times a learned gain. Unlike "
	     "LayerNorm no mean is subtracted and there is no bias. Only the "
	     "sublayer's input is normalised; the residual stream x keeps its scale, "
	     "which keeps deep stacks stable in training.") },
	{ "norm.final.rms",
	  N_("A last RMSNorm over the residual stream before the output projection: "
	     "with pre-norm nothing else normalises the stream at the end.") },
	{ "qk_norm",
	  N_("Each head's query (or key) row is RMS-normalised over its dk numbers "
	     "before the rotation (Qwen3): it bounds the size of q·k, so no score "
	     "can grow huge and make softmax pick one key outright.") },
	{ "rope",
	  N_("Rotary position embedding: the dimensions of each head come in pairs "
	     "(j, j + dk/2), and the pair is turned by the angle p·θⱼ at position "
	     "p, with θⱼ = base^(−2j/dk): the first pairs turn fast, the last "
	     "hardly at all. When a turned query meets a turned key only the "
	     "difference of their angles is left, so the score depends on how far "
	     "apart the two tokens are. Keys and values may have fewer heads than "
	     "queries (grouped-query attention): several query heads share one key "
	     "head, and the cache of past keys and values shrinks as much. Press c "
	     "for the angles as a picture.") },
	{ "ffn.gate",
	  N_("The gate of a gated feed-forward (SwiGLU, GeGLU): x·W_gateᵀ through a "
	     "smooth activation (SiLU x·σ(x), or GELU). It decides, unit by unit, "
	     "how much of the other projection passes.") },
	{ "ffn.up",
	  N_("The other projection of the same input, x·W_upᵀ, with no activation: "
	     "what the gate lets through.") },
	{ "ffn.hidden.gated",
	  N_("gate ⊙ up, element by element. A third matrix (down) brings it back "
	     "to d_model. Three matrices instead of the paper's two, and no biases: "
	     "for the same size the gated form trains to a lower loss.") },
	{ "memory",
	  N_("The encoder's output: one vector per source token that carries its "
	     "meaning, its position and its relations to the other words. Every "
	     "decoder layer reads it in cross-attention as keys and values; it is "
	     "computed once per sentence, however many steps decoding takes.") },
	{ "logits",
	  N_("A linear layer projects each output vector from d_model numbers to "
	     "one score per word of the target vocabulary: the higher, the likelier "
	     "that word comes next. When the weights are tied, the target embedding "
	     "table is reused for this.") },
	{ "probs",
	  N_("Softmax turns each row of logits into probabilities over the "
	     "vocabulary that sum to 1. Row i is the guess for the word after "
	     "position i; greedy decoding takes the largest, beam search keeps the "
	     "k best sequences.") },
	{ "loss",
	  N_("In training the decoder is teacher forced: its input is <s> plus the "
	     "correct target, not its own guesses, so every position learns in one "
	     "parallel pass. The loss at position i is −log p(correct next word), "
	     "the cross-entropy: 0 when the model is sure and right, large when it "
	     "is sure and wrong.") },

	{ "pooled",
	  N_("A classifier reads one vector for the whole sentence: the mean of "
	     "the encoder's outputs over the real (not padded) tokens, or the first "
	     "token's, or the last one's, as the head's pool says.") },
	{ "class_logits",
	  N_("The classifier's scores, one per label: the pooled vector times the "
	     "head's weights plus its bias. The higher, the likelier that label.") },
	{ "class_probs",
	  N_("Softmax turns the class scores into probabilities over the labels "
	     "that sum to 1; the largest is the model's answer.") },

	/* ---- anything else ---- */
	{ "other",
	  N_("An intermediate result of the forward pass, kept so that it can be "
	     "looked at. The formula above says how it is computed.") },
};

#define NTEXTS (sizeof TEXTS / sizeof *TEXTS)

/* Pages that show more than one stage: their formula line and text. */
static const struct page_text {
	const char *page, *formula, *text;
} PAGES[] = {
	{ "sample",
	  /* TRANSLATORS: the formula line of the sampling explanation */
	  N_("p_T ∝ exp(log p / T) · top-k · top-p · p_cut = p_T / Σ kept · draw u ~ U[0,1)"),
	  N_("Sampling draws the next word instead of taking the most probable. "
	     "The temperature T divides the log-probabilities: T > 1 flattens the "
	     "distribution, T < 1 sharpens it, T = 0 is greedy. Top-k keeps the k "
	     "likeliest words, top-p the fewest whose probability sums to p; the "
	     "rest are cut off and the kept ones renormalised. A seeded random "
	     "number u picks the word where the running sum passes u, so the same "
	     "seed gives the same sentence.") },
	{ "lens",
	  /* TRANSLATORS: the formula line of the logit lens explanation */
	  N_("lens(ℓ) = softmax(LN_final(h_ℓ) · W_genᵀ + b) for the embedding (ℓ = 0) and each decoder layer"),
	  N_("The logit lens reads the decoder's mind layer by layer: the output "
	     "of every decoder layer (and the input embedding) goes through the "
	     "final norm and the generator as if it were the last layer. Each row "
	     "shows a layer's top guesses for the next word and the probability it "
	     "already gives the word finally chosen, so you see at which layer the "
	     "translation appears.") },
	{ "importance",
	  /* TRANSLATORS: the formula line of the head importance explanation */
	  N_("drop(head) = Σ log p(label) − Σ log p(label | head zeroed)"),
	  N_("Head importance zeroes one attention head at a time and runs the "
	     "whole pass again: the drop in the log-probability of the labels "
	     "(the target, or the model's own translation) says how much the "
	     "output needs that head. A large drop: the head matters; near zero: "
	     "the others do its work, or it does none. A negative drop means the "
	     "output is better without it.") },
};

const char *explain_page_text(const char *page)
{
	for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++)
		if (strcmp(PAGES[i].page, page) == 0)
			return _(PAGES[i].text);
	return NULL;
}

static int has(const char *s, const char *needle)
{
	return s && strstr(s, needle);
}

/* "norm2" style: prefix followed by digits only. */
static int numbered(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n) != 0 || !s[n])
		return 0;
	for (s += n; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static const char *by_kind(enum stage_kind k)
{
	switch (k) {
	case SK_IDS: return "src.ids";
	case SK_PERHEAD: return "heads";
	case SK_SCORES: return "scores";
	case SK_WEIGHTS: return "weights";
	case SK_LOGITS: return "logits";
	case SK_PROBS: return "probs";
	case SK_LOSS: return "loss";
	case SK_POOLED: return "pooled";
	case SK_CLASS_LOGITS: return "class_logits";
	case SK_CLASS_PROBS: return "class_probs";
	case SK_VECTORS: break;
	}
	return "other";
}

const char *explain_family(const struct stage *s)
{
	static const char *const ATTN[] = {
		"q", "k", "v", "scores", "masked", "weights", "heads", "concat", "out",
	};
	static const char *const CROSS[] = {
		"cross.q", "cross.k", "cross.v", "cross.scores", "cross.masked",
		"cross.weights", "cross.heads", "cross.concat", "cross.out",
	};
	const char *name = s->name, *f = s->formula;
	const char *dot = strrchr(name, '.');
	const char *last = dot ? dot + 1 : name;

	if (has(name, ".ffn.")) {
		if (strcmp(last, "gate") == 0 || strcmp(last, "up") == 0)
			return strcmp(last, "gate") == 0 ? "ffn.gate" : "ffn.up";
		if (strcmp(last, "hidden") == 0 && has(f, "⊙"))
			return "ffn.hidden.gated";
		if (strcmp(last, "hidden") == 0)
			return f && strncmp(f, "GELU", 4) == 0 ? "ffn.hidden.gelu" : "ffn.hidden";
		if (strcmp(last, "out") == 0)
			return "ffn.out";
	}
	if (has(name, "_attn.") && (strcmp(last, "q_rot") == 0 || strcmp(last, "k_rot") == 0))
		return "rope";
	if (has(name, "_attn.") && (strcmp(last, "q_norm") == 0 || strcmp(last, "k_norm") == 0))
		return "qk_norm";
	if (has(name, "_attn.")) {
		int cross = has(name, ".cross_attn.") != 0;
		for (size_t i = 0; i < sizeof ATTN / sizeof *ATTN; i++) {
			if (strcmp(last, ATTN[i]) != 0)
				continue;
			if (cross)
				return CROSS[i];
			if (strcmp(last, "masked") == 0 && s->block == BLK_ENCODER)
				return "masked.enc";
			return ATTN[i];
		}
	}
	if (strcmp(last, "ids") == 0 || s->kind == SK_IDS)
		return s->block == BLK_TGT || has(name, "tgt.") ? "tgt.ids" : "src.ids";
	if (strcmp(last, "embed") == 0)
		return has(f, "√") ? "embed.scaled" : "embed";
	if (strcmp(last, "pos") == 0)
		return has(f, "learned") ? "pos.learned" :
		       f && !has(f, "sin(") ? "pos.none" : "pos";
	if (numbered(last, "add"))
		return has(f, "LayerNorm") ? "add.pre" : "add";
	if (numbered(last, "norm") && has(f, "mean(x²)"))
		return "norm.rms";
	if (numbered(last, "norm"))   /* post: LayerNorm(x + Sublayer(x)) */
		return f && !has(f, "Sublayer") ? "norm.pre" : "norm";
	if (strcmp(last, "norm") == 0)
		return has(f, "RMSNorm") ? "norm.final.rms" : "norm.final";
	if (strcmp(last, "input") == 0 && has(f, "RoPE"))
		return "input.rope";
	static const char *const PLAIN[] = { "input", "memory", "logits", "probs", "loss" };
	for (size_t i = 0; i < sizeof PLAIN / sizeof *PLAIN; i++)
		if (strcmp(last, PLAIN[i]) == 0)
			return PLAIN[i];
	return by_kind(s->kind);
}

const char *explain_text(const struct stage *s)
{
	const char *fam = explain_family(s);
	for (size_t i = 0; i < NTEXTS; i++)
		if (strcmp(TEXTS[i].family, fam) == 0)
			return _(TEXTS[i].text);
	return _(TEXTS[NTEXTS - 1].text);
}

/* ---- the panel ---- */

#define LINE_MAX_BYTES 1024

/* Bytes of the UTF-8 sequence starting at p (1 for a stray byte). */
static size_t cp_len(const char *p)
{
	unsigned char b = (unsigned char)*p;
	size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
	for (size_t i = 1; i < n; i++)
		if (((unsigned char)p[i] & 0xC0) != 0x80)
			return 1;
	return n;
}

/* Columns of the n bytes at p. */
static int span_width(const char *p, size_t n)
{
	char buf[LINE_MAX_BYTES];
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return utf8_width(buf);
}

/* Takes the next line of at most w columns from *p into line, breaking at
 * spaces (a word wider than w is cut between characters).  Returns 0 when
 * nothing is left. */
static int next_line(const char **p, int w, char *line)
{
	const char *s = *p;
	size_t len = 0;
	int used = 0;
	while (*s == ' ' || *s == '\n')
		s++;
	if (!*s || w < 1)
		return 0;
	while (*s) {
		const char *e = s;
		while (*e && *e != ' ' && *e != '\n')
			e++;
		size_t wl = (size_t)(e - s);
		int ww = span_width(s, wl);
		int sep = len ? 1 : 0;
		if (used + sep + ww <= w && len + sep + wl < LINE_MAX_BYTES) {
			if (sep)
				line[len++] = ' ';
			memcpy(line + len, s, wl);
			len += wl;
			used += sep + ww;
			s = e;
			while (*s == ' ' || *s == '\n')
				s++;
			continue;
		}
		if (len)
			break;
		/* a word wider than the line: as many characters as fit */
		while (*s && *s != ' ' && *s != '\n') {
			size_t cl = cp_len(s);
			int cw = span_width(s, cl);
			if (used + cw > w || len + cl >= LINE_MAX_BYTES)
				break;
			memcpy(line + len, s, cl);
			len += cl;
			used += cw;
			s += cl;
		}
		if (!len) {   /* a character wider than the line: skip it */
			s += cp_len(s);
			continue;
		}
		break;
	}
	line[len] = 0;
	*p = s;
	return 1;
}

static int count_lines(const char *s, int w)
{
	char line[LINE_MAX_BYTES];
	int n = 0;
	while (next_line(&s, w, line))
		n++;
	return n;
}

/* Text in a role's style; returns the columns used. */
static int put(struct canvas *c, int x, int y, int maxw, enum role r,
	       const char *s)
{
	struct style st = role_style(r, c->depth);
	return maxw > 0 ? canvas_text(c, x, y, maxw, s, st.fg, st.bg, st.attr) : 0;
}

static void frame(struct canvas *c, struct rect r)
{
	struct style b = role_style(R_BORDER, c->depth);
	for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
		canvas_put(c, x, r.y, "─", b.fg, b.bg, b.attr);
		canvas_put(c, x, r.y + r.h - 1, "─", b.fg, b.bg, b.attr);
	}
	for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
		canvas_put(c, r.x, y, "│", b.fg, b.bg, b.attr);
		canvas_put(c, r.x + r.w - 1, y, "│", b.fg, b.bg, b.attr);
	}
	canvas_put(c, r.x, r.y, "┌", b.fg, b.bg, b.attr);
	canvas_put(c, r.x + r.w - 1, r.y, "┐", b.fg, b.bg, b.attr);
	canvas_put(c, r.x, r.y + r.h - 1, "└", b.fg, b.bg, b.attr);
	canvas_put(c, r.x + r.w - 1, r.y + r.h - 1, "┘", b.fg, b.bg, b.attr);
	/* " what this stage does " on the top edge, cut to fit */
	/* TRANSLATORS: the title on the top edge of the explanation panel;
	   keep the spaces around it and keep it short */
	put(c, r.x + 2, r.y, r.w - 4, R_HEADER, _(" what this stage does "));
}

/* Draws the wrapped lines of s from row *y of the inner rectangle in;
 * the last row ends in "…" when s does not fit.  Returns 0 when cut. */
static int draw_wrapped(struct canvas *c, struct rect in, int *y,
			const char *s, enum role role)
{
	char line[LINE_MAX_BYTES];
	while (*y < in.h && next_line(&s, in.w, line)) {
		const char *rest = s;
		char more[LINE_MAX_BYTES];
		int cut = *y == in.h - 1 && next_line(&rest, in.w, more);
		if (cut) {
			int x = put(c, in.x, in.y + *y, in.w - 1, role, line);
			put(c, in.x + x, in.y + *y, in.w - x, R_MUTED, "…");
			(*y)++;
			return 0;
		}
		put(c, in.x, in.y + *y, in.w, role, line);
		(*y)++;
	}
	return !next_line(&s, in.w, line);
}

static void panel(struct canvas *c, struct rect r, const struct stage *s,
		  const char *view_text, const char *note);
static void panel_text(struct canvas *c, struct rect r, const char *formula,
		       const char *view_text, const char *text);

void explain_draw(struct canvas *c, struct rect r, const struct stage *s)
{
	panel(c, r, s, NULL, NULL);
}

/* The mean weight of rows 1… on key 0 over every head of an attention
 * stage [h, nq, nk] whose first key is <s> (−1 when it is not). */
static double sink_share(const struct trace *t, const struct stage *s)
{
	const char *first = s->axes[2] == AX_SRC && t->S ? t->src_tokens[0] :
			    s->axes[2] == AX_TGT && t->T ? t->tgt_tokens[0] : NULL;
	int h = s->shape[0], nq = s->shape[1], nk = s->shape[2];
	if (!first || strcmp(first, "<s>") != 0 || nq < 2 || nk < 2)
		return -1;
	double sum = 0;
	for (int k = 0; k < h; k++)
		for (int i = 1; i < nq; i++)
			sum += stage_f32(s)[((size_t)k * nq + i) * nk];
	return sum / (double)(h * (nq - 1));
}

const char *explain_note(const struct view_state *v, char *buf, size_t n)
{
	const struct stage *s = v && v->tr ? view_stage(v) : NULL;
	const char *fam = s ? explain_family(s) : "";
	char a[32], b[32];
	buf[0] = 0;
	if (v && v->m && v->m->cfg.label_smoothing > 0 &&
	    (strcmp(fam, "probs") == 0 || strcmp(fam, "logits") == 0 ||
	     strcmp(fam, "loss") == 0)) {
		double eps = v->m->cfg.label_smoothing;
		int V = v->m->tgt_vocab.n;
		/* TRANSLATORS: added to the explanation of the output stages of
		 * a model trained with label smoothing: ε, then the cap as a
		 * percentage */
		snprintf(buf, n, _("This model was trained with label smoothing ε = %s: the "
				   "target for the right word was 1 − ε + ε/V, not 1, the rest "
				   "spread over the vocabulary. So even a sure prediction stays "
				   "near %s%%, and that is not doubt."),
			 i18n_num(a, sizeof a, eps, eps * 10 == (int)(eps * 10) ? 1 : 2),
			 i18n_num(b, sizeof b,
			 100 * (1 - eps + eps / (V > 0 ? V : 1)), 0));
	} else if (s && s->kind == SK_WEIGHTS && s->ndim == 3 && v->tr &&
		   strstr(s->name, "self_attn") && sink_share(v->tr, s) > 0.5) {
		/* TRANSLATORS: added to the explanation of self-attention
		 * weights when most of them go to <s>: the share as a
		 * percentage */
		snprintf(buf, n, _("Here the words after <s> give it %s%% of their weight on "
				   "average, over all heads: an attention sink. Each row must sum "
				   "to 1, so a head with nothing useful to read yet parks its "
				   "weight on the one token every sentence has; trained "
				   "Transformers commonly do this in their first layers."),
			 i18n_num(a, sizeof a, 100 * sink_share(v->tr, s), 0));
	}
	return buf;
}

void explain_draw_view(struct canvas *c, struct rect r, const struct stage *s,
		       enum view_mode mode, const char *note)
{
	const char *t = NULL;
	if (mode == VM_MAP)
		/* TRANSLATORS: the explanation panel of the architecture map
		   (o key), before the stage's own explanation */
		t = N_("The map is Figure 1 of the paper: the encoder stack on the left reads "
		       "the source, the decoder stack on the right writes the target one "
		       "token at a time and reads the encoder's output in its middle "
		       "attention. The lit box is the stage on screen; N× is the number of "
		       "layers, and the layer shown is named beside the stack.");
	else if (mode == VM_MODEL)
		/* TRANSLATORS: the explanation panel of the model view (V key) */
		t = N_("Every layer × head of one attention at once: one row of small maps "
		       "per layer, one column per head. Each tile's title is its mean row "
		       "entropy in bits (low: sharp, high: spread out) and its tag the "
		       "pattern it follows. Enter opens the selected one.");
	else if (mode == VM_LINES)
		/* TRANSLATORS: the explanation panel of the head view (v key) */
		t = N_("The head view: each query on the left is joined to every key on the "
		       "right by a line as strong as its attention weight, all heads at once "
		       "in their colours. The selected query's lines are bright, and its "
		       "weights in the selected head are the bars beside the keys. Each row "
		       "of weights sums to 1.");
	panel(c, r, s, t ? _(t) : NULL, note);
}

static void panel(struct canvas *c, struct rect r, const struct stage *s,
		  const char *view_text, const char *note)
{
	if (r.w < 1 || r.h < 1 || !s)
		return;
	const char *f = s->formula && *s->formula ? _(s->formula) : s->name;
	char fw[256];
	if (s->wdtype[0]) {
		/* TRANSLATORS: the formula line of a stage whose weight was stored
		   quantised or in half precision: the formula, then the file's
		   type(s) of that weight ("Q4_K", "Q4_K+Q6_K") */
		snprintf(fw, sizeof fw, _("%s   (weights %s in the file, computed in F32)"), f,
			 s->wdtype);
		f = fw;
	}
	char text[2048];
	snprintf(text, sizeof text, "%s%s%s", explain_text(s), note && *note ? " " : "",
		 note ? note : "");
	panel_text(c, r, f, view_text, text);
}

/* The framed panel: the formula, the view's text (or NULL), the text. */
static void panel_text(struct canvas *c, struct rect r, const char *formula,
		       const char *view_text, const char *text)
{
	if (r.w < 1 || r.h < 1)
		return;
	struct style t = role_style(R_TEXT, c->depth);
	canvas_fill(c, r, " ", t.fg, t.bg, t.attr);
	struct rect in = r;
	if (r.w >= 6 && r.h >= 3) {
		frame(c, r);
		int pad = r.w >= 10 ? 2 : 1;
		in = (struct rect){ r.x + pad, r.y + 1, r.w - 2 * pad, r.h - 2 };
	}
	int y = 0;
	if (!draw_wrapped(c, in, &y, formula, R_ACCENT))
		return;
	if (view_text && !draw_wrapped(c, in, &y, view_text, R_LABEL))
		return;
	/* a blank line between formula and text when everything fits */
	if (y + 1 + count_lines(text, in.w) <= in.h)
		y++;
	draw_wrapped(c, in, &y, text, R_TEXT);
}

int explain_draw_page(struct canvas *c, struct rect r, const char *page)
{
	for (size_t i = 0; i < sizeof PAGES / sizeof *PAGES; i++)
		if (strcmp(PAGES[i].page, page) == 0) {
			if (r.w >= 1 && r.h >= 1)
				panel_text(c, r, _(PAGES[i].formula), NULL, _(PAGES[i].text));
			return 0;
		}
	return -1;
}
