#!/bin/sh
# long.sh - the figures of issue 42 (long inputs): GPT-2-small's shape at
# 512, 2,048 and 4,096 tokens and Llama-3.2-1B's shape at 512, seeded
# random weights, prompts of random words from --file.  For each: `attnscope
# bench --file` (medians of RUNS opens: time to open, the pass's GFLOP/s
# against the same run's 1024³ sgemm, a step, the all-heads and model
# views of the last layer, another layer's attention) under
# /usr/bin/time -v (peak memory, the whole process: the model's weights
# too).
#   tests/bench/long.sh [ATTNSCOPE] [RUNS] [WHICH...]
# WHICH: gpt2-512 gpt2-2048 gpt2-4096 llama1b-512 (default: all).  Writes
# its models and prompts under ${TMPDIR:-/tmp}/attnscope-long.
set -eu
bin=${1:-./attnscope}
runs=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
[ $# -gt 0 ] || set -- gpt2-512 gpt2-2048 gpt2-4096 llama1b-512
dir=${TMPDIR:-/tmp}/attnscope-long
mkdir -p "$dir"

# a word vocabulary of V tokens: the four specials, then w0, w1, ...
vocab() {
	[ -s "$dir/vocab$1.txt" ] && return
	{ printf '<pad>\n<s>\n</s>\n<unk>\n'; i=0; awk -v n=$(($1 - 4)) 'BEGIN { for (i = 0; i < n; i++) print "w" i }'; } \
		> "$dir/vocab$1.txt"
}
# N-1 random words (the model adds <s>: N tokens)
prompt() {
	awk -v n=$(($1 - 1)) 'BEGIN { srand(1); for (i = 0; i < n; i++) printf "w%d%s", int(rand() * 50000), i + 1 < n ? " " : "\n" }' \
		> "$dir/prompt$1.txt"
}
vocab 50257
vocab 128256
cat > "$dir/gpt2-small.yaml" <<EOF
name: gpt2-small-shape
description: GPT-2 small's shape (124 M parameters), seeded random weights
architecture: decoder-only
d_model: 768
heads: 12
encoder_layers: 0
decoder_layers: 12
d_ff: 3072
max_len: 4096
norm: pre
activation: gelu_new
positional_encoding: learned
scale_embedding: false
tokenizer: {type: word, lowercase: true, source_vocab: vocab50257.txt}
init: {random: 1}
EOF
cat > "$dir/llama-1b.yaml" <<EOF
name: llama-3.2-1b-shape
description: Llama-3.2-1B's shape (1.2 G parameters), seeded random weights
architecture: decoder-only
d_model: 2048
heads: 32
kv_heads: 8
head_dim: 64
encoder_layers: 0
decoder_layers: 16
d_ff: 8192
max_len: 4096
norm: pre
norm_type: rmsnorm
ffn: gated
activation: silu
positional_encoding: rope
rope_theta: 500000
scale_embedding: false
tokenizer: {type: word, lowercase: true, source_vocab: vocab128256.txt}
init: {random: 1}
EOF

echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for w in "$@"; do
	case $w in
	gpt2-*) model=$dir/gpt2-small.yaml; n=${w#gpt2-} ;;
	llama1b-*) model=$dir/llama-1b.yaml; n=${w#llama1b-} ;;
	*) echo "long.sh: unknown $w" >&2; exit 2 ;;
	esac
	prompt "$n"
	echo "## $w"
	/usr/bin/time -v "$bin" bench --model "$model" --file "$dir/prompt$n.txt" \
		--iters "$runs" --frames 20 2> "$dir/time.txt"
	grep -E "Maximum resident|Elapsed \(wall" "$dir/time.txt" | sed 's/^[[:space:]]*/# /'
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
