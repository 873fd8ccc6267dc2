#!/usr/bin/env python3
"""Writes the hostile model files of tests/hostile.test into OUTDIR.

    python3 tests/hostile/generate.py OUTDIR

Each case is a directory OUTDIR/NAME with a model.yaml (and the files it
names); OUTDIR/cases lists one case a line: NAME, a TAB, and an extended
regular expression the one-line error must match.  The files are made on
the fly (some are tens of megabytes) and are never committed.  The model
they wrap is tests/bad_input.test's: encoder-only, d_model 2, one layer,
vocabulary a b c, so each case differs from a good model in one way.
"""
import json
import os
import struct
import sys

out = sys.argv[1]
cases = []

V, D, F = 7, 2, 2
L = "encoder.layers.0."
GOOD = [  # name, shape
    ("src_embed.weight", [V, D]),
    (L + "self_attn.in_proj_weight", [3 * D, D]),
    (L + "self_attn.in_proj_bias", [3 * D]),
    (L + "self_attn.out_proj.weight", [D, D]),
    (L + "self_attn.out_proj.bias", [D]),
    (L + "linear1.weight", [F, D]),
    (L + "linear1.bias", [F]),
    (L + "linear2.weight", [D, F]),
    (L + "linear2.bias", [D]),
    (L + "norm1.weight", [D]),
    (L + "norm1.bias", [D]),
    (L + "norm2.weight", [D]),
    (L + "norm2.bias", [D]),
]

YAML = """name: hostile
architecture: encoder-only
d_model: 2
heads: 1
encoder_layers: 1
d_ff: 2
max_len: 8
tokenizer:
  type: word
  source_vocab: vocab.txt
weights: weights.safetensors
"""


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def header(entries):
    """entries: name -> (dtype, shape, [begin, end]); JSON padded to 8."""
    h = json.dumps({k: {"dtype": d, "shape": s, "data_offsets": o}
                    for k, (d, s, o) in entries.items()}).encode()
    return h + b" " * ((8 - len(h) % 8) % 8)


def good_entries():
    e, off = {}, 0
    for name, shape in GOOD:
        n = 4 * numel(shape)
        e[name] = ("F32", shape, [off, off + n])
        off += n
    return e, off


