#!/usr/bin/python3
"""Trains models/en-pt-llama: the lectures' English → Portuguese corpus
(examples/corpus/en-pt.train.tsv, from `make corpus`) learned by a small
decoder-only model of today's kind — Llama's block: pre-RMSNorm, rotary
position embeddings, grouped-query attention (4 query heads sharing 2
key/value heads), a SwiGLU feed-forward, no biases, the output tied to the
embedding — so that a lecture can set one block of it beside the paper's.

The model is written here in plain PyTorch from the same facts attnscope
computes (Hugging Face's modeling_llama.py), and saved under Llama's
tensor names; attnscope's own trainer learns the paper's models only.  A
line of the corpus becomes one sequence:

    <s> i love you very much = eu te amo muito </s>

and the loss counts the Portuguese words and </s> only: the model learns to
continue "… =" with the translation.  `make en-pt-llama` runs this (a few
minutes on two cores) and prints the held-out exact-match rate.

  train.py CORPUS_DIR OUT_DIR [--steps N] [--seed S]
"""
import argparse, json, math, os, struct, sys, time

import torch
from torch import nn

D, HEADS, KV, HD, LAYERS, FF, EPS, THETA = 64, 4, 2, 16, 2, 176, 1e-6, 10000.0
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "="]


def read_pairs(path):
    out = []
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2:
            out.append((f[0].split(), f[1].split()))
    return out


def vocabulary(pairs):
    seen, toks = set(SPECIALS), list(SPECIALS)
    for side in (0, 1):
        for p in pairs:
            for w in p[side]:
                if w not in seen:
                    seen.add(w)
                    toks.append(w)
    return toks


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * self.weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(D, HEADS * HD, bias=False)
        self.k_proj = nn.Linear(D, KV * HD, bias=False)
        self.v_proj = nn.Linear(D, KV * HD, bias=False)
        self.o_proj = nn.Linear(HEADS * HD, D, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, HEADS, HD).transpose(1, 2)
        k = self.k_proj(x).view(B, T, KV, HD).transpose(1, 2)
        v = self.v_proj(x).view(B, T, KV, HD).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(HEADS // KV, dim=1)
        v = v.repeat_interleave(HEADS // KV, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(HD) + mask
        return self.o_proj((s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, HEADS * HD))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(D, FF, bias=False)
        self.up_proj = nn.Linear(D, FF, bias=False)
        self.down_proj = nn.Linear(FF, D, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm(D)
        self.self_attn = Attention()
        self.post_attention_layernorm = RMSNorm(D)
        self.mlp = MLP()

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, V):
        super().__init__()
        self.embed_tokens = nn.Embedding(V, D)
        nn.init.normal_(self.embed_tokens.weight, std=0.02)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = RMSNorm(D)
        inv = 1.0 / (THETA ** (torch.arange(0, HD, 2).float() / HD))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, ids):
        T = ids.shape[1]
        ang = torch.arange(T).float()[:, None] * self.inv_freq[None]
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos(), emb.sin()
        mask = torch.full((T, T), float("-inf")).triu(1)
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.norm(x) @ self.embed_tokens.weight.T


def batches(pairs, ids, bs, g):
    while True:
        perm = torch.randperm(len(pairs), generator=g)
        for i in range(0, len(perm) - bs + 1, bs):
            seqs, labs = [], []
            for j in perm[i:i + bs].tolist():
                en, pt = pairs[j]
                s = [1] + [ids[w] for w in en] + [4] + [ids[w] for w in pt] + [2]
                lab = [-100] * (len(en) + 1) + [ids[w] for w in pt] + [2] + [-100]
                seqs.append(s)
                labs.append(lab[1:] + [-100] if False else lab)
            T = max(len(s) for s in seqs)
            x = torch.zeros(len(seqs), T, dtype=torch.long)
            y = torch.full((len(seqs), T), -100, dtype=torch.long)
            for k, (s, lab) in enumerate(zip(seqs, labs)):
                x[k, :len(s)] = torch.tensor(s)
                # position t predicts token t + 1
                y[k, :len(s) - 1] = torch.tensor(lab[:len(s) - 1])
            yield x, y


def greedy(model, ids, toks, en, limit=30):
    seq = [1] + [ids.get(w, 3) for w in en] + [4]
    out = []
    with torch.no_grad():
        for _ in range(limit):
            nxt = int(model(torch.tensor([seq]))[0, -1].argmax())
            if nxt == 2:
                break
            out.append(toks[nxt])
            seq.append(nxt)
    return out


def save(model, toks, out):
    os.makedirs(out, exist_ok=True)
    sd = {k: v.detach().float().contiguous() for k, v in model.state_dict().items()}
    hdr, blobs, off = {}, [], 0
    for k in sorted(sd):
        b = sd[k].numpy().tobytes()
        hdr["model." + k] = {"dtype": "F32", "shape": list(sd[k].shape),
                             "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hdr["__metadata__"] = {"format": "pt", "trained_by": "examples/llama/train.py"}
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(out, "en-pt-llama.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    with open(os.path.join(out, "en-pt-llama.vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in toks))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("corpus")
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float, default=5e-3)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    train = read_pairs(os.path.join(a.corpus, "en-pt.train.tsv"))
    held = read_pairs(os.path.join(a.corpus, "en-pt.heldout.tsv"))
    toks = vocabulary(train)
    ids = {t: i for i, t in enumerate(toks)}
    model = Llama(len(toks))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 200) * 0.5 * (1 + math.cos(math.pi * min(s, a.steps) / a.steps)))
    g = torch.Generator().manual_seed(a.seed)
    t0 = time.time()
    for step, (x, y) in zip(range(a.steps), batches(train, ids, a.batch, g)):
        loss = nn.functional.cross_entropy(model(x).view(-1, len(toks)), y.view(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 250 == 0 or step == a.steps - 1:
            print("step %d loss %.4f (%.0f s)" % (step, loss.item(), time.time() - t0), flush=True)
    model.eval()
    exact = sum(greedy(model, ids, toks, en) == pt for en, pt in held)
    print("held-out exact match: %d of %d (%.2f%%), %.1f minutes" %
          (exact, len(held), 100.0 * exact / len(held), (time.time() - t0) / 60))
    for s in ("i love you very much", "your cat is a lovely cat"):
        print("%s = %s" % (s, " ".join(greedy(model, ids, toks, s.split()))))
    save(model, toks, a.out)


if __name__ == "__main__":
    sys.exit(main())
