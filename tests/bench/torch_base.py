#!/usr/bin/python3
"""PyTorch's nn.Transformer at the paper's base size, S=T=64, batch 1: the
median forward time (eval, no_grad, float32), to set beside
`attnscope bench --model models/base.yaml` run right after it.

  /usr/bin/python3 tests/bench/torch_base.py [ITERS]   (needs python3-torch)
"""
import statistics
import sys
import time

import torch

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.set_num_threads(2)
torch.manual_seed(0)
d, V, S, T = 512, 313, 64, 64
model = torch.nn.Transformer(d_model=d, nhead=8, num_encoder_layers=6,
                             num_decoder_layers=6, dim_feedforward=2048,
                             dropout=0.0, batch_first=True).eval()
embed = torch.nn.Embedding(V, d)
src = embed(torch.randint(4, V, (1, S))).detach()
tgt = embed(torch.randint(4, V, (1, T))).detach()
mask = model.generate_square_subsequent_mask(T)
gen = torch.nn.Linear(d, V)
times = []
with torch.no_grad():
    for i in range(iters + 2):
        t0 = time.perf_counter()
        y = model(src, tgt, tgt_mask=mask)
        torch.softmax(gen(y), -1)
        dt = (time.perf_counter() - t0) * 1e3
        if i >= 2:
            times.append(dt)
print(f"torch {torch.__version__} threads={torch.get_num_threads()} "
      f"S={S} T={T} median_ms={statistics.median(times):.2f} "
      f"min_ms={min(times):.2f}")
