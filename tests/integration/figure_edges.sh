#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Nothing of a figure is cut off. Every figure of the committed runs (their
# records copied to a temporary directory and plotted there), of a quick run's
# shape (the reference's first 3 repetitions), of a crafted hist.csv (CDF
# panels of several configs, lines of 12 keys), of cpupair's heatmaps of a
# crafted 16-CPU matrix and of compare across the emulated runs and across the
# reference thrice is drawn, and the outermost pixels of each PNG must be
# background: gnuplot keeps a margin round every figure, so a title, label or
# key that reaches the edge was clipped there. The PNGs are decoded by
# png_edges.py with python3 and zlib alone. Every .gp also labels both axes,
# says in its label which axis is log, keeps every panel's plot wider than a
# strip beside its key, labels a CDF tick within its data's central half
# (gp_panels.py) and sets the 12-line palette, and the CDF panels share one x
# range fitted to their data, a 0 said where drawn; compare draws medians that
# span over 10x on a log axis. (~60 s)
. "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip "figures reach no edge" "no gnuplot or python3"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/edges.XXXXXX")
RECORDS="raw.csv hist.csv machine.txt plan.plan runs.csv failures.csv"

# edges NAME DIR: every PNG under DIR/figures keeps its edge clear, every .gp
# labels both axes and draws with the palette
edges() {
	local name=$1 dir=$2 pngs gp bad=""
	pngs=$(ls "$dir"/figures/*.png 2>/dev/null)
	check "$name: figures drawn ($(echo $pngs | wc -w))" [ -n "$pngs" ]
	[ -n "$pngs" ] || return
	# shellcheck disable=SC2086
	out=$(python3 "$TOP/tests/integration/png_edges.py" $pngs 2>&1)
	touched=$(echo "$out" | sed "s|$dir/||g" | head -c 600)
	check "$name: no figure touches its edge${out:+: $touched}" \
		[ -z "$out" ]
	for gp in "$dir"/figures/src/*.gp; do
		grep -q "^set xlabel " "$gp" && grep -q "^set ylabel " "$gp" || bad="$bad $(basename "$gp")"
	done
	check "$name: every figure labels both axes${bad:+ (not:$bad)}" [ -z "$bad" ]
	bad=""
	for gp in "$dir"/figures/src/*.gp; do
		grep -q "^set linetype 12 lc rgb " "$gp" || bad="$bad $(basename "$gp")"
	done
	check "$name: every figure draws with the 12-line palette${bad:+ (not:$bad)}" [ -z "$bad" ]
	panels "$name" logs "every log axis says so in its label" "$dir"
	panels "$name" strips "no key squeezes a panel to a strip" "$dir"
	panels "$name" ticks "a CDF labels a tick where its data are" "$dir"
}

# panels NAME MODE SENTENCE DIR: gp_panels.py MODE finds no fault in DIR's scripts
panels() {
	local out
	out=$(python3 "$TOP/tests/integration/gp_panels.py" "$2" "$4"/figures/src/*.gp 2>&1)
	out=$(echo "$out" | sed "s|$4/figures/src/||g" | head -c 600)
	check "$1: $3${out:+: $out}" [ -z "$out" ]
}

runs=0
for dir in "$TOP"/results/reference "$TOP"/results/reference-* "$TOP"/results/emulated/*; do
	[ -f "$dir/raw.csv" ] || continue
	runs=$((runs + 1))
	out=$W/run$runs
	mkdir -p "$out"
	for f in $RECORDS; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$out/"
	done
	"$BIN/harness" report "$out" >/dev/null 2>&1
	edges "${dir#"$TOP"/}" "$out"
done

# A quick run's shape (harness run --quick: 3 repetitions, sqrtio's rq 0 and 1), from the
# reference's records: under 6 repetitions every bar's key says "min-max, fewer than 6
# repetitions", a key that once squeezed sqrtio's panels to strips and cut its x label
REF=$TOP/results/reference
if [ -f "$REF/raw.csv" ]; then
	mkdir -p "$W/quick"
	cp "$TOP/harness/plans/quick.plan" "$W/quick/plan.plan"
	cp "$REF/machine.txt" "$W/quick/"
	for f in raw.csv hist.csv; do
		awk -F, 'NR == 1 || ($3 <= 3 && !($1 == "sqrtio" && $2 ~ /(^|;)rq=2(;|$)/))' \
			"$REF/$f" >"$W/quick/$f"
	done
	"$BIN/harness" report "$W/quick" >/dev/null 2>&1
	edges "a quick run's shape (the reference's first 3 repetitions)" "$W/quick"
	# its breakdown's wake-ups hold zeros, drawn at 1 on the log axis: the label says so
	check "a CDF with zeros says where a 0 is drawn" grep -q "^set xlabel.*, 0 at 1;" \
		"$W/quick/figures/src/cdf-ddpar-brk_daemon_wake.gp"
else
	skip "a quick run's figures reach no edge" "no results/reference/raw.csv"
fi

# CDFs: 12 configs over 3 values of one key, each line one latency spread
mkdir -p "$W/cdf"
echo bench,config,rep,metric,value,unit >"$W/cdf/raw.csv"
awk 'BEGIN { print "bench,config,rep,metric,unit,bucket_lo,bucket_hi,count"
	split("dev libfuse uring", tr, " ")
	for (t = 1; t <= 3; t++) for (p = 1; p <= 4; p++) for (b = 0; b < 60; b++) {
		s = b % 32; k = int(b / 32) + 10 + t; lo = (32 + s) * 2 ^ (k - 1); hi = lo + 2 ^ (k - 1)
		printf "ddpar,procs=%d;transport=%s;uring_cpu=queue_and_more,1,latency,ns,%d,%d,%d\n",
			p, tr[t], lo, hi, 1 + (t * 7 + p * 3 + b) % 11
	} }' >"$W/cdf/hist.csv"
"$BIN/harness" report "$W/cdf" >/dev/null 2>&1
edges "crafted CDFs" "$W/cdf"
# the data lie between 32k and 492k ns: every panel shares one x range that fits them
gp=$W/cdf/figures/src/cdf-ddpar-latency.gp
ranges=$(grep '^set xrange' "$gp" | sort -u)
check "CDF panels share one x range ($(echo "$ranges" | head -2 | tr '\n' ' '))" \
	test -n "$ranges" -a "$(echo "$ranges" | wc -l)" = 1
check "the CDFs' x range fits the data, not whole decades ($ranges)" \
	awk '{ gsub(/[^0-9.:]/, ""); split($0, r, ":"); exit !(r[1] > 20000 && r[1] <= 32768 &&
		r[2] >= 491520 && r[2] < 1e6) }' <<<"$ranges"

# cpupair's heatmaps of a 16-CPU all-pairs matrix (2 NUMA nodes of 2 LLCs, SMT
# pairs), as bin/cpupair records them, under two settings: the second matrix's
# title carries its setting. Round trips from tens of ns to thousands of us,
# so the colour box's tick labels are as wide as a real run's.
mkdir -p "$W/heat"
awk 'BEGIN { print "bench,config,rep,metric,value,unit"
	split("smt llc cross-llc cross-node", cls, " ")
	split("- idle=poll", set, " ")
	for (s = 1; s <= 2; s++) for (a = 0; a < 16; a++) for (b = 0; b < 16; b++) {
		if (a == b)
			continue
		c = int(a / 2) == int(b / 2) ? 1 : int(a / 4) == int(b / 4) ? 2 : int(a / 8) == int(b / 8) ? 3 : 4
		# keys in the order bin/cpupair writes them (sorted)
		cfg = "class=" cls[c] ";cpu_a=" a ";cpu_b=" b ";" (s == 2 ? set[s] ";" : "") \
			"pos_a=" a ";pos_b=" b
		for (rep = 1; rep <= 3; rep++) {
			printf "cpupair,%s,%d,line_rt_ns,%d,ns\n", cfg, rep, 20 * c * c + a + rep
			printf "cpupair,%s,%d,futex_rt_us,%.2f,us\n", cfg, rep, 4.5 * c + b / 7 + rep
			printf "cpupair,%s,%d,pipe_rt_us,%.1f,us\n", cfg, rep, 9 * 10 ^ (c - 1) + a + rep
		}
	} }' >"$W/heat/raw.csv"
"$BIN/harness" report "$W/heat" >/dev/null 2>&1
edges "crafted cpupair heatmaps (16 CPUs)" "$W/heat"
check "the 16-CPU heatmaps are drawn, one set per setting" \
	test -s "$W/heat/figures/cpupair_pipe.png" -a -s "$W/heat/figures/cpupair_pipe_2.png"

# compare's bars and trend lines across the three emulated runs
set -- "$TOP"/results/emulated/*
if [ $# -ge 3 ]; then
	"$BIN/harness" compare --out "$W/cmp" "$@" >/dev/null 2>&1
	edges "compare of the emulated runs" "$W/cmp"
else
	skip "compare figures reach no edge" "fewer than 3 emulated runs"
fi
# compare of three copies of the reference: ddpar's passthrough at 25-60x the other
# transports draws its bars on a log axis, not flattening every other one to zero
if [ -f "$REF/raw.csv" ]; then
	for r in a b c; do
		mkdir -p "$W/ref3/$r"
		cp "$REF/raw.csv" "$REF/machine.txt" "$REF/plan.plan" "$W/ref3/$r/"
	done
	"$BIN/harness" compare --out "$W/ref3/cmp" "$W"/ref3/[abc] >/dev/null 2>&1
	edges "compare of the reference thrice" "$W/ref3/cmp"
	check "compare: the reference's ddpar read bars on a log axis" \
		grep -q "^set logscale y" "$W/ref3/cmp/figures/src/compare_ddpar_read_MB_per_s.gp"
	panels "compare of the reference thrice" spans "medians past 10x on a log axis" "$W/ref3/cmp"
fi
t_done
