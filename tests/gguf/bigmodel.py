"""bigmodel.py - a random GGUF model of a real model's shape, for measuring
load time, memory and a pass (README "GGUF files: what to expect"):

  bigmodel.py OUT.gguf [qwen2.5-0.5b]

Qwen2.5-0.5B's shape (qwen2: d 896, 24 layers, 14 heads, 2 key/value heads,
d_ff 4864, Q/K/V biases, tied embeddings, 151,936 tokens of byte-level BPE
with 151,387 merges), weights N(0, 0.02) quantised as models.q4_k_m does
(Q6_K for attn_v and ffn_down, Q4_K where rows are whole super-blocks,
Q8_0 elsewhere: 896 is not a multiple of 256, as llama.cpp falls back).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggufw as g      # noqa: E402
import models          # noqa: E402

SHAPES = {'qwen2.5-0.5b': dict(d=896, layers=24, heads=14, kv=2, ff=4864, vocab=151936,
                               ctx=32768, theta=1000000.0, eps=1e-6)}


def vocab(n, rng):
    """256 byte symbols, merges of random pairs up to n − 22 tokens, then
    control tokens."""
    toks = models.gpt2_vocab()[0][:256]
    seen, merges = set(toks), []
    while len(toks) < n - 22:
        a, b = toks[rng.integers(len(toks))], toks[rng.integers(len(toks))]
        if len(a) + len(b) > 12 or a + b in seen:
            continue
        seen.add(a + b)
        toks.append(a + b)
        merges.append(a + ' ' + b)
    types = [1] * len(toks) + [3] * 22
    toks += ['<|special_%d|>' % i for i in range(22)]
    return toks, merges, types


def main():
    out = sys.argv[1]
    c = SHAPES[sys.argv[2] if len(sys.argv) > 2 else 'qwen2.5-0.5b']
    rng = np.random.default_rng(0)
    toks, merges, types = vocab(c['vocab'], rng)
    d, h, kv, ff = c['d'], c['heads'], c['kv'], c['ff']
    dk = d // h
    w = g.GGUFWriter()
    w.add('general.architecture', g.STRING, 'qwen2').add('general.name', g.STRING,
                                                        'random-qwen2.5-0.5b')
    for k, v, vt in (('context_length', c['ctx'], g.U32), ('embedding_length', d, g.U32),
                     ('block_count', c['layers'], g.U32), ('feed_forward_length', ff, g.U32),
                     ('attention.head_count', h, g.U32), ('attention.head_count_kv', kv, g.U32),
                     ('rope.freq_base', c['theta'], g.FLOAT32),
                     ('attention.layer_norm_rms_epsilon', c['eps'], g.FLOAT32)):
        w.add('qwen2.' + k, vt, v)
    w.add('tokenizer.ggml.model', g.STRING, 'gpt2').add('tokenizer.ggml.pre', g.STRING, 'qwen2')
    w.add('tokenizer.ggml.tokens', g.ARRAY, (g.STRING, toks))
    w.add('tokenizer.ggml.token_type', g.ARRAY, (g.I32, types))
    w.add('tokenizer.ggml.merges', g.ARRAY, (g.STRING, merges))
    w.add('tokenizer.ggml.eos_token_id', g.U32, len(toks) - 22)
    w.add('tokenizer.ggml.add_bos_token', g.BOOL, False)

    def put(name, *shape):
        x = (rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02))
        if len(shape) == 1:
            x = x + np.float32(1) if name.endswith('norm.weight') else x
        t = models.q4_k_m(name, shape)
        w.add_tensor(name, t, list(reversed(shape)), g.quantize(t, x))

    put('token_embd.weight', c['vocab'], d)
    put('output_norm.weight', d)
    for i in range(c['layers']):
        p = 'blk.%d.' % i
        put(p + 'attn_norm.weight', d)
        put(p + 'ffn_norm.weight', d)
        for n, rows in (('attn_q', h * dk), ('attn_k', kv * dk), ('attn_v', kv * dk)):
            put(p + n + '.weight', rows, d)
            put(p + n + '.bias', rows)
        put(p + 'attn_output.weight', d, h * dk)
        put(p + 'ffn_gate.weight', ff, d)
        put(p + 'ffn_up.weight', ff, d)
        put(p + 'ffn_down.weight', d, ff)
    w.write(out)


if __name__ == '__main__':
    main()
