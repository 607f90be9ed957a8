#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness faults (issue 8, point 7) on this machine's disk and real FUSE mounts:
#  - SIGINT during a sqrtio point puts rq_affinity back at once, keeps a valid
#    raw.csv (finished points only) and exits 130; machine.txt names sqrtio's
#    disk and IRQ(s) and the knob values before and after;
#  - SIGKILL of the harness and its benchmark leaves rq_affinity changed, and
#    `harness restore` (then `runme.sh --restore-only`, the restore step of
#    every runme.sh) puts it back from the journal;
#  - a FUSE daemon killed mid-point: that point is a failure with no number,
#    the sweep goes on, no mount is left;
#  - a stopped daemon is aborted by a watchdog (the benchmark's own, or the
#    harness's when the whole benchmark is stopped), the sweep goes on, no
#    mount and no stopped process are left;
#  - records of a failed or killed invocation never stay in raw.csv.
# Whatever happens, the trap below puts the real rq_affinity back. (~50 s alone;
# up to 20 s more per sqrtio part while another test's sqrtio runs on the disk)
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/harness-faults.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
# This test's own journal: what a killed run leaves in it, this test replays.
export AFFBENCH_JOURNAL=$D/knobs.journal
# sqrtio's file sits on the repository's filesystem (the work dir may be tmpfs elsewhere).
F=$TOP/.affbench-harness-faults.$$
HEADER=bench,config,rep,metric,value,unit
ROW_RE='^[a-z0-9_]+,("[^"]*"|[^,"]*),[0-9]+,[A-Za-z0-9_]+,-?[0-9.]+(e[-+]?[0-9]+)?,[^,]*$'
rq_path="" orig=""
# processes this test stopped or may leave behind, continued and killed at the end:
# identities (proc_id), so a recycled pid (another suite's cputestfs) is left alone
STRAY=()

cleanup() {
	kill_same "${STRAY[@]}"
	"$H" restore --journal "$AFFBENCH_JOURNAL" --workdir "$AFFBENCH_WORKDIR" >/dev/null 2>&1
	# Last resort (a journal owner not yet reaped counts as alive): write it back
	# ourselves, unless another sqrtio (someone else's test) owns the change now.
	if [ -n "$rq_path" ] && [ "$(cat "$rq_path")" != "$orig" ] && ! pgrep -x sqrtio >/dev/null; then
		echo "# cleanup: writing $orig back to $rq_path ($(cat "$rq_path"))"
		echo "$orig" > "$rq_path"
	fi
	rm -f "$F"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# until CMD... succeeds, every 50 ms, for at most SEC seconds
wait_for() {
	local sec=$1 i
	shift
	for ((i = 0; i < sec * 20; i++)); do "$@" && return 0; sleep 0.05; done
	return 1
}
rq_is() { [ "$(cat "$rq_path")" = "$1" ]; }
rq_not() { [ "$(cat "$rq_path")" != "$1" ]; }
runs_ok() { [ "$(grep -c ',ok,' "$1/runs.csv" 2>/dev/null)" = "$2" ]; }
# raw.csv: the exact header, then well-formed records only
raw_valid() {
	[ "$(head -1 "$1/raw.csv")" = "$HEADER" ] && ! tail -n +2 "$1/raw.csv" | grep -vqE "$ROW_RE"
}
# gone PID: not in the process table any more (a zombie is not gone: its pid is taken)
gone() { [ -z "$(ps -o pid= -p "$1" 2>/dev/null)" ]; }
# a process of ours stopped (state T) in group PGID
stopped_in() { ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 ~ /^T/' | grep -q .; }
now() { date +%s.%N; }
# Other tests on this machine (sqrtio.sh) may change the same knob: measure our own
# changes only while no other sqrtio runs (ours are never running when this is called).
quiet_disk() {
	wait_for 20 eval '! pgrep -x sqrtio >/dev/null' ||
		echo "# another sqrtio still runs: rq_affinity checks may see its changes"
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# diag FILE...: show files as TAP comments (why a check failed)
diag() { local f; for f in "$@"; do sed "s|^|# ${f##*/}: |" "$f" 2>/dev/null; done; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }

# ---- records of a failed invocation never stay in raw.csv (no disk, no FUSE) ----
cat > "$D/fakebench" <<'FAKE'
#!/bin/bash
mode=ok
while [ $# -gt 0 ]; do
	case $1 in --mode) mode=$2; shift ;; --format|--repeat|--duration) shift ;; esac
	shift
done
echo "bench,config,rep,metric,value,unit"
echo "fakebench,mode=$mode,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
case $mode in
fail) printf 'fakebench,mode=%s,1,ns_per_op,512,n' "$mode"; exit 1 ;;	# cut in the unit, then fails
hang) exec sleep 3019 ;;
esac
echo "fakebench,mode=$mode,1,ns_per_op,$((500 + RANDOM % 20)),ns"
FAKE
chmod +x "$D/fakebench"
cat > "$D/fake.plan" <<'PLAN'
bench fakebench
duration 0.1
timeout 2
axis mode ok fail hang
PLAN
"$H" run --plan "$D/fake.plan" --repeat 2 --out "$D/fake" >/dev/null 2>"$D/fake.err"
rc=$?
check "fake sweep exits 0 (rc $rc)" [ "$rc" = 0 ]
check "raw.csv holds the ok points' 4 records only" \
	eval '[ "$(grep -c "^fakebench,mode=ok," "$D/fake/raw.csv")" = 4 ] &&
		! grep -qE "mode=(fail|hang)" "$D/fake/raw.csv"'
