#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Latency distributions end to end (docs/records.md, "Latency distributions"):
# cputestfs with --kstats on writes p50 <= p90 <= p99 <= p99.9 <= max for its
# call latency and every breakdown step (the wake-ups among them), and, with
# AFFBENCH_HIST=1 and CSV only, its histograms as "hist," lines; through the
# harness they land in DIR/hist.csv with the documented columns, the
# percentiles read back from its rows are the records' own, and harness report
# draws a CDF per metric into details.md's Distributions. No timing is asserted.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/hist.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
CFS=$BIN/cputestfs
H=$BIN/harness

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "latency distributions" "needs root and /dev/fuse"
	t_done
fi
pls=same
[ "$(nproc)" -ge 2 ] && pls=same,other

# A measurement another test disturbed fails with exit 1: run it again, up to 3 times.
again() { local rc; for _ in 1 2 3; do "$@"; rc=$?; [ "$rc" = 1 ] || return $rc; done; return $rc; }

AFFBENCH_HIST=1 again "$CFS" --kstats on --placement $pls --duration 0.3 --repeat 2 --quiet \
	--format csv >"$W/on.csv" 2>"$W/on.err"
rc=$?
if [ "$rc" = 4 ]; then
	skip "latency distributions" "$(tail -n1 "$W/on.err")"
	t_done
fi
check "cputestfs --kstats on with AFFBENCH_HIST=1 exits 0 (rc $rc)" [ "$rc" = 0 ]
check "its hist lines have nine fields: hist,bench,config,rep,metric,unit,lo,hi,count" awk -F, '
	/^hist,/ { n++; q = gsub(/"/, "\"")  # a quoted config holds commas
		   if (!q && NF != 9) bad++; if ($NF !~ /^[0-9]+$/ || $(NF-1) !~ /^[0-9]+$/) bad++ }
	END { exit !(n > 0 && !bad) }' "$W/on.csv"
check "records stay six fields beside them" \
	awk -F, '!/^hist,/ && !/"/ && NF != 6 { bad++ } END { exit bad > 0 }' "$W/on.csv"

