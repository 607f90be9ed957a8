#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cputestfs end to end on real FUSE mounts: placement same serves on the
# caller's CPU, placement other never does, one FUSE request per stat(), the
# records parse, the default run prints the post's tables (and no record),
# both baselines measure and show in the tables, bad input and missing
# facilities give one line and exit 2/4, and a daemon killed or stopped
# mid-run fails the run (exit 1, no number) without leaving a mount or a
# process behind; the uring reading names the 2025 same-CPU wake post.
. "$(dirname "$0")/lib.sh"

B=$BIN/cputestfs
W=$AFFBENCH_WORKDIR/cputestfs.$$
mkdir -p "$W"
SHORT=(--duration 0.5 --repeat 1)
HEADER=bench,config,rep,metric,value,unit
# One record: bench, config (RFC 4180: quoted when it holds a comma), rep, metric, value, unit.
ROW_RE='^cputestfs,("[^"]*"|[^,"]*),[0-9]+,[a-z0-9_]+,-?[0-9.]+(e[-+]?[0-9]+)?,[^,]*$'
STRAY=()	# identities (proc_id) of processes to end at exit, if still the same

cleanup() {
	# A daemon the test stopped must not outlive it.
	kill_same "${STRAY[@]}"
	rm -rf "$W"
}
trap cleanup EXIT

# ge A B / le A B: float comparisons
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }

cfg_ok() {
	local re='^baseline=fuse;client_cpu=[0-9]+;clients=1;daemon=single;'
	re+='daemon_cpu=[0-9]+;placement=same;transport=libfuse$'
	[[ $1 =~ $re ]]
}

csv_ok() {
	local f=$1
	[ "$(head -n1 "$f")" = "$HEADER" ] || return 1
	[ "$(wc -l <"$f")" -gt 1 ] || return 1
	! tail -n +2 "$f" | grep -Evq "$ROW_RE"
}

if [ ! -x "$B" ]; then
	nok "bin/cputestfs is built"
	t_done
fi

have_fuse=1
[ "$(id -u)" = 0 ] && [ -w /dev/fuse ] || have_fuse=0

