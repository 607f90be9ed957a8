#!/bin/bash
# A fifth benchmark is one folder: a copy of the tree gets the fixture
# tests/fixtures/nullbench/ as a folder and one line in harness/registry.def,
# nothing else; it builds, and the harness runs its plan by name, tables it,
# reads it and plots it.
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/fifth.XXXXXX")
trap 'rm -rf "$W"' EXIT
T=$W/tree
mkdir "$T"
# the tree as committed (or as it is, outside git), with the build so make only adds to it
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp -a --parents -t "$T")
else
	(cd "$TOP" && tar cf - --exclude=./build --exclude=./bin --exclude=./build-san .) | tar xf - -C "$T"
fi
[ -d "$TOP/${AFFBENCH_BUILD:-build}" ] && cp -a "$TOP/${AFFBENCH_BUILD:-build}" "$T/build"
cp -a "$TOP/tests/fixtures/nullbench" "$T/nullbench"
echo 'AB_BENCH(nullbench)' >>"$T/harness/registry.def"
make -s -C "$T" all >"$W/make.out" 2>&1
rc=$?
check "the tree with nullbench/ and one registry line builds (rc $rc)" \
	eval '[ "$rc" = 0 ] && [ -x "$T/bin/nullbench" ]'
"$T/bin/nullbench" --duration 0.05 --repeat 2 >"$W/table.out" 2>&1
check "nullbench prints its table from its descriptor" grep -q '^## nullbench: getppid' "$W/table.out"
"$T/bin/harness" run --plan nullbench --out "$W/run" >"$W/run.out" 2>"$W/run.err"
rc=$?
check "harness run --plan nullbench (its folder's plan) exits 0 (rc $rc)" [ "$rc" = 0 ]
check "raw.csv holds its records" grep -q '^nullbench,pinned=yes,' "$W/run/raw.csv"
check "tables.md has its table" grep -q '^## nullbench: getppid' "$W/run/tables.md"
check "report.md has its reading" grep -q '^## nullbench: does pinning' "$W/run/report.md"
check "its plot was drawn" test -s "$W/run/figures/nullbench.png"
check "compare plots its headline metric" \
	eval '"$T/bin/harness" compare --out "$W/cmp" "$W/run" "$W/run" >/dev/null 2>&1 && [ -s "$W/cmp/figures/compare_nullbench_getppid_per_s.png" ]'
t_done
