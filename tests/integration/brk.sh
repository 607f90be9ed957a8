#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The request breakdown (brk_* records of instrumented repetitions) end to end:
# with the client and the daemon on different CPUs nearly every daemon and
# reply wake-up crosses CPUs, on one CPU nearly none does; what lies outside the
# five steps (syscall entry and exit, dearer under PTI) is a row of its own, never
# below zero, and steps + outside = the time per call the clients measured themselves
# around each call of the same repetition; ddpar writes it too, and cputestfs's pipe
# baseline its round trips with --kstats on; a breakdown that cannot load leaves the
# other kernel figures in place and says why. Tolerances only: the machine is
# busy, so a point that misses its sum is measured again (up to 3 times).
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/brk.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
CFS=$BIN/cputestfs
DD=$BIN/ddpar

# A measurement another test disturbed (its mount aborted, its daemon killed) fails with
# exit 1: run it again, up to 3 times. Other exits stand.
again() { local rc; for _ in 1 2 3; do "$@"; rc=$?; [ "$rc" = 1 ] || return $rc; done; return $rc; }

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "request breakdown" "needs root and /dev/fuse"
	t_done
fi
if ! AFFBENCH_KSTATS_FORCE= again "$CFS" --kstats on --placement same --duration 0.2 --repeat 1 \
	--format csv >"$W/probe.csv" 2>"$W/probe.err"; then
	skip "request breakdown on this machine" "$(tail -n1 "$W/probe.err")"
	t_done
fi
if ! grep -q ",brk_calls," "$W/probe.csv"; then
	# the kernel's other BPF figures loaded, so BPF and BTF are here: a breakdown the
	# verifier refuses is our program's defect, never a missing facility
	if grep -q ",kernel_ns_per_req," "$W/probe.csv" && grep -q "BPF load refused" "$W/probe.err"; then
		refused=$(grep -m1 'BPF load refused' "$W/probe.err")
		nok "the breakdown's BPF program loads where kstats' does ($refused)"
	else
		skip "request breakdown on this machine" "$(grep -m1 'breakdown is unavailable' "$W/probe.err")"
	fi
	t_done
fi

# within A B PCT: |A/B - 1| <= PCT/100
within() { awk -v a="$1" -v b="$2" -v p="$3" \
	'BEGIN { exit !(a != "" && b > 0 && (a / b - 1) ^ 2 <= (p / 100) ^ 2) }'; }
at_least() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v != "" && v + 0 >= t) }'; }
at_most() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v != "" && v + 0 <= t) }'; }
# outside_ok CALL OUTSIDE CLIENT: the outside row is there, not below zero, and call + outside
# is the clients' time, within the 1/64 by which the clients' histogram may miss its mean (a
# deficit that small is recorded as an outside of 0)
outside_ok() {
	awk -v c="$1" -v o="$2" -v l="$3" 'BEGIN { exit !(c != "" && o != "" && l > 0 && o >= 0 &&
		((c + o) / l - 1) ^ 2 <= (1 / 64) ^ 2) }'
}
# steps_add_up CSV KEY=VALUES WHAT TRIES: per point, the outside row is reported, not negative,
# and steps + outside = the clients' own time per call (the steps' share of it is not
# asserted: how much of a syscall lies outside the probes differs from machine to machine)
steps_add_up() {
	local pl c l o k=${2%%=*}
	for pl in $(echo "${2#*=}" | tr , ' '); do
		c=$(csv_value "$1" "$k=$pl" brk_call_ns)
		l=$(csv_value "$1" "$k=$pl" brk_client_ns)
		o=$(csv_value "$1" "$k=$pl" brk_outside_ns)
		check "$3 $pl: the outside-the-probes row is reported (got '$o' ns)" [ -n "$o" ]
		check "$3 $pl: outside the probes is not below zero ($o ns, $4 tries)" at_least "$o" 0
		check "$3 $pl: steps + outside = the clients' time per call ($c + $o vs $l ns)" \
			outside_ok "$c" "$o" "$l"
	done
}
# point_ok CSV KEY=VALUE: that point's breakdown holds (retry criterion)
point_ok() {
	outside_ok "$(csv_value "$1" "$2" brk_call_ns)" "$(csv_value "$1" "$2" brk_outside_ns)" \
		"$(csv_value "$1" "$2" brk_client_ns)"
}