# ---- measurements ----
if [ "$have_fuse" = 1 ]; then
	out=$W/pl.csv
	"$B" --placement same,other "${SHORT[@]}" --format csv --quiet >"$out" 2>"$W/pl.err"
	rc=$?
	check "placement same,other runs (exit $rc: $(head -c 300 "$W/pl.err"))" [ "$rc" = 0 ]
	check "CSV parses: exact header, 6 fields per row" csv_ok "$out"
	same_same=$(csv_value "$out" "placement=same" same_cpu_pct)
	other_same=$(csv_value "$out" "placement=other" same_cpu_pct)
	check "placement same: same_cpu_pct >= 99 (got $same_same)" ge "$same_same" 99
	check "placement other: same_cpu_pct <= 1 (got $other_same)" le "$other_same" 1
	for pl in same other; do
		r=$(csv_value "$out" "placement=$pl" requests_per_stat)
		check "placement $pl: requests_per_stat is 1.00 (got $r)" eval 'ge "$r" 0.99 && le "$r" 1.01'
		n=0
		for m in stat_per_s same_cpu_pct other_cpu_pct requests_per_stat latency_p50_ns latency_p99_ns; do
			grep -q "placement=$pl;transport=libfuse,1,$m," "$out" && n=$((n + 1))
		done
		check "placement $pl: all 6 metrics written (got $n)" [ "$n" = 6 ]
	done
	cfg=$(awk -F, 'NR == 2 { print $2 }' "$out")
	check "config names the CPUs used ($cfg)" cfg_ok "$cfg"
	check "no FUSE mount left after measuring" no_fuse_left

	"$B" --placement other --clients 2 --daemon clone_fd "${SHORT[@]}" --format json --quiet \
		>"$W/mt.json" 2>"$W/mt.err"
	rc=$?
	if [ "$(nproc)" -ge 2 ]; then
		r=$(sed -n 's/.*"metric":"requests_per_stat","value":\([0-9.e+-]*\).*/\1/p' "$W/mt.json")
		check "2 clients, daemon clone_fd: JSON records, requests_per_stat 1.00 (exit $rc, got $r)" \
			eval '[ "$rc" = 0 ] && ge "$r" 0.99 && le "$r" 1.01'
	else
		skip "2 clients, daemon clone_fd" "needs 2 CPUs"
	fi

	# The default run prints the post's layout, the with/without ratio and one row per
	# configuration (from the kept records), and no record line.
	# 1 s windows: at 0.3 s a busy machine can leave a window without a completed stat()
	"$B" --duration 1 --repeat 2 >"$W/table.txt" 2>"$W/table.err"
	rc=$?
	lay=1
	for want in "#### without cpu affinity ####" "#### with cpu affinity ####" "same  cpu (%)" \
		"other cpu (%)" "----------------------" "stat calls/s" "(median of 2)" \
		"with / without cpu affinity (daemon single): " "Every configuration"; do
		grep -qF -- "$want" "$W/table.txt" || { lay=0; echo "# missing: $want"; }
	done
	check "default run: the post's table layout and ratio (exit $(
		)$rc$(grep -m1 ' failed' "$W/table.err" | sed 's/^/: /'))" \
		eval '[ "$rc" = 0 ] && [ "$lay" = 1 ]'
	# | placement | baseline | transport | daemon | clients | client cpu | daemon cpu | calls/s |
	#   same cpu % | requests/call | p50 us | p99 us | reps |: measured columns are numbers,
	# compared with a tolerance (requests/call is a median ratio, printed as 1 or 1.001).
	row_of() { # PLACEMENT -> that row's cells, one per line, trimmed
		awk -F'|' -v p="$1" 'NF == 15 {
			for (i = 2; i < NF; i++) gsub(/^ +| +$/, "", $i)
			if ($2 == p && $3 == "fuse" && $4 == "libfuse" && $5 == "single" && $6 == 1) {
				for (i = 2; i < NF; i++) print $i
				exit } }' "$W/table.txt"
	}
	for pl in none same; do
		mapfile -t c < <(row_of $pl)
		req=${c[9]:-} reps=${c[12]:-}
		check "default run: a row for placement $pl: measured columns are numbers, 1 request/call, 2 $(
			)reps (got '${c[*]:-}')" \
			eval '[ "${#c[@]}" = 13 ] && within "${c[7]}" 0 1e30 && within "${c[8]}" 0 100 &&
				within "$req" 0.99 1.01 && within "${c[10]}" 0 1e30 && within "${c[11]}" 0 1e30 &&
					[ "$reps" = 2 ]'
	done
	same_row=$(row_of same | sed -n 9p)
	check "default run: placement same served 100% on the caller's CPU (got $same_row)" \
		within "$same_row" 99 100
	check "default run: stdout carries no progress" eval '! grep -q "^cputestfs:" "$W/table.txt"'
	check "default run: stdout carries no record" \
		eval '! grep -qE "stat_per_s|same_cpu_pct" "$W/table.txt"'
else
	skip "FUSE measurements" "needs root and /dev/fuse"
fi

# Baselines need neither root nor FUSE.
for base in kernel pipe; do
	"$B" --baseline "$base" --placement same "${SHORT[@]}" --format csv --quiet >"$W/$base.csv" \
		2>"$W/$base.err"
	rc=$?
	v=$(csv_value "$W/$base.csv" "baseline=$base" stat_per_s)
	check "--baseline $base: stat_per_s measured (exit $rc, got $v)" \
		eval '[ "$rc" = 0 ] && ge "$v" 1 && csv_ok "$W/$base.csv"'
	"$B" --baseline "$base" --placement same "${SHORT[@]}" --quiet >"$W/$base.txt" 2>&1
	rc=$?
	check "--baseline $base, table: the baselines grid shows it (exit $rc)" \
		eval '[ "$rc" = 0 ] && grep -qE "^\| placement \| $base \|$" "$W/$base.txt" &&
			grep -qE "^\| same \| [0-9]+ \[" "$W/$base.txt"'
done

# ---- bad input and missing facilities: one line, exit 2 or 4, nothing mounted ----
mkdir -p "$W/full" "$W/empty"
touch "$W/full/x"
ncpu=$(nproc)
faults=(
	# rc | env | arguments
	"2||--placement bogus"
	"2||--placement same,bogus"
	"2||--cpus 1,,2"
	"2||--cpus x"
	"2||--duration 0"
	"2||--duration -1"
	"2||--duration 1e-9"
	"2||--clients $((ncpu + 1))"
	"2||--daemon threads"
	"2||--mountpoint $W/full"
	"2||--mountpoint $W/missing"
	"2||stray-argument"
	"4||--cpus 0 --placement other"
	"4|AFFBENCH_FUSE_DEV=/nonexistent|--placement same"
)
for f in "${faults[@]}"; do
	IFS='|' read -r want envs args <<<"$f"
	# shellcheck disable=SC2086  # args split on purpose
	expect_rc "cputestfs $envs $args" "$want" env $envs "$B" $args "${SHORT[@]}"
	check "no FUSE mount left after: $args" no_fuse_left
done

if command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$B" 2>/dev/null; then
	expect_rc "not root: skipped" \
		4 setpriv --reuid=65534 --regid=65534 --clear-groups "$B" "${SHORT[@]}"
else
	skip "not root: skipped" "setpriv missing or $B not reachable as nobody"
fi

# ---- a daemon that dies or hangs mid-measurement ----
# wait_pidfile FILE: until the daemon is mounted and serving (30 s at most: a busy
# machine can take seconds to start one; the wait ends as soon as it is up)
wait_pidfile() { wait_until 30 test -s "$1"; }

if [ "$have_fuse" = 1 ]; then
	pf=$W/kill.pid
	AFFBENCH_DAEMON_PIDFILE=$pf "$B" --placement same --duration 3 --repeat 1 --format csv --quiet \
		>"$W/kill.csv" 2>"$W/kill.err" &
	bp=$!
	if wait_pidfile "$pf"; then
		sleep 1
		kill -KILL "$(cat "$pf")"
	fi
	wait $bp
	rc=$?
	check "daemon SIGKILLed mid-run: exit 1 (got $rc: $(tail -n1 "$W/kill.err"))" [ "$rc" = 1 ]
	check "daemon SIGKILLed: no number written" eval '! grep -q stat_per_s "$W/kill.csv"'
	check "daemon SIGKILLed: the message says how it ended" \
		grep -qE "(ended during the run: it|FUSE daemon \(pid [0-9]+\)) was killed by signal 9" \
			"$W/kill.err"
	check "daemon SIGKILLed: no FUSE mount left" no_fuse_left

	pf=$W/stop.pid
	dur=2
	t0=$(date +%s.%N)
	AFFBENCH_DAEMON_PIDFILE=$pf "$B" --placement same --duration $dur --repeat 1 --format csv --quiet \
		>"$W/stop.csv" 2>"$W/stop.err" &
	bp=$!
	dp=
	if wait_pidfile "$pf"; then
		sleep 0.5
		dp=$(cat "$pf")
		STRAY+=("$(proc_id "$dp")")
		kill -STOP "$dp"
	fi
	wait $bp
	rc=$?
	el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	check "daemon SIGSTOPped: exit 1 (got $rc: $(tail -n1 "$W/stop.err"))" [ "$rc" = 1 ]
	# The hang is found at the window's end: warm-up, duration, then cputestfs's grace and
	# reap times (3 s, scaled by its slowness); beyond that, start-up on a busy machine.
	bound=$((dur + $(scaled 4) + 8))
	check "daemon SIGSTOPped: failed in bounded time, within $bound s (took $el s)" le "$el" "$bound"
	check "daemon SIGSTOPped: no number written" eval '! grep -q stat_per_s "$W/stop.csv"'
	check "daemon SIGSTOPped: no FUSE mount left" no_fuse_left
	check "daemon SIGSTOPped: the daemon was killed and reaped" \
		eval '[ -n "$dp" ] && ! kill -0 "$dp" 2>/dev/null'

	chown 65534:65534 "$W/empty" && chmod 0751 "$W/empty"
	before=$(stat -c '%u:%g:%a:%i' "$W/empty")
	"$B" --mountpoint "$W/empty" --placement same "${SHORT[@]}" --format csv --quiet >"$W/mp.csv" \
		2>"$W/mp.err"
	rc=$?
	after=$(stat -c '%u:%g:%a:%i' "$W/empty" 2>/dev/null)
	check "--mountpoint DIR: measured there, DIR left as found: owner, mode, inode $before -> $after $(
		)(exit $rc)" \
		eval '[ "$rc" = 0 ] && grep -q stat_per_s "$W/mp.csv" && [ "$before" = "$after" ] &&
			! grep -qF " $W/empty " /proc/mounts'
