# SPDX-License-Identifier: GPL-2.0
# boot_guest LOG COMMAND...: sourced by check-topology.sh and selftest.sh (POSIX sh).
# Runs COMMAND (the guest) to its end under SHAPE_TIMEOUT seconds (124 past it), its
# output in LOG, and stops it early with 125 when, before /init has said "guest: booted",
# the console has printed nothing new for BOOT_STALL seconds, or BOOT_LIMIT seconds have
# passed (BOOT_WHY says which). The guest kernel boots with
# its messages on the console (loglevel=7, earlyprintk), so a boot that is slow because
# the host is busy keeps printing and is waited for, and one that stalls goes quiet: a
# guest of many emulated CPUs stalled in early boot once in CI (900 s without a line
# after the BIOS, where a boot takes 25 s quiet and 60 s beside four busy loops). That
# is the emulator's trouble, not the suite's, and nothing of the suite has run yet: the
# caller boots again. A stalled boot can also keep printing: a 16-CPU guest on a busy
# host once spent 900 s in RCU stall reports (CPU back traces from the idle loop) and
# never reached /init, where its boot takes 5 s of the guest's clock; hence the limit.
boot_guest() {
	_bg_log=$1
	shift
	: >"$_bg_log"	# there before the guest's redirection makes it: read at once below
	timeout -k 10 "$SHAPE_TIMEOUT" "$@" </dev/null >"$_bg_log" 2>&1 &
	_bg_pid=$!
	_bg_size=-1 _bg_since=$(date +%s) BOOT_WHY=
	_bg_start=$_bg_since
	until grep -aq 'guest: booted in' "$_bg_log"; do
		kill -0 "$_bg_pid" 2>/dev/null || break
		_bg_now=$(date +%s) _bg_new=$(wc -c <"$_bg_log")
		if [ "$_bg_new" != "$_bg_size" ]; then
			_bg_size=$_bg_new _bg_since=$_bg_now
		elif [ $((_bg_now - _bg_since)) -ge "$BOOT_STALL" ]; then
			BOOT_WHY="no console line for $BOOT_STALL s"
		fi
		if [ $((_bg_now - _bg_start)) -ge "$BOOT_LIMIT" ]; then
			BOOT_WHY="not booted in $BOOT_LIMIT s"
		fi
		# the line may have come since the loop's test: a booted guest is never stopped
		if [ -n "$BOOT_WHY" ] && ! grep -aq 'guest: booted in' "$_bg_log"; then
			kill -TERM "$_bg_pid" 2>/dev/null
			wait "$_bg_pid" 2>/dev/null
			return 125
		fi
		sleep 1
	done
	BOOT_WHY=	# the watchdog stopped nothing
	wait "$_bg_pid"
}
