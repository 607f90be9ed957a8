#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# contrib/lkp/programs/affbench/parse (affbench's LKP stats script) over the
# recorded runs, a hostile corpus (tests/lkp/hostile.sh) and 100 seeded
# mutations, with Debian's ruby alone (no lkp-tests): every line is LKP's
# "key: value" with no blank or comma in the key, keys are unique, the
# reference run's keys are the golden lists (with and without the run
# script's #key notes), the order of the rows does not matter, values are the
# medians (recomputed by tests/lkp/medians.py within 1e-8 relative), and
# hostile rows are counted, never emitted, and named on stderr with their
# line. Issue 24: lines are read with a bounded length (300 MB of NUL with
# no newline), repeated #key notes count once, a row written twice refuses
# the input with both lines (exit 2), a metric has one unit, and numbers are
# exactly the harness's decimal form (checked against harness export). Also
# the run script against a stand-in harness: the plan it writes, skips
# (exit 4), refusals.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PARSE=contrib/lkp/programs/affbench/parse
GOLDEN=tests/fixtures/lkp/reference.keys
GOLDEN_NOTED=tests/fixtures/lkp/reference-noted.keys
tmp=$(mktemp -d /tmp/affbench-lkp-parse.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if ! command -v ruby >/dev/null 2>&1; then
	skip "parse tests" "no ruby (apt-get install ruby; make check installs it as root)"
	t_done
fi

# stats_grammar FILE: LKP's stats line (sbin/dump-stat): "key: value", the key
# without blanks, commas or ": ", the value a number dump-stat reads back as
# written (an integer, or a decimal with a '.').
stats_grammar() {
	! grep -avE '^[A-Za-z0-9][^[:space:],]*: -?([0-9]+|[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?)$' "$1" |
		grep -q . &&
		! cut -d' ' -f1 "$1" | grep -q ': .*:'
}
keys_unique() { [ -z "$(sed 's/: [^ ]*$//' "$1" | sort | uniq -d)" ]; }

# same_medians STATS RAW...: every stat of tests/lkp/medians.py is in STATS
# with a value within 1e-8 relative, and STATS has no other (but the counts).
same_medians() {
	local stats=$1; shift
	python3 tests/lkp/medians.py "$@" >"$tmp/want" || return 1
	awk 'NR == FNR { want[$1] = $2; n++; next }
	     { sub(/:$/, "", $1) }
	     $1 == "rejected_rows" || $1 ~ /\.(skip|fail)$/ { next }
	     !($1 in want) { print "extra " $1; bad = 1; next }
	     { d = $2 - want[$1]; if (d < 0) d = -d; m = want[$1] < 0 ? -want[$1] : want[$1]
	       if (d > 1e-8 * m + 1e-12) { print "differs " $1, $2, want[$1]; bad = 1 }
	       seen++ }
	     END { if (seen != n) { print "missing", n - seen; bad = 1 }; exit bad }' \
		"$tmp/want" "$stats" >&2
}

rejected() { sed -n 's/^rejected_rows: //p' "$1"; }

runs="results/reference results/emulated/A results/emulated/B results/emulated/C"
for run in $runs; do
	name=$(basename "$run")
	if "$PARSE" <"$run/raw.csv" >"$tmp/$name.stats" 2>"$tmp/err"; then
		ok "parse $run/raw.csv: $(wc -l <"$tmp/$name.stats") stats"
	else
		nok "parse $run/raw.csv: $(cat "$tmp/err")"
	fi
	check "$run: every line is LKP's key: value" stats_grammar "$tmp/$name.stats"
	check "$run: keys are unique" keys_unique "$tmp/$name.stats"
	check "$run: values are the medians over the repetitions" \
		same_medians "$tmp/$name.stats" "$run/raw.csv"
	check "$run: no row rejected" [ "$(rejected "$tmp/$name.stats")" = 0 ]
done

# The reference keys are the golden list: a change of key rule shows here.
sed 's/: [^ ]*$//' "$tmp/reference.stats" >"$tmp/keys"
if cmp -s "$tmp/keys" "$GOLDEN"; then
	ok "results/reference keys match $GOLDEN ($(wc -l <"$GOLDEN"))"
else
	nok "results/reference keys differ from $GOLDEN: $(diff "$GOLDEN" "$tmp/keys" | head -5)"
fi

# As the run script feeds it: "#key" notes from the plan name only the swept
# axes. Same stats (a bijection: the same values), other keys, still unique.
RUN=contrib/lkp/programs/affbench/run
{ "$RUN" --key-notes results/reference/plan.plan; cat results/reference/raw.csv; } >"$tmp/noted.csv"
"$PARSE" <"$tmp/noted.csv" >"$tmp/noted.stats"
check "with the plan's #key notes: every line is LKP's key: value" stats_grammar "$tmp/noted.stats"
check "with the plan's #key notes: keys are unique" keys_unique "$tmp/noted.stats"
values() { sed 's/^.*: //' "$1" | sort; }
check "with the plan's #key notes: the same values as without" \
	cmp -s <(values "$tmp/noted.stats") <(values "$tmp/reference.stats")
sed 's/: [^ ]*$//' "$tmp/noted.stats" >"$tmp/noted.keys"
if cmp -s "$tmp/noted.keys" "$GOLDEN_NOTED"; then
	ok "results/reference keys with the plan's notes match $GOLDEN_NOTED"
else
	nok "results/reference keys with notes differ from $GOLDEN_NOTED: $(
		)$(diff "$GOLDEN_NOTED" "$tmp/noted.keys" | head -5)"
