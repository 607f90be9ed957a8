#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each `check` tests one condition (tests/tools/check_lint.py): no `check ... &&`,
# `check ... ||` or `check ... |`, no `$?` inside a check, in any test script.
# The self-test first: each fixture under tests/fixtures/check_lint/ names, on
# its "# want:" line, the lines the lint must report, and only those. (~1 s)
. "$(dirname "$0")/lib.sh"
LINT=$TOP/tests/tools/check_lint.py

if ! command -v python3 >/dev/null; then
	skip "check lint" "python3 not installed (scripts/deps.sh installs it)"
	t_done
fi

# reported FILE: the line numbers the lint reports in FILE, space separated
reported() { python3 "$LINT" "$1" | sed -n 's/^[^:]*:\([0-9]*\): .*/\1/p' | sort -nu | xargs; }

for f in "$TOP"/tests/fixtures/check_lint/*.sh; do
	name=${f##*/}
	want=$(sed -n 's/^# want:[ ]*//p' "$f")
	python3 "$LINT" "$f" >/dev/null
	rc=$?
	if [ -n "$want" ]; then
		check "self-test $name: the lint fails (exit $rc)" [ "$rc" = 1 ]
	else
		check "self-test $name: the lint passes (exit $rc)" [ "$rc" = 0 ]
	fi
	got=$(reported "$f")
	check "self-test $name: reported lines '$got' are '$want'" [ "$got" = "$want" ]
done

cd "$TOP" || exit 1
scripts=(tests/integration/*.sh tests/fuzz/*.sh tests/lkp/*.sh)
out=$(python3 "$LINT" "${scripts[@]}")
rc=$?
check "the lint read ${#scripts[@]} test scripts and passes (exit $rc)${out:+: $out}" [ "$rc" = 0 ]
t_done
