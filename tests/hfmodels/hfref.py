#!/usr/bin/python3
"""Seeded random GPT-2 and BERT folders, and their passes, for the tests.

The modules below re-implement Hugging Face's GPT2Model / GPT2LMHeadModel
(modeling_gpt2.py) and BertModel / BertForMaskedLM (modeling_bert.py) in
plain PyTorch, with the same attribute names, so that state_dict() gives the
real key names and buffers.  No `transformers` package is used.

  hfref.py make DIR gpt2|bert [options]    write config.json, vocab, weights
  hfref.py check DIR DUMP.safetensors      run the pass on the dump's ids and
                                           compare every stage
  hfref.py batch FILE                      each line of FILE one of the above
                                           (one start of Python and torch);
                                           a check prints "NAME: ok|FAIL ..."
"""
import argparse, json, math, os, struct, sys

import numpy as np
import torch

from llamaref import compare  # noqa: E402  (the stage-by-stage comparison)
from torch import nn

# ---------------------------------------------------------------- GPT-2 --

class Conv1D(nn.Module):
    """HF's Conv1D: a linear layer whose weight is stored [in, out]."""
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def new_gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def exact_gelu(x):
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


ACT = {"gelu_new": new_gelu, "gelu_pytorch_tanh": new_gelu, "gelu": exact_gelu,
       "relu": torch.relu}


class GPT2Attention(nn.Module):
    def __init__(self, cfg, bias_dtype):
        super().__init__()
        n = cfg["n_positions"]
        mask = torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n)
        # old checkpoints saved the mask as floats (or uint8), new ones as bool
        self.register_buffer("bias", mask.to(bias_dtype))
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.embed_dim = cfg["n_embd"]
        self.num_heads = cfg["n_head"]
        self.head_dim = self.embed_dim // self.num_heads
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)

    def split(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, rec, p):
        q, k, v = self.c_attn(x).split(self.embed_dim, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        rec[p + "q"], rec[p + "k"], rec[p + "v"] = q[0], k[0], v[0]
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        rec[p + "scores"] = w[0]
        T = x.shape[1]
        causal = self.bias[:, :, :T, :T].bool()
        w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        rec[p + "masked"] = torch.where(causal, w, torch.tensor(-math.inf, dtype=w.dtype))[0]
        w = nn.functional.softmax(w, dim=-1)
        rec[p + "weights"] = w[0]
        o = torch.matmul(w, v)
        rec[p + "heads"] = o[0]
        o = o.permute(0, 2, 1, 3).contiguous().view(x.shape)
        rec[p + "concat"] = o[0]
        o = self.c_proj(o)
        rec[p + "out"] = o[0]
        return o


class GPT2MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        inner = cfg.get("n_inner") or 4 * cfg["n_embd"]
        self.c_fc = Conv1D(inner, cfg["n_embd"])
        self.c_proj = Conv1D(cfg["n_embd"], inner)
        self.act = ACT[cfg.get("activation_function", "gelu_new")]

    def forward(self, x, rec, p):
        h = self.act(self.c_fc(x))
        rec[p + "ffn.hidden"] = h[0]
        h = self.c_proj(h)
        rec[p + "ffn.out"] = h[0]
        return h


class GPT2Block(nn.Module):
    def __init__(self, cfg, bias_dtype):
        super().__init__()
        eps = cfg.get("layer_norm_epsilon", 1e-5)
        self.ln_1 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.attn = GPT2Attention(cfg, bias_dtype)
        self.ln_2 = nn.LayerNorm(cfg["n_embd"], eps=eps)
        self.mlp = GPT2MLP(cfg)

    def forward(self, x, rec, p):
        residual = x
        h = self.ln_1(x)
        rec[p + "norm1"] = h[0]
        h = self.attn(h, rec, p + "self_attn.") + residual
        rec[p + "add1"] = h[0]
        residual = h
        h = self.ln_2(h)
        rec[p + "norm2"] = h[0]
        h = residual + self.mlp(h, rec, p)
        rec[p + "add2"] = h[0]
        return h


class GPT2Model(nn.Module):
    def __init__(self, cfg, bias_dtype=torch.bool):
        super().__init__()
        self.wte = nn.Embedding(cfg["vocab_size"], cfg["n_embd"])
        self.wpe = nn.Embedding(cfg["n_positions"], cfg["n_embd"])
        self.h = nn.ModuleList([GPT2Block(cfg, bias_dtype) for _ in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(cfg["n_embd"], eps=cfg.get("layer_norm_epsilon", 1e-5))

    def forward(self, ids, rec):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        e, pe = self.wte(ids), self.wpe(pos)
        rec["tgt.embed"], rec["tgt.pos"] = e[0], pe[0]
        h = e + pe
        rec["tgt.input"] = h[0]
        for i, block in enumerate(self.h):
            h = block(h, rec, "decoder.%d." % i)
        h = self.ln_f(h)
        rec["decoder.norm"] = h[0]
        return h


class GPT2LMHeadModel(nn.Module):
    def __init__(self, cfg, bias_dtype=torch.bool):
        super().__init__()
        self.transformer = GPT2Model(cfg, bias_dtype)
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
        self.lm_head.weight = self.transformer.wte.weight   # tied

    def forward(self, ids, rec):
        h = self.transformer(ids, rec)
        return self.lm_head(h)

# ----------------------------------------------------------------- BERT --

class BertEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], d)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], d)
        self.LayerNorm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"])
        self.register_buffer("position_ids",
                             torch.arange(cfg["max_position_embeddings"]).expand((1, -1)))

    def forward(self, ids, rec):
        S = ids.shape[1]
        tt = torch.zeros_like(ids)
        e = self.word_embeddings(ids)
        emb = e + self.token_type_embeddings(tt)
        pe = self.position_embeddings(self.position_ids[:, :S])
        emb = emb + pe
        rec["src.embed"], rec["src.pos"], rec["src.input"] = e[0], pe[0], emb[0]
        emb = self.LayerNorm(emb)
        rec["src.input_norm"] = emb[0]
        return emb


class BertSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.num_attention_heads = cfg["num_attention_heads"]
        self.attention_head_size = d // self.num_attention_heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def t(self, x):
        B, S, _ = x.shape
        return x.view(B, S, self.num_attention_heads, self.attention_head_size).permute(0, 2, 1, 3)

    def forward(self, x, ext_mask, keymask, rec, p):
        q, k, v = self.t(self.query(x)), self.t(self.key(x)), self.t(self.value(x))
        rec[p + "q"], rec[p + "k"], rec[p + "v"] = q[0], k[0], v[0]
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
        rec[p + "scores"] = s[0]
        rec[p + "masked"] = torch.where(keymask, s, torch.tensor(-math.inf, dtype=s.dtype))[0]
        s = s + ext_mask
        w = nn.functional.softmax(s, dim=-1)
        rec[p + "weights"] = w[0]
        c = torch.matmul(w, v)
        rec[p + "heads"] = c[0]
        c = c.permute(0, 2, 1, 3).contiguous().view(x.shape)
        rec[p + "concat"] = c[0]
        return c


class BertSelfOutput(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])

    def forward(self, h, inp, rec, p):
        h = self.dense(h)
        rec[p + "self_attn.out"] = h[0]
        h = h + inp
        rec[p + "add1"] = h[0]
        h = self.LayerNorm(h)
        rec[p + "norm1"] = h[0]
        return h


class BertAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self = BertSelfAttention(cfg)
        self.output = BertSelfOutput(cfg)

    def forward(self, x, ext, km, rec, p):
        return self.output(self.self(x, ext, km, rec, p + "self_attn."), x, rec, p)


class BertIntermediate(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])
        self.act = ACT[cfg["hidden_act"]]

    def forward(self, x):
        return self.act(self.dense(x))


class BertOutput(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["intermediate_size"], cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])

    def forward(self, h, inp, rec, p):
        h = self.dense(h)
        rec[p + "ffn.out"] = h[0]
        h = h + inp
        rec[p + "add2"] = h[0]
        h = self.LayerNorm(h)
        rec[p + "norm2"] = h[0]
        return h


class BertLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention = BertAttention(cfg)
        self.intermediate = BertIntermediate(cfg)
        self.output = BertOutput(cfg)

    def forward(self, x, ext, km, rec, p):
        a = self.attention(x, ext, km, rec, p)
        i = self.intermediate(a)
        rec[p + "ffn.hidden"] = i[0]
        return self.output(i, a, rec, p)


class BertEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(cfg) for _ in range(cfg["num_hidden_layers"])])

    def forward(self, x, ext, km, rec):
        for i, l in enumerate(self.layer):
            x = l(x, ext, km, rec, "encoder.%d." % i)
        return x


class BertPooler(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])


class BertModel(nn.Module):
    def __init__(self, cfg, add_pooling_layer=True):
        super().__init__()
        self.embeddings = BertEmbeddings(cfg)
        self.encoder = BertEncoder(cfg)
        self.pooler = BertPooler(cfg) if add_pooling_layer else None

    def forward(self, ids, real, rec):
        S = ids.shape[1]
        mask = torch.zeros(1, S, dtype=ids.dtype)
        mask[0, :real] = 1
        dt = self.embeddings.word_embeddings.weight.dtype
        ext = (1.0 - mask[:, None, None, :].to(dt)) * torch.finfo(dt).min
        km = mask[:, None, None, :].bool().expand(1, 1, S, S)
        h = self.embeddings(ids, rec)
        h = self.encoder(h, ext, km, rec)
        rec["memory"] = h[0]
        return h


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])
        self.act = ACT[cfg["hidden_act"]]
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])

    def forward(self, h):
        return self.LayerNorm(self.act(self.dense(h)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.transform = BertPredictionHeadTransform(cfg)
        self.decoder = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)
        self.bias = nn.Parameter(torch.zeros(cfg["vocab_size"]))
        self.decoder.bias = self.bias


class BertOnlyMLMHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.predictions = BertLMPredictionHead(cfg)


class BertForMaskedLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.bert = BertModel(cfg, add_pooling_layer=False)
        self.cls = BertOnlyMLMHead(cfg)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def forward(self, ids, real, rec):
        h = self.bert(ids, real, rec)
        t = self.cls.predictions.transform(h)
        rec["mlm.hidden"] = t[0]
        return self.cls.predictions.decoder(t)

class BertPreTrainingHeads(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.predictions = BertLMPredictionHead(cfg)
        self.seq_relationship = nn.Linear(cfg["hidden_size"], 2)


class BertForPreTraining(BertForMaskedLM):
    """The masked-LM head beside the next-sentence one, and the pooler."""
    def __init__(self, cfg):
        nn.Module.__init__(self)
        self.bert = BertModel(cfg, add_pooling_layer=True)
        self.cls = BertPreTrainingHeads(cfg)
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

# ---------------------------------------------------------- the folders --

GPT2_WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "because", "it", "was",
              "tired", "and", "then", "slept", "Hello", "world", "."]
BERT_WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "because", "it", "was",
              "tired", "and", "then", "slept", "hello", "world", "play", "##ing", "##ed", "."]


