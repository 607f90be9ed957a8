#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness compare and its gate across CPU numbers (harness/compare/match.c): two configs of
# one run that differ only in CPU numbers stay two configs (3 repetitions each are too few
# to judge, never one group of 6); a config placed on other CPUs by another machine matches
# when each run holds one such; of several a side only the same CPUs compare; a gate
# filter on a CPU key holds the configs on that CPU.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/compare_cpus.XXXXXX")
trap 'rm -rf "$D"' EXIT

# run DIR SCALE CPU...: cputestfs placement=same on each CPU, repetitions 1-3 (REPS), its
# stat_per_s 100000 x SCALE (+ the repetition, so that no two values are equal)
run() {
	local dir=$1 scale=$2 cpu r; shift 2
	mkdir -p "$dir"
	{ echo 'bench,config,rep,metric,value,unit'
	  for cpu in "$@"; do for r in $(seq 1 "${REPS:-3}"); do
		v=$(awk -v s="$scale" -v r="$r" 'BEGIN { printf "%.1f", 100000 * s + r }')
		echo "cputestfs,client_cpu=$cpu;daemon=single;daemon_cpu=$cpu;placement=same,$r,stat_per_s,$v,1/s"
	  done; done; } > "$dir/raw.csv"
}
printf 'cputestfs stat_per_s max-drop 5%%\n' > "$D/rules"
printf 'cputestfs stat_per_s client_cpu=1 max-drop 5%%\n' > "$D/cpu1"

run "$D/a" 1 0 1
run "$D/b" 0.7 0 1
"$H" compare --out "$D/o-ab" --gate "$D/rules" "$D/a" "$D/b" > "$D/ab.out" 2> "$D/ab.err"; rc=$?
check "two configs on CPUs 0 and 1, 3 repetitions each: the gate cannot judge (exit $rc, want 0)" \
	eval '[ "$rc" = 0 ] &&
		grep -q "^gate: CANNOT JUDGE .*: 2 of 2 configs have too few repetitions" "$D/ab.out"'
check "... and compare.csv holds two rows, one per CPU" awk -F, '
	NR > 1 { n++; c0 += $2 ~ /client_cpu=0;/; c1 += $2 ~ /client_cpu=1;/ }
	END { exit !(n == 2 && c0 == 1 && c1 == 1) }' "$D/o-ab/compare.csv"
"$H" compare --out "$D/o-c1" --gate "$D/cpu1" "$D/a" "$D/b" > "$D/c1.out" 2> "$D/c1.err"; rc=$?
check "a gate filter client_cpu=1 holds the config on CPU 1 (exit $rc, want 0)" \
	eval '[ "$rc" = 0 ] && grep -q "^gate: CANNOT JUDGE .*cpu1:1 .*: 1 of 1 configs" "$D/c1.out"'

# another machine placed the one config on CPU 2: matched, and compare.md says so
REPS=6 run "$D/one0" 1 0
REPS=6 run "$D/one2" 0.7 2
"$H" compare --out "$D/o-12" --gate "$D/rules" "$D/one0" "$D/one2" > "$D/12.out" \
	2> "$D/12.err"; rc=$?
check "one config a side on other CPUs: matched, and the 30% drop violates (exit $rc, want 3)" \
	eval '[ "$rc" = 3 ] &&
		grep -q "^gate: VIOLATED .*: 1 config, Holm-corrected: 1 dropped" "$D/12.out"'
check "... its ratio in compare.csv near 0.7" \
	eval 'within "$(awk -F, "NR == 2 { print \$9 }" "$D/o-12/compare.csv")" 0.69 0.71'
check "... and compare.md says a ratio compares configs that differ in CPU numbers only" \
	grep -q "^1 ratios compare configs that differ in CPU numbers only" "$D/o-12/compare.md"

# two configs a side on other CPUs: which is "the same" is unknowable; nothing matched
REPS=6 run "$D/two01" 1 0 1
REPS=6 run "$D/two23" 1 2 3
"$H" compare --out "$D/o-2" "$D/two01" "$D/two23" > "$D/2.out" 2> "$D/2.err"
check "two configs a side on other CPUs: none compared, both only in A" \
	eval '[ "$(sed 1d "$D/o-2/compare.csv" | wc -l)" = 0 ] &&
	      grep -q "^Not compared: 2 results only in A" "$D/o-2/compare.md"'
# the same CPUs compare, a side's extra CPU stays unmatched
REPS=6 run "$D/two02" 1 0 2
"$H" compare --out "$D/o-3" "$D/two01" "$D/two02" > /dev/null 2>&1
check "of CPUs 0,1 against 0,2 only CPU 0 compares" awk -F, '
	NR > 1 { n++; ok = $2 ~ /client_cpu=0;/ } END { exit !(n == 1 && ok) }' "$D/o-3/compare.csv"
t_done
