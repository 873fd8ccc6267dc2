"""modelcheck.py - `attnscope --model FILE.gguf` as a model (issue 41, items
3 and the Check): tiny random llama, qwen2, qwen3, gemma and phi3 models
written by models.py in F32, F16, Q8_0 and a Q4_K_M-like mix.

  modelcheck.py ATTNSCOPE WORKDIR [--no-llamacpp]   TAP lines; exit 1 on a failure

For each file:
  - every stage of `attnscope dump --model FILE.gguf` against the numpy pass
    of tests/hfmodels/llamaref.py on a Hugging Face folder holding the
    tensors as this folder's dequantisers (ggufw.py) give them, un-permuted
    and (gemma) less one: 1e-5 relative;
  - with the byte-level vocabulary, the same folder with its vocab.json and
    merges.txt: `dump --model DIR` gives the same stages as the GGUF file;
  - llama.cpp (node-llama-cpp, reference.mjs) on the same file: its ids for
    texts equal attnscope's tokenizer's, and its greedy choices equal
    `attnscope translate --json`'s continuation for as long as llama.cpp's
    top two are apart by more than the tolerance (F32 2e-3: llama.cpp
    keeps K and V as F16; Q8_0 2e-2 and Q4_K_M 0.1: it quantizes the
    activations too), on models of larger weights whose choices are clear;
  - the weights' file types where the stages use them (info, render, dump's
    metadata, a lecture over the F16 and the Q4_K_M file);
  - broken files: one-line errors naming the file.
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'hfmodels'))
import check           # noqa: E402
import ggufw as g      # noqa: E402
import llamaref        # noqa: E402
import models          # noqa: E402

ok = check.ok
F32 = np.float32
TEXT = 'the cat sat on the mat'
TEXTS = [TEXT, 'Olá, tudo bem?', 'The 42 cats sat.\nOK']
TYPES = {'F32': lambda n, s: 'F32', 'F16': lambda n, s: 'F32' if len(s) == 1 else 'F16',
         'Q8_0': lambda n, s: 'F32' if len(s) == 1 else 'Q8_0', 'Q4_K_M': models.q4_k_m}
VOCAB = {'llama': 'llama', 'qwen2': 'gpt2', 'qwen3': 'gpt2', 'gemma': 'llama', 'phi3': 'llama'}


def run(*args, stdin=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, input=stdin,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr.strip()


def dequantised(arch, stored, c):
    """The Hugging Face tensors as ggml's dequantisers give them."""
    out = {}
    for hf in stored:
        t, shape, data = stored[hf]
        y = g.dequantize(t, data, int(np.prod(shape))).reshape(shape).astype(F32)
        if arch == 'llama' and '.q_proj.' in hf:
            y = models.unpermute(y, c['heads'])
        elif arch == 'llama' and '.k_proj.' in hf:
            y = models.unpermute(y, c['kv'])
        if arch == 'gemma' and hf.endswith('norm.weight'):
            y = y - F32(1)
        out[hf] = y
    return out


def folder(d, arch, c, tensors, vocab_n, toks=None, merges=None):
    os.makedirs(d, exist_ok=True)
    cfg = {'model_type': arch, 'vocab_size': vocab_n, 'hidden_size': c['d'],
           'intermediate_size': c['ff'], 'num_hidden_layers': c['layers'],
           'num_attention_heads': c['heads'], 'num_key_value_heads': c['kv'],
           'head_dim': c['dk'], 'max_position_embeddings': c['ctx'],
           'rms_norm_eps': float(F32(c['eps'])), 'rope_theta': float(F32(c['theta'])),
           'tie_word_embeddings': 'lm_head.weight' not in tensors,
           'hidden_act': 'gelu_pytorch_tanh' if arch == 'gemma' else 'silu'}
    if arch in ('qwen2', 'qwen3'):
        cfg['use_sliding_window'] = False
    if arch == 'phi3':
        cfg['sliding_window'] = None
    if c.get('rope_freqs') is not None:
        cfg['rope_scaling'] = c['llama3']
    json.dump(cfg, open(os.path.join(d, 'config.json'), 'w'))
    llamaref.write_st(tensors, os.path.join(d, 'model.safetensors'), 'f32')
    if toks is not None:
        json.dump({t: i for i, t in enumerate(toks)}, open(os.path.join(d, 'vocab.json'), 'w'))
        open(os.path.join(d, 'merges.txt'), 'w').write('#version: 0.2\n' + '\n'.join(merges) + '\n')


