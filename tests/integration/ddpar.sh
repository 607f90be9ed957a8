#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddpar on real FUSE mounts: short write and read sweeps give parseable CSV
# with a throughput for every point; the bytes the sink daemon counted equal
# the bytes the clients moved (and a daemon that miscounts is caught); a
# daemon that crashes or is killed fails its point, writes no number and
# leaves no mount; so does an interrupt; kernel statistics come from extra
# instrumented repetitions that write kernel_* alone; table format prints the
# rendered tables and no record; bad input exits 2 with one line, a missing
# /dev/fuse exits 4; the connection knobs are restored.
. "$(dirname "$0")/lib.sh"

DD=$BIN/ddpar
W=$AFFBENCH_WORKDIR/ddpar-it
mkdir -p "$W"
SHORT=(--duration 0.3 --repeat 1 --procs 1,2 --kstats off)

if [ ! -x "$DD" ]; then nok "bin/ddpar is built"; t_done; fi
if [ ! -w /dev/fuse ]; then skip "ddpar" "no /dev/fuse"; t_done; fi

# csv_ok FILE: header, then 6 fields per line, a number in the value field
csv_ok() {
	awk -F, 'NR == 1 { if ($0 != "bench,config,rep,metric,value,unit") exit 1; next }
		 NF != 6 || $1 != "ddpar" || $5 !~ /^-?[0-9.e+-]+$/ { exit 1 }
		 END { if (NR < 2) exit 1 }' "$1"
}
# every_point FILE MODE METRIC: the metric is > 0 for procs 1,2 x clone_fd off,on
every_point() {
	local f=$1 mode=$2 m=$3 p c v
	for p in 1 2; do
		for c in off on; do
			v=$(csv_value "$f" "clone_fd=$c;daemon=multi;mode=$mode;procs=$p" "$m")
			awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }' ||
				{ echo "# $m missing for $mode procs=$p clone_fd=$c" >&2; return 1; }
		done
	done
}
# bytes_match FILE: client_bytes == daemon_bytes (> 0) in every row pair
bytes_match() {
	awk -F, '$4 == "client_bytes" { c[$2] = $5 } $4 == "daemon_bytes" { d[$2] = $5 }
		 END { n = 0; for (k in c) { n++; if (!(k in d) || c[k] != d[k] || c[k] <= 0) exit 1 }
		       exit !(n == 4) }' "$1"
}

# ---- sweeps ----
for mode in write read; do
	"$DD" --mode "$mode" "${SHORT[@]}" --format csv >"$W/$mode.csv" 2>"$W/$mode.err"
	rc=$?
	check "$mode sweep exits 0 (rc $rc: $(head -c 300 "$W/$mode.err"))" test "$rc" = 0
	check "$mode sweep CSV parses" csv_ok "$W/$mode.csv"
	check "$mode sweep: ${mode}_MB_per_s for every N and clone_fd" \
		every_point "$W/$mode.csv" "$mode" "${mode}_MB_per_s"
	check "$mode sweep: requests_per_s and lat_p99_us for every point" \
		bash -c "$(declare -f every_point csv_value); every_point '$W/$mode.csv' $mode requests_per_s $(
			)&& every_point '$W/$mode.csv' $mode lat_p99_us"
	check "$mode sweep: daemon bytes == client bytes at every point" bytes_match "$W/$mode.csv"
done

# The check must be able to fail: a daemon that counts one byte too many per write.
AFFBENCH_DDPAR_MISCOUNT=1 "$DD" --mode write --procs 1 --clone-fd off --duration 0.2 --repeat 1 \
	--kstats off --format csv >"$W/mis.csv" 2>"$W/mis.err"
rc=$?
check "miscounting daemon fails the point (exit $rc)" test "$rc" = 1
check "... and says how many bytes each side counted" grep -q "daemon counted" "$W/mis.err"
check "... and writes no number at all (header only)" test "$(grep -vc '^bench,' "$W/mis.csv")" = 0

# ---- the built-in loop vs coreutils dd ----
if command -v dd >/dev/null; then
	# 1 s: on a busy machine a 0.3 s dd window came out under the 5 ms a timing needs
	"$DD" --dd --mode both --procs 2 --clone-fd on --duration 1 --repeat 1 --kstats off \
		--format csv >"$W/dd.csv" 2>"$W/dd.err"
	rc=$?
	check "--dd runs (rc $rc: $(head -c 200 "$W/dd.err"))" test "$rc" = 0
	check "--dd: write and read throughput, bytes match" \
		bash -c "grep -q 'client=dd.*write_MB_per_s' '$W/dd.csv' &&
		grep -q 'client=dd.*read_MB_per_s' '$W/dd.csv' &&
		awk -F, '\$4==\"client_bytes\"{c[\$2]=\$5} \$4==\"daemon_bytes\"{d[\$2]=\$5} END{n=0; for(k in $(
			)c){n++; if(c[k]!=d[k]||c[k]<=0) exit 1} exit !(n==2)}' '$W/dd.csv'"
	check "--dd: requests_per_s but no latency (dd's calls are not timed)" \
		bash -c "grep -q 'client=dd.*requests_per_s' '$W/dd.csv' && ! grep -q lat_p50_us '$W/dd.csv'"
