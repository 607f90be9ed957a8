#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md's Precision section, its Rounds paragraph (harness/report/rounds.c), from
# crafted records: a repetition round in which every headline result ran slower is
# named, with its share and shift, and each benchmark's hint points to it; a
# time metric (lower is better) that rose counts as slower; a shift under 2% and a
# run with no round apart name no round. (~2 s)
. "$(dirname "$0")/lib.sh"

# rounds FILE: the Rounds paragraph of FILE's Precision section
rounds() { grep '^Rounds (' "$1"; }

W=$(mktemp -d "$AFFBENCH_WORKDIR/rounds.XXXXXX")

# craft DIR BENCH METRIC UNIT ROUND FACTOR [NOISE]: 12 configs x 6 repetitions of METRIC,
# each config's values its level times 1 + NOISE x {-3, -1, 0, 1, 2, 3}% (NOISE 1 unless
# given), rotated by config, so that every round holds each offset twice: no round apart
# by itself. Round ROUND's values are then multiplied by FACTOR (1: none).
craft() {
	mkdir -p "$1"
	awk -v b="$2" -v m="$3" -v u="$4" -v R="$5" -v F="$6" -v N="${7:-1}" 'BEGIN {
		print "bench,config,rep,metric,value,unit"
		split("-3 -1 0 1 2 3", off, " ")
		for (c = 1; c <= 12; c++) for (r = 1; r <= 6; r++) {
			v = 100 * c * (1 + N * off[(r + c) % 6 + 1] / 100)
			if (r == R) v *= F
			printf "%s,cfg=c%d,%d,%s,%.6f,%s\n", b, c, r, m, v, u
		}
	}' >"$1/raw.csv"
	"$BIN/harness" report "$1" >/dev/null 2>"$1.err"
}

craft "$W/slow" cputestfs stat_per_s 1/s 4 0.9
rc=$?
check "harness report of the crafted records exits 0 (exit $rc: $(head -c 200 "$W/slow.err"))" \
	[ "$rc" = 0 ]
R=$(rounds "$W/slow/report.md")
check "the Rounds paragraph counts 12 results over 6 rounds" eval \
	'printf "%s\n" "$R" | grep -qF "12 headline results over 6 rounds."'
check "round 4, 10% lower, is named as slower with all 12 results slower than their medians" eval \
	'printf "%s\n" "$R" | grep -qF "Round 4 ran slower: 12 of 12 headline results slower than"'
shift=$(printf '%s\n' "$R" | sed -nE "s/.*medians, by ($NUM)% at the median.*/\1/p")
check "round 4's shift at the median is about 10% (got '$shift')" within "$shift" 8 11
check "round 4's shift is given per benchmark (cputestfs), minus for slower" eval \
	'printf "%s\n" "$R" | grep -qE "\(by benchmark, minus is slower: cputestfs -[0-9.]+%\); sign"'
check "no other round is named" eval \
	'[ "$(printf "%s\n" "$R" | grep -o "Round [0-9]* ran" | wc -l)" = 1 ]'
check "the benchmark's hint points to the round apart" eval \
	'grep "^- \*\*cputestfs\*\*" "$W/slow/report.md" |
	 grep -qF "a quieter machine (1 round ran apart"'
check "the benchmark's hint gives the round's share (78%), and points to Rounds" eval \
	'grep "^- \*\*cputestfs\*\*" "$W/slow/report.md" |
	 grep -qF "the round held 78% of the variance between repetitions: see Rounds)"'

# The round's share of the variance: the craft is a Latin square on log values (every
# round holds each offset twice), so the round's mean is its factor's log exactly, and a
# result's residual variance that of the offsets' logs, 0.000467. Round 4 x 0.9: the
# round's variance 0.001850 less 0.000467 / 11, over 0.002317 in all: 78.0%, a CV of
# 4.8% (sqrt(0.002317), the logs' SD, read as a CV).
share_of() {	# share_of FILE BENCH: "SHARE CV RESULTS ROUNDS" from its Rounds paragraph
	local re="$2 ($NUM)% of a CV of ($NUM)% \\(([0-9]+) results, rounds 1-([0-9]+)\\)"
	rounds "$1" | sed -nE "s/.* $re.*/\\1 \\4 \\7 \\8/p"	# NUM holds 2 groups
}
read -r sh cv nres nr < <(share_of "$W/slow/report.md" cputestfs)
check "round 4 x 0.9: the round holds 78% of the variance between repetitions (got '$sh')" \
	within "${sh:-x}" 77.5 78.5
check "round 4 x 0.9: a CV of 4.8% between repetitions (got '$cv')" within "${cv:-x}" 4.75 4.85
check "round 4 x 0.9: over the 12 results (got '$nres')" [ "$nres" = 12 ]
check "round 4 x 0.9: over rounds 1-6 (got '$nr')" [ "$nr" = 6 ]