def make(work, arch, what, vocab, rope_freqs=False, std=0.08):
    name = '%s-%s-%s%s%s' % (arch, what, vocab, '-rope_freqs' if rope_freqs else '',
                             '-sharp' if std != 0.08 else '')
    path = os.path.join(work, name + '.gguf')
    extra_t = None
    c0 = models.config(arch)
    llama3 = {'rope_type': 'llama3', 'factor': 8.0, 'low_freq_factor': 1.0,
              'high_freq_factor': 4.0, 'original_max_position_embeddings': 16}
    if rope_freqs:   # convert_hf_to_gguf.py's factors of Llama 3.1's scaling
        dk = c0['dk']
        inv = 1.0 / c0['theta'] ** (np.arange(0, dk, 2) / dk)
        lo, hi = 16 / 1.0, 16 / 4.0
        f = []
        for fr in inv:
            wl = 2 * np.pi / fr
            s = (16 / wl - 1.0) / (4.0 - 1.0)
            f.append(1.0 if wl < hi else 8.0 if wl > lo else 1 / ((1 - s) / 8.0 + s))
        extra_t = [('rope_freqs.weight', 'F32', np.array(f, F32))]
    hf, stored, c = models.make(arch, path, seed=11, types=TYPES[what], vocab=vocab,
                                extra_tensors=extra_t, std=std)
    c['rope_freqs'] = extra_t
    c['llama3'] = llama3
    byname = {}
    for gn, v in stored.items():
        if gn == 'rope_freqs.weight':
            continue
        hfn = next(k for k in hf if models.gguf_name(k) == gn)
        byname[hfn] = v
    return name, path, c, dequantised(arch, byname, c)


TOL = 2e-5   # relative to 1 + |value|: see gguf_model.test


def stages(tool, work, arch, what, vocab, rope_freqs=False):
    name, path, c, t = make(work, arch, what, vocab, rope_freqs)
    toks = models.spm_vocab()[0] if vocab == 'llama' else models.gpt2_vocab()[0]
    d = os.path.join(work, name)
    folder(d, arch, c, {k: v.astype(np.float64) for k, v in t.items()}, len(toks))
    out = os.path.join(work, name + '.st')
    rc, _, err = run(tool, 'dump', '--model', path, '--out', out, TEXT)
    if not ok(rc == 0, '%s: dump --model FILE.gguf' % name, err):
        return None
    rc, so, se = run(sys.executable, os.path.join(HERE, '..', 'hfmodels', 'llamaref.py'),
                     'check', d, out, '--tol', TOL)
    ok(rc == 0, '%s: every stage against the numpy pass on the dequantised tensors: %s' %
       (name, (so.strip().splitlines() or ['?'])[-1].replace('llamaref: ', '')), so, se)
    return path, c, t


def same_as_folder(tool, work, arch, what):
    """The byte-level model as a folder with its vocab.json and merges.txt."""
    name, path, c, t = make(work, arch, what, 'gpt2')
    toks, merges, _ = models.gpt2_vocab()
    d = os.path.join(work, name + '-folder')
    folder(d, arch, c, t, len(toks), toks, merges)
    a, b = os.path.join(work, name + '-gguf.st'), os.path.join(work, name + '-dir.st')
    r1 = run(tool, 'dump', '--model', path, '--out', a, TEXT)
    r2 = run(tool, 'dump', '--model', d, '--out', b, TEXT)
    if not ok(r1[0] == 0 and r2[0] == 0, '%s: dump of the file and of the folder' % name,
              r1[2], r2[2]):
        return
    x, y = check.read_st(a), check.read_st(b)
    worst = 0.0
    for k in x:
        if k in y and x[k].shape == y[k].shape and x[k].size:
            same_inf = np.isinf(x[k]) & (x[k] == y[k])
            with np.errstate(invalid='ignore'):
                worst = max(worst, float(np.max(np.where(same_inf, 0, np.abs(x[k] - y[k])))))
        elif k in y:
            worst = float('inf')
    ok(set(x) == set(y) and worst <= 1e-6,
       '%s: the folder of the same tensors gives the same %d stages (max |diff| %.2g)' %
       (name, len(x), worst), 'only in the file: %s' % sorted(set(x) - set(y)),
       'only in the folder: %s' % sorted(set(y) - set(x)))


