"""reference.py - an independent numpy reference of attnscope's traced forward pass.

Written from "Attention Is All You Need" and /work/shared/DESIGN.md (the
trace contract), not from the C code.  Everything is computed in float64.

    model = Model(cfg, weights, src_vocab, tgt_vocab)
    trace, info = forward(model, "the cat sat", target="o gato sentou",
                          causal=True, encoder_causal=False,
                          pad_to=None, pad_target=None)

trace maps every contract stage name to a numpy array (float64, or int32
for src.ids / tgt.ids).  info carries "src_tokens" and "tgt_tokens" (lists
of token strings as they go into the model, pads included), "unk" (sets of
source/target positions mapped to <unk>) and "optional": stage names the
dump may omit because DESIGN.md leaves them open (compared when present).

Conventions where DESIGN.md leaves room (also printed by `--conventions`):

* A fully masked attention row (every key masked) has softmax weights all 0,
  so its `heads` row is 0 as well.
* Masking: a key j is masked for query i when it is a padded position
  (index >= unpadded length, from --pad-to / --pad-target), or when causal
  masking is on and j > i.  Decoder self-attention is causal unless
  causal=False (--no-causal); encoder self-attention only with
  encoder_causal=True (--encoder-causal).  Cross-attention masks only padded
  source keys.
* --pad-target N pads the decoder input `<s> + target` with <pad> to N;
  labels are `target + </s>` padded with <pad> (id 0); loss is exactly 0 at
  the padded positions (index >= len(target) + 1).
* positional_encoding none: src.pos / tgt.pos are zeros (and optional).
* norm none: no LayerNorm; the layer output is the residual sum.  The
  `norm{k}` stages are then optional and, when dumped, equal `add{k}`.
* encoder-only: src.*, encoder.*, encoder.norm (if its weights exist),
  then (optional) memory and logits/probs = memory through the generator
  (tied: the target embedding, which is the source one when tgt_embed is
  absent).  No tgt.*, no decoder stages, no loss.
* decoder-only: no src.*, encoder or memory stages.  The decoder input is
  `<s> + SENTENCE tokens` (+ target tokens when a target is given), labels
  are the input shifted left with a final `</s>`; loss only with a target,
  then at every unpadded position (prompt included).
  Layers have self-attention and FFN only: stages decoder.{i}.self_attn.*,
  add1/norm1, ffn.hidden/ffn.out, add2/norm2, and weights
  decoder.layers.{i}.norm1/norm2 (PyTorch's TransformerEncoderLayer names).
* Metadata: src.tokens / tgt.tokens are the tokens of src.ids / tgt.ids
  (so with <s>, </s> and <pad>); an <unk> position may show the typed word
  or "<unk>".
* Word tokenizer: lowercase when tokenizer.lowercase, split on whitespace,
  and every ASCII punctuation character (Python's string.punctuation)
  becomes a token of its own.  Unknown tokens map to <unk> (id 3).
"""

import math
import string
import sys

import numpy as np

PAD, SOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]

DEFAULTS = {
    "architecture": "encoder-decoder",
    "norm": "post",
    "norm_eps": 1e-5,
    "activation": "relu",
    "positional_encoding": "sinusoidal",
    "scale_embedding": True,
    "max_len": 512,
}


# ---------------------------------------------------------------- tokens

def tokenize(text, lowercase=True):
    """Word tokenizer: whitespace split, each ASCII punctuation char alone."""
    if lowercase:
        text = text.lower()
    out = []
    for word in text.split():
        cur = ""
        for ch in word:
            if ch in string.punctuation:
                if cur:
                    out.append(cur)
                    cur = ""
                out.append(ch)
            else:
                cur += ch
        if cur:
            out.append(cur)
    return out


def to_ids(tokens, vocab):
    index = {}
    for i, t in enumerate(vocab):
        index.setdefault(t, i)
    ids, unk = [], set()
    for pos, t in enumerate(tokens):
        if t in index:
            ids.append(index[t])
        else:
            ids.append(UNK)
            unk.add(pos)
    return ids, unk


# ---------------------------------------------------------------- model

