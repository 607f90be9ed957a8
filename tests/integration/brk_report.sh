#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "Where the time goes" in a run directory, from brk_* records alone (a
# raw.csv written here, so no FUSE and no BPF needed): one stacked bar per
# configuration whose .gp labels both axes, keeps the key outside, says what
# the bars are and has a y range above every call; details.md (named by
# report.md) says which step differs most, with the wake-ups' flags, the FUSE
# call on one CPU beside a pipe's round trip, and report.md shows the figure; tables.md
# keeps the post's layout and adds the breakdown below it. Many
# configurations (a ddpar sweep) are split into several figures. (~5 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/brk_report.XXXXXX")
trap 'rm -rf "$W"' EXIT

# rec BENCH CONFIG REP SUBMIT DWAKE SERVICE RWAKE RETURN CROSS IDLE: one instrumented repetition's
# brk_* records, the steps in ns; the timed rate beside it (stat_per_s) so the post's table has
# data.
rec() {
	awk -v b="$1" -v c="$2" -v r="$3" -v s1="$4" -v s2="$5" -v s3="$6" -v s4="$7" -v s5="$8" \
		-v x="$9" -v i="${10}" 'BEGIN {
		t = s1 + s2 + s3 + s4 + s5; n = split("submit daemon_wake service reply_wake return", st, " ")
		split(s1 " " s2 " " s3 " " s4 " " s5, v, " ")
		printf "%s,%s,%d,brk_calls,1000,count\n", b, c, r
		printf "%s,%s,%d,brk_call_ns,%g,ns\n", b, c, r, t
		printf "%s,%s,%d,brk_call_p50_ns,%g,ns\n", b, c, r, t
		for (k = 1; k <= n; k++) printf "%s,%s,%d,brk_%s_share_pct,%g,%%\n", b, c, r, st[k],
			100 * v[k] / t
		split("daemon reply", w, " ")
		for (k = 1; k <= 2; k++) {
			printf "%s,%s,%d,brk_%s_wakes_per_call,1,ratio\n", b, c, r, w[k]
			printf "%s,%s,%d,brk_%s_wake_cross_pct,%g,%%\n", b, c, r, w[k], x
			printf "%s,%s,%d,brk_%s_wake_idle_pct,%g,%%\n", b, c, r, w[k], i
		}
		if (b == "cputestfs") printf "%s,%s,%d,stat_per_s,%g,1/s\n", b, c, r, 1e9 / t
		if (b == "cputestfs") printf "%s,%s,%d,latency_p50_ns,%g,ns\n", b, c, r, t
	}'
}

at_least_num() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v != "" && v + 0 >= t) }'; }

D=$W/run
mkdir -p "$D"
{
	echo "bench,config,rep,metric,value,unit"
	for r in 1 2 3; do
		for tr in libfuse dev; do
			rec cputestfs \
				"baseline=fuse;client_cpu=0;daemon=single;daemon_cpu=0;placement=same;transport=$tr" \
				$r 1300 1500 3100 2000 1100 0 0
			rec cputestfs \
				"baseline=fuse;client_cpu=0;daemon=single;daemon_cpu=1;placement=other;transport=$tr" \
				$r 1700 33700 4300 29300 2500 100 93
		done
		echo "cputestfs,baseline=pipe;client_cpu=0;daemon_cpu=0;placement=same;transport=none,$(
			)$r,latency_p50_ns,5000,ns"
	done
} >"$D/raw.csv"
"$BIN/harness" report "$D" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report of a run with brk records exits 0 (exit $rc)" [ "$rc" = 0 ]
check "harness report renders a run with brk records" [ -s "$D/report.md" ]

gp=$D/figures/src/cputestfs_brk.gp
check "a stacked bar figure of the breakdown is written" [ -f "$gp" ]
check "cputestfs_brk: stacked (rowstacked histogram)" \
	grep -q "^set style histogram rowstacked" "$gp"
check "cputestfs_brk: the x axis labelled" grep -q "^set xlabel " "$gp"
check "cputestfs_brk: the y axis in us per call" grep -q "^set ylabel 'us per call'" "$gp"
check "cputestfs_brk: the key outside the data" \
	eval 'grep -q "^set key outside" "$gp" && ! grep -qE "^set key (top|bottom) (left|right)" "$gp"'
