#!/bin/bash
# harness plot on run directories that break its outputs, and what it leaves:
#  - a value of 1.7e308: every y range in every .gp is a finite number (never
#    inf, which gnuplot fails on) and the figure is drawn.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/plot_faults.XXXXXX")
trap 'rm -rf "$D"' EXIT

raw() { # FIRST-VALUE: three repetitions of one cputestfs point
	echo "bench,config,rep,metric,value,unit"
	for i in 1 2 3; do
		v=$((30000 + i))
		[ "$i" = 1 ] && v=$1
		echo "cputestfs,baseline=fuse;daemon=single;placement=none,$i,stat_per_s,$v,1/s"
	done
}

# ---- 17a. a value of 1.7e308 ----
F=$D/huge
mkdir "$F"
raw 1.7e308 >"$F/raw.csv"
"$H" plot "$F" >/dev/null 2>"$D/huge.err"
rc=$?
if command -v gnuplot >/dev/null; then
	check "plot with a value of 1.7e308 exits 0 (rc $rc)" [ "$rc" = 0 ]
	check "and draws the figure" [ -s "$F/cputestfs.png" ]
else
	skip "plot with a value of 1.7e308 draws" "gnuplot is not installed"
fi
check "every .gp written" bash -c "ls '$F'/*.gp >/dev/null 2>&1"
check "no .gp holds inf or nan" bash -c "! grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' '$F'/*.gp"
bad=$(grep -h 'range' "$F"/*.gp | grep -vE '^set [xy]range \[[-0-9.e+]+:([0-9.e+]+|\*)\]$')
check "every range is two finite numbers${bad:+ ($bad)}" [ -z "$bad" ]

t_done