else
	skip "--dd runs" "no dd in PATH"
	skip "--dd: write and read throughput" "no dd in PATH"
fi

# ---- table format: the rendered tables of the post's layout, no record lines ----
"$DD" --mode both --procs 1 --duration 0.2 --repeat 1 --kstats off >"$W/table.txt" 2>/dev/null
check "table output has the post's headings" \
	bash -c "grep -q '^1) Writes to single mount' '$W/table.txt' &&
	grep -q '^2) Reading from single mount' '$W/table.txt' && $(
		)grep -q 'throughput(with clone_fd)' '$W/table.txt' &&
	grep -qE '^1 +[0-9.]+ MB/s +[0-9.]+ MB/s' '$W/table.txt' && $(
		)grep -q 'Time per request' '$W/table.txt'"
check "table output: time per request and latency for writes and reads" bash -c "
	sed -n '/^3) Time per request/,/^\$/p' '$W/table.txt' | grep -qE '^read +1 +[0-9.]+ / [0-9.]+' &&
	sed -n '/^4) Latency per call/,/^\$/p' '$W/table.txt' | grep -qE '^write +1 +[0-9.]+ / [0-9.]+ $(
		)+[0-9.]+ / [0-9.]+'"
check "table output prints no record line" \
	bash -c "! grep -qE 'client_bytes|MB_per_s|^config ' '$W/table.txt'"

# ---- kernel statistics ----
check "--kstats off writes no kernel_us_per_req" \
	bash -c "! grep -q kernel_us_per_req '$W/write.csv'"
AFFBENCH_KSTATS_FORCE=nobpf expect_rc "--kstats on without BPF: exit 4" 4 "$DD" --kstats on \
	--procs 1 --duration 0.2 --repeat 1
AFFBENCH_KSTATS_FORCE=nobpf "$DD" --mode write --procs 1 --clone-fd off --duration 0.2 --repeat 1 \
	--format csv \
	>"$W/ks-auto.csv" 2>"$W/ks-auto.err"
rc=$?
check "--kstats auto without BPF: runs (rc $rc), says why, writes no kernel_*" \
	bash -c "test $rc = 0 &&
	grep -q write_MB_per_s '$W/ks-auto.csv' && ! grep -q kernel_ '$W/ks-auto.csv' && $(
		)grep -q 'kernel statistics' '$W/ks-auto.err'"
# Headline numbers are never instrumented: the instrumented repetition writes the
# kernel_* records alone, so each config has one headline and one kernel record per rep.
"$DD" --kstats on --mode write --procs 1,2 --clone-fd both --duration 0.2 --repeat 2 --format csv \
	>"$W/ks.csv" 2>"$W/ks.err"
rc=$?
if [ "$rc" = 4 ]; then
	skip "instrumented repetitions" "$(head -1 "$W/ks.err")"
else
	check "--kstats on runs (rc $rc: $(head -c 200 "$W/ks.err"))" test "$rc" = 0
	check "--kstats on: per config and rep, one write_MB_per_s, client_bytes, kernel_us_per_req" \
		awk -F, 'NR > 1 { n[$2 SUBSEP $3 SUBSEP $4]++; cfg[$2] = 1 }
			 END { k = 0
			       for (c in cfg) { k++
				 for (r = 1; r <= 2; r++) {
				   split("write_MB_per_s client_bytes kernel_us_per_req", m, " ")
				   for (i in m) if (n[c SUBSEP r SUBSEP m[i]] != 1) exit 1 } }
			       exit !(k == 4) }' "$W/ks.csv"
	# spin wait: a number where the tracepoint saw spinlock waits, else said not counted
	ns=$(grep -c ',spin_us_per_req,' "$W/ks.csv")
	nn=$(grep -c 'spin_us_per_req not counted' "$W/ks.err")
	check "--kstats on: each instrumented point writes spin_us_per_req or says it is not counted $(
		)($ns + $nn of 8)" \
		[ $((ns + nn)) = 8 ]
	check "--kstats on: spin_us_per_req is never a 0 (no event is not no wait)" \
		awk -F, '$(NF-2) == "spin_us_per_req" && $(NF-1) + 0 <= 0 { bad = 1 } END { exit bad }' \
			"$W/ks.csv"
fi

# ---- daemon faults: the point fails, no number, no mount ----
# 3 s windows: the daemon must reach its 300th request on a busy machine too; it
# aborts then, so the window's length costs nothing.
AFFBENCH_DDPAR_CRASH_AFTER=300 "$DD" --mode write --procs 2 --clone-fd both --duration 3 \
	--repeat 1 \
	--kstats off --format csv >"$W/crash.csv" 2>"$W/crash.err"
