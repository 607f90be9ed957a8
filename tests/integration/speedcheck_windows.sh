#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/speedcheck.sh windows without measuring anything: --help names it, too few
# pairs are refused, and its arithmetic on made-up pairs: the median of the paired
# ratios with the distribution-free 95% interval report.md gives (the whole range at
# 6 to 8 values, the 2nd to the next-to-last at 9, the 3rd to the 10th at 12, none below 6),
# and a row's seconds, gain in values a minute and CVs. (~2 s)
. "$(dirname "$0")/lib.sh"
SC=$TOP/scripts/speedcheck.sh

check "--help names windows among the sections" eval '"$SC" --help 2>&1 | grep -qF "|windows|"'

# fx CODE ARGS...: CODE sees ARGS as $1, $2, ...; windows.sh's functions loaded
fx() { speedcheck_fn windows "$@"; }

# the lengths each benchmark is run at, the measuring stubbed: the default plan's 0.1 s
# against 0.2 s, and sqrtio at its plan's 0.5 s against 1 s (5D and 10D)
lens=$(fx 'win_bench() { echo "$1 $WIN_D $WIN_2D"; }; prec_sqrtio() { "$PREC_RUN" sqrtio; }
	check_windows 2>/dev/null')
check "default lengths: cputestfs at 0.1 s against 0.2 s" grep -qx "cputestfs 0.1 0.2" <<<"$lens"
check "default lengths: sqrtio at 0.5 s against 1 s" grep -qx "sqrtio 0.5 1" <<<"$lens"
check "default lengths: fdget, after sqrtio, at 0.1 s again" grep -qx "fdget 0.1 0.2" <<<"$lens"

# ratios 1..N in a shuffled order: the interval's ends are ranks
ci() { seq "$1" | sort -R | fx win_ratio_ci; }
read -r med lo hi n < <(ci 12)
check "12 ratios: the median of the middle two ($med)" within "$med" 6.5 6.5
check "12 ratios: the interval starts at the 3rd ($lo)" within "$lo" 3 3
check "12 ratios: and ends at the 10th ($hi)" within "$hi" 10 10
read -r med lo hi n < <(ci 9)
check "9 ratios: the 2nd ($lo)" within "$lo" 2 2
check "9 ratios: to the 8th ($hi)" within "$hi" 8 8
read -r med lo hi n < <(ci 8)
check "8 ratios: still the whole range ($lo to $hi; the 2nd to the 7th holds 93%)" \
	eval '[ "$lo $hi" = "1.000 8.000" ]'
read -r med lo hi n < <(ci 6)
check "6 ratios: the whole range ($lo to $hi)" eval '[ "$lo $hi" = "1.000 6.000" ]'
check "5 ratios: no interval, the count kept" [ "$(ci 5)" = "- - - 5" ]

# six pairs: short windows 0.3 s and 100 or 110, long 0.6 s and 100; pair 6 short 90
d=$(mktemp -d "$AFFBENCH_WORKDIR/scwin.XXXXXX")
for i in 1 2 3 4 5 6; do
	v=$((i % 2 ? 100 : 110))
	[ "$i" = 6 ] && v=90
	printf '%d 0.25 %d 300\n%d 0.5 100 600\n' "$i" "$v" "$i"
done >"$d/rows"
row=$(fx 'win_row cputestfs "placement=same" stat_per_s 0.25 <"$1"' "$d/rows")
read -r -a f <<<"$row"
check "row: seconds at the short window ($row)" within "${f[3]}" 0.3 0.3
check "row: seconds at the long one" within "${f[4]}" 0.6 0.6
check "row: twice the values a minute" within "${f[5]%x}" 2 2
# short values 100 110 100 110 100 90: mean 101.67, SD 7.53: 7.4%
check "row: CV at the short window" within "${f[6]%\%}" 7.3 7.5
check "row: no spread at the long window" within "${f[7]%\%}" 0 0
check "row: the paired ratios' median (0.9 1 1 1 1.1 1.1)" within "${f[8]}" 1 1
check "row: its interval, the whole range at 6 pairs" \
	eval '[ "${f[9]} ${f[10]}" = "[0.900, 1.100]" ]'

err=$("$SC" windows --repeat 5 2>&1 >/dev/null); rc=$?
check "--repeat 5: refused, exit 2 ($rc)" [ "$rc" = 2 ]
check "... one line naming the value: $err" [ "$err" = \
	"speedcheck: bad value '5' for --repeat: windows needs 6 pairs or more (a median's 95% interval)" ]

rm -rf "$d"
t_done
