#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 18: a table cell holds a number or a short reason, never a bare "-",
# "nan" or "n/a". tables.md and report.md of the reference run, rendered again: cputestfs's
# kernel baseline says why it has no same-CPU share or request count, ddpar's
# transport table says which cells were not measured; a ddpar run of io_uring
# alone numbers its tables from 1) and keeps each cell in its column. (~2 s)
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/cells.XXXXXX")
cp "$TOP/results/reference/raw.csv" "$TOP/results/reference/machine.txt" "$W/"
"$BIN/harness" report "$W" >/dev/null 2>&1
rc=$?
check "harness report of the reference's raw.csv exits 0 (rc $rc)" [ "$rc" = 0 ]
check "cputestfs kernel baseline: 'no daemon' and 'no FUSE', not '-'" \
	test "$(grep -cE '^\| [a-z]+ \| kernel \|.*\| no daemon \| no FUSE \|' "$W/tables.md")" = 3
check "ddpar transports: the cells not in the plan say 'not measured'" \
	grep -qE '^\| 2 \| [0-9]+ \| not measured \|' "$W/tables.md"
for f in tables.md report.md; do
	# a file without a table row (or none at all) is no proof: it says so
	bad=$(awk '/\| *(-|nan|n\/a|- \/ -) *\|/ { print FNR ": " $0 } /^\|/ { rows++ }
		END { if (!rows) print "no table row" }' "$W/$f" 2>&1 | head -3)
	check "$f: no table cell is '-', 'nan', 'n/a' or '- / -'${bad:+ (got: $bad)}" [ -z "$bad" ]
done
check "report.md: the post's tables say which cells the post or this run lacks" \
	eval 'grep -q "| not in the post |" "$W/report.md"'


# ddpar with io_uring alone (the reference's uring records of one process): its
# numbered tables start at 1), and every cell starts in its column
mkdir "$W/u"
{ head -n 1 "$W/raw.csv"; grep '^ddpar,.*procs=1;.*transport=uring' "$W/raw.csv"; } >"$W/u/raw.csv"
"$BIN/harness" report "$W/u" >/dev/null 2>&1
rc=$?
check "harness plot of ddpar's uring records alone exits 0 (rc $rc)" [ "$rc" = 0 ]
first=$(grep -m1 -oE '^[0-9]+\) [A-Za-z ]+' "$W/u/tables.md")
check "uring alone: the first numbered table is 1) ($first)" \
	grep -qE '^1\) Time per request' "$W/u/tables.md"
bad=$(sed -n '/^[0-9]) Time per request/,/^```/p' "$W/u/tables.md" | awk '
	/^mode / { for (c = 0; c < 2; c++) { h = c ? "daemon handler" : "spinlock wait";
		at[c] = index($0, h) } next }
	/^(read|write) / { for (c = 0; c < 2; c++)
		if (substr($0, at[c] - 1, 1) != " " || substr($0, at[c], 1) == " ") print "row " NR ": " $0 }
	/^(read|write) / { rows++ } END { if (!rows) print "no read or write row" }')
check "uring alone: each time-per-request cell starts in its column${bad:+ (not: $bad)}" \
	[ -z "$bad" ]
rm -rf "$W"
echo "1..$T_N"
exit $T_FAILED