rc=$?
check "daemon abort() mid-run: exit 1 (rc $rc)" test "$rc" = 1
check "... each point reports the dead daemon" \
	test "$(grep -c 'FUSE daemon.*\(died during the run\|ended abnormally\)' "$W/crash.err")" = 2
check "... no number written" bash -c "! grep -q MB_per_s '$W/crash.csv'"
check "... no mount left" no_fuse_left

pidf=$W/daemon.pid
rm -f "$pidf"
AFFBENCH_DAEMON_PIDFILE=$pidf "$DD" --mode write --procs 2 --clone-fd off --duration 5 --repeat 1 \
	--kstats off --format csv >"$W/kill.csv" 2>"$W/kill.err" &
ddpid=$!
wait_until 30 test -s "$pidf"	# a busy machine can take seconds to mount
sleep 0.5
kill -9 "$(cat "$pidf" 2>/dev/null)" 2>/dev/null
wait "$ddpid"
rc=$?
check "daemon SIGKILLed mid-run: exit 1 (rc $rc)" test "$rc" = 1
check "... no number written" bash -c "! grep -q MB_per_s '$W/kill.csv'"
check "... no mount left" no_fuse_left

# An interrupt mid-run: exit 1, no number for the point cut short, nothing mounted.
"$DD" --mode write --procs 2 --clone-fd off --duration 5 --repeat 1 --kstats off --format csv \
	>"$W/int.csv" 2>"$W/int.err" &
ddpid=$!
wait_until 30 grep -qF " $AFFBENCH_WORKDIR/" /proc/mounts
sleep 0.3
kill -INT "$ddpid"
wait "$ddpid"
rc=$?
check "SIGINT mid-run: exit 1 and says so (rc $rc: $(tail -n1 "$W/int.err"))" \
	bash -c "test $rc = 1 && grep -q interrupted '$W/int.err'"
check "... no number written" bash -c "! grep -q MB_per_s '$W/int.csv'"
check "... no mount left" no_fuse_left

# ---- bad input: one line, exit 2; a missing /dev/fuse: exit 4 ----
bad_cases=(
	"--bs 5000"
	"--bs 256K --max-write 128K"
	"--max-write 2M"
	"--procs 0"
	"--procs 1,0,2"
	"--procs 129"
	"--duration 0"
	"--duration -1"
	"--duration 1e-9 --procs 1"
	"--daemon single --clone-fd on"
	"--daemon single --clone-fd both"
	"--mode sideways"
	"--threads 0"
)
for c in "${bad_cases[@]}"; do
	# shellcheck disable=SC2086
	expect_rc "bad input $c" 2 "$DD" $c
done
# --daemon single alone means without clone_fd (it needs worker threads)
"$DD" --daemon single --mode write --procs 1 --duration 0.2 --repeat 1 --kstats off --format csv \
	>"$W/single.csv" 2>"$W/single.err"
rc=$?
check "--daemon single alone runs without clone_fd (rc $rc)" \
	eval '[ "$rc" = 0 ] && grep -q "clone_fd=off;daemon=single" "$W/single.csv" &&
		! grep -q "clone_fd=on" "$W/single.csv"'
AFFBENCH_FUSE_DEV=/nonexistent expect_rc "no /dev/fuse: exit 4" 4 "$DD" --procs 1 --duration 0.2

# ---- connection knobs (restored through the journal) ----
"$DD" --mode write --procs 1 --clone-fd off --duration 0.2 --repeat 1 --kstats off \
	--max-background 5 \
	--congestion-threshold 4 --format csv >"$W/knob.csv" 2>"$W/knob.err" &
ddpid=$!
wait "$ddpid"
rc=$?
if [ "$rc" = 4 ]; then
	skip "--max-background / --congestion-threshold" "$(head -1 "$W/knob.err")"
else
	check "--max-background 5 --congestion-threshold 4 run (rc $rc: $(head -c 200 "$W/knob.err"))" \
		bash -c "test $rc = 0 && grep -q 'max_background=5' '$W/knob.csv'"
	j=${AFFBENCH_JOURNAL:-}
	if [ -n "$j" ]; then
		check "... both knobs journalled and marked restored" bash -c "
			grep -qP '\t$ddpid\t0\t/sys/fs/fuse/connections/[0-9]+/max_background\t' '$j' &&
			grep -qP '\t$ddpid\t0\t/sys/fs/fuse/connections/[0-9]+/congestion_threshold\t' '$j' &&
			grep -qP '\t$ddpid\tdone\$' '$j'"
	else
		skip "knobs journalled" "AFFBENCH_JOURNAL unset (run through tests/run-tests.sh)"
	fi
fi

check "no FUSE mount left" no_fuse_left
t_done
