#!/bin/sh
# valgrind.sh - memcheck on the subcommands, for every shipped model.
#
#   tests/valgrind.sh [ATTNSCOPE]        (default: $ATTNSCOPE, else ./attnscope)
#
# For each models/*.yaml: info, dump (with a target when the model has a
# decoder), render (text and svg) and translate (when the program has it),
# each on a short sentence, under valgrind --leak-check=full.  Every run
# must have 0 errors and 0 bytes definitely lost (valgrind's exit status 99
# says otherwise); the program itself must exit 0, except translate on an
# encoder-only model, which must fail cleanly (status 1).  Prints TAP and
# exits 1 on any failure.  Run it on a normal (not a sanitizer) build.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-${ATTNSCOPE:-./attnscope}}
command -v valgrind >/dev/null || { echo "Bail out! valgrind is not installed"; exit 1; }
[ -x "$exe" ] || { echo "Bail out! no attnscope at $exe"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnscope-vg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
n=0
failed=0
sentence="your cat is"
has_translate=0
"$exe" --help 2>/dev/null | grep -q 'attnscope translate' && has_translate=1

# vg NAME WANT ARGS...: one run; WANT is the program's expected status
vg() {
	what=$1 want=$2
	shift 2
	n=$((n + 1))
	start=$(date +%s)
	OPENBLAS_NUM_THREADS=1 valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--log-file="$tmp/vg.log" "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	secs=$(( $(date +%s) - start ))
	if [ "$st" -eq "$want" ] && [ ! -s "$tmp/vg.log" ]; then
		echo "ok $n - $what ($secs s)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $what: status $st (want $want), valgrind said:"
		sed 's/^/#   /' "$tmp/vg.log" | head -60
		sed 's/^/#   stderr: /' "$tmp/err" | head -5
	fi
}

for m in "$top"/models/*.yaml; do
	name=$(basename "$m" .yaml)
	arch=$("$exe" info --model "$m" 2>/dev/null | sed -n 's/^architecture *//p')
	if [ -z "$arch" ]; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - $name: info fails without valgrind: $("$exe" info --model "$m" 2>&1 | head -1)"
		continue
	fi
	vg "$name: info" 0 info --model "$m"
	vg "$name: dump" 0 dump --model "$m" --out "$tmp/t.safetensors" "$sentence"
	if [ "$arch" != encoder-only ]; then
		vg "$name: dump --target" 0 dump --model "$m" --out "$tmp/t.safetensors" \
			--target "$sentence" "$sentence"
	fi
	stage=$("$exe" render --model "$m" --stage list "$sentence" 2>/dev/null |
		grep -m 1 'self_attn\.weights' | awk '{ print $1 }')
	vg "$name: render ${stage:-src.embed} text" 0 render --model "$m" \
		--stage "${stage:-src.embed}" --format text "$sentence"
	# the embedding's stage: src.embed, or tgt.embed for a decoder-only model
	emb=$("$exe" render --model "$m" --stage list "$sentence" 2>/dev/null |
		grep -m 1 '\.embed' | awk '{ print $1 }')
	vg "$name: render ${emb:-src.embed} svg" 0 render --model "$m" --stage "${emb:-src.embed}" \
		--format svg "$sentence"
	if [ "$has_translate" = 1 ]; then
		want=0
		[ "$arch" = encoder-only ] && want=1
		vg "$name: translate" "$want" translate --model "$m" --max-len 4 "$sentence"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