fi
check "no placement CPU numbers in cputestfs keys with notes" \
	[ -z "$(grep '^cputestfs\.' "$tmp/noted.keys" | grep -e client_cpu -e daemon_cpu)" ]
# A job that fixes placement (lkp split-job makes one per value) and sweeps
# daemon: placement leaves the keys, so the two placements' keys are equal.
printf 'bench cputestfs\naxis placement same\naxis daemon single multi\n' >"$tmp/one.plan"
notes=$(placement=same daemon="single multi" "$RUN" --key-notes "$tmp/one.plan")
check "a job parameter with one value is not in the keys ($notes)" \
	[ "$notes" = "#key cputestfs daemon" ]
for p in same none; do
	{ echo "#key cputestfs"; echo 'bench,config,rep,metric,value,unit'
	  echo "cputestfs,client_cpu=1;placement=$p,1,stat_per_s,10,1/s"; } | "$PARSE" >"$tmp/$p.stats"
done
check "two placements give the same key" \
	cmp -s <(cut -d: -f1 "$tmp/same.stats") <(cut -d: -f1 "$tmp/none.stats")
check "the key of a one-point job is BENCH.METRIC" \
	grep -qx 'cputestfs.stat_per_s: 10' "$tmp/same.stats"
{ echo "#key fdget op"; echo 'bench,config,rep,metric,value,unit'
  echo 'fdget,mode=single;op=pread,1,ns_per_op,10,ns'
  echo 'fdget,mode=idle-thread;op=pread,1,ns_per_op,20,ns'; } |
	"$PARSE" >"$tmp/clash.stats"
check "configs that would share a key fall back to all config keys" \
	[ "$(grep -c '^fdget\.mode=.*\.op=pread\.ns_per_op: ' "$tmp/clash.stats")" = 2 ]

# Stable: the rows in another order (header first) give the same stats.
{ head -1 results/reference/raw.csv; tail -n +2 results/reference/raw.csv |
	sort -R --random-source=/dev/zero | tac; } \
	>"$tmp/shuffled.csv"
"$PARSE" <"$tmp/shuffled.csv" >"$tmp/shuffled.stats"
check "rows in another order give the same stats" \
	cmp -s "$tmp/shuffled.stats" "$tmp/reference.stats"

# As LKP calls it: bin/run-stats runs `parse FILE <FILE`.
"$PARSE" results/emulated/A/raw.csv <results/emulated/A/raw.csv >"$tmp/args.stats"
check "called as run-stats calls it (parse FILE <FILE)" cmp -s "$tmp/args.stats" "$tmp/A.stats"

# The run script, against a stand-in harness (no root, no FUSE): what it
# passes, what it prints for parse, skips (exit 4) and refusals.
mkdir -p "$tmp/root/bin"
cat >"$tmp/root/bin/harness" <<'FAKE'
#!/bin/bash
# Stand-in for bin/harness run: keeps its arguments and plan, writes one point
# measured and one skipped, exits $FAKE_RC.
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2; shift ;; --out) out=$2; shift ;; esac
	shift
done
mkdir -p "$out" && cp "$plan" "$out/plan.seen"
printf 'bench,config,rep,metric,value,unit\n%s\n' cputestfs,placement=same,1,stat_per_s,10,1/s \
	>"$out/raw.csv"
