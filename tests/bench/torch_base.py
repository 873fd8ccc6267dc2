#!/usr/bin/python3
"""PyTorch's nn.Transformer beside `attnscope bench` on models/base.yaml:
the same weights (attnscope writes its seeded ones with --save-weights),
the same token ids, the same OpenBLAS kernels (OPENBLAS_CORETYPE set to
the core attnscope runs on, before torch loads OpenBLAS), 2 threads,
OMP_WAIT_POLICY=PASSIVE, eval, no_grad, float32.  The two are timed in turn, ROUNDS times, and the
ratio attnscope / PyTorch is taken round by round, so that it holds on a
noisy machine.

  /usr/bin/python3 tests/bench/torch_base.py [ATTNSCOPE [ROUNDS [ITERS [LEN]]]]

LEN is S = T (default 64).  Needs python3-torch and python3-numpy.
"""
import json
import math
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
binary = sys.argv[1] if len(sys.argv) > 1 else "./attnscope"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
iters = int(sys.argv[3]) if len(sys.argv) > 3 else 20
S = T = int(sys.argv[4]) if len(sys.argv) > 4 else 64
model_yaml = os.path.join(here, "..", "..", "models", "base.yaml")


def bench(*args):
    out = subprocess.run([binary, "bench", "--model", model_yaml, *args],
                         check=True, capture_output=True, text=True).stdout
    rec = {}
    for line in out.splitlines():
        for field in line.split():
            k, _, v = field.partition("=")
            rec.setdefault(k, v)
    return rec


first = bench("--iters", "1", "--src-len", str(S), "--tgt-len", str(T))
os.environ["OPENBLAS_CORETYPE"] = first["core"]   # before torch loads it
# torch's OpenMP threads spin while OpenBLAS's pthreads run its products: on
# 2 cores the two sets fight (perf: 40% of torch's time in libgomp, passes
# 5-20× slower).  Passive waiting is torch's best setting here;
# OMP_WAIT_POLICY=default measures libgomp's own policy (what a user gets).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
if os.environ["OMP_WAIT_POLICY"] == "default":
    del os.environ["OMP_WAIT_POLICY"]

import numpy as np  # noqa: E402
import torch  # noqa: E402


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in head.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", (name, t["dtype"])
        a, b = t["data_offsets"]
        out[name] = torch.from_numpy(
            np.frombuffer(data[a:b], dtype="<f4").reshape(t["shape"]).copy())
    return out


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "base.safetensors")
    subprocess.run([binary, "bench", "--model", model_yaml, "--save-weights", path],
                   check=True)
    w = read_safetensors(path)

torch.set_num_threads(2)
d, V = 512, w["src_embed.weight"].shape[0]
model = torch.nn.Transformer(d_model=d, nhead=8, num_encoder_layers=6,
                             num_decoder_layers=6, dim_feedforward=2048,
                             dropout=0.0, batch_first=True).eval()
# base.yaml has no final norms (encoder.norm, decoder.norm)
model.encoder.norm = None
model.decoder.norm = None
missing, unexpected = model.load_state_dict(
    {k: v for k, v in w.items() if k.startswith(("encoder.", "decoder."))}, strict=True)
embed = w["src_embed.weight"]          # shared, and tied to the generator
# bench's synthetic ids: tokens cycling through the vocabulary, <s> first
src_ids = torch.tensor([[4 + i % (V - 4) for i in range(S)]])
tgt_ids = torch.tensor([[1] + [4 + (i * 3) % (V - 4) for i in range(1, T)]])
pos = torch.arange(max(S, T), dtype=torch.float64)[:, None]
div = torch.pow(10000.0, torch.arange(0, d, 2, dtype=torch.float64) / d)
pe = torch.zeros(max(S, T), d, dtype=torch.float64)
pe[:, 0::2] = torch.sin(pos / div)
pe[:, 1::2] = torch.cos(pos / div)
pe = pe.float()
mask = model.generate_square_subsequent_mask(T)


def torch_pass():
    src = embed[src_ids] * math.sqrt(d) + pe[:S]
    tgt = embed[tgt_ids] * math.sqrt(d) + pe[:T]
    y = model(src, tgt, tgt_mask=mask)
    return torch.softmax(y @ embed.T, -1)


def torch_median():
    times = []
    with torch.no_grad():
        for i in range(iters + 2):
            t0 = time.perf_counter()
            torch_pass()
            if i >= 2:
                times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


ratios, tms, ams = [], [], []
for r in range(rounds):
    tm = torch_median()
    am = float(bench("--iters", str(iters), "--src-len", str(S),
                     "--tgt-len", str(T))["median_ms"])
    tms.append(tm)
    ams.append(am)
    ratios.append(am / tm)
    print(f"round {r + 1}: torch_ms={tm:.2f} attnscope_ms={am:.2f} ratio={am / tm:.3f}")
print(f"torch {torch.__version__} threads={torch.get_num_threads()} "
      f"core={first['core']} S={S} T={T} rounds={rounds} iters={iters}")
print(f"median: torch_ms={statistics.median(tms):.2f} "
      f"attnscope_ms={statistics.median(ams):.2f} "
      f"ratio={statistics.median(ratios):.3f} (attnscope / PyTorch)")
