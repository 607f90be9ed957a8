#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md's warning of points too short (harness/report/warnings.c): a plan block
# under 0.1 s per point is warned of; the default plan's 0.1 s points are not. (~1 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/short.XXXXXX")

# run DIR DURATION: one cputestfs result of 6 values, run by a plan of DURATION s points
run() {
	mkdir -p "$1"
	{
		echo "bench,config,rep,metric,value,unit"
		for r in 1 2 3 4 5 6; do echo "cputestfs,placement=same,$r,stat_per_s,$((100 + r)),1/s"; done
	} >"$1/raw.csv"
	printf 'repeat 6\nbench cputestfs\nduration %s\naxis placement same\n' "$2" >"$1/plan.plan"
	"$BIN/harness" report "$1" >/dev/null 2>"$1.err"
}

run "$W/tenth" 0.1
check "0.1 s points (the default plan's): no warning of points too short" \
	eval '! grep -q "weigh in on runs this short" "$W/tenth/report.md"'
run "$W/short" 0.08
check "0.08 s points: warned of, with the bench and its duration" \
	grep -qF -- "- cputestfs ran 0.08 s per point: start-up and warm-up weigh in" \
	"$W/short/report.md"
check "0.08 s points: the hint names the default plan's 0.1 s" \
	grep -qF "Hint: the default plan (0.1 s or more per point)." "$W/short/report.md"

rm -rf "$W" "$W".*.err
t_done
