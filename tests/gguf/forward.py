"""forward.py - a plain numpy forward pass of the five decoder families in
Hugging Face's terms (rotate-half rotary embedding, grouped-query
attention), on Hugging Face tensors: what llama.cpp computes from the GGUF
file when attnscope's un-permuted, dequantised tensors are right.

  probs(arch, cfg, tensors, ids) -> float64 [T, vocab]
"""
import numpy as np


def rms(x, w, eps, gemma=False):
    y = x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    return y * (1 + w if gemma else w)


def rope(x, theta, dk):             # x [h, T, dk], Hugging Face's halves
    t = np.arange(x.shape[1])[:, None]
    inv = theta ** (-np.arange(0, dk, 2) / dk)
    f = t * inv[None, :]
    cos, sin = np.cos(np.concatenate([f, f], 1)), np.sin(np.concatenate([f, f], 1))
    rot = np.concatenate([-x[..., dk // 2:], x[..., :dk // 2]], -1)
    return x * cos + rot * sin


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def probs(arch, c, t, ids):
    W = {k: v.astype(np.float64) for k, v in t.items()}
    d, h, kv, dk, eps = c['d'], c['heads'], c['kv'], c['dk'], c['eps']
    x = W['model.embed_tokens.weight'][ids]
    if arch == 'gemma':
        x = x * np.sqrt(d)
    T = len(ids)
    mask = np.triu(np.full((T, T), -np.inf), 1)
    g = arch == 'gemma'
    for i in range(c['layers']):
        p = 'model.layers.%d.' % i
        a = rms(x, W[p + 'input_layernorm.weight'], eps, g)
        if arch == 'phi3':
            qkv = a @ W[p + 'self_attn.qkv_proj.weight'].T
            q, k, v = np.split(qkv, [h * dk, (h + kv) * dk], 1)
        else:
            q, k, v = (a @ W[p + 'self_attn.%s_proj.weight' % n].T +
                       W.get(p + 'self_attn.%s_proj.bias' % n, 0) for n in 'qkv')
        q = q.reshape(T, h, dk).transpose(1, 0, 2)
        k = k.reshape(T, kv, dk).transpose(1, 0, 2)
        v = v.reshape(T, kv, dk).transpose(1, 0, 2)
        if arch == 'qwen3':
            q = rms(q, W[p + 'self_attn.q_norm.weight'], eps)
            k = rms(k, W[p + 'self_attn.k_norm.weight'], eps)
        q, k = rope(q, c['theta'], dk), rope(k, c['theta'], dk)
        k, v = np.repeat(k, h // kv, 0), np.repeat(v, h // kv, 0)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(dk) + mask
        s = np.exp(s - s.max(-1, keepdims=True))
        o = (s / s.sum(-1, keepdims=True)) @ v
        x = x + o.transpose(1, 0, 2).reshape(T, h * dk) @ W[p + 'self_attn.o_proj.weight'].T
        m = rms(x, W[p + 'post_attention_layernorm.weight'], eps, g)
        if arch == 'phi3':
            gate, up = np.split(m @ W[p + 'mlp.gate_up_proj.weight'].T, 2, 1)
        else:
            gate, up = m @ W[p + 'mlp.gate_proj.weight'].T, m @ W[p + 'mlp.up_proj.weight'].T
        act = gelu_tanh(gate) if g else gate / (1 + np.exp(-gate))
        x = x + (act * up) @ W[p + 'mlp.down_proj.weight'].T
    x = rms(x, W['model.norm.weight'], eps, g)
    out = W.get('lm_head.weight', W['model.embed_tokens.weight'])
    z = x @ out.T
    z = np.exp(z - z.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)
