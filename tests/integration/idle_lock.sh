#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One idle policy at a time on a machine (issue 32, finding 5; sys/machlock.h):
#   - a direct run with --idle other than as-found while another process holds
#     the machine lock exits 4 with one line naming the holder, and changes
#     nothing; an as-found run beside it goes on (it changes nothing either);
#   - as root: a --idle max-latency:50 run (busy where no cpuidle driver reads
#     PM QoS) holds the lock for its life, a --idle poll run meanwhile is
#     refused, the first run's limit never reads 0 and its records say its
#     policy; the lock is free and empty after it;
#   - under harness run (which holds the lock), its benchmarks' --idle goes on:
#     they hold the machine through the harness's own lock.
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/idle-lock.XXXXXX")
export AFFBENCH_MACHINE_LOCK=$W/machine.lock
QOS=/dev/cpu_dma_latency
FD=("$BIN/fdget" --op pread --mode single --spawn 0 --repeat 1 --format csv --quiet)
STRAY=()
cleanup() {
	kill_same "${STRAY[@]}"
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
# Held: /proc/locks lists a write flock on the lock file (major:minor:inode, the device
# in hex). Not flock -n: that takes the lock for a moment when it is free, and a run
# starting then found it held (by no one: "pid ?, ?") and exited 4.
held() {
	local id
	id=$(stat -c '%Hd %Ld %i' "$AFFBENCH_MACHINE_LOCK" 2>/dev/null) || return 1
	# shellcheck disable=SC2086 # three numbers, split on purpose
	id=$(printf '%02x:%02x:%s' $id)
	awk -v id="$id" '$2 == "FLOCK" && $4 == "WRITE" && $6 == id { found = 1 }
		END { exit !found }' /proc/locks
}

# ---- another process holds the lock: no PM QoS needed, the lock comes first ----
echo "4242 fdget --idle max-latency:50" >"$AFFBENCH_MACHINE_LOCK"
(exec 9>>"$AFFBENCH_MACHINE_LOCK" && flock 9 && exec sleep 60) &	# one process holds it
holder=$!
STRAY+=("$(proc_id $holder)")
check "the lock is held by another process" wait_until 20 held
expect_rc "--idle poll while another run holds the machine: exit 4, one line" 4 \
	timeout 20 "${FD[@]}" --duration 0.05 --idle poll
err=$(timeout 20 "${FD[@]}" --duration 0.05 --idle poll 2>&1 >/dev/null)
check "... naming the holder's pid and what it runs ($err)" \
	eval '[[ $err == *"pid 4242, fdget --idle max-latency:50"* ]]'
check "... the holder's line left as it was" grep -qx "4242 fdget --idle max-latency:50" \
	"$AFFBENCH_MACHINE_LOCK"
timeout 20 "${FD[@]}" --duration 0.05 --idle as-found >"$W/found.csv" 2>"$W/found.err"
rc=$?
check "--idle as-found beside it: exit 0, it changes nothing (rc $rc: $(tail -n1 "$W/found.err"))" \
	[ "$rc" = 0 ]
kill_same "${STRAY[@]}"
wait "$holder" 2>/dev/null
STRAY=()
: >"$AFFBENCH_MACHINE_LOCK"

# ---- two real runs ----
# the first run's policy: a PM QoS limit where a cpuidle driver reads it, else busy
# (spinners, which act anywhere); the second's is refused on the lock, before its own checks
P=
for p in max-latency:50 busy; do
	"${FD[@]}" --duration 0.05 --idle "$p" >/dev/null 2>"$W/probe.err" && { P=$p; break; }
done
if [ -z "$P" ]; then
	skip "two direct runs that change the idle policy" "neither max-latency:50 nor busy acts \
here: $(tail -n1 "$W/probe.err")"
	t_done
fi
QOS_SEEN=0
[ "$P" = max-latency:50 ] && QOS_SEEN=1
qos_now() { od -An -t d4 -N4 "$QOS" | tr -d ' '; }
"${FD[@]}" --duration 1 --repeat 3 --idle "$P" >"$W/first.csv" 2>"$W/first.err" &
first=$!
STRAY+=("$(proc_id $first)")
check "the --idle $P run holds the machine lock" wait_until 20 held
expect_rc "--idle poll beside it: exit 4, one line" 4 \
	timeout 20 "${FD[@]}" --duration 0.05 --idle poll
err=$(timeout 20 "${FD[@]}" --duration 0.05 --idle poll 2>&1 >/dev/null)
check "... naming the first run's pid ($err)" \
	eval '[[ $err == *"pid $first, fdget --idle $P"* ]]'
low=0
while [ "$QOS_SEEN" = 1 ] && kill -0 "$first" 2>/dev/null; do	# never poll's 0 meanwhile
	[ "$(qos_now)" = 0 ] && low=1
	sleep 0.05
done
wait "$first"
rc=$?
STRAY=()
check "the --idle $P run: exit 0 (got $rc: $(tail -n1 "$W/first.err"))" [ "$rc" = 0 ]
if [ "$QOS_SEEN" = 1 ]; then
	check "... the limit never read poll's 0 while it ran" [ "$low" = 0 ]
else
	skip "... the PM QoS limit while it ran" "no cpuidle driver here reads it ($P ran)"
fi
check "... its records say idle=$P" grep -q "idle=$P;" "$W/first.csv"
check "... the lock is free and empty after it" eval '! held && [ ! -s "$AFFBENCH_MACHINE_LOCK" ]'

# ---- under harness run: the benchmark holds the machine through the harness's lock ----
printf 'repeat 1\nbench fdget\nduration 0.05\naxis idle %s\nextra %s\n' "$P" \
	"--op pread --mode single --spawn 0" >"$W/idle.plan"
timeout 120 "$BIN/harness" run --plan "$W/idle.plan" --out "$W/run" >/dev/null 2>"$W/run.err"
rc=$?
check "harness run with --idle $P points: exit 0 (got $rc: $(tail -n1 "$W/run.err"))" [ "$rc" = 0 ]
check "... the point measured: records carry idle=$P" grep -q "^fdget,idle=$P;" "$W/run/raw.csv"
check "... no point skipped" eval '! grep -q skipped "$W/run/runs.csv"'
t_done
