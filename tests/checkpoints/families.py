"""families.py - the checkpoints engineers already have (TAP).

Builds four model families in PyTorch as their own source code writes them
(small sizes, seeded, a few training steps where greedy decoding is
compared), saves each as its users do, writes only a model YAML with
DESIGN.md's contract keys, and checks attnscope against the PyTorch
modules: every dumped stage against the module's own intermediate values
(forward hooks; per-head q/k/v/scores/weights from the hooked attention
input, the weights also from nn.MultiheadAttention itself) to 1e-5, and
greedy decoding against the family's own greedy decoder.

  pytorch-tutorial       Seq2SeqTransformer of PyTorch's "Language
                         Translation with nn.Transformer" tutorial
  annotated-transformer  harvardnlp's EncoderDecoder (make_model)
  nanogpt                karpathy's nanoGPT GPT (bias True and False,
                         torch.compile's _orig_mod. prefix) and minGPT
  classifier             embedding + PE + nn.TransformerEncoder + mean
                         pool + Linear, as users write a text classifier

The module classes below follow the families' sources (same module names,
same arithmetic); no code is copied.

usage: families.py  (ATTNSCOPE = the binary, top_srcdir set)"""
import copy
import json
import math
import os
import pickle
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests", "golden"))
import stio  # noqa: E402

ATTNSCOPE = os.environ["ATTNSCOPE"]
TMP = tempfile.mkdtemp(prefix="attnscope-ckpt-")
TOL = 1e-5
torch.set_num_threads(1)
n_test = 0
failed = 0


def ok(cond, what, detail=""):
    global n_test, failed
    n_test += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n_test, what))
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:30]:
            print("#   " + line)


def run(*args):
    p = subprocess.run([ATTNSCOPE] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


DIR = TMP       # the family's own folder (its files keep the README's names)


def path(name):
    return os.path.join(DIR, name)


def family_dir(name):
    global DIR
    DIR = os.path.join(TMP, name)
    os.makedirs(DIR, exist_ok=True)


def readme_yaml(family):
    """The manual's worked YAML for family (its block "# family: NAME" in
    doc/your-models.md, which users copy)."""
    path = os.path.join(os.environ.get("top_srcdir", "."), "doc", "your-models.md")
    text = open(path).read()
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        if block.startswith("# family: %s\n" % family):
            return block if PT else block.replace(".pt\n", ".safetensors\n")
    raise SystemExit("Bail out! doc/your-models.md has no YAML for family %s" % family)


def reads_pt():
    """Whether this attnscope reads torch.save files (the zip format)."""
    torch.save({"attnscope_probe_tensor": torch.zeros(3)}, path("probe.pt"))
    rc, out, err = run("info", path("probe.pt"))
    return rc == 0 and "attnscope_probe_tensor" in out


PT = reads_pt()


def save_weights(obj, name):
    """Saves as the family's users do (torch.save to NAME.pt) when
    attnscope reads it, else the state_dict as NAME.safetensors."""
    if PT:
        torch.save(obj, path(name + ".pt"))
        return name + ".pt"
    sd = obj["model"] if isinstance(obj, dict) and "model" in obj else obj
    stio.write(path(name + ".safetensors"),
               {k: v.detach().float().numpy() for k, v in sd.items()})
    return name + ".safetensors"


def write_yaml(name, text):
    with open(path(name + ".yaml"), "w") as f:
        f.write(text)
    return path(name + ".yaml")


def dump(yaml, sentence, *extra):
    out = path("dump.safetensors")
    if os.path.exists(out):
        os.unlink(out)
    rc, _, err = run("dump", "--model", yaml, "--out", out, *extra, sentence)
    if rc:
        return None, err
    t, meta = stio.read(out)
    return t, meta


def compare(family, got, ref):
    """Every dumped stage against the reference; a stage without one fails."""
    bad = []
    for name in sorted(got):
        g = got[name]
        if name not in ref:
            bad.append("%s: no reference value" % name)
            continue
        r = np.asarray(ref[name], dtype=np.float64)
        g = np.asarray(g, dtype=np.float64)
        if g.shape != r.shape:
            bad.append("%s: shape %s, PyTorch %s" % (name, g.shape, r.shape))
            continue
        inf_g, inf_r = np.isneginf(g), np.isneginf(r)
        if (inf_g != inf_r).any():
            bad.append("%s: −inf at different places" % name)
            continue
        d = np.abs(np.where(inf_g, 0, g) - np.where(inf_r, 0, r))
        if d.size and d.max() > TOL * max(1.0, np.abs(np.where(inf_r, 0, r)).max()):
            i = np.unravel_index(d.argmax(), d.shape)
            bad.append("%s: max |diff| %.3g at %s (attnscope %.7g, PyTorch %.7g)"
                       % (name, d.max(), i, g[i], r[i]))
    ok(not bad, "%s: all %d dumped stages equal PyTorch's to %g" % (family, len(got), TOL),
       "\n".join(bad))


def heads(x, h):
    """[n, d] -> [h, n, dk]"""
    n, d = x.shape
    return x.reshape(n, h, d // h).transpose(0, 1)


def attn_ref(ref, prefix, xq, xkv, wq, bq, wk, bk, wv, bv, wo, bo, h, mask):
    """The per-head stages of one attention from its input; mask [nq, nk]
    True where a key is masked."""
    q = heads(F.linear(xq, wq, bq), h)
    k = heads(F.linear(xkv, wk, bk), h)
    v = heads(F.linear(xkv, wv, bv), h)
    sc = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    mk = sc.masked_fill(mask, float("-inf"))
    wt = torch.softmax(mk, dim=-1)
    hd = wt @ v
    cat = hd.transpose(0, 1).reshape(xq.shape[0], -1)
    for n, t in (("q", q), ("k", k), ("v", v), ("scores", sc), ("masked", mk),
                 ("weights", wt), ("heads", hd), ("concat", cat),
                 ("out", F.linear(cat, wo, bo))):
        ref[prefix + "." + n] = t.detach().numpy()
    return wt


def causal(n):
    return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)


class Hooks:
    """Forward hooks that keep each module's input and output."""

    def __init__(self, named):
        self.inp, self.out, self.hs = {}, {}, []
        for name, m in named:
            self.hs.append(m.register_forward_hook(self.keep(name)))

    def keep(self, name):
        def f(mod, args, out):
            self.inp[name] = args
            self.out[name] = out
        return f

    def remove(self):
        for h in self.hs:
            h.remove()


def np0(t):
    """A batch-of-one tensor's row block as numpy."""
    return t.detach().numpy()


# --------------------------------------------------------------------------
# 1. PyTorch's translation tutorial: Seq2SeqTransformer (seq-first tensors)

class PositionalEncoding(nn.Module):
    def __init__(self, emb_size, dropout, maxlen=5000):
        super().__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding)

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, emb_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead,
                 src_vocab_size, tgt_vocab_size, dim_feedforward=512, dropout=0.1):
        super().__init__()
        self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead,
                                          num_encoder_layers=num_encoder_layers,
                                          num_decoder_layers=num_decoder_layers,
                                          dim_feedforward=dim_feedforward, dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src, src_mask):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt, memory, tgt_mask):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)),
                                        memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz))) == 1).transpose(0, 1)
    return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)


