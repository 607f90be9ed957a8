#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness: a sweep over a fake benchmark (ok, failing, skipping, hanging points)
# gives a valid raw.csv, summary, tables and report; failures are recorded and
# the sweep goes on; the watchdog kills a hung point; plot regenerates from
# raw.csv alone; resume runs only what is missing; SIGINT stops cleanly;
# compare and restore work; bad input gets one line and exit 2.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/harness-it.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)

# A fake benchmark honouring the CSV contract: --mode ok|fail|skip|hang.
cat > "$D/fakebench" <<'FAKE'
#!/bin/bash
mode=ok
while [ $# -gt 0 ]; do
	case $1 in --mode) mode=$2; shift ;; --format|--repeat|--duration) shift ;; esac
	shift
done
case $mode in
fail) echo "fakebench: measurement failed on purpose" >&2; exit 1 ;;
skip) echo "fakebench: skipped: no such hardware" >&2; exit 4 ;;
hang) echo "fakebench-hang $$" >&2; sleep 3017 & wait; exit 0 ;;
esac
echo "bench,config,rep,metric,value,unit"
echo "fakebench,\"cpus=0,1;mode=$mode\",1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
echo "fakebench,\"cpus=0,1;mode=$mode\",1,ns_per_op,$((500 + RANDOM % 20)),ns"
FAKE
chmod +x "$D/fakebench"

cat > "$D/t.plan" <<'PLAN'
# test plan
repeat 3
bench fakebench
duration 0.1
timeout 2
axis mode ok fail skip hang
PLAN

start=$(date +%s)
"$H" run --plan "$D/t.plan" --out "$D/r1" > "$D/run.out" 2> "$D/run.err"
rc=$?
took=$(( $(date +%s) - start ))
check "run exits 0 although points failed (rc $rc)" test "$rc" = 0
check "raw.csv has one header and 6 ok records (3 reps x 2 metrics)" \
	test "$(grep -c '^bench,config,rep,' "$D/r1/raw.csv")" = 1 \
		-a "$(grep -c '^fakebench,' "$D/r1/raw.csv")" = 6
check "raw.csv records parse: quoted config kept, rep rewritten to 1..3" \
	test "$(awk -F'",' 'NR > 1 { split($2, f, ","); print f[1] }' "$D/r1/raw.csv" |
		sort -u | tr '\n' ' ')" = "1 2 3 "
check "no failed point written as a number" \
	bash -c "! grep -qE 'mode=(fail|skip|hang)' '$D/r1/raw.csv'"
check "failures.csv: 3 failed (exit 1), 3 skipped (exit 4), 3 watchdog kills" \
	test "$(grep -c ',1,measurement failed on purpose' "$D/r1/failures.csv")" = 3 \
	-a "$(grep -c ',4,skipped: no such hardware' "$D/r1/failures.csv")" = 3 \
	-a "$(grep -c 'watchdog' "$D/r1/failures.csv")" = 3
# The hung points would sleep 3017 s each: ending in minutes shows the watchdog
# acted (3 kills at 2 s plus 9 short points; a busy machine stretches that).
check "watchdog kept the sweep short (${took}s < 180s)" test "$took" -lt 180
check "watchdog left no hung benchmark (nor its child) behind" \
	bash -c "! pgrep -f 'sleep [3]017' >/dev/null"
for f in summary.csv tables.md report.md machine.txt plan.plan runs.csv; do
	check "run wrote $f" test -s "$D/r1/$f"
done
check "summary.csv: n=3 for both metrics" \
	test "$(awk -F, '$1 == "fakebench" && $(NF-8) == 3' "$D/r1/summary.csv" | wc -l)" = 2
check "report lists the failed points" grep -q 'measurement failed on purpose' "$D/r1/report.md"
check "progress lines with an ETA on stderr" grep -q 'ETA' "$D/run.err"

# report: everything regenerated from raw.csv alone
mkdir "$D/p"; cp "$D/r1/raw.csv" "$D/p/"
"$H" report "$D/p" 2>/dev/null
check "report regenerates summary.csv identical from raw.csv alone" \
	cmp -s "$D/r1/summary.csv" "$D/p/summary.csv"
check "report regenerates tables.md and report.md" test -s "$D/p/tables.md" -a -s "$D/p/report.md"
# plot, report's older name, writes the same files (in the same directory: the
# report names it)
mkdir "$D/alias"
for f in summary.csv tables.md report.md details.md; do cp "$D/p/$f" "$D/alias/"; done
"$H" plot "$D/p" >/dev/null 2>&1; rc=$?
check "plot, the alias, exits 0 (exit $rc)" [ "$rc" = 0 ]
for f in summary.csv tables.md report.md details.md; do
	check "plot writes the same $f as report" cmp -s "$D/alias/$f" "$D/p/$f"
