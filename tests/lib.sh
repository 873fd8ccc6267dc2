# lib.sh - what the tests that drive the stepper under tmux share (TAP).
#
# The key flows themselves are tested in process (tests/unit/test_stepper);
# these tests keep tmux for what only a terminal shows.  A test sources
# this file after setting top_srcdir and ATTNSCOPE, then calls lib_init,
# which defines start, keys, screen, ok and lib_done (a test that has its
# own screen and ok uses only the waits, which call them):
#
#   lib_init NAME         a tmux server of its own ($sock) and a $tmp
#                         directory, both gone at exit; panes stay on
#                         screen after their program exits (remain-on-exit)
#   start W H CMD...      a new session "app" at W × H running CMD (the old
#                         one killed); CMD's exit status lands in $tmp/exit
#   keys KEYS...          tmux send-keys to it
#   screen                its screen into $shot (default $tmp/screen)
#   wait_for REGEX [S]    up to S seconds (default 20: a loaded machine) for
#                         the screen to match, then settle; 1 on a timeout
#   wait_gone REGEX [S]   the same, for REGEX to go
#   wait_exit [S]         for CMD to exit ($tmp/exit written)
#   wait_until COND [S]   for the shell condition COND to hold
#   settle [S]            until two captures 0.1 s apart agree (a capture
#                         can land in the middle of the terminal's update)
#   ok STATUS TEXT        a TAP line; the screen below a failure
#   expect REGEX TEXT [S] wait_for, and a TAP line that FAILS when it does
#                         not come: no wait's result is ignored
#   expect_gone REGEX TEXT [S]
#   need REGEX [S]        wait_for a step on the way (a failing TAP line
#                         only when it does not come); need_gone likewise
#   lib_done              the plan; the exit status says whether all passed
#
# Waiting polls the screen every 0.1 s for at most its limit; there is no
# fixed sleep: a test waits for what it expects to see.
lib_init() {
	sock="attnscope-$1-$$"
	tmp=$(mktemp -d)
	trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
	trap 'exit 1' INT TERM
	# a keeper session keeps the server between apps; panes whose program
	# ended stay readable
	tmux -L "$sock" -f /dev/null new-session -d -s keep -x 80 -y 24 "cat"
	tmux -L "$sock" set-option -g remain-on-exit on >/dev/null
	n=0
	failed=0
	# the harness (a test with its own defines it after lib_init)
	start() {
		_w=$1 _h=$2
		shift 2
		rm -f "$tmp/exit"
		tmux -L "$sock" kill-session -t app 2>/dev/null
		tmux -L "$sock" new-session -d -s app -x "$_w" -y "$_h" \
			"TERM=\${LIB_TERM:-xterm-256color} $*; echo \$? > $tmp/exit"
	}

	keys() { tmux -L "$sock" send-keys -t app "$@"; }

	screen() { tmux -L "$sock" capture-pane -t app -p > "${shot:-$tmp/screen}" 2>/dev/null; }
	ok() {
		n=$((n + 1))
		if [ "$1" -eq 0 ]; then
			echo "ok $n - $2"
		else
			echo "not ok $n - $2"
			failed=$((failed + 1))
			sed 's/^/#   |/' "${shot:-$tmp/screen}" 2>/dev/null | head -62
		fi
	}
	lib_done() {
		echo "1..$n"
		[ "$failed" -eq 0 ]
	}
}

# wait_until is the one poller; the others are conditions for it
wait_until() {
	_tw=0
	while [ "$_tw" -lt $((${2:-20} * 10)) ]; do
		eval "$1" && return 0
		sleep 0.1
		_tw=$((_tw + 1))
	done
	return 1
}

wait_for() {
	_re=$1
	wait_until 'screen; grep -q -- "$_re" "${shot:-$tmp/screen}"' "${2:-20}" || return 1
	settle
	return 0
}

wait_gone() {
	_re=$1
	wait_until 'screen; ! grep -q -- "$_re" "${shot:-$tmp/screen}"' "${2:-20}" || return 1
	settle
	return 0
}

wait_exit() {
	wait_until '[ -s "$tmp/exit" ]' "${1:-20}"
}

settle() {
	_ts=0
	screen
	while [ "$_ts" -lt $((${1:-2} * 10)) ]; do
		cp "${shot:-$tmp/screen}" "$tmp/.settle"
		sleep 0.1
		screen
		cmp -s "${shot:-$tmp/screen}" "$tmp/.settle" && return 0
		_ts=$((_ts + 1))
	done
	return 1
}

expect() {
	wait_for "$1" "${3:-20}"
	ok $? "$2"
}

expect_gone() {
	wait_gone "$1" "${3:-20}"
	ok $? "$2"
}

need() {
	wait_for "$1" "${2:-20}" && return 0
	ok 1 "timed out waiting for “$1”"
	return 1
}

need_gone() {
	wait_gone "$1" "${2:-20}" && return 0
	ok 1 "timed out waiting for “$1” to go"
	return 1
}

