#!/bin/sh
# ci.sh - CI's short fuzz run.
#
#   tests/fuzz/ci.sh [SECONDS-PER-TARGET]      (default 45)
#
# Builds the libFuzzer targets out of tree in _fuzz (clang,
# --enable-fuzzing: ASan + UBSan + libFuzzer; see tests/oot-build.sh), then
# runs every target for SECONDS, two at a time, from the seed corpora only
# (a fresh work dir each run, so a run costs the same every time).  Exits 1
# on any crash, leak, hang (10 s an input), out-of-memory or sanitizer
# report; the inputs that did it are kept in _fuzz/fuzz-ci/TARGET/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-45}
build=${FUZZ_BUILD:-$top/_fuzz}
command -v clang >/dev/null || { echo "fuzz: clang is not installed (.ci/setup installs it)"; exit 1; }
sh "$top/tests/oot-build.sh" "$build" --enable-fuzzing CC=clang || {
	echo "fuzz: building the fuzzers failed"
	exit 1
}
rm -rf "$build/fuzz-ci"
sh "$top/tests/fuzz/run-long" -d "$build" -w "$build/fuzz-ci" -j 2 "$secs"