def node(*args):
    rc, so, se = run('node', os.path.join(HERE, 'reference.mjs'), *args)
    if rc:
        raise RuntimeError(se[-500:])
    return json.loads(so)


def token_ids(tool, work, path, text):
    out = os.path.join(work, 'ids.st')
    rc, _, err = run(tool, 'dump', '--model', path, '--out', out, text)
    if rc:
        raise RuntimeError(err)
    return [int(i) for i in check.read_st(out)['tgt.ids'].view(np.int32)]


def llamacpp(tool, work, arch, what, vocab, rope_freqs=False):
    """On a model of larger weights (std 0.2): its next tokens are clearer."""
    _, path, _, _ = make(work, arch, what, vocab, rope_freqs, std=0.2)
    label = os.path.basename(path)[:-5]
    toks = models.spm_vocab()[0] if vocab == 'llama' else models.gpt2_vocab()[0]
    bos = 1 if vocab == 'llama' else None
    want = node('tokenize', path, *TEXTS)
    got = [token_ids(tool, work, path, t) for t in TEXTS]
    got = [x[1:] if bos is not None and x[:1] == [bos] else x for x in got]
    ok(got == want, '%s: llama.cpp\'s token ids of %d texts = attnscope\'s (%s)' %
       (label, len(TEXTS), want[0]), 'attnscope %s' % got, 'llama.cpp %s' % want)
    n = 8
    rc, so, se = run(tool, 'translate', '--json', '--max-len', n, '--model', path, TEXT)
    if not ok(rc == 0, '%s: translate --json' % label, se):
        return
    index = {t: i for i, t in enumerate(toks)}
    mine = [index.get(t, -1) for t in json.loads(so)['output']]
    prompt = token_ids(tool, work, path, TEXT)
    ref = node('greedy', path, n, *prompt)
    # the same ids as long as they agree; where they part, llama.cpp's top two
    # must be within the tolerance (a near tie that its arithmetic may swap)
    # the same ids as long as they agree; where they part, llama.cpp's top two
    # must be within the tolerance (a near tie its arithmetic may swap), or
    # attnscope stopped at the end token llama.cpp chose
    tol = {'F32': 2e-3, 'Q8_0': 2e-2}.get(what, 0.1)
    eos = 2 if vocab == 'llama' else len(toks) - 1
    k, clear = 0, 0
    while k < min(len(mine), len(ref)) and mine[k] == ref[k][0]:
        clear += ref[k][1] - ref[k][2] > tol
        k += 1
    end = k == len(mine) and k < len(ref) and ref[k][0] == eos
    parted = k < len(ref) and not end
    parted_clear = parted and ref[k][1] - ref[k][2] > tol
    ok(not parted_clear and clear >= 1,
       '%s: llama.cpp\'s greedy ids = attnscope translate\'s for %d of %d steps (%d with the top '
       'two apart by > %g)%s' % (label, k, n, clear, tol,
                                '; both end there' if end else
                                '; then a near tie (%.4f)' % (ref[k][1] - ref[k][2])
                                if parted else ''),
       'attnscope %s' % mine, 'llama.cpp %s' % [r[0] for r in ref],
       'llama.cpp margins %s' % [round(r[1] - r[2], 4) for r in ref])


def meta(path):
    import struct
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        return json.loads(f.read(n))['__metadata__']


