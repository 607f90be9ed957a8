#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness run --precision P --budget DURATION (harness/run/precision.c): after
# the plan's repetitions, rounds of added ones go to the points whose headline
# interval is wider than +-P, interleaved, up to 8x the plan's repetitions and
# within the budget; a tight or skipped point gets none; plan.plan records the
# target; --resume reads the records back and goes on; report.md lists the
# results still wider; bad values get one line and exit 2.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/precision-it.XXXXXX")
export AFFBENCH_JOURNAL=$D/knobs.journal AFFBENCH_TIMINGS=$D/timings.tsv
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME

# --mode tight: the same value every time (an interval of 0); wide*: 1000 and 1499 in
# turn, counted per mode in a file beside the script, so that any n >= 6 has values
# on both sides of its median (an interval of about +-20%, never within 5%; random
# values were within it now and then, and the run's summary then counted 2 of 3);
# skip: exit 4.
cat > "$D/fakeprec" <<'FAKE'
#!/bin/bash
mode=tight
while [ $# -gt 0 ]; do
	case $1 in --mode) mode=$2; shift ;; --format|--repeat|--duration) shift ;; esac
	shift
done
case $mode in
tight) v=1000 ;;
wide*)
	c=$(dirname "$0")/count.$mode
	n=$(($(cat "$c" 2> /dev/null || echo 0) + 1))
	echo "$n" > "$c"
	v=$((1000 + n % 2 * 499)) ;;
skip) echo "fakeprec: skipped: nothing to measure" >&2; exit 4 ;;
esac
sleep 0.05
echo "bench,config,rep,metric,value,unit"
echo "fakeprec,mode=$mode,1,ops_per_s,$v,1/s"
FAKE
chmod +x "$D/fakeprec"
cat > "$D/t.plan" <<'PLAN'
repeat 6
precision 5%
budget 120
bench fakeprec
duration 0.1
timeout 5
axis mode tight wide1 skip wide2
PLAN

# rows POINT DIR: runs.csv rows of point POINT (numbered from 0, as runs.csv does)
rows() { awk -F, -v p="$1" 'NR > 1 && $2 == p' "$2/runs.csv" | wc -l; }

"$H" run --plan "$D/t.plan" --out "$D/r1" > /dev/null 2> "$D/r1.err"
rc=$?
check "a run with a precision exits 0 (rc $rc)" test "$rc" = 0
check "the tight point (interval 0) gets no added repetition: 6 rows" test "$(rows 0 "$D/r1")" = 6
check "the skipped point gets none: 6 rows" test "$(rows 2 "$D/r1")" = 6
check "a wide point gets added repetitions: more than 6 rows" test "$(rows 1 "$D/r1")" -gt 6
check "... up to 8x the plan's 6, never more" test "$(rows 1 "$D/r1")" -le 48
check "... and goes as far as its cap allows within the budget: more than 40 rows" \
	test "$(rows 1 "$D/r1")" -gt 40
# interleaved: among the added rows no point runs twice in a row while the other waits
added=$(awk -F, 'NR > 1 && $3 > 6 { printf "%s ", $2 }' "$D/r1/runs.csv")
check "the added repetitions alternate between the two wide points ($added)" \
	bash -c "! grep -qE '(^| )([0-9]+) \\2 ' <<<' $added'"
check "the progress line names the round" grep -q '^\[precision round 1: 2 points\] rep 7 ' \
	"$D/r1.err"
check "the run says how many it added and how many points reached the target" \
	grep -qE 'precision \+-5%: [0-9]+ repetitions added; 1 of 3 points' "$D/r1.err"
check "plan.plan records the precision" grep -qx 'precision 5%' "$D/r1/plan.plan"
check "plan.plan records the budget" grep -qx 'budget 120' "$D/r1/plan.plan"
check "no repetition is written twice: the report reads raw.csv" "$H" report "$D/r1"

"$H" run --plan "$D/t.plan" --budget 1 --out "$D/r2" > /dev/null 2>&1
check "a budget the plan's repetitions already spent adds none: 24 rows" \
	test "$(awk 'END { print NR - 1 }' "$D/r2/runs.csv")" = 24