else
	skip "daemon killed / stopped mid-run" "needs root and /dev/fuse"
fi

# A pipe server killed mid-run fails the run the same way (no root needed).
pf=$W/pipe.pid
AFFBENCH_DAEMON_PIDFILE=$pf "$B" --baseline pipe --placement same --duration 3 --repeat 1 \
	--format csv \
	--quiet >"$W/pipe.csv" 2>"$W/pipe.err" &
bp=$!
sp=
if wait_pidfile "$pf"; then
	sleep 1
	sp=$(cat "$pf")
	kill -KILL "$sp"
fi
wait $bp
rc=$?
check "pipe server SIGKILLed mid-run: exit 1, says so (got $rc: $(tail -n1 "$W/pipe.err"))" \
	eval '[ -n "$sp" ] && [ "$rc" = 1 ] &&
		grep -q "pipe server 0 was killed by signal 9" "$W/pipe.err"'
check "pipe server SIGKILLed: no number written" eval '! grep -q stat_per_s "$W/pipe.csv"'

# The uring reading names the 2025 same-CPU wake post with its numbers as posted
# (records written here: the report, not a mount, is under test).
mkdir -p "$W/pub"
{
	echo "bench,config,rep,metric,value,unit"
	c="baseline=fuse;clients=1;daemon=percpu;placement=none;transport=uring"
	for r in 1 2 3; do
		echo "cputestfs,$c,$r,stat_per_s,10000$r,1/s"
		echo "cputestfs,$c,$r,same_cpu_pct,99.$r,%"
	done
} >"$W/pub/raw.csv"
"$BIN/harness" report "$W/pub" >/dev/null 2>&1
check "report: the uring reading gives the 2025 same-CPU wake post, $(
	)260 -> 345 and 116 -> 115 MiB/s" \
	eval 'grep -F "Wake requests on the same cpu" "$W/pub/report.md" |
		grep -qF "from 260 to 345 MiB/s and /dev/fuse from 116 to 115 MiB/s"'

t_done
