#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Re-plotting a run gives the same report and removes the figures it replaced.
# A copy of results/reference is plotted twice: report.md and tables.md are the
# same both times; figure files of an earlier plot that this one no longer
# draws (planted in figures/ and figures/src/) are gone, while a link and a
# file that is not a figure stay. machine.txt's harness_cpu (written by the run
# after its own report) is not shown by a re-plot either. (~5 s)
. "$(dirname "$0")/lib.sh"

REF=$TOP/results/reference
if [ ! -f "$REF/raw.csv" ]; then
	skip "re-plot of the reference run" "no results/reference/raw.csv"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/replot.XXXXXX")
mkdir "$W/run"
for f in raw.csv hist.csv machine.txt plan.plan runs.csv failures.csv; do
	[ -f "$REF/$f" ] && cp "$REF/$f" "$W/run/"
done
echo "harness_cpu    1.000 s of 10.0 s wall (10.00%)" >>"$W/run/machine.txt"
"$BIN/harness" report "$W/run" >/dev/null 2>&1
cp "$W/run/report.md" "$W/report1.md"
cp "$W/run/tables.md" "$W/tables1.md"
ls "$W/run/figures" "$W/run/figures/src" >"$W/ls1"
# an earlier plot's figures this one does not draw, a link, and a note of the user's
for f in figures/gone.png figures/gone.svg figures/src/gone.gp figures/src/gone.dat; do
	echo stale >"$W/run/$f"
done
echo keep >"$W/outside.png"
ln -s "$W/outside.png" "$W/run/figures/link.png"
echo mine >"$W/run/figures/notes.txt"
"$BIN/harness" report "$W/run" >/dev/null 2>&1
check "re-plot: report.md is the same" cmp -s "$W/report1.md" "$W/run/report.md"
check "re-plot: tables.md is the same" cmp -s "$W/tables1.md" "$W/run/tables.md"
check "re-plot: no harness_cpu line in report.md" eval '! grep -q harness_cpu "$W/run/report.md"'
left=$(cd "$W/run" && ls figures/gone.* figures/src/gone.* 2>/dev/null | tr '\n' ' ')
check "re-plot: the figures it no longer draws are removed${left:+ (left: $left)}" [ -z "$left" ]
check "re-plot: a link in figures/ is left alone" \
	eval '[ -L "$W/run/figures/link.png" ] && [ "$(cat "$W/outside.png")" = keep ]'
check "re-plot: a file that is not a figure is left alone" [ -f "$W/run/figures/notes.txt" ]
rm -f "$W/run/figures/link.png" "$W/run/figures/notes.txt"
ls "$W/run/figures" "$W/run/figures/src" >"$W/ls2"
check "re-plot: the same figures as the first plot" cmp -s "$W/ls1" "$W/ls2"
t_done