printf 'bench,point,rep,status,exit,seconds,raw_bytes,label\n%s\n%s\n' \
	cputestfs,0,1,ok,0,1,80,x cputestfs,1,1,skip,4,0,80,y >"$out/runs.csv"
exit "${FAKE_RC:-0}"
FAKE
chmod +x "$tmp/root/bin/harness"
mkdir -p "$tmp/root/share/affbench/plans" && cp harness/plans/quick.plan \
	"$tmp/root/share/affbench/plans/"
run_fake() { env -i PATH="$PATH" AFFBENCH_ROOT="$tmp/root" TMP_RESULT_ROOT="$tmp/rr" "$@" "$RUN"; }
rm -rf "$tmp/rr"; mkdir "$tmp/rr"
run_fake bench=cputestfs placement="same none" daemon=single duration=0.2 repeat=3 FAKE_RC=0 \
	>"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
check "run (bench): exit 0 with a point skipped" [ "$rc" = 0 ]
check "run (bench): the plan sweeps the job's axes" \
	grep -qx 'axis placement same none' "$tmp/rr/affbench-run/plan.seen"
check "run (bench): --repeat passed on, duration in the plan" \
	test -n "$(grep -x 'duration 0.2' "$tmp/rr/affbench-run/plan.seen")" \
		-a -n "$(grep -e '--repeat 3' "$tmp/run.out")"
"$PARSE" <"$tmp/run.out" >"$tmp/run.stats"
check "run | parse: the skipped point is cputestfs.skip, the key names the swept axis" \
	test "$(cat "$tmp/run.stats" | tr '\n' ' ')" = \
		'cputestfs.placement=same.stat_per_s: 10 cputestfs.skip: 1 rejected_rows: 0 '
rm -rf "$tmp/rr"; mkdir "$tmp/rr"
run_fake plan=quick placement=same FAKE_RC=4 >"$tmp/run.out" 2>/dev/null
rc=$?
check "run (plan, harness exit 4): exit 0, a skip note" \
	test "$rc" = 0 -a -n "$(grep -x '#skip run' "$tmp/run.out")"
check "run (plan): the job's placement replaces the plan's axis values" \
	test "$(grep -c '^axis placement same$' "$tmp/rr/affbench-run/plan.seen")" -ge 1 -a \
	-z "$(grep '^axis placement .* ' "$tmp/rr/affbench-run/plan.seen")"
run_fake plan=quick FAKE_RC=1 >/dev/null 2>&1
rc=$?
check "run: a failed harness fails the job (exit $rc, want 1)" [ "$rc" = 1 ]
expect_rc "run: a plan that is not there is refused" 2 \
	env -i PATH="$PATH" AFFBENCH_ROOT="$tmp/root" TMP_RESULT_ROOT="$tmp/rr" plan=nosuch "$RUN"
rm -rf "$tmp/rr"; mkdir "$tmp/rr"
expect_rc "run: a parameter with a shell character is refused" 2 \
	env -i PATH="$PATH" AFFBENCH_ROOT="$tmp/root" TMP_RESULT_ROOT="$tmp/rr" bench=cputestfs \
		'placement=same;touch x' "$RUN"
check "run: nothing was started for it" [ ! -e "$tmp/rr/affbench-run" ]
expect_rc "run: no harness is a failure that says where it looked" 1 \
	env -i PATH="$PATH" AFFBENCH_ROOT="$tmp/none" BENCHMARK_ROOT="$tmp/none" \
		TMP_RESULT_ROOT="$tmp/rr" bench=cputestfs "$RUN"

# make check-lkp without a checkout: one line saying why, exit 0 (a visible
# skip, not a failure); a LKP_SRC that is no checkout: one line, exit 2.
out=$(env -u LKP_SRC make -s --no-print-directory -C "$TOP" check-lkp LKP_SRC= 2>&1); rc=$?
check "make check-lkp without LKP_SRC: exit 0, one line ($out)" \
	test "$rc" = 0 -a "$(printf '%s\n' "$out" | grep -c .)" = 1 \
		-a -n "$(echo "$out" | grep 'LKP_SRC is not set')"
expect_rc "check-lkp with LKP_SRC that is no lkp-tests checkout" \
	2 env LKP_SRC="$tmp/none" tests/lkp/check-lkp.sh