def byte_chars():
    """GPT-2's byte-to-unicode map (bytes_to_unicode in HF's tokenization_gpt2)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def bpe(word, rank):
    """GPT-2's BPE on one pre-token: the adjacent pair of lowest rank (the
    leftmost of equal ones) merged, until none has a rank."""
    sym = list(word)
    while len(sym) > 1:
        best = min(range(len(sym) - 1), key=lambda i: (rank.get((sym[i], sym[i + 1]), 1 << 30), i))
        if (sym[best], sym[best + 1]) not in rank:
            break
        sym[best:best + 2] = [sym[best] + sym[best + 1]]
    return sym


def gpt2_tokenizer(d, size=0):
    """vocab.json and merges.txt: the 256 byte symbols, then merges that
    make each word (and its Ġ form) one piece: the pieces BPE leaves are
    joined left to right by new merges until every word is whole; with
    size, more pieces ("Ġw1234", merged from Ġw123 and 4) up to size
    tokens."""
    vocab, merges, rank = list(byte_chars()), [], {}
    have = set(vocab)
    forms = [f for w in GPT2_WORDS for f in (w, "Ġ" + w)]
    while True:
        todo = [f for f in forms if len(bpe(f, rank)) > 1]
        if not todo:
            break
        sym = bpe(todo[0], rank)
        a, b = sym[0], sym[1]
        rank[(a, b)] = len(merges)
        merges.append(a + " " + b)
        if a + b not in have:
            vocab.append(a + b)
            have.add(a + b)
    if size and "Ġw" not in have:
        rank[("Ġ", "w")] = len(merges)
        merges.append("Ġ w")
        vocab.append("Ġw")
    k = 1
    while len(vocab) < size - 1:   # the prefix Ġw{k // 10} came before
        merges.append("Ġw%s %d" % (k // 10 or "", k % 10))
        vocab.append("Ġw%d" % k)
        k += 1
    vocab.append("<|endoftext|>")
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({t: i for i, t in enumerate(vocab)}, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in merges))
    return len(vocab)


def bert_tokenizer(d):
    vocab = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab += [w for w in BERT_WORDS if w not in vocab]
    with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in vocab))
    return len(vocab)


def randomize(model, seed, std):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm" in name or ".ln_" in name or name.endswith("ln_f.weight") \
                    or name.endswith("ln_f.bias"):
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(std * torch.randn(p.shape, generator=g))


ST_DT = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bool: "BOOL",
         torch.int64: "I64", torch.uint8: "U8", torch.bfloat16: "BF16"}


def save_safetensors(sd, path):
    """What safetensors' save_file writes: shared tensors once (the tied
    duplicates dropped, as save_pretrained does)."""
    seen, hdr, blobs, off = {}, {}, [], 0
    for k, v in sd.items():
        ptr = v.data_ptr() if v.numel() else None
        if ptr is not None and ptr in seen and v.shape == seen[ptr].shape:
            continue
        if ptr is not None:
            seen[ptr] = v
        if v.dtype == torch.bfloat16:
            b = v.contiguous().view(torch.int16).numpy().tobytes()
        else:
            b = v.contiguous().numpy().tobytes()
        hdr[k] = {"dtype": ST_DT[v.dtype], "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
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


def make(a):
    os.makedirs(a.dir, exist_ok=True)
    torch.set_default_dtype(torch.float32)
    torch.manual_seed(a.seed)
    if a.type == "gpt2":
        V = gpt2_tokenizer(a.dir, a.vocab)
        cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": V,
               "n_positions": a.max_len, "n_embd": a.d, "n_layer": a.layers, "n_head": a.heads,
               "n_inner": a.d_ff, "activation_function": a.act or "gelu_new",
               "layer_norm_epsilon": 1e-5, "resid_pdrop": 0.1, "embd_pdrop": 0.1,
               "attn_pdrop": 0.1, "initializer_range": 0.02, "bos_token_id": V - 1,
               "eos_token_id": V - 1, "scale_attn_weights": True, "use_cache": True,
               "transformers_version": "4.40.0"}
        bd = {"bool": torch.bool, "float": torch.float32, "uint8": torch.uint8}[a.mask_dtype]
        model = GPT2LMHeadModel(cfg, bd) if a.head else GPT2Model(cfg, bd)
        if not a.head:
            cfg["architectures"] = ["GPT2Model"]
    else:
        V = bert_tokenizer(a.dir)
        cfg = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": V,
               "hidden_size": a.d, "num_hidden_layers": a.layers, "num_attention_heads": a.heads,
               "intermediate_size": a.d_ff or 4 * a.d, "hidden_act": a.act or "gelu",
               "max_position_embeddings": a.max_len, "type_vocab_size": 2,
               "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute",
               "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
               "initializer_range": 0.02, "transformers_version": "4.40.0"}
        model = (BertForPreTraining if a.pretraining else BertForMaskedLM)(cfg) if a.head \
            else BertModel(cfg)
        if not a.head:
            cfg["architectures"] = ["BertModel"]
    for k, v in a.config or []:
        cfg[k] = json.loads(v)
    randomize(model, a.seed, a.std)
    sd = model.state_dict()
    if not a.prefix:
        pf = "transformer." if a.type == "gpt2" else "bert."
        if any(k.startswith(pf) for k in sd):
            sys.exit("hfref: --no-prefix applies to GPT2Model / BertModel (use --no-head)")
    if a.old_names:
        sd = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
              for k, v in sd.items()}
    if a.decoder_bias_only:   # the head's bias under its other name only
        sd = {k: v for k, v in sd.items() if k != "cls.predictions.bias"}
        sd["cls.predictions.decoder.bias"] = model.cls.predictions.bias.detach().clone()
    if a.drop_buffers:
        sd = {k: v for k, v in sd.items() if not (k.endswith(".attn.bias") or k.endswith("masked_bias")
                                                  or k.endswith("position_ids"))}
    if a.dtype != "F32":
        dt = {"F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64}[a.dtype]
        sd = {k: (v.to(dt) if v.dtype == torch.float32 and v.dim() > 0 else v) for k, v in sd.items()}
    with open(os.path.join(a.dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    if a.format == "bin":
        torch.save(sd, os.path.join(a.dir, "pytorch_model.bin"))
    else:
        save_safetensors(sd, os.path.join(a.dir, "model.safetensors"))
    if a.dtype != "F32":   # the reference runs on the stored values
        with torch.no_grad():
            for k, p in model.state_dict().items():
                if p.dtype == torch.float32 and p.dim() > 0:
                    p.copy_(p.to({"F16": torch.float16, "BF16": torch.bfloat16,
                                  "F64": torch.float64}[a.dtype]).to(torch.float32))

# ------------------------------------------------------------ the check --

def read_dump(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in hdr.items():
        if k == "__metadata__":
            continue
        dt = {"F32": np.float32, "I32": np.int32}[v["dtype"]]
        b, e = v["data_offsets"]
        out[k] = np.frombuffer(data[b:e], dtype=dt).reshape(v["shape"])
    return out, hdr.get("__metadata__", {})


def load_folder(d):
    cfg = json.load(open(os.path.join(d, "config.json")))
    if os.path.exists(os.path.join(d, "model.safetensors")):
        with open(os.path.join(d, "model.safetensors"), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            hdr = json.loads(f.read(n))
            data = f.read()
        npdt = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BOOL": np.bool_,
                "I64": np.int64, "U8": np.uint8, "BF16": np.int16}
        sd = {}
        for k, v in hdr.items():
            if k == "__metadata__":
                continue
            b, e = v["data_offsets"]
            arr = np.frombuffer(data[b:e], dtype=npdt[v["dtype"]]).reshape(v["shape"]).copy()
            t = torch.from_numpy(arr)
            if v["dtype"] == "BF16":
                t = t.view(torch.bfloat16)
            sd[k] = t
    else:
        sd = torch.load(os.path.join(d, "pytorch_model.bin"))
    return cfg, sd


def check(a):
    cfg, sd = load_folder(a.dir)
    sd = {k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias"): v
          for k, v in sd.items()}
    dump, meta = read_dump(a.dump)
    rec = {}
    torch.set_default_dtype(torch.float64)
    if cfg["model_type"] == "gpt2":
        head = any(k.startswith("transformer.") for k in sd)
        model = (GPT2LMHeadModel if head else GPT2Model)(cfg)
        ids = torch.tensor(dump["tgt.ids"].astype(np.int64))[None]
    else:
        head = any(k.startswith("cls.") for k in sd)
        pre = "cls.seq_relationship.weight" in sd
        model = (BertForPreTraining if pre else BertForMaskedLM)(cfg) if head else \
            BertModel(cfg, any(k.startswith("pooler.") for k in sd))
        if "cls.predictions.bias" not in sd and "cls.predictions.decoder.bias" in sd:
            sd["cls.predictions.bias"] = sd["cls.predictions.decoder.bias"]
        ids = torch.tensor(dump["src.ids"].astype(np.int64))[None]
    model = model.double()
    missing, unexpected = model.load_state_dict({k: v.double() if v.is_floating_point() else v
                                                 for k, v in sd.items()}, strict=False)
    # the buffers a file may leave out are rebuilt by the module itself
    missing = [k for k in missing if not (k.endswith(".attn.bias") or k.endswith("masked_bias")
                                          or k.endswith("position_ids") or
                                          k.endswith("lm_head.weight") or
                                          k.endswith("cls.predictions.decoder.weight") or
                                          k.endswith("cls.predictions.decoder.bias"))]
    if missing or unexpected:
        raise RuntimeError("hfref: state_dict mismatch: missing %s unexpected %s" % (missing, unexpected))
    if "lm_head.weight" not in sd and hasattr(model, "lm_head"):
        model.lm_head.weight = model.transformer.wte.weight
    if hasattr(model, "cls"):
        model.cls.predictions.decoder.weight = model.bert.embeddings.word_embeddings.weight
    with torch.no_grad():
        if cfg["model_type"] == "gpt2":
            logits = model(ids, rec)
            if not isinstance(model, GPT2Model):
                rec["logits"] = logits[0]
            else:
                rec["logits"] = (logits @ model.wte.weight.T)[0]
        else:
            real = int(a.real) if a.real else ids.shape[1]
            out = model(ids, real, rec)
            if head:
                rec["logits"] = out[0]
    if "logits" in rec:
        rec["probs"] = torch.softmax(rec["logits"], dim=-1)
    n, worst, bad = compare({k: v.numpy() for k, v in rec.items()}, dump, a.tol)
    for b in bad:
        print("hfref: " + b)
    print("hfref: %d stages compared, max relative difference %.3g" % (n, worst))
    return 1 if bad else 0


def parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("type", choices=["gpt2", "bert"])
    m.add_argument("--d", type=int, default=32)
    m.add_argument("--heads", type=int, default=4)
    m.add_argument("--layers", type=int, default=2)
    m.add_argument("--d-ff", type=int, default=None)
    m.add_argument("--max-len", type=int, default=40)
    m.add_argument("--act", default=None)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--vocab", type=int, default=0, help="GPT-2: pieces up to this many")
    m.add_argument("--std", type=float, default=0.2)
    m.add_argument("--format", choices=["safetensors", "bin"], default="safetensors")
    m.add_argument("--no-head", dest="head", action="store_false")
    m.add_argument("--no-prefix", dest="prefix", action="store_false")
    m.add_argument("--old-names", action="store_true")
    m.add_argument("--drop-buffers", action="store_true")
    m.add_argument("--pretraining", action="store_true", help="BERT: BertForPreTraining")
    m.add_argument("--decoder-bias-only", action="store_true",
                   help="BERT: the head's bias as cls.predictions.decoder.bias alone")
    m.add_argument("--mask-dtype", choices=["bool", "float", "uint8"], default="bool")
    m.add_argument("--dtype", choices=["F32", "F16", "BF16", "F64"], default="F32")
    m.add_argument("--config", nargs=2, action="append", metavar=("KEY", "JSON"))
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("dump")
    c.add_argument("--real", default=None, help="BERT: tokens before the padding")
    c.add_argument("--tol", type=float, default=1e-5)
    b = sub.add_parser("batch")
    b.add_argument("file")
    return p


def main():
    import io, shlex, contextlib
    a = parser().parse_args()
    if a.cmd != "batch":
        sys.exit(make(a) if a.cmd == "make" else check(a))
    status = 0
    for line in open(a.file):
        if not line.strip() or line.startswith("#"):
            continue
        args = parser().parse_args(shlex.split(line))
        if args.cmd == "make":
            make(args)
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                rc = check(args)
            except Exception as ex:   # a dump the reference cannot read
                print("hfref: %s" % ex)
                rc = 1
        lines = out.getvalue().splitlines()
        name = os.path.basename(args.dir.rstrip("/"))
        print("%s: %s %s" % (name, "ok" if rc == 0 else "FAIL", lines[-1] if lines else ""))
        for l in lines[:-1][:8]:
            print("#   " + l)
        status |= rc
    sys.exit(status)


if __name__ == "__main__":
    main()