check "--budget on the command line wins over the plan's" grep -qx 'budget 1' "$D/r2/plan.plan"

# --resume: stopped during the added rounds, it reads the records back (without them
# no point would look wide, and none would be added) and goes on
"$H" run --plan "$D/t.plan" --out "$D/r3" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 2400); do	# up to 2 minutes: a busy machine is slow to get there
	awk -F, '$3 == 9' "$D/r3/runs.csv" 2>/dev/null | grep -q . && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
before=$(rows 1 "$D/r3")
check "stopped during the added rounds, after repetition 9 ($before rows)" test "$before" -ge 9
"$H" run --resume "$D/r3" > /dev/null 2> "$D/r3.err"
rc=$?
check "--resume of a precision run exits 0 (rc $rc)" test "$rc" = 0
check "--resume goes on adding to the wide point ($before -> $(rows 1 "$D/r3") rows)" \
	test "$(rows 1 "$D/r3")" -gt "$before"
# "[precision round K: N points] rep R ...": the round's number goes on from the last
check "--resume goes on numbering the rounds: each one's repetition is 6 + its number" \
	awk '/^\[precision round/ { split($3, k, ":"); bad += ($7 != 6 + k[1]) } END { exit (bad > 0) }' \
	"$D/r3.err"
check "--resume counts the added ones it reads back: point 1 within its cap of 48" \
	test "$(rows 1 "$D/r3")" -le 48
check "--resume runs no repetition twice" \
	test -z "$(awk -F, 'NR > 1 { print $2 "," $3 }' "$D/r3/runs.csv" | sort | uniq -d)"

# report.md's Precision lists the headline results still wider than the target
mkdir "$D/rep"
printf 'repeat 6\nprecision 5%%\nbench sqrtio\n' > "$D/rep/plan.plan"
{
	echo "bench,config,rep,metric,value,unit"
	for r in 1 2 3 4 5 6; do
		echo "sqrtio,local=0;rq=1,$r,ios_K_per_s,$((100 + r * 10)),K/s"
		echo "sqrtio,local=1;rq=1,$r,ios_K_per_s,$((200 + r)),K/s"
	done
} > "$D/rep/raw.csv"
"$H" report "$D/rep" > /dev/null 2>&1
check "report.md lists a result wider than the target, with its width" \
	grep -qF -- '- not within +-5%: ios_K_per_s, local=0;rq=1: +-' "$D/rep/report.md"
check "report.md does not list one within it" \
	bash -c "! grep -qF 'not within +-5%: ios_K_per_s, local=1;rq=1' '$D/rep/report.md'"
check "report.md says the run judged at 97.5% and lists at the 95% it states" \
	grep -qF "judging each at 97.5% so that the 95% stated here holds" "$D/rep/report.md"

expect_rc "--precision 0 is refused" 2 "$H" run --plan "$D/t.plan" --precision 0 --out "$D/x"
expect_rc "--precision 100 is refused" 2 "$H" run --plan "$D/t.plan" --precision 100 --out "$D/x"
expect_rc "--budget 5x is refused" 2 "$H" run --plan "$D/t.plan" --budget 5x --out "$D/x"
expect_rc "--budget 0 is refused" 2 "$H" run --plan "$D/t.plan" --budget 0 --out "$D/x"
printf 'repeat 6\nbench fakeprec\nduration 0.1\naxis mode tight\n' > "$D/nop.plan"
expect_rc "a budget without a precision is refused" 2 \
	"$H" run --plan "$D/nop.plan" --budget 60 --out "$D/x"
expect_rc "--resume with --precision is refused (the run's own plan.plan goes on)" 2 \
	"$H" run --resume "$D/r1" --precision 2
printf 'repeat 6\nprecision 5x\nbench fakeprec\naxis mode tight\n' > "$D/bad.plan"
expect_rc "a plan's bad precision line is refused" 2 "$H" run --plan "$D/bad.plan" --dry-run
check "nothing was created by a refused run" test ! -e "$D/x"

rm -rf "$D"
t_done
