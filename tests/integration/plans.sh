#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# plans: mistakes in a plan end in exit 2 and one line naming the plan line,
# before anything runs and in --dry-run too (a misspelt axis, an unknown value,
# a bad extra argument, an unknown benchmark, a FIFO); --plan list lists the
# plans; a plan of 20 blocks loads cleanly (under valgrind when it is here);
# --check-options measures nothing.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/plans-it.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}

# refused NAME PLAN-TEXT LINE PATTERN: the plan is refused with exit 2 and one
# line "PLAN:LINE: ...PATTERN...", both as --dry-run and as a run, and the run
# created nothing (no run directory: no point ran).
refused() {
	local name=$1 text=$2 line=$3 pat=$4 p=$D/$1.plan rc
	printf '%b' "$text" > "$p"
	"$H" run --plan "$p" --dry-run >"$D/$name.out" 2>"$D/$name.err"
	rc=$?
	check "$name: --dry-run exits 2 (got $rc)" [ "$rc" = 2 ]
	check "$name: one line naming $name.plan:$line ($(head -c 300 "$D/$name.err"))" \
		eval '[ "$(wc -l <"$D/$name.err")" = 1 ] && grep -qF -- "$p:$line: " "$D/$name.err" &&
		      grep -qF -- "$pat" "$D/$name.err"'
	check "$name: --dry-run lists no invocation" [ ! -s "$D/$name.out" ]
	"$H" run --plan "$p" --out "$D/$name-run" >/dev/null 2>&1
	rc=$?
	check "$name: the run exits 2 (got $rc) before anything runs (no $name-run/)" \
		eval '[ "$rc" = 2 ] && [ ! -e "$D/$name-run" ]'
}

if [ -x "$BIN/fdget" ]; then
	refused opp \
		'repeat 1\nbench fdget\nduration 0.1\naxis opp pread fstat\nextra --mode single --spawn 0\n' \
		4 "unknown option '--opp'"
	refused value 'bench fdget\nduration 0.1\naxis op pread fstatx\n' 3 "'fstatx' for --op"
	refused extra 'bench fdget\naxis op pread\n\nextra --spawn 0\nextra --mode bogus\n' 5 \
		"'bogus' for --mode"
	# checks run side by side: the first refused point in plan order is the one named
	refused first 'bench fdget\naxis op pread fstat lseek x1\n\nbench fdget\naxis op x2\n' 2 \
		"'x1' for --op"
	out=$("$BIN/fdget" --op pread --check-options 2>&1)
	rc=$?
	check "fdget --check-options: exit 0 (got $rc), no output ($out)" \
		eval '[ "$rc" = 0 ] && [ -z "$out" ]'
else
	skip "plans checked against fdget's options" "bin/fdget not built (run make)"
fi
refused nosuch 'bench fdget\naxis op pread\n\nbench nosuch\n' 4 "unknown benchmark 'nosuch'"

# sqrtio --check-options makes no scratch file (it parses and exits before the target)
if [ -x "$BIN/sqrtio" ]; then
	mkdir "$D/empty"
	(cd "$D/empty" && "$BIN/sqrtio" --rq 1 --check-options)
	rc=$?
	check "sqrtio --check-options: exit 0 (got $rc), nothing made in its directory" \
		eval '[ "$rc" = 0 ] && [ -z "$(ls -A "$D/empty")" ]'
	out=$("$BIN/sqrtio" --rq 7 --check-options 2>&1)
	rc=$?
	check "sqrtio --rq 7 --check-options: exit 2 (got $rc) naming --rq ($out)" \
		eval '[ "$rc" = 2 ] && [[ $out == *"for --rq"* ]]'
fi

# a FIFO as the plan: one line and exit 2, at once (the open does not block)
mkfifo "$D/fifo.plan"
timeout 20 "$H" run --plan "$D/fifo.plan" --dry-run >/dev/null 2>"$D/fifo.err"
rc=$?
check "a FIFO as plan: exit 2 (got $rc), one line naming it ($(head -c 200 "$D/fifo.err"))" \
	eval '[ "$rc" = 2 ] && [ "$(wc -l <"$D/fifo.err")" = 1 ] && grep -qF "$D/fifo.plan" "$D/fifo.err"'

# --plan list, which run --help offers
"$H" run --plan list >"$D/list.out" 2>"$D/list.err"
rc=$?
check "--plan list exits 0 (got $rc: $(head -c 200 "$D/list.err"))" [ "$rc" = 0 ]
check "--plan list lists default and quick with their points" \
	eval 'grep -Eq "^default +[0-9]+ points" "$D/list.out" &&
		grep -Eq "^quick +[0-9]+ points" "$D/list.out"'

# 20 blocks: more than the block array starts with (freed memory was read)
P20=$TOP/tests/fixtures/plans/blocks20.plan
want=$(awk '/^axis/ { n *= NF - 2 } /^bench/ { t += n; n = 1 } END { print t + n }' n=0 "$P20")
n=$("$H" run --plan "$P20" --dry-run 2>"$D/b20.err" | grep -c '^rep ')
check "20-block plan: --dry-run lists its $want points (got $n; $(head -c 200 "$D/b20.err"))" \
	[ "$n" = "$want" ]
if command -v valgrind >/dev/null 2>&1; then
	valgrind -q --error-exitcode=1 "$H" run --plan "$P20" --dry-run >/dev/null 2>"$D/vg.err"
	rc=$?
	check "20-block plan: valgrind finds no error (rc $rc; $(grep -m1 'Invalid' "$D/vg.err"))" \
		[ "$rc" = 0 ]
else
	skip "20-block plan under valgrind" "no valgrind (apt-get install valgrind)"
fi
t_done
