#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fdget end to end: idle-thread mode really runs its loop with two threads
# (sampled from /proc by a watcher process), records parse, every mode runs,
# the loops of every op both ways (libc, raw) including read's wrap at EOF,
# stdout is the rendered tables, faults fail with one line and no number,
# bad input gets one line and exit 2, and the temp file does not stay behind.
# Short timings throughout: this checks behaviour, not speed (~30 s).
# Not shorter than 50 ms: the iteration count is calibrated once, and a repetition
# that runs more than twice as fast as a calibration slowed by a busy machine
# gets a window under 5 ms and fails; at 50 ms that takes a tenfold slowdown.
. "$(dirname "$0")/lib.sh"

FDGET=$BIN/fdget
if [ ! -x "$FDGET" ]; then
	skip "fdget" "bin/fdget not built (run make)"
	t_done
fi
out=$AFFBENCH_WORKDIR/fdget-it
mkdir -p "$out"
quick=(--duration 0.05 --repeat 3 --quiet)

# --- idle-thread has two threads during the loop, single has one ---------
"$FDGET" --op pread --mode idle-thread --watch-threads --spawn 0 --format csv "${quick[@]}" \
	>"$out/watch.csv" 2>"$out/watch.err"
rc=$?
check "watch run exits 0 (rc $rc: $(head -c 300 "$out/watch.err"))" [ "$rc" = 0 ]
# every rep of a mode must report the same min and max thread count
threads_of() { # MODE METRIC -> distinct values, space separated
	awk -F, -v m="mode=$1;" -v k="$2" 'index($2, m) == 1 && $4 == k { print $5 }' "$out/watch.csv" |
		sort -u | tr '\n' ' '
}
for metric in threads_seen threads_seen_max; do
	v=$(threads_of idle-thread $metric)
	check "idle-thread: $metric is 2 in every rep (got '$v')" [ "$v" = "2 " ]
	v=$(threads_of single $metric)
	check "single: $metric is 1 in every rep (got '$v')" [ "$v" = "1 " ]
done
n=$(awk -F, '$4 == "threads_seen"' "$out/watch.csv" | wc -l)
check "threads_seen recorded for each of 3 reps of 2 modes (got $n)" [ "$n" = 6 ]

# --- --syscall raw: the kernel's part alone, marked in the config ----------
"$FDGET" --op fstat --syscall raw --spawn 0 --format csv "${quick[@]}" >"$out/raw.csv" \
	2>"$out/raw.err"
n=$(awk -F, '$4 == "ns_per_op" && $2 ~ /;syscall=raw;/' "$out/raw.csv" | wc -l)
check "--syscall raw: every rep recorded with syscall=raw (got $n of 6)" [ "$n" = 6 ]

# --- CSV records parse ----------------------------------------------------
"$FDGET" --mode all --spawn 4 --format csv "${quick[@]}" >"$out/all.csv" 2>"$out/all.err"
rc=$?
check "--mode all exits 0 (rc $rc: $(head -c 300 "$out/all.err"))" [ "$rc" = 0 ]
check "CSV header exact" [ "$(head -1 "$out/all.csv")" = "bench,config,rep,metric,value,unit" ]
bad=$(awk -F, 'NR > 1 && (NF != 6 || $1 != "fdget" || $3 !~ /^[0-9]+$/ ||
	$5 !~ /^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/ ||
	$2 !~ /^mode=[a-z-]+;op=[a-z]+;threads=[0-9]+$/ || $6 == "") { print NR": "$0 }' "$out/all.csv")
check "every CSV row has 6 fields, a finite value, config keys mode;op;threads ($bad)" [ -z "$bad" ]
rows=$(($(wc -l <"$out/all.csv") - 1))
check "CSV has records ($rows)" [ "$rows" -gt 0 ]
missing=""
for mode in single idle-thread shared-fd private-fd procs; do
	for op in pread read fstat lseek; do
		n=$(awk -F, -v c="mode=$mode;op=$op;" 'index($2, c) == 1 && $4 == "ns_per_op"' "$out/all.csv" |
			wc -l)
		[ "$n" = 3 ] || missing="$missing $mode/$op:$n"
	done
