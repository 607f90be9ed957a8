#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md is the answer, the data lives beside it (issue 26). The committed runs are
# rendered in a temporary directory; for each: report.md is under 120 lines with at
# most 12 figures and at most 3 per benchmark, and keeps the monitor tables and the
# CDFs out (they are in details.md, which it names); no human file prints e-notation;
# tables.md's "All results" and summary.csv are sorted by bench, then config; and
# every reading the report had before the move is still in report.md; each post's
# benchmark section opens with the post's table beside this run's numbers
# (report_readings.tsv: RUN, then each reading's start up to its first digit, taken
# from the emulated runs' reports before the move). (~10 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/shape.XXXXXX")
TAB=$(printf '\t')
[ -x "$BIN/harness" ] || { skip "report shape" "bin/harness not built (run make)"; t_done; }

# sorted_by_bench_config: stdin is "bench<TAB>config" lines, in C order of both
sorted_by_bench_config() { LC_ALL=C sort -c -t"$TAB" -k1,1 -k2,2 2>/dev/null; }

for src in "$TOP"/results/reference "$TOP"/results/emulated/*; do
	[ -f "$src/raw.csv" ] || continue
	name=${src#"$TOP"/results/}
	run=$W/${name//\//_}
	mkdir -p "$run"
	cp "$src"/* "$run"/ 2>/dev/null
	if ! "$BIN/harness" report "$run" >/dev/null 2>"$run.err"; then
		nok "$name: harness report ($(head -c 200 "$run.err"))"
		continue
	fi
	R=$run/report.md
	# the Precision section aside: one line per benchmark, it grows with the benchmarks,
	# not with what they measured (it replaced one warning line; issue 36)
	lines=$(awk '/^## Precision/ { p = 1; next } /^## / { p = 0 } !p' "$R" | wc -l)
	check "$name: report.md is under 120 lines, Precision aside ($lines)" [ "$lines" -lt 120 ]
	figs=$(grep -c '^!\[' "$R")
	check "$name: report.md has at most 12 figures ($figs)" [ "$figs" -le 12 ]
	most=$(awk '/^## /{n=0} /^!\[/{if (++n > m) m = n} END {print m + 0}' "$R")
	check "$name: at most 3 figures a benchmark ($most)" [ "$most" -le 3 ]
	# the answer first: a post's benchmark section opens with the post's table beside ours
	late=$(awk '/^## /{ h = $2; want = h ~ /^(cputestfs|ddpar|sqrtio|fdget):$/; next }
		want && NF { if ($0 !~ /^\| .*\|$/) print h; want = 0 }' "$R")
	check "$name: each post's table comes first in its section${late:+ (not: $late)}" [ -z "$late" ]
	check "$name: the post's tables show this run beside the post" \
		[ "$(grep -c '^| .*this run' "$R")" -ge 1 ]
	check "$name: no monitor table, no CDF in report.md" \
		bash -c "! grep -qe '^What the CPUs did' -e '^## Distributions' -e 'cdf-' '$R'"
	check "$name: details.md is written and report.md names it" \
		eval '[ -s "$run/details.md" ] && grep -q "details.md" "$R"'
	check "$name: details.md holds each benchmark's monitor line" \
		grep -q "^What the CPUs did in " "$run/details.md"
	for f in report.md details.md tables.md; do
		e=$(grep -m1 -o '[0-9]e[-+][0-9]*' "$run/$f")
		check "$name: $f prints no e-notation${e:+ ($e)}" [ -z "$e" ]
	done
	awk -F' [|] ' '/^## All results/ { a = 1 } a && /^\| [a-z]/ { sub(/^\| /, "", $1);
		print $1 "\t" $2 }' \
		"$run/tables.md" >"$run.all"
	check "$name: tables.md's All results has rows" [ -s "$run.all" ]
	check "$name: All results sorted by bench, then config" sorted_by_bench_config <"$run.all"
	tail -n +2 "$run/summary.csv" | cut -d, -f1,2 | tr , '\t' >"$run.sum"
	check "$name: summary.csv sorted by bench, then config" sorted_by_bench_config <"$run.sum"
	missing=""
	while IFS="$TAB" read -r r start; do
		[ "$r" = "${name#emulated/}" ] && [ "$name" != reference ] || continue
		grep -qF -- "$start" "$R" || missing="$missing [$start]"
	done <"$(dirname "$0")/report_readings.tsv"
	[ "$name" = reference ] ||
		check "$name: every reading of before is still in report.md${missing:+:$missing}" \
			[ -z "$missing" ]
done
t_done
