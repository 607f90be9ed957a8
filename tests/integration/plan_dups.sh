#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A point that two blocks of one plan measure would record the same repetitions twice, and
# the run could not be plotted: harness run refuses the plan before the first point (and
# in --dry-run), exit 2, one line naming the point and both blocks' lines. Options at the
# value records leave out (--idle as-found, --daemon-wait block) and --duration do not
# make a point another; their order does not either.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/plan_dups.XXXXXX")
trap 'rm -rf "$D"' EXIT

# plan NAME LINES...: a plan file of those lines
plan() { local n=$1; shift; printf '%s\n' "$@" > "$D/$n.plan"; }
dry() { "$H" run --plan "$D/$1.plan" --dry-run --out "$D/out-$1"; }

plan idle 'bench cputestfs' 'axis placement none same' '' 'bench cputestfs' \
	'axis idle as-found poll' \
	'axis placement same'
expect_rc "axis idle as-found beside a block run as found" 2 dry idle
check "... names the point and both blocks (lines 4 and 1)" \
	eval 'dry idle 2>&1 | grep -q "idle.plan:4: cputestfs (idle=as-found;placement=same) $(
		)measures again the point cputestfs (placement=same) of the block at line 1"'
plan wait 'bench cputestfs' 'duration 1' 'axis placement same' 'axis transport dev' \
	'bench cputestfs' 'duration 2' 'extra --transport=dev --daemon-wait block --placement same'
expect_rc "--daemon-wait block, --NAME=VALUE, another order and duration: still the same point" \
	2 dry wait
plan same 'bench fdget' 'axis op pread' 'bench fdget' 'axis op pread'
expect_rc "two identical blocks" 2 dry same
plan ok 'bench cputestfs' 'axis placement same' 'bench cputestfs' 'axis idle poll' \
	'axis placement same' 'bench cputestfs' 'axis placement same' \
		'extra --transport dev --daemon-wait poll'
dry ok > /dev/null 2> "$D/ok.err"; rc=$?
check "idle poll and --daemon-wait poll are other points (exit $rc)" \
	eval '[ "$rc" = 0 ] || [ "$rc" = 4 ] && ! grep -q "measures again" "$D/ok.err"'
t_done