class Model:
    """cfg: dict of the YAML keys (tokenizer a nested dict); weights: dict
    name -> array (any float dtype, converted to float64)."""

    def __init__(self, cfg, weights, src_vocab, tgt_vocab=None):
        self.cfg = dict(DEFAULTS)
        self.cfg.update(cfg)
        self.w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
        self.src_vocab = list(src_vocab)
        self.tgt_vocab = list(tgt_vocab) if tgt_vocab is not None else list(src_vocab)
        tok = self.cfg.get("tokenizer", {}) or {}
        self.lowercase = tok.get("lowercase", True)
        self.wrap_source = tok.get("wrap_source", True)
        self.d = int(self.cfg["d_model"])
        self.h = int(self.cfg["heads"])
        if self.d % self.h:
            raise ValueError("d_model %d not divisible by heads %d" % (self.d, self.h))
        self.dk = self.d // self.h

    def get(self, name, default=None):
        return self.w.get(name, default)

    def need(self, name):
        if name not in self.w:
            raise KeyError("missing weight %s" % name)
        return self.w[name]


# ---------------------------------------------------------------- math

_erf = np.vectorize(math.erf, otypes=[np.float64])


def activation(name, x):
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "gelu":
        return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    raise ValueError("unknown activation %r" % name)


def layer_norm(x, w, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # biased
    return (x - mu) / np.sqrt(var + eps) * w + b


def softmax_rows(x):
    """Softmax over the last axis; -inf entries get 0; a row that is all
    -inf is all 0 (attnscope's convention for a fully masked row)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    finite_any = np.isfinite(x).any(axis=-1)
    m = np.where(finite_any, np.max(np.where(np.isfinite(x), x, -np.inf), axis=-1), 0.0)
    e = np.where(np.isfinite(x), np.exp(x - m[..., None]), 0.0)
    s = e.sum(axis=-1, keepdims=True)
    np.divide(e, s, out=out, where=s > 0)
    return out


def sinusoidal(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same)."""
    pe = np.zeros((n, d))
    pos = np.arange(n, dtype=np.float64)[:, None]
    i2 = np.arange(0, d, 2, dtype=np.float64)
    div = np.power(10000.0, i2 / d)
    pe[:, 0::2] = np.sin(pos / div)
    pe[:, 1::2] = np.cos(pos / div)[:, : d // 2]
    return pe


def linear(x, w, b=None):
    y = x @ w.T
    if b is not None:
        y = y + b
    return y


def key_mask(nq, nk, valid_keys, causal):
    """Boolean [nq, nk], True where masked."""
    m = np.zeros((nq, nk), dtype=bool)
    m[:, valid_keys:] = True
    if causal:
        m |= np.triu(np.ones((nq, nk), dtype=bool), k=1)
    return m


def attention(model, trace, stage, wprefix, xq, xkv, mask):
    """Multi-head attention; records stage.q/k/v/scores/masked/weights/
    heads/concat/out; returns out."""
    d, h, dk = model.d, model.h, model.dk
    W = model.need(wprefix + ".in_proj_weight")
    b = model.get(wprefix + ".in_proj_bias", np.zeros(3 * d))
    Wo = model.need(wprefix + ".out_proj.weight")
    bo = model.get(wprefix + ".out_proj.bias", np.zeros(d))
    nq, nk = xq.shape[0], xkv.shape[0]
    q = linear(xq, W[0:d], b[0:d]).reshape(nq, h, dk).transpose(1, 0, 2)
    k = linear(xkv, W[d:2 * d], b[d:2 * d]).reshape(nk, h, dk).transpose(1, 0, 2)
    v = linear(xkv, W[2 * d:3 * d], b[2 * d:3 * d]).reshape(nk, h, dk).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(dk)
    masked = np.where(mask[None, :, :], -np.inf, scores)
    weights = softmax_rows(masked)
    heads = weights @ v
    concat = heads.transpose(1, 0, 2).reshape(nq, d)
    out = linear(concat, Wo, bo)
    for name, val in (("q", q), ("k", k), ("v", v), ("scores", scores),
                      ("masked", masked), ("weights", weights),
                      ("heads", heads), ("concat", concat), ("out", out)):
        trace["%s.%s" % (stage, name)] = val
    return out


def ffn(model, trace, stage, wprefix, x):
    hid = activation(model.cfg["activation"],
                     linear(x, model.need(wprefix + ".linear1.weight"),
                            model.get(wprefix + ".linear1.bias")))
    out = linear(hid, model.need(wprefix + ".linear2.weight"),
                 model.get(wprefix + ".linear2.bias"))
    trace[stage + ".ffn.hidden"] = hid
    trace[stage + ".ffn.out"] = out
    return out


def sublayer(model, trace, optional, stage, wprefix, k, x, fn):
    """One residual block `k` (1-based) in the model's norm style.
    fn(y) computes the sublayer on its input y.  Returns the block output."""
    style = model.cfg["norm"]
    eps = float(model.cfg["norm_eps"])
    if style == "post":
        add = x + fn(x)
        norm = layer_norm(add, model.need("%s.norm%d.weight" % (wprefix, k)),
                          model.need("%s.norm%d.bias" % (wprefix, k)), eps)
        out = norm
    elif style == "pre":
        norm = layer_norm(x, model.need("%s.norm%d.weight" % (wprefix, k)),
                          model.need("%s.norm%d.bias" % (wprefix, k)), eps)
        add = x + fn(norm)
        out = add
    elif style == "none":
        add = x + fn(x)
        norm = add
        optional.add("%s.norm%d" % (stage, k))
        out = add
    else:
        raise ValueError("unknown norm style %r" % style)
    trace["%s.add%d" % (stage, k)] = add
    trace["%s.norm%d" % (stage, k)] = norm
    return out


def final_norm(model, trace, name, x):
    w = model.get(name + ".weight")
    if w is None:
        return x
    b = model.get(name + ".bias", np.zeros(model.d))
    y = layer_norm(x, w, b, float(model.cfg["norm_eps"]))
    trace[name] = y
    return y


def embed(model, trace, optional, prefix, table, ids):
    n = len(ids)
    if n > int(model.cfg["max_len"]):
        raise ValueError("%s: %d tokens exceed max_len %s" % (prefix, n, model.cfg["max_len"]))
    e = table[np.asarray(ids, dtype=np.int64)]
    if model.cfg["scale_embedding"]:
        e = e * math.sqrt(model.d)
    pe_kind = model.cfg["positional_encoding"]
    if pe_kind == "sinusoidal":
        pos = sinusoidal(n, model.d)
    elif pe_kind == "learned":
        pos = model.need("pos_embed.weight")[:n].copy()
    elif pe_kind == "none":
        pos = np.zeros((n, model.d))
        optional.add(prefix + ".pos")
    else:
        raise ValueError("unknown positional_encoding %r" % pe_kind)
    trace[prefix + ".ids"] = np.asarray(ids, dtype=np.int32)
    trace[prefix + ".embed"] = e
    trace[prefix + ".pos"] = pos
    trace[prefix + ".input"] = e + pos
    return e + pos


def generator(model, trace, x, tgt_table):
    W = model.get("generator.weight")
    if W is None:
        W = tgt_table
    logits = linear(x, W, model.get("generator.bias"))
    trace["logits"] = logits
    trace["probs"] = softmax_rows(logits)
    return logits


def _pad(ids, tokens, n):
    ids, tokens = list(ids), list(tokens)
    if n is not None:
        if n < len(ids):
            raise ValueError("pad length %d shorter than the sequence (%d)" % (n, len(ids)))
        tokens += [SPECIALS[PAD]] * (n - len(ids))
        ids += [PAD] * (n - len(ids))
    return ids, tokens


# ---------------------------------------------------------------- forward

def forward(model, sentence, target=None, causal=True, encoder_causal=False,
            pad_to=None, pad_target=None):
    cfg = model.cfg
    arch = cfg["architecture"]
    trace, optional = {}, set()
    info = {"src_tokens": [], "tgt_tokens": [], "unk_src": set(), "unk_tgt": set(),
            "optional": optional}
    src_table = model.need("src_embed.weight")
    tgt_table = model.get("tgt_embed.weight", src_table)
    memory, S_valid = None, 0

    if arch in ("encoder-decoder", "encoder-only"):
        words = tokenize(sentence, model.lowercase)
        ids, unk = to_ids(words, model.src_vocab)
        toks = list(words)
        if model.wrap_source:
            ids, toks = [SOS] + ids + [EOS], ["<s>"] + toks + ["</s>"]
            unk = {p + 1 for p in unk}
        S_valid = len(ids)
        ids, toks = _pad(ids, toks, pad_to)
        info["src_tokens"], info["unk_src"] = toks, unk
        S = len(ids)
        x = embed(model, trace, optional, "src", src_table, ids)
        mask = key_mask(S, S, S_valid, encoder_causal)
        for i in range(int(cfg["encoder_layers"])):
            st, wp = "encoder.%d" % i, "encoder.layers.%d" % i
            x = sublayer(model, trace, optional, st, wp, 1, x,
                         lambda y: attention(model, trace, st + ".self_attn",
                                             wp + ".self_attn", y, y, mask))
            x = sublayer(model, trace, optional, st, wp, 2, x,
                         lambda y: ffn(model, trace, st, wp, y))
        x = final_norm(model, trace, "encoder.norm", x)
        trace["memory"] = x
        memory = x
        if arch == "encoder-only":
            generator(model, trace, memory, tgt_table)
            optional.update(("memory", "logits", "probs"))
            return trace, info

    if arch not in ("encoder-decoder", "decoder-only"):
        raise ValueError("unknown architecture %r" % arch)

    # decoder input and labels
    if arch == "encoder-decoder":
        if target is None:
            raise ValueError("the reference needs a target (teacher forcing)")
        words = tokenize(target, model.lowercase)
        tids, unk = to_ids(words, model.tgt_vocab)
        dec_ids = [SOS] + tids
        dec_toks = ["<s>"] + words
        labels = tids + [EOS]
        unk = {p + 1 for p in unk}
    else:
        words = tokenize(sentence, model.lowercase)
        if target is not None:
            words += tokenize(target, model.lowercase)
        tids, unk = to_ids(words, model.tgt_vocab)
        dec_ids = [SOS] + tids
        dec_toks = ["<s>"] + words
        labels = tids + [EOS]
        unk = {p + 1 for p in unk}
    T_valid = len(dec_ids)
    dec_ids, dec_toks = _pad(dec_ids, dec_toks, pad_target)
    labels = labels + [PAD] * (len(dec_ids) - len(labels))
    info["tgt_tokens"], info["unk_tgt"], info["labels"] = dec_toks, unk, labels
    T = len(dec_ids)

    x = embed(model, trace, optional, "tgt", tgt_table, dec_ids)
    self_mask = key_mask(T, T, T_valid, causal)
    cross_mask = key_mask(T, memory.shape[0], S_valid, False) if memory is not None else None
    for i in range(int(cfg["decoder_layers"])):
        st, wp = "decoder.%d" % i, "decoder.layers.%d" % i
        x = sublayer(model, trace, optional, st, wp, 1, x,
                     lambda y: attention(model, trace, st + ".self_attn",
                                         wp + ".self_attn", y, y, self_mask))
        k = 2
        if memory is not None:
            x = sublayer(model, trace, optional, st, wp, 2, x,
                         lambda y: attention(model, trace, st + ".cross_attn",
                                             wp + ".multihead_attn", y, memory,
                                             cross_mask))
            k = 3
        x = sublayer(model, trace, optional, st, wp, k, x,
                     lambda y: ffn(model, trace, st, wp, y))
    x = final_norm(model, trace, "decoder.norm", x)
    generator(model, trace, x, tgt_table)

    if target is not None:
        logits = trace["logits"]
        m = logits.max(axis=-1, keepdims=True)
        logp = logits - m - np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))
        loss = np.zeros(T)
        for t in range(T_valid):
            loss[t] = -logp[t, labels[t]]
        trace["loss"] = loss
    return trace, info


