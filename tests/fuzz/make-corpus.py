#!/usr/bin/env python3
"""Writes the fuzz seed corpora: tests/fuzz/corpus/<target>/.

    python3 tests/fuzz/make-corpus.py        (from the source tree)

Seeds are the shipped models (models/*.yaml, tests/data/*.yaml) plus
hand-made edge cases (tokjson: small tokenizer.json files of each kind the
reader takes).  The model seeds may name the files fuzz_model keeps
in its temporary directory: v.txt (7 tokens), w.safetensors (the weights of
an encoder-only d_model 2 model) and base.vocab.txt.  Set ATTNSCOPE=path/to/attnscope
to include a trace written by `attnscope dump`.  Re-run after adding a
model; libFuzzer's own finds go elsewhere (tests/fuzz/run-long's work dir).
"""
import glob
import json
import os
import shutil
import struct
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
out = os.path.join(top, "tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- model (YAML) ----------------------------------------------------
shutil.rmtree(os.path.join(out, "model"), ignore_errors=True)
for p in sorted(glob.glob(os.path.join(top, "models", "*.yaml")) +
                glob.glob(os.path.join(top, "tests", "data", "*.yaml"))):
    put("model", "shipped-" + os.path.basename(p), open(p, "rb").read())

FILE_MODEL = """name: st
architecture: encoder-only
d_model: 2
heads: 1
encoder_layers: 1
d_ff: 2
max_len: 8
norm: post
positional_encoding: sinusoidal
tokenizer:
  type: word
  wrap_source: true
  source_vocab: v.txt
weights: w.safetensors
examples: ["a b c"]
"""
put("model", "file-weights.yaml", FILE_MODEL)
put("model", "file-weights-char.yaml",
    FILE_MODEL.replace("type: word", "type: char").replace("a b c", "abc"))
put("model", "file-weights-learned.yaml",
    FILE_MODEL.replace("sinusoidal", "learned"))
put("model", "file-weights-nobias.yaml", FILE_MODEL + "bias: false\n")

SMALL = """name: small
architecture: {arch}
d_model: 4
heads: 2
encoder_layers: 1
decoder_layers: 1
d_ff: 4
max_len: 16
norm: {norm}
norm_eps: 1.0e-6
activation: {act}
positional_encoding: {pe}
scale_embedding: {scale}
tokenizer:
  type: {tok}
  lowercase: {lower}
  wrap_source: {wrap}
  source_vocab: ["<pad>", "<s>", "</s>", "<unk>", "a", "b", "c", "d", "e"]
  specials: {{pad: "<pad>", sos: "<s>", eos: "</s>", unk: "<unk>"}}
init: {{random: 3}}
examples: ["a b c", "d e"]
training: {{steps: 10, corpus: none}}
"""
i = 0
for arch in ("encoder-decoder", "decoder-only", "encoder-only"):
    for norm, act, pe, tok in (("post", "relu", "sinusoidal", "word"),
                               ("pre", "gelu", "learned", "char"),
                               ("none", "relu", "none", "word")):
        y = SMALL.format(arch=arch, norm=norm, act=act, pe=pe, tok=tok,
                         lower="true" if i % 2 else "false",
                         wrap="false" if i % 3 else "true",
                         scale="yes" if i % 2 else "off")
        if arch != "encoder-decoder":
            y = y.replace("decoder_layers: 1\n" if arch == "encoder-only"
                          else "encoder_layers: 1\n", "")
        put("model", "small-%s-%s.yaml" % (arch, norm), y)
        i += 1

put("model", "empty.yaml", "")
put("model", "null.yaml", "~\n")
put("model", "scalar.yaml", "just a string\n")
put("model", "list.yaml", "- a\n- b\n")
put("model", "alias.yaml", "name: &a x\ndescription: *a\n")
put("model", "laughs.yaml", "a: &a [x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
put("model", "deep.yaml", "name: " + "[" * 100 + "]" * 100 + "\n")
put("model", "two-docs.yaml", "name: a\n---\nname: b\n")
put("model", "unknown-key.yaml", "name: x\ndmodel: 4\n")
put("model", "dup-key.yaml", "name: x\nname: y\n")
put("model", "bad-utf8.yaml", b"name: \xff\xfe\n")
put("model", "tabs.yaml", "name:\tx\n\td_model: 4\n")
put("model", "numbers.yaml", "name: x\nd_model: 99999999999999999999\nheads: -1\n"
    "norm_eps: .nan\nmax_len: 0x10\n")
put("model", "inline-bad.yaml", """name: t
architecture: encoder-only
d_model: 2
heads: 1
encoder_layers: 1
d_ff: 2
max_len: 4
tokenizer: {source_vocab: ["<pad>", "<s>", "</s>", "<unk>"]}
tensors:
  src_embed.weight: [[1, 0], [0, 1], [.inf, -.inf], [1e40, .nan]]
  encoder.layers.0.self_attn.in_proj_weight: [[1, 0], [0, 1]]
""")
put("model", "vocab-file-missing.yaml", FILE_MODEL.replace("v.txt", "nope.txt"))
put("model", "vocab-dup.yaml", FILE_MODEL.replace(
    "source_vocab: v.txt", 'source_vocab: ["<pad>", "<s>", "</s>", "<unk>", "a", "a"]'))
put("model", "specials-order.yaml", FILE_MODEL.replace(
    "source_vocab: v.txt", 'source_vocab: ["<s>", "<pad>", "</s>", "<unk>", "a"]'))

# ---- safetensors -----------------------------------------------------
shutil.rmtree(os.path.join(out, "safetensors"), ignore_errors=True)


def st(tensors, meta=None, pad=True, hlen=None, tail=b""):
    """tensors: list of (name, dtype, shape, raw bytes)."""
    hdr, data = {}, b""
    if meta is not None:
        hdr["__metadata__"] = meta
    for name, dt, shape, raw in tensors:
        hdr[name] = {"dtype": dt, "shape": shape,
                     "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(hdr).encode()
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h) if hlen is None else hlen) + h + data + tail


f32 = lambda *v: struct.pack("<%df" % len(v), *v)
put("safetensors", "f32.safetensors",
    st([("a", "F32", [2, 2], f32(1, 2, 3, 4)), ("b", "F32", [3], f32(-1, 0, .5))],
       {"format": "pt", "src.tokens": "<s> a </s>"}))
put("safetensors", "dtypes.safetensors", st([
    ("f16", "F16", [4], struct.pack("<4H", 0x3c00, 0x8001, 0x7c00, 0x7e01)),
    ("bf16", "BF16", [2], struct.pack("<2H", 0x3f80, 0xff81)),
    ("f64", "F64", [2], struct.pack("<2d", 1e300, -1e-300)),
    ("i32", "I32", [2], struct.pack("<2i", 7, -7)),
    ("i64", "I64", [1], struct.pack("<q", 1 << 40)),
    ("u8", "U8", [3], b"abc"),
    ("bool", "BOOL", [1], b"\x01"),
]))
# I8 with its scales (one a row, one for all), one without, a lone _scale
put("safetensors", "q8.safetensors", st([
    ("w", "I8", [2, 3], struct.pack("<6b", -127, 1, 2, -3, 0, 127)),
    ("w_scale", "F32", [2, 1], f32(.5, 2)),
    ("v", "I8", [2], struct.pack("<2b", 5, -5)),
    ("v_scale", "F16", [], struct.pack("<H", 0x3e00)),
    ("bare", "I8", [1], b"\x05"), ("lone_scale", "F32", [1], f32(3))]))
put("safetensors", "scalar-empty.safetensors", st([
    ("scalar", "F32", [], f32(3.5)), ("empty", "F32", [0, 4], b""),
    ("empty2", "F16", [4, 0], b"")]))
put("safetensors", "meta-only.safetensors", st([], {"k": "v", "unicode": "é→∞"}))
put("safetensors", "no-pad.safetensors", st([("x", "F32", [1], f32(1))], pad=False))
put("safetensors", "unaligned.safetensors",
    st([("b", "U8", [1], b"z"), ("x", "F32", [2], f32(1, 2))], pad=False))
put("safetensors", "hlen-huge.safetensors", st([("x", "F32", [1], f32(1))], hlen=1 << 63))
put("safetensors", "hlen-zero.safetensors", st([], hlen=0))
put("safetensors", "short.safetensors", b"\x10\x00\x00")
put("safetensors", "overlap.safetensors",
    struct.pack("<Q", 96) + json.dumps({
        "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}).encode().ljust(96)
    + f32(1, 2, 3))
put("safetensors", "past-end.safetensors",
    struct.pack("<Q", 64) + json.dumps({
        "a": {"dtype": "F32", "shape": [268435456],
              "data_offsets": [0, 1073741824]}}).encode().ljust(64) + f32(1))
put("safetensors", "overflow.safetensors",
    struct.pack("<Q", 104) + json.dumps({
        "a": {"dtype": "F64", "shape": [4294967296, 4294967296, 2],
              "data_offsets": [0, 0]}}).encode().ljust(104))
put("safetensors", "dup-name.safetensors",
    struct.pack("<Q", 120) + b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},'
    b' "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}'.ljust(120) + f32(1, 2))
# an object whose keys are all empty: nothing goes into json.c's key arena
put("safetensors", "dup-empty-key.safetensors",
    struct.pack("<Q", 24) + b'{"a":{"":[2],"":[0,8]}}'.ljust(24) + f32(1, 2))
put("safetensors", "not-json.safetensors", struct.pack("<Q", 8) + b"[1, 2, 3")
put("safetensors", "escapes.safetensors",
    st([("na\u00efve\u2028name\"\\", "F32", [1], f32(0))],
       {"\u0085": "\t\u00a0\ufeff", "nul": "a\u0000b"}))
# the trace of a real pass, as `attnscope dump` writes it
exe = os.environ.get("ATTNSCOPE")
if exe:
    import subprocess
    subprocess.check_call([exe, "dump", "--model", os.path.join(top, "models", "seed-toy.yaml"),
                           "--out", os.path.join(out, "safetensors", "dump-seed-toy.safetensors"),
                           "your cat is"])
else:
    print("ATTNSCOPE not set: no dump-seed-toy.safetensors seed", file=sys.stderr)

# ---- torchsave: mode byte, then a file, a pickle or a packed archive ----
# (fuzz_torchsave.c).  Real files come from tests/torchsave/make.py, which
# needs PyTorch: run this script with Debian's /usr/bin/python3.
shutil.rmtree(os.path.join(out, "torchsave"), ignore_errors=True)


def packed(pt):
    """Mode 2: data.pkl and storages 0..C-1 of a torch.save file."""
    import zipfile
    z = zipfile.ZipFile(pt)
    names = z.namelist()
    pkl = [n for n in names if n.endswith("/data.pkl")][0]
    folder = pkl[: -len("data.pkl")]
    st = []
    while folder + "data/%d" % len(st) in names:
        st.append(z.read(folder + "data/%d" % len(st)))
    p = z.read(pkl)
    return (b"\x02" + struct.pack("<H", len(p)) + p + bytes([len(st)])
            + b"".join(struct.pack("<H", len(s)) for s in st) + b"".join(st))


try:
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as work:
        # a relative folder: the hostile pickles name a path in it, the
        # same on every run
        subprocess.run([sys.executable, os.path.join(top, "tests", "torchsave", "make.py"),
                        "seeds"], check=True, cwd=work)
        tmp = os.path.join(work, "seeds")
        for f in ("odd.pt", "namespace.pt"):
            put("torchsave", "file-" + f, b"\x00" + open(os.path.join(tmp, f), "rb").read())
            put("torchsave", "packed-" + f, packed(os.path.join(tmp, f)))
        put("torchsave", "meta.pkl", b"\x01" + open(os.path.join(tmp, "meta.pkl"), "rb").read())
        for f in sorted(glob.glob(os.path.join(tmp, "bad", "*.pt"))):
            data = open(f, "rb").read()
            if len(data) < 16384:
                put("torchsave", "bad-" + os.path.basename(f), b"\x00" + data)
except (ImportError, subprocess.CalledProcessError) as exc:
    print("no torchsave seeds (tests/torchsave/make.py needs PyTorch): %s" % exc,
          file=sys.stderr)

# ---- tokenize: flags byte, then sentence [TAB target] -----------------
shutil.rmtree(os.path.join(out, "tokenize"), ignore_errors=True)
sentences = [
    "your cat is a lovely cat", "i love you very much", "Your CAT, is... a lovely cat!",
    "você é adorável ção", "ÀÉÎÕÜ ĀĂĄĆ Ÿ ß", "«hello» ¿qué? ¡sí! — “quoted” ‘x’ …",
    "tab\tseparated\ttarget", "your cat\tseu gato é um gato adorável",
    "a" * 300, "x " * 200, "日本語のテキスト 😀👍🏽", "e\u0301 combining",
    "\u00a0nbsp\u00a0and\u2028line sep", "   ", "",
]
for i, s in enumerate(sentences):
    for flags in (0, 1, 2, 3, 4, 7, 0x1e, 0x7f):
        put("tokenize", "s%02d-f%02x" % (i, flags), bytes([flags]) + s.encode())
bad = [b"\xff\xfe", b"\xc0\xaf overlong", b"\xed\xa0\x80 surrogate", b"\xf4\x90\x80\x80 big",
       b"trunc \xe2\x82", b"\x80\x80\x80", b"ok \xefbroken", b"\xef\xbf\xbd real fffd",
       b"mixed \xc3\xa9\xc3 end"]
for i, s in enumerate(bad):
    for flags in (0, 1, 3):
        put("tokenize", "bad%02d-f%02x" % (i, flags), bytes([flags]) + s)
# kept from libFuzzer runs of the BPE tokenizer (flags 0x86 and 0x82)
put("tokenize", "bpe-utf8", b"\x86eses esest\xff lo w \xc3\xa7\xc3\xa3o!")
put("tokenize", "bpe-words", b"\x82Lowest newer, widest? gatos cora\xc3\xa7\xc3\xa3o\tos gatos")

# ---- lineedit: key events (see fuzz_lineedit.c) ----------------------
shutil.rmtree(os.path.join(out, "lineedit"), ignore_errors=True)
K = {"left": 0, "right": 1, "home": 2, "end": 3, "bs": 4, "del": 5, "enter": 6,
     "esc": 7, "ca": 8, "ce": 9, "cu": 10, "up": 11, "mouse": 17, "resize": 18}
k = lambda *names: bytes(K[n] for n in names)
put("lineedit", "type", "hello world".encode() + b"\x1d")
put("lineedit", "edit", k("cu") + "i love you".encode() + k("left", "left", "bs", "del")
    + "ção".encode() + k("home", "right") + b"\x1d" + k("enter"))
put("lineedit", "utf8", k("cu") + "日本語 😀 é".encode() + k("left") * 3 + k("bs") * 2 + b"\x1d")
put("lineedit", "invalid", k("cu") + b"\x1f\x03\xff\xfe\x80\x1f\x01\xc3" + k("left", "bs")
    + b"\xf0\x9f" + b"\x1d")
put("lineedit", "long", b"x" * 1100 + b"\x1d" + k("home") + b"y" * 10 + b"\x1d")
put("lineedit", "sizes", b"\x1c\x00\x00\x1d\x1c\x3c\x12\x1d\x1c\xff\x7f\x1d\x1c\x01\x01\x1d"
    b"\x1c\x28\x0c\x1d")
put("lineedit", "stages", b"".join(b"\x1e" + bytes([i, f]) + b"\x1d"
                                   for i, f in ((0, 0), (10, 1), (20, 2), (30, 4), (40, 8),
                                                (50, 16), (60, 3), (70, 31))))
put("lineedit", "cancel", "abc".encode() + k("esc", "ca", "ce", "cu", "up", "mouse", "resize")
    + b"\x1d")
# ---- lecture scripts -------------------------------------------------
shutil.rmtree(os.path.join(out, "lecture"), ignore_errors=True)
for p in sorted(glob.glob(os.path.join(top, "examples", "lectures", "*.yaml"))):
    put("lecture", "shipped-" + os.path.basename(p), open(p, "rb").read())
put("lecture", "minimal.yaml", "title: t\nmodel: m.yaml\nsteps:\n  - sentence: a b\n")
put("lecture", "empty.yaml", "")
put("lecture", "alias.yaml", "title: &t x\nmodel: *t\n")
put("lecture", "steps-kinds.yaml", "title: t\nmodel: m.yaml\nsteps: [{stage: src.ids, head: -1,"
    " view: heads, row: 99999999999, col: -5, beam: 0, alpha: .nan, step: 3, explain: yes,"
    " caption: \"\\u0000\"}, 7, [1], {}]\n")
# ---- corpus grammars --------------------------------------------------
shutil.rmtree(os.path.join(out, "grammar"), ignore_errors=True)
put("grammar", "shipped-grammar.yaml",
    open(os.path.join(top, "examples", "corpus", "grammar.yaml"), "rb").read())
SMALL = """features:
  g: [m, f]
  n: [sg, pl]
lexicon:
  the:
    en: [any]
    pt: [m.sg, f.sg, m.pl, f.pl]
    words: [{en: the, pt: o/a/os/as}]
  noun:
    en: [sg, pl]
    pt: [sg, pl]
    words:
      - {en: cat/cats, pt: gato/gatos, g: m}
      - {en: house/houses, pt: casa/casas, g: f}
  adj:
    en: [any]
    pt: [m.sg, f.sg, m.pl, f.pl]
    words:
      - {en: black, pt: preto/preta/pretos/pretas}
      - {en: white, pt: branco/branca/brancos/brancas}
  thing: {union: [noun]}
  pet: {like: noun, words: [{en: dog/dogs, pt: cao/caes, g: m}]}
phrases:
  np:
    head: N
    rules:
      - {slots: {D: {sym: the, agree: N}, N: {sym: noun, n: [sg, pl]}}, en: D N, pt: D N}
      - {weight: 2, slots: {D: {sym: the, agree: N}, A: {sym: adj, agree: N}, N: pet}, en: D A N, pt: D N A}
templates:
  - id: np
    require: [the black cat]
    slots:
      D: {sym: the, agree: N}
      N: {sym: noun, n: [sg, pl]}
      A: {sym: adj, agree: N}
    en: D A N
    pt: D N A
  - id: two
    weight: 2
    slots: {X: np, Y: {sym: np, differ: X}, T: thing}
    en: X and Y
    pt: X e=and Y
"""
put("grammar", "small.yaml", SMALL)
put("grammar", "empty.yaml", "")
put("grammar", "cycle.yaml", SMALL.replace("N: pet}", "N: np}"))
put("grammar", "join.yaml", SMALL.replace(", T: thing}", "}") + """join:
  lines: 10
  max_words: 8
  with:
    - {en: ".", pt: ".", weight: 3}
    - {en: "?", pt: "?", after: ["?"]}
    - {en: ", but", pt: ", mas", after: [".", "!", ""]}
""")
def nested(n, double):
    g = ["features:\n  n: [sg, pl]\nlexicon:\n  noun:\n    en: [sg, pl]\n    pt: [sg, pl]\n"
         "    words:\n      - {en: cat/cats, pt: gato/gatos}\nphrases:\n"
         "  p0:\n    head: N\n    rules:\n      - {slots: {N: noun}, en: N, pt: N}\n"]
    for i in range(1, n):
        if double:
            g.append("  p%d:\n    head: N\n    rules:\n      - {slots: {N: p%d, M: p%d}, "
                     "en: N M, pt: N M}\n" % (i, i - 1, i - 1))
        else:
            g.append("  p%d:\n    head: N\n    rules:\n      - {slots: {N: p%d}, en: N, pt: N}\n"
                     % (i, i - 1))
    g.append("templates:\n  - id: t\n    slots: {X: p%d}\n    en: X\n    pt: X\n" % (n - 1))
    return "".join(g)
put("grammar", "deep-33.yaml", nested(33, False))
put("grammar", "double-11.yaml", nested(11, True))
put("grammar", "double-12.yaml", nested(12, True))

# ---- parallel corpora (TSV) --------------------------------------------
shutil.rmtree(os.path.join(out, "corpus"), ignore_errors=True)
put("corpus", "heldout-sample.tsv",
    open(os.path.join(top, "tests", "data", "en-pt-heldout-sample.tsv"), "rb").read())
put("corpus", "small.tsv", "i love you very much\teu te amo muito\t0-0 1-2 2-1 3-3 4-3\n"
    "your cat\tseu gato\n\nthe cat\to gato\t\r\n")
put("corpus", "bad-lines.tsv", "no tab here\n\tempty source\t\na b\tc d\t0-9\n"
    "a b\tc d\t0-0 x\na b\tc d\t-1-0\na\tb\t0-0 0-0\n")
put("corpus", "empty.tsv", "")
put("corpus", "utf8.tsv", "café à\tcoração ç\t1-0 0-1\n".encode() + b"\xff\xfe a\tb\n")
put("corpus", "spaces.tsv", "  a   b  \t c\t0-0\na\tb\t0-0\t9-9\n")
# found by fuzz_corpus: a CR inside a line and NUL bytes in a target
put("corpus", "cr-inside-line",
    b"i love you very much\teu te amo mu\x10\x00\x00\x00`\xc0\x00'z\x80ito\t0-0 1-r 2-1 3-3 4-3\n"
    b"your c]t\ts" + b"{" * 51 + b")" * 5 + b"{" * 30 + b"eu ?gato\n\nthe ~cat\to gato\r\r\n")
# ---- gguf: small valid files and the hostile catalogue of tests/gguf ----
shutil.rmtree(os.path.join(out, "gguf"), ignore_errors=True)
try:
    sys.path.insert(0, os.path.join(top, "tests", "gguf"))
    import hostile  # noqa: E402  (numpy)
    put("gguf", "typed-v3.gguf", hostile.typed())
    put("gguf", "small-llama.gguf", hostile.small().raw())
    for name, data, _ in hostile.catalogue():
        put("gguf", name + ".gguf", data)
except ImportError as exc:
    print("no gguf seeds (tests/gguf needs numpy): %s" % exc, file=sys.stderr)

# ---- tokenizer.json (fuzz_tokjson: the file, then NUL and a text) ------
shutil.rmtree(os.path.join(out, "tokjson"), ignore_errors=True)


def added(i, c, special=True, **kw):
    d = {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": special}
    d.update(kw)
    return d


def gpt2_bytes():
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, k = {}, 0
    for b in range(256):
        if b in bs:
            cs[b] = chr(b)
        else:
            cs[b] = chr(256 + k)
            k += 1
    return cs


LLAMA3_RE = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?"
             "[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
bmap = gpt2_bytes()
bvocab = {bmap[b]: b for b in range(256)}
bmerges = []
for a, b in [("\u0120", "t"), ("h", "e"), ("\u0120t", "he"), ("i", "n"), ("\u0120", "a"),
             ("o", "r"), ("1", "2"), ("\u0120\u0120", "\u0120")] :
    if a not in bvocab:
        bvocab[a] = len(bvocab)
    bvocab[a + b] = len(bvocab)
    bmerges.append([a, b])
bvocab = dict(sorted(bvocab.items(), key=lambda kv: kv[1]))
n = len(bvocab)
byte_level = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(n, "<|begin_of_text|>"), added(n + 1, "<|end_of_text|>"),
                     added(n + 2, "<think>", False)],
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": LLAMA3_RE}, "behavior": "Isolated",
         "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]},
    "post_processor": {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
         "use_regex": True},
        {"type": "TemplateProcessing",
         "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                    {"Sequence": {"id": "A", "type_id": 0}}],
         "pair": [], "special_tokens": {"<|begin_of_text|>": {
             "id": "<|begin_of_text|>", "ids": [n], "tokens": ["<|begin_of_text|>"]}}}]},
    "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                "use_regex": True},
    "model": {"type": "BPE", "dropout": None, "unk_token": None,
              "continuing_subword_prefix": None, "end_of_word_suffix": None,
              "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
              "vocab": bvocab, "merges": bmerges}}