expect_rc "install.sh into a directory that is no lkp-tests checkout" \
	2 contrib/lkp/install.sh "$tmp"

# Issue 24, finding 18: a line is read with a bounded length. 300 MB of NUL
# bytes with no newline (the old script read the line whole: 2.1 GB of it
# ended in a Ruby backtrace) is one bad row, with no backtrace, in little
# memory; invalid UTF-8 and NUL in a too-long line, then a good row after it.
if [ -x /usr/bin/time ]; then
	head -c 300000000 /dev/zero |
		/usr/bin/time -f '%M' -o "$tmp/rss" timeout 120 "$PARSE" >"$tmp/zero.stats" 2>"$tmp/zero.err"
	rc=$?
	rss=$(tail -n1 "$tmp/rss")
	check "300 MB of NUL with no newline: exit 0, one rejected row (exit $rc)" \
		test "$rc" = 0 -a "$(cat "$tmp/zero.stats")" = 'rejected_rows: 1'
	check "300 MB of NUL with no newline: max RSS $rss KB < 200 MB" [ "${rss:-999999999}" -lt 204800 ]
	check "300 MB of NUL with no newline: one line on stderr naming line 1, no backtrace" \
		test "$(cat "$tmp/zero.err")" = \
			'parse: stdin:1: skipped a bad row: a line over the 1024-byte limit'
else
	skip "parse of 300 MB with no newline" "no /usr/bin/time to measure its memory"
fi
{ echo 'bench,config,rep,metric,value,unit'
  head -c 5000 /dev/zero | tr '\0' '\377'; printf '\0\376\n'
  echo 'cputestfs,clients=1,1,stat_per_s,7,1/s'
  printf 'cputestfs,clients=\377,1,stat_per_s,7,1/s\n'; } >"$tmp/bytes.csv"
"$PARSE" "$tmp/bytes.csv" <"$tmp/bytes.csv" >"$tmp/bytes.stats" 2>"$tmp/bytes.err"
rc=$?
check "a 5000-byte line of invalid UTF-8 and NUL: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "a 5000-byte line of invalid UTF-8 and NUL: rejected, the next row read" \
	test "$(tr '\n' ' ' <"$tmp/bytes.stats")" = 'cputestfs.clients=1.stat_per_s: 7 rejected_rows: 2 '
check "bad rows are named by their line (2 and 4), no backtrace" \
	test "$(cut -d: -f3 "$tmp/bytes.err" | tr '\n' ' ')" = '2 4 ' -a "$(grep -c . "$tmp/bytes.err")" \
		= 2

# Finding 19: "#key" notes repeated 200,000 times are one set of keys. The
# old script kept every copy and scanned them all for every key: these
# 20,000 rows took it minutes, against about a second. timeout is a hang
# guard only (60 s scaled to the machine); the checks are on the stats.
awk 'BEGIN { print "bench,config,rep,metric,value,unit"
	     for (i = 0; i < 200000; i++) print (i % 2 ? "#key cputestfs clients" : \
	       "#key cputestfs daemon")
	     for (i = 0; i < 20000; i++) printf \
	       "cputestfs,clients=%d;daemon=single;placement=same,1,stat_per_s,%d,1/s\n", i, 100 + i }' \
	>"$tmp/notes.csv"
timeout "$(scaled 60)" "$PARSE" <"$tmp/notes.csv" >"$tmp/notes.stats" 2>"$tmp/notes.err"
rc=$?
check "200,000 repeated #key notes: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "200,000 repeated #key notes: 20,000 stats and no rejected row" \
	test "$(grep -c '^cputestfs\.' "$tmp/notes.stats")" = 20000 -a "$(rejected "$tmp/notes.stats")" = 0
check "200,000 repeated #key notes: the keys name the noted axes, not placement" \
	grep -qx 'cputestfs.clients=19999.daemon=single.stat_per_s: 20099' "$tmp/notes.stats"
check "200,000 repeated #key notes: every line is LKP's key: value" stats_grammar "$tmp/notes.stats"
check "200,000 repeated #key notes: keys unique, none names placement" \
	test -z "$(grep placement "$tmp/notes.stats")" -a -n "$(keys_unique "$tmp/notes.stats" && echo y)"