def tutorial_greedy_decode(model, src, src_mask, max_len, start_symbol, eos):
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long)
    for i in range(max_len - 1):
        tgt_mask = generate_square_subsequent_mask(ys.size(0)).type(torch.bool)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == eos:
            break
    return ys.flatten().tolist()


WORDS = "the cat dog sees a big small red blue house".split()


def copy_batches(n_batch, ids, bos, eos, pad, reverse=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batch):
        L = int(torch.randint(2, 6, (1,), generator=g))
        x = torch.randint(0, len(ids), (24, L), generator=g)
        src = torch.tensor(ids)[x]
        tgt = src.flip(1) if reverse else src
        b = torch.full((24, 1), bos)
        e = torch.full((24, 1), eos)
        yield torch.cat([b, src, e], 1), torch.cat([b, tgt, e], 1)


def tutorial_family():
    torch.manual_seed(1)
    vocab = ["<unk>", "<pad>", "<bos>", "<eos>"] + WORDS
    UNK, PAD, BOS, EOS = 0, 1, 2, 3
    E, H = 32, 4
    model = Seq2SeqTransformer(2, 2, E, H, len(vocab), len(vocab), dim_feedforward=64)
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for src, tgt in copy_batches(150, list(range(4, len(vocab))), BOS, EOS, PAD, reverse=True):
        src, tgt = src.T, tgt.T   # [S, B]: the tutorial's seq-first tensors
        tin, tout = tgt[:-1], tgt[1:]
        S, T = src.shape[0], tin.shape[0]
        logits = model(src, tin, torch.zeros(S, S).bool(), generate_square_subsequent_mask(T),
                       src.T == PAD, tin.T == PAD, src.T == PAD)
        loss = F.cross_entropy(logits.reshape(-1, len(vocab)), tout.reshape(-1), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    family_dir("tutorial")
    save_weights(model.state_dict(), "transformer")
    for side in ("src", "tgt"):
        with open(path(side + ".vocab.txt"), "w") as f:
            f.write("\n".join(vocab) + "\n")
    yaml = write_yaml("model", readme_yaml("pytorch-tutorial"))
    rc, out, err = run("info", "--model", yaml)
    ok(rc == 0, "tutorial: the YAML with layout: pytorch-tutorial loads", err)

    sent = "the big cat sees a dog"
    target = "dog a sees cat big the"
    ids = [BOS] + [vocab.index(w) for w in sent.split()] + [EOS]
    tids = [BOS] + [vocab.index(w) for w in target.split()]
    src = torch.tensor(ids).reshape(-1, 1)
    tgt = torch.tensor(tids).reshape(-1, 1)
    tr = model.transformer
    hk = Hooks(list(model.named_modules()))
    with torch.enable_grad():      # the layers' slow path: every hook fires
        logits = model(src, tgt, None, generate_square_subsequent_mask(len(tids)).bool(),
                       None, None, None)
    hk.remove()
    ref = {"src.ids": np.array(ids), "tgt.ids": np.array(tids)}
    ref["src.embed"] = np0(hk.out["src_tok_emb"][:, 0])
    ref["tgt.embed"] = np0(hk.out["tgt_tok_emb"][:, 0])
    ref["src.pos"] = np0(model.positional_encoding.pos_embedding[:len(ids), 0])
    ref["tgt.pos"] = np0(model.positional_encoding.pos_embedding[:len(tids), 0])
    ref["src.input"] = ref["src.embed"] + ref["src.pos"]
    ref["tgt.input"] = ref["tgt.embed"] + ref["tgt.pos"]
    S, T = len(ids), len(tids)
    for stack, n, L in (("encoder", S, tr.encoder.layers), ("decoder", T, tr.decoder.layers)):
        for i, layer in enumerate(L):
            p = "%s.%d" % (stack, i)
            m = "transformer.%s.layers.%d" % (stack, i)
            x = hk.inp[m][0][:, 0]
            sa = layer.self_attn
            w, b = sa.in_proj_weight, sa.in_proj_bias
            d = E
            mask = causal(n) if stack == "decoder" else torch.zeros(n, n, dtype=torch.bool)
            wt = attn_ref(ref, p + ".self_attn", x, x, w[:d], b[:d], w[d:2 * d], b[d:2 * d],
                          w[2 * d:], b[2 * d:], sa.out_proj.weight, sa.out_proj.bias, H, mask)
            _, own = sa(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
            ok(torch.allclose(wt, own, atol=1e-6), "tutorial: %s.self_attn.weights: the reference "
               "equals nn.MultiheadAttention's own" % p)
            ref[p + ".add1"] = np0(hk.inp[m + ".norm1"][0][:, 0])
            ref[p + ".norm1"] = np0(hk.out[m + ".norm1"][:, 0])
            k = 2
            if stack == "decoder":
                y = hk.out[m + ".norm1"][:, 0]
                mem = hk.out["transformer.encoder"][:, 0]
                ca = layer.multihead_attn
                w, b = ca.in_proj_weight, ca.in_proj_bias
                attn_ref(ref, p + ".cross_attn", y, mem, w[:d], b[:d], w[d:2 * d], b[d:2 * d],
                         w[2 * d:], b[2 * d:], ca.out_proj.weight, ca.out_proj.bias, H,
                         torch.zeros(n, S, dtype=torch.bool))
                ref[p + ".add2"] = np0(hk.inp[m + ".norm2"][0][:, 0])
                ref[p + ".norm2"] = np0(hk.out[m + ".norm2"][:, 0])
                k = 3
            ref[p + ".ffn.hidden"] = np0(F.relu(hk.out[m + ".linear1"][:, 0]))
            ref[p + ".ffn.out"] = np0(hk.out[m + ".linear2"][:, 0])
            ref["%s.add%d" % (p, k)] = np0(hk.inp["%s.norm%d" % (m, k)][0][:, 0])
            ref["%s.norm%d" % (p, k)] = np0(hk.out["%s.norm%d" % (m, k)][:, 0])
    ref["encoder.norm"] = np0(hk.out["transformer.encoder.norm"][:, 0])
    ref["memory"] = ref["encoder.norm"]
    ref["decoder.norm"] = np0(hk.out["transformer.decoder.norm"][:, 0])
    lg = logits[:, 0]
    ref["logits"] = np0(lg)
    ref["probs"] = np0(torch.softmax(lg, -1))
    labels = tids[1:] + [EOS]
    ref["loss"] = np0(F.cross_entropy(lg, torch.tensor(labels), reduction="none"))
    got, meta = dump(yaml, sent, "--target", target)
    ok(got is not None, "tutorial: dump runs", meta)
    if got is not None:
        compare("tutorial", got, ref)

    for s in (sent, "a red house", "the small dog sees the blue cat"):
        toks = [BOS] + [vocab.index(w) for w in s.split()] + [EOS]
        src = torch.tensor(toks).reshape(-1, 1)
        n = src.shape[0]
        with torch.no_grad():
            ys = tutorial_greedy_decode(model, src, torch.zeros(n, n).bool(), n + 5, BOS, EOS)
        theirs = [vocab[i] for i in ys[1:]]
        rc, out, err = run("translate", "--model", yaml, "--json", "--max-len", str(n + 4), s)
        mine = json.loads(out)["output"] if rc == 0 else err
        if theirs and theirs[-1] == "<eos>":
            theirs = theirs[:-1]
        ok(mine == theirs, "tutorial: greedy \"%s\" equals the tutorial's greedy_decode: %s"
           % (s, " ".join(theirs)), "attnscope: %s" % mine)


# --------------------------------------------------------------------------
# 2. The Annotated Transformer (batch-first, pre-norm, its own LayerNorm)

def clones(module, N):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder, src_embed, tgt_embed, generator):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.src_embed = src_embed
        self.tgt_embed = tgt_embed
        self.generator = generator

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)


