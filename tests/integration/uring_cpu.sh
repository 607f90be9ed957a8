#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --uring-cpu (where FUSE over io_uring's ring threads run), through both
# benchmarks that have it:
#   - a bad value, or the option with another transport or baseline: exit 2,
#     one line naming it;
#   - the choice is recorded as uring_cpu= in uring points' config, and
#     only there (older and other-transport records keep their keys);
#   - each choice places the daemon's ring threads as it says: read from
#     /proc/<daemon>/task/*/status (the daemon is a separate process) while
#     it serves; thread "fsrv-uring-Q" serves CPU Q's queue.
#   - next and none with one allowed CPU (--cpus, taskset): exit 4, one line
#     naming it, on any machine; queue there, and next on two, run;
#   - cputestfs's placement same pins the server to one CPU: next is skipped
#     there with one line, exit 4 when no placement is left.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/uring_cpu.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
SHORT=(--duration 0.3 --repeat 1 --format csv --quiet --kstats off)

# ---- usage: no root needed ----
for b in cputestfs ddpar; do
	expect_rc "$b --uring-cpu with a bad value" 2 "$BIN/$b" --transport uring --uring-cpu bogus
	err=$("$BIN/$b" --transport uring --uring-cpu bogus 2>&1 >/dev/null)
	check "$b: the bad value is named ($err)" eval '[[ $err == *bogus*--uring-cpu* ]]'
	expect_rc "$b --uring-cpu without --transport uring (libfuse)" 2 "$BIN/$b" --uring-cpu next
	expect_rc "$b --uring-cpu with --transport dev" 2 "$BIN/$b" --transport dev --uring-cpu none
done
expect_rc "cputestfs --uring-cpu with --baseline pipe" \
	2 "$BIN/cputestfs" --baseline pipe --uring-cpu queue
expect_rc "ddpar --uring-cpu with --transport passthrough" \
	2 "$BIN/ddpar" --transport passthrough --uring-cpu=next

# ---- the report: a column per choice, the reading names the best ----
# uring records without uring_cpu (from before the option) stand for queue.
R=$W/render
mkdir -p "$R"
{
	echo "bench,config,rep,metric,value,unit"
	base="bs=131072;clone_fd=off;daemon=multi;mode=read;procs=1"
	for rep in 1 2 3 4 5 6; do
		for tv in "transport=libfuse 1000" "transport=uring 2000" \
			"transport=uring;uring_cpu=next 300" "transport=uring;uring_cpu=none 900"; do
			echo "ddpar,$base;${tv% *},$rep,read_MB_per_s,$((${tv#* } + rep)),MB/s"
		done
	done
} >"$R/raw.csv"
"$BIN/harness" report "$R" >"$W/plot.out" 2>&1
rc=$?
check "harness report of uring_cpu records: exit 0 (got $rc: $(tail -n1 "$W/plot.out"))" \
	[ "$rc" = 0 ]
check "tables.md: a column per --uring-cpu choice beside libfuse" \
	grep -q '^| procs | libfuse | uring | uring next | uring none |' "$R/tables.md"
line=$(grep '^One reader' "$R/report.md")
check "report.md names the best choice with each ratio to libfuse ($line)" \
	eval '[[ $line == *"queue 2004 (2x ["*"next 30"*"(0.3"*"best here: queue."* ]]'

# ---- one allowed CPU makes next and none inert: exit 4 before anything is measured ----
# inert RC ERR: exit 4 and one line that names the missing facility
inert() { [ "$1" = 4 ] && [ "$(printf '%s\n' "$2" | grep -c .)" = 1 ] &&
	printf '%s' "$2" | grep -qF "one allowed CPU"; }
ONE=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)
TINY=(--duration 0.05 --repeat 1 --format csv --quiet --kstats off)
for c in next none; do
	err=$("$BIN/cputestfs" --transport uring --uring-cpu $c --cpus "$ONE" "${TINY[@]}" 2>&1 >/dev/null)
	rc=$?
	check "cputestfs --uring-cpu $c --cpus $ONE: exit 4, one line: one allowed CPU ($rc: $err)" \
		inert "$rc" "$err"
	err=$(taskset -c "$ONE" "$BIN/ddpar" --transport uring --uring-cpu $c --mode read --procs 1 \
		"${TINY[@]}" 2>&1 >/dev/null)
	rc=$?
	check "taskset -c $ONE ddpar --uring-cpu $c: exit 4, one line: one allowed CPU ($rc: $err)" \
		inert "$rc" "$err"
done
# queue, the default, places threads as it always does: one CPU is no reason to refuse it
err=$("$BIN/ddpar" --transport uring --uring-cpu queue --cpus "$ONE" --mode read --procs 1 \
	"${TINY[@]}" 2>&1 >/dev/null)
check "ddpar --uring-cpu queue --cpus $ONE is not refused as inert ($err)" \
	eval '! printf "%s" "$err" | grep -qF "one allowed CPU"'
if [ "$(nproc)" -ge 2 ]; then
	err=$("$BIN/ddpar" --transport uring --uring-cpu next --mode read --procs 1 "${TINY[@]}" \
		2>&1 >/dev/null)
	check "ddpar --uring-cpu next on $(nproc) allowed CPUs is not refused as inert ($err)" \
		eval '! printf "%s" "$err" | grep -qF "one allowed CPU"'
else
	skip "--uring-cpu next on two CPUs" "one allowed CPU here"