# again() DIR: DIR's report.md rewritten from its raw.csv, the old one gone first
again() { rm -f "$1/report.md"; "$BIN/harness" report "$1" >/dev/null 2>&1; }

# as --precision leaves them: a 7th repetition of every result but the first. Rounds 1-7
# of 11 results keep 77 values, rounds 1-6 of 12 keep 72: the share takes the 77.
cp -r "$W/slow" "$W/added"
awk -F, '$3 == 6 && $2 != "cfg=c1" { $3 = 7; print }' OFS=, "$W/slow/raw.csv" >>"$W/added/raw.csv"
again "$W/added"
read -r sh cv nres nr < <(share_of "$W/added/report.md" cputestfs)
check "a 7th round in 11 of 12 results: judged over rounds 1-7 ('$nr')" [ "$nr" = 7 ]
check "a 7th round in 11 of 12 results: judged over the 11 that have it ('$nres')" [ "$nres" = 11 ]

# a failure's gap: c1's round 3 moved to a 7th (still 6 values), so c1 has rounds 1-2
# without a gap; the other 11 keep 1-6
cp -r "$W/slow" "$W/gap"
awk -F, '$3 == 3 && $2 == "cfg=c1" { $3 = 7 } { print }' OFS=, "$W/slow/raw.csv" >"$W/gap/raw.csv"
again "$W/gap"
read -r sh cv nres nr < <(share_of "$W/gap/report.md" cputestfs)
check "a gap at round 3 of one result: the other 11 results judged ('$nres')" [ "$nres" = 11 ]
check "a gap at round 3 of one result: over rounds 1-6 ('$nr')" [ "$nr" = 6 ]

# 3 results, {-2, 0, 2}% rotated (each round holds each once), round 4 x 0.9: the
# residual's share of the round's variance is divided by J - 1 = 2: 77.9% (by J: 80.3%)
mkdir -p "$W/three"
awk 'BEGIN { print "bench,config,rep,metric,value,unit"; split("-2 0 2", off, " ")
	for (c = 1; c <= 3; c++) for (r = 1; r <= 6; r++)
		printf "cputestfs,cfg=c%d,%d,stat_per_s,%.9g,1/s\n", c, r,
			100 * c * (1 + off[(r + c) % 3 + 1] / 100) * (r == 4 ? 0.9 : 1) }' \
	>"$W/three/raw.csv"
again "$W/three"
read -r sh cv nres nr < <(share_of "$W/three/report.md" cputestfs)
check "3 results, round 4 x 0.9: the round holds 77.9% (got '$sh')" within "${sh:-x}" 77.4 78.4

craft "$W/time" fdget ns_per_op ns 2 1.1
R=$(rounds "$W/time/report.md")
check "a time metric 10% higher in round 2 makes round 2 slower" eval \
	'printf "%s\n" "$R" | grep -qF "Round 2 ran slower: 12 of 12 headline results slower than"'
check "the time metric that rose is minus in the round's shift by benchmark (fdget)" eval \
	'printf "%s\n" "$R" | grep -qE "minus is slower: fdget -[0-9.]+%\)"'

craft "$W/fast" sqrtio ios_K_per_s Kio/s 6 1.1
R=$(rounds "$W/fast/report.md")
check "a round 10% higher in a rate is named as faster" eval \
	'printf "%s\n" "$R" | grep -qF "Round 6 ran faster: 12 of 12 headline results faster than"'

# noise of +-0.3%: every result of round 3 lies below its median, but only by 1.5%
craft "$W/small" cputestfs stat_per_s 1/s 3 0.985 0.1
R=$(rounds "$W/small/report.md")
check "a round every result ran 1.5% slower in is not apart (under 2% at the median)" eval \
	'printf "%s\n" "$R" | grep -q "No round ran apart from the others"'

craft "$W/none" cputestfs stat_per_s 1/s 0 1
R=$(rounds "$W/none/report.md")
read -r sh cv nres nr < <(share_of "$W/none/report.md" cputestfs)
check "balanced rounds: the round holds none of the variance (got '$sh')" within "${sh:-x}" 0 0
check "balanced rounds: a CV of 2.2% between repetitions, the offsets' (got '$cv')" \
	within "${cv:-x}" 2.15 2.25
check "balanced rounds: no round ran apart" eval \
	'printf "%s\n" "$R" | grep -q "No round ran apart from the others"'
check "balanced rounds: no hint points to a round" eval \
	'! grep -q "see Rounds" "$W/none/report.md"'

rm -rf "$W" "$W".*.err
t_done