done
check "every mode x op has 3 ns_per_op records ($missing)" [ -z "$missing" ]
for m in overhead_ns_per_op timer_ns iterations us_per_spawn; do
	n=$(awk -F, -v k="$m" '$4 == k' "$out/all.csv" | wc -l)
	check "metric $m present ($n rows)" [ "$n" -gt 0 ]
done
n=$(awk -F, '$4 ~ /^ratio_to_single/ || $4 ~ /_ci95_/' "$out/all.csv" | wc -l)
check "derived ratios are not records (the renderer pairs them; $n rows)" [ "$n" = 0 ]
n=$(awk -F, '$4 == "us_per_spawn"' "$out/all.csv" | wc -l)
check "us_per_spawn per batch each way: 3 batches x 2 ($n rows)" [ "$n" = 6 ]
n=$(awk -F, '$4 == "iterations" || $4 == "overhead_ns_per_op" || $4 == "timer_ns"' "$out/all.csv" |
	wc -l)
v=$(awk -F, '($4 == "iterations" || $4 == "overhead_ns_per_op" || $4 == "timer_ns") && $3 != 0' \
	"$out/all.csv" | wc -l)
check "per-op metadata: 3 metrics x 4 ops ($n rows)" [ "$n" = 12 ]
check "per-op metadata: all rep 0 ($v not rep 0)" [ "$v" = 0 ]
# Paired with single and the order flipped: rep 1 runs single first, rep 2 single last.
order=$(awk -F, '$4 == "ns_per_op" && $2 ~ /op=pread;/ { sub(/;.*/, "", $2); sub(/mode=/, "", $2);
	printf "%s%s ", $3, ($2 == "single" ? "S" : "") }' "$out/all.csv")
check "pread: single first in rep 1, last in rep 2 ($order)" \
	[ "$(echo "$order" | awk '{ print $1, $10 }')" = "1S 2S" ]
check "stdout carries CSV only" [ -z "$(grep -v -e '^bench,' -e '^fdget,' "$out/all.csv")" ]
# shared-fd/private-fd/procs run one worker per allowed CPU by default
ncpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
t=$(awk -F, '$2 ~ /^mode=shared-fd;/ { sub(/.*threads=/, "", $2); print $2; exit }' "$out/all.csv")
check "shared-fd threads = allowed CPUs ($t vs $ncpu)" [ "$t" = "$ncpu" ]

# --- --op none: the start-ups alone, no op's loop ---------------------------
"$FDGET" --op none --spawn 4 --format csv "${quick[@]}" >"$out/none.csv" 2>"$out/none.err"
rc=$?
check "--op none --spawn 4 exits 0 (rc $rc: $(head -c 300 "$out/none.err"))" [ "$rc" = 0 ]
n=$(awk -F, '$4 == "us_per_spawn"' "$out/none.csv" | wc -l)
check "--op none: us_per_spawn per batch each way, 3 batches x 2 ($n rows)" [ "$n" = 6 ]
n=$(awk -F, 'NR > 1 && $4 != "us_per_spawn"' "$out/none.csv" | wc -l)
check "--op none: no record but us_per_spawn ($n rows)" [ "$n" = 0 ]
# a process's first start-ups run slower: one each way runs first, said, not counted
"$FDGET" --op none --spawn 2 --duration 0.05 --repeat 1 --format csv >/dev/null 2>"$out/first.err"
check "the first start-up each way is said apart ($(head -c 300 "$out/first.err"))" \
	grep -Eq "after one each way not counted \([1-9][0-9]* us without a thread, [1-9][0-9]* with\)" \
	"$out/first.err"

# --- JSON: one object per line ---------------------------------------------
"$FDGET" --op lseek --spawn 0 --format json "${quick[@]}" >"$out/j.json" 2>/dev/null
if command -v python3 >/dev/null; then
	check "JSON lines parse" python3 -c '
import json, math, sys
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert set(r) == {"bench", "config", "rep", "metric", "value", "unit"}, r
    assert set(r["config"]) == {"mode", "op", "threads"}, r
    assert math.isfinite(r["value"]), r
    n += 1
assert n > 0
' "$out/j.json"
else
	skip "JSON lines parse" "python3 not installed"
fi

# --- stdout in table format: the descriptor's tables, no records -------------
"$FDGET" --op pread --spawn 4 "${quick[@]}" >"$out/t.txt" 2>"$out/t.err"
rc=$?
check "table run exits 0 (rc $rc: $(head -c 300 "$out/t.err"))" [ "$rc" = 0 ]
check "tables open with the post's title" \
	grep -qE '^## fdget: fd syscall cost.*fstests 2016' "$out/t.txt"