def case(name, expect, yaml=YAML, vocab="<pad>\n<s>\n</s>\n<unk>\na\nb\nc\n",
         weights=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.yaml"), "w") as f:
        f.write(yaml)
    if vocab is not None:
        with open(os.path.join(d, "vocab.txt"), "wb") as f:
            f.write(vocab.encode() if isinstance(vocab, str) else vocab)
    if weights is None:
        e, n = good_entries()
        weights = struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n
    with open(os.path.join(d, "weights.safetensors"), "wb") as f:
        f.write(weights)
    cases.append((name, expect))


# the control: a good model loads (expect is "OK")
case("good", "OK")

# ---- safetensors -----------------------------------------------------
e, n = good_entries()
h = header(e)
case("st-header-2^63", "header length 9223372036854775808 is larger",
     weights=struct.pack("<Q", 1 << 63) + h + b"\0" * n)
case("st-header-2^64-1", "header length 18446744073709551615 is larger",
     weights=struct.pack("<Q", (1 << 64) - 1) + h + b"\0" * n)

e, n = good_entries()
e["src_embed.weight"] = ("F32", [1 << 32, 1 << 32, 16], [0, 56])
case("st-shape-overflow", "overflows 64 bits",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
e["src_embed.weight"] = ("F32", [1 << 31, 1 << 31], [0, 56])   # 2^62 x 4 overflows
case("st-bytes-overflow", "overflows 64 bits",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
b0 = e[L + "linear1.weight"][2]
e[L + "linear2.weight"] = ("F32", [D, F], [b0[0] + 4, b0[1] + 4])  # overlaps linear1
case("st-offsets-overlap", "overlap",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
e[L + "norm2.bias"] = ("F32", [D], [n + 4096, n + 4104])
case("st-offsets-past-end", "past the end",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
e[L + "norm2.bias"] = ("F32", [D], [1 << 63, (1 << 63) + 8])
case("st-offsets-2^63", "past the end",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
e["src_embed.weight"] = ("F32", [16384, 16384], [0, 1 << 30])     # 1 GiB claimed
case("st-1GB-claimed", "past the end",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
e["src_embed.weight"] = ("F32", [16384, 16384], [0, 56])          # shape says 1 GiB
case("st-1GB-shape", "needs 1073741824 bytes",
     weights=struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)

e, n = good_entries()
case("st-truncated", "larger than|past the end",
     weights=(struct.pack("<Q", len(header(e))) + header(e) + b"\0" * n)[:40])

deep = b"[" * 1000000 + b"]" * 1000000
case("st-header-deep", "nested deeper",
     weights=struct.pack("<Q", len(deep)) + deep)

case("st-header-alias", "aliases",
     weights=struct.pack("<Q", 24) + b'{"a": &x [1], "b": *x}  ')

case("st-weights-dev-zero", "not a regular file",
     yaml=YAML.replace("weights.safetensors", "/dev/zero"))

# ---- YAML ------------------------------------------------------------
case("yaml-deep-flow", "nested deeper than 64",
     yaml=YAML + "examples: " + "[" * 1000000 + "]" * 1000000 + "\n")

case("yaml-deep-block", "nested deeper than 64", yaml=YAML + "training:\n" +
     "".join(" " * (i + 1) + "k:\n" for i in range(2000)) + " " * 2002 + "v\n")

laughs = "lol0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
for i in range(1, 10):
    laughs += "lol%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 9))
case("yaml-billion-laughs", "aliases are not allowed",
     yaml="training:\n" + "".join("  " + l for l in laughs.splitlines(True)) + YAML)
case("yaml-alias-merge", "aliases are not allowed",
     yaml=YAML + "tokenizer2: &t {type: word}\nexamples: [*t]\n")

def sparse(path, size):
    """Extends path to size bytes with a hole: costs no disk, reads as NULs."""
    with open(path, "r+b") as f:
        f.truncate(size)


case("yaml-1GB-file", "file too large", yaml=YAML + "description: " + "x" * 4096)
sparse(os.path.join(out, "yaml-1GB-file", "model.yaml"), 1 << 30)

case("yaml-2M-nodes", "too many YAML nodes",
     yaml=YAML + "examples: [" + "a," * (2 * 10 ** 6) + "a]\n")

# ---- vocabularies ----------------------------------------------------
case("vocab-10^7-file", "more than [0-9]+ tokens|exceeds the limit",
     vocab=b"<pad>\n<s>\n</s>\n<unk>\n" + b"w\n" * (10 ** 7))

case("vocab-10^7-inline", "file too large|too many YAML nodes",
     yaml=YAML.replace("source_vocab: vocab.txt",
                       "source_vocab: [\"<pad>\", \"<s>\", \"</s>\", \"<unk>\", " +
                       "w," * (10 ** 7) + "w]"))

case("vocab-1GB-line", "longer than 256 bytes",
     vocab=b"<pad>\n<s>\n</s>\n<unk>\n" + b"x" * (1 << 20))
sparse(os.path.join(out, "vocab-1GB-line", "vocab.txt"), 1 << 30)

case("vocab-dev-zero", "not a regular file",
     yaml=YAML.replace("source_vocab: vocab.txt", "source_vocab: /dev/zero"))

# ---- configurations that would need absurd memory --------------------
case("config-random-huge", "parameters.*limit",
     yaml="""name: huge
architecture: encoder-decoder
d_model: 65536
heads: 1
encoder_layers: 256
decoder_layers: 256
d_ff: 1048576
max_len: 65536
positional_encoding: learned
tokenizer:
  source_vocab: vocab.txt
init: {random: 1}
""")

e, n = good_entries()
case("inline-huge-rows", "row 0 must have|must be",
     yaml=YAML.replace("d_model: 2", "d_model: 65536").replace(
         "weights: weights.safetensors",
         "tensors:\n  src_embed.weight: [[1], [1], [1], [1], [1], [1], [1]]"))

with open(os.path.join(out, "cases"), "w") as f:
    for name, expect in cases:
        f.write("%s\t%s\n" % (name, expect))
