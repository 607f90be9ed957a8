#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md's "Failed and skipped points" from a crafted failures.csv (no machine needed):
# a point skipped or failed the same way in every repetition is one row with its
# repetitions ("1-6"), never one row per repetition; points and reasons that differ keep
# rows of their own, in the order they were first written; repetitions that are not
# consecutive are listed; the levers table's "cannot act here" says the reason once,
# without the harness's "skipped: ", and a reason too long for its cell is cut at a word.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/failtab.$$
mkdir -p "$W/r"
trap 'rm -rf "$W"' EXIT
c="baseline=fuse;client_cpu=0;clients=1;daemon=single;"
c+="daemon_cpu=%s;%splacement=%s;transport=libfuse"
{
	echo "bench,config,rep,metric,value,unit"
	for rep in 1 2 3 4 5 6; do
		printf "cputestfs,$c,$rep,stat_per_s,%d,1/s\n" 0 "" same $((100000 + rep))
		printf "cputestfs,$c,$rep,stat_per_s,%d,1/s\n" 1 "" other $((10000 + rep))
	done
} >"$W/r/raw.csv"
long=$(seq -f 'word%g' 1 120 | tr '\n' ' ')	# 600 characters: past the levers cell's room
{
	echo "bench,config,rep,exit,reason"
	for rep in 1 2 3 4 5 6; do
		for p in same other; do
			printf "cputestfs,\"$c\",$rep,4,skipped: --idle poll: no cpuidle driver\n" 0 "idle=poll;" $p
		done
		case $rep in 1|4|6) echo "fdget,op=read,$rep,1,measurement failed: odd" ;; esac
		[ $rep != 3 ] || echo "fdget,op=read,$rep,1,measurement failed: other"
	done
	printf "ddpar,\"%s\",1,4,skipped: %s\n" "bs=131072;idle=poll;mode=read;procs=1;transport=libfuse" \
		"$long"
} >"$W/r/failures.csv"
# r2: the only skip's reason is too long for the levers cell
mkdir -p "$W/r2"
cp "$W/r/raw.csv" "$W/r2/"
{
	echo "bench,config,rep,exit,reason"
	printf "cputestfs,\"$c\",1,4,skipped: %s\n" 0 "idle=poll;" same "$long"
} >"$W/r2/failures.csv"
"$BIN/harness" report "$W/r2" >/dev/null 2>&1
"$BIN/harness" report "$W/r" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report exit 0 (got $rc: $(tail -n1 "$W/plot.err"))" [ "$rc" = 0 ]
R=$W/r/report.md
rows=$(sed -n '/^## Failed and skipped points/,/^A failed point/p' "$R" | grep '^| [a-z]' |
	grep -v '^| bench |')
n=$(printf '%s\n' "$rows" | grep -c .)
check "five rows: two skipped points, fdget's two reasons, ddpar's (got $n)" [ "$n" = 5 ]
same=$(printf '%s\n' "$rows" | grep 'placement=same')
check "a point skipped in reps 1 to 6 is one row with reps 1-6 ($same)" \
	eval '[[ $same == *" | 1-6 | 4 | "* ]]'
odd=$(printf '%s\n' "$rows" | grep 'odd')
check "reps 1, 4 and 6 (not consecutive) are listed as they are ($odd)" \
	eval '[[ $odd == *" | 1, 4, 6 | 1 | "* ]]'
check "another reason of the same point is a row of its own" \
	eval '[[ "$(printf "%s\n" "$rows" | grep " other |")" == *" | 3 | 1 | "* ]]'
first=$(printf '%s\n' "$rows" | head -n1)
check "rows keep the order of their first repetition: same first ($first)" \
	eval '[[ $first == *placement=same* ]]'
check "the column says reps" grep -q '^| bench | config | reps | exit | reason |$' "$R"
lever=$(grep '^| idle=poll |' "$R")
check "the levers row says the reason once, without 'skipped: ' ($lever)" \
	eval '[[ $lever == "| idle=poll | cannot act here: --idle poll: no cpuidle driver |"* ]]'
cut=$(grep '^| idle=poll |' "$W/r2/report.md")
kept=${cut#"| idle=poll | cannot act here: "}
kept=${kept%%" ... |"*}
check "a reason too long for the levers cell says it was cut (${cut: -40})" \
	eval '[[ $cut == *" ... | |"* ]]'
check "it is cut at a word: what it keeps begins the reason, whole words (${kept: -20})" \
	eval '[[ $long == "$kept "* ]]'
t_done
