#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpupair end to end: options and refusals (exit 2, one line; one CPU: exit 4),
# --pairs all gives every ordered pair of the allowed CPUs, each with its three
# round trips recorded and above zero (the cache line's, or a line saying a
# spinning side lost its CPU in every window), and the diagonal (a CPU with
# itself) for the wake-ups alone, each with the share of its waits that
# slept (0-100%); the class "unknown" where sysfs has no cache topology; --pairs N and
# classes, --method, the tables on stdout, and the harness drawing one heatmap
# per method (gnuplot "with image"), also from a raw.csv with a hostile place,
# and from crafted records: the matrix sized by a's and b's places, a record
# that could mean two things named by its line and not drawn.
# Short windows: this checks behaviour, never speed (~10 s).
. "$(dirname "$0")/lib.sh"

CP=$BIN/cpupair
if [ ! -x "$CP" ]; then
	skip "cpupair" "bin/cpupair not built (run make)"
	t_done
fi
out=$AFFBENCH_WORKDIR/cpupair-it
mkdir -p "$out"
quick=(--duration 0.01 --quiet)
ncpu=$(nproc)

# --- refusals: one line, exit 2 (or 4 when the machine lacks a pair) -------
expect_rc "--pairs bad" 2 "$CP" --pairs bad
expect_rc "--pairs 0" 2 "$CP" --pairs 0
expect_rc "--pairs -3" 2 "$CP" --pairs -3
expect_rc "--pairs 2x" 2 "$CP" --pairs 2x
expect_rc "--method lines" 2 "$CP" --method lines
expect_rc "--method line,,pipe" 2 "$CP" --method line,,pipe
expect_rc "--method ''" 2 "$CP" --method ''
expect_rc "--method line,line (a method twice)" 2 "$CP" --method line,line
expect_rc "--duration 0" 2 "$CP" --duration 0
expect_rc "an operand" 2 "$CP" extra
expect_rc "--check-options on bad options" 2 "$CP" --check-options --pairs none
"$CP" --check-options --pairs all --method line >"$out/chk.out" 2>&1
rc=$?
check "--check-options on good options exits 0 (rc $rc)" [ "$rc" = 0 ]
check "--check-options on good options measures nothing, prints nothing" [ ! -s "$out/chk.out" ]
expect_rc "one CPU allowed: exit 4" 4 "$CP" --cpus 0 "${quick[@]}"
"$CP" --help >"$out/help" 2>&1
check "--help says --duration is per pair" grep -q "per pair and method" "$out/help"
check "--help says how to sample" grep -q -- "--pairs N" "$out/help"

# --- --pairs all: n(n-1) ordered pairs, no diagonal, three methods each ----
"$CP" --pairs all --repeat 2 --format csv "${quick[@]}" >"$out/all.csv" 2>"$out/all.err"
rc=$?
check "--pairs all exits 0 (rc $rc: $(head -c 300 "$out/all.err"))" [ "$rc" = 0 ]
check "CSV header exact" [ "$(head -1 "$out/all.csv")" = "bench,config,rep,metric,value,unit" ]
pairs=$(awk -F, 'NR > 1 && $2 !~ /^class=same;/ { print $2 }' "$out/all.csv" | sort -u | wc -l)
check "--pairs all on $ncpu CPUs: $((ncpu * (ncpu - 1))) ordered pairs (got $pairs)" \
	[ "$pairs" = $((ncpu * (ncpu - 1))) ]
diag=$(awk -F, 'NR > 1 { split($2, kv, ";"); a = b = ""; c = ""
	for (i in kv) { split(kv[i], p, "="); if (p[1] == "cpu_a") a = p[2]; if (p[1] == "cpu_b") b = p[2];
		if (p[1] == "class") c = p[2] }
	if (a == "" || (a == b) != (c == "same") || (a == b && $4 ~ /^line/)) print $2 }' "$out/all.csv")
check "the diagonal is class same, of the wake-ups alone; every record names both CPUs ($diag)" \
	[ -z "$diag" ]
nd=$(awk -F, 'NR > 1 && $2 ~ /^class=same;/ && $4 == "pipe_rt_us"' "$out/all.csv" | wc -l)
check "the diagonal: each of the $ncpu CPUs with itself, per repetition ($nd pipe records)" \
	[ "$nd" = $((ncpu * 2)) ]