check "cputestfs_brk: the key says what the bars are" grep -q "^set key title 'bars: " "$gp"
check "cputestfs_brk: the title says what it shows" \
	grep -q "^set title 'cputestfs: where the time goes" "$gp"
for step in submit daemon_wake service reply_wake return; do
	check "cputestfs_brk: a segment for $step" grep -q "title '$step'" "$gp"
done
top=$(sed -n 's/^set yrange \[0:\([0-9.e+]*\)\]$/\1/p' "$gp" | head -n1)
# The tallest bar is the whole call of placement=other: 1.7+33.7+4.3+29.3+2.5 us.
check "cputestfs_brk: the y range ($top) covers the tallest call (71.5 us)" at_least_num "$top" 71.5
bars=$(grep -vc '^#' "$D/figures/src/cputestfs_brk.dat")
check "one bar per placement x transport (got $bars)" [ "$bars" = 4 ]
check "bars are labelled by what varies, not by CPU numbers" \
	grep -q '^"other:libfuse" ' "$D/figures/src/cputestfs_brk.dat"
# the segments of a bar add up to its call (the last column)
sum_ok=$(awk '!/^#/ { s = $2 + $3 + $4 + $5 + $6; if ((s - $7) ^ 2 > 1e-6) bad = 1 } END {
	print bad ? 0 : 1 }' \
	"$D/figures/src/cputestfs_brk.dat")
check "each bar's segments add up to its call" [ "$sum_ok" = 1 ]

# the steps are data behind the reading: details.md, which report.md names
R=$D/details.md
check "report.md names details.md for the steps" \
	grep -q "where the time goes, step by step.*details.md" "$D/report.md"
check "details.md: a 'where the time goes' section" \
	grep -q "^### cputestfs: where the time goes" "$R"
