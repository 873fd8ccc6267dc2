#!/bin/sh
# oot-build.sh - configure and build attnscope in BUILDDIR, out of the
# source tree, even when the tree itself is configured in place.
#
#   tests/oot-build.sh BUILDDIR [CONFIGURE-ARGS...]
#
# .ci/setup configures and builds in the source tree (the README's
# commands), and automake's configure then refuses a second build of the
# same tree elsewhere ("source directory already configured"): make's
# VPATH search would pick up the in-tree objects.  So for such a tree
# configure runs on BUILDDIR/.src, a mirror made of symlinks to the tree's
# source files (git's tracked and unignored files, and the generated
# configure, Makefile.in, gettext's po/ and m4/ files, ...), without any
# in-tree build output.  An unconfigured tree is configured directly.  Used by .ci/run (sanitizers)
# and tests/fuzz/ci.sh; BUILDDIR is made if missing and may be reused.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: $0 BUILDDIR [CONFIGURE-ARGS...]}
shift
mkdir -p "$build"
build=$(cd "$build" && pwd)
src=$top
if [ -f "$top/config.status" ]; then
	src=$build/.src
	command -v git >/dev/null && git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || {
		echo "oot-build: $top is configured in place and is not a git checkout:" \
			"run 'make distclean' there, or build in place" >&2
		exit 1
	}
	rm -rf "$src"
	mkdir -p "$src"
	{
		git -C "$top" ls-files --cached --others --exclude-standard
		for f in configure aclocal.m4 config.h.in Makefile.in; do
			[ -f "$top/$f" ] && echo "$f"
		done
		# and what autoreconf copied: build-aux/, m4/ and autopoint's po/
		# rules (not po/'s build output: make would find it by VPATH)
		for d in build-aux m4; do
			[ -d "$top/$d" ] && (cd "$top" && find "$d" -type f)
		done
		[ -d "$top/po" ] && (cd "$top" && find po -type f \( -name Makefile.in.in \
			-o -name 'Rules-*' -o -name '*.header' -o -name '*.sin' \
			-o -name quot.sed -o -name boldquot.sed -o -name Makevars.template \))
	} | sort -u | while IFS= read -r f; do
		case $f in
		"${build#"$top"/}"/*) continue ;;   # the build dir itself
		esac
		[ -e "$top/$f" ] || continue
		mkdir -p "$src/$(dirname "$f")"
		ln -sf "$top/$f" "$src/$f"
	done
	# the test references .ci/setup installs with npm (git ignores them)
	[ -d "$top/tests/hf/node_modules" ] &&
		ln -sfn "$top/tests/hf/node_modules" "$src/tests/hf/node_modules"
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null)
fi
cd "$build"
if [ ! -f Makefile ]; then
	"$src/configure" -q "$@"
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log >&2; exit 1; }