# ---------------------------------------------------------------- self-test

def _loop_attention(xq, xkv, W, b, Wo, bo, h, mask):
    """A second, loop-based attention straight from the paper's formulas."""
    nq, d = xq.shape
    nk = xkv.shape[0]
    dk = d // h
    heads = np.zeros((h, nq, dk))
    weights = np.zeros((h, nq, nk))
    for hh in range(h):
        rq = range(hh * dk, (hh + 1) * dk)
        rk = range(d + hh * dk, d + (hh + 1) * dk)
        rv = range(2 * d + hh * dk, 2 * d + (hh + 1) * dk)
        for i in range(nq):
            qi = [sum(xq[i, c] * W[r, c] for c in range(d)) + b[r] for r in rq]
            sc = []
            for j in range(nk):
                kj = [sum(xkv[j, c] * W[r, c] for c in range(d)) + b[r] for r in rk]
                s = sum(a * bb for a, bb in zip(qi, kj)) / math.sqrt(dk)
                sc.append(None if mask[i, j] else s)
            live = [s for s in sc if s is not None]
            if live:
                mx = max(live)
                ex = [0.0 if s is None else math.exp(s - mx) for s in sc]
                tot = sum(ex)
                for j in range(nk):
                    weights[hh, i, j] = ex[j] / tot
            for j in range(nk):
                vj = [sum(xkv[j, c] * W[r, c] for c in range(d)) + b[r] for r in rv]
                for c in range(dk):
                    heads[hh, i, c] += weights[hh, i, j] * vj[c]
    concat = np.zeros((nq, d))
    for hh in range(h):
        concat[:, hh * dk:(hh + 1) * dk] = heads[hh]
    out = np.zeros((nq, d))
    for i in range(nq):
        for r in range(d):
            out[i, r] = sum(concat[i, c] * Wo[r, c] for c in range(d)) + bo[r]
    return weights, heads, concat, out


