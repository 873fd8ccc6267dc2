# tmux.sh - waiting for the stepper's screen, for the tests that drive it
# under tmux.  A test defines screen(), which captures its pane into $shot
# (default $tmp/screen), then sources this file:
#
#   wait_for REGEX [SECONDS]  up to SECONDS (default 20: a loaded machine)
#                             for the capture to match, then settle
#   settle [SECONDS]          up to SECONDS (default 2) until two captures
#                             0.1 s apart agree: a capture can land in the
#                             middle of the terminal's update (seen in CI)
#
# Both leave the last capture in $shot and return 1 on a timeout.  Their
# counters are their own (_tw, _ts): a caller's loop variables are safe.
wait_for() {
	_tw=0
	while [ "$_tw" -lt $((${2:-20} * 10)) ]; do
		screen
		if grep -q -- "$1" "${shot:-$tmp/screen}"; then
			settle
			return 0
		fi
		sleep 0.1
		_tw=$((_tw + 1))
	done
	return 1
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