done

# resume: a finished run runs nothing; a lost last invocation runs again, once
before=$(wc -l < "$D/r1/raw.csv")
"$H" run --resume "$D/r1" >/dev/null 2>&1
check "resume of a finished run adds nothing" test "$(wc -l < "$D/r1/raw.csv")" = "$before"
# an interruption during rep 3: its records reached raw.csv, runs.csv never saw them
head -9 "$D/r1/runs.csv" > "$D/runs.tmp" && mv "$D/runs.tmp" "$D/r1/runs.csv"
"$H" run --resume "$D/r1" >/dev/null 2>&1
check "resume reruns rep 3 only: 13 runs.csv lines, $(
	)raw.csv $(wc -l < "$D/r1/raw.csv") lines (was $before)" \
	test "$(wc -l < "$D/r1/runs.csv")" = 13 -a "$(wc -l < "$D/r1/raw.csv")" = "$before"
check "resume: still exactly 2 records per rep" \
	test "$(awk -F'",' 'NR > 1 { split($2, f, ","); print f[1] }' "$D/r1/raw.csv" |
		sort | uniq -c | awk '{print $1}' | sort -u)" = 2
# each finish wrote machine.txt's "after" block: the last replaces the others, each key once
n=$(grep -c '^loadavg_after ' "$D/r1/machine.txt")
check "machine.txt after two resumes: one 'after' block (loadavg_after $n times)" [ "$n" = 1 ]
"$H" report "$D/r1" >/dev/null 2>"$D/replot.err"
check "a plot after the resumes warns of no repeated key: $(
	)$(grep -m1 'given again' "$D/replot.err")" \
	eval '! grep -q "given again" "$D/replot.err"'

# SIGINT mid-point: stops, keeps a valid raw.csv, says how to resume, exit 130
cat > "$D/h.plan" <<'PLAN'
bench fakebench
timeout 60
axis mode ok hang fail
PLAN
"$H" run --plan "$D/h.plan" --repeat 1 --out "$D/r2" 2> "$D/r2.err" &
hp=$!
hang_logged() { grep -qs fakebench-hang "$D"/r2/log/*.log; }
wait_until 60 hang_logged
kill -INT $hp; wait $hp; rc=$?
check "SIGINT: exit 130 (got $rc)" test "$rc" = 130
check "SIGINT: raw.csv valid, the hung point not recorded as done" \
	test "$(grep -c '^fakebench,' "$D/r2/raw.csv")" = 2 -a "$(grep -c ',ok,' "$D/r2/runs.csv")" = 1
check "SIGINT: message names --resume" grep -q -- '--resume' "$D/r2.err"

# dry run and compare
n=$("$H" run --plan "$D/t.plan" --dry-run | grep -c '^rep ')
check "dry-run lists 4 points x 3 reps (got $n)" test "$n" = 12
"$H" compare --out "$D/c" "$D/r1" "$D/p" > "$D/c.out" 2>&1
check "compare of a run with itself: ratios 1, none significant" \
	bash -c "grep -q '0 ratios judged, 0 significant, 2 with too few repetitions' '$D/c.out' && $(
		)test -s '$D/c/compare.csv'"

# restore: a missing journal is nothing to do
check "restore with no journal exits 0" "$H" restore --journal "$D/none.journal" --workdir "$D"
# a knob the kernel refuses (rq_affinity takes no 'bogus': nothing changes) is said once;
# restore once printed each such failure twice
rq=$(ls /sys/block/*/queue/rq_affinity 2>/dev/null | head -n1)
if [ -n "$rq" ] && [ "$(id -u)" = 0 ]; then
	true &
	dead=$!
	wait "$dead"
	printf '%s\t%d\t0\t%s\tbogus\n' "$(cat /proc/sys/kernel/random/boot_id)" "$dead" "$rq" \
		>"$D/refused.journal"
	"$H" restore --journal "$D/refused.journal" --workdir "$D" >"$D/refused.out" 2>&1
	rc=$?
	n=$(grep -c "restore 'bogus'" "$D/refused.out")
	check "restore: a knob the kernel refused is said once (exit $rc, said $n times)" [ "$n" = 1 ]
else
	skip "restore: a knob the kernel refuses is said once" \
		"no /sys/block/*/queue/rq_affinity, or not root"
fi
# a path given is echoed escaped: a newline in it never makes a second line
mkdir -p "$D/j"$'\n'"FAKE LINE" && chmod 0777 "$D/j"$'\n'"FAKE LINE"
expect_rc "restore --journal in a world-writable directory named with a newline: exit 1, one line" \
	1 "$H" restore --journal "$D/j"$'\n'"FAKE LINE/knobs.journal" --workdir "$D"

