#!/usr/bin/python3
"""Seeded random folders of today's decoder-only families, and their passes.

Facts taken from Hugging Face's modeling_llama.py, modeling_mistral.py,
modeling_qwen2.py, modeling_qwen3.py, modeling_gemma.py and modeling_phi3.py
(and their configuration_*.py): the tensor names of LlamaForCausalLM and
the others, RMSNorm (Gemma: x̂·(1 + w)), rotary embeddings applied as
rotate_half with inv_freq = 1/theta^(2j/dk) (rope_scaling linear: ÷ factor;
llama3: low frequencies ÷ factor, high kept, smooth in between), repeat_kv
for grouped-query attention, scaling dk^-0.5, the causal mask and the
sliding window (a key is visible when q − window < k ≤ q), Qwen2's q/k/v
biases, Qwen3's q_norm/k_norm over dk before the rotation, the gated MLP
down(act(gate(x)) · up(x)), Gemma's embeddings × √hidden_size, Phi-3's
fused qkv_proj and gate_up_proj.  The pass below is written from those
facts in numpy (float64); no transformers package is used.

  llamaref.py make DIR FAMILY [options]   config.json, weights, tokenizer
  llamaref.py check DIR DUMP [--tol T]    the pass on the dump's ids, every
                                          stage compared
  llamaref.py greedy DIR DUMP N           N greedy ids after the dump's ids
"""
import argparse, json, math, os, struct, sys

import numpy as np

FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "gemma", "phi3")


