#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/loc.sh, the lines of C per concern at a revision: it runs at HEAD, its rows
# add up to its total, which is every line of the C sources outside tests/ and
# scripts/, and the shares add to 100% (each rounded to 0.1%). (~10 s)
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	skip "scripts/loc.sh" "not a git checkout: it reads the revision from git"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/loc.XXXXXX")
scripts/loc.sh HEAD >"$W/t" 2>"$W/err"; rc=$?
check "loc.sh HEAD exits 0 (exit $rc: $(head -c 200 "$W/err"))" [ "$rc" = 0 ]
# the rows between the header and the total: concern files lines share code share
rows() { awk -F' [|] ' '/^\| / && $1 != "| concern" && $1 != "| total" { print }' "$W/t"; }
check "a row for the reporting concern" grep -q '^| reporting | ' "$W/t"
check "a row for the timed loops" grep -q '^| timed loops | ' "$W/t"
total=$(awk -F' [|] ' '$1 == "| total" { print $3 }' "$W/t")
sum=$(rows | awk -F' [|] ' '{ s += $3 } END { print s + 0 }')
check "the rows' lines add up to the total ($sum, total $total)" [ "$sum" = "$total" ]
all=$(git ls-tree -r --name-only HEAD | grep -E '\.[ch]$' | grep -v -e '^tests/' -e '^scripts/' |
	while IFS= read -r f; do git cat-file blob "HEAD:$f" | wc -l; done |
	awk '{ s += $1 } END { print s }')
check "the total is every line of the C sources ($total, wc -l $all)" [ "$total" = "$all" ]
share=$(rows | awk -F' [|] ' '{ s += $4 } END { print s + 0 }')
check "the lines' shares add to 100% ($share)" within "$share" 99.5 100.5
share=$(rows | awk -F' [|] ' '{ s += $6 } END { print s + 0 }')
check "the code lines' shares add to 100% ($share)" within "$share" 99.5 100.5
expect_rc "loc.sh of no revision" 2 scripts/loc.sh no-such-revision
t_done
