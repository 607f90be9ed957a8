#!/bin/bash
# One idle policy at a time on a machine (issue 32, finding 5; sys/machlock.h):
#   - a direct run with --idle other than as-found while another process holds
#     the machine lock exits 4 with one line naming the holder, and changes
#     nothing; an as-found run beside it goes on (it changes nothing either);
#   - with root and /dev/cpu_dma_latency: a --idle max-latency:50 run holds the
#     lock for its life, a --idle poll run meanwhile is refused, the first run's
#     limit reads 50 throughout and its records say so; the lock is free and
#     empty after it;
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
held() { ! flock -n "$AFFBENCH_MACHINE_LOCK" true; }

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
if [ "$(id -u)" != 0 ] || [ ! -w "$QOS" ]; then
	skip "two direct runs with PM QoS" "needs root and $QOS"
	t_done
fi
qos_now() { od -An -t d4 -N4 "$QOS" | tr -d ' '; }
"${FD[@]}" --duration 1 --repeat 3 --idle max-latency:50 >"$W/first.csv" 2>"$W/first.err" &
first=$!
STRAY+=("$(proc_id $first)")
check "the max-latency:50 run holds the machine lock" wait_until 20 held
expect_rc "--idle poll beside it: exit 4, one line" 4 \
	timeout 20 "${FD[@]}" --duration 0.05 --idle poll
err=$(timeout 20 "${FD[@]}" --duration 0.05 --idle poll 2>&1 >/dev/null)
check "... naming the first run's pid ($err)" eval '[[ $err == *"pid $first, fdget --idle max-latency:50"* ]]'
low=0
while kill -0 "$first" 2>/dev/null; do	# the limit while the first run lives: never poll's 0
	q=$(qos_now)
	[ "$q" = 0 ] && low=1
	sleep 0.05
done
wait "$first"
rc=$?
STRAY=()
check "the max-latency:50 run: exit 0 (got $rc: $(tail -n1 "$W/first.err"))" [ "$rc" = 0 ]
check "... the limit never read poll's 0 while it ran" [ "$low" = 0 ]
check "... its records say idle=max-latency:50" grep -q 'idle=max-latency:50;' "$W/first.csv"
check "... the lock is free and empty after it" eval '! held && [ ! -s "$AFFBENCH_MACHINE_LOCK" ]'

# ---- under harness run: the benchmark holds the machine through the harness's lock ----
printf 'repeat 1\nbench fdget\nduration 0.05\naxis idle poll\nextra --op pread --mode single --spawn 0\n' \
	>"$W/idle.plan"
timeout 120 "$BIN/harness" run --plan "$W/idle.plan" --out "$W/run" >/dev/null 2>"$W/run.err"
rc=$?
check "harness run with --idle poll points: exit 0 (got $rc: $(tail -n1 "$W/run.err"))" [ "$rc" = 0 ]
check "... the point measured: records carry idle=poll" grep -q '^fdget,idle=poll;' "$W/run/raw.csv"
check "... no point skipped" eval '! grep -q skipped "$W/run/runs.csv"'
t_done