# p50 <= p90 <= p99 <= p99.9 <= max, per placement, for the call latency and the steps
ordered() { # CSV CONFIG STEM UNIT
	local v p prev=0
	for p in p50 p90 p99 p999 max; do
		v=$(csv_value "$1" "$2" "$3_${p}_$4")
		[ -n "$v" ] || return 1
		awk -v a="$prev" -v b="$v" 'BEGIN { exit !(a <= b) }' || return 1
		prev=$v
	done
}
for pl in ${pls//,/ }; do
	check "$pl: latency p50 <= p90 <= p99 <= p99.9 <= max" \
		ordered "$W/on.csv" "placement=$pl" latency ns
	if grep -q ",brk_calls," "$W/on.csv"; then
		for st in call daemon_wake reply_wake; do
			check "$pl: brk_$st p50 <= p90 <= p99 <= p99.9 <= max" \
				ordered "$W/on.csv" "placement=$pl" "brk_$st" ns
			check "$pl: brk_$st's histogram is written" \
				grep -q "^hist,cputestfs,.*placement=$pl.*,brk_$st,ns," "$W/on.csv"
		done
	else
		skip "breakdown percentiles" "no breakdown on this machine: $(grep -m1 breakdown "$W/on.err")"
	fi
done

"$CFS" --placement same --duration 0.2 --repeat 1 --quiet --format csv >"$W/off.csv" 2>"$W/off.err"
rc=$?
check "without AFFBENCH_HIST: exit 0 (exit $rc: $(head -c 200 "$W/off.err"))" [ "$rc" = 0 ]
# no hist line in records that are there: a failed run's empty file says nothing
check "without AFFBENCH_HIST: records, no hist line" \
	awk '/^hist,/ { h++ } /^cputestfs,/ { n++ } END { exit !(n > 0 && !h) }' "$W/off.csv"
AFFBENCH_HIST=1 "$CFS" --placement same --duration 0.2 --repeat 1 --quiet --format json \
	>"$W/json.out" 2>"$W/json.err"
rc=$?
check "JSON with AFFBENCH_HIST: exit 0 (exit $rc: $(head -c 200 "$W/json.err"))" [ "$rc" = 0 ]
check "nor in JSON, even with it: records, no hist line" \
	awk '/^hist,/ { h++ } /^\{"bench":"cputestfs"/ { n++ } END { exit !(n > 0 && !h) }' \
	"$W/json.out"

# Through the harness
cat >"$W/h.plan" <<EOF
repeat 2

bench cputestfs
duration 0.3
axis placement ${pls//,/ }
extra --kstats on
EOF
"$H" run --plan "$W/h.plan" --out "$W/run" >"$W/run.out" 2>"$W/run.err"
rc=$?
check "harness run exits 0 (rc $rc)" [ "$rc" = 0 ]
check "hist.csv has the documented header" \
	eval '[ "$(head -n1 "$W/run/hist.csv")" = \
		"bench,config,rep,metric,unit,bucket_lo,bucket_hi,count" ]'
check "hist.csv rows: bench cputestfs, rep 1..2, unit ns, lo < hi, count >= 1" awk -F, '
	NR > 1 { n++; q = (gsub(/"/, "\"") > 0); if (q) next
		 if ($1 != "cputestfs" || $3 < 1 || $3 > 2 || $5 != "ns" || $6 + 0 >= $7 + 0 || $8 < 1) bad++ }
	END { exit !(n > 0 && !bad) }' "$W/run/hist.csv"

# The records' percentiles from the rows: nearest rank, the bucket's middle (docs/records.md).
from_rows() { # CONFIG METRIC REP P -> the percentile
	awk -F, -v c="$1" -v m="$2" -v r="$3" -v p="$4" '
	NR > 1 && $3 == r && $4 == m && index(";" $2 ";", ";" c ";") { lo[++k] = $6; hi[k] = $7; n[k] = $8;
		tot += $8 }
	END {
		if (!tot) exit 1
		rank = p / 100 * tot; if (rank > int(rank)) rank = int(rank) + 1; if (rank < 1) rank = 1
		for (i = 1; i <= k; i++) { cum += n[i]; if (cum >= rank) { v = (lo[i] + hi[i] - 1) / 2; break } }
		printf "%.10g\n", v
	}' "$W/run/hist.csv"
}
for p in 50 90 99 99.9; do
	name=p${p/./}
	rec=$(awk -F, -v m="latency_${name}_ns" \
		'NR > 1 && $3 == 1 && $4 == m && /placement=same/ { print $5; exit }' "$W/run/raw.csv")
	got=$(from_rows placement=same latency 1 "$p")
	check "latency p$p from hist.csv's rows ($got) is the record's ($rec)" \
		awk -v a="$got" -v b="$rec" 'BEGIN { exit !(a != "" && b > 0 && (a / b - 1) ^ 2 <= 1e-12) }'
done
rec=$(awk -F, 'NR > 1 && $3 == 1 && $4 == "latency_max_ns" && /placement=same/ { print $5; exit }' \
	"$W/run/raw.csv")
got=$(awk -F, 'NR > 1 && $3 == 1 && $4 == "latency" &&
	/placement=same/ { m = $7 - 1 } END { print m }' "$W/run/hist.csv")
check "latency max from hist.csv ($got) is the record's exact max ($rec)" \
	awk -v a="$got" -v b="$rec" 'BEGIN { exit !(b > 0 && a == b) }'

check "harness report wrote a CDF script per metric" \
	eval '[ -f "$W/run/figures/src/cdf-cputestfs-latency.gp" ] &&
		[ -f "$W/run/figures/src/cdf-cputestfs-latency.dat" ]'
if command -v gnuplot >/dev/null 2>&1; then
	check "and drew it into details.md's Distributions, not report.md" \
		eval 'grep -q "^## Distributions" "$W/run/details.md" &&
			grep -q "(figures/cdf-cputestfs-latency.png)" "$W/run/details.md" &&
			[ -s "$W/run/figures/cdf-cputestfs-latency.png" ] && ! grep -q "cdf-" "$W/run/report.md"'
else
	skip "CDF figures drawn" "gnuplot is not installed"
fi

# hist.csv from elsewhere: a bad row is reported and skipped, a FIFO refused
printf 'cputestfs,placement=same,1,latency,ns,993,1008,1\n' >>"$W/run/hist.csv"
"$H" report "$W/run" >/dev/null 2>"$W/plot.err"
rc=$?
check "a bad hist.csv row is named with file:line and skipped (rc $rc)" \
	eval '[ "$rc" = 0 ] && grep -q "hist.csv:[0-9]*: bucket_lo is not a bucket" "$W/plot.err"'
rm -f "$W/run/hist.csv" && mkfifo "$W/run/hist.csv"
expect_rc "a FIFO as hist.csv is refused before anything is written" 2 \
	timeout 20 "$H" report "$W/run"
t_done