check "the post's layout: single vs idle-thread" \
	grep -qE '^op +single ns/op +idle-thread ns/op +idle-thread vs single \(paired per repetition\)$' \
		"$out/t.txt"
check "a pread row, 3 repetitions: too few to judge" \
	grep -qE '^pread +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% \(too few repetitions to judge' "$out/t.txt"
check "a grid of every mode with CIs" \
	grep -qE '^\| pread \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| [0-9.]+ \[' "$out/t.txt"
check "the start-up line" \
	grep -qE '^Process start-up: [0-9.]+ us without a thread, [0-9.]+ us with one: [-+][0-9.]+%' \
		"$out/t.txt"
check "no record on stdout" \
	[ -z "$(grep -E '^(bench,|fdget,|config +rep)|ns_per_op' "$out/t.txt")" ]
check "no every-mode table without N-worker modes" [ -z "$(grep 'Every mode' "$out/t.txt")" ]
"$FDGET" --op lseek --mode single,procs --spawn 0 "${quick[@]}" >"$out/m.txt" 2>"$out/m.err"
check "every mode against single: single row, then procs with its ratio" \
	grep -qE '^lseek +procs +[0-9]+ +[0-9.]+ +[-+][0-9.]+% ' "$out/m.txt"
check "no post's table without idle-thread" [ -z "$(grep 'idle-thread vs single' "$out/m.txt")" ]

# --- --verify-overhead: the same loop timed bare, paired --------------------
"$FDGET" --op pread --verify-overhead --format csv "${quick[@]}" >"$out/v.csv" 2>/dev/null
n=$(awk -F, '$4 == "bare_ns_per_op"' "$out/v.csv" | wc -l)
check "--verify-overhead records bare_ns_per_op per rep ($n)" [ "$n" = 3 ]
n=$(awk -F, '$4 == "ns_per_op" && $2 ~ /^mode=single;/' "$out/v.csv" | wc -l)
check "--verify-overhead records single's ns_per_op per rep ($n)" [ "$n" = 3 ]
check "--verify-overhead records no ratio" \
	[ -z "$(grep -e harness_to_bare -e _ci95_ "$out/v.csv")" ]
"$FDGET" --op fstat --verify-overhead --duration 0.05 --repeat 6 --quiet >"$out/v.txt" 2>/dev/null
row='^fstat +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% '
row+='\[[-+][0-9.]+%, [-+][0-9.]+%\] 95% CI, (not )?significant'
check "--verify-overhead table: harness vs bare judged at 6 repetitions" \
	grep -qE "$row" "$out/v.txt"
check "--verify-overhead at 6 repetitions: the '*' legend is under the table" \
	grep -qF "(* = the 95% CI of the difference excludes 0%)" "$out/v.txt"
# at 2 repetitions no change can be marked: the legend of the mark is not printed
"$FDGET" --op fstat --mode idle-thread --spawn 0 --duration 0.05 --repeat 2 --quiet >"$out/r2.txt" \
	2>/dev/null
check "--repeat 2: the op table is printed" grep -q "idle-thread vs single" "$out/r2.txt"
check "--repeat 2: no '* = the 95% CI' legend, for no mark can appear" \
	bash -c "! grep -qF '(* = the 95% CI' '$out/r2.txt'"

# --- every loop both ways, read wrapping at EOF of a 3-byte file -------------
for call in libc raw; do
	AFFBENCH_FDGET_FILE_BYTES=3 "$FDGET" --op all --mode single,procs --syscall $call --spawn 0 \
		--format csv "${quick[@]}" >"$out/w.csv" 2>"$out/w.err"
	rc=$?
	n=$(awk -F, '$4 == "ns_per_op"' "$out/w.csv" | wc -l)
	err=$(grep -v 'skipped:' "$out/w.err" | head -c 300)
	check "--syscall $call on a 3-byte file: exit 0 (rc $rc; $err)" [ "$rc" = 0 ]
	check "--syscall $call on a 3-byte file: every op in 2 modes x 3 reps ($n rows)" \
		[ "$n" = 24 ]
done

