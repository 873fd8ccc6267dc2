"""models.py - tiny random decoder-only models written as GGUF files the
way llama.cpp's convert_hf_to_gguf.py writes them (tensor names, the
<arch>.* keys, llama's Q/K row permutation, gemma's norms plus one), with
the Hugging Face tensors they came from.

  make(arch, path, seed, types=..., vocab='llama'|'gpt2', version=3)
      -> (hf, meta): hf {HF name: float32 array}, meta {d, heads, ...}
"""
import numpy as np
import ggufw as g

F32 = np.float32


def permute(w, n_head):
    """llama.cpp's LlamaModel.permute: Hugging Face's rotate-half rows to
    interleaved pairs, per head."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def unpermute(w, n_head):
    return (w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def spm_vocab(n_extra=40):
    """SentencePiece-style: <unk> <s> </s>, 256 byte tokens, pieces, two
    control tokens."""
    toks = ['<unk>', '<s>', '</s>'] + ['<0x%02X>' % i for i in range(256)]
    types = [2, 3, 3] + [6] * 256
    pieces = ['\u2581', '\u2581a', '\u2581the', '\u2581cat', 'e', 't', 'a', 'o', 'n', 's',
              '\u2581s', '\u2581c', 'at', 'he', 'th', '\u2581t', 'h', 'c', 'i', 'r',
              '\u2581sat', '\u2581on', '\u2581mat', 'm', '\u2581m', 'ol', '\u00e1', 'l',
              '\u2581Ol\u00e1', ',', '.', '\u2581tudo', '\u2581bem', '?', 'd', 'u', 'b',
              'O', 'T', 'H'][:n_extra]
    toks += pieces
    types += [1] * len(pieces)
    scores = [0.0, 0.0, 0.0] + [0.0] * 256 + [-float(i) for i in range(len(pieces))]
    # Phi-3's end tokens: llama.cpp's phi3 vocabulary looks them up
    return toks + ['<|endoftext|>', '<|end|>'], scores + [0.0, 0.0], types + [3, 3]


def gpt2_vocab():
    """Byte-level BPE: the 256 byte symbols of GPT-2, merges of a few pairs."""
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(0xa1, 0xac + 1)) + \
        list(range(0xae, 0xff + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    byte_sym = [chr(c) for _, c in sorted(zip(bs, cs))]
    merges = ['\u0120 t', 'h e', '\u0120t he', '\u0120 c', 'a t', '\u0120c at',
              '\u0120 s', '\u0120s at', 'o n', '\u0120 on']
    toks = byte_sym + [m.replace(' ', '') for m in merges] + ['<|endoftext|>']
    types = [1] * (len(toks) - 1) + [3]
    return toks, merges, types


def config(arch):
    c = dict(d=256, layers=2, heads=4, kv=2, ff=512, ctx=256, theta=10000.0, eps=1e-5)
    if arch == 'qwen3':
        c.update(dk=128, theta=1000000.0, eps=1e-6)   # head_dim apart from d / h
    if arch == 'gemma':
        c.update(kv=1, dk=64, eps=1e-6)
    if arch == 'phi3':
        c.update(kv=4)
    c.setdefault('dk', c['d'] // c['heads'])
    return c


def hf_tensors(arch, c, vocab, rng):
    """Random Hugging Face tensors (PyTorch shapes) of the tiny model."""
    d, dk, h, kv, ff = c['d'], c['dk'], c['heads'], c['kv'], c['ff']
    r = lambda *s: (rng.standard_normal(s) * 0.08).astype(F32)
    norm = lambda n: (1 + rng.integers(-64, 64, n) / 256).astype(F32)
    if arch == 'gemma':   # Gemma multiplies by 1 + w: small w, exact in F32
        norm = lambda n: (rng.integers(-64, 64, n) / 256).astype(F32)
    t = {'model.embed_tokens.weight': r(vocab, d), 'model.norm.weight': norm(d)}
    for i in range(c['layers']):
        p = 'model.layers.%d.' % i
        t[p + 'input_layernorm.weight'] = norm(d)
        t[p + 'post_attention_layernorm.weight'] = norm(d)
        t[p + 'self_attn.o_proj.weight'] = r(d, h * dk)
        t[p + 'mlp.down_proj.weight'] = r(d, ff)
        if arch == 'phi3':
            t[p + 'self_attn.qkv_proj.weight'] = r((h + 2 * kv) * dk, d)
            t[p + 'mlp.gate_up_proj.weight'] = r(2 * ff, d)
            continue
        t[p + 'self_attn.q_proj.weight'] = r(h * dk, d)
        t[p + 'self_attn.k_proj.weight'] = r(kv * dk, d)
        t[p + 'self_attn.v_proj.weight'] = r(kv * dk, d)
        t[p + 'mlp.gate_proj.weight'] = r(ff, d)
        t[p + 'mlp.up_proj.weight'] = r(ff, d)
        if arch in ('qwen2', 'llama-bias'):
            for k, n in (('q', h), ('k', kv), ('v', kv)):
                t[p + 'self_attn.%s_proj.bias' % k] = r(n * dk)
        if arch == 'qwen3':
            t[p + 'self_attn.q_norm.weight'] = norm(dk)
            t[p + 'self_attn.k_norm.weight'] = norm(dk)
    if arch not in ('gemma',):
        t['lm_head.weight'] = r(vocab, d)
    return t


GGUF_NAME = [('model.embed_tokens.weight', 'token_embd.weight'),
             ('model.norm.weight', 'output_norm.weight'), ('lm_head.weight', 'output.weight')]
BLOCK_NAME = [('input_layernorm', 'attn_norm'), ('post_attention_layernorm', 'ffn_norm'),
              ('self_attn.q_proj', 'attn_q'), ('self_attn.k_proj', 'attn_k'),
              ('self_attn.v_proj', 'attn_v'), ('self_attn.o_proj', 'attn_output'),
              ('self_attn.qkv_proj', 'attn_qkv'), ('self_attn.q_norm', 'attn_q_norm'),
              ('self_attn.k_norm', 'attn_k_norm'), ('mlp.gate_proj', 'ffn_gate'),
              ('mlp.up_proj', 'ffn_up'), ('mlp.gate_up_proj', 'ffn_up'),
              ('mlp.down_proj', 'ffn_down')]


def gguf_name(hf):
    for a, b in GGUF_NAME:
        if hf == a:
            return b
    parts = hf.split('.')
    mid, suffix = '.'.join(parts[3:-1]), parts[-1]
    for a, b in BLOCK_NAME:
        if mid == a:
            return 'blk.%s.%s.%s' % (parts[2], b, suffix)
    raise KeyError(hf)


def q4_k_m(name, shape):
    """llama.cpp's Q4_K_M in spirit: F32 for vectors, Q6_K for attn_v,
    ffn_down and output, Q4_K for the rest (Q8_0 when a row is not whole
    super-blocks)."""
    if len(shape) == 1:
        return 'F32'
    t = 'Q6_K' if any(k in name for k in ('attn_v', 'ffn_down', 'output.')) else 'Q4_K'
    return t if shape[-1] % 256 == 0 else 'Q8_0'


def make(arch, path, seed=0, types=q4_k_m, vocab='llama', version=3, extra=None):
    rng = np.random.default_rng(seed)
    c = config(arch)
    if vocab == 'llama':
        toks, scores, ttypes = spm_vocab()
    else:
        toks, merges, ttypes = gpt2_vocab()
    hf = hf_tensors(arch, c, len(toks), rng)
    w = g.GGUFWriter(version=version)
    a = arch
    w.add('general.architecture', g.STRING, a).add('general.name', g.STRING, 'tiny-' + a)
    w.add('general.file_type', g.U32, 15)
    for k, v, vt in (('context_length', c['ctx'], g.U32), ('embedding_length', c['d'], g.U32),
                     ('block_count', c['layers'], g.U32),
                     ('feed_forward_length', c['ff'], g.U32),
                     ('attention.head_count', c['heads'], g.U32),
                     ('attention.head_count_kv', c['kv'], g.U32),
                     ('rope.freq_base', c['theta'], g.FLOAT32),
                     ('attention.layer_norm_rms_epsilon', c['eps'], g.FLOAT32)):
        w.add('%s.%s' % (a, k), vt, v)
    if arch in ('qwen3', 'gemma'):
        w.add(a + '.attention.key_length', g.U32, c['dk'])
        w.add(a + '.attention.value_length', g.U32, c['dk'])
    w.add(a + '.rope.dimension_count', g.U32, c['dk'])
    w.add('tokenizer.ggml.model', g.STRING, 'llama' if vocab == 'llama' else 'gpt2')
    w.add('tokenizer.ggml.tokens', g.ARRAY, (g.STRING, toks))
    w.add('tokenizer.ggml.token_type', g.ARRAY, (g.I32, ttypes))
    if vocab == 'llama':
        w.add('tokenizer.ggml.pre', g.STRING, 'default')
        w.add('tokenizer.ggml.scores', g.ARRAY, (g.FLOAT32, scores))
        w.add('tokenizer.ggml.bos_token_id', g.U32, 1).add('tokenizer.ggml.eos_token_id', g.U32, 2)
        w.add('tokenizer.ggml.unknown_token_id', g.U32, 0)
        w.add('tokenizer.ggml.add_bos_token', g.BOOL, True)
        w.add('tokenizer.ggml.add_eos_token', g.BOOL, False)
    else:
        w.add('tokenizer.ggml.pre', g.STRING, 'gpt-2')
        w.add('tokenizer.ggml.merges', g.ARRAY, (g.STRING, merges))
        eot = len(toks) - 1
        w.add('tokenizer.ggml.bos_token_id', g.U32, eot).add('tokenizer.ggml.eos_token_id', g.U32, eot)
        w.add('tokenizer.ggml.add_bos_token', g.BOOL, False)
    for k, vt, v in (extra or []):
        w.add(k, vt, v)
    stored = {}
    for name, x in hf.items():
        gn = gguf_name(name)
        y = x
        if arch == 'llama' and '.q_proj.' in name:
            y = permute(x, c['heads'])
        elif arch == 'llama' and '.k_proj.' in name:
            y = permute(x, c['kv'])
        if arch == 'gemma' and name.endswith('norm.weight'):
            y = x + F32(1)
        t = types(gn, y.shape)
        data = g.quantize(t, y)
        w.add_tensor(gn, t, list(reversed(y.shape)), data)
        stored[gn] = (t, y.shape, data)
    w.write(path)
    return hf, stored, c