def selftest(report):
    """Self-consistency checks of the reference; report(ok, name, diag)."""
    rng = np.random.default_rng(7)
    d, h = 8, 2
    for causal, valid in ((False, 5), (True, 5), (True, 3), (False, 0)):
        xq, xkv = rng.normal(size=(4, d)), rng.normal(size=(5, d))
        W, b = rng.normal(0, 0.5, (3 * d, d)), rng.normal(0, 0.5, 3 * d)
        Wo, bo = rng.normal(0, 0.5, (d, d)), rng.normal(0, 0.5, d)
        m = Model({"d_model": d, "heads": h},
                  {"a.in_proj_weight": W, "a.in_proj_bias": b,
                   "a.out_proj.weight": Wo, "a.out_proj.bias": bo}, SPECIALS)
        mask = key_mask(4, 5, valid, causal)
        tr = {}
        attention(m, tr, "s", "a", xq, xkv, mask)
        lw, lh, lc, lo = _loop_attention(xq, xkv, W, b, Wo, bo, h, mask)
        name = "attention causal=%s valid=%d" % (causal, valid)
        for st, ref in (("weights", lw), ("heads", lh), ("concat", lc), ("out", lo)):
            diff = np.max(np.abs(tr["s." + st] - ref))
            report(diff < 1e-12, "selftest/%s vs loop: %s" % (name, st), "max diff %g" % diff)
        rs = tr["s.weights"].sum(axis=-1)
        live = ~mask.all(axis=-1)
        ok = np.allclose(rs[:, live], 1.0, atol=1e-12) and np.all(rs[:, ~live] == 0)
        report(ok, "selftest/%s: weight rows sum to 1 (0 when fully masked)" % name,
               "row sums %s" % rs)
        ok = np.all(np.isneginf(tr["s.masked"]) == mask[None])
        report(ok, "selftest/%s: -inf exactly where masked" % name, "")
    # LayerNorm, GELU, PE from first principles
    x = rng.normal(size=(3, 6))
    ln = layer_norm(x, np.ones(6), np.zeros(6), 0.0)
    report(np.allclose(ln.mean(-1), 0) and np.allclose((ln ** 2).mean(-1), 1),
           "selftest/layer_norm zero mean, unit biased variance", "")
    g = activation("gelu", np.array([-1.0, 0.0, 1.0, 2.0]))
    exp = np.array([-0.15865525393145707, 0.0, 0.8413447460685429, 1.9544997361036416])
    report(np.allclose(g, exp, atol=1e-14), "selftest/gelu exact erf values", "%s" % g)
    pe = sinusoidal(5, 6)
    ok = all(abs(pe[p, 2 * i] - math.sin(p / 10000 ** (2 * i / 6))) < 1e-15 and
             abs(pe[p, 2 * i + 1] - math.cos(p / 10000 ** (2 * i / 6))) < 1e-15
             for p in range(5) for i in range(3))
    report(ok, "selftest/sinusoidal PE matches the paper's formula", "")
    report(tokenize("Hello, World!  It's ok.") ==
           ["hello", ",", "world", "!", "it", "'", "s", "ok", "."],
           "selftest/word tokenizer", "%s" % tokenize("Hello, World!  It's ok."))


def _main(argv):
    if "--conventions" in argv:
        print(__doc__)
        return 0
    n = [0, 0]

    def report(ok, name, diag):
        n[0] += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", n[0], name))
        if not ok:
            n[1] += 1
            print("# " + diag)

    selftest(report)
    print("1..%d" % n[0])
    return 1 if n[1] else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