# Finding 12: a row means what it means to the harness's reader. A metric's
# second unit (in another config too) is a bad row naming the first unit's
# line; past 20 grammar errors it is still named. Rep 0 (a benchmark's
# per-invocation summary) may repeat.
{ echo 'bench,config,rep,metric,value,unit'
  for i in $(seq 1 25); do echo "cputestfs,clients=1,1,stat_per_s,0x$i,1/s"; done
  echo 'fdget,op=read,1,ns_per_op,10,ns'    # line 27
  echo 'fdget,op=read,2,ns_per_op,20,ns'
  echo 'fdget,op=read,0,loop_ns,3,ns'
  echo 'fdget,op=read,0,loop_ns,5,ns'
  echo 'fdget,op=read,3,ns_per_op,30,us'    # line 31: another unit
  echo 'fdget,op=pread,1,ns_per_op,5,us'; } >"$tmp/units.csv"   # line 32: and another config
"$PARSE" <"$tmp/units.csv" >"$tmp/units.stats" 2>"$tmp/units.err"
check "a second unit is a bad row, the median stays (15), rep 0 may repeat (4)" \
	test "$(tr '\n' ' ' <"$tmp/units.stats")" = \
		'fdget.op=read.loop_ns: 4 fdget.op=read.ns_per_op: 15 rejected_rows: 27 '
check "a second unit is named with its line and the first's" grep -qx \
	"parse: stdin:31: skipped a bad row: ns_per_op of fdget in us, but line 27 has it in ns: one $(
		)unit per metric" "$tmp/units.err"
check "a second unit in another config too" \
	grep -q "^parse: stdin:32: .* ns_per_op of fdget in us, but line 27 " "$tmp/units.err"
check "20 grammar errors named, then the count" \
	test "$(grep -c 'not a finite decimal' "$tmp/units.err")" = 20 -a "$(tail -n1 "$tmp/units.err")" \
		= 'parse: stdin: 27 bad rows skipped in all'
# A second row for the same (bench, config, rep, metric) refuses the whole
# input, as the harness refuses such a raw.csv: a repetition written twice
# cannot be told from two. One line names both lines; no stats; exit 2.
{ echo 'bench,config,rep,metric,value,unit'
  echo 'fdget,op=read,1,ns_per_op,10,ns'    # line 2
  echo 'fdget,op=read,2,ns_per_op,20,ns'
  echo 'fdget,op=read,0,loop_ns,3,ns'
  echo 'fdget,op=read,0,loop_ns,5,ns'
  echo 'fdget,op=read,1,ns_per_op,10,ns'; } >"$tmp/dup.csv"   # line 6: rep 1 again
expect_rc "a row written twice refuses the input" 2 "$PARSE" "$tmp/dup.csv"
"$PARSE" <"$tmp/dup.csv" >"$tmp/dup.stats" 2>"$tmp/dup.err"
check "the refusal names both lines" \
	grep -qx "parse: stdin:6: ns_per_op rep 1 of fdget again, config 'op=read' (line 2 has it): a $(
	)repetition written twice is not two; input refused (docs/records.md)" "$tmp/dup.err"
check "no stats from a refused input" [ ! -s "$tmp/dup.stats" ]
head -n 5 "$tmp/dup.csv" >"$tmp/rep0.csv"
check "rep 0 twice is not a repetition twice" \
	eval '"$PARSE" "$tmp/rep0.csv" <"$tmp/rep0.csv" >/dev/null 2>&1'
# A line as the harness reads it: the row ends at the first "\r" (text after
# it is not read), and a NUL byte anywhere, even after it, makes a bad row.
printf 'bench,config,rep,metric,value,unit\nb,k=1,1,m,5,ns\rjunk\n\r\0\nb,k=1,2,m,7,ns\r\n' \
	>"$tmp/cr.csv"
"$PARSE" <"$tmp/cr.csv" >"$tmp/cr.stats" 2>"$tmp/cr.err"
check "a row ends at its first CR; a NUL after a CR is a bad row" \
	test "$(tr '\n' ' ' <"$tmp/cr.stats")" = 'b.k=1.m: 6 rejected_rows: 1 ' \
		-a "$(cut -d: -f3 "$tmp/cr.err")" = 3
# Config keys are sorted and each given once (one spelling per config), as
# the harness requires; parse used to sort them itself.
printf 'bench,config,rep,metric,value,unit\nfdget,op=read;mode=single,1,ns_per_op,10,ns\n' |
	"$PARSE" >"$tmp/unsorted.stats" 2>/dev/null