class Generator(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=-1)


class LayerNorm(nn.Module):
    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.a_2 = nn.Parameter(torch.ones(features))
        self.b_2 = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class Encoder(nn.Module):
    def __init__(self, layer, N):
        super().__init__()
        self.layers = clones(layer, N)
        self.norm = LayerNorm(layer.size)

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class SublayerConnection(nn.Module):
    def __init__(self, size, dropout):
        super().__init__()
        self.norm = LayerNorm(size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


class EncoderLayer(nn.Module):
    def __init__(self, size, self_attn, feed_forward, dropout):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.sublayer = clones(SublayerConnection(size, dropout), 2)
        self.size = size

    def forward(self, x, mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayer[1](x, self.feed_forward)


class Decoder(nn.Module):
    def __init__(self, layer, N):
        super().__init__()
        self.layers = clones(layer, N)
        self.norm = LayerNorm(layer.size)

    def forward(self, x, memory, src_mask, tgt_mask):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.norm(x)


class DecoderLayer(nn.Module):
    def __init__(self, size, self_attn, src_attn, feed_forward, dropout):
        super().__init__()
        self.size = size
        self.self_attn = self_attn
        self.src_attn = src_attn
        self.feed_forward = feed_forward
        self.sublayer = clones(SublayerConnection(size, dropout), 3)

    def forward(self, x, memory, src_mask, tgt_mask):
        m = memory
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_mask))
        x = self.sublayer[1](x, lambda x: self.src_attn(x, m, m, src_mask))
        return self.sublayer[2](x, self.feed_forward)