def byte_unicode():
    """GPT-2's printable stand-ins for the 256 bytes."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for b, c in sorted(zip(bs, cs))]


# ------------------------------------------------------------- writing --

def f16(a):
    return a.astype(np.float16)


def bf16_bits(a):
    """float32 -> bfloat16 bits, round to nearest even (as torch does)."""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u >> 16) & 1) + 0x7FFF
    return ((u + r) >> 16).astype(np.uint16)


def write_st(tensors, path, dtype):
    hdr, blobs, off = {}, [], 0
    for k, v in tensors.items():
        if dtype == "bf16":
            b, dt = bf16_bits(v).tobytes(), "BF16"
        elif dtype == "f16":
            b, dt = f16(v).tobytes(), "F16"
        else:
            b, dt = v.astype(np.float32).tobytes(), "F32"
        hdr[k] = {"dtype": dt, "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hdr["__metadata__"] = {"format": "pt"}
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def as_stored(v, dtype):
    """The values the file holds, back in float64 (what the reference uses)."""
    if dtype == "bf16":
        return (bf16_bits(v).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype == "f16":
        return f16(v).astype(np.float64)
    return v.astype(np.float32).astype(np.float64)


def make(a):
    rng = np.random.default_rng(a.seed)
    fam = a.family
    if a.tokenizer:   # a real tokenizer.json: the vocabulary its ids need
        tj = json.load(open(os.path.join(a.tokenizer, "tokenizer.json"), encoding="utf-8"))
        v = tj["model"]["vocab"]
        ids = list(v.values()) if isinstance(v, dict) else list(range(len(v)))
        ids += [t["id"] for t in tj.get("added_tokens", [])]
        a.vocab = max(a.vocab, max(ids) + 1)
    d, h = a.d, a.heads
    hkv = a.kv_heads or h
    dk = a.head_dim or d // h
    F = a.d_ff or 3 * d
    V = a.vocab
    gemma = fam == "gemma"
    cfg = {"model_type": fam, "architectures": ["X"], "vocab_size": V, "hidden_size": d,
           "intermediate_size": F, "num_hidden_layers": a.layers,
           "num_attention_heads": h, "num_key_value_heads": hkv,
           "max_position_embeddings": a.max_len, "rms_norm_eps": a.eps,
           "rope_theta": a.theta, "tie_word_embeddings": bool(a.tie),
           "torch_dtype": {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[a.dtype],
           "bos_token_id": 1, "eos_token_id": 2}
    if a.head_dim:
        cfg["head_dim"] = a.head_dim
    cfg["hidden_act"] = "gelu_pytorch_tanh" if gemma else "silu"
    if a.rope_scaling == "llama3":
        cfg["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 16}
    elif a.rope_scaling == "linear":
        cfg["rope_scaling"] = {"type": "linear", "factor": 2.0}
    if fam in ("mistral", "phi3"):
        cfg["sliding_window"] = a.window if a.window else None
    if fam in ("qwen2", "qwen3"):
        cfg["use_sliding_window"] = bool(a.window)
        cfg["sliding_window"] = a.window or 4096
        cfg["max_window_layers"] = a.window_from
    if fam in ("llama", "qwen3") and a.attention_bias:
        cfg["attention_bias"] = True
    os.makedirs(a.dir, exist_ok=True)
    json.dump(cfg, open(os.path.join(a.dir, "config.json"), "w"), indent=2)
    json.dump({"max_new_tokens": 20}, open(os.path.join(a.dir, "generation_config.json"), "w"))

    def w(*shape):
        return rng.standard_normal(shape) * a.std

    def norm(n):
        return w(n) * 0.5 if gemma else 1 + w(n) * 0.5

    t = {"model.embed_tokens.weight": w(V, d)}
    qb = fam == "qwen2" or a.attention_bias
    for i in range(a.layers):
        p = "model.layers.%d." % i
        t[p + "input_layernorm.weight"] = norm(d)
        q, k, v = w(h * dk, d), w(hkv * dk, d), w(hkv * dk, d)
        if fam == "phi3":
            t[p + "self_attn.qkv_proj.weight"] = np.concatenate([q, k, v])
        else:
            t[p + "self_attn.q_proj.weight"] = q
            t[p + "self_attn.k_proj.weight"] = k
            t[p + "self_attn.v_proj.weight"] = v
        if qb:
            t[p + "self_attn.q_proj.bias"] = w(h * dk)
            t[p + "self_attn.k_proj.bias"] = w(hkv * dk)
            t[p + "self_attn.v_proj.bias"] = w(hkv * dk)
        t[p + "self_attn.o_proj.weight"] = w(d, h * dk)
        if a.attention_bias:
            t[p + "self_attn.o_proj.bias"] = w(d)
        if fam == "qwen3":
            t[p + "self_attn.q_norm.weight"] = norm(dk)
            t[p + "self_attn.k_norm.weight"] = norm(dk)
        t[p + "post_attention_layernorm.weight"] = norm(d)
        g, u = w(F, d), w(F, d)
        if fam == "phi3":
            t[p + "mlp.gate_up_proj.weight"] = np.concatenate([g, u])
        else:
            t[p + "mlp.gate_proj.weight"] = g
            t[p + "mlp.up_proj.weight"] = u
        t[p + "mlp.down_proj.weight"] = w(d, F)
    t["model.norm.weight"] = norm(d)
    if not a.tie:
        t["lm_head.weight"] = w(V, d)
    if a.shards > 1:
        names = list(t)
        per = -(-len(names) // a.shards)
        wm = {}
        for s in range(a.shards):
            fn = "model-%05d-of-%05d.safetensors" % (s + 1, a.shards)
            part = {k: t[k] for k in names[s * per:(s + 1) * per]}
            write_st(part, os.path.join(a.dir, fn), a.dtype)
            wm.update({k: fn for k in part})
        json.dump({"metadata": {"total_size": 0}, "weight_map": wm},
                  open(os.path.join(a.dir, "model.safetensors.index.json"), "w"), indent=1)
    else:
        write_st(t, os.path.join(a.dir, "model.safetensors"), a.dtype)
    if a.tokenizer:
        for f in ("tokenizer.json", "tokenizer_config.json"):
            if os.path.exists(os.path.join(a.tokenizer, f)):
                open(os.path.join(a.dir, f), "wb").write(open(os.path.join(a.tokenizer, f), "rb").read())
        return 0
    # a byte-level tokenizer: the 256 bytes, no merges
    bu = byte_unicode()
    json.dump({c: i for i, c in enumerate(bu)}, open(os.path.join(a.dir, "vocab.json"), "w"))
    open(os.path.join(a.dir, "merges.txt"), "w").write("#version: 0.2\n")
    return 0


# ------------------------------------------------------------- the pass --

def read_st(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in hdr.items():
        if k == "__metadata__":
            continue
        b, e = v["data_offsets"]
        raw = data[b:e]
        if v["dtype"] == "BF16":
            arr = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, {"F32": np.float32, "F16": np.float16, "I32": np.int32}[v["dtype"]])
        out[k] = arr.reshape(v["shape"]).astype(np.float64 if v["dtype"] != "I32" else np.int32)
    return out


def load_folder(d):
    cfg = json.load(open(os.path.join(d, "config.json")))
    idx = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(idx):
        sd = {}
        for fn in sorted(set(json.load(open(idx))["weight_map"].values())):
            sd.update(read_st(os.path.join(d, fn)))
    else:
        sd = read_st(os.path.join(d, "model.safetensors"))
    return cfg, sd


def rms(x, w, eps, gemma):
    y = x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    return y * ((1 + w) if gemma else w)


def inv_freq(cfg, dk):
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (np.arange(0, dk, 2, dtype=np.float64) / dk))
    rs = cfg.get("rope_scaling")
    if not rs:
        return inv
    kind = rs.get("rope_type", rs.get("type"))
    if kind == "linear":
        return inv / rs["factor"]
    if kind == "llama3":
        f, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old = rs["original_max_position_embeddings"]
        lo_wl, hi_wl = old / lo, old / hi
        wl = 2 * math.pi / inv
        out = np.where(wl > lo_wl, inv / f, inv)
        smooth = (old / wl - lo) / (hi - lo)
        sm = (1 - smooth) * out / f + smooth * out
        med = ~(wl < hi_wl) & ~(wl > lo_wl)
        return np.where(med, sm, out)
    raise ValueError("rope_scaling %s" % kind)


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], -1)


def softmax(x):
    m = np.max(np.where(np.isneginf(x), -np.inf, x), -1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(-1, keepdims=True)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1 + np.exp(-x))


def window_of(cfg, layer):
    fam = cfg["model_type"]
    if fam in ("mistral", "phi3"):
        return cfg.get("sliding_window") or 0
    if fam in ("qwen2", "qwen3") and cfg.get("use_sliding_window"):
        return cfg["sliding_window"] if layer >= cfg.get("max_window_layers", 28) else 0
    return 0


def run(cfg, sd, ids):
    fam = cfg["model_type"]
    gemma = fam == "gemma"
    d, h = cfg["hidden_size"], cfg["num_attention_heads"]
    hkv = cfg.get("num_key_value_heads") or h
    dk = cfg.get("head_dim") or d // h
    eps = cfg["rms_norm_eps"]
    T = len(ids)
    rec = {}
    x = sd["model.embed_tokens.weight"][ids]
    if gemma:
        x = x * np.float64(np.float32(math.sqrt(d)))
    rec["tgt.embed"] = x
    rec["tgt.input"] = x
    inv = inv_freq(cfg, dk)
    ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
    emb = np.concatenate([ang, ang], -1)
    cos, sin = np.cos(emb), np.sin(emb)
    act = gelu_tanh if gemma else silu
    for i in range(cfg["num_hidden_layers"]):
        p, s = "model.layers.%d." % i, "decoder.%d." % i
        n1 = rms(x, sd[p + "input_layernorm.weight"], eps, gemma)
        rec[s + "norm1"] = n1
        if fam == "phi3":
            W = sd[p + "self_attn.qkv_proj.weight"]
            Wq, Wk, Wv = W[:h * dk], W[h * dk:(h + hkv) * dk], W[(h + hkv) * dk:]
        else:
            Wq, Wk, Wv = (sd[p + "self_attn.%s_proj.weight" % c] for c in "qkv")
        q, k, v = n1 @ Wq.T, n1 @ Wk.T, n1 @ Wv.T
        if p + "self_attn.q_proj.bias" in sd:
            q = q + sd[p + "self_attn.q_proj.bias"]
            k = k + sd[p + "self_attn.k_proj.bias"]
            v = v + sd[p + "self_attn.v_proj.bias"]
        q = q.reshape(T, h, dk).transpose(1, 0, 2)
        k = k.reshape(T, hkv, dk).transpose(1, 0, 2)
        v = v.reshape(T, hkv, dk).transpose(1, 0, 2)
        a = s + "self_attn."
        rec[a + "q"], rec[a + "k"], rec[a + "v"] = q, k, v
        if fam == "qwen3":
            q = rms(q, sd[p + "self_attn.q_norm.weight"], eps, False)
            k = rms(k, sd[p + "self_attn.k_norm.weight"], eps, False)
            rec[a + "q_norm"], rec[a + "k_norm"] = q, k
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rec[a + "q_rot"], rec[a + "k_rot"] = q, k
        g = h // hkv
        kr, vr = np.repeat(k, g, axis=0), np.repeat(v, g, axis=0)
        sc = q @ kr.transpose(0, 2, 1) * dk ** -0.5
        rec[a + "scores"] = sc
        qi, ki = np.arange(T)[:, None], np.arange(T)[None, :]
        vis = ki <= qi
        win = window_of(cfg, i)
        if win:
            vis &= ki > qi - win
        mk = np.where(vis[None], sc, -np.inf)
        rec[a + "masked"] = mk
        wt = softmax(mk)
        rec[a + "weights"] = wt
        hd = wt @ vr
        rec[a + "heads"] = hd
        cat = hd.transpose(1, 0, 2).reshape(T, h * dk)
        rec[a + "concat"] = cat
        out = cat @ sd[p + "self_attn.o_proj.weight"].T
        if p + "self_attn.o_proj.bias" in sd:
            out = out + sd[p + "self_attn.o_proj.bias"]
        rec[a + "out"] = out
        x = x + out
        rec[s + "add1"] = x
        n2 = rms(x, sd[p + "post_attention_layernorm.weight"], eps, gemma)
        rec[s + "norm2"] = n2
        if fam == "phi3":
            W = sd[p + "mlp.gate_up_proj.weight"]
            Wg, Wu = W[:W.shape[0] // 2], W[W.shape[0] // 2:]
        else:
            Wg, Wu = sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"]
        gate, up = act(n2 @ Wg.T), n2 @ Wu.T
        rec[s + "ffn.gate"], rec[s + "ffn.up"] = gate, up
        hid = gate * up
        rec[s + "ffn.hidden"] = hid
        fo = hid @ sd[p + "mlp.down_proj.weight"].T
        rec[s + "ffn.out"] = fo
        x = x + fo
        rec[s + "add2"] = x
    x = rms(x, sd["model.norm.weight"], eps, gemma)
    rec["decoder.norm"] = x
    head = sd["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", gemma) \
        else sd["lm_head.weight"]
    rec["logits"] = x @ head.T
    rec["probs"] = softmax(rec["logits"])
    return rec


def compare(rec, dump, tol):
    worst, bad, n = 0.0, [], 0
    for name, ref in rec.items():
        if name not in dump:
            bad.append("stage %s missing from the dump" % name)
            continue
        got = dump[name]
        n += 1
        if got.shape != ref.shape:
            bad.append("%s: shape %s, reference %s" % (name, got.shape, ref.shape))
            continue
        inf_r, inf_g = np.isneginf(ref), np.isneginf(got)
        if (inf_r != inf_g).any():
            bad.append("%s: -inf at other places" % name)
            continue
        got0, ref0 = np.where(inf_r, 0, got), np.where(inf_r, 0, ref)
        diff = np.abs(got0 - ref0) / (1 + np.abs(ref0))
        m = float(diff.max()) if diff.size else 0.0
        worst = max(worst, m)
        if m > tol:
            i = np.unravel_index(np.argmax(diff), diff.shape)
            bad.append("%s: max diff %.3g at %s (got %r, reference %r)" %
                       (name, m, i, float(got[i]), float(ref[i])))
    extra = [k for k in dump if k not in rec and k not in ("src.ids", "tgt.ids", "loss")]
    if extra:
        bad.append("stages the reference does not have: %s" % " ".join(extra))
    return n, worst, bad


def check(a):
    cfg, sd = load_folder(a.dir)
    dump = read_st(a.dump)
    ids = dump["tgt.ids"].astype(np.int64)
    rec = run(cfg, sd, ids)
    n, worst, bad = compare(rec, dump, a.tol)
    for b in bad:
        print("llamaref: " + b)
    print("llamaref: %d stages compared, max relative difference %.3g" % (n, worst))
    return 1 if bad else 0


def greedy(a):
    """The argmax continuation of the dump's ids by full passes, as ids."""
    cfg, sd = load_folder(a.dir)
    ids = list(read_st(a.dump)["tgt.ids"].astype(np.int64))
    out = []
    for _ in range(a.n):
        nxt = int(np.argmax(run(cfg, sd, np.array(ids))["logits"][-1]))
        out.append(nxt)
        ids.append(nxt)
    print(" ".join(map(str, out)))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("family", choices=FAMILIES)
    m.add_argument("--d", type=int, default=32)
    m.add_argument("--heads", type=int, default=4)
    m.add_argument("--kv-heads", type=int, default=2)
    m.add_argument("--head-dim", type=int, default=0)
    m.add_argument("--layers", type=int, default=2)
    m.add_argument("--d-ff", type=int, default=0)
    m.add_argument("--vocab", type=int, default=300)
    m.add_argument("--max-len", type=int, default=64)
    m.add_argument("--eps", type=float, default=1e-6)
    m.add_argument("--theta", type=float, default=10000.0)
    m.add_argument("--tie", type=int, default=0)
    m.add_argument("--attention-bias", action="store_true")
    m.add_argument("--rope-scaling", choices=["", "linear", "llama3"], default="")
    m.add_argument("--window", type=int, default=0)
    m.add_argument("--window-from", type=int, default=0)
    m.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
    m.add_argument("--shards", type=int, default=1)
    m.add_argument("--std", type=float, default=0.2)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--tokenizer", default="", help="a folder with tokenizer.json "
                   "(and tokenizer_config.json) to ship instead of the byte vocabulary")
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("dump")
    c.add_argument("--tol", type=float, default=1e-5)
    g = sub.add_parser("greedy")
    g.add_argument("dir")
    g.add_argument("dump")
    g.add_argument("n", type=int)
    a = p.parse_args()
    return {"make": make, "check": check, "greedy": greedy}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
