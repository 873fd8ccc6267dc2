#!/usr/bin/python3
"""Seeded random folders of the translators, and their passes.

Facts taken from Hugging Face's modeling_marian.py, modeling_t5.py,
modeling_bart.py and modeling_mbart.py (and configuration_*.py,
tokenization_marian.py, tokenization_t5.py):

  Marian   model.shared (the encoder's, decoder's and lm_head's weights),
           embeddings × √d_model when scale_embedding, the sinusoid
           out[:, :d/2] = sin(pos / 10000^(2j/d)), out[:, d/2:] = cos(…),
           post-norm layers (self_attn, self_attn_layer_norm, [encoder_attn,
           encoder_attn_layer_norm,] fc1, activation_function, fc2,
           final_layer_norm; nn.LayerNorm eps 1e-5), q scaled by dk^-0.5,
           logits = x·sharedᵀ + final_logits_bias; the source is the
           SentencePiece pieces of source.spm through vocab.json, then
           </s>; a leading >>lang<< is one token; decoding starts from
           decoder_start_token_id (the pad).
  BART     as Marian with learned positions embed_positions[pos + 2] (one
           table per stack), layernorm_embedding after embed + pos, GELU,
           <s> … </s> around the source, decoder_start_token_id </s> then
           forced_bos_token_id.  mBART: pre-norm (x + attn(LN(x))) and each
           stack's final layer_norm.
  T5       shared, no position rows, T5LayerNorm (x·rsqrt(mean(x²) + eps)·w,
           no bias), pre-norm blocks (layer.0 SelfAttention, layer.1
           EncDecAttention in the decoder, then DenseReluDense), q·kᵀ
           unscaled, the first block's relative_attention_bias[bucket] added
           to the scores of every block (bidirectional buckets in the
           encoder, causal in the decoder: _relative_position_bucket in
           float32), DenseReluDense wo(relu(wi(x))) or (v1.1, gated-gelu)
           wo(gelu_tanh(wi_0(x)) · wi_1(x)), final_layer_norm, logits
           (x·d^-0.5)·sharedᵀ when tied (v1.0), x·lm_headᵀ when not (v1.1);
           spiece.model pieces then </s>; decoding from pad.

Decoding as attnscope does it (DESIGN.md): the pad and the start token are
never emitted; greedy takes the arg-max until </s>; beam search keeps the B
best by log p / ((5 + n) / 6)^0.6.  Everything below is numpy (float64);
no transformers package is used.

  seq2seqref.py make DIR FAMILY [options]   config.json, weights, tokenizer
  seq2seqref.py check DIR DUMP [--tol T]    the pass on the dump's ids
  seq2seqref.py ids DIR TEXT [TARGET]       the tokenizer's ids (source, target)
  seq2seqref.py decode DIR DUMP N [--beam B] the output tokens, full passes
"""
import argparse, json, math, os, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llamaref import write_st, read_st, softmax, compare, byte_unicode  # noqa: E402

FAMILIES = ("marian", "t5", "t5-v1.1", "bart", "mbart")

EN = """the cat sat on the mat and then it slept for an hour
i love you very much and your cat is a lovely cat
attention is all you need when you translate a sentence
the teacher reads a book to the students in the morning
we have been waiting for you since this morning
my sister lives in a small house near the river
they are going to the market to buy bread and fish
the weather is nice today so we walk in the park
he does not like coffee but he drinks tea every day
where is the station please tell me the way""".split("\n")
PT = """o gato sentou no tapete e depois dormiu por uma hora
eu te amo muito e o teu gato é um gato adorável
atenção é tudo que você precisa quando traduz uma frase
o professor lê um livro para os alunos de manhã
estamos esperando por você desde esta manhã
minha irmã mora numa casa pequena perto do rio
eles vão ao mercado comprar pão e peixe
o tempo está bom hoje então caminhamos no parque
ele não gosta de café mas bebe chá todos os dias
onde fica a estação por favor diga me o caminho""".split("\n")