put("tokjson", "byte-level.json", json.dumps(byte_level))
put("tokjson", "byte-level-text", json.dumps(byte_level).encode() +
    "\0the 1234 <think> naïve\n\n😀 <|end_of_text|>".encode())
gpt2 = json.loads(json.dumps(byte_level))
gpt2["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
    {"type": "Digits", "individual_digits": True},
    {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}]}
gpt2["model"]["merges"] = [" ".join(m) for m in bmerges]
put("tokjson", "gpt2-digits.json", json.dumps(gpt2, indent=1))

sp = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)] + \
    ["\u2581", "a", "b", "c", "\u2581a", "ab", "\u2581ab", "bc", "\u00e9"]
spv = {p: i for i, p in enumerate(sp)}
sp_bpe = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>"),
                     added(len(sp), "<m>", False, lstrip=True, rstrip=True),
                     added(len(sp) + 1, "word", False, single_word=True, normalized=True)],
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "pre_tokenizer": None,
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                  {"Sequence": {"id": "A", "type_id": 0}}],
                       "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1],
                                                              "tokens": ["<s>"]}}},
    "decoder": {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "fuse_unk": True,
              "byte_fallback": True, "vocab": spv,
              "merges": ["\u2581 a", "a b", "\u2581a b", "b c"]}}
