#!/bin/sh
# long.sh - the figures of issue 42 (long inputs): GPT-2-small's shape at
# 512, 2,048 and 4,096 tokens and Llama-3.2-1B's shape at 512, seeded
# random weights, prompts of random words from --file.  For each: `attnscope
# bench --file` (medians of RUNS opens: time to open, the pass's GFLOP/s
# against the same run's 1024³ sgemm, a step, the all-heads and model
# views of the last layer, another layer's attention) under
# /usr/bin/time -v (peak memory, the whole process: the model's weights
# too).
# (tests/bench/llama_folder.py writes the Llama folder: numpy.)
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
# N bytes of random lowercase words: N tokens of the byte-level folder
bytes() {
	awk -v n="$1" 'BEGIN { srand(2); s = ""; while (length(s) < n) { w = ""; k = 2 + int(rand() * 7);
		for (i = 0; i < k; i++) w = w sprintf("%c", 97 + int(rand() * 26)); s = s (s == "" ? "" : " ") w }
		print substr(s, 1, n) }' > "$dir/bytes$1.txt"
}
# N-1 random words (the model adds <s>: N tokens)
prompt() {
	awk -v n=$(($1 - 1)) 'BEGIN { srand(1); for (i = 0; i < n; i++) printf "w%d%s", int(rand() * 50000), i + 1 < n ? " " : "\n" }' \
		> "$dir/prompt$1.txt"
}
vocab 50257
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
# Llama-3.2-1B's shape: 1.24 G parameters, over init: random's limit of 256 M:
# a Hugging Face folder of random BF16 weights (2.5 GB, written once, when
# a llama1b case is asked for)
llama() {
	[ -s "$dir/llama1b/model.safetensors" ] ||
		"${PYTHON3:-/usr/bin/python3}" "$(dirname "$0")/llama_folder.py" "$dir/llama1b"
}

echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for w in "$@"; do
	case $w in
	gpt2-*) model=$dir/gpt2-small.yaml; n=${w#gpt2-}; prompt "$n"; text=$dir/prompt$n.txt ;;
	llama1b-*) llama; model=$dir/llama1b; n=${w#llama1b-}; bytes "$n"; text=$dir/bytes$n.txt ;;
	*) echo "long.sh: unknown $w" >&2; exit 2 ;;
	esac
	echo "## $w"
	/usr/bin/time -v "$bin" bench --model "$model" --file "$text" \
		--iters "$runs" --frames 20 2> "$dir/time.txt" || { cat "$dir/time.txt"; continue; }
	grep -E "Maximum resident|Elapsed \(wall" "$dir/time.txt" | sed 's/^[[:space:]]*/# /'
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
