# boot_guest LOG COMMAND...: sourced by check-topology.sh and selftest.sh (POSIX sh).
# Runs COMMAND (the guest) to its end under SHAPE_TIMEOUT seconds (124 past it), its
# output in LOG, and stops it early with 125 when /init has not said "guest: booted"
# within BOOT_TIMEOUT seconds. A guest of many emulated CPUs can stall in early boot
# on a busy host (seen once in CI: 900 s with no line after the BIOS, where a boot takes
# 25 s quiet and 60 s beside four busy loops); that is the emulator's trouble, not the
# suite's, and nothing of the suite has run yet: the caller boots again.
boot_guest() {
	_bg_log=$1
	shift
	_bg_start=$(date +%s)
	timeout -k 10 "$SHAPE_TIMEOUT" "$@" </dev/null >"$_bg_log" 2>&1 &
	_bg_pid=$!
	until grep -aq 'guest: booted in' "$_bg_log"; do
		kill -0 "$_bg_pid" 2>/dev/null || break
		if [ $(($(date +%s) - _bg_start)) -ge "$BOOT_TIMEOUT" ]; then
			kill -TERM "$_bg_pid" 2>/dev/null
			wait "$_bg_pid" 2>/dev/null
			return 125
		fi
		sleep 1
	done
	wait "$_bg_pid"
}