check "raw.csv valid after failed points' records were dropped" raw_valid "$D/fake"
check "failures.csv: 2 failed (exit 1) + 2 watchdog kills" \
	eval '[ "$(grep -c "^fakebench,mode=fail,[12],1," "$D/fake/failures.csv")" = 2 ] &&
		[ "$(grep -c "^fakebench,mode=hang,.*watchdog" "$D/fake/failures.csv")" = 2 ]'
check "watchdog left no hung benchmark" bash -c "! pgrep -f 'sleep [3]019' >/dev/null"

# ---- sqrtio: SIGINT and SIGKILL mid-point ----
have_sqrtio=0
if [ ! -x "$BIN/sqrtio" ]; then
	skip "sqrtio faults" "bin/sqrtio not built (run make)"
elif [ "$(id -u)" != 0 ]; then
	skip "sqrtio faults" "changing rq_affinity needs root"
else
	quiet_disk
	"$BIN/sqrtio" --file "$F" --discover >"$D/disc.txt" 2>"$D/disc.err"
	rc=$?
	kv() { sed -n "s/^$1=//p" "$D/disc.txt"; }
	disk=$(kv disk) irqs=$(kv irqs)
	if [ "$rc" = 0 ] && [ -n "$disk" ] && [ -w "/sys/block/$disk/queue/rq_affinity" ]; then
		have_sqrtio=1
		rq_path=/sys/block/$disk/queue/rq_affinity
		orig=$(cat "$rq_path")
	else
		skip "sqrtio faults" "sqrtio --discover: exit $rc: $(tail -n1 "$D/disc.err")"
	fi
fi

if [ "$have_sqrtio" = 1 ]; then
	# two rq values, neither the current one: every point visibly changes the knob
	vals=($(printf '%s\n' 0 1 2 | grep -vx "$orig"))
	v1=${vals[0]} v2=${vals[1]}
	# 6 s points: a SIGINT's restore "at once" is told apart from the point's end
	# even when a busy machine slows the restore down.
	cat > "$D/sq.plan" <<PLAN
