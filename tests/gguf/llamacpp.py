"""llamacpp.py - attnscope's view of GGUF models against llama.cpp itself
(node-llama-cpp 3.21.1, reference.mjs).

  llamacpp.py GGUFDUMP WORKDIR    prints TAP lines, exits 1 on a mismatch

For tiny random llama, qwen2, qwen3, gemma and phi3 models (F32, and the
Q4_K_M-like mix of Q4_K and Q6_K): llama.cpp's ids for a few texts must
spell the texts with the tokens attnscope reads from the file, and
llama.cpp's next-token probabilities at every position must equal those of
a Hugging Face-order forward pass (forward.py) on the tensors attnscope
dequantised and un-permuted (ggufdump); for llama, the same pass on the
rows as stored (still permuted) must not.
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check           # noqa: E402
import forward         # noqa: E402
import models          # noqa: E402

ok = check.ok
TEXTS = ['the cat sat on the mat', 'Olá, tudo bem?']


def node(*args):
    p = subprocess.run(['node', os.path.join(HERE, 'reference.mjs')] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise RuntimeError(p.stderr.strip()[-500:])
    return json.loads(p.stdout)


def spelled(ids, toks, vocab):
    s = ''.join(toks[i] for i in ids)
    if vocab == 'llama':
        return s.replace('\u2581', ' ')
    ref, _, _ = models.gpt2_vocab()
    dec = {ch: b for b, ch in enumerate(ref[:256])}
    return bytes(dec[ch] for ch in s).decode()


def run(tool, work, arch, vocab, types, what):
    path = os.path.join(work, '%s-%s.gguf' % (arch, what))
    _, _, c = models.make(arch, path, seed=7, types=types, vocab=vocab)
    _, hf, kv = check.dump(tool, path, work, hf=True)
    label = '%s %s' % (arch, what)
    if not ok(hf is not None, '%s: ggufdump reads it' % label, kv):
        return
    toks = [bytes.fromhex(t.split(' ')[0]).decode() for t in kv['tok']]
    ids = node('tokenize', path, *TEXTS)
    # SentencePiece adds a space in front (add_space_prefix defaults to true)
    want = [(' ' + t if vocab == 'llama' else t) for t in TEXTS]
    got = [spelled(i, toks, vocab) for i in ids]
    ok(got == want, '%s: llama.cpp\'s ids %s spell the texts with the tokens read' %
       (label, ids[0]), 'got %r' % got)
    seq = ([1] if vocab == 'llama' else []) + ids[0] + ids[1]
    rows = node('probs', path, *seq)
    ref = np.zeros((len(rows), len(toks)))
    for r, row in enumerate(rows):
        for t, p in row:
            ref[r, t] = p
    mine = forward.probs(arch, c, hf, seq)
    diff = np.abs(mine - ref).max()
    tol = 2e-3 if what == 'F32' else 5e-2
    # the next token: the same wherever llama.cpp's top two are apart by more
    # than the tolerance (quantized activations may swap a near tie)
    top2 = np.sort(ref, 1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > tol
    same = (mine.argmax(1) == ref.argmax(1))[clear]
    ok(diff < tol and same.all(), '%s: next-token probabilities at %d positions: max |diff| '
       '%.2e (tolerance %g); the same next token at all %d clear positions' %
       (label, len(seq), diff, tol, clear.sum()))
    if arch == 'llama':
        raw = dict(hf)
        for k in raw:
            if '.q_proj.' in k:
                raw[k] = models.permute(raw[k], c['heads'])
            elif '.k_proj.' in k:
                raw[k] = models.permute(raw[k], c['kv'])
        wrong = np.abs(forward.probs(arch, c, raw, seq) - ref).max()
        ok(wrong > 10 * diff, '%s: the rows as stored (interleaved pairs) give |diff| %.2e' %
           (label, wrong))


def main():
    tool, work = sys.argv[1], sys.argv[2]
    for arch, vocab in (('llama', 'llama'), ('qwen2', 'gpt2'), ('qwen3', 'gpt2'),
                        ('gemma', 'llama'), ('phi3', 'llama')):
        run(tool, work, arch, vocab, lambda n, s: 'F32', 'F32')
        run(tool, work, arch, vocab, models.q4_k_m, 'Q4_K_M')
    print('1..%d' % check.N[0])
    sys.exit(1 if check.FAILED[0] else 0)


if __name__ == '__main__':
    main()
