#!/bin/sh
# kernels.sh - reruns the unit, golden and seed tests under each OpenBLAS
# kernel this CPU can run (issue 19), so that a test which holds only on
# one kernel's rounding cannot land: Prescott (the generic x86-64 kernel),
# Haswell (needs avx2 and fma) and SkylakeX (needs avx512f, avx512bw,
# avx512vl and avx512dq).  A kernel the CPU lacks is skipped with the
# reason; so is the whole stage off x86-64.  Uses the existing build
# (`make check` with TESTS and OPENBLAS_CORETYPE set); run from the top of
# a configured tree.  Exits non-zero if any kernel's run fails, or if
# OpenBLAS does not honour OPENBLAS_CORETYPE on a kernel the CPU has.
set -u
cd "$(dirname "$0")/.."

case "$(uname -m)" in
x86_64 | amd64) ;;
*)
	echo "kernels: skipped: $(uname -m) is not x86-64 (OPENBLAS_CORETYPE names x86 kernels)"
	exit 0
	;;
esac

flags=$(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
has() {
	for f in "$@"; do
		case " $flags " in
		*" $f "*) ;;
		*) return 1 ;;
		esac
	done
}

tests=$(ls tests/unit/test_*.c | sed 's/\.c$//' | tr '\n' ' ')
tests="$tests tests/golden.test tests/seed_toy.test"
probe=tests/unit/test_ops   # any unit program linked against OpenBLAS

# the full suite's log (.ci/run reads its counts) is put back at the end
[ -f test-suite.log ] && cp test-suite.log kernels-saved.log
trap '[ -f kernels-saved.log ] && mv -f kernels-saved.log test-suite.log' EXIT

status=0
for k in Prescott Haswell SkylakeX; do
	case $k in
	Haswell) need="avx2 fma" ;;
	SkylakeX) need="avx512f avx512bw avx512vl avx512dq" ;;
	*) need="" ;;
	esac
	if [ -n "$need" ] && ! has $need; then
		echo "kernels: $k skipped: /proc/cpuinfo lacks one of: $need"
		continue
	fi
	# a DYNAMIC_ARCH OpenBLAS prints the kernel it picked
	if [ -x "$probe" ] &&
		! OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$k "$probe" 2>&1 | grep -q "Core: $k"; then
		echo "kernels: $k: OpenBLAS does not report using it (not a DYNAMIC_ARCH build?)"
		status=1
		continue
	fi
	start=$(date +%s)
	if OPENBLAS_CORETYPE=$k make check TESTS="$tests" >"kernels-$k.log" 2>&1; then
		echo "kernels: $k passed ($(($(date +%s) - start)) s)"
	else
		echo "kernels: $k FAILED ($(($(date +%s) - start)) s):"
		grep -E '^(FAIL|ERROR|XPASS)' test-suite.log | head -n 30 | sed 's/^/    /'
		status=1
	fi
	cp test-suite.log "kernels-$k.test-suite.log" 2>/dev/null
done
exit $status