bench sqrtio
duration 6
timeout 60
axis rq $v1 $v2
extra --file $F --local 1
PLAN

	# -- SIGINT during the second point
	quiet_disk
	"$H" run --plan "$D/sq.plan" --repeat 1 --out "$D/int" >/dev/null 2>"$D/int.err" &
	hp=$!
	STRAY+=("$(proc_id "$hp")")
	wait_for 90 eval 'runs_ok "$D/int" 1 && rq_is "$v2"'
	check "first point done and the second changed rq_affinity to $v2 ($(cat "$rq_path"))" rq_is "$v2"
	kill -INT "$hp"
	t0=$(now)
	wait_for 10 rq_is "$orig"
	back=$(secs "$t0" "$(now)")
	wait "$hp"
	rc=$?
	check "SIGINT: rq_affinity back to $orig at once, within 3 s, not at the 6 s point's end (took $(
		)$back s)" \
		le "$back" 3
	check "SIGINT: still $orig after the harness exited" rq_is "$orig"
	check "SIGINT: exit 130 (got $rc; $(tail -n1 "$D/int.err"))" [ "$rc" = 130 ]
	check "SIGINT: raw.csv is the header and well-formed records" raw_valid "$D/int"
	check "SIGINT: raw.csv holds the finished point (rq=$v1), not the interrupted one" \
		eval 'grep -q ";rq=$v1;" "$D/int/raw.csv" && ! grep -q ";rq=$v2;" "$D/int/raw.csv"'
	check "SIGINT: runs.csv lists the finished point only" \
		eval '[ "$(tail -n +2 "$D/int/runs.csv" | wc -l)" = 1 ]'
	m=$D/int/machine.txt
	# IRQ discovery counts interrupts during a read burst: on a busy machine other lines
	# may join, so the harness's list need only be a list, not equal to ours ($irqs)
	irqs_h=$(sed -n 's/^sqrtio_irqs  *//p' "$m")
	check "machine.txt names sqrtio's disk ($disk) and IRQ(s) ($irqs_h)" \
		eval 'grep -qx "sqrtio_disk  *$disk" "$m" && [[ $irqs_h =~ ^[^,]+(,[^,]+)*$ ]]'
	check "machine.txt: $rq_path = $orig before and after" \
		eval 'grep -qxF "knob before $rq_path = $orig" "$m" &&
			grep -qxF "knob after  $rq_path = $orig" "$m"'
	nd=$(ls /sys/block | while read -r b; do [ -f "/sys/block/$b/queue/rq_affinity" ] &&
		echo; done | wc -l)
	check "machine.txt: rq_affinity of all $nd disks before and after" \
		eval '[ "$(grep -c "^knob before /sys/block/.*/rq_affinity = " "$m")" = "$nd" ] &&
			[ "$(grep -c "^knob after  /sys/block/.*/rq_affinity = " "$m")" = "$nd" ]'
	u=/sys/module/fuse/parameters/enable_uring
	if [ -r "$u" ]; then
		check "machine.txt: $u before and after" \
			eval 'grep -qxF "knob before $u = $(cat $u)" "$m" && grep -qxF "knob after  $u = $(cat $u)" "$m"'
	else
		skip "machine.txt: enable_uring" "no $u on this kernel"
	fi
	irq1=${irqs_h%%,*}
	if [[ $irq1 =~ ^[0-9]+$ ]]; then
		check "machine.txt: smp_affinity_list of IRQ $irq1 before and after" \
			eval 'grep -q "^knob before /proc/irq/$irq1/smp_affinity_list = " "$m" &&
				grep -q "^knob after  /proc/irq/$irq1/smp_affinity_list = " "$m"'
	fi
	check "report.md: no knob-not-restored warning" \
		eval '! grep -q "knob not as before" "$D/int/report.md"'

	# -- SIGKILL of the harness and its benchmark together
	# sigkill_run OUT: start a sweep, SIGKILL it once rq_affinity changed. The harness is
	# stopped first: otherwise it sees its benchmark die and replays the journal itself,
	# or the benchmark gets the harness's death signal (SIGTERM) and restores: either
	# would hide what is tested, a knob left changed by processes that are all dead.
	sigkill_run() {
		local out=$1 bp=""
		quiet_disk
		"$H" run --plan "$D/sq.plan" --repeat 1 --out "$out" >/dev/null 2>"$out.err" &
		hp=$!
		STRAY+=("$(proc_id "$hp")")
		# our sqrtio journals the original, then writes the new value
		if ! wait_for 60 \
			eval 'grep -qF "	$rq_path	$orig" "$AFFBENCH_JOURNAL" 2>/dev/null && rq_is "$v1"'; then
			echo "# $out: rq_affinity never became $v1 by our sqrtio ($(cat "$rq_path"))"
			diag "$out.err" "$out/failures.csv" "$out"/log/sqrtio-*.log
		fi
		bp=$(pgrep -P "$hp" | head -n1)
		kill -STOP "$hp"
		[ -n "$bp" ] && kill -KILL -- "-$bp"
		kill -KILL "$hp"
		wait "$hp" 2>/dev/null
		# the orphaned benchmark is reaped by init, which may take a moment here (an
		# unreaped zombie still holds its pid, and restore treats its entries as live)
		[ -n "$bp" ] && wait_for 10 eval '! pgrep -g "$bp" >/dev/null'
		killed_bench=$bp
	}
	for how in restore runme; do
		sigkill_run "$D/kill-$how"
		now_rq=$(cat "$rq_path")
		check "SIGKILL ($how): rq_affinity left at $now_rq, not $orig, nothing restored it" rq_not "$orig"
		check "SIGKILL ($how): benchmark ${killed_bench:-?} and its group are gone" \
			eval '[ -n "$killed_bench" ] && gone "$killed_bench" && ! pgrep -g "$killed_bench" >/dev/null'
		check "SIGKILL ($how): the journal holds $rq_path = $orig" \
			grep -qF "	$rq_path	$orig" "$AFFBENCH_JOURNAL"
		if [ "$how" = restore ]; then
			"$H" restore >"$D/restore.out" 2>&1
			rc=$?
			check "harness restore (AFFBENCH_JOURNAL) exits 0 (rc $rc: $(tail -n1 "$D/restore.out"))" \
				[ "$rc" = 0 ]
			check "harness restore put rq_affinity back to $orig ($(cat "$rq_path"))" rq_is "$orig"
		else
			# what every ./runme.sh does before it builds and measures
			"$TOP/runme.sh" --restore-only >"$D/runme.out" 2>&1
			rc=$?
			check "runme.sh --restore-only exits 0 (rc $rc: $(tail -n1 "$D/runme.out"))" [ "$rc" = 0 ]
			restored=$(grep restored "$D/runme.out")
			check "runme.sh put rq_affinity back to $orig ($(cat "$rq_path")): $restored" \
				rq_is "$orig"
		fi
		check "SIGKILL ($how): raw.csv still valid" raw_valid "$D/kill-$how"
	done
