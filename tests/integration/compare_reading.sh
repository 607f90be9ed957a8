#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness compare reads the ratios people trust first (issue 35): Holm's family is the
# headline metrics' ratios only, the monitor counters and other metrics are described
# apart without verdicts; the terminal's rows show the keys that tell them apart (no cut
# config); stderr never lands inside the table.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/compare_reading.XXXXXX")
trap 'rm -rf "$D"' EXIT
REF=$TOP/results/reference

mkdir "$D/drop" && cp "$REF/machine.txt" "$D/drop/"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == "cputestfs" && $(NF-2) == "stat_per_s" {
	$(NF-1) = sprintf("%.6f", $(NF-1) * 0.87) } { print }' "$REF/raw.csv" > "$D/drop/raw.csv"
"$H" compare --out "$D/o" "$REF" "$D/drop" > "$D/out" 2> "$D/err"; rc=$?
check "compare of the reference and a doctored copy (exit $rc)" [ "$rc" = 0 ]
# compare.csv: bench,config,metric,unit,base,run,base_median,median,ratio,ci_lo,ci_hi,p,p_holm,...
check "Holm's family: only headline metrics have a p (Holm), no monitor counter" awk -F, '
	NR > 1 && $13 != "" { n++; if ($3 ~ /^mon_/) bad++ }
	NR > 1 && $3 ~ /^mon_/ { mon++ }
	END { exit !(n > 0 && mon > n && !bad) }' "$D/o/compare.csv"
check "... and compare.md counts that family, not every ratio" eval '
	n=$(awk -F, "NR > 1 && \$13 != \"\"" "$D/o/compare.csv" | wc -l)
	grep -q "^$n comparisons made" "$D/o/compare.md"'
check "no monitor counter or other metric is called significant" awk -F, '
	NR > 1 && $13 == "" && $14 == "1" { bad++ } END { exit bad > 0 }' "$D/o/compare.csv"
check "the 13% drop of stat_per_s is still found significant" awk -F, '
	NR > 1 && $3 == "stat_per_s" && $14 == "1" { n++ } END { exit !(n > 0) }' "$D/o/compare.csv"
check "compare.md describes the monitor counters apart" \
	grep -q "^## What the CPUs did: the monitor counters" "$D/o/compare.md"
check "the terminal shows no monitor counter row" eval '! grep -q " mon_" "$D/out"'

# the terminal rows: the as-found and idle=poll configs of cputestfs differ past 23
# characters; each row must read apart from every other (no cut with '~')
"$H" compare --out "$D/o2" "$REF" "$REF" > "$D/out2" 2>/dev/null
check "no config or metric cut on the terminal" eval '! grep -q "~ " "$D/out2"'
check "no two terminal rows read the same" eval '
	[ -z "$(awk "/^bench  /{t=1;next} t && substr(\$0, 11, 1) != \"\\\"\" && NF >= 6" "$D/out2" |
		cut -c1-58 | sort | uniq -d)" ]'

# stderr after the table, never inside it: every line after the first message is one
"$H" compare --out "$D/o3" "$REF" "$TOP/results/emulated/A" > "$D/both" 2>&1
check "stderr never interleaves with the table (2>&1)" awk '
	/^harness: / { m = 1; next } m { bad++ } END { exit !(m && !bad) }' "$D/both"
# the first table: the ratios each descriptor names, A's and the run's side by side; the
# other placement of libfuse at a quarter in a copy quarters other/same, a change judged
mkdir "$D/half" && cp "$REF/machine.txt" "$D/half/"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == "cputestfs" && $(NF-2) == "stat_per_s" &&
	$2 ~ /(^|;)placement=other(;|$)/ && $2 ~ /daemon=single/ && $2 ~ /transport=libfuse/ &&
	$2 !~ /idle=/ { $(NF-1) = sprintf("%.6f", $(NF-1) * 0.25) } { print }' \
	"$REF/raw.csv" > "$D/half/raw.csv"