put("tokjson", "sentencepiece-bpe.json", json.dumps(sp_bpe))
put("tokjson", "sentencepiece-bpe-text", json.dumps(sp_bpe).encode() +
    b"\0ab bc \xc3\xa9\n a <m> b word xyz\xff")
meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True}
mistral = json.loads(json.dumps(sp_bpe))
mistral["normalizer"] = None
mistral["pre_tokenizer"] = meta
mistral["decoder"] = meta
put("tokjson", "metaspace.json", json.dumps(mistral))
unigram = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Precompiled", "precompiled_charsmap": None},
        {"type": "Strip", "strip_left": False, "strip_right": True}, {"type": "Lowercase"}]},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, dict(meta, prepend_scheme="always")]},
    "post_processor": {"type": "TemplateProcessing",
                       "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                  {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                       "pair": [], "special_tokens": {"</s>": {"id": "</s>", "ids": [1],
                                                               "tokens": ["</s>"]}}},
    "decoder": dict(meta, prepend_scheme="always"),
    "model": {"type": "Unigram", "unk_id": 2, "byte_fallback": False, "vocab": [
        ["<pad>", 0], ["</s>", 0], ["<unk>", 0], ["\u2581", -2], ["\u2581a", -1], ["b", -2],
        ["ab", -1.5], ["a", -3], ["\u2581ab", -4]]}}
