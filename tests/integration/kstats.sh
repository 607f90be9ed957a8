#!/bin/bash
# Kernel statistics end to end: the kernel's FUSE request count for a
# cputestfs run equals the daemon's own count, a ddpar run reports spinlock
# figures, and every degraded path (no BPF, no tracepoint, BPF refused) skips
# the kernel metrics with a reason instead of writing zeros.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/kstats.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
CFS=$BIN/cputestfs
DD=$BIN/ddpar

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "kstats with FUSE" "needs root and /dev/fuse"
	t_done
fi
if ! AFFBENCH_KSTATS_FORCE= "$CFS" --kstats on --placement same --duration 0.2 --repeat 1 --quiet \
	--format csv >"$W/probe.csv" 2>"$W/probe.err"; then
	skip "kstats on this machine" "$(tail -n1 "$W/probe.err")"
	t_done
fi

"$CFS" --kstats on --placement same,none --duration 0.5 --repeat 1 --quiet --format csv >"$W/c.csv" 2>"$W/c.err"
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

"$DD" --kstats on --mode write --procs 2 --clone-fd both --duration 0.3 --repeat 1 --format csv \
	>"$W/d.csv" 2>"$W/d.err"
rc=$?
check "ddpar --kstats on runs (exit $rc)" eval '[ "$rc" = 0 ] && [ -s "$W/d.csv" ]'
for m in spin_us_per_req kernel_us_per_req; do
	v=$(csv_value "$W/d.csv" "clone_fd=on" $m)
	check "ddpar reports $m (got '$v')" [ -n "$v" ]
done

# Each degraded path: auto skips the kernel metrics (run still succeeds), on refuses with exit 4.
for force in nobpf notracepoint eperm; do
	AFFBENCH_KSTATS_FORCE=$force "$CFS" --placement same --duration 0.2 --repeat 1 --format csv \
		>"$W/f.csv" 2>"$W/f.err"
	rc=$?
	check "forced $force, --kstats auto: run ok, reason given, no kernel_* written (exit $rc: $(tail -n1 "$W/f.err"))" \
		eval '[ "$rc" = 0 ] && grep -q stat_per_s "$W/f.csv" && ! grep -q kernel_ "$W/f.csv" && grep -q "kernel statistics" "$W/f.err"'
	AFFBENCH_KSTATS_FORCE=$force expect_rc "forced $force, --kstats on: skipped" 4 \
		"$CFS" --kstats on --placement same --duration 0.2 --repeat 1 --quiet
done
"$CFS" --kstats off --placement same --duration 0.2 --repeat 1 --quiet --format csv >"$W/o.csv" 2>&1
check "--kstats off writes no kernel_* metric" eval '! grep -q kernel_ "$W/o.csv"'
check "no FUSE mount left" no_fuse_left
t_done
