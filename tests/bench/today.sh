#!/bin/sh
# Times a SmolLM2-135M-shaped model (d 576, 30 layers, 9 heads, 3 key/value
# heads, head_dim 64, d_ff 1536, vocabulary 49,152: Llama's block, random
# weights written by tests/hfmodels/llamaref.py as a Hugging Face folder) at
# 64 and 512 tokens: the traced pass against the same run's 1024³ sgemm
# rate (tests/bench/forward.sh, medians of RUNS), the time to open it, and
# the stepper's frame and recompute.
#   tests/bench/today.sh [ATTNSCOPE] [RUNS] [PYTHON3]
set -eu
bin=${1:-./attnscope}
runs=${2:-5}
py=${3:-/usr/bin/python3}
here=$(dirname "$0")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$py" "$here/../hfmodels/llamaref.py" make "$dir/smol" llama --d 576 --heads 9 \
	--kv-heads 3 --layers 30 --d-ff 1536 --vocab 49152 --max-len 8192 --tie 1 \
	--theta 100000 --dtype bf16 --std 0.02
echo "open: $("$bin" bench --model "$dir/smol" --iters 1 --tgt-len 8 2>&1 | grep -m1 load || true)"
/usr/bin/time -f "info (load) wall_s=%e max_rss_kb=%M" "$bin" info --model "$dir/smol" >/dev/null
for n in 64 512; do
	sh "$here/forward.sh" "$bin" "$dir/smol" "$runs" --tgt-len "$n" --frames 5
done