def train_spm(prefix, lines, vocab, **kw):
    import sentencepiece as spm
    txt = prefix + ".txt"
    with open(txt, "w") as f:
        for _ in range(4):
            f.write("\n".join(lines) + "\n")
    spm.SentencePieceTrainer.train(input=txt, model_prefix=prefix, vocab_size=vocab,
                                   hard_vocab_limit=False, minloglevel=2, **kw)
    os.remove(txt)
    os.remove(prefix + ".vocab")
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def spm_pieces(path):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=path)
    return sp, [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


# ------------------------------------------------------------- writing --

def tokenizer(a, fam):
    """The folder's tokenizer files; returns (vocab size, config ids)."""
    d = a.dir
    if fam == "marian":
        train_spm(os.path.join(d, "source"), EN, 120)
        train_spm(os.path.join(d, "target"), PT, 120)
        os.rename(os.path.join(d, "source.model"), os.path.join(d, "source.spm"))
        os.rename(os.path.join(d, "target.model"), os.path.join(d, "target.spm"))
        voc = {"</s>": 0, "<unk>": 1}
        for side in ("source", "target"):
            for p in spm_pieces(os.path.join(d, side + ".spm"))[1]:
                if p not in voc and p not in ("<s>", "<unk>", "</s>"):
                    voc[p] = len(voc)
        for code in (">>por<<", ">>pt_BR<<"):
            voc[code] = len(voc)
        while len(voc) < a.vocab - 1:   # a real model's size (bench)
            voc["<extra:%d>" % len(voc)] = len(voc)
        voc["<pad>"] = len(voc)
        json.dump(voc, open(os.path.join(d, "vocab.json"), "w"), ensure_ascii=False)
        V = len(voc)
        return V, {"pad_token_id": V - 1, "eos_token_id": 0, "decoder_start_token_id": V - 1}
    if fam.startswith("t5"):
        sp = train_spm(os.path.join(d, "spiece"), EN + PT, 160, pad_id=0, eos_id=1,
                       unk_id=2, bos_id=-1)
        V = sp.get_piece_size() + 100 + 4   # extra ids, then spare rows
        return V, {"pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0}
    # BART: GPT-2's byte-level BPE with its specials first
    voc = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for c in byte_unicode():
        voc[c] = len(voc)
    merges = ["Ġ t", "h e", "Ġt he", "a t", "Ġ c", "Ġc at"]
    for m in merges:
        voc[m.replace(" ", "")] = len(voc)
    voc["<mask>"] = len(voc)
    json.dump(voc, open(os.path.join(d, "vocab.json"), "w"), ensure_ascii=False)
    open(os.path.join(d, "merges.txt"), "w").write("#version: 0.2\n" + "\n".join(merges) + "\n")
    ids = {"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
           "decoder_start_token_id": 2}
    if a.forced_bos:
        ids["forced_bos_token_id"] = 0
    return len(voc), ids


def make(a):
    rng = np.random.default_rng(a.seed)
    fam = a.family
    a.std = a.std or (0.15 if fam.startswith("t5") else 0.3)
    d, h, F, L = a.d, a.heads, a.d_ff, a.layers
    os.makedirs(a.dir, exist_ok=True)
    V, ids = tokenizer(a, fam)

    def w(*shape):
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(a.std)

    def ln():
        return 1 + w(a.d) * 0.5

    t = {}
    if fam.startswith("t5"):
        dk = a.d_kv or d // h
        gated = fam == "t5-v1.1"
        cfg = {"model_type": "t5", "vocab_size": V, "d_model": d, "d_kv": dk, "d_ff": F,
               "num_layers": L, "num_decoder_layers": a.dec_layers or L, "num_heads": h,
               "relative_attention_num_buckets": a.buckets,
               "relative_attention_max_distance": a.max_dist,
               "layer_norm_epsilon": 1e-6, "n_positions": 512,
               "feed_forward_proj": "gated-gelu" if gated else "relu",
               "tie_word_embeddings": not gated, "is_encoder_decoder": True}
        t["shared.weight"] = w(V, d)
        for stack, n in (("encoder", L), ("decoder", a.dec_layers or L)):
            for i in range(n):
                p = "%s.block.%d.layer." % (stack, i)
                atts = ["0.SelfAttention."] + (["1.EncDecAttention."] if stack == "decoder" else [])
                for j, at in enumerate(atts):
                    for c in "qkv":
                        t[p + at + c + ".weight"] = w(h * dk, d)
                    t[p + at + "o.weight"] = w(d, h * dk)
                    t[p + "%d.layer_norm.weight" % j] = ln()
                if i == 0:
                    t[p + "0.SelfAttention.relative_attention_bias.weight"] = w(a.buckets, h) * 4
                f = len(atts)
                if gated:
                    t[p + "%d.DenseReluDense.wi_0.weight" % f] = w(F, d)
                    t[p + "%d.DenseReluDense.wi_1.weight" % f] = w(F, d)
                else:
                    t[p + "%d.DenseReluDense.wi.weight" % f] = w(F, d)
                t[p + "%d.DenseReluDense.wo.weight" % f] = w(d, F)
                t[p + "%d.layer_norm.weight" % f] = ln()
            t[stack + ".final_layer_norm.weight"] = ln()
        if gated:
            t["lm_head.weight"] = w(V, d)
        else:
            t["encoder.embed_tokens.weight"] = t["shared.weight"]   # tied copies
    else:
        mx = a.max_len
        cfg = {"model_type": fam, "vocab_size": V, "d_model": d, "encoder_layers": L,
               "decoder_layers": a.dec_layers or L, "encoder_attention_heads": h,
               "decoder_attention_heads": h, "encoder_ffn_dim": F, "decoder_ffn_dim": F,
               "max_position_embeddings": mx, "scale_embedding": bool(a.scale),
               "activation_function": "swish" if fam == "marian" else "gelu",
               "is_encoder_decoder": True, "tie_word_embeddings": True}
        if fam == "marian":   # keys of opus-mt's config.json the code ignores
            cfg.update({"normalize_before": False, "static_position_embeddings": True,
                        "share_encoder_decoder_embeddings": True,
                        "bad_words_ids": [[V - 1]]})
        t["model.shared.weight"] = w(V, d)
        for stack, n in (("encoder", L), ("decoder", a.dec_layers or L)):
            s = "model.%s." % stack
            if fam != "marian":
                t[s + "embed_positions.weight"] = w(mx + 2, d)
                t[s + "layernorm_embedding.weight"] = ln()
                t[s + "layernorm_embedding.bias"] = w(d)
            for i in range(n):
                p = s + "layers.%d." % i
                atts = ["self_attn"] + (["encoder_attn"] if stack == "decoder" else [])
                for at in atts:
                    for c in ("q_proj", "k_proj", "v_proj", "out_proj"):
                        t[p + at + "." + c + ".weight"] = w(d, d)
                        t[p + at + "." + c + ".bias"] = w(d)
                    t[p + at + "_layer_norm.weight"] = ln()
                    t[p + at + "_layer_norm.bias"] = w(d)
                t[p + "fc1.weight"], t[p + "fc1.bias"] = w(F, d), w(F)
                t[p + "fc2.weight"], t[p + "fc2.bias"] = w(d, F), w(d)
                t[p + "final_layer_norm.weight"], t[p + "final_layer_norm.bias"] = ln(), w(d)
            if fam == "mbart":
                t[s + "layer_norm.weight"], t[s + "layer_norm.bias"] = ln(), w(d)
        t["final_logits_bias"] = w(1, V)
        if a.lm_head == 2:   # tie_word_embeddings false: its own head
            t["lm_head.weight"] = w(V, d)
            cfg["tie_word_embeddings"] = False
        elif a.lm_head:   # the tied copy, as older files hold it
            t["lm_head.weight"] = t["model.shared.weight"]
    cfg.update(ids)
    json.dump(cfg, open(os.path.join(a.dir, "config.json"), "w"), indent=2)
    write_st(t, os.path.join(a.dir, "model.safetensors"), "f32")
    return 0


# ------------------------------------------------------------- the pass --

def load_folder(d):
    cfg = json.load(open(os.path.join(d, "config.json")))
    sd = read_st(os.path.join(d, "model.safetensors"))
    sd = {k[6:] if k.startswith("model.") else k: v for k, v in sd.items()}
    return cfg, sd


def layer_norm(x, w, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def t5_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACTS = {"relu": lambda x: np.maximum(x, 0), "gelu": gelu, "gelu_new": gelu_tanh,
        "swish": lambda x: x / (1 + np.exp(-x)), "silu": lambda x: x / (1 + np.exp(-x))}


def bucket(rel, bidirectional, nb, md):
    """_relative_position_bucket, its float32 arithmetic."""
    rel = np.asarray(rel)
    ret = np.zeros_like(rel)
    if bidirectional:
        nb //= 2
        ret = ret + (rel > 0) * nb
        n = np.abs(rel)
    else:
        n = -np.minimum(rel, 0)
    me = nb // 2
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (np.log(n.astype(np.float32) / np.float32(me)) / np.float32(math.log(md / me))
             * np.float32(nb - me))
    large = np.minimum(me + np.where(n < me, 0, f).astype(np.int64), nb - 1)
    return ret + np.where(n < me, n, large)


def sinusoid_halves(n, d):
    pos = np.arange(n)[:, None]
    j = np.arange(d // 2)[None, :]
    a = pos / np.power(10000, 2 * j / d)
    return np.concatenate([np.sin(a), np.cos(a)], 1).astype(np.float32).astype(np.float64)


class Pass:
    def __init__(self, cfg, sd):
        self.cfg, self.sd = cfg, sd
        self.t5 = cfg["model_type"] == "t5"
        self.pre = self.t5 or cfg["model_type"] == "mbart"
        if self.t5:
            self.h, self.dk = cfg["num_heads"], cfg["d_kv"]
            fp = cfg["feed_forward_proj"]
            self.gated = fp.startswith("gated-")
            act = fp.split("-")[-1]
            self.act = ACTS["gelu_new" if fp == "gated-gelu" else act]
        else:
            self.h = cfg["encoder_attention_heads"]
            self.dk = cfg["d_model"] // self.h
            self.act = ACTS[cfg["activation_function"]]
        self.rec = {}

    def norm(self, x, name):
        if self.t5:
            return t5_norm(x, self.sd[name + ".weight"], self.cfg["layer_norm_epsilon"])
        return layer_norm(x, self.sd[name + ".weight"], self.sd[name + ".bias"])

    def embed(self, side, stack, ids):
        cfg, sd, rec = self.cfg, self.sd, self.rec
        d = cfg["d_model"]
        x = sd["shared.weight"][ids]
        if not self.t5 and cfg.get("scale_embedding"):
            x = x * np.float64(np.float32(math.sqrt(d)))
        rec[side + ".embed"] = x
        if self.t5:
            rec[side + ".input"] = x
            return x
        if cfg["model_type"] == "marian":
            pos = sinusoid_halves(len(ids), d)
        else:
            pos = sd[stack + ".embed_positions.weight"][np.arange(len(ids)) + 2]
        rec[side + ".pos"] = pos
        x = x + pos
        rec[side + ".input"] = x
        if cfg["model_type"] != "marian":
            x = layer_norm(x, sd[stack + ".layernorm_embedding.weight"],
                           sd[stack + ".layernorm_embedding.bias"])
            rec[side + ".input_norm"] = x
        return x

    def proj(self, x, name, bias=True):
        y = x @ self.sd[name + ".weight"].T
        if not self.t5:
            y = y + self.sd[name + ".bias"]
        return y

    def attention(self, s, xq, xkv, p, causal, bias):
        h, dk = self.h, self.dk
        names = ("q", "k", "v", "o") if self.t5 else ("q_proj", "k_proj", "v_proj", "out_proj")
        nq, nk = len(xq), len(xkv)
        q = self.proj(xq, p + names[0]).reshape(nq, h, dk).transpose(1, 0, 2)
        k = self.proj(xkv, p + names[1]).reshape(nk, h, dk).transpose(1, 0, 2)
        v = self.proj(xkv, p + names[2]).reshape(nk, h, dk).transpose(1, 0, 2)
        rec = self.rec
        rec[s + "q"], rec[s + "k"], rec[s + "v"] = q, k, v
        sc = q @ k.transpose(0, 2, 1) * (1.0 if self.t5 else dk ** -0.5)
        rec[s + "scores"] = sc
        mk = sc
        if bias is not None:
            rec[s + "bias"] = bias
            mk = sc + bias
        if causal:
            mk = np.where(np.tril(np.ones((nq, nk), bool))[None], mk, -np.inf)
        rec[s + "masked"] = mk
        wt = softmax(mk)
        rec[s + "weights"] = wt
        hd = wt @ v
        rec[s + "heads"] = hd
        cat = hd.transpose(1, 0, 2).reshape(nq, h * dk)
        rec[s + "concat"] = cat
        out = self.proj(cat, p + names[3])
        rec[s + "out"] = out
        return out

    def ffn(self, s, x, p):
        rec = self.rec
        if self.t5 and self.gated:
            g = self.act(x @ self.sd[p + "wi_0.weight"].T)
            u = x @ self.sd[p + "wi_1.weight"].T
            rec[s + "ffn.gate"], rec[s + "ffn.up"] = g, u
            hid = g * u
        else:
            hid = self.act(self.proj(x, p + ("wi" if self.t5 else "fc1")))
        rec[s + "ffn.hidden"] = hid
        out = self.proj(hid, p + ("wo" if self.t5 else "fc2"))
        rec[s + "ffn.out"] = out
        return out

    def rel_bias(self, stack, n, causal):
        cfg = self.cfg
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        b = bucket(j - i, not causal, cfg["relative_attention_num_buckets"],
                   cfg["relative_attention_max_distance"])
        tab = self.sd[stack + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        return tab[b].transpose(2, 0, 1)

    def sublayer(self, s, k, x, norm_name, fn):
        """One residual sublayer in the family's norm order."""
        rec = self.rec
        if self.pre:
            u = self.norm(x, norm_name)
            rec[s + "norm%d" % k] = u
            x = x + fn(u)
            rec[s + "add%d" % k] = x
            return x
        x = x + fn(x)
        rec[s + "add%d" % k] = x
        x = self.norm(x, norm_name)
        rec[s + "norm%d" % k] = x
        return x

    def stack(self, which, ids, memory=None):
        cfg = self.cfg
        side = "src" if which == "encoder" else "tgt"
        x = self.embed(side, which, ids)
        n = len(ids)
        causal = which == "decoder"
        bias = self.rel_bias(which, n, causal) if self.t5 else None
        nl = cfg["num_layers"] if self.t5 else cfg[which + "_layers"]
        if self.t5 and which == "decoder":
            nl = cfg.get("num_decoder_layers") or nl
        for i in range(nl):
            s = "%s.%d." % (which, i)
            if self.t5:
                p = "%s.block.%d.layer." % (which, i)
                ln = [p + "%d.layer_norm" % j for j in range(3)]
                att = [p + "0.SelfAttention.", p + "1.EncDecAttention."]
                ff = p + ("2" if causal else "1") + ".DenseReluDense."
            else:
                p = "%s.layers.%d." % (which, i)
                ln = [p + "self_attn_layer_norm"] + \
                     ([p + "encoder_attn_layer_norm"] if causal else []) + [p + "final_layer_norm"]
                att = [p + "self_attn.", p + "encoder_attn."]
                ff = p
            x = self.sublayer(s, 1, x, ln[0], lambda u: self.attention(
                s + "self_attn.", u, u, att[0], causal, bias))
            k = 2
            if causal:
                x = self.sublayer(s, 2, x, ln[1], lambda u: self.attention(
                    s + "cross_attn.", u, memory, att[1], False, None))
                k = 3
            x = self.sublayer(s, k, x, ln[k - 1], lambda u: self.ffn(s, u, ff))
        if self.t5:
            x = self.norm(x, which + ".final_layer_norm")
            self.rec[which + ".norm"] = x
        elif cfg["model_type"] == "mbart":
            x = self.norm(x, which + ".layer_norm")
            self.rec[which + ".norm"] = x
        return x

    def run(self, src, tgt):
        self.rec = {}
        rec = self.rec
        mem = self.stack("encoder", src)
        rec["memory"] = mem
        y = self.stack("decoder", tgt, mem)
        sd, cfg = self.sd, self.cfg
        if self.t5 and cfg.get("tie_word_embeddings", True):
            lg = (y * cfg["d_model"] ** -0.5) @ sd["shared.weight"].T
        elif self.t5:
            lg = y @ sd["lm_head.weight"].T
        else:
            head = sd["shared.weight"] if cfg.get("tie_word_embeddings", True) \
                else sd["lm_head.weight"]
            lg = y @ head.T + sd["final_logits_bias"][0]
        rec["logits"] = lg
        rec["probs"] = softmax(lg)
        return rec


def check(a):
    cfg, sd = load_folder(a.dir)
    dump = read_st(a.dump)
    src, tgt = dump["src.ids"].astype(np.int64), dump["tgt.ids"].astype(np.int64)
    rec = Pass(cfg, sd).run(src, tgt)
    rec["src.ids"], rec["tgt.ids"] = src, tgt
    n, worst, bad = compare(rec, dump, a.tol)
    for b in bad:
        print("seq2seqref: " + b)
    print("seq2seqref: %d stages compared, max relative difference %.3g" % (n, worst))
    return 1 if bad else 0


# ------------------------------------------------------------ tokenizers --

def vocab_list(d, cfg):
    """The model's tokens by id, as attnscope names them."""
    V = cfg["vocab_size"]
    if os.path.exists(os.path.join(d, "spiece.model")):
        toks = spm_pieces(os.path.join(d, "spiece.model"))[1]
        nx = min(100, V - len(toks))   # T5Tokenizer's sentinels, extra_id_0 last
        toks += ["<extra_id_%d>" % (nx - 1 - k) for k in range(nx)]
    else:
        v = json.load(open(os.path.join(d, "vocab.json")))
        toks = [None] * len(v)
        for k, i in v.items():
            toks[i] = k
    return toks + ["<unused:%d>" % i for i in range(len(toks), V)]


def ids(a):
    """The source (and target) ids the family's tokenizer gives."""
    d = a.dir
    cfg = json.load(open(os.path.join(d, "config.json")))
    out = []
    for side, text in (("source", a.text), ("target", a.target)):
        if text is None:
            continue
        if cfg["model_type"] == "marian":
            v = json.load(open(os.path.join(d, "vocab.json")))
            sp = spm_pieces(os.path.join(d, side + ".spm"))[0]
            code = []
            if side == "source" and text.startswith(">>") and "<<" in text[3:]:
                end = text.rindex("<<") + 2
                code, text = [v.get(text[:end], v["<unk>"])], text[end:]
            out.append(code + [v.get(p, v["<unk>"]) for p in sp.encode(text, out_type=str)]
                       + [cfg["eos_token_id"]])
        elif cfg["model_type"] == "t5":
            sp = spm_pieces(os.path.join(d, "spiece.model"))[0]
            out.append(sp.encode(text) + [cfg["eos_token_id"]])
        else:   # no merges apply across the specials: byte stand-ins, then merges
            out.append(None)
    # the source as the encoder reads it; the decoder's input after its
    # start token (the target without </s>)
    if out and out[0] is not None:
        print(" ".join(map(str, out[0])))
        if len(out) > 1:
            print(" ".join(map(str, start_ids(cfg) + out[1][:-1])))
    return 0


# -------------------------------------------------------------- decoding --

def start_ids(cfg):
    s = [cfg["decoder_start_token_id"]]
    if cfg["model_type"] in ("bart", "mbart") and cfg.get("forced_bos_token_id") is not None:
        s.append(cfg["forced_bos_token_id"])
    return s


def never(cfg):
    """Tokens decoding never emits: the pad and the decoder's start token."""
    sos = cfg.get("bos_token_id", 0) if cfg["model_type"] in ("bart", "mbart") \
        else cfg["decoder_start_token_id"]
    return {cfg["pad_token_id"], sos}


def logprobs(P, src, prefix):
    lg = P.run(src, np.array(prefix))["logits"][-1]
    m = lg.max()
    return lg - (m + np.log(np.exp(lg - m).sum()))


def decode(a):
    cfg, sd = load_folder(a.dir)
    src = read_st(a.dump)["src.ids"].astype(np.int64)
    P, eos, bad, st = Pass(cfg, sd), cfg["eos_token_id"], never(cfg), start_ids(cfg)
    lp = lambda n: ((5 + n) / 6) ** 0.6   # noqa: E731
    live, done = [(0.0, [])], []
    for step in range(a.n):
        cands = []
        for b, (logp, out) in enumerate(live):
            r = logprobs(P, src, st + out)
            order = [j for j in np.argsort(-r, kind="stable") if j not in bad]
            for j in order[:max(a.beam, 5)]:
                cands.append((-(logp + r[j]) / lp(len(out) + 1), b, int(j), logp + r[j]))
        cands.sort(key=lambda c: (c[0], c[1], c[2]))
        nxt = []
        for i, (negs, b, j, logp) in enumerate(cands):
            if len(nxt) == a.beam or (a.beam == 1 and i > 0):
                break
            if j == eos:
                done.append((-negs, logp, live[b][1]))
            else:
                nxt.append((logp, live[b][1] + [j]))
        live = nxt
        if not live:
            break
        if done and max(s for s, _, _ in done) >= max(l / lp(a.n) for l, _ in live):
            break
    if not done:
        done = [(l / lp(len(o)), l, o) for l, o in live]
    best = max(done, key=lambda x: x[0])[2]
    toks = vocab_list(a.dir, cfg)
    print(" ".join(toks[i] for i in best))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("family", choices=FAMILIES)
    m.add_argument("--d", type=int, default=32)
    m.add_argument("--heads", type=int, default=4)
    m.add_argument("--d-kv", type=int, default=0)
    m.add_argument("--layers", type=int, default=2)
    m.add_argument("--dec-layers", type=int, default=0)
    m.add_argument("--d-ff", type=int, default=48)
    m.add_argument("--max-len", type=int, default=64)
    m.add_argument("--buckets", type=int, default=32)
    m.add_argument("--max-dist", type=int, default=128)
    m.add_argument("--scale", type=int, default=1)
    m.add_argument("--forced-bos", type=int, default=1)
    m.add_argument("--lm-head", type=int, default=0,
                   help="1: the tied copy in the file, 2: untied, its own")
    m.add_argument("--std", type=float, default=0,
                   help="of the weights (0: 0.3, T5's unscaled scores 0.15)")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--vocab", type=int, default=0,
                   help="Marian: vocab.json padded to this many tokens")
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("dump")
    c.add_argument("--tol", type=float, default=1e-5)
    i = sub.add_parser("ids")
    i.add_argument("dir")
    i.add_argument("text")
    i.add_argument("target", nargs="?")
    g = sub.add_parser("decode")
    g.add_argument("dir")
    g.add_argument("dump")
    g.add_argument("n", type=int)
    g.add_argument("--beam", type=int, default=1)
    a = p.parse_args()
    return {"make": make, "check": check, "ids": ids, "decode": decode}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