# One transport: same and other (other needs two CPUs), each point retried until its steps add
# up; then the wake-up shares of the last attempt.
ctf_transport() {
	local tr=$1 pls=same out=$W/c.$1 try pl ok
	[ "$(nproc)" -ge 2 ] && pls=same,other
	for try in 1 2 3; do
		"$CFS" --kstats on --transport "$tr" --placement $pls --duration 0.6 --repeat 1 --quiet \
			--format csv >"$out.csv" 2>"$out.err"
		rc=$?
		[ "$rc" = 4 ] && { skip "cputestfs --transport $tr breakdown" "$(tail -n1 "$out.err")"; return; }
		ok=1
		for pl in ${pls//,/ }; do
			point_ok "$out.csv" "placement=$pl" || ok=0
		done
		[ "$ok" = 1 ] && break
	done
	check "cputestfs $tr runs with the breakdown (exit $rc)" \
		eval '[ "$rc" = 0 ] && grep -q ",brk_calls," "$out.csv"'
	steps_add_up "$out.csv" "placement=$pls" "cputestfs $tr" "$try"
	for w in daemon reply; do
		s=$(csv_value "$out.csv" "placement=same" brk_${w}_wake_cross_pct)
		n=$(csv_value "$out.csv" "placement=same" brk_${w}_wakes_per_call)
		# same: a request may find its server runnable and need no wake-up; those that do, stay.
		if [ -n "$s" ]; then
			check "cputestfs $tr same: $w wake-ups crossing CPUs <= 5% (got $s%)" at_most "$s" 5
		else
			check "cputestfs $tr same: no $w wake-up at all, so no cross share (wakes/call $n)" \
				at_most "$n" 0
		fi
		if [ "$(nproc)" -ge 2 ]; then
			o=$(csv_value "$out.csv" "placement=other" brk_${w}_wake_cross_pct)
			check "cputestfs $tr other: $w wake-ups crossing CPUs >= 90% (got $o%)" at_least "$o" 90
		fi
	done
}
for tr in libfuse dev uring; do
	ctf_transport $tr
done

# Every step and flag is written, and the shares add up to 100.
f=$W/c.libfuse.csv
missing=
for m in brk_calls brk_call_ns brk_call_p50_ns brk_call_p99_ns brk_loop_ns brk_client_ns \
	brk_outside_ns brk_calls_per_s \
	brk_daemon_wakes_per_call brk_reply_wakes_per_call; do
	[ -n "$(csv_value "$f" "placement=same" $m)" ] || missing="$missing $m"
done
sum=0
for s in submit daemon_wake service reply_wake return; do
	for k in p50_ns p99_ns share_pct; do
		[ -n "$(csv_value "$f" "placement=same" brk_${s}_$k)" ] || missing="$missing brk_${s}_$k"
	done
	sum=$(awk -v a="$sum" -v b="$(csv_value "$f" "placement=same" brk_${s}_share_pct)" \
		'BEGIN { print a + b }')
done
check "every brk_* step metric is written (missing:$missing)" [ -z "$missing" ]
check "the step shares add up to 100% (got $sum)" within "$sum" 100 0.1

# ddpar, every transport: its built-in client's writes, every step, the outside row.
for tr in libfuse dev uring; do
	for try in 1 2 3; do
		"$DD" --kstats on --transport $tr --mode write --procs 1 --duration 0.4 --repeat 1 --format csv \
			>"$W/d.csv" 2>"$W/d.err"
		rc=$?
		[ "$rc" = 4 ] && break
		point_ok "$W/d.csv" "procs=1" && break
	done
	if [ "$rc" = 4 ]; then
		skip "ddpar --transport $tr breakdown" "$(tail -n1 "$W/d.err")"
		continue
	fi
	check "ddpar $tr writes the breakdown (exit $rc)" [ "$rc" = 0 ]
	steps_add_up "$W/d.csv" "procs=1" "ddpar $tr" "$try"
done

# The pipe baseline's round trip, cut at the same steps (kernel statistics on): they add up to the
# clients' own time with the outside row, no FUSE count is written, and on two CPUs both wake-ups
# cross.
pls=same
[ "$(nproc)" -ge 2 ] && pls=same,other
for try in 1 2 3; do
	"$CFS" --baseline pipe --kstats on --placement $pls --duration 0.6 --repeat 1 \
		--quiet --format csv \
		>"$W/p.csv" 2>"$W/p.err"
	rc=$?
	ok=1
	for pl in ${pls//,/ }; do
		point_ok "$W/p.csv" "placement=$pl" || ok=0
	done
	[ "$ok" = 1 ] && break
done
check "pipe baseline with --kstats on: the breakdown is written, no FUSE count (exit $rc)" \
	eval '[ "$rc" = 0 ] && grep -q ",brk_calls," "$W/p.csv" &&
		! grep -q ",kernel_requests," "$W/p.csv"'
steps_add_up "$W/p.csv" "placement=$pls" pipe "$try"
if [ "$(nproc)" -ge 2 ]; then
	for w in daemon reply; do
		o=$(csv_value "$W/p.csv" "placement=other" brk_${w}_wake_cross_pct)
		check "pipe other: $w wake-ups crossing CPUs >= 90% (got $o%)" at_least "$o" 90
	done
fi
expect_rc "--baseline kernel --kstats on is refused" 2 "$CFS" --baseline kernel --kstats on

# The breakdown unavailable: kernel_* stay, brk_* go, with the reason; the kstats skips take it
# along.
AFFBENCH_KSTATS_FORCE=nobrk again "$CFS" --kstats on --placement same --duration 0.2 --repeat 1 \
	--format csv \
	>"$W/n.csv" 2>"$W/n.err"
rc=$?
check "forced nobrk: run ok, kernel_* written, no brk_*, reason given (exit $rc)" \
	eval '[ "$rc" = 0 ] && grep -q kernel_ns_per_req "$W/n.csv" && ! grep -q ",brk_" "$W/n.csv" &&
	      grep -q "request breakdown is unavailable" "$W/n.err"'
AFFBENCH_KSTATS_FORCE=nobrk again "$DD" --kstats on --mode write --procs 1 --duration 0.2 \
	--repeat 1 --format csv \
	>"$W/dn.csv" 2>"$W/dn.err"
rc=$?
check "ddpar forced nobrk: run ok, kernel_us_per_req written, no brk_* (exit $rc)" \
	eval '[ "$rc" = 0 ] && grep -q kernel_us_per_req "$W/dn.csv" && ! grep -q ",brk_" "$W/dn.csv"'
AFFBENCH_KSTATS_FORCE=nobpf "$CFS" --placement same --duration 0.2 --repeat 1 --format csv \
	>"$W/b.csv" 2>&1
check "forced nobpf: no brk_* written" eval '! grep -q ",brk_" "$W/b.csv"'
check "no FUSE mount left" no_fuse_left
t_done