def dtypes_shown(tool, work):
    """Each weight's file type on the stage that uses it: info, render,
    dump's metadata, and a lecture stepping from the F16 file to Q4_K_M."""
    q4 = os.path.join(work, 'llama-Q4_K_M-llama.gguf')
    f16 = os.path.join(work, 'llama-F16-llama.gguf')
    rc, so, err = run(tool, 'info', q4)
    ok(rc == 0 and any(l.split()[:3] == ['attn_v.weight', 'Q6_K', '×2'] and
                       l.endswith('decoder.N.self_attn.v') for l in so.splitlines()),
       'info FILE.gguf: the weights by role (attn_v.weight Q6_K ×2 -> decoder.N.self_attn.v)',
       so[-800:], err)
    heads = {}
    for st in ('q', 'v'):
        rc, so, err = run(tool, 'render', '--model', q4, '--stage', 'decoder.1.self_attn.' + st,
                          '--format', 'text', '--head', 0, TEXT)
        heads[st] = so.splitlines()[0] if rc == 0 and so else err
    ok(heads['q'].endswith('weights Q4_K') and heads['v'].endswith('weights Q6_K'),
       'render --format text names the weight\'s type: %s | %s' % (heads['q'], heads['v']))
    rc, so, err = run(tool, 'render', '--model', q4, '--stage', 'decoder.1.self_attn.v',
                      '--format', 'svg', TEXT)
    ok(rc == 0 and '· W Q6_K' in so, 'the figure (render --format svg) says · W Q6_K after '
       'the shape, as the status line does', err)
    got = {}
    for what, path in (('Q4_K_M', q4), ('F16', f16)):
        out = os.path.join(work, 'side-%s.st' % what)
        rc, _, err = run(tool, 'dump', '--model', path, '--out', out, TEXT)
        got[what] = json.loads(meta(out)['weights.dtypes.json']) if rc == 0 else {}
    want_q4 = {'decoder.0.self_attn.q': 'Q4_K', 'decoder.0.self_attn.v': 'Q6_K',
               'decoder.1.ffn.gate': 'Q4_K', 'decoder.1.ffn.out': 'Q6_K',
               'decoder.0.norm1': 'F32', 'logits': 'Q6_K', 'tgt.embed': 'Q4_K'}
    ok(all(got['Q4_K_M'].get(k) == v for k, v in want_q4.items()) and
       all(v in ('F16', 'F16+F16', 'F32') for v in got['F16'].values()) and
       got['F16'].get('decoder.0.self_attn.v') == 'F16',
       'dump of the same model as F16 and as Q4_K_M: weights.dtypes.json says each stage\'s '
       'weight type (%d stages)' % len(got['Q4_K_M']), got)
    lec = os.path.join(work, 'quant.yaml')
    open(lec, 'w').write('title: What quantisation does\nmodel: %s\nsteps:\n'
                         '  - sentence: "%s"\n    stage: decoder.1.self_attn.v\n'
                         '    caption: V from F16 weights.\n'
                         '  - model: %s\n    stage: decoder.1.self_attn.v\n'
                         '    caption: The same from Q6_K.\n' % (f16, TEXT, q4))
    rc, so, err = run(tool, '--lecture', lec, '--check')
    ok(rc == 0, 'a lecture whose steps use the F16 and the Q4_K_M file: --check', so, err)


