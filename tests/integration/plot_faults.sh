#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness report on run directories that break its outputs, and what it leaves:
#  - a directory named with a newline, '|' and '`': tables.md names it once,
#    escaped as report.md's header escapes it, with no raw newline;
#  - a value of 1.7e308: every y range in every .gp is a finite number (never
#    inf, which gnuplot fails on) and the figure is drawn;
#  - gnuplot failing (a stand-in on PATH that creates the figures' files empty,
#    then exits 1), or exiting 0 with empty figures: the previous PNG and SVG
#    keep their bytes, no 0-byte figure appears, one line per figure says so,
#    report.md does not show it, and plot exits 1 (a figure not written, as any
#    output not written).
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

# ---- 16. a directory name that is markdown ----
R="$D/run"$'\n'"x|\`y"
mkdir "$R"
raw 30001 >"$R/raw.csv"
"$H" report "$R" >/dev/null 2>"$D/name.err"
rc=$?
check "plot of a directory named with a newline exits 0 (rc $rc)" [ "$rc" = 0 ]
check "tables.md holds no raw newline of the name" bash -c "! grep -qx 'x|\`y.*' '$R/tables.md'"
# report.md's line goes on with the machine's facts after the name: "`. date: ..."
want=$(grep '^Run directory: ' "$R/report.md" | sed 's/`\.\( [a-z_]*: .*\)\{0,1\}$/`/')
check "tables.md names it as report.md does ($want)" \
	eval '[ -n "$want" ] && [ "$(grep -c "^Run directory: " "$R/tables.md")" = 1 ] &&
		[ "$(grep "^Run directory: " "$R/tables.md")" = "$want" ]'
esc='/run x\|\`y`'	# the newline a space, '|' and '`' after a backslash
check "with '|' and '\`' escaped" grep -qF -- "$esc" "$R/tables.md"

# ---- 17a. a value of 1.7e308 ----
F=$D/huge
mkdir "$F"
raw 1.7e308 >"$F/raw.csv"
"$H" report "$F" >/dev/null 2>"$D/huge.err"
rc=$?
if command -v gnuplot >/dev/null; then
	check "plot with a value of 1.7e308 exits 0 (rc $rc)" [ "$rc" = 0 ]
	check "and draws the figure" [ -s "$F/figures/cputestfs.png" ]
else
	skip "plot with a value of 1.7e308 draws" "gnuplot is not installed"
fi
check "every .gp written" bash -c "ls '$F'/figures/src/*.gp >/dev/null 2>&1"
check "no .gp holds inf or nan" \
	bash -c "! grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' '$F'/figures/src/*.gp"
# no range line at all (no .gp) is no proof: it says so
bad=$(cat "$F"/figures/src/*.gp 2>&1 | awk '/range/ { n++ }
	/range/ && !/^set [xy]range \[[-0-9.e+]+:([0-9.e+]+|\*)\]$/ { print }
	END { if (!n) print "no range" }')
check "every range is two finite numbers${bad:+ ($bad)}" [ -z "$bad" ]

# ---- 17b. a figure that fails to render keeps its previous version ----
if ! command -v gnuplot >/dev/null; then
	skip "a failed figure keeps its previous version" "gnuplot is not installed"
	t_done
fi
G=$D/good
mkdir "$G" "$D/bin"
raw 30001 >"$G/raw.csv"
"$H" report "$G" >/dev/null 2>&1
check "a first plot draws the figure" \
	eval '[ -s "$G/figures/cputestfs.png" ] && [ -s "$G/figures/cputestfs.svg" ]'
before=$(cat "$G/figures/cputestfs.png" "$G/figures/cputestfs.svg" | md5sum)
# The stand-in: as gnuplot does on a failed plot, each output is created at
# "set output" and left empty; then exit RC ("-e", the terminal probe, succeeds).
cat >"$D/bin/gnuplot" <<'EOF'
#!/bin/bash
[ "$1" = -e ] && exit 0
for gp in "$@"; do
	sed -n "s/^set output '\(.*\)'$/\1/p" "$gp" | while read -r out; do : >"$out"; done
done
exit "${FAKE_GNUPLOT_RC:-1}"
EOF
chmod +x "$D/bin/gnuplot"
sed -i 's/,30002,/,40002,/' "$G/raw.csv"	# new data: a figure that would differ
for frc in 1 0; do
	what=$([ "$frc" = 1 ] && echo "failed" || echo "drew an empty figure")
	FAKE_GNUPLOT_RC=$frc PATH="$D/bin:$PATH" "$H" report "$G" >/dev/null 2>"$D/fail.err"
	rc=$?
	check "gnuplot that $what: plot exits 1 (rc $rc)" [ "$rc" = 1 ]
	check "... the previous PNG and SVG keep their bytes" \
		[ "$(cat "$G/figures/cputestfs.png" "$G/figures/cputestfs.svg" | md5sum)" = "$before" ]
	# find's complaint of a missing figures/ is no empty list
	empty=$(find "$G/figures" -maxdepth 1 \( -name '*.png' -o -name '*.svg' \) -size 0 2>&1)
	check "... no 0-byte figure${empty:+ ($empty)}" [ -z "$empty" ]
	check "... one line says which figure and that the previous one is left" \
		eval '[ "$(grep -c "cputestfs.gp $what; the previous figure, if any, is left" \
			"$D/fail.err")" = 1 ]'
	check "... report.md does not show the figure" \
		bash -c "! grep -qF '(figures/cputestfs.png)' '$G/report.md'"
	check "... the other outputs are written (summary.csv has the new data)" \
		grep -q 40002 "$G/summary.csv"
done
"$H" report "$G" >/dev/null 2>&1
check "gnuplot back: the figure is drawn again" \
	eval '[ -s "$G/figures/cputestfs.png" ] &&
		[ "$(cat "$G/figures/cputestfs.png" "$G/figures/cputestfs.svg" | md5sum)" != "$before" ]'
t_done
