"""make_model.py - write a seeded random attnscope model (YAML + safetensors +
vocabulary files) for the golden tests.

    from make_model import make_model, PRESETS
    yaml_path, model = make_model(outdir, PRESETS["a"])

returns the YAML path and a reference.Model holding exactly the weights that
were written (rounded to float32, as the file stores them), so the
reference computes with the same numbers as the program.

Command line:  make_model.py OUTDIR [PRESET] [--seed N]   (PRESET: a, b, ...)

Weights are N(0, 0.3) (so attention softmaxes are far from flat);
LayerNorm weights are 1 + N(0, 0.2), their biases N(0, 0.1).

Extra config keys (not written to the YAML; they choose which tensors exist):
  seed             RNG seed
  final_norms      write encoder.norm / decoder.norm (default False)
  tied_generator   omit generator.weight (logits = x·E_tgtᵀ) (default False)
  generator_bias   write generator.bias (default True unless tied)
  separate_vocabs  distinct source/target vocabularies (default True for
                   encoder-decoder, else False)
"""

import json
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True  # the source tree may be read-only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402
import stio  # noqa: E402

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]

SOURCE_WORDS = """the a cat dog bird house is are was i you he she we they love loves
like sees saw eats my your his her our big small red green blue very much
and not in on with book water tree , . ! ?""".split()

TARGET_WORDS = """o a gato cão pássaro casa é são era eu você ele ela nós eles amo ama
gosto vê viu come meu minha seu sua nosso grande pequeno vermelho verde
azul muito e não em no na com livro água árvore te , . ! ?""".split()

YAML_KEYS = ["name", "description", "architecture", "d_model", "heads",
             "encoder_layers", "decoder_layers", "d_ff", "max_len", "norm",
             "norm_eps", "activation", "positional_encoding", "scale_embedding"]

PRESETS = {
    # (a) the paper's post-norm encoder-decoder with final norms
    "a": {
        "name": "golden-a", "architecture": "encoder-decoder", "d_model": 16,
        "heads": 4, "encoder_layers": 2, "decoder_layers": 2, "d_ff": 32,
        "max_len": 32, "norm": "post", "norm_eps": 1e-5, "activation": "relu",
        "positional_encoding": "sinusoidal", "scale_embedding": True,
        "final_norms": True, "tied_generator": False, "separate_vocabs": True,
        "seed": 1,
    },
    # (b) pre-norm, gelu, learned PE, tied generator, no final norm
    "b": {
        "name": "golden-b", "architecture": "encoder-decoder", "d_model": 16,
        "heads": 2, "encoder_layers": 2, "decoder_layers": 2, "d_ff": 24,
        "max_len": 32, "norm": "pre", "norm_eps": 1e-5, "activation": "gelu",
        "positional_encoding": "learned", "scale_embedding": False,
        "final_norms": False, "tied_generator": True, "separate_vocabs": True,
        "seed": 2,
    },
    # (c) encoder-only, post-norm, no PE, 1 layer, untied generator
    "c": {
        "name": "golden-c", "architecture": "encoder-only", "d_model": 8,
        "heads": 2, "encoder_layers": 1, "decoder_layers": 0, "d_ff": 16,
        "max_len": 32, "norm": "post", "norm_eps": 1e-5, "activation": "relu",
        "positional_encoding": "none", "scale_embedding": False,
        "final_norms": False, "tied_generator": False, "separate_vocabs": False,
        "seed": 3,
    },
    # (e) no LayerNorm, no PE, shared vocabulary (no tgt_embed), one head,
    #     generator without bias, source not wrapped in <s> </s>
    "e": {
        "name": "golden-e", "architecture": "encoder-decoder", "d_model": 8,
        "heads": 1, "encoder_layers": 1, "decoder_layers": 1, "d_ff": 16,
        "max_len": 32, "norm": "none", "norm_eps": 1e-5, "activation": "relu",
        "positional_encoding": "none", "scale_embedding": True,
        "final_norms": False, "tied_generator": False, "generator_bias": False,
        "separate_vocabs": False, "wrap_source": False, "seed": 5,
    },
    # (d) decoder-only, pre-norm with final norm, gelu, sinusoidal, tied
    "d": {
        "name": "golden-d", "architecture": "decoder-only", "d_model": 12,
        "heads": 3, "encoder_layers": 0, "decoder_layers": 2, "d_ff": 20,
        "max_len": 32, "norm": "pre", "norm_eps": 1e-5, "activation": "gelu",
        "positional_encoding": "sinusoidal", "scale_embedding": True,
        "final_norms": True, "tied_generator": True, "separate_vocabs": False,
        "seed": 4,
    },
}


def _yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        mant, e, exp = r.partition("e")
        if "." not in mant:
            mant += ".0"   # YAML 1.1 needs the dot: 1e-05 would be a string
        return mant + e + exp
    s = str(v)
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9._-]*", s) and s.lower() not in (
            "true", "false", "yes", "no", "on", "off", "null", "y", "n"):
        return s
    return json.dumps(s, ensure_ascii=False)  # a valid YAML double-quoted string