check "a config with unsorted keys is a bad row" \
	test "$(cat "$tmp/unsorted.stats")" = 'rejected_rows: 1'

# Finding 13: numbers are the harness's decimal form (ab_parse_decimal,
# lib/sys/parse.c): '.5', '+7' and '1e5' are numbers, '5.' is not, one too small
# for a double reads as 0 or a subnormal; hex, hex floats, blanks, inf, nan,
# '_' and overflow are not. One config per number: the stats say which were
# taken, and as what.
good_nums=(5.0 .5 +7 -7 1e5 1E+05 007 -0 0e-400 1e-400 4.9e-324 2.2250738585072012e-308
	1.7976931348623158e308)
bad_nums=(5. 5.e3 0x10 0X1P-2 0x1p-2 ' 7' '7 ' inf -inf nan NaN 1_0 . + e5 .e5 1e 1e+ 1e999
	1.797693134862315808e308 1234567890123456789012345678901234567890.5)
{ echo 'bench,config,rep,metric,value,unit'
  i=0; for v in "${good_nums[@]}" \
  	"${bad_nums[@]}"; do i=$((i + 1)); echo "fdget,n=$i,1,ns_per_op,$v,ns"; done; } \
	>"$tmp/nums.csv"
"$PARSE" <"$tmp/nums.csv" >"$tmp/nums.stats" 2>/dev/null
taken() { sed -n 's/^fdget\.n=\([0-9]*\)\..*/\1/p' "$tmp/nums.stats" | sort -n | tr '\n' ' '; }
check "the documented decimal forms are taken as numbers (${#good_nums[@]}), nothing else" \
	test "$(taken)" = "$(seq -s ' ' 1 "${#good_nums[@]}") "
check "'5.0' is 5, '.5' is 0.5, '+7' is 7, 1e5 is 100000" \
	test "$(sed -n 's/^fdget\.n=\([1-5]\)\.ns_per_op: //p' \
	"$tmp/nums.stats" | LC_ALL=C sort -g | tr '\n' ' ')" = '-7 0.5 5 7 100000 '
check "hex, hex floats, blanks, inf, nan, '_' and overflow are rejected" \
	test "$(rejected "$tmp/nums.stats")" = "${#bad_nums[@]}"
# Near the largest double: the median of two does not overflow (the old
# script's sum did: a Ruby backtrace), and the value printed reads back finite.
printf 'bench,config,rep,metric,value,unit\n%s\n%s\n%s\n' \
	b,k=1,1,m,1.7e308,ns b,k=1,2,m,1.7e308,ns b,k=2,1,m,1.7976931348623157e308,ns |
	"$PARSE" >"$tmp/huge.stats" 2>"$tmp/huge.err"
rc=$?
check "the median of 1.7e308 and 1.7e308, DBL_MAX: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "the median of 1.7e308 and 1.7e308 is 1.7e308, DBL_MAX reads back finite" \
	test "$(tr '\n' ' ' <"$tmp/huge.stats")" = \
		'b.k=1.m: 1.7e+308 b.k=2.m: 1.7976931348623157e+308 rejected_rows: 0 '
RUBYOPT=-w "$PARSE" <"$tmp/nums.csv" 2>&1 >/dev/null |
	grep -v -e ': skipped a bad row: ' -e ' bad rows skipped in all$' >"$tmp/nums.warn"
check "under ruby -w, only the bad rows are said (no Float warnings)" [ ! -s "$tmp/nums.warn" ]

# The same numbers through the harness's reader (harness export): both
# readers take the same rows, as the same values. Needs the harness's
# decimal-only reader of issue 24 (lib/record/results.c).
agree() {
	[ -s "$1" ] || { echo "harness export wrote no results.json"; return 1; }
	python3 - "$1" "$2" <<'PY'
import json, re, sys
h = {p["config"]["n"]: p["metrics"]["ns_per_op"]["median"]
     for p in json.load(open(sys.argv[1]))["points"]}
l = {}
for line in open(sys.argv[2]):
    m = re.match(r"fdget\.n=(\d+)\.ns_per_op: (\S+)$", line)
    if m:
        l[m.group(1)] = float(m.group(2))
bad = sorted(set(h) ^ set(l), key=int)
bad += [n for n in h if n in l and abs(h[n] - l[n]) > 1e-9 * abs(h[n])]
print(" ".join("%s (harness %s, parse %s)" % (n, h.get(n, "-"), l.get(n, "-")) for n in bad))
sys.exit(1 if bad else 0)
PY
}
if [ -x "$BIN/harness" ]; then
	mkdir "$tmp/nums" && cp "$tmp/nums.csv" "$tmp/nums/raw.csv"
	"$BIN/harness" export "$tmp/nums" >/dev/null 2>&1
	diffs=$(agree "$tmp/nums/results.json" "$tmp/nums.stats" 2>&1)
	check "parse and harness export take the same numbers as the same $(
		)values${diffs:+ (differ: $diffs)}" \
		[ -z "$diffs" ]
