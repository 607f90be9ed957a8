#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One format per quantity (issue 26): a measured number reads the same in the
# benchmark's own ASCII table (tables.md shows what it prints on stdout), in
# the grids and in report.md, through ab_r_num (3 significant figures, plain
# notation). Crafted records: cputestfs's share of stat() calls served on the
# caller's CPU at 0.005349% (once printed 0.01, 0.00535 and 0.0%), fdget's ns
# per op at 1234.567 (once 1234.57 and 1235), and a same/none ratio above
# 1000, which %.3g printed as 1.76e+03x. No human file of the run, nor
# compare's terminal table and compare.md against a second run, prints
# e-notation. (~2 s)
. "$(dirname "$0")/lib.sh"

[ -x "$BIN/harness" ] || { skip "number formats" "bin/harness not built (run make)"; t_done; }
W=$(mktemp -d "$AFFBENCH_WORKDIR/numfmt.XXXXXX")

awk 'BEGIN { print "bench,config,rep,metric,value,unit"
	base = "baseline=fuse;client_cpu=any;clients=1;daemon=single;daemon_cpu=any"
	for (rep = 1; rep <= 6; rep++) {
		c = base ";placement=none;transport=libfuse"
		printf "cputestfs,%s,%d,stat_per_s,50,1/s\n", c, rep
		printf "cputestfs,%s,%d,same_cpu_pct,0.005349,%%\n", c, rep
		printf "cputestfs,%s,%d,other_cpu_pct,99.994651,%%\n", c, rep
		c = base ";placement=same;transport=libfuse"
		printf "cputestfs,%s,%d,stat_per_s,88000,1/s\n", c, rep
		printf "cputestfs,%s,%d,same_cpu_pct,100,%%\n", c, rep
		printf "cputestfs,%s,%d,other_cpu_pct,0,%%\n", c, rep
		for (m = 0; m < 2; m++)
			printf "fdget,mode=%s;op=fstat;threads=1,%d,ns_per_op,%s,ns\n",
				m ? "idle-thread" : "single", rep, m ? "1300.5" : "1234.567"
	} }' >"$W/raw.csv"
"$BIN/harness" report "$W" >"$W/plot.out" 2>&1
rc=$?
check "harness report of the crafted records exits 0 (rc $rc)" [ "$rc" = 0 ]

T=$W/tables.md R=$W/report.md
check "the ASCII post table prints the share as 0.00535" \
	grep -qE '^same  cpu \(%\) +0\.00535$' "$T"
check "the share grid prints it as 0.00535" \
	grep -qE '^\| none \| 0\.00535 \|' "$T"
check "report.md's table beside the post prints it as 0.00535" \
	grep -qE "^\| % served on the caller's CPU, without \| [^|]+ \| [^|]+ \| 0.00535 \|$" "$R"
check "the share is never printed as 0.01, 0.0% or 0.005349" \
	bash -c "! grep -qE '^same  cpu \(%\) +0\.01$|Unpinned, 0\.0%|0\.005349' '$T' '$R'"
check "the stat/s the post table prints is the grid's (88000)" \
	eval 'grep -qE "^stat calls/s +88000 +\(median of 6\)" "$T" && grep -qE "^\| same \| 88000 " "$T"'
check "fdget's ASCII table prints 1235 ns/op, as its grid" \
	eval 'grep -qE "^fstat +1235 +1300 " "$T" && grep -qE "^\| fstat \| .*1235" "$T"'
check "a ratio above 1000 is 1760x, in tables.md and report.md" \
	eval 'grep -qF "cpu affinity (daemon single): 1760x [" "$T" &&
	      grep -qE "^\| with / without \| [^|]+ \| [^|]+ \| 1760x \[" "$R"'
for f in report.md tables.md details.md; do
	e=$(grep -o '[0-9]e[-+][0-9]*' "$W/$f" | head -1)
	check "$f prints no e-notation${e:+ ($e)}" test -s "$W/$f" -a -z "$e"
done

# compare: the medians as the reports print them, on the terminal (once %.4g:
# 8.8e+04) and in compare.md (once %.6g)
mkdir -p "$W/b"
sed 's/,88000,/,96800,/' "$W/raw.csv" >"$W/b/raw.csv"
"$BIN/harness" compare --out "$W/cmp" "$W" "$W/b" >"$W/cmp.out" 2>&1
rc=$?
check "harness compare of the crafted runs exits 0 (rc $rc)" [ "$rc" = 0 ]
check "compare prints stat/s 88000 and 96800, a ratio of 1.1x, on the terminal and in compare.md" \
	eval 'grep -qE "stat_per_s +B +88000 +96800 1\.1x " "$W/cmp.out" &&
	      grep -qF "| stat_per_s | B | 88000 | 96800 | 1.1x " "$W/cmp/compare.md"'
for f in "$W/cmp.out" "$W/cmp/compare.md"; do
	e=$(grep -o '[0-9]e[-+][0-9]*' "$f" | head -1)
	check "$(basename "$f") prints no e-notation${e:+ ($e)}" test -s "$f" -a -z "$e"
done
t_done
