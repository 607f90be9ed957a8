#!/bin/bash
# Issue 18: a table cell holds a number or a short reason, never a bare "-",
# "nan" or "n/a". tables.md of the reference run, rendered again: cputestfs's
# kernel baseline says why it has no same-CPU share or request count, ddpar's
# transport table says which cells were not measured. (~2 s)
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/cells.XXXXXX")
cp "$TOP/results/reference/raw.csv" "$TOP/results/reference/machine.txt" "$W/"
"$BIN/harness" plot "$W" >/dev/null 2>&1
rc=$?
check "harness plot of the reference's raw.csv exits 0 (rc $rc)" [ "$rc" = 0 ]
check "cputestfs kernel baseline: 'no daemon' and 'no FUSE', not '-'" \
	test "$(grep -cE '^\| [a-z]+ \| kernel \|.*\| no daemon \| no FUSE \|' "$W/tables.md")" = 3
check "ddpar transports: the cells not in the plan say 'not measured'" \
	grep -qE '^\| 2 \| [0-9]+ \| not measured \|' "$W/tables.md"
bad=$(grep -nE '\| *(-|nan|n/a|- / -) *\|' "$W/tables.md" | head -3)
check "no table cell is '-', 'nan', 'n/a' or '- / -'${bad:+ (got: $bad)}" [ -z "$bad" ]
rm -rf "$W"
echo "1..$T_N"
exit $T_FAILED
