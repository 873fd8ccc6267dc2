#!/bin/sh
# render.sh BIN DIR - draws the README's pictures into DIR with the
# attnscope at BIN: the stepper's whole screen, headless, as SVG.
# `make pictures` runs it into doc/pictures/; tests/docs.test runs it into
# a temporary directory and compares, so the pictures are the current
# build's.  Each picture is the screen after the keys given: the same keys
# typed in the stepper show the same screen.
set -eu
bin=$1 dir=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
tiny="$top/models/en-pt-tiny.yaml"
shot() {  # shot NAME ARGS...: render --view stepper ARGS > DIR/NAME.svg
	name=$1
	shift
	"$bin" render --lang en --view stepper --format svg --width 110 --height 30 \
		"$@" > "$dir/$name.svg.tmp"
	mv "$dir/$name.svg.tmp" "$dir/$name.svg"
}
# a first lecture's step 5: cross-attention of the last decoder layer,
# head 1, the cursor on "gato → adorável" × "lovely"
shot stepper --model "$tiny" --target "seu gato é um gato adorável" \
	--keys "X]klllll" "your cat is a lovely cat"
# its step 6: greedy decoding, two steps on (r, then . .)
shot decoding --model "$tiny" --keys "r.." "your cat is a lovely cat"
