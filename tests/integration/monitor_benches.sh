#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CPU monitor (lib/kstats/cpumon) in ddpar, sqrtio and fdget (cputestfs:
# monitor.sh): every repetition gets mon_* records per operation, shares stay
# within 0-100% and every value is finite; fdget's N-worker modes keep their
# task counters (no worker exits inside the window); sqrtio's completion share
# is higher with the readers on the completing CPU than off it (rq_affinity 0);
# a facility forced missing (AFFBENCH_CPUMON_HIDE) is named, not written; and
# details.md shows each benchmark's table with the reasons under it.
. "$(dirname "$0")/lib.sh"
D=$(mktemp -d "$AFFBENCH_WORKDIR/monbench.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
trap '"$BIN/harness" restore --journal "$AFFBENCH_JOURNAL" --workdir "$AFFBENCH_WORKDIR" \
	>/dev/null 2>&1; rm -rf "$D"' EXIT

# sane FILE: every mon_ value finite and >= 0, every % at most 100
sane() {
	awk -F, '$(NF-2) ~ /^mon_/ { n++; v = $(NF-1) + 0; if (v < 0 || $(NF-1) ~ /nan|inf/) bad = 1
		 if ($NF == "%" && v > 100) bad = 1 } END { exit bad || !n }' "$1"
}
# count FILE PATTERN METRIC: records of METRIC on lines matching PATTERN
count() { grep -c "$2.*,$3," "$1"; }
# med FILE PATTERN METRIC: the median over repetitions (none: "none")
med() {
	grep "$2" "$1" | awk -F, -v m="$3" '$(NF-2) == m { print $(NF-1) }' | sort -g |
		awk '{ v[n++] = $1 } END { if (!n) print "none";
			else print (n % 2) ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# --- fdget: per syscall, in the single and the N-worker modes --------------
"$BIN/fdget" --op pread --mode single,shared-fd --repeat 2 --duration 0.05 --spawn 0 --format csv \
	>"$D/fd.csv" 2>"$D/fd.err"
rc=$?
check "fdget with the monitor exits 0 (rc $rc)" [ "$rc" = 0 ]
check "fdget with the monitor writes records" test -s "$D/fd.csv"
for m in single shared-fd; do
	n=$(count "$D/fd.csv" "mode=$m;" mon_ctxsw_per_op)
	check "fdget $m: mon_ctxsw_per_op in each of 2 repetitions ($n)" [ "$n" = 2 ]
done
n=$(count "$D/fd.csv" "mode=shared-fd;" mon_task_ctxsw_per_op)
check "fdget shared-fd: the workers' own switches in each repetition $(
	)(none exits in the window: $n)" \
	[ "$n" = 2 ]
check "fdget: values finite, shares within 0-100%" sane "$D/fd.csv"
check "fdget: why the shared-table path is not counted is said" \
	grep -q "CPU monitor: not counted: how often fdget() took the shared-table path" "$D/fd.err"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
	skip "ddpar and sqrtio with the monitor" "need root and /dev/fuse"
else
	# --- ddpar: per read()/write() of bs bytes ------------------------------
	for try in 1 2 3; do	# a busy machine can fail one repetition
		"$BIN/ddpar" --mode write --procs 2 --clone-fd off --repeat 2 --duration 0.2 --kstats off \
			--format csv >"$D/dd.csv" 2>"$D/dd.err" && break
	done
	n=$(count "$D/dd.csv" "mode=write" mon_ctxsw_per_op)
	check "ddpar: mon_ctxsw_per_op in each of 2 repetitions ($n, try $try)" [ "$n" = 2 ]
	check "ddpar: values finite, shares within 0-100%" sane "$D/dd.csv"

	# --- sqrtio: per IO, and where the IO completed; idle and softirqs hidden
	F=$TOP/.affbench-monbench.$$
	wait_until 120 eval '! pgrep -x sqrtio >/dev/null'
	AFFBENCH_CPUMON_HIDE=cpuidle,softirqs "$BIN/sqrtio" --file "$F" --rq 0 --repeat 1 --duration 0.2 \
		--format csv >"$D/sqh.csv" 2>"$D/sqh.err"
	rc=$?
	if [ "$rc" = 4 ]; then
		skip "sqrtio with the monitor" "$(tail -1 "$D/sqh.err")"
	else
		check "sqrtio, idle states and softirqs hidden, runs (rc $rc)" [ "$rc" = 0 ]
		check "sqrtio hidden: mon_ctxsw_per_op still written" grep -q ",mon_ctxsw_per_op," "$D/sqh.csv"
		check "sqrtio hidden: no idle and no completion-share record" \
			eval '! grep -qE ",mon_(idle|softirq|io_complete)" "$D/sqh.csv"'
		check "sqrtio hidden: both reasons said" eval \
			'grep -q "idle entries and time: no cpuidle states" "$D/sqh.err" &&
			 grep -q "completions on the submitting CPU: /proc/softirqs unreadable" "$D/sqh.err"'
		"$BIN/sqrtio" --file "$F" --rq 0 --repeat 2 --duration 0.2 --format csv >"$D/sq.csv" 2>"$D/sq.err"
		rc=$?
		check "sqrtio with the monitor exits 0 (rc $rc)" [ "$rc" = 0 ]
		check "sqrtio with the monitor writes records" test -s "$D/sq.csv"
		n=$(count "$D/sq.csv" "local=1" mon_ctxsw_per_op)
		check "sqrtio: mon_ctxsw_per_op in each of 2 repetitions ($n)" [ "$n" = 2 ]
		check "sqrtio: values finite, shares within 0-100%" sane "$D/sq.csv"
		l1=$(med "$D/sq.csv" "local=1" mon_io_complete_local_pct)
		l0=$(med "$D/sq.csv" "local=0" mon_io_complete_local_pct)
		if [ "$l0" = none ] && grep -q "local=0 skipped" "$D/sq.err"; then
			skip "sqrtio completion share off the completing CPU" "no local=0 point here"
		else
			check "sqrtio rq=0: more IO completes on the reader's CPU with local=1 ($l1%) than 0 ($l0%)" \
				awk -v a="$l1" -v b="$l0" 'BEGIN { exit !(a > b) }'
		fi
	fi
	rm -f "$F"
fi

# --- details.md: each benchmark's table, and the reasons under it -----------
printf 'repeat 1\nbench fdget\nduration 0.05\naxis op fstat\nextra --mode single --spawn 0\n' \
	>"$D/p.plan"
AFFBENCH_CPUMON_HIDE=cpuidle "$BIN/harness" run --plan "$D/p.plan" --out "$D/run" >/dev/null 2>&1
check "details.md: fdget's monitor table" \
	grep -q "^What the CPUs did in fdget's measured windows (" "$D/run/details.md"
check "details.md: the reasons under it, the hidden cpuidle and the shared-table path among them" \
	eval \
	'grep -q "^Not counted here, and why" "$D/run/details.md" &&
	 grep -q "^- idle entries and time: no cpuidle states" "$D/run/details.md" &&
	 grep -q "^- how often fdget() took the shared-table path" "$D/run/details.md"'
check "no FUSE mount left" no_fuse_left
t_done
