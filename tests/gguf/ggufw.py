"""ggufw.py - a GGUF writer and ggml's block formats in numpy, written from
the specification (ggml's docs/gguf.md) and the block layouts of
ggml-common.h, for attnscope's tests.  Not the `gguf` pip package.

  GGUFWriter  key/values of every type (nested arrays too) and tensors,
              version 2 or 3, any power-of-two alignment; raw() gives the
              bytes so that tests can damage them
  quantize(t, x) -> bytes      x: float32 [rows, n] (n whole blocks)
  dequantize(t, b, n) -> f32   the same arithmetic as ggml's reference
                               dequantize_row_* (every product and
                               difference rounded to float32, in ggml's order)
  random_blocks(t, nblocks, rng) -> bytes   any bits, finite scales
"""
import struct
import numpy as np

F32 = np.float32
# metadata value types
U8, I8, U16, I16, U32, I32, FLOAT32, BOOL, STRING, ARRAY, U64, I64, FLOAT64 = range(13)
SCALAR = {U8: '<B', I8: '<b', U16: '<H', I16: '<h', U32: '<I', I32: '<i', FLOAT32: '<f',
          BOOL: '<?', U64: '<Q', I64: '<q', FLOAT64: '<d'}
# ggml tensor types: id -> (name, values a block, bytes a block)
TYPES = {0: ('F32', 1, 4), 1: ('F16', 1, 2), 2: ('Q4_0', 32, 18), 3: ('Q4_1', 32, 20),
         6: ('Q5_0', 32, 22), 7: ('Q5_1', 32, 24), 8: ('Q8_0', 32, 34),
         10: ('Q2_K', 256, 84), 11: ('Q3_K', 256, 110), 12: ('Q4_K', 256, 144),
         13: ('Q5_K', 256, 176), 14: ('Q6_K', 256, 210), 30: ('BF16', 1, 2),
         20: ('IQ4_NL', 32, 18), 24: ('I8', 1, 1), 26: ('I32', 1, 4)}
ID = {v[0]: k for k, v in TYPES.items()}
CONVERTED = ['F32', 'F16', 'BF16', 'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0',
             'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K']


def gstr(s):
    b = s.encode() if isinstance(s, str) else bytes(s)
    return struct.pack('<Q', len(b)) + b


def value(vtype, v):
    if vtype == STRING:
        return gstr(v)
    if vtype == ARRAY:
        etype, items = v
        return struct.pack('<IQ', etype, len(items)) + b''.join(value(etype, i) for i in items)
    return struct.pack(SCALAR[vtype], v)


class GGUFWriter:
    def __init__(self, version=3, alignment=32):
        self.version, self.alignment = version, alignment
        self.kv, self.tensors = [], []

    def add(self, key, vtype, v):
        self.kv.append((key, vtype, v))
        return self

    def add_tensor(self, name, tname, ne, data):
        """ne in ggml order (ne[0] fastest); data the encoded bytes."""
        self.tensors.append((name, ID[tname] if isinstance(tname, str) else tname,
                             list(ne), bytes(data)))
        return self

    def raw(self, offsets=None):
        out = bytearray(b'GGUF' + struct.pack('<IQQ', self.version, len(self.tensors),
                                              len(self.kv)))
        for key, vt, v in self.kv:
            out += gstr(key) + struct.pack('<I', vt) + value(vt, v)
        al = self.alignment
        offs, pos = [], 0
        for _, _, _, data in self.tensors:
            offs.append(pos)
            pos += (len(data) + al - 1) // al * al
        told = offs if offsets is None else offsets   # offsets: what the infos claim
        for (name, tid, ne, _), off in zip(self.tensors, told):
            out += gstr(name) + struct.pack('<I', len(ne))
            out += b''.join(struct.pack('<Q', d) for d in ne)
            out += struct.pack('<IQ', tid, off)
        out += bytes(-len(out) % al)
        for _, _, _, data in self.tensors:
            out += data + bytes(-len(data) % al)
        return bytes(out)

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(self.raw())


# ---- halves and the block formats ----

