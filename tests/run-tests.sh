#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the cmocka unit tests (build/tests/test_*) and the integration tests
# (tests/integration/*.sh, TAP lines), then leaves the machine as found:
# stale FUSE mounts from the tests are removed and the tests' knob journal is
# replayed, whether the tests passed or not. Ends with one summary line.
#   tests/run-tests.sh [--unit-only] [PATTERN]
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."

# One suite at a time on a machine: the tests change machine-wide knobs
# (rq_affinity, enable_uring) and check that they are as found afterwards, which
# a second suite running at once breaks. As root, the suite runs under a lock in
# /run (root's alone: nothing planted there); flock -o keeps it out of the tests'
# processes, so nothing they leave behind can hold it.
LOCK=/run/affbench-tests.lock
if [ -z "${AFFBENCH_TESTS_LOCKED:-}" ] && [ "$(id -u)" = 0 ] && [ -d /run ] &&
	command -v flock >/dev/null 2>&1; then
	export AFFBENCH_TESTS_LOCKED=1
	flock -n -E 75 -o "$LOCK" "$self" "$@"
	rc=$?
	[ "$rc" != 75 ] && exit "$rc"
	echo "tests: another test suite runs on this machine (lock $LOCK): waiting for it" >&2
	exec flock -o "$LOCK" "$self" "$@"
fi

BUILD=${BUILD:-build}
unit_only=0
[ "${1:-}" = --unit-only ] && { unit_only=1; shift; }
pattern=${1:-}

# Everything the tests mount or journal stays under one work directory.
export AFFBENCH_WORKDIR=$(mktemp -d /tmp/affbench-tests.XXXXXX)
export AFFBENCH_JOURNAL=$AFFBENCH_WORKDIR/knobs.journal
# runs under test take this machine lock, not the real one (/run/affbench.lock)
export AFFBENCH_MACHINE_LOCK=$AFFBENCH_WORKDIR/machine.lock
# runs under test learn their timings here, not in /var/lib/affbench/timings.tsv
export AFFBENCH_TIMINGS=$AFFBENCH_WORKDIR/timings.tsv
export AFFBENCH_TOP=$PWD AFFBENCH_BUILD=$BUILD

cleanup() {
	if [ -x bin/harness ]; then
		bin/harness restore --workdir "$AFFBENCH_WORKDIR" --journal "$AFFBENCH_JOURNAL" >&2 || true
	fi
	# Belt and braces: nothing of ours may stay mounted.
	grep -F " $AFFBENCH_WORKDIR/" /proc/mounts | awk '{print $2}' | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$AFFBENCH_WORKDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

passed=0 failed=0 skipped=0
failures=""

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
	out=$(timeout -k 10 300 "$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	passed=$((passed + ${p:-0})); skipped=$((skipped + ${s:-0}))
	if [ "$rc" != 0 ] || [ "${f:-0}" != 0 ] || [ -z "$p$f$s" ]; then
		failed=$((failed + ${f:-1})); failures="$failures $(basename "$t")"
	fi
done

if [ "$unit_only" = 0 ]; then
	for t in tests/integration/*.sh; do
		[ -f "$t" ] || continue
		[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
		echo "# $t"
		t0=$SECONDS
		# a backstop for a hung test: the longest (the fuzz test) takes 2-3 min alone
		# and over 6 min on a busy 2-CPU machine
		out=$(timeout 1200 bash "$t" 2>&1); rc=$?
		printf '%s\n' "$out"
		echo "# $t: exit $rc after $((SECONDS - t0)) s"
		p=$(printf '%s\n' "$out" | grep -cE '^ok [0-9]+' )
		s=$(printf '%s\n' "$out" | grep -cE '^ok [0-9]+.*# SKIP')
		f=$(printf '%s\n' "$out" | grep -cE '^not ok [0-9]+')
		passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
		if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
			[ "$f" = 0 ] && failed=$((failed + 1))
			failures="$failures $(basename "$t")"
		fi
	done
fi

[ -n "$failures" ] && echo "failing:$failures"
echo "affbench: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