# bad input: one line, exit 2
printf 'bench x\nfrobnicate 1\n' > "$D/bad.plan"
expect_rc "unknown command" 2 "$H" frobnicate
expect_rc "run --repeat 0" 2 "$H" run --repeat 0
expect_rc "run --plan missing" 2 "$H" run --plan "$D/missing.plan"
expect_rc "plan with an unknown key" 2 "$H" run --plan "$D/bad.plan" --dry-run
expect_rc "run --resume not a run dir" 2 "$H" run --resume "$D/p"
expect_rc "plot without raw.csv" 2 "$H" report "$D/none"
expect_rc "compare with one directory" 2 "$H" compare "$D/r1"
expect_rc "restore --bogus" 2 "$H" restore --bogus
check "--help of every subcommand" \
	bash -c "for c in run report plot compare restore; do $(
	)'$H' \$c --help | grep -q usage || exit 1; done"
check "no FUSE mount left" no_fuse_left
# 'metrics' keeps only the named metrics of a block (a side measurement is not pooled).
cat > "$D/m.plan" <<'PLAN'
repeat 1
bench fakebench
duration 0.1
axis mode ok
metrics ns_per_op
PLAN
"$H" run --plan "$D/m.plan" --out "$D/m" >/dev/null 2>&1
check "metrics ns_per_op: raw.csv holds ns_per_op only" \
	eval '[ "$(grep -c ",ns_per_op," "$D/m/raw.csv")" = 1 ] && ! grep -q ",ops_per_s," "$D/m/raw.csv"'

# The report from the committed reference run's raw.csv alone: every seed's
# section with the seed's numbers beside ours, a reading of each, the plots.
REF=$TOP/results/reference
if [ -f "$REF/raw.csv" ]; then
	mkdir -p "$D/ref"
	cp "$REF/raw.csv" "$REF/plan.plan" "$REF/machine.txt" "$D/ref/"
	"$H" report "$D/ref" >/dev/null 2>"$D/ref.err"
	rc=$?
	check "plot of the reference run exits 0 (exit $rc)" [ "$rc" = 0 ]
	check "plot of the reference run writes tables.md" test -s "$D/ref/tables.md"
	for want in "without cpu affinity" "23025" "Writes to single mount" "633" "rq=0 local=1" "66.616" \
		"idle-thread" "xfs_io"; do
		check "tables.md shows '$want'" grep -qF -- "$want" "$D/ref/tables.md"
	done
	n=$(grep -cE '^## (cputestfs|ddpar|sqrtio|fdget): ' "$D/ref/report.md")
	check "report.md reads all four posts ($n sections)" test "$n" = 4
	for src in "fuse-devel 2012, Stefan Westerfeld" "fuse-devel 2015" "LKML 2008, Alan D. Brunelle" \
		"fstests 2016, Amir Goldstein"; do
		check "tables.md names the post '$src'" grep -qF -- "$src" "$D/ref/tables.md"
	done
	check "no internal post numbers anywhere users look" \
		bash -c "! grep -qE 'seed [0]{2}[0-9]' '$D/ref/tables.md' '$D/ref/report.md'"
	check "report.md judges with CIs" grep -q "95% CI" "$D/ref/report.md"
	for png in cputestfs ddpar sqrtio fdget; do
		check "plot $png.png drawn" test -s "$D/ref/figures/$png.png"
	done
	# A missing column must read as n/a, never as a config compared with itself.
	mkdir -p "$D/part"
	grep -v '^sqrtio,.*local=1;' "$REF/raw.csv" >"$D/part/raw.csv"
	"$H" report "$D/part" >/dev/null 2>&1
	# sqrtio/report.c reading(): one sentence of off/on ratios, "not measured" where a side is missing
	offon='^Readers off the IRQ CPU against readers on it \(95% CI, \* where it excludes 1\):'
	check "sqrtio without local=1: no ratio claimed, 'not measured' at each rq_affinity" \
		bash -c "grep -E '$offon' '$D/part/report.md' | grep -qE ': sqrt work rate not measured at $(
			)rq_affinity 0, .*; IO rate not measured at rq_affinity 0' &&
			 ! grep -E '$offon' '$D/part/report.md' | grep -qE '[0-9]x '"
	check "the full run reads the sqrtio off/on ratio as a sentence" \
		grep -qE "$offon sqrt work rate [0-9.]+x \[[0-9.]+, [0-9.]+\]( \*)? at rq_affinity 0, .*; IO $(
			)rate [0-9.]+x \[[0-9.]+, [0-9.]+\]( \*)? at rq_affinity 0, .*\.\$" \
		"$D/ref/report.md"
else
	skip "plot of the reference run" "no results/reference/raw.csv"
fi

rm -rf "$D"
t_done