"$H" compare --out "$D/o4" "$REF" "$D/half" > "$D/out4" 2>/dev/null
row=$(grep "^| cputestfs | other/same (libfuse) | B |" "$D/o4/compare.md")
check "compare.md's first table: other/same in A and B, the change near 0.25x, significant" eval '
	[ "$(grep -m1 "^## " "$D/o4/compare.md" | tail -1)" = "## The runs" ] &&
	[ "$(grep "^## " "$D/o4/compare.md" | sed -n 2p)" = "## The ratios people trust" ] &&
	within "$(echo "$row" | awk -F" [|] " "{ print \$6 }" | grep -oE "^[0-9.]+")" 0.22 0.28 &&
	echo "$row" | grep -q "| lower \* |\$"'
check "... the untouched ratio none/same unchanged (no verdict of a change)" \
	grep -q "^| cputestfs | none/same (libfuse) | B | .* | no change shown |$" "$D/o4/compare.md"
check "... every benchmark with named ratios in the table (cputestfs, ddpar, sqrtio, fdget)" eval '
	for b in cputestfs ddpar sqrtio fdget; do
		sed -n "/^## The ratios people trust/,/^## The machines/p" "$D/o4/compare.md" |
			grep -q "^| $b | " || exit 1
	done'
# within-run ratios paired by round: in A other/same is 0.125 in every round (within 2.5%),
# in B 0.15, while B's rounds scale both points by 0.47 to 2.5: the change 1.2x is found
# (each run's per-round ratios resampled), where the four groups resampled apart see
# only B's rounds
CFG='baseline=fuse;client_cpu=1;clients=1;daemon=single'
SAME="$CFG;daemon_cpu=1;placement=same;transport=libfuse"
OTHER="$CFG;daemon_cpu=0;placement=other;transport=libfuse"
paired_copy() {	# DIR RATIO SPREAD: other = same x RATIO, both x the round's factor
	mkdir "$1" && cp "$REF/machine.txt" "$1/"
	awk -F, -v s="$SAME" -v o="$OTHER" -v q="$2" -v sp="$3" 'BEGIN { OFS = "," }
		FNR == 1 { pass++ }
		pass == 1 && $1 == "cputestfs" && $(NF-2) == "stat_per_s" && $2 == s {
			v[$3] = $(NF-1) }
		pass == 1 { next }
		$1 == "cputestfs" && $(NF-2) == "stat_per_s" && ($2 == s || $2 == o) && $3 in v {
			f = sp ? (($3 % 2) ? 1 / (0.4 + 0.35 * $3) : 0.4 + 0.35 * $3) : 1
			w = 1 + 0.01 * ($3 - 3.5)
			$(NF-1) = sprintf("%.6f", v[$3] * f * ($2 == o ? q * w : 1)) } { print }' \
		"$REF/raw.csv" "$REF/raw.csv" > "$1/raw.csv"
}
paired_copy "$D/pa" 0.125 0
paired_copy "$D/pb" 0.15 1
"$H" compare --out "$D/o5" "$D/pa" "$D/pb" > /dev/null 2>&1
row=$(grep "^| cputestfs | other/same (libfuse) | B |" "$D/o5/compare.md")
check "a change of a within-run ratio hidden by B's rounds is found: 1.2x, higher *" eval '
	within "$(echo "$row" | awk -F" [|] " "{ print \$6 }" | grep -oE "^[0-9.]+")" 1.19 1.21 &&
	echo "$row" | grep -q "| higher \* |\$"'
check "the terminal leads with that table, before the configs' legends" awk '
	/^The ratios people trust/ { t = NR } /^cputestfs other\/same \(libfuse\), run B/ { r = NR }
	/^cputestfs configs:/ { l = NR } END { exit !(t && r > t && l > r) }' "$D/out4"
# do the runs agree? (issue 36) From a run against itself every median lies in the
# other's interval, where the widths lead one to expect 83% (P(|Z| < 1.96 / sqrt 2));
# with cputestfs's stat_per_s at 0.87 in a copy, cputestfs moved by -13% as a whole, and
# with that move divided out every median lies in the other's interval again
# agree_nums DIR: "N IN_B IN_A EXP_B EXP_A MOVED_B MOVED_A" from compare.md's paragraph
agree_nums() {
	sed -nE 's/^Do B and A agree\? Of the ([0-9]+) headline .* CI, ([0-9]+) of A.s medians lie '\
'in B.s CI and ([0-9]+) of B.s in A.s, where about ([0-9.]+) and ([0-9.]+) would .* divided '\
'out, ([0-9]+) and ([0-9]+)\. .*/\1 \2 \3 \4 \5 \6 \7/p' "$1/compare.md"
}
agree_move() {	# DIR BENCH: BENCH's move as compare.md says it, in percent
	grep "^Do B and A agree? " "$1/compare.md" | grep -oE " $2 [-+][0-9.]+%" | tr -d ' %+' |
		sed "s/^$2//"
}
read -r n ib ia eb ea mb ma <<<"$(agree_nums "$D/o2")"
check "a run against itself: every one of its $n medians in the other's CI ($ib)" \
	[ "${ib:-x}" = "$n" ]
check "... both ways ($ia)" [ "${ia:-x}" = "$n" ]
check "... where its widths lead one to expect 83% of them ($eb of $n)" \
	within "$(awk -v e="$eb" -v n="$n" 'BEGIN { if (n > 0) print e / n }')" 0.83 0.84
check "... and no benchmark moved (cputestfs $(agree_move "$D/o2" cputestfs)%)" \
	within "$(agree_move "$D/o2" cputestfs)" -0.05 0.05
read -r n ib ia eb ea mb ma <<<"$(agree_nums "$D/o")"
check "cputestfs at 0.87 in B: its move as a whole said as -13% ($(agree_move "$D/o" cputestfs))" \
	within "$(agree_move "$D/o" cputestfs)" -13.05 -12.95
check "... ddpar's as none ($(agree_move "$D/o" ddpar))" \
	within "$(agree_move "$D/o" ddpar)" -0.05 0.05
check "... fewer of A's medians in B's CI ($ib of $n)" [ "${ib:-0}" -lt "${n:-0}" ]
check "... all of them with the move divided out ($mb)" [ "${mb:-x}" = "$n" ]
check "... both ways ($ma)" [ "${ma:-x}" = "$n" ]
check "... and the terminal says so too" \
	grep -qxF "  $n and $n with each benchmark's move divided out (compare.md)" "$D/out"
# B's cputestfs intervals about +-30% (its stat_per_s spread by the repetition's parity),
# A's a few %: A's medians are likelier in B's intervals than B's in A's, as expected
mkdir "$D/wide" && cp "$REF/machine.txt" "$D/wide/"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == "cputestfs" && $(NF-2) == "stat_per_s" {
	$(NF-1) = sprintf("%.6f", $(NF-1) * ($(NF-3) % 2 ? 1.3 : 0.7)) } { print }' \
	"$REF/raw.csv" > "$D/wide/raw.csv"
"$H" compare --out "$D/o7" "$REF" "$D/wide" > /dev/null 2>&1
read -r n ib ia eb ea mb ma <<<"$(agree_nums "$D/o7")"
check "B's intervals the wider: more of A's medians expected in B's than B's in A's ($eb, $ea)" \
	awk -v b="$eb" -v a="$ea" 'BEGIN { exit !(b > a + 1) }'
"$H" compare --out "$D/o6" "$REF" "$REF" "$D/drop" > /dev/null 2>&1
check "three runs: C's paragraph says its own move, cputestfs -13%" \
	grep -qE "^Do C and A agree\? .* cputestfs -13\.0%, " "$D/o6/compare.md"
t_done