fi

# ---- cputestfs: a FUSE daemon killed, or stopped, mid-point ----
if [ ! -x "$BIN/cputestfs" ]; then
	skip "FUSE daemon faults" "bin/cputestfs not built (run make)"
elif [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
	skip "FUSE daemon faults" "needs root and /dev/fuse"
else
	# fuse_run NAME TIMEOUT: a 3-point sweep; the first daemon's pid lands in $D/NAME.pid.
	# Two points after the faulty one: on a loaded machine cputestfs's own 1 s stall
	# watchdog can fail one of them too; the sweep going on is what is tested.
	fuse_run() {
		rm -f "$D/$1.pid"
		cat > "$D/$1.plan" <<PLAN
bench cputestfs
duration 2
timeout $2
axis placement same other none
extra --kstats off
PLAN
		AFFBENCH_DAEMON_PIDFILE=$D/$1.pid "$H" run --plan "$D/$1.plan" --repeat 1 --out "$D/$1" \
			>/dev/null 2>"$D/$1.err" &
		hp=$!
		STRAY+=("$(proc_id "$hp")")
		dp=""
		if wait_for 30 test -s "$D/$1.pid"; then
			sleep 0.5	# into the measurement
			dp=$(cat "$D/$1.pid")
			STRAY+=("$(proc_id "$dp")")
		fi
	}
	# fuse_checks NAME REASON_RE: first point failed as REASON_RE, the later ones ran and measured
	fuse_checks() {
		local o=$D/$1
		check "$1: sweep exits 0 (rc $rc: $(tail -n1 "$o.err"))" [ "$rc" = 0 ]
		check "$1: placement=same recorded as failed: $(tail -n +2 "$o/failures.csv" | head -n1)" \
			grep -qE "^cputestfs,placement=same,1,[0-9]+,.*($2)" "$o/failures.csv"
		check "$1: no number for the failed point in raw.csv" \
			eval '! grep -q "placement=same" "$o/raw.csv"'
		if [ "$(tail -n +2 "$o/runs.csv" | wc -l)" = 3 ] &&
			grep -qE "placement=(other|none)(;[^,]*)?,1,stat_per_s," "$o/raw.csv" &&
			grep -qE ",[12],1,ok,0,.*placement=(other|none)" "$o/runs.csv"; then
			ok "$1: the sweep went on: all 3 points ran, a later one measured"
		else
			nok "$1: the sweep went on: all 3 points ran, a later one measured"
			diag "$o/runs.csv" "$o/failures.csv"
		fi
		check "$1: raw.csv valid" raw_valid "$o"
		check "$1: no FUSE mount left" no_fuse_left
		check "$1: daemon ${dp:-?} gone" eval '[ -n "$dp" ] && wait_for 20 gone "$dp"'
	}

	fuse_run dkill 20
	[ -n "$dp" ] && kill -KILL "$dp"
	wait "$hp"
	rc=$?
	fuse_checks dkill "killed by signal 9|daemon"

	# the daemon alone stopped: cputestfs's own watchdog (no progress, or clients stuck at
	# the window's end) fails the point, long before the harness's 20 s timeout would
	fuse_run dstop 20
	t0=$(now)
	[ -n "$dp" ] && kill -STOP "$dp"
	wait "$hp"
	rc=$?
	fuse_checks dstop "no progress|hangs"
	took=$(awk -F, '$2 == 0 { print $6 }' "$D/dstop/runs.csv")
	check "dstop: the stopped point ended before its 20 s timeout (took $took s)" le "$took" 20
	check "dstop: no stopped process left" \
		bash -c "! ps -eo stat=,args= | grep -E '^T' | grep -q cputestfs"

	# the whole benchmark stopped (daemon and client): only the harness's watchdog can act.
	# 6 s: the healthy points after it (2 s windows) must fit on a busy machine too.
	fuse_run gstop 6
	bp=$(pgrep -P "$hp" | head -n1)
	[ -n "$bp" ] && STRAY+=("$(proc_id "$bp")") && kill -STOP -- "-$bp"
	wait "$hp"
	rc=$?
	fuse_checks gstop "watchdog"
	took=$(awk -F, '$2 == 0 { print $6 }' "$D/gstop/runs.csv")
	# SIGTERM (and SIGCONT) at the timeout, SIGKILL 5 s later at the latest; stopped, the
	# benchmark would never end by itself
	check "gstop: the harness's watchdog ended the point soon after its 6 s timeout (took $took s)" \
		le "$took" 14
	check "gstop: no stopped process left in the benchmark's group ${bp:-?}" \
		eval '[ -n "$bp" ] && ! stopped_in "$bp"'
fi

check "no FUSE mount left" no_fuse_left
if [ -n "$rq_path" ]; then
	check "rq_affinity of $rq_path as found ($orig)" rq_is "$orig"
fi
t_done
