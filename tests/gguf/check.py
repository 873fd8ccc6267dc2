"""check.py - attnscope's GGUF reader and dequantisers against this
folder's writer and numpy dequantisers (ggufw.py), bit for bit.

  check.py GGUFDUMP WORKDIR     prints TAP lines, exits 1 on a mismatch
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggufw as g      # noqa: E402
import models          # noqa: E402

N = [0]
FAILED = [0]


def ok(cond, what, *diag):
    N[0] += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', N[0], what))
    if not cond:
        FAILED[0] += 1
        for d in diag:
            print('# ' + str(d))
    return cond


def read_st(path):
    """A safetensors file as {name: float32 array}."""
    with open(path, 'rb') as f:
        data = f.read()
    n = struct.unpack('<Q', data[:8])[0]
    head = json.loads(data[8:8 + n])
    out = {}
    for k, v in head.items():
        if k == '__metadata__':
            continue
        b, e = v['data_offsets']
        out[k] = np.frombuffer(data[8 + n + b:8 + n + e], '<f4').reshape(v['shape'])
    return out


def bits_equal(got, want, what):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    if got.shape != want.shape:
        return ok(False, what, 'shape %s, expected %s' % (got.shape, want.shape))
    gb, wb = got.reshape(-1).view(np.uint32), want.reshape(-1).view(np.uint32)
    bad = np.nonzero(gb != wb)[0]
    return ok(len(bad) == 0, '%s (%d values bit for bit)' % (what, got.size),
              *(['first difference at %d: %r (0x%08x), expected %r (0x%08x); %d differ' %
                 (bad[0], got.reshape(-1)[bad[0]], gb[bad[0]], want.reshape(-1)[bad[0]],
                  wb[bad[0]], len(bad))] if len(bad) else []))


def dump(tool, path, work, hf=False):
    raw, hfp = os.path.join(work, 'raw.st'), os.path.join(work, 'hf.st')
    args = [tool, path, raw] + ([hfp] if hf else [])
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        return None, None, p.stderr.strip()
    kv = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition('=')
        kv.setdefault(k, []).append(v)
    return read_st(raw), (read_st(hfp) if hf else None), kv


def check_types(tool, work, rng):
    """Every converted type, as random bits and as quantized values, in one
    mixed file (and unconverted types listed but left out)."""
    w = g.GGUFWriter(version=3)
    w.add('general.architecture', g.STRING, 'none')
    want = {}
    for t in g.CONVERTED:
        qk = g.TYPES[g.ID[t]][1]
        for kind in ('bits', 'quant'):
            rows, n = (8, 8 * max(qk, 32)) if kind == 'bits' else (3, 2 * max(qk, 32))
            if kind == 'bits':
                data = g.random_blocks(t, rows * n // qk, rng)
            else:
                x = (rng.standard_normal(rows * n) * rng.choice([1e-3, 1, 50])).astype(np.float32)
                data = g.quantize(t, x)
            name = '%s.%s' % (t, kind)
            w.add_tensor(name, t, [n, rows], data)
            want[name] = g.dequantize(t, data, rows * n).reshape(rows, n)
    w.add_tensor('iq4nl.unconverted', 'IQ4_NL', [32, 1], bytes(18))
    path = os.path.join(work, 'types.gguf')
    w.write(path)
    raw, _, err = dump(tool, path, work)
    if not ok(raw is not None, 'the mixed file of every type opens', err):
        return
    for name, x in want.items():
        bits_equal(raw.get(name, np.zeros(0)), x, 'dequantised %s' % name)
    ok('iq4nl.unconverted' not in raw, 'an IQ4_NL tensor opens and is not converted')


def check_model(tool, work, arch, vocab, types, version=3, what=''):
    path = os.path.join(work, '%s.gguf' % arch)
    hf, stored, c = models.make(arch, path, seed=len(arch), types=types, vocab=vocab,
                                version=version)
    raw, got, kv = dump(tool, path, work, hf=True)
    label = '%s %s%s' % (arch, what, '(v%d)' % version)
    if not ok(raw is not None, '%s: opens' % label, kv):
        return
    exact = all(t == 'F32' for t, _, _ in stored.values())
    bad = []
    for name, x in hf.items():
        gn = models.gguf_name(name)
        t, shape, data = stored[gn]
        # the reference: numpy's dequantiser, then the converter undone
        y = g.dequantize(t, data, int(np.prod(shape))).reshape(shape)
        if arch == 'llama' and '.q_proj.' in name:
            y = models.unpermute(y, c['heads'])
        elif arch == 'llama' and '.k_proj.' in name:
            y = models.unpermute(y, c['kv'])
        if arch == 'gemma' and name.endswith('norm.weight'):
            y = y - np.float32(1)
        if exact:
            y = x      # F32 all through: the very tensors the model had
        h = got.get(name)
        if h is None or h.shape != y.shape or \
                (h.view(np.uint32) != y.astype(np.float32).view(np.uint32)).any():
            bad.append(name)
    ok(not bad and len(got) == len(hf), '%s: %d tensors under their Hugging Face names, '
       'values bit for bit%s' % (label, len(hf), ' (the original F32 tensors)' if exact else ''),
       'differ or missing: %s' % bad[:4], 'got %d tensors' % len(got))
    want = {'arch': arch, 'embedding_length': c['d'], 'block_count': c['layers'],
            'head_count': c['heads'], 'head_count_kv': c['kv'], 'head_dim': c['dk'],
            'feed_forward_length': c['ff'], 'context_length': c['ctx'],
            'tied': int('lm_head.weight' not in hf), 'qk_norm': int(arch == 'qwen3'),
            'attn_bias': int(arch == 'qwen2'), 'name': 'tiny-' + arch}
    diff = ['%s=%s, expected %s' % (k, kv.get(k, ['-'])[0], v) for k, v in want.items()
            if kv.get(k, ['-'])[0] != str(v)]
    ok(not diff and float(kv['rope_freq_base'][0]) == c['theta'] and
       np.float32(float(kv['rms_eps'][0])) == np.float32(c['eps']), '%s: the config' % label, *diff)
    check_tokenizer(kv, vocab, label)


def check_tokenizer(kv, vocab, label):
    toks = [bytes.fromhex(t.split(' ')[0]).decode() for t in kv.get('tok', [])]
    if vocab == 'llama':
        ref, scores, types = models.spm_vocab()
        got_s = [float(t.split(' ')[1]) for t in kv['tok']]
        got_t = [int(t.split(' ')[2]) for t in kv['tok']]
        good = toks == ref and got_s == scores and got_t == types and \
            kv['tok_bos'] == ['1'] and kv['tok_eos'] == ['2'] and kv['tok_unk'] == ['0'] and \
            kv['tok_add_bos'] == ['1'] and kv['tok_add_eos'] == ['0'] and kv['tok_model'] == ['0']
    else:
        ref, merges, types = models.gpt2_vocab()
        got_m = [bytes.fromhex(m).decode() for m in kv.get('merge', [])]
        good = toks == ref and got_m == merges and kv['tok_pre'] == ['gpt-2'] and \
            kv['tok_bos'] == [str(len(ref) - 1)] and kv['tok_model'] == ['1'] and \
            kv['tok_add_space_prefix'] == ['-1']
    ok(good, '%s: the tokenizer (%s, %d tokens)' % (label, vocab, len(toks)))


def main():
    tool, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(41)
    check_types(tool, work, rng)
    for arch, vocab in (('llama', 'llama'), ('qwen2', 'gpt2'), ('qwen3', 'gpt2'),
                        ('gemma', 'llama'), ('phi3', 'llama')):
        check_model(tool, work, arch, vocab, models.q4_k_m, what='Q4_K_M ')
        check_model(tool, work, arch, vocab, lambda n, s: 'F32', what='F32 ')
    check_model(tool, work, 'llama', 'llama', lambda n, s: 'F16', version=2, what='F16 ')
    check_model(tool, work, 'qwen2', 'gpt2', lambda n, s: 'Q8_0' if len(s) > 1 else 'F32',
                version=2, what='Q8_0 ')
    print('1..%d' % N[0])
    sys.exit(1 if FAILED[0] else 0)


if __name__ == '__main__':
    main()