fi

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "--uring-cpu at work" "needs root and /dev/fuse"
	t_done
fi
why=$("$BIN/cputestfs" --transport uring --placement same --duration 0.05 --repeat 1 \
	--quiet 2>&1 >/dev/null)
if [ $? = 4 ]; then
	skip "--uring-cpu at work" "$why"
	t_done
fi

# ---- recorded in the config, uring points only ----
# bench NAME OUT ARGS...: run it; 1 with a skip line when it exits 4 (on a shared
# machine another affbench process may hold enable_uring through its knob journal)
bench() {
	"$BIN/$1" "${@:3}" "${SHORT[@]}" >"$W/$2.csv" 2>"$W/$2.err"
	[ $? = 4 ] || return 0
	skip "$1 ${*:3}" "$(tail -n1 "$W/$2.err")"
	return 1
}
recorded() { # FILE CONFIG METRIC: a record of METRIC whose config holds CONFIG
	[ -n "$(csv_value "$W/$1.csv" "$2" "$3")" ]
}
bench cputestfs c --transport uring --uring-cpu next --placement none &&
	check "cputestfs --uring-cpu next: recorded as uring_cpu=next ($(tail -n1 "$W/c.err"))" \
		recorded c "transport=uring;uring_cpu=next" stat_per_s
bench cputestfs cq --transport uring --placement same &&
	check "cputestfs --transport uring alone: recorded as uring_cpu=queue ($(tail -n1 "$W/cq.err"))" \
		recorded cq "transport=uring;uring_cpu=queue" stat_per_s
bench cputestfs cd --transport dev --placement same &&
	check "cputestfs --transport dev: no uring_cpu key" \
		eval 'grep -q stat_per_s "$W/cd.csv" && ! grep -q uring_cpu "$W/cd.csv"'
bench ddpar d --transport uring --uring-cpu none --procs 1 --mode read &&
	check "ddpar --uring-cpu none: recorded as uring_cpu=none ($(tail -n1 "$W/d.err"))" \
		recorded d "transport=uring;uring_cpu=none" read_MB_per_s
bench ddpar dd --transport dev --procs 1 --mode read &&
	check "ddpar --transport dev: no uring_cpu key" \
		eval 'grep -q read_MB_per_s "$W/dd.csv" && ! grep -q uring_cpu "$W/dd.csv"'

# placement same pins the server to the client's CPU: next has nothing to move there
err=$("$BIN/cputestfs" --transport uring --uring-cpu next --placement same \
	"${TINY[@]}" 2>&1 >/dev/null)
rc=$?
check "cputestfs --uring-cpu next --placement same: exit 4, one line: $(
	)pinned to one CPU ($rc: $err)" \
	eval '[ "$rc" = 4 ] && [ "$(printf "%s\n" "$err" | grep -c .)" = 1 ] &&
		[[ $err == *"--uring-cpu next at placement same: the server is pinned to CPU"* ]]'

# ---- where the ring threads run ----
# ring_threads PID: "Q ALLOWED" per ring thread of the daemon (its queue's CPU, its affinity)
ring_threads() {
	local t q
	for t in /proc/"$1"/task/*; do
		q=$(cat "$t/comm" 2>/dev/null) || continue
		[[ $q == fsrv-uring-* ]] || continue
		echo "${q#fsrv-uring-} $(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status" 2>/dev/null)"
	done | sort -n
}
# expected MODE: the same lines for this machine's CPUs (the daemon may use them all)
expected() {
	local all cpus=() i n q
	all=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	read -ra cpus <<<"$(expand_list "$all")"
	n=${#cpus[@]}
	for ((i = 0; i < n; i++)); do
		q=${cpus[i]}
		case $1 in
		queue) echo "$q $q" ;;
		next) echo "$q ${cpus[(i + 1) % n]}" ;;
		none) echo "$q $all" ;;
		esac
	done | sort -n
}
expand_list() { # a CPU list "0-2,5" as "0 1 2 5"
	local part out=()
	IFS=, read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		if [[ $part == *-* ]]; then out+=($(seq "${part%-*}" "${part#*-}")); else out+=("$part"); fi
	done
	echo "${out[@]}"
}

for mode in queue next none; do
	pf=$W/$mode.pid
	rm -f "$pf"
	AFFBENCH_DAEMON_PIDFILE=$pf "$BIN/cputestfs" --transport uring --uring-cpu $mode --placement none \
		--duration 3 --repeat 1 --format csv --quiet --kstats off >/dev/null 2>"$W/$mode.err" &
	bp=$!
	got=""
	want=$(expected $mode)
	# threads start one after another: wait for all of them (5 s at most)
	for _ in $(seq 100); do
		if [ -s "$pf" ]; then
			got=$(ring_threads "$(cat "$pf")")
			[ "$(echo "$got" | grep -c .)" = "$(echo "$want" | grep -c .)" ] && break
		fi
		sleep 0.05
	done
	wait "$bp"
	rc=$?
	if [ "$rc" = 4 ]; then
		skip "--uring-cpu $mode placement" "$(tail -n1 "$W/$mode.err")"
		continue
	fi
	last=$(tail -n1 "$W/$mode.err")
	check "--uring-cpu $mode: ring threads (queue CPU, allowed CPUs) are '$(echo $want)' $(
		)(got '$(echo $got)', exit $rc: $last)" \
		eval '[ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]'
done
check "no FUSE mount left" no_fuse_left
t_done
