#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The committed runs (results/reference, results/reference-*, results/emulated/*)
# hold their records only; their reports and figures are rendered, never committed.
# Each run's records are copied to a temporary directory and plotted there: harness
# plot must succeed, write report.md and tables.md, and every file they and details.md link to
# must exist inside the copy, each PNG figure a PNG with its SVG beside it. The
# links are followed as written, whatever folder they name. In a git checkout the
# tracked files of each run must be records: no render, no log of a point that
# succeeded. (~20 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/committed.XXXXXX")
RECORDS="raw.csv hist.csv machine.txt plan.plan runs.csv failures.csv"
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1

# links FILE: the targets of FILE's markdown links and images, one a line
links() { grep -o '\](\([^)]*\))' "$1" | sed -e 's/^](//' -e 's/)$//' -e 's/ .*//' -e 's/#.*//'; }

# check_links RUN NAME: every local link of RUN's report.md, tables.md and details.md resolves
check_links() {
	local run=$1 name=$2 md l bad="" pngs=0
	for md in report.md tables.md details.md; do
		[ -f "$run/$md" ] || continue
		for l in $(links "$run/$md"); do
			case $l in
			''|http:*|https:*|mailto:*) continue ;;
			/*|../*|*/../*) bad="$bad $md:$l(outside)"; continue ;;
			esac
			if [ ! -s "$run/$l" ]; then
				bad="$bad $md:$l(missing)"
			elif [ "${l%.png}" != "$l" ]; then
				pngs=$((pngs + 1))
				[ "$(head -c 4 "$run/$l" | tail -c 3)" = PNG ] || bad="$bad $l(not a PNG)"
				grep -q '<svg' "$run/${l%.png}.svg" 2>/dev/null || bad="$bad ${l%.png}.svg(missing)"
			fi
		done
	done
	check "$name: every file report.md and tables.md link exists${bad:+:$bad}" [ -z "$bad" ]
	if [ "$have_gnuplot" = 1 ]; then
		check "$name: report.md links its figures ($pngs PNG)" [ "$pngs" -gt 0 ]
	else
		skip "$name: report.md links its figures" "no gnuplot"
	fi
}

# check_tracked DIR NAME: DIR's tracked files are records, logs of failed points, and
# (emulated runs) the EMULATED note and topology/, the checker's own records
check_tracked() {
	local dir=$1 name=$2 f rel bad=""
	while IFS= read -r f; do
		rel=${f#"${dir#"$TOP"/}"/}
		case $rel in
		raw.csv|hist.csv|machine.txt|plan.plan|runs.csv|failures.csv|results.json|EMULATED|topology/*) ;;
		log/*-p*-r*.log)
			# a point that ended ok: its log is not kept
			tail -n 1 "$TOP/$f" | grep -q '^harness: ok after ' && bad="$bad $rel" ;;
		*) bad="$bad $rel" ;;
		esac
	done < <(git -C "$TOP" ls-files -- "${dir#"$TOP"/}")
	check "$name: git tracks records only${bad:+ (not records:${bad:0:300})}" [ -z "$bad" ]
}

in_git=0
git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
runs=0
for dir in "$TOP"/results/reference "$TOP"/results/reference-* "$TOP"/results/emulated/*; do
	[ -f "$dir/raw.csv" ] || continue
	runs=$((runs + 1))
	name=${dir#"$TOP"/}
	out=$W/$runs
	mkdir -p "$out"
	# the records alone: a render left in the source directory must not stand in
	for f in $RECORDS; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$out/"
	done
	[ -d "$dir/log" ] && cp -r "$dir/log" "$out/log"
	"$BIN/harness" report "$out" >/dev/null 2>"$out.err"; rc=$?
	check "$name: harness report of the records exits 0 (exit $rc: $(head -c 300 "$out.err"))" \
		[ "$rc" = 0 ]
	check "$name: no row of the records rejected" eval '! grep -q "\.csv:[0-9]" "$out.err"'
	# a committed results.json is what export makes of the records beside it, not an
	# older export (the reference keeps one for tools that read JSON only)
	if [ -f "$dir/results.json" ]; then
		"$BIN/harness" export "$out" >/dev/null 2>&1
		check "$name: results.json is the export of its records" \
			cmp -s "$dir/results.json" "$out/results.json"
	fi
	check "$name: report.md and tables.md written" \
		eval '[ -s "$out/report.md" ] && [ -s "$out/tables.md" ]'
	check_links "$out" "$name"
	if [ "$in_git" = 1 ]; then
		check_tracked "$dir" "$name"
	else
		skip "$name: git tracks records only" "not a git checkout"
	fi
done
check "committed runs found ($runs)" [ "$runs" -gt 0 ]
t_done