def f16(x):
    with np.errstate(over='ignore'):     # beyond 65504: inf, as C's conversion
        return np.asarray(x, dtype=F32).astype(np.float16)


def h2f(u16):
    """halves as float32; a NaN made quiet, as ggml's conversions do"""
    u = np.asarray(u16, dtype='<u2')
    f = u.view(np.float16).astype(F32)
    nan = (u & 0x7c00) == 0x7c00
    if nan.any():
        bits = f.view(np.uint32).copy()
        bits[nan & ((u & 0x3ff) != 0)] |= 0x400000
        f = bits.view(F32)
    return f


def _blocks(b, size):
    return np.frombuffer(bytes(b), dtype=np.uint8).reshape(-1, size)


def _nib(q):          # q [nb, 32] -> 16 bytes: q[j] | q[j + 16] << 4
    return (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)


def _unnib(qs):       # 16 bytes -> the 32 low/high nibbles
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int32)


def _qh_bits(qh4):    # 4 bytes (a little-endian u32) -> bit j for j < 32
    u = qh4.astype(np.uint32)
    w = u[:, 0] | u[:, 1] << 8 | u[:, 2] << 16 | u[:, 3] << 24
    return ((w[:, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(np.int32)


def _pack_qh(hi):     # [nb, 32] of 0/1 -> 4 bytes
    w = (hi.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(1).astype('<u4')
    return w.view(np.uint8).reshape(-1, 4)


def _k_scales_pack(sc, mn):   # 8 6-bit scales and mins -> 12 bytes (Q4_K, Q5_K)
    s = np.zeros((sc.shape[0], 12), np.uint8)
    s[:, 0:4] = (sc[:, 0:4] | (sc[:, 4:8] >> 4) << 6).astype(np.uint8)
    s[:, 4:8] = (mn[:, 0:4] | (mn[:, 4:8] >> 4) << 6).astype(np.uint8)
    s[:, 8:12] = ((sc[:, 4:8] & 15) | (mn[:, 4:8] & 15) << 4).astype(np.uint8)
    return s


def _k_scales_unpack(s):
    s = s.astype(np.int32)
    sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 15) | (s[:, 0:4] >> 6) << 4], 1)
    mn = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | (s[:, 4:8] >> 6) << 4], 1)
    return sc, mn


