#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A hist.csv from elsewhere (docs/records.md, "Latency distributions"), crafted
# with awk, no benchmark run:
#  - rows in another order (each histogram's rows interleaved with the others',
#    the rest in reverse) draw the same figures as rows in order;
#  - counts whose sums would overflow (a row over 2^40, a histogram past 2^53)
#    are refused with file:line and counted, and no figure holds inf or nan;
#  - a metric in a second unit is refused with its line, and details.md links
#    its one figure once;
#  - a histogram up to the top bucket (values near 2^64) ends there.
# No timing is asserted (scripts/speedcheck.sh measures the full sizes).
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
W=$(mktemp -d "$AFFBENCH_WORKDIR/hist_rows.XXXXXX")
trap 'rm -rf "$W"' EXIT
export AFFBENCH_PLOT_TEXT=1	# text plots: the same scripts and file names, drawn fast
HDR=bench,config,rep,metric,unit,bucket_lo,bucket_hi,count

rundir() { # DIR: a run directory with an empty raw.csv, hist.csv to come
	mkdir -p "$1"
	echo bench,config,rep,metric,value,unit >"$1/raw.csv"
}

# ---- another order, the same figures ----
# 4 transports x 3 procs x 2 reps, 40 buckets each (bucket edges: 32 per power of two)
rundir "$W/inorder"
rundir "$W/shuffled"
awk -v hdr="$HDR" 'BEGIN { print hdr
	split("dev fuse uring splice", tr, " ")
	for (t = 1; t <= 4; t++) for (p = 1; p <= 3; p++) for (r = 1; r <= 2; r++)
		for (b = 0; b < 40; b++) {
			s = b % 32; k = int(b / 32) + 5; lo = (32 + s) * 2 ^ (k - 1); hi = lo + 2 ^ (k - 1)
			printf "ddpar,procs=%d;transport=%s,%d,latency,ns,%d,%d,%d\n", p, tr[t], r, lo, hi,
				1 + (t * 7 + p * 3 + b) % 11
		} }' >"$W/inorder/hist.csv"
# the first row of each histogram where it was (the figures keep that order), the rest reversed
awk -F, 'NR == 1 { print; next } { k = $1 "," $2 "," $4 } !(k in seen) { seen[k] = 1; print; next }
	{ rest[++n] = $0 } END { for (i = n; i >= 1; i--) print rest[i] }' \
	"$W/inorder/hist.csv" >"$W/shuffled/hist.csv"
check "the shuffled hist.csv holds the same rows" \
	eval '[ "$(sort "$W/inorder/hist.csv" | md5sum)" = "$(sort "$W/shuffled/hist.csv" | md5sum)" ] &&
	      ! cmp -s "$W/inorder/hist.csv" "$W/shuffled/hist.csv"'
"$H" report "$W/inorder" >/dev/null 2>"$W/inorder.err"
rc1=$?
"$H" report "$W/shuffled" >/dev/null 2>"$W/shuffled.err"
rc2=$?
check "plot draws the rows in order (exit $rc1)" [ "$rc1" = 0 ]
check "plot draws the shuffled rows (exit $rc2)" [ "$rc2" = 0 ]
check "a CDF figure of ddpar's latency" [ -s "$W/inorder/figures/src/cdf-ddpar-latency.dat" ]
for f in cdf-ddpar-latency.dat cdf-ddpar-latency.gp; do
	check "$f is the same whatever the rows' order" \
		cmp -s "$W/inorder/figures/src/$f" "$W/shuffled/figures/src/$f"
done
check "no row of either was refused" \
	eval '! grep -q "bad row\|skipped" "$W/inorder.err" "$W/shuffled.err"'

# ---- counts that would overflow ----
rundir "$W/overflow"
awk -v hdr="$HDR" 'BEGIN { print hdr
	print "ddpar,procs=1;transport=dev,1,latency,ns,992,1008,9007199254740992"	# line 2: 2^53 in a row
	print "ddpar,procs=1;transport=dev,1,latency,ns,1008,1024,1099511627777"	# line 3: 2^40 + 1
	for (i = 0; i < 8193; i++)	# lines 4 ..: 2^40 each; the 8193rd would pass 2^53
		printf "ddpar,procs=2;transport=dev,%d,latency,ns,%d,%d,1099511627776\n", 1 + i % 5,
			1024 + 32 * (i % 2), 1056 + 32 * (i % 2)
	print "ddpar,procs=1;transport=dev,1,latency,ns,992,1008,3" }' >"$W/overflow/hist.csv"
