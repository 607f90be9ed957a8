#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A fifth benchmark is one folder: a copy of the tree gets the fixture
# tests/fixtures/nullbench/ as a folder and one line in harness/registry.def,
# nothing else; it builds, and the harness runs its plan by name, tables it,
# reads it and plots it. Its metrics' units and directions and its baseline come from
# its folder alone: compare leaves the baseline out, and the gate's max-regression
# means a drop of its rate and a rise of its ns per call.
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/fifth.XXXXXX")
trap 'rm -rf "$W"' EXIT
T=$W/tree
mkdir "$T"
# the tree as committed (or as it is, outside git), with the build so make only adds to it
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp -a --parents -t "$T")
else
	(cd "$TOP" && tar cf - --exclude=./build --exclude=./bin --exclude=./build-san .) | tar xf \
		- -C "$T"
fi
[ -d "$TOP/${AFFBENCH_BUILD:-build}" ] && cp -a "$TOP/${AFFBENCH_BUILD:-build}" "$T/build"
cp -a "$TOP/tests/fixtures/nullbench" "$T/nullbench"
echo 'AB_BENCH(nullbench)' >>"$T/harness/registry.def"
make -s -C "$T" all >"$W/make.out" 2>&1
rc=$?
check "the tree with nullbench/ and one registry line builds (rc $rc)" \
	eval '[ "$rc" = 0 ] && [ -x "$T/bin/nullbench" ]'
"$T/bin/nullbench" --duration 0.05 --repeat 2 >"$W/table.out" 2>&1
check "nullbench prints its table from its descriptor" \
	grep -q '^## nullbench: getppid' "$W/table.out"
"$T/bin/harness" run --plan nullbench --out "$W/run" >"$W/run.out" 2>"$W/run.err"
rc=$?
check "harness run --plan nullbench (its folder's plan) exits 0 (rc $rc)" [ "$rc" = 0 ]
check "raw.csv holds its records" grep -q '^nullbench,pinned=yes,' "$W/run/raw.csv"
check "tables.md has its table" grep -q '^## nullbench: getppid' "$W/run/tables.md"
check "report.md has its reading" grep -q '^## nullbench: does pinning' "$W/run/report.md"
check "its plot was drawn" test -s "$W/run/figures/nullbench.png"
check "compare plots its headline metric" \
	eval '"$T/bin/harness" compare --out "$W/cmp" "$W/run" "$W/run" >/dev/null 2>&1 &&
		[ -s "$W/cmp/figures/compare_nullbench_getppid_per_s.png" ]'
check "its baseline (pinned=no, from its descriptor) is left out of the overlay" \
	grep -q 'baselines left out' "$W/cmp/figures/src/compare_nullbench_getppid_per_s.gp"
check "the overlay's axis has the unit its records carry" \
	grep -q 'getppid_per_s (1/s)' "$W/cmp/figures/src/compare_nullbench_getppid_per_s.gp"

# A crafted pair of runs, 6 repetitions a side: the new one 10% slower, so its rate
# (higher is better) drops and its ns per call (lower is better, as report.c says) rises.
# max-regression must read each direction from the descriptor alone.
craft() { # DIR FACTOR: getppid_per_s times FACTOR, ns_per_getppid divided by it
	mkdir -p "$1"
	awk -v f="$2" 'BEGIN { print "bench,config,rep,metric,value,unit"
		for (p = 0; p < 2; p++) for (r = 1; r <= 6; r++) {
			c = p ? "pinned=yes" : "pinned=no"; v = 1000000 + 1000 * r
			printf "nullbench,%s,%d,getppid_per_s,%.3f,1/s\n", c, r, v * f
			printf "nullbench,%s,%d,ns_per_getppid,%.6f,ns\n", c, r, 1e9 / (v * f) }
	}' > "$1/raw.csv"
}
craft "$W/base" 1
craft "$W/slow" 0.9
printf 'nullbench getppid_per_s max-regression 5%%\n' > "$W/rate.gate"
printf 'nullbench ns_per_getppid max-regression 5%%\n' > "$W/ns.gate"
printf 'nullbench ns_per_getppid max-drop 5%%\n' > "$W/drop.gate"
g() { "$T/bin/harness" compare --out "$W/g" --gate "$1" "$2" "$3" >"$W/g.out" 2>&1; echo $?; }
check "max-regression of its rate: a 10% drop fails the gate (exit 3)" \
	[ "$(g "$W/rate.gate" "$W/base" "$W/slow")" = 3 ]
check "... and says it dropped" grep -q 'VIOLATED.*dropped by more than 5%' "$W/g.out"
check "max-regression of its ns per call (lower is better): a rise fails (exit 3)" \
	[ "$(g "$W/ns.gate" "$W/base" "$W/slow")" = 3 ]
check "... and says it rose" grep -q 'VIOLATED.*rose' "$W/g.out"
check "the same rules pass the other way round, an improvement (exit 0)" \
	eval '[ "$(g "$W/rate.gate" "$W/slow" "$W/base")" = 0 ] &&
		[ "$(g "$W/ns.gate" "$W/slow" "$W/base")" = 0 ]'
check "the old spelling still names its direction: max-drop of the ns passes a rise (exit 0)" \
	[ "$(g "$W/drop.gate" "$W/base" "$W/slow")" = 0 ]
t_done
