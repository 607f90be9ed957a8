#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/mutants.list stays true to the code: each mutant's text is in its file exactly
# once and each test it names exists (scripts/mutants.sh --check-list, nothing built).
# An edit that moves a mutated line fails here, in make check, not minutes into
# make check-mutants; a list with a text that is not there shows the check can fail.
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/mutlist.XXXXXX")
out=$(MUTANTS_DIR=$W/m "$TOP/scripts/mutants.sh" --check-list 2>&1)
rc=$?
check "the mutants list holds: exit 0 (got $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' '))" \
	[ "$rc" = 0 ]
sed 's/^- \(.*\)$/- \1 NOT THERE/' "$TOP/tests/mutants.list" > "$W/bad.list"
out=$(MUTANTS_LIST=$W/bad.list MUTANTS_DIR=$W/m "$TOP/scripts/mutants.sh" --check-list 2>&1)
rc=$?
check "a list whose texts are not in their files is refused: exit 2 (got $rc)" [ "$rc" = 2 ]
check "... naming a text not found" eval '[[ $out == *"0 times, not once"* ]]'
rm -rf "$W"
t_done
