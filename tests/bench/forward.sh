#!/bin/sh
# Runs `attnscope bench` R times on a model and reports the median of each
# run's figures: the traced pass (time, GFLOP/s, the 1024³ sgemm GFLOP/s
# measured between its passes and their ratio, which is what holds on a
# noisy machine, and the CPU ms a pass costs over all threads), the
# pass's linear products alone (their time, GFLOP/s and ratio: the ceiling
# of the pass's ratio) and the rest of the pass, the
# stepper's costs at 52+52 tokens (recompute + frame, the mask diff's two
# passes + frame, a step's frame) and beam search 4 × 48 tokens with the
# key/value cache.
#   tests/bench/forward.sh [ATTNSCOPE] [MODEL] [RUNS] [extra bench args]
# The extra arguments replace the default "--frames 20 --beam 4".
set -eu
bin=${1:-./attnscope}
model=${2:-models/base.yaml}
runs=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
[ $# -gt 0 ] || set -- --frames 20 --beam 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
	"$bin" bench --model "$model" "$@" >> "$out"
	i=$((i + 1))
done
# med PREFIX KEY: median over the runs of KEY= on the lines starting with
# PREFIX (keys are matched whole: gflops= is not sgemm_1024_gflops=)
med() {
	grep "^$1" "$out" | tr ' ' '\n' | sed -n "s/^$2=\([0-9.]*\).*/\1/p" | sort -n |
	awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "-"}'
}
echo "runs=$runs model=$model $*"
grep -m1 '^blas=' "$out" || true
echo "pass: S=$(med model= S) T=$(med model= T) median_ms=$(med median_ms= median_ms)" \
     "gflops=$(med flops= gflops) sgemm_1024_gflops=$(med sgemm_1024 sgemm_1024_gflops)" \
     "ratio=$(med sgemm_1024 ratio) cpu_ms=$(med cpu_ms= cpu_ms)"
echo "products: median_ms=$(med products_ms= products_ms)" \
     "gflops=$(med products_ms= products_gflops) ratio=$(med products_ms= products_ratio)" \
     "rest_ms=$(med products_ms= rest_ms)"
if grep -q '^frame:' "$out"; then
	echo "frame_ms=$(med frame: median_ms) recompute_frame_ms=$(med recompute+frame: median_ms)"
fi
if grep -q '^interactive:' "$out"; then
	echo "interactive 52+52: recompute_frame_ms=$(med interactive: recompute_frame_ms)" \
	     "mask_diff_ms=$(med interactive: mask_diff_ms) step_ms=$(med interactive: step_ms)"
fi
if grep -q '^decode:' "$out"; then
	echo "decode beam=$(med decode: beam) tokens=$(med decode: tokens):" \
	     "cached_ms=$(med decode: cached_ms) recomputed_ms=$(med decode: recomputed_ms)"
fi