def subsequent_mask(size):
    attn_shape = (1, size, size)
    return torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        super().__init__()
        self.d_k = d_model // h
        self.h = h
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)
        nbatches = query.size(0)
        query, key, value = [lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
                             for lin, x in zip(self.linears, (query, key, value))]
        x, self.attn = attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        return self.linears[-1](x)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x).relu()))


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class AnnotatedPE(nn.Module):
    def __init__(self, d_model, dropout, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


def make_model(src_vocab, tgt_vocab, N=6, d_model=512, d_ff=2048, h=8, dropout=0.1):
    c = copy.deepcopy
    attn = MultiHeadedAttention(h, d_model)
    ff = PositionwiseFeedForward(d_model, d_ff, dropout)
    position = AnnotatedPE(d_model, dropout)
    model = EncoderDecoder(
        Encoder(EncoderLayer(d_model, c(attn), c(ff), dropout), N),
        Decoder(DecoderLayer(d_model, c(attn), c(attn), c(ff), dropout), N),
        nn.Sequential(Embeddings(d_model, src_vocab), c(position)),
        nn.Sequential(Embeddings(d_model, tgt_vocab), c(position)),
        Generator(d_model, tgt_vocab))
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    return model


def annotated_greedy_decode(model, src, src_mask, max_len, start_symbol):
    memory = model.encode(src, src_mask)
    ys = torch.zeros(1, 1).fill_(start_symbol).type_as(src.data)
    for i in range(max_len - 1):
        out = model.decode(memory, src_mask, ys, subsequent_mask(ys.size(1)).type_as(src.data))
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.data[0]
        ys = torch.cat([ys, torch.zeros(1, 1).type_as(src.data).fill_(next_word)], dim=1)
    return ys.flatten().tolist()


def annotated_family():
    torch.manual_seed(2)
    # its Multi30k vocabularies: specials=["<s>", "</s>", "<blank>", "<unk>"]
    vocab = ["<s>", "</s>", "<blank>", "<unk>"] + WORDS
    BOS, EOS, PAD = 0, 1, 2
    d, H = 32, 4
    model = make_model(len(vocab), len(vocab), N=2, d_model=d, d_ff=64, h=H)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for src, tgt in copy_batches(150, list(range(4, len(vocab))), BOS, EOS, PAD, seed=3):
        tin, tout = tgt[:, :-1], tgt[:, 1:]
        out = model(src, tin, (src != PAD).unsqueeze(-2),
                    (tin != PAD).unsqueeze(-2) & subsequent_mask(tin.size(-1)))
        loss = F.nll_loss(model.generator(out).reshape(-1, len(vocab)), tout.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    family_dir("annotated")
    save_weights(model.state_dict(), "model")
    with open(path("vocab.json"), "w") as f:
        json.dump({t: i for i, t in enumerate(vocab)}, f)
    yaml = write_yaml("model", readme_yaml("annotated-transformer"))
    sent = "a small red house"
    ids = [BOS] + [vocab.index(w) for w in sent.split()] + [EOS]
    target = sent
    tids = [BOS] + [vocab.index(w) for w in target.split()]
    src, tgt = torch.tensor([ids]), torch.tensor([tids])
    S, T = len(ids), len(tids)
    hk = Hooks(list(model.named_modules()))
    with torch.no_grad():
        out = model(src, tgt, torch.ones(1, 1, S, dtype=torch.bool), subsequent_mask(T))
        lg = model.generator.proj(out)[0]
    hk.remove()
    ref = {"src.ids": np.array(ids), "tgt.ids": np.array(tids)}
    for side, n in (("src", S), ("tgt", T)):
        ref[side + ".embed"] = np0(hk.out[side + "_embed.0"][0])
        ref[side + ".pos"] = np0(getattr(model, side + "_embed")[1].pe[0, :n])
        ref[side + ".input"] = np0(hk.out[side + "_embed.1"][0])
    mem = hk.out["encoder"][0]
    for stack, n, L in (("encoder", S, model.encoder.layers), ("decoder", T, model.decoder.layers)):
        for i, layer in enumerate(L):
            p, m = "%s.%d" % (stack, i), "%s.layers.%d" % (stack, i)
            subs = [("self_attn", layer.self_attn)]
            if stack == "decoder":
                subs.append(("cross_attn", layer.src_attn))
            for k, (nm, a) in enumerate(subs):
                y = hk.out["%s.sublayer.%d.norm" % (m, k)][0]
                ref["%s.norm%d" % (p, k + 1)] = np0(y)
                kv = mem if nm == "cross_attn" else y
                mask = causal(n) if stack == "decoder" and nm == "self_attn" else \
                    torch.zeros(n, kv.shape[0], dtype=torch.bool)
                li = a.linears
                wt = attn_ref(ref, "%s.%s" % (p, nm), y, kv, li[0].weight, li[0].bias,
                              li[1].weight, li[1].bias, li[2].weight, li[2].bias,
                              li[3].weight, li[3].bias, H, mask)
                ok(torch.allclose(wt, a.attn[0], atol=1e-6), "annotated: %s.%s.weights: the "
                   "reference equals MultiHeadedAttention's own p_attn" % (p, nm))
                ref["%s.add%d" % (p, k + 1)] = np0(hk.out["%s.sublayer.%d" % (m, k)][0])
            k = len(subs)
            ref["%s.norm%d" % (p, k + 1)] = np0(hk.out["%s.sublayer.%d.norm" % (m, k)][0])
            ref[p + ".ffn.hidden"] = np0(F.relu(hk.out[m + ".feed_forward.w_1"][0]))
            ref[p + ".ffn.out"] = np0(hk.out[m + ".feed_forward.w_2"][0])
            ref["%s.add%d" % (p, k + 1)] = np0(hk.out["%s.sublayer.%d" % (m, k)][0])
    ref["encoder.norm"] = ref["memory"] = np0(mem)
    ref["decoder.norm"] = np0(hk.out["decoder"][0])
    ref["logits"] = np0(lg)
    ref["probs"] = np0(torch.softmax(lg, -1))
    ref["loss"] = np0(F.cross_entropy(lg, torch.tensor(tids[1:] + [EOS]), reduction="none"))
    got, meta = dump(yaml, sent, "--target", target)
    ok(got is not None, "annotated: dump runs", meta)
    if got is not None:
        compare("annotated", got, ref)

    for s in (sent, "the cat sees the dog", "blue"):
        toks = [BOS] + [vocab.index(w) for w in s.split()] + [EOS]
        src = torch.tensor([toks])
        with torch.no_grad():
            ys = annotated_greedy_decode(model, src, torch.ones(1, 1, len(toks), dtype=torch.bool),
                                         len(toks) + 5, BOS)
        theirs = [vocab[i] for i in ys[1:]]
        if "</s>" in theirs:
            theirs = theirs[:theirs.index("</s>")]
        rc, out, err = run("translate", "--model", yaml, "--json", "--max-len",
                           str(len(toks) + 4), s)
        mine = json.loads(out)["output"] if rc == 0 else err
        ok(mine == theirs, "annotated: greedy \"%s\" equals its greedy_decode (to </s>): %s"
           % (s, " ".join(theirs)), "attnscope: %s" % mine)


# --------------------------------------------------------------------------
# 3. nanoGPT and minGPT (decoder-only, no specials, character vocabulary)

class GPTLayerNorm(nn.Module):
    """nanoGPT's LayerNorm with an optional bias."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class NewGELU(nn.Module):
    """minGPT's tanh GELU."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_attn = nn.Linear(cfg["n_embd"], 3 * cfg["n_embd"], bias=cfg["bias"])
        self.c_proj = nn.Linear(cfg["n_embd"], cfg["n_embd"], bias=cfg["bias"])
        self.attn_dropout = nn.Dropout(0.0)
        self.resid_dropout = nn.Dropout(0.0)
        self.n_head, self.n_embd = cfg["n_head"], cfg["n_embd"]
        # torch 1.13 has no scaled_dot_product_attention: the mask buffer
        bs = cfg["block_size"]
        self.register_buffer("bias", torch.tril(torch.ones(bs, bs)).view(1, 1, bs, bs))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        self.att = att
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg["n_embd"], 4 * cfg["n_embd"], bias=cfg["bias"])
        self.gelu = NewGELU() if cfg["mingpt"] else nn.GELU()
        self.c_proj = nn.Linear(4 * cfg["n_embd"], cfg["n_embd"], bias=cfg["bias"])
        self.dropout = nn.Dropout(0.0)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        LN = (lambda n: nn.LayerNorm(n)) if cfg["mingpt"] else (lambda n: GPTLayerNorm(n, cfg["bias"]))
        self.ln_1 = LN(cfg["n_embd"])
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = LN(cfg["n_embd"])
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        LN = nn.LayerNorm(cfg["n_embd"]) if cfg["mingpt"] else GPTLayerNorm(cfg["n_embd"], cfg["bias"])
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
            wpe=nn.Embedding(cfg["block_size"], cfg["n_embd"]),
            drop=nn.Dropout(0.0),
            h=nn.ModuleList([Block(cfg) for _ in range(cfg["n_layer"])]),
            ln_f=LN))
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
        if not cfg["mingpt"]:
            self.transformer.wte.weight = self.lm_head.weight   # nanoGPT ties them
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            bs = self.cfg["block_size"]
            idx_cond = idx if idx.size(1) <= bs else idx[:, -bs:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


TEXT = ("to be or not to be that is the question whether tis nobler in the mind "
        "to suffer the slings and arrows of outrageous fortune\nor to take arms ") * 4


def gpt_family(label, bias, mingpt, compiled, vocab_kind):
    torch.manual_seed(4)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    cfg = dict(n_layer=2, n_head=4, n_embd=32, block_size=32, vocab_size=len(chars),
               bias=bias, mingpt=mingpt)
    model = GPT(cfg)
    data = torch.tensor([stoi[c] for c in TEXT])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(5)
    for it in range(120):
        ix = torch.randint(len(data) - 33, (16,), generator=g)
        x = torch.stack([data[i:i + 32] for i in ix])
        y = torch.stack([data[i + 1:i + 33] for i in ix])
        _, loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    family_dir(label.replace(" ", "-").replace("(", "").replace(")", "")
               .replace("=", "").replace(",", ""))
    sd = model.state_dict()
    if compiled:      # what torch.compile's wrapper saves
        sd = {"_orig_mod." + k: v for k, v in sd.items()}
    if mingpt:        # minGPT saves the state_dict
        save_weights(sd, "model")
        with open(path("vocab.txt"), "w") as f:   # one token a line, with escapes
            for c in chars:
                f.write(c.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") + "\n")
        yaml = write_yaml("model", readme_yaml("mingpt"))
    else:             # nanoGPT's train.py checkpoint and prepare.py's meta.pkl
        save_weights({"model": sd, "optimizer": opt.state_dict(),
                      "model_args": {k: cfg[k] for k in cfg if k != "mingpt"},
                      "iter_num": 120, "best_val_loss": torch.tensor(1.5),
                      "config": {"dataset": "shakespeare_char", "compile": compiled}}, "ckpt")
        yaml = readme_yaml("nanogpt")
        if vocab_kind == "json":      # the same itos as a JSON list
            with open(path("vocab.json"), "w") as f:
                json.dump(chars, f)
            yaml = yaml.replace("meta.pkl", "vocab.json")
        else:
            with open(path("meta.pkl"), "wb") as f:
                pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)),
                             "stoi": stoi}, f)
        yaml = write_yaml("model", yaml)
    prompt = "to be or not"
    ids = [stoi[c] for c in prompt]
    idx = torch.tensor([ids])
    hk = Hooks(list(model.named_modules()))
    with torch.no_grad():
        logits, _ = model(idx)
    hk.remove()
    lg = logits[0]
    T = len(ids)
    ref = {"tgt.ids": np.array(ids)}
    ref["tgt.embed"] = np0(hk.out["transformer.wte"][0])
    ref["tgt.pos"] = np0(hk.out["transformer.wpe"])
    ref["tgt.input"] = ref["tgt.embed"] + ref["tgt.pos"]
    for i, blk in enumerate(model.transformer.h):
        p, m = "decoder.%d" % i, "transformer.h.%d" % i
        y = hk.out[m + ".ln_1"][0]
        ref[p + ".norm1"] = np0(y)
        a = blk.attn
        d = 32
        w = a.c_attn.weight
        b = a.c_attn.bias if bias else None
        sl = (lambda t, j: t[j * d:(j + 1) * d] if t is not None else None)
        wt = attn_ref(ref, p + ".self_attn", y, y, sl(w, 0), sl(b, 0), sl(w, 1), sl(b, 1),
                      sl(w, 2), sl(b, 2), a.c_proj.weight, a.c_proj.bias, 4, causal(T))
        ok(torch.allclose(wt, a.att[0], atol=1e-6), "%s: %s.self_attn.weights: the reference "
           "equals CausalSelfAttention's own att" % (label, p))
        ref[p + ".add1"] = np0(hk.inp[m + ".ln_2"][0][0])
        ref[p + ".norm2"] = np0(hk.out[m + ".ln_2"][0])
        ref[p + ".ffn.hidden"] = np0(hk.out[m + ".mlp.gelu"][0])
        ref[p + ".ffn.out"] = np0(hk.out[m + ".mlp.c_proj"][0])
        ref[p + ".add2"] = np0(hk.out[m][0])
    ref["decoder.norm"] = np0(hk.out["transformer.ln_f"][0])
    ref["logits"] = np0(lg)
    ref["probs"] = np0(torch.softmax(lg, -1))
    # no <s>, no </s>: positions 0 … T−2 have a next token
    ref["loss"] = np0(F.cross_entropy(lg[:-1], torch.tensor(ids[1:]), reduction="none"))
    got, meta = dump(yaml, prompt)
    ok(got is not None, "%s: dump runs" % label, meta)
    if got is not None:
        compare(label, got, ref)
    for p in (prompt, "the slings and", "o"):
        n = 10
        out = model.generate(torch.tensor([[stoi[c] for c in p]]), n, top_k=1)[0].tolist()
        theirs = [chars[i] for i in out[len(p):]]
        rc, o, err = run("translate", "--model", yaml, "--json", "--max-len", str(n), p)
        mine = json.loads(o)["output"] if rc == 0 else err
        ok(mine == theirs, "%s: greedy \"%s\" equals generate(top_k=1): %r"
           % (label, p, "".join(theirs)), "attnscope: %r" % (mine,))


