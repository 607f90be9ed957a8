#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Times that hold (issue 18): a finished run of a real benchmark writes its
# invocations' times into the learned table ($AFFBENCH_TIMINGS), and the next
# --dry-run's estimate moves toward the measured time; a garbled table is not
# used, with one warning; the progress line's ETA re-estimates from what the
# run has measured. Times are compared with wide margins, never printed text.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/timings-it.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
export AFFBENCH_TIMINGS=$D/timings.tsv

# "M:SS" or "H:MM:SS" -> seconds
secs() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<<"$1"; }
dry_eta() { "$H" run --plan "$1" --dry-run 2>"$D/dry.err" | sed -n 's/^ETA //p'; }

# fdget at 0.05 s with an estimate line far off (30 s): a fresh table has no row
# for this duration, so the estimate is the plan's, until the run teaches it.
cat >"$D/f.plan" <<'PLAN'
repeat 2
bench fdget
duration 0.05
estimate 30
axis op fstat lseek
extra --mode single --spawn 0
PLAN
before=$(secs "$(dry_eta "$D/f.plan")")
check "before learning: the plan's estimate (4 x 30 s = ${before}s)" test "$before" = 120
"$H" run --plan "$D/f.plan" --out "$D/r" >/dev/null 2>"$D/run.err"
rc=$?
check "the run exits 0 (rc $rc; $(tail -n 2 "$D/run.err" | tr '\n' ' '))" test "$rc" = 0
check "the run announces its estimate" grep -q 'points x .* (estimated [0-9:]*)$' "$D/run.err"
check "the learned table holds both points (fdget 0.05 s)" \
	test "$(grep -c "^fdget	0.05	--op [a-z]* --mode single --spawn 0	[0-9.]*	2$" \
		"$AFFBENCH_TIMINGS")" = 2
measured=$(awk -F, 'NR > 1 { s += $6 } END { printf "%d", s + 0.5 }' "$D/r/runs.csv")
after=$(secs "$(dry_eta "$D/f.plan")")
check "after learning the estimate moved toward the measured time (${before}s -> ${after}s, $(
	)measured ${measured}s)" \
	awk -v b="$before" -v a="$after" -v m="$measured" 'BEGIN { d1 = b - m; d2 = a - m
		exit !((d2 < 0 ? -d2 : d2) < (d1 < 0 ? -d1 : d1)) }'
check "--dry-run says where the estimates came from" \
	grep -q '^timings of the 2 points: 2 measured on this machine' <("$H" run --plan "$D/f.plan" \
		--dry-run 2>/dev/null)

# a garbled learned table: one warning naming it, the plan's estimate again, exit 0
printf 'fdget\t0.05\t--op fstat --mode single --spawn 0\tlots\t2\n' >"$AFFBENCH_TIMINGS"
eta=$(secs "$(dry_eta "$D/f.plan")")
check "a garbled table: --dry-run goes on with the plan's estimate (${eta}s)" test "$eta" = 120
check "... with exactly one warning naming the file and line" \
	test "$(grep -c . "$D/dry.err")" = 1 \
		-a "$(grep -c "warning: $AFFBENCH_TIMINGS:1: seconds" "$D/dry.err")" = 1
head -c 3000 /dev/urandom >"$AFFBENCH_TIMINGS"
"$H" run --plan "$D/f.plan" --dry-run >/dev/null 2>"$D/dry.err"
rc=$?
check "random bytes as the table: exit 0, one warning (rc $rc, $(grep -c . "$D/dry.err") lines)" \
	test "$rc" = 0 -a "$(grep -c . "$D/dry.err")" = 1

# The ETA re-estimates: a fake program (never learned) whose plan estimates 20 s an
# invocation and which takes a fraction of that; after the first invocation the
# progress line's ETA drops far below the plan's 20 s per remaining invocation.
cat >"$D/fake" <<'FAKE'
#!/bin/bash
echo "bench,config,rep,metric,value,unit"
echo "fake,n=1,1,ops_per_s,1000,1/s"
FAKE
chmod +x "$D/fake"
cat >"$D/e.plan" <<'PLAN'
bench fake
duration 0.1
estimate 20
axis n 1 2 3 4 5 6
PLAN
"$H" run --plan "$D/e.plan" --repeat 1 --out "$D/e" >/dev/null 2>"$D/e.err"
mapfile -t etas < <(sed -n 's/^\[[0-9]*\/6\] .*  ETA \([0-9:]*\)$/\1/p' "$D/e.err")
check "six progress lines with an ETA (got ${#etas[@]})" test "${#etas[@]}" = 6
first=$(secs "${etas[0]:-0}") second=$(secs "${etas[1]:-999}")
check "the first ETA is the plan's (6 x 20 s = ${first}s)" test "$first" = 120
check "after one invocation the ETA re-estimates (${second}s, far below 5 x 20 s)" \
	test "$second" -lt 50
check "no fake program in the learned table" \
	bash -c "! grep -q '^fake' '$AFFBENCH_TIMINGS' 2>/dev/null"

rm -rf "$D"
echo "1..$T_N"
exit $T_FAILED