put("tokjson", "unigram.json", json.dumps(unigram))
put("tokjson", "roberta.json", json.dumps(dict(
    byte_level, post_processor={"type": "RobertaProcessing", "sep": ["<|end_of_text|>", n + 1],
                                "cls": ["<|begin_of_text|>", n], "trim_offsets": True,
                                "add_prefix_space": False})))
put("tokjson", "wordlevel.json", '{"model": {"type": "WordLevel", "vocab": {"a": 0}}}')
# a precompiled charsmap the SentencePiece library wrote (tests/unit/test_tokjson.c
# says its rules), as T5's normalizer
CHARSMAP = ("AAQAAAAgAAAJDQAAAQAAgAUAAIDMAAIAgQ0AAAoAAICAEAIAiwUAAAAAAICsAAIAgR0AAAcA"
    "AIChDQAAAwAAgA4AAAARAAAAEAAAABMAAAASAAAAFQAAABQAAAAXAAAAFgAAABkAAAAYAAAA"
    "vNgCABoAAAAdAAAAHAAAAB8AAAAeAAAAIQAAACAAAAAjAAAAIgAAACUAAAAkAAAAJwAAACYA"
    "AAApAAAAKAAAACsAAAAqAAAALQAAACwAAAAvAAAALgAAADEAAAAwAAAAMwAAADIAAAA1AAAA"
    "NAAAADcAAAA2AAAAOQAAADgAAAA7AAAAOgAAAD0AAAA8AAAAPwAAAD4AAABBAAAAQAAAAEMA"
    "AABCAAAARQAAAEQAAABHAAAARgAAAEkAAABBKQEASwAAAEoAAABNAAAATAAAAE8AAABOAAAA"
    "UQAAAFAAAABTAAAAUgAAAFUAAABUAAAAVwAAAFYAAABZAAAAWAAAAFsAAABaAAAAXQAAAFwA"
    "AABfAAAAXgAAAGEAAABgAAAAYwAAAGIAAABlAAAAZAAAAGcAAABmAAAAaQAAAGgAAABrAAAA"
    "agAAAG0AAABllAIAbwAAAG4AAABxAAAAcAAAAHMAAAByAAAAdQAAAHQAAAB3AAAAdgAAAHkA"
    "AAB4AAAAewAAAHoAAAB9AAAAfAAAAH8AAAB+AAAAgQAAAIAAAACDAAAAggAAAIUAAACEAAAA"
    "hwAAAIYAAACJAAAAiAAAAIsAAACKAAAAjQAAAIwAAACPAAAAjgAAAJEAAACQAAAAkwAAAJIA"
    "AACVAAAAlAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0AAACcAAAAnwAAAJ4AAAChAAAA"
    "oAAAAKMAAACiAAAApQAAAKQAAACnAAAApgAAAKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8A"
    "AACuAAAAsQAAALAAAACzAAAAsgAAALUAAAC0AAAAtwAAALYAAAC5AAAAuAAAALsAAAC6AAAA"
    "vQAAALwAAAC/AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAAxAAAAMcAAADGAAAAyQAAAMgA"
    "AADLAAAAygAAAM0AAADMAAAAzwAAAM4AAADRAAAA0AAAANMAAADSAAAA1QAAANQAAADXAAAA"
    "1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA4QAAAOAAAADjAAAA4gAAAOUA"
    "AADkAAAA5wAAAO8EAQDpAAAA6AAAAOK0AQDqAAAA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA"
    "8wAAAPIAAAD1AAAA9AAAAPcAAAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAAD8AAAA/wAAAP4A"
    "AAAAIABBAGEAZmkAw6kA")
t5 = json.loads(json.dumps(unigram))
t5["normalizer"] = {"type": "Sequence", "normalizers": [
    {"type": "Precompiled", "precompiled_charsmap": CHARSMAP},
    {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
put("tokjson", "precompiled.json", json.dumps(t5))
put("tokjson", "precompiled-text", json.dumps(t5).encode() +
    "\0A \uff21 \ufb01\te\u0301 A\u0301\u200b  \r\n\u06dd\u0915\u093e".encode())


print("corpora written to", out)