check "details.md: the step that differs most, by how much, and its wake-ups' flags" grep -qF \
	"With \`transport=libfuse\`, \`placement=other\` took 62.5 us more per call than $(
		)\`placement=same\` (71.5 vs 9 us; medians 71.5 vs 9 us), 32.2 us of it in the daemon's wake-up $(
		)(1 wake-up per call, 100% of them across CPUs and 93% onto an idle CPU)." "$R"
check "details.md: the pipe's round trip on one CPU (no steps without its breakdown)" grep -qF \
	"| pipe round trip | 5 | - | - | - | - | - | - |" "$R"
check "details.md: beside it the FUSE call on one CPU, with its steps" grep -qF \
	"| FUSE libfuse | 9 | 9 | 1.3 | 1.5 | 3.1 | 2 | 1.1 |" "$R"
if command -v gnuplot >/dev/null; then
	check "report.md shows the figure" \
		grep -q '^!\[cputestfs_brk\](figures/cputestfs_brk.png)' "$D/report.md"
else
	skip "report.md shows the figure" "gnuplot is not installed"
fi

T=$D/tables.md
post=$(grep -n "^## " "$T" | grep -v "All results" | head -n1 | cut -d: -f1)
brk=$(grep -n "^### cputestfs: where the time goes (request breakdown)" "$T" | cut -d: -f1)
all=$(grep -n "^## All results" "$T" | cut -d: -f1)
check "tables.md: the post's layout first, then the breakdown, $(
	)then every result ($post < $brk < $all)" \
	eval '[ -n "$post" ] && [ -n "$brk" ] && [ "$post" -lt "$brk" ] && [ "$brk" -lt "$all" ]'
check "tables.md: a breakdown row per configuration" \
	grep -q "^| other:libfuse | 3 | 71.5 | 1.7 | 33.7 |" "$T"

# A ddpar sweep: 2 modes x 5 N x 2 transports = 20 bars, one figure per mode.
D2=$W/dd
mkdir -p "$D2"
{
	echo "bench,config,rep,metric,value,unit"
	for m in write read; do for n in 1 2 4 8 16; do for tr in libfuse uring; do
		rec ddpar "clone_fd=off;mode=$m;procs=$n;transport=$tr" 1 10000 $((n * 1000)) 60000 3000 9000 50 \
			10
	done; done; done
} >"$D2/raw.csv"
"$BIN/harness" report "$D2" >/dev/null 2>"$W/plot2.err"
figs=$(ls "$D2"/figures/src/ddpar_brk*.gp 2>/dev/null | wc -l)
check "ddpar: 20 bars are split into one figure per mode (got $figs figures)" [ "$figs" = 2 ]
check "ddpar: each figure's title names its part" \
	grep -q "^set title 'ddpar: where the time goes.*(mode=" "$D2/figures/src/ddpar_brk1.gp"
check "ddpar: every bar is in a figure" \
	eval '[ "$(cat "$D2"/figures/src/ddpar_brk*.dat | grep -vc "^#")" = 20 ]'
# the mode is the same for every bar of a figure: said in its title, not on each bar
check "ddpar: tick labels hold only the keys that vary" \
	eval '! grep -v "^#" "$D2"/figures/src/ddpar_brk*.dat | grep -qE "write|read"'
check "ddpar: the x label names only the keys that vary" \
	eval 'grep -q "^set xlabel " "$D2/figures/src/ddpar_brk1.gp" &&
		! grep -q "^set xlabel .*mode" "$D2/figures/src/ddpar_brk1.gp"'
if command -v gnuplot >/dev/null && command -v python3 >/dev/null; then
	out=$(python3 "$TOP/tests/integration/png_edges.py" "$D2"/figures/*.png "$D"/figures/*.png 2>&1)
	check "breakdown figures reach no edge${out:+: $out}" [ -z "$out" ]
fi
# One reader per transport and --uring-cpu: each transport at its best (uring on its queue's
# CPU) against the others, and the ring threads' choices against each other.
D3=$W/uring
mkdir -p "$D3"
{
	echo "bench,config,rep,metric,value,unit"
	c="bs=1048576;mode=read;procs=1"
	rec ddpar "$c;transport=libfuse" 1 17000 10000 90000 19000 16000 15 0
	rec ddpar "$c;transport=uring;uring_cpu=queue" 1 17000 3000 77000 4000 16000 0 0
	rec ddpar "$c;transport=uring;uring_cpu=next" 1 17000 200000 92000 100000 17000 100 2
} >"$D3/raw.csv"
"$BIN/harness" report "$D3" >/dev/null 2>"$W/plot3.err"
check "ddpar: a transport at its best against the others" grep -qF \
	"\`transport=libfuse\` took 35 us more per call than \`transport=uring, uring_cpu=queue\`" \
		"$D3/details.md"
check "ddpar: the ring threads' choices against each other, with the wake-up's flags" grep -qF \
	"With \`transport=uring\`, \`uring_cpu=next\` took 309 us more per call than \`uring_cpu=queue\` $(
		)(426 vs 117 us; medians 426 vs 117 us), 197 us of it in the daemon's wake-up (1 wake-up per $(
		)call, 100% of them across CPUs and 2% onto an idle CPU)." "$D3/details.md"
# The pipe's own breakdown (--baseline pipe --kstats on): what FUSE adds, step by step.
D4=$W/pipe
mkdir -p "$D4"
{
	echo "bench,config,rep,metric,value,unit"
	rec cputestfs "baseline=fuse;placement=same;transport=libfuse" 1 1300 1500 3100 2000 1100 0 0
	rec cputestfs "baseline=pipe;placement=same;transport=none" 1 900 1400 1000 1900 700 0 0
} >"$D4/raw.csv"
"$BIN/harness" report "$D4" >/dev/null 2>"$W/plot4.err"
check "pipe: its steps beside the FUSE call's" \
	grep -qF "| pipe round trip | 5.9 | 5.9 | 0.9 | 1.4 | 1 | 1.9 | 0.7 |" \
	"$D4/details.md"
check "pipe: the step FUSE adds most to" grep -qF \
	"With \`placement=same\`, \`transport=libfuse\` took 3.1 us more per call than \`baseline=pipe\` $(
		)(9 vs 5.9 us; medians 9 vs 5.9 us), 2.1 us of it in the service." \
	"$D4/details.md"
t_done