"$H" report "$W/overflow" >/dev/null 2>"$W/overflow.err"
rc=$?
check "plot ends (exit $rc)" [ "$rc" = 0 ]
check "a row of 2^53 is refused with its line" \
	grep -q "hist.csv:2: count is not in 1 .. 2^40" "$W/overflow.err"
check "a row of 2^40 + 1 is refused with its line" \
	grep -q "hist.csv:3: count is not in 1 .. 2^40" "$W/overflow.err"
check "the row that would take a histogram past 2^53 is refused with its line" \
	grep -q "hist.csv:8196: the histogram's counts add up past 2^53" "$W/overflow.err"
check "and the three are counted" grep -q "hist.csv: 3 bad rows skipped in all" "$W/overflow.err"
check "the figure's data holds no inf or nan" \
	eval '[ -s "$W/overflow/figures/src/cdf-ddpar-latency.dat" ] &&
		! grep -qi "inf\|nan" "$W/overflow/figures/src/cdf-ddpar-latency.dat"'
check "its CDF ends at 1" \
	awk 'NF == 2 && $2 > 1 { bad++ } NF == 2 { last = $2 } END { exit bad || last != 1 }' \
	"$W/overflow/figures/src/cdf-ddpar-latency.dat"
check "the key says n=9007199254740992 and n=3" \
	eval 'grep -q "n=9007199254740992'"'"'" "$W/overflow/figures/src/cdf-ddpar-latency.gp" &&
	      grep -q "n=3'"'"'" "$W/overflow/figures/src/cdf-ddpar-latency.gp"'

# ---- the top bucket: its values up to 2^64 - 2, which a double does not hold ----
rundir "$W/top"
printf '%s\n' "$HDR" 'ddpar,procs=1,1,latency,ns,992,1008,1' \
	'ddpar,procs=1,1,latency,ns,18158513697557839872,18446744073709551615,3' >"$W/top/hist.csv"
"$H" report "$W/top" >/dev/null 2>"$W/top.err"
check "a CDF up to the top bucket ends at its edge, x rising" awk '
	NF == 2 { if ($1 + 0 < last) bad++; last = $1 + 0; x = $1; y = $2 }
	END { exit bad || x != "18446744073709551615" || y != 1 }' \
		"$W/top/figures/src/cdf-ddpar-latency.dat"

# ---- one unit a metric ----
rundir "$W/units"
awk -v hdr="$HDR" 'BEGIN { print hdr
	print "ddpar,procs=1;transport=dev,1,latency,ns,992,1008,4"
	print "ddpar,procs=1;transport=fuse,1,latency,ns,992,1008,6"
	print "ddpar,procs=1;transport=uring,1,latency,us,992,1008,5"	# line 4: us
	print "ddpar,procs=1;transport=dev,2,latency,us,992,1008,5"	# line 5: us, a known histogram
	print "ddpar,procs=1;transport=dev,2,latency,ns,1008,1024,2"
	print "ddpar,procs=1;transport=dev,1,queue,us,992,1008,5" }' >"$W/units/hist.csv"
"$H" report "$W/units" >/dev/null 2>"$W/units.err"
rc=$?
check "plot ends (exit $rc)" [ "$rc" = 0 ]
for l in 4 5; do
	check "line $l, latency in us after ns, is refused with its line" \
		grep -q "hist.csv:$l: ddpar latency is in ns since line 2, not in us" "$W/units.err"
done
check "and counted" grep -q "hist.csv: 2 bad rows skipped in all" "$W/units.err"
check "details.md links the latency figure once" \
	eval '[ "$(grep -c "(figures/cdf-ddpar-latency.png)" "$W/units/details.md")" = 1 ]'
check "another metric keeps its own unit (queue in us is drawn)" \
	grep -q "(figures/cdf-ddpar-queue.png)" "$W/units/details.md"
check "the latency figure holds the ns lines only: dev n=6 and fuse n=6" \
	eval 'grep -q "transport=dev n=6'"'"'" "$W/units/figures/src/cdf-ddpar-latency.gp" &&
	      grep -q "transport=fuse n=6'"'"'" "$W/units/figures/src/cdf-ddpar-latency.gp" &&
	      ! grep -q uring "$W/units/figures/src/cdf-ddpar-latency.gp"'
t_done