def bad(tool, work):
    """Files the loader refuses: one line on stderr naming the file."""
    S, U = g.STRING, g.U32
    cases = [
        ('unknown-pre', 'qwen2', 'gpt2', [],
         [('tokenizer.ggml.pre', S, 'no-such-pre')], 'tokenizer.ggml.pre'),
        ('yarn', 'qwen2', 'gpt2', [], [('qwen2.rope.scaling.type', S, 'yarn')], 'yarn'),
        ('partial-rotary', 'llama', 'llama', [],
         [('llama.rope.dimension_count', U, 32)], 'rotary'),
        ('missing-tensor', 'llama', 'llama', ['blk.1.ffn_down.weight'], [],
         'layers.1.mlp.down_proj.weight'),
        ('tok-model', 'gemma', 'llama', [],
         [('tokenizer.ggml.model', S, 'bert')], 'tokenizer.ggml.model'),
        ('vocab-size', 'phi3', 'llama', [], [('phi3.vocab_size', U, 5)], 'vocab'),
        ('longrope', 'phi3', 'llama', [], [], 'LongRoPE'),
        ('merge-unknown', 'qwen2', 'gpt2', [],
         [('tokenizer.ggml.merges', g.ARRAY, (S, models.gpt2_vocab()[1] + ['zz qq']))],
         'tokenizer.ggml.* (read as a tokenizer.json): model.merges'),
        ('spm-piece-twice', 'llama', 'llama', [],
         [('tokenizer.ggml.tokens', g.ARRAY, (S, models.spm_vocab()[0][:-1] + ['\u2581the']))],
         'appears twice'),
    ]
    for name, arch, vocab, drop, extra, want in cases:
        path = os.path.join(work, 'bad-%s.gguf' % name)
        xt = [(n, 'F32', np.ones(32, F32)) for n in ('rope_factors_long.weight',
                                                     'rope_factors_short.weight')]
        models.make(arch, path, seed=3, types=TYPES['Q8_0'], vocab=vocab, drop=drop,
                    extra=extra, extra_tensors=xt if name == 'longrope' else None)
        rc, _, err = run(tool, 'dump', '--model', path, '--out', path + '.st', 'hi')
        ok(rc == 1 and len(err.splitlines()) == 1 and path in err and want in err,
           '%s: a one-line error naming the file (%s)' % (name, err[len(path):][:90]),
           'status %d: %s' % (rc, err))
    import hostile
    for name, data, want in hostile.catalogue():
        path = os.path.join(work, 'hostile-%s.gguf' % name)
        open(path, 'wb').write(data)
        rc, _, err = run(tool, 'translate', '--model', path, 'hi')
        if want == 'OK':
            continue
        ok(rc == 1 and len(err.splitlines()) == 1 and path in err,
           'hostile %s: translate --model gives one line naming the file' % name,
           'status %d: %s' % (rc, err))
    # weights that cannot fit in memory as F32: refused before loading (a
    # sparse file whose Q2_K tensor is twice MemAvailable + SwapFree as F32)
    have = sum(int(l.split()[1]) * 1024 for l in open('/proc/meminfo')
               if l.startswith(('MemAvailable:', 'SwapFree:')))
    ne0 = 256 * 1024
    rows = 2 * have // (ne0 * 4) + 1
    w = g.GGUFWriter()
    for k, vt, v in (('general.architecture', S, 'llama'), ('llama.context_length', U, 8),
                     ('llama.embedding_length', U, ne0), ('llama.block_count', U, 1),
                     ('llama.feed_forward_length', U, 8), ('llama.attention.head_count', U, 1),
                     ('tokenizer.ggml.model', S, 'llama'),
                     ('tokenizer.ggml.tokens', g.ARRAY, (S, ['a']))):
        w.add(k, vt, v)
    w.add_tensor('token_embd.weight', 'Q2_K', [ne0, rows], b'')
    head = w.raw()
    big = os.path.join(work, 'big.gguf')
    with open(big, 'wb') as f:
        f.write(head)
        f.truncate(len(head) + rows * 86016)
    rc, _, err = run(tool, 'translate', '--model', big, 'hi')
    ok(rc == 1 and len(err.splitlines()) == 1 and big in err and 'GB as F32' in err,
       'weights larger than the memory as F32: refused before loading (%s)' % err[len(big):][:80],
       'status %d: %s' % (rc, err))
    # an Ollama blob: no extension, found by its magic
    src = os.path.join(work, 'blob.gguf')
    models.make('qwen3', src, seed=5, types=TYPES['Q4_K_M'], vocab='gpt2')
    blob = os.path.join(work, 'sha256-' + '0f' * 32)
    os.replace(src, blob)
    rc, so, err = run(tool, 'translate', '--json', '--max-len', 2, '--model', blob, TEXT)
    ok(rc == 0 and '"output"' in so, 'an Ollama blob without extension loads by its magic',
       err)


def main():
    tool, work = sys.argv[1], sys.argv[2]
    with_llamacpp = '--no-llamacpp' not in sys.argv
    for arch in ('llama', 'qwen2', 'qwen3', 'gemma', 'phi3'):
        for what in ('F32', 'F16', 'Q8_0', 'Q4_K_M'):
            stages(tool, work, arch, what, VOCAB[arch])
            if with_llamacpp and what in ('F32', 'Q4_K_M'):
                llamacpp(tool, work, arch, what, VOCAB[arch])
        same_as_folder(tool, work, arch, 'Q4_K_M')
    stages(tool, work, 'llama', 'Q8_0', 'llama', rope_freqs=True)
    if with_llamacpp:
        llamacpp(tool, work, 'llama', 'Q8_0', 'llama', rope_freqs=True)
    dtypes_shown(tool, work)
    bad(tool, work)
    print('1..%d' % check.N[0])
    sys.exit(1 if check.FAILED[0] else 0)


if __name__ == '__main__':
    main()