# --- faults: exit 1, one line saying why, no number -------------------------
for call in libc raw; do
	for op in pread read fstat lseek; do
		AFFBENCH_FDGET_BADF=1 "$FDGET" --op $op --syscall $call --spawn 0 --format csv \
			"${quick[@]}" >"$out/f.csv" 2>"$out/f.err"
		rc=$?
		msg=$(grep -v 'skipped:' "$out/f.err")
		n=$(awk -F, '$4 == "ns_per_op"' "$out/f.csv" | wc -l)
		check "$op ($call) on a closed fd: exit 1 (rc $rc)" [ "$rc" = 1 ]
		check "$op ($call) on a closed fd: one line ($msg)" \
			[ "$(printf '%s\n' "$msg" | grep -c .)" = 1 ]
		check "$op ($call) on a closed fd: no ns_per_op ($n rows)" [ "$n" = 0 ]
		check "$op ($call) on a closed fd: the line says EBADF" \
			grep -q "^fdget: $op on the test file.*Bad file descriptor" <<<"$msg"
	done
done
AFFBENCH_FDGET_ITERS=10 "$FDGET" --op lseek --mode single,shared-fd --spawn 0 --format csv \
	"${quick[@]}" \
	>"$out/s.csv" 2>"$out/s.err"
rc=$?
msg=$(grep -v 'skipped:' "$out/s.err")
n=$(awk -F, '$4 == "ns_per_op"' "$out/s.csv" | wc -l)
check "a window too short to time: exit 1 (rc $rc)" [ "$rc" = 1 ]
check "a window too short to time: one line ($msg)" [ "$(printf '%s\n' "$msg" | grep -c .)" = 1 ]
check "a window too short to time: no ns_per_op ($n rows)" [ "$n" = 0 ]
check "a window too short to time: the line says so" \
	grep -q 'shorter than the 5 ms a timing needs' <<<"$msg"
AFFBENCH_FDGET_ITERS=10 "$FDGET" --op lseek --verify-overhead --format csv "${quick[@]}" \
	>"$out/s.csv" 2>"$out/s.err"
rc=$?
n=$(awk -F, '$4 ~ /ns_per_op/' "$out/s.csv" | wc -l)
check "--verify-overhead, a window too short: exit 1 (rc $rc: $(cat "$out/s.err"))" [ "$rc" = 1 ]
check "--verify-overhead, a window too short: no number ($n rows)" [ "$n" = 0 ]
check "--verify-overhead, a window too short: stderr says so" \
	grep -q 'shorter than the 5 ms' "$out/s.err"

# --- oversubscription only when asked ---------------------------------------
over=$((ncpu + 1))
"$FDGET" --op lseek --mode shared-fd --threads $over --oversubscribe --spawn 0 --format csv \
	"${quick[@]}" >"$out/o.csv" 2>"$out/o.err"
check "--threads $over --oversubscribe runs ($(head -c 200 "$out/o.err"))" \
	grep -q "mode=shared-fd;op=lseek;threads=$over,1,ns_per_op" "$out/o.csv"

# --- bad input: one line, exit 2 -------------------------------------------
bad_cases=(
	"--op bogus"
	"--mode bogus"
	"--mode single,"
	"--spawn -1"
	"--spawn x"
	"--threads $over"
	"--threads -3"
	"--duration 0"
	"--repeat 0"
	"--format xml"
	"--cpus 99999"
	"extra-argument"
	"--syscall vdso"
	"--duration 1e-9"
	"--repeat 1001"
	"--mode ,"
	"--op none"
	"--op none --spawn 2 --mode single"
	"--op none --spawn 2 --syscall raw"
	"--op none --spawn 2 --verify-overhead"
	"--op none --spawn 2 --watch-threads"
)
for c in "${bad_cases[@]}"; do
	# Short settings first, so a case wrongly accepted ends quickly; the case, last, wins.
	# shellcheck disable=SC2086
	expect_rc "bad input '$c'" 2 "$FDGET" --op lseek --spawn 0 "${quick[@]}" $c
done

# --- nothing left behind ----------------------------------------------------
left=$(find "$AFFBENCH_WORKDIR" -maxdepth 1 -name 'affbench-fdget-*' | wc -l)
check "no temp file left in the work directory ($left)" [ "$left" = 0 ]
rm -rf "$out"
t_done