else
	skip "parse against the harness's numbers" "no $BIN/harness (make all)"
fi

# The hostile corpus.
bash tests/lkp/hostile.sh >"$tmp/hostile.csv"
want=$(sed -n '1s/^#expect-rejected //p' "$tmp/hostile.csv")
if "$PARSE" <"$tmp/hostile.csv" >"$tmp/hostile.stats" 2>"$tmp/err"; then
	ok "parse the hostile corpus (exit 0)"
else
	nok "parse the hostile corpus: $(cat "$tmp/err")"
fi
check "hostile: every line is LKP's key: value" stats_grammar "$tmp/hostile.stats"
check "hostile: keys are unique" keys_unique "$tmp/hostile.stats"
no_evil() { ! grep -aqi evil "$1"; }
check "hostile: no hostile row emitted" no_evil "$tmp/hostile.stats"
got=$(rejected "$tmp/hostile.stats")
check "hostile: rejected_rows counts the $want hostile rows (got $got)" [ "$got" = "$want" ]
check "hostile: a changed unit leaves the median (150)" \
	grep -qx 'cputestfs.clients=1.placement=same.stat_per_s: 150' "$tmp/hostile.stats"
check "hostile: a quoted config with a comma and a CRLF row are read (13)" \
	grep -qx 'ddpar.cpus=0-1~4.procs=4.write_MB_per_s: 13' "$tmp/hostile.stats"
check "hostile: the run script's skip note is counted" \
	grep -qx 'sqrtio.skip: 1' "$tmp/hostile.stats"
check "hostile: 4 lines out, nothing else" [ "$(wc -l <"$tmp/hostile.stats")" = 4 ]

# The fuzz corpus: seeded mutations of the reference rows (tests/tools/mutate:
# truncation, byte flips, quotes, huge fields, NUL, duplicated and deleted
# lines). Each parses with exit 0 into unique, grammatical keys, or, where a
# duplicated line repeats a repetition, is refused: exit 2, no stats, the
# refusal the last line on stderr.
MUT=$TOP/${AFFBENCH_BUILD:-build}/tests/tools/mutate
[ -x "$MUT" ] || make -s -C "$TOP" "${AFFBENCH_BUILD:-build}/tests/tools/mutate" >/dev/null 2>&1
if [ -x "$MUT" ]; then
	REF=results/reference/raw.csv
	{ head -n1 "$REF"; for b in cputestfs ddpar sqrtio fdget; do grep "^$b," "$REF" |
		head -n 40; done; } >"$tmp/base.csv"
	bad="" refused=0
	for seed in $(seq 1 100); do
		"$MUT" "$seed" "$tmp/base.csv" "$tmp/m.csv" || { bad="$bad $seed(mutate)"; continue; }
		"$PARSE" <"$tmp/m.csv" >"$tmp/m.stats" 2>"$tmp/m.err"
		case $? in
		0) stats_grammar "$tmp/m.stats" && keys_unique "$tmp/m.stats" &&
			grep -q '^rejected_rows: [0-9]*$' "$tmp/m.stats" || bad="$bad $seed" ;;
		2) [ ! -s "$tmp/m.stats" ] && tail -n1 "$tmp/m.err" | grep -q ' again, .*input refused' ||
			bad="$bad $seed"
		   refused=$((refused + 1)) ;;
		*) bad="$bad $seed" ;;
		esac
	done
	check "100 mutated raw.csv files: grammatical unique keys, or (a line written twice: $refused) $(
		)refused with exit 2${bad:+ (bad seeds:$bad)}" \
		[ -z "$bad" ]
else
	skip "the fuzz corpus" "no $MUT (make ${AFFBENCH_BUILD:-build}/tests/tools/mutate)"
fi
t_done