bad=$(awk -F, 'NR > 1 && $4 !~ /^mon_/ && ($1 != "cpupair" || $5 + 0 < 0 ||
	($5 + 0 == 0 && $4 !~ /^line_(invol_switches|wait_pct)$/) ||
	$2 !~ ("^class=(same|smt|llc|cross-llc|cross-node|unknown);" \
	       "cpu_a=[0-9]+;cpu_b=[0-9]+;pos_a=[0-9]+;pos_b=[0-9]+$") ||
	!(($4 == "line_rt_ns" && $6 == "ns") || ($4 == "futex_rt_us" && $6 == "us") ||
	  ($4 == "pipe_rt_us" && $6 == "us") ||
	  ($4 ~ /^(futex|pipe)_slept_pct$/ && $6 == "%" && $5 + 0 <= 100) ||
	  ($4 == "line_invol_switches" && $6 == "1") ||
	  ($4 == "line_wait_pct" && $6 == "%" && $5 + 0 <= 100))) { print NR": "$0 }' "$out/all.csv")
check "every record: a class, the CPUs and places, a known metric and unit, > 0 ($bad)" \
	[ -z "$bad" ]
if [ -d /sys/devices/system/cpu/cpu0/cache ]; then
	skip "no cache topology: the class is unknown" "this machine's sysfs has its cache topology"
else
	n=$(awk -F, 'NR > 1 && $2 ~ /^class=(llc|cross-llc);/' "$out/all.csv" | wc -l)
	check "no cache topology in sysfs: no pair is called llc or cross-llc ($n records)" [ "$n" = 0 ]
fi
n=$(awk -F, 'NR > 1 && $4 ~ /^(futex|pipe)_rt_us$/' "$out/all.csv" | wc -l)
check "two wake-ups x ($pairs pairs + $ncpu CPUs alone) x 2 repetitions recorded (got $n)" \
	[ "$n" = $((2 * (pairs + ncpu) * 2)) ]
n=$(awk -F, 'NR > 1 && $4 ~ /^(futex|pipe)_slept_pct$/' "$out/all.csv" | wc -l)
check "each wake-up round trip with the share of its waits that slept (got $n)" \
	[ "$n" = $((2 * (pairs + ncpu) * 2)) ]
n=$(awk -F, 'NR > 1 && $4 == "line_rt_ns"' "$out/all.csv" | wc -l)
d=$(awk -F, 'NR > 1 && $4 == "line_invol_switches"' "$out/all.csv" | wc -l)
check "each pair's cache line recorded, both ways (got $n)" [ "$n" = $((pairs * 2)) ]
check "each cache line with its spinners' involuntary switches ($d of $n)" [ "$d" = "$n" ]
w=$(awk -F, 'NR > 1 && $4 == "line_wait_pct"' "$out/all.csv" | wc -l)
if [ -r /proc/self/schedstat ]; then
	check "each cache line with its spinners' run-queue wait ($w of $n)" [ "$w" = "$n" ]
else
	skip "each cache line with its spinners' run-queue wait" "no /proc/self/schedstat"
fi
if [ "$pairs" -le 64 ]; then
	n=$(awk -F, '$4 == "mon_ctxsw_per_op"' "$out/all.csv" | wc -l)
	check "the futex window's CPU monitor: mon_ctxsw_per_op per pair and repetition (got $n)" \
		[ "$n" = $(((pairs + ncpu) * 2)) ]
fi

# --- --pairs N, classes, --method -------------------------------------------
"$CP" --pairs 1 --method line --repeat 1 --format csv "${quick[@]}" >"$out/one.csv" 2>/dev/null
n=$(awk -F, 'NR > 1 && $4 == "line_rt_ns"' "$out/one.csv" | wc -l)
m=$(awk -F, 'NR > 1 && $4 !~ /^line_(rt_ns|invol_switches|wait_pct)$/' "$out/one.csv" | wc -l)
check "--pairs 1 --method line: one round trip (got $n)" [ "$n" = 1 ]
check "--pairs 1 --method line: of the line alone, no diagonal (got $m others)" [ "$m" = 0 ]
"$CP" --pairs 1000000 --method pipe --repeat 1 --format csv "${quick[@]}" >"$out/big.csv" \
	2>/dev/null
n=$(awk -F, 'NR > 1 && $4 == "pipe_rt_us"' "$out/big.csv" | wc -l)
check "--pairs N above the matrix measures every pair once, and each CPU alone (got $n)" \
	[ "$n" = $((pairs + ncpu)) ]
