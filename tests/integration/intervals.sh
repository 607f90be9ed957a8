#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Honest intervals and no "nan": each benchmark run with --repeat 2 (short
# durations) prints its tables, and a harness report of the same records
# writes tables.md, report.md and .gp files; with 2 repetitions every bracket
# is a min-max range, so no output may call one a 95% CI, every plot key says
# what its bars are, and no table shows "nan". (~60 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/intervals.XXXXXX")
: "${AFFBENCH_JOURNAL:=$W/knobs.journal}"
export AFFBENCH_JOURNAL
mkdir -p "$W/run"

# bench NAME ARGS...: its table output in W/NAME.txt and its records added to run/raw.csv
bench() {
	local b=$1; shift
	if [ ! -x "$BIN/$b" ]; then
		skip "$b --repeat 2" "bin/$b not built (run make)"
		return 1
	fi
	local rc=0
	(cd "$W" && timeout 300 "$BIN/$b" --repeat 2 --quiet "$@" >"$W/$b.txt" 2>"$W/$b.err") || rc=$?
	# rc 1 (a point failed on a busy machine) still prints the tables of the rest
	check "$b --repeat 2 exits 0, or 1 when a point failed (rc $rc)" \
		eval '[ "$rc" = 0 ] || [ "$rc" = 1 ]'
	check "$b --repeat 2 prints its tables" [ -s "$W/$b.txt" ]
	(cd "$W" && timeout 300 "$BIN/$b" --repeat 2 --quiet "$@" --format csv >"$W/$b.csv" 2>>"$W/$b.err")
	if [ -s "$W/run/raw.csv" ]; then tail -n +2 \
		"$W/$b.csv"; else cat "$W/$b.csv"; fi >>"$W/run/raw.csv"
}

# A bracket of two numbers on a line that says "95% CI", or a header that
# promises one, where only 2 repetitions exist.
calls_minmax_ci() {
	grep -nE -e '\[-?[0-9][^],]*, -?[0-9][^]]*\][^|]*95% CI' \
		-e '\[95% CI|95% CI\]|95% CI of the median\)|bars: 95% CI' "$@"
}

bench cputestfs --placement same,other --duration 0.2
bench fdget --spawn 20
bench ddpar --procs 1,2 --duration 0.2 --kstats off
bench sqrtio --duration 0.2

for f in "$W"/*.txt; do
	b=$(basename "$f" .txt)
	check "$b --repeat 2: no min-max called a 95% $(
		)CI$(calls_minmax_ci "$f" | head -1 | sed 's/^/: /')" \
		eval '! calls_minmax_ci "$f" >/dev/null'
	check "$b: its tables show no nan$(grep -nw nan "$f" | head -1 | sed 's/^/: /')" \
		eval '! grep -qw nan "$f"'
done
# a transport other than libfuse alone: no post's libfuse table of nan, latency it has
if [ -x "$BIN/ddpar" ]; then
	(cd "$W" && timeout 120 "$BIN/ddpar" --transport uring --procs 1 --mode write --duration 0.2 \
		--repeat 2 --quiet >"$W/uring.out" 2>"$W/uring.err")
	if grep -q "uring" "$W/uring.out"; then
		check "ddpar --transport uring: no nan, n/a or '- / -' in its tables" \
			eval '! grep -qE "\bnan\b|n/a|- / -" "$W/uring.out"'
		check "ddpar --transport uring: its latency shows a number" \
			grep -qE '^write +1 +uring +[0-9.]+ / not measured' "$W/uring.out"
	else
		skip "ddpar --transport uring tables" "uring transport unavailable: $(tail -1 "$W/uring.err")"
	fi
fi
for f in "$W"/*.txt; do
	check "$(basename "$f" .txt): no n/a or '- / -' in its tables" eval '! grep -qE "n/a|- / -" "$f"'
done
check "cputestfs same,other: a same / other ratio line" \
	grep -qE '^- same / other CPU \(daemon single\): [0-9.]+x' "$W/cputestfs.txt"
check "cputestfs same,other: the missing baseline is said to be not measured" \
	grep -q "^- with / without cpu affinity (daemon single): not compared, $(
		)placement none was not measured in this run" "$W/cputestfs.txt"
# the post's block: its three numbers end in one column
check "cputestfs: the post's numbers are aligned" \
	eval '[ "$(grep -E "^(same  cpu|other cpu|stat calls/s)" \
	"$W/cputestfs.txt" | sed -E "s/^([^0-9]*[0-9.]+).*/\1/" | awk "{ print length }" |
	sort -u | wc -l)" = 1 ]'
check "cputestfs labels its intervals min-max" \
	grep -q "min-max, fewer than 6 repetitions" "$W/cputestfs.txt"

"$BIN/harness" report "$W/run" >/dev/null 2>"$W/plot.err"
check "harness report of the --repeat 2 records writes tables.md and report.md" \
	[ -s "$W/run/tables.md" -a -s "$W/run/report.md" ]
for f in "$W"/run/tables.md "$W"/run/report.md "$W"/run/figures/src/*.gp; do
	[ -f "$f" ] || continue
	check "$(basename "$f"): no min-max called a 95% $(
		)CI$(calls_minmax_ci "$f" | head -1 | sed 's/^/: /')" \
		eval '! calls_minmax_ci "$f" >/dev/null'
done
for f in "$W"/run/figures/src/*.gp; do
	[ -f "$f" ] || continue
	case $f in	# the request breakdown's stacked bars draw means, no interval
	*_brk*.gp) check "$(basename "$f"): its key says the bars are step means" \
		grep -q "key title 'bars: step means'" "$f"; continue ;;
	esac
	check "$(basename "$f"): its key says what the bars are" grep -q "key title 'error bars: min-max" \
		"$f"
done
check "tables.md shows no nan" eval '! grep -qw nan "$W/run/tables.md"'
t_done