def _q3_scales_pack(sc):      # 16 6-bit values -> 12 bytes
    s = np.zeros((sc.shape[0], 12), np.uint8)
    s[:, 0:8] = ((sc[:, 0:8] & 15) | (sc[:, 8:16] & 15) << 4).astype(np.uint8)
    for j in range(16):
        s[:, 8 + j % 4] |= (((sc[:, j] >> 4) & 3) << (2 * (j // 4))).astype(np.uint8)
    return s


def _q3_scales_unpack(s):
    s = s.astype(np.int32)
    lo = np.concatenate([s[:, 0:8] & 15, s[:, 0:8] >> 4], 1)
    hi = np.stack([(s[:, 8 + j % 4] >> (2 * (j // 4))) & 3 for j in range(16)], 1)
    return (lo | hi << 4) - 32


# index maps of the super-blocks: for value v of a block of 256
_V = np.arange(256)
_Q2_BYTE = (_V // 128) * 32 + (_V % 32)          # Q2_K/Q3_K: qs byte
_Q2_SHIFT = 2 * ((_V % 128) // 32)               # and its bit pair
_Q4_BYTE = (_V // 64) * 32 + (_V % 32)           # Q4_K/Q5_K: qs byte
_Q4_HIGH = (_V % 64) // 32                       # high nibble?
_Q6_L = (_V // 128) * 64 + ((_V % 128) // 32 % 2) * 32 + _V % 32   # Q6_K ql byte
_Q6_LH = (_V % 128) // 64                        # its high nibble?
_Q6_H = (_V // 128) * 32 + _V % 32               # qh byte
_Q6_HS = 2 * ((_V % 128) // 32)                  # its bit pair


def _safe_div(a, b):
    b = np.where(b == 0, F32(1), b)
    return a / b


def _rint(x, lo, hi):
    return np.clip(np.rint(x), lo, hi).astype(np.int32)


def _h(x):            # halves as [nb, 2] bytes
    return f16(x).view(np.uint8).reshape(-1, 2)


def quantize(tname, x):
    """A simple quantizer per format (not ggml's search; any valid blocks
    do for a dequantiser test).  x: float32 values, a multiple of the block."""
    x = np.asarray(x, dtype=F32).reshape(-1)
    if tname == 'F32':
        return x.astype('<f4').tobytes()
    if tname == 'F16':
        return f16(x).tobytes()
    if tname == 'BF16':   # round to nearest even
        u = x.view(np.uint32).astype(np.uint64)
        u = (u + 0x7fff + ((u >> 16) & 1)) >> 16
        return u.astype('<u2').tobytes()
    qk = TYPES[ID[tname]][1]
    b = x.reshape(-1, qk)
    return globals()['_q_' + tname.lower()](b)


def _q_q8_0(b):
    d = np.abs(b).max(1) / F32(127)
    q = _rint(_safe_div(b, d[:, None]), -128, 127).astype(np.int8).view(np.uint8)
    return np.concatenate([_h(d), q], 1).tobytes()


def _q_q4_0(b):
    i = np.abs(b).argmax(1)
    d = b[np.arange(len(b)), i] / F32(-8)
    q = np.minimum(15, (_safe_div(b, d[:, None]) + F32(8.5)).astype(np.int32))
    return np.concatenate([_h(d), _nib(np.clip(q, 0, 15))], 1).tobytes()


def _minmax(b, levels):
    mn, mx = b.min(1), b.max(1)
    return (mx - mn) / F32(levels), mn


def _q_q4_1(b):
    d, m = _minmax(b, 15)
    q = _rint(_safe_div(b - m[:, None], d[:, None]), 0, 15)
    return np.concatenate([_h(d), _h(m), _nib(q)], 1).tobytes()


def _q_q5_0(b):
    i = np.abs(b).argmax(1)
    d = b[np.arange(len(b)), i] / F32(-16)
    q = np.clip((_safe_div(b, d[:, None]) + F32(16.5)).astype(np.int32), 0, 31)
    return np.concatenate([_h(d), _pack_qh(q >> 4), _nib(q & 15)], 1).tobytes()


def _q_q5_1(b):
    d, m = _minmax(b, 31)
    q = _rint(_safe_div(b - m[:, None], d[:, None]), 0, 31)
    return np.concatenate([_h(d), _h(m), _pack_qh(q >> 4), _nib(q & 15)], 1).tobytes()


def _scale_min(sub, levels, bits):
    """per sub-block scale and (non-negative) min, as bits-bit integers times
    a half-precision d and dmin; returns d, dmin (float32 after the half
    round trip) and the integer scales and mins"""
    mn = np.minimum(sub.min(2), 0)
    scale = (sub.max(2) - mn) / F32(levels)
    top = F32((1 << bits) - 1)
    d = h2f(f16(scale.max(1) / top).view(np.uint16))
    dmin = h2f(f16((-mn).max(1) / top).view(np.uint16))
    sc = _rint(_safe_div(scale, d[:, None]), 0, top)
    m = _rint(_safe_div(-mn, dmin[:, None]), 0, top)
    return d, dmin, sc, m


def _q_q2_k(b):
    sub = b.reshape(-1, 16, 16)
    d, dmin, sc, m = _scale_min(sub, 3, 4)
    dl = (d[:, None] * sc.astype(F32)).repeat(16, 1)
    ml = (dmin[:, None] * m.astype(F32)).repeat(16, 1)
    q = _rint(_safe_div(b + ml, dl), 0, 3)
    qs = np.zeros((len(b), 64), np.uint8)
    for v in range(256):
        qs[:, _Q2_BYTE[v]] |= (q[:, v] << _Q2_SHIFT[v]).astype(np.uint8)
    return np.concatenate([(sc | m << 4).astype(np.uint8), qs, _h(d), _h(dmin)], 1).tobytes()


def _q_q3_k(b):
    sub = b.reshape(-1, 16, 16)
    scale = np.abs(sub).max(2) / F32(4)
    d = h2f(f16(scale.max(1) / F32(31)).view(np.uint16))
    sc = _rint(_safe_div(scale, d[:, None]), -32, 31)
    dl = (d[:, None] * sc.astype(F32)).repeat(16, 1)
    q = _rint(_safe_div(b, dl), -4, 3) + 4
    hm = np.zeros((len(b), 32), np.uint8)
    qs = np.zeros((len(b), 64), np.uint8)
    for v in range(256):
        hm[:, v % 32] |= ((q[:, v] >> 2) << (v // 32)).astype(np.uint8)
        qs[:, _Q2_BYTE[v]] |= ((q[:, v] & 3) << _Q2_SHIFT[v]).astype(np.uint8)
    return np.concatenate([hm, qs, _q3_scales_pack(sc + 32), _h(d)], 1).tobytes()


def _q_q45_k(b, five):
    sub = b.reshape(-1, 8, 32)
    top = 31 if five else 15
    d, dmin, sc, m = _scale_min(sub, top, 6)
    dl = (d[:, None] * sc.astype(F32)).repeat(32, 1)
    ml = (dmin[:, None] * m.astype(F32)).repeat(32, 1)
    q = _rint(_safe_div(b + ml, dl), 0, top)
    qs = np.zeros((len(b), 128), np.uint8)
    qh = np.zeros((len(b), 32), np.uint8)
    for v in range(256):
        qs[:, _Q4_BYTE[v]] |= ((q[:, v] & 15) << (4 * _Q4_HIGH[v])).astype(np.uint8)
        qh[:, v % 32] |= ((q[:, v] >> 4) << (v // 32)).astype(np.uint8)
    parts = [_h(d), _h(dmin), _k_scales_pack(sc, m)] + ([qh] if five else []) + [qs]
    return np.concatenate(parts, 1).tobytes()


def _q_q4_k(b):
    return _q_q45_k(b, False)


def _q_q5_k(b):
    return _q_q45_k(b, True)


def _q_q6_k(b):
    sub = b.reshape(-1, 16, 16)
    scale = np.abs(sub).max(2) / F32(32)
    d = h2f(f16(scale.max(1) / F32(127)).view(np.uint16))
    sc = _rint(_safe_div(scale, d[:, None]), -128, 127)
    dl = (d[:, None] * sc.astype(F32)).repeat(16, 1)
    q = _rint(_safe_div(b, dl), -32, 31) + 32
    ql = np.zeros((len(b), 128), np.uint8)
    qh = np.zeros((len(b), 64), np.uint8)
    for v in range(256):
        ql[:, _Q6_L[v]] |= ((q[:, v] & 15) << (4 * _Q6_LH[v])).astype(np.uint8)
        qh[:, _Q6_H[v]] |= ((q[:, v] >> 4) << _Q6_HS[v]).astype(np.uint8)
    return np.concatenate([ql, qh, sc.astype(np.int8).view(np.uint8), _h(d)], 1).tobytes()


def dequantize(tname, data, n):
    """n values of type tname from data, as ggml's reference dequantisers
    compute them."""
    if tname == 'F32':
        return np.frombuffer(data, '<f4', n).astype(F32)
    if tname == 'F16':
        return h2f(np.frombuffer(data, '<u2', n))
    if tname == 'BF16':
        return (np.frombuffer(data, '<u2', n).astype(np.uint32) << 16).view(F32)
    _, qk, size = TYPES[ID[tname]]
    b = _blocks(data[:n // qk * size], size)
    return globals()['_d_' + tname.lower()](b).reshape(-1)[:n]


def _d_q8_0(b):
    return b[:, 2:].view(np.int8).astype(F32) * h2f(b[:, :2].copy().view('<u2'))


def _hf(b, at):       # the half at byte `at` of every block, [nb, 1]
    return h2f(b[:, at:at + 2].copy().view('<u2'))


def _d_q4_0(b):
    return (_unnib(b[:, 2:]) - 8).astype(F32) * _hf(b, 0)


def _d_q4_1(b):
    return _unnib(b[:, 4:]).astype(F32) * _hf(b, 0) + _hf(b, 2)


def _d_q5_0(b):
    q = _unnib(b[:, 6:]) | _qh_bits(b[:, 2:6]) << 4
    return (q - 16).astype(F32) * _hf(b, 0)


def _d_q5_1(b):
    q = _unnib(b[:, 8:]) | _qh_bits(b[:, 4:8]) << 4
    return q.astype(F32) * _hf(b, 0) + _hf(b, 2)


def _d_q2_k(b):
    sc = b[:, 0:16].astype(np.int32)
    q = (b[:, 16:80][:, _Q2_BYTE].astype(np.int32) >> _Q2_SHIFT) & 3
    dl = (_hf(b, 80) * (sc & 15).astype(F32)).repeat(16, 1)
    ml = (_hf(b, 82) * (sc >> 4).astype(F32)).repeat(16, 1)
    return dl * q.astype(F32) - ml


def _d_q3_k(b):
    hm = (b[:, 0:32][:, _V % 32].astype(np.int32) >> (_V // 32)) & 1
    q = ((b[:, 32:96][:, _Q2_BYTE].astype(np.int32) >> _Q2_SHIFT) & 3) - 4 * (1 - hm)
    dl = (_hf(b, 108) * _q3_scales_unpack(b[:, 96:108]).astype(F32)).repeat(16, 1)
    return dl * q.astype(F32)


def _d_q45_k(b, five):
    sc, mn = _k_scales_unpack(b[:, 4:16])
    qs = b[:, 48:176] if five else b[:, 16:144]
    q = (qs[:, _Q4_BYTE].astype(np.int32) >> (4 * _Q4_HIGH)) & 15
    if five:
        q = q + 16 * ((b[:, 16:48][:, _V % 32].astype(np.int32) >> (_V // 32)) & 1)
    d1 = (_hf(b, 0) * sc.astype(F32)).repeat(32, 1)
    m1 = (_hf(b, 2) * mn.astype(F32)).repeat(32, 1)
    return d1 * q.astype(F32) - m1


def _d_q4_k(b):
    return _d_q45_k(b, False)


def _d_q5_k(b):
    return _d_q45_k(b, True)


def _d_q6_k(b):
    lo = (b[:, 0:128][:, _Q6_L].astype(np.int32) >> (4 * _Q6_LH)) & 15
    hi = (b[:, 128:192][:, _Q6_H].astype(np.int32) >> _Q6_HS) & 3
    q = (lo | hi << 4) - 32
    sc = b[:, 192:208].view(np.int8).astype(F32)
    return (_hf(b, 208) * sc).repeat(16, 1) * q.astype(F32)


# where each format keeps its half-precision scales (byte offsets)
HALVES = {'Q4_0': [0], 'Q4_1': [0, 2], 'Q5_0': [0], 'Q5_1': [0, 2], 'Q8_0': [0],
          'Q2_K': [80, 82], 'Q3_K': [108], 'Q4_K': [0, 2], 'Q5_K': [0, 2], 'Q6_K': [208]}


def random_blocks(tname, nb, rng):
    """nb blocks of random bits whose halves are finite (any exponent,
    subnormals included); F32/F16/BF16: random finite values."""
    _, qk, size = TYPES[ID[tname]]
    b = rng.integers(0, 256, size=(nb, size), dtype=np.uint8)
    for at in HALVES.get(tname, []):
        h = b[:, at:at + 2].copy().view('<u2')
        h &= np.uint16(0xbbff)      # exponent below 31: finite
        b[:, at:at + 2] = h.view(np.uint8).reshape(-1, 2)
    if tname == 'F16':     # any bits: subnormals, inf, NaN (quiet and signalling)
        return rng.integers(0, 1 << 16, nb, dtype=np.uint16).astype('<u2').tobytes()
    if tname in ('F32', 'BF16'):
        x = (rng.standard_normal(nb * qk) * 10.0 ** rng.integers(-6, 6, nb * qk)).astype(F32)
        return quantize(tname, x)
    return b.tobytes()
