#!/usr/bin/env python3
"""llama_folder.py DIR - a Hugging Face folder of Llama-3.2-1B's shape (d 2048,
32 heads, 8 key/value heads, head_dim 64, 16 layers, d_ff 8192, vocabulary
128,256, tied head, rope_theta 500000, llama3 rope scaling) with seeded random
BF16 weights (std 0.02), written a tensor at a time (2.5 GB on disk, never
all in memory: tests/hfmodels/llamaref.py holds every tensor in float64).
The tokenizer is llamaref's byte-level one (256 byte tokens, no merges): a
text of N bytes is N tokens, the other rows of the embedding unused.
For tests/bench/long.sh (issue 42's figures); numpy only."""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hfmodels"))
from llamaref import byte_unicode  # noqa: E402  (GPT-2's stand-ins for the bytes)

D, H, HKV, DK, L, F, V = 2048, 32, 8, 64, 16, 8192, 128256


def tensors():
    yield "model.embed_tokens.weight", (V, D)
    for i in range(L):
        p = "model.layers.%d." % i
        yield p + "input_layernorm.weight", (D,)
        yield p + "self_attn.q_proj.weight", (H * DK, D)
        yield p + "self_attn.k_proj.weight", (HKV * DK, D)
        yield p + "self_attn.v_proj.weight", (HKV * DK, D)
        yield p + "self_attn.o_proj.weight", (D, H * DK)
        yield p + "post_attention_layernorm.weight", (D,)
        yield p + "mlp.gate_proj.weight", (F, D)
        yield p + "mlp.up_proj.weight", (F, D)
        yield p + "mlp.down_proj.weight", (D, F)
    yield "model.norm.weight", (D,)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": V,
           "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L,
           "num_attention_heads": H, "num_key_value_heads": HKV, "head_dim": DK,
           "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
           "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
           "tie_word_embeddings": True, "torch_dtype": "bfloat16", "hidden_act": "silu",
           "bos_token_id": 1, "eos_token_id": 2}
    json.dump(cfg, open(os.path.join(out, "config.json"), "w"), indent=2)
    bu = byte_unicode()
    json.dump({c: i for i, c in enumerate(bu)}, open(os.path.join(out, "vocab.json"), "w"))
    open(os.path.join(out, "merges.txt"), "w").write("#version: 0.2\n")
    hdr, off = {}, 0
    for name, shape in tensors():
        n = int(np.prod(shape)) * 2
        hdr[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [off, off + n]}
        off += n
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    rng = np.random.default_rng(1)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for name, shape in tensors():
            if len(shape) == 1:   # norms' gains around 1
                x = (1 + 0.1 * rng.standard_normal(shape, dtype=np.float32)).astype(np.float32)
            else:
                x = 0.02 * rng.standard_normal(shape, dtype=np.float32)
            f.write((x.view(np.uint32) >> 16).astype(np.uint16).tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
