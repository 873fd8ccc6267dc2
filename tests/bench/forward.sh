#!/bin/sh
# Runs `attnscope bench` R times on a model and reports the median of each
# run's figures: pass time, achieved GFLOP/s, the same run's 1024³ sgemm
# GFLOP/s and their ratio (the ratio is what holds on a noisy machine).
#   tests/bench/forward.sh [ATTNSCOPE] [MODEL] [RUNS] [extra bench args]
set -eu
bin=${1:-./attnscope}
model=${2:-models/base.yaml}
runs=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
	"$bin" bench --model "$model" "$@" >> "$out"
	i=$((i + 1))
done
med() { grep -o "$1=[0-9.]*" "$out" | cut -d= -f2 | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "runs=$runs model=$model $*"
echo "median of medians: pass_ms=$(med median_ms) gflops=$(med gflops) sgemm_1024_gflops=$(med sgemm_1024_gflops) ratio=$(med ratio)"
grep -q "frame:" "$out" && echo "frame_ms(median of runs)=$(grep '^frame:' "$out" | grep -o 'median_ms=[0-9.]*' | cut -d= -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
grep -q "recompute+frame" "$out" && echo "recompute_frame_ms(median of runs)=$(grep '^recompute' "$out" | grep -o 'median_ms=[0-9.]*' | cut -d= -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