"$CP" --pairs classes --method futex --repeat 1 --format csv "${quick[@]}" >"$out/cls.csv" \
	2>/dev/null
unpaired=$(awk -F, 'NR > 1 && $4 == "futex_rt_us" { split($2, kv, ";"); for (i in kv) {
	split(kv[i], p, "="); v[p[1]] = p[2] }
	seen[v["cpu_a"] "," v["cpu_b"]] = 1; pair[NR] = v["cpu_b"] "," v["cpu_a"] }
	END { for (k in pair) if (!(pair[k] in seen)) print pair[k] }' "$out/cls.csv")
n=$(awk -F, '$4 == "futex_rt_us"' "$out/cls.csv" | wc -l)
check "--pairs classes: at least one pair both ways ($n records)" [ "$n" -ge 2 ]
check "--pairs classes: pairs with their reverse (missing: $unpaired)" [ -z "$unpaired" ]

# --- stdout: the tables ----------------------------------------------------
"$CP" --pairs all --repeat 1 "${quick[@]}" >"$out/tab.out" 2>&1
check "table output has the class summary" grep -q "per class" "$out/tab.out"

# --- the harness: a run, then harness report draws the heatmaps --------------
"$BIN/harness" run --plan cpupair --repeat 1 --out "$out/run" >"$out/run.out" 2>&1
rc=$?
check "harness run --plan cpupair exits 0 (rc $rc)" [ "$rc" = 0 ]
check "the report reads the cache-line round trip" \
	grep -q "cache-line round trip" "$out/run/report.md"
check "no short-run warning for a per-pair duration" \
	bash -c "! grep -q 'cpupair ran' '$out/run/report.md'"
for m in line futex pipe; do
	check "cpupair_$m.gp draws an image" grep -q "with image" "$out/run/figures/src/cpupair_$m.gp"
done
if command -v gnuplot >/dev/null 2>&1; then
	rm -f "$out/run"/figures/*.png "$out/run"/figures/*.svg
	# a hostile place: out of bounds, never a matrix that large
	echo 'cpupair,class=llc;cpu_a=0;cpu_b=1;pos_a=100000;pos_b=1,1,line_rt_ns,5,ns' \
		>>"$out/run/raw.csv"
	"$BIN/harness" report "$out/run" >"$out/plot.out" 2>&1
	rc=$?
	check "harness report exits 0 (rc $rc)" [ "$rc" = 0 ]
	for m in line futex pipe; do
		check "harness report drew cpupair_$m.png and .svg" \
			test -s "$out/run/figures/cpupair_$m.png" -a -s "$out/run/figures/cpupair_$m.svg"
	done
	n=$(grep -c . "$out/run/figures/src/cpupair_line.dat")
	check "an out-of-bounds place is no pixel (line .dat: $n lines)" [ "$n" -le $((ncpu * ncpu + 1)) ]
else
	skip "harness report draws the heatmaps" "gnuplot not installed"
fi

# --- records from elsewhere: a heatmap as large as its largest place, of a or of
# b (a pair at places 1, 3 alone once wrote past a 2 x 2 matrix: exit 134); a
# record that could mean two things is not drawn, and named by its line ---------
C=$out/crafted
mkdir -p "$C"
{
	echo "bench,config,rep,metric,value,unit"
	echo "cpupair,class=llc;cpu_a=1;cpu_b=3;pos_a=1;pos_b=3,1,line_rt_ns,180.5,ns"
} >"$C/raw.csv"
AFFBENCH_PLOT_TEXT=1 "$BIN/harness" report "$C" >"$C.out" 2>"$C.err"
rc=$?
check "harness report of a pair at places 1, 3 alone exits 0 (rc $rc)" [ "$rc" = 0 ]
n=$(grep -c '^[0-9]' "$C/figures/src/cpupair_line.dat" 2>/dev/null)
check "its heatmap is 4 x 4 (got ${n:-no} cells)" [ "$n" = 16 ]
echo "cpupair,class=llc;cpu_a=2;cpu_b=3;pos_a=1;pos_b=2,1,line_rt_ns,10,ns" >>"$C/raw.csv"
AFFBENCH_PLOT_TEXT=1 "$BIN/harness" report "$C" >"$C.out" 2>"$C.err"
check "a second CPU at place 1 is not drawn, named by its line: $(grep raw.csv "$C.err")" \
	grep -q "raw.csv:3: CPU 2 at place 1, where raw.csv:2 has CPU 1; not drawn" "$C.err"

t_done