def build_weights(cfg, n_src, n_tgt, rng):
    d, ff = cfg["d_model"], cfg["d_ff"]
    arch, norm = cfg["architecture"], cfg["norm"]
    w = {}

    def normal(*shape, std=0.3):
        return rng.normal(0.0, std, size=shape)

    def ln(name):
        w[name + ".weight"] = 1.0 + normal(d, std=0.2)
        w[name + ".bias"] = normal(d, std=0.1)

    def attn(prefix):
        w[prefix + ".in_proj_weight"] = normal(3 * d, d)
        w[prefix + ".in_proj_bias"] = normal(3 * d)
        w[prefix + ".out_proj.weight"] = normal(d, d)
        w[prefix + ".out_proj.bias"] = normal(d)

    def ffn(prefix):
        w[prefix + ".linear1.weight"] = normal(ff, d)
        w[prefix + ".linear1.bias"] = normal(ff)
        w[prefix + ".linear2.weight"] = normal(d, ff)
        w[prefix + ".linear2.bias"] = normal(d)

    w["src_embed.weight"] = normal(n_src, d)
    if cfg.get("separate_vocabs"):
        w["tgt_embed.weight"] = normal(n_tgt, d)
    if cfg["positional_encoding"] == "learned":
        w["pos_embed.weight"] = normal(cfg["max_len"], d)
    if arch in ("encoder-decoder", "encoder-only"):
        for i in range(cfg["encoder_layers"]):
            p = "encoder.layers.%d" % i
            attn(p + ".self_attn")
            ffn(p)
            if norm != "none":
                ln(p + ".norm1")
                ln(p + ".norm2")
        if cfg.get("final_norms") and norm != "none":
            ln("encoder.norm")
    if arch in ("encoder-decoder", "decoder-only"):
        nsub = 3 if arch == "encoder-decoder" else 2
        for i in range(cfg["decoder_layers"]):
            p = "decoder.layers.%d" % i
            attn(p + ".self_attn")
            if arch == "encoder-decoder":
                attn(p + ".multihead_attn")
            ffn(p)
            if norm != "none":
                for k in range(1, nsub + 1):
                    ln("%s.norm%d" % (p, k))
        if cfg.get("final_norms") and norm != "none":
            ln("decoder.norm")
    if not cfg.get("tied_generator"):
        w["generator.weight"] = normal(n_tgt, d)
        if cfg.get("generator_bias", True):
            w["generator.bias"] = normal(n_tgt)
    # the file stores float32: hand the reference exactly those numbers
    return {k: v.astype(np.float32) for k, v in w.items()}


def make_model(outdir, cfg):
    """Write NAME.yaml, NAME.safetensors and vocab files into outdir.
    Returns (yaml_path, reference.Model)."""
    cfg = dict(cfg)
    cfg.setdefault("separate_vocabs", cfg["architecture"] == "encoder-decoder")
    os.makedirs(outdir, exist_ok=True)
    name = cfg["name"]
    rng = np.random.default_rng(cfg.get("seed", 0))
    src_vocab = SPECIALS + SOURCE_WORDS
    if cfg["separate_vocabs"]:
        tgt_vocab = SPECIALS + TARGET_WORDS
    else:
        src_vocab = SPECIALS + SOURCE_WORDS + [t for t in TARGET_WORDS if t not in SOURCE_WORDS]
        tgt_vocab = src_vocab
    weights = build_weights(cfg, len(src_vocab), len(tgt_vocab), rng)

    stio.write(os.path.join(outdir, name + ".safetensors"), weights,
               {"format": "pt", "generator": "tests/golden/make_model.py"})
    with open(os.path.join(outdir, name + ".src.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(src_vocab) + "\n")
    if cfg["separate_vocabs"]:
        with open(os.path.join(outdir, name + ".tgt.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(tgt_vocab) + "\n")

    lines = ["# random model written by tests/golden/make_model.py (seed %d)" % cfg.get("seed", 0)]
    c = dict(cfg)
    c.setdefault("description", "seeded random %s model for the golden tests" % cfg["architecture"])
    for k in YAML_KEYS:
        if k in c:
            lines.append("%s: %s" % (k, _yaml_scalar(c[k])))
    lines.append("tokenizer:")
    lines.append("  type: word")
    lines.append("  lowercase: true")
    lines.append("  wrap_source: %s" % _yaml_scalar(cfg.get("wrap_source", True)))
    lines.append("  source_vocab: %s" % _yaml_scalar(name + ".src.txt"))
    if cfg["separate_vocabs"]:
        lines.append("  target_vocab: %s" % _yaml_scalar(name + ".tgt.txt"))
    lines.append("weights: %s" % _yaml_scalar(name + ".safetensors"))
    yaml_path = os.path.join(outdir, name + ".yaml")
    with open(yaml_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")

    ref_cfg = {k: cfg[k] for k in YAML_KEYS if k in cfg}
    ref_cfg["tokenizer"] = {"type": "word", "lowercase": True,
                            "wrap_source": cfg.get("wrap_source", True)}
    model = reference.Model(ref_cfg, weights, src_vocab, tgt_vocab)
    return yaml_path, model


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: make_model.py OUTDIR [PRESET] [--seed N]   presets: %s"
              % " ".join(sorted(PRESETS)))
        return 0 if argv else 2
    outdir = argv[0]
    preset = "a"
    seed = None
    rest = argv[1:]
    while rest:
        a = rest.pop(0)
        if a == "--seed":
            seed = int(rest.pop(0))
        elif a in PRESETS:
            preset = a
        else:
            print("make_model.py: unknown argument %r" % a, file=sys.stderr)
            return 2
    cfg = dict(PRESETS[preset])
    if seed is not None:
        cfg["seed"] = seed
    path, _ = make_model(outdir, cfg)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
