"""hostile.py - malformed and malicious GGUF files for `attnscope info`.

  hostile.py DIR     writes DIR/NAME.gguf and DIR/cases (NAME<TAB>regex of
                     the one-line error, or OK for a control)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggufw as g      # noqa: E402
import models          # noqa: E402

BIG = 1 << 40


def head(nt, nkv, version=3):
    return b'GGUF' + struct.pack('<IQQ', version, nt, nkv)


def kv(key, vt, raw):
    return g.gstr(key) + struct.pack('<I', vt) + raw


def tinfo(name, ne, tid, off):
    return g.gstr(name) + struct.pack('<I', len(ne)) + b''.join(struct.pack('<Q', d) for d in ne) \
        + struct.pack('<IQ', tid, off)


def small(**over):
    """A minimal llama file with one F32 tensor; over replaces parts."""
    w = g.GGUFWriter()
    w.add('general.architecture', g.STRING, over.get('arch', 'llama'))
    for k, v in (('context_length', 8), ('embedding_length', 8), ('block_count', 1),
                 ('feed_forward_length', 8), ('attention.head_count', 2)):
        if k not in over.get('drop', ()):
            w.add('llama.' + k, g.U32, v)
    w.add('tokenizer.ggml.model', g.STRING, 'llama')
    w.add('tokenizer.ggml.tokens', g.ARRAY, (g.STRING, ['<unk>', '<s>', '</s>', 'a']))
    w.add('tokenizer.ggml.bos_token_id', g.U32, over.get('bos', 1))
    for k, vt, v in over.get('extra', []):
        w.add(k, vt, v)
    w.add_tensor('token_embd.weight', 'F32', [8, 4], bytes(128))
    return w


def catalogue():
    """[(name, bytes, regex of the error or OK)], all small."""
    c = []

    def put(name, data, expect):
        c.append((name, data, expect))

    good = small().raw()
    put('control-small', good, 'OK')
    put('empty', b'', 'not a GGUF file')
    put('magic-only', b'GGUF', 'file ends inside the version')
    put('not-gguf', b'GGML' + good[4:], 'not a GGUF file')
    put('version-1', head(0, 0, 1), 'GGUF version 1')
    put('version-4', head(0, 0, 4), 'GGUF version 4')
    for cut in (30, len(good) // 2, len(good) - 130, len(good) - 1):
        put('truncated-%d' % cut, good[:cut], 'file ends inside|past the end|more than|longer than')
    put('tensor-count-2e40', head(BIG, 0) + bytes(64), 'tensor count 1099511627776')
    put('kv-count-2e40', head(0, BIG) + bytes(64), 'metadata count 1099511627776')
    put('key-length-2e40', head(0, 1) + struct.pack('<Q', BIG) + bytes(64),
        'key of 1099511627776 bytes')
    put('string-length-2e40', head(0, 1) + g.gstr('k') + struct.pack('<IQ', g.STRING, BIG)
        + bytes(64), 'string of 1099511627776 bytes')
    put('name-length-2e40', head(1, 0) + struct.pack('<Q', BIG) + bytes(64),
        'name of 1099511627776 bytes')
    put('array-count-2e40', head(0, 1) + kv('k', g.ARRAY, struct.pack('<IQ', g.U8, BIG))
        + bytes(64), 'array of 1099511627776')
    put('string-array-2e40', head(0, 1) + kv('k', g.ARRAY, struct.pack('<IQ', g.STRING, BIG))
        + bytes(64), 'array of 1099511627776')
    put('nested-array-2e40', head(0, 1) + kv('k', g.ARRAY, struct.pack('<IQ', g.ARRAY, 1) +
                                             struct.pack('<IQ', g.U64, BIG)) + bytes(64),
        'array of 1099511627776')
    deep = struct.pack('<IQ', g.ARRAY, 1) * 100 + struct.pack('<IQ', g.U8, 0)
    put('nested-array-deep', head(0, 1) + kv('k', g.ARRAY, deep), 'nested more than')
    put('value-type-99', head(0, 1) + kv('k', 99, b'\0' * 8), 'unknown value type 99')
    put('array-type-99', head(0, 1) + kv('k', g.ARRAY, struct.pack('<IQ', 99, 1)) + bytes(8),
        'unknown array element type 99')
    put('bool-7', head(0, 1) + kv('k', g.BOOL, b'\x07'), 'bool')
    w = small(extra=[('general.architecture', g.STRING, 'qwen2')])
    put('duplicated-key', w.raw(), 'duplicated metadata key "general.architecture"')
    w = small()
    w.add_tensor('token_embd.weight', 'F32', [8, 4], bytes(128))
    put('duplicated-tensor', w.raw(), 'duplicated tensor name "token_embd.weight"')
    for tid in (4, 31, 40, 1000):
        w = small()
        w.tensors[0] = ('token_embd.weight', tid, [8, 4], bytes(128))
        put('type-id-%d' % tid, w.raw(), 'unknown type id %d' % tid)
    w = small()
    w.tensors[0] = ('token_embd.weight', 0, [1, 1, 1, 1, 1], bytes(32))
    put('five-dims', w.raw(), '5 dimensions')
    w = small()
    w.tensors[0] = ('token_embd.weight', 0, [1 << 32, 1 << 32], bytes(32))
    put('dims-overflow', w.raw(), 'overflow')
    w = small()
    w.tensors[0] = ('token_embd.weight', 0, [1 << 28, 1], bytes(32))
    put('claims-1GB', w.raw(), 'past the end of the file')
    put('offset-past-end', small().raw(offsets=[1 << 20]), 'past the end of the file')
    put('offset-2e63', small().raw(offsets=[1 << 63]), 'past the end|multiple of the alignment')
    put('offset-misaligned', small().raw(offsets=[4]), 'not a multiple of the alignment 32')
    w = small()
    w.add_tensor('output_norm.weight', 'F32', [8], bytes(32))
    put('overlap', w.raw(offsets=[0, 64]), 'overlap')
    w = small()
    w.tensors[0] = ('token_embd.weight', g.ID['Q4_0'], [33, 4], bytes(128))
    put('partial-block', w.raw(), 'not whole blocks')
    for name, vt, v, why in (('alignment-0', g.U32, 0, 'not a power of two'),
                             ('alignment-3', g.U32, 3, 'not a power of two'),
                             ('alignment-string', g.STRING, '32', 'not a u32')):
        put(name, small(extra=[('general.alignment', vt, v)]).raw(), why)
    put('arch-gpt2', small(arch='gpt2').raw(), 'architecture "gpt2" is not read')
    put('arch-missing', head(0, 0), 'general.architecture is missing')
    put('no-embedding-length', small(drop=('embedding_length',)).raw(),
        'llama.embedding_length is missing')
    put('context-length-string', small(drop=('context_length',), extra=[
        ('llama.context_length', g.STRING, 'big')]).raw(), 'llama.context_length is of type string')
    put('bos-past-vocab', small(bos=4).raw(), 'bos_token_id is 4, past the 4 tokens')
    put('heads-uneven', small(extra=[('llama.attention.head_count_kv', g.U32, 3)]).raw(),
        'key/value heads')
    return c


def typed(seed=0):
    """Small valid files: one tensor of every converted type (one block or
    row each), in a llama file with a gpt2 tokenizer."""
    import numpy as np
    rng = np.random.default_rng(seed)
    w = small(extra=[('tokenizer.ggml.merges', g.ARRAY, (g.STRING, ['a b'])),
                     ('tokenizer.ggml.scores', g.ARRAY, (g.FLOAT32, [0.0, 0.0, 0.0, -1.0])),
                     ('general.alignment', g.U32, 64)])
    w.alignment = 64
    for t in g.CONVERTED:
        qk = g.TYPES[g.ID[t]][1]
        w.add_tensor('x.%s' % t, t, [max(qk, 8)], g.random_blocks(t, max(1, 8 // qk), rng))
    return w.raw()


def cases(d):
    models.make('llama', os.path.join(d, 'control.gguf'))
    c = [('control', None, 'OK')] + catalogue()
    for name, data, _ in c[1:]:
        with open(os.path.join(d, name + '.gguf'), 'wb') as f:
            f.write(data)
    with open(os.path.join(d, 'cases'), 'w') as f:
        for name, _, expect in c:
            f.write('%s\t%s\n' % (name, expect))


if __name__ == '__main__':
    os.makedirs(sys.argv[1], exist_ok=True)
    cases(sys.argv[1])
