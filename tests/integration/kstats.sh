#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel statistics end to end: the kernel's FUSE request count for a
# cputestfs run equals the daemon's own count; headline numbers are never
# instrumented (each timed repetition is followed by an instrumented one of
# the same point, and the probes are attached during the second only); a
# ddpar run reports spinlock figures; and every degraded path (no BPF, no
# tracepoint, BPF refused) skips the kernel metrics with a reason instead of
# writing zeros.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/kstats.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
CFS=$BIN/cputestfs
DD=$BIN/ddpar
# Measured windows of 1 s: a shorter one on a busy machine can end without a
# completed call, and the point then fails (these checks are about counts, not speed).
WIN=1

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "kstats with FUSE" "needs root and /dev/fuse"
	t_done
fi
if ! AFFBENCH_KSTATS_FORCE= "$CFS" --kstats on --placement same --duration $WIN --repeat 1 --quiet \
	--format csv >"$W/probe.csv" 2>"$W/probe.err"; then
	skip "kstats on this machine" "$(tail -n1 "$W/probe.err")"
	t_done
fi

"$CFS" --kstats on --placement same,none --duration $WIN --repeat 1 --quiet --format csv \
	>"$W/c.csv" 2>"$W/c.err"
rc=$?
check "cputestfs --kstats on runs (exit $rc)" eval '[ "$rc" = 0 ] && [ -s "$W/c.csv" ]'
for pl in same none; do
	kreq=$(csv_value "$W/c.csv" "placement=$pl" kernel_requests)
	dreq=$(csv_value "$W/c.csv" "placement=$pl" daemon_requests)
	check "placement $pl: kernel request count $kreq equals the daemon's $dreq" \
		eval '[ -n "$kreq" ] && [ "$kreq" != 0 ] && [ "$kreq" = "$dreq" ]'
done
s=$(csv_value "$W/c.csv" "placement=same" kernel_same_cpu_pct)
check "placement same: every request ended on the CPU that queued it (got $s%)" \
	awk -v v="$s" 'BEGIN { exit !(v != "" && v + 0 >= 99) }'

# Each timed repetition, then an instrumented one of the same point with its own daemon;
# kernel records share the timed records' config and repetition number.
"$CFS" --kstats on --placement same --duration $WIN --repeat 2 --format csv >"$W/i.csv" 2>"$W/i.err"
rc=$?
rep_line='s/^cputestfs: rep \([0-9]\)\/2 placement=same\(, instrumented\)\{0,1\} '
rep_line+='client_cpu=.*/\1\2/p'
order=$(sed -n "$rep_line" "$W/i.err" | tr '\n' ' ')
check "--kstats on: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "--kstats on: rep 1, rep 1 instrumented, rep 2, rep 2 instrumented (got '$order')" \
	[ "$order" = "1 1, instrumented 2 2, instrumented " ]
n=$(grep -c "daemon pid" "$W/i.err")
check "--kstats on: a daemon for each of the 4 repetitions (got $n)" [ "$n" = 4 ]
for rep in 1 2; do
	a=$(awk -F, -v r=$rep '$3 == r && $4 == "stat_per_s" { print $2 }' "$W/i.csv")
	b=$(awk -F, -v r=$rep '$3 == r && $4 == "kernel_requests" { print $2 }' "$W/i.csv")
	check "rep $rep: stat_per_s and kernel_requests once each, same config ('$a')" \
		eval '[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(grep -c ",$rep,stat_per_s," "$W/i.csv")" = 1 ]'
done

# The probes are attached during the instrumented repetition only (bpftool perf list names
# the process holding a tracepoint link); the pidfile names each repetition's daemon.
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
if [ -x "$BPFTOOL" ] && "$BPFTOOL" perf list >/dev/null 2>&1; then
	pf=$W/ks.pid
	AFFBENCH_DAEMON_PIDFILE=$pf "$CFS" --kstats on --placement same --duration 2 --repeat 1 \
		--quiet --format csv >"$W/t.csv" 2>"$W/t.err" &
	bp=$!
	attached() { "$BPFTOOL" perf list 2>/dev/null | grep -q "^pid $bp .*fuse_request_send"; }
	timed=unknown instr=unknown d1=
	# next_daemon: the pidfile names a daemon other than the timed repetition's ($d1)
	next_daemon() { d2=$(cat "$pf" 2>/dev/null); [ -n "$d2" ] && [ "$d2" != "$d1" ]; }
	# Waits end when what they wait for happens: generous for a busy machine's start-up.
	if wait_until 30 test -s "$pf"; then
		d1=$(cat "$pf")
		sleep 0.8	# into the timed repetition's 2 s
		if attached; then timed=attached; else timed=detached; fi
		# the instrumented repetition: attached at some moment of its 2 s
		if wait_until 30 next_daemon && wait_until 4 \
			attached; then instr=attached; else instr=detached; fi
	fi
	wait $bp
	rc=$?
	check "timed repetition: no probe attached (got $timed, exit $rc)" \
		eval '[ "$timed" = detached ] && [ "$rc" = 0 ]'
	check "instrumented repetition: probes attached (got $instr)" [ "$instr" = attached ]
else
	skip "probes attached only while instrumented" "no usable bpftool"
fi

"$DD" --kstats on --mode write --procs 2 --clone-fd both --duration $WIN --repeat 1 --format csv \
	>"$W/d.csv" 2>"$W/d.err"
rc=$?
check "ddpar --kstats on runs (exit $rc)" eval '[ "$rc" = 0 ] && [ -s "$W/d.csv" ]'
v=$(csv_value "$W/d.csv" "clone_fd=on" kernel_us_per_req)
check "ddpar reports kernel_us_per_req (got '$v')" [ -n "$v" ]
v=$(csv_value "$W/d.csv" "clone_fd=on" spin_us_per_req)
if [ -n "$v" ]; then
	check "ddpar's spin_us_per_req, where written, is above 0 (got $v)" \
		awk -v x="$v" 'BEGIN { exit !(x > 0) }'
else
	check "ddpar says why spin_us_per_req is not written (no spinlock event: not a 0)" \
		grep -q "spin_us_per_req not counted: lock:contention_begin saw no spinlock wait" "$W/d.err"
fi

# Each degraded path: auto skips the kernel metrics (run still succeeds), on refuses with exit 4.
for force in nobpf notracepoint eperm; do
	AFFBENCH_KSTATS_FORCE=$force "$CFS" --placement same --duration $WIN --repeat 1 --format csv \
		>"$W/f.csv" 2>"$W/f.err"
	rc=$?
	last=$(tail -n1 "$W/f.err")
	check "forced $force, --kstats auto: run ok, reason given, no kernel_* written (exit $rc: $last)" \
		eval '[ "$rc" = 0 ] && grep -q stat_per_s "$W/f.csv" && ! grep -q kernel_ "$W/f.csv" &&
			grep -q "kernel statistics" "$W/f.err"'
	AFFBENCH_KSTATS_FORCE=$force expect_rc "forced $force, --kstats on: skipped" 4 \
		"$CFS" --kstats on --placement same --duration 0.2 --repeat 1 --quiet
done
"$CFS" --kstats off --placement same --duration $WIN --repeat 1 --quiet --format csv \
	>"$W/o.csv" 2>&1
check "--kstats off writes no kernel_* metric" eval '! grep -q kernel_ "$W/o.csv"'
check "no FUSE mount left" no_fuse_left
t_done