# --------------------------------------------------------------------------
# 4. A text classifier as users write it on nn.TransformerEncoder

class ClassifierPE(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):     # [B, S, d]
        return x + self.pe[: x.size(1)]


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, d_model, nhead, d_ff, nlayers, nclass, pad):
        super().__init__()
        self.pad = pad
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad)
        self.pos_encoder = ClassifierPE(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, d_ff, dropout=0.1, batch_first=True)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers)
        self.classifier = nn.Linear(d_model, nclass)

    def forward(self, x):
        pad = x == self.pad
        h = self.pos_encoder(self.embedding(x) * math.sqrt(self.d_model))
        h = self.transformer_encoder(h, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1)
        return self.classifier(pooled)


def classifier_family():
    torch.manual_seed(6)
    vocab = ["<pad>", "<unk>", "good", "bad", "movie", "great", "awful", "plot", "the", "was", "a"]
    model = TextClassifier(len(vocab), 32, 4, 64, 2, 3, 0)
    model.eval()
    family_dir("classifier")
    save_weights(model.state_dict(), "classifier")
    with open(path("vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    yaml = write_yaml("model", readme_yaml("classifier"))
    for sent, pad_to in (("the movie was great", 0), ("a bad plot", 6)):
        ids = [vocab.index(w) for w in sent.split()]
        n = len(ids)
        if pad_to:
            ids += [0] * (pad_to - n)
        x = torch.tensor([ids])
        S = len(ids)
        hk = Hooks(list(model.named_modules()))
        with torch.enable_grad():
            logits = model(x)[0]
        hk.remove()
        ref = {"src.ids": np.array(ids)}
        ref["src.embed"] = np0(hk.out["embedding"][0] * math.sqrt(32))
        ref["src.pos"] = np0(model.pos_encoder.pe[:S])
        ref["src.input"] = np0(hk.out["pos_encoder"][0])
        for i, layer in enumerate(model.transformer_encoder.layers):
            p, m = "encoder.%d" % i, "transformer_encoder.layers.%d" % i
            xin = hk.inp[m][0][0]
            sa = layer.self_attn
            w, b, d = sa.in_proj_weight, sa.in_proj_bias, 32
            mask = torch.zeros(S, S, dtype=torch.bool)
            mask[:, n:] = True
            attn_ref(ref, p + ".self_attn", xin, xin, w[:d], b[:d], w[d:2 * d], b[d:2 * d],
                     w[2 * d:], b[2 * d:], sa.out_proj.weight, sa.out_proj.bias, 4, mask)
            ref[p + ".add1"] = np0(hk.inp[m + ".norm1"][0][0])
            ref[p + ".norm1"] = np0(hk.out[m + ".norm1"][0])
            ref[p + ".ffn.hidden"] = np0(F.relu(hk.out[m + ".linear1"][0]))
            ref[p + ".ffn.out"] = np0(hk.out[m + ".linear2"][0])
            ref[p + ".add2"] = np0(hk.inp[m + ".norm2"][0][0])
            ref[p + ".norm2"] = np0(hk.out[m + ".norm2"][0])
        h = hk.out["transformer_encoder"][0]
        ref["memory"] = np0(h)
        ref["pooled"] = np0(hk.inp["classifier"][0][0])
        ref["class_logits"] = np0(logits)
        ref["class_probs"] = np0(torch.softmax(logits, -1))
        extra = ("--pad-to", str(pad_to)) if pad_to else ()
        got, meta = dump(yaml, sent, *extra)
        what = "classifier%s" % (" --pad-to %d" % pad_to if pad_to else "")
        ok(got is not None, "%s: dump runs" % what, meta)
        if got is not None:
            compare(what, got, ref)
        rc, out, err = run("translate", "--model", yaml, "--json", *extra, sent)
        res = json.loads(out) if rc == 0 else {}
        probs = torch.softmax(logits, -1).detach().numpy()
        labels = ["negative", "neutral", "positive"]
        ok(rc == 0 and res.get("labels") == labels and
           np.allclose(res.get("probs"), probs, atol=1e-5) and
           res.get("output") == labels[int(probs.argmax())],
           "%s: translate --json prints the label distribution" % what, out + err)


# --------------------------------------------------------------------------
# bad input: the whole mismatch list, and the layout that fits

def bad_input():
    family_dir("tutorial")
    text = open(path("model.yaml")).read()
    # the tutorial's file read as nn.Transformer's names
    y = write_yaml("tutorial-nolayout", re.sub(r"^layout: .*\n", "", text, flags=re.M))
    rc, out, err = run("info", "--model", y)
    lines = err.strip().splitlines()
    ok(rc == 1 and any("unexpected tensor src_tok_emb.embedding.weight [14, 32]" in l for l in lines) and
       any("unexpected tensor tgt_tok_emb.embedding.weight [14, 32]" in l for l in lines) and
       any("missing tensor src_embed.weight [14, 32]" in l for l in lines),
       "wrong layout: exit 1, every unexpected and missing tensor listed", err)
    ok(any("fit layout: pytorch-tutorial" in l for l in lines),
       "wrong layout: the layout that fits is suggested", err)
    # a nanoGPT file under the tutorial's layout
    family_dir("nanogpt")
    g = open(path("model.yaml")).read()
    y = write_yaml("gpt-wrong", re.sub(r"^layout: .*", "layout: annotated-transformer", g, flags=re.M)
                   .replace("d_model: 32", "architecture: decoder-only\nd_model: 32\n"
                            "positional_encoding: learned\nnorm: pre"))
    rc, out, err = run("info", "--model", y)
    lines = err.strip().splitlines()
    n_unexp = sum("unexpected tensor" in l for l in lines)
    ok(rc == 1 and n_unexp >= 16 and any("fit layout: nanogpt" in l for l in lines),
       "nanoGPT under the wrong layout: %d unexpected tensors listed, nanogpt suggested" % n_unexp,
       err)
    # wrong shapes: d_ff 48 instead of 64
    family_dir("tutorial")
    y = write_yaml("tutorial-shape", text.replace("d_ff: 64 ", "d_ff: 48 "))
    rc, out, err = run("info", "--model", y)
    n_shape = sum("has shape" in l for l in err.splitlines())
    ok(rc == 1 and n_shape == 3 * 4, "wrong d_ff: all %d misshapen tensors listed (3 a layer)" % n_shape, err)
    # a tensor missing
    sd = torch.load(path("transformer.pt")) if PT else None
    if not PT:
        t, _ = stio.read(path("transformer.safetensors"))
        del t["transformer.decoder.layers.1.linear2.weight"]
        stio.write(path("tutorial-cut.safetensors"), t)
        cut = "tutorial-cut.safetensors"
    else:
        del sd["transformer.decoder.layers.1.linear2.weight"]
        torch.save(sd, path("tutorial-cut.pt"))
        cut = "tutorial-cut.pt"
    y = write_yaml("tutorial-cut", text.replace("weights: transformer.", "weights: %s\n#" % cut))
    rc, out, err = run("info", "--model", y)
    ok(rc == 1 and "missing tensor decoder.layers.1.linear2.weight [32, 64] "
       "(as transformer.decoder.layers.1.linear2.weight in the file)" in err,
       "a missing tensor: named with its shape and the file's name", err)


def main():
    tutorial_family()
    annotated_family()
    gpt_family("nanogpt", True, False, False, "pkl")
    gpt_family("nanogpt (bias=False, compiled)", False, False, True, "json")
    gpt_family("mingpt", True, True, False, "text")
    classifier_family()
    bad_input()
    print("1..%d" % n_test)
    subprocess.run(["rm", "-rf", TMP])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
