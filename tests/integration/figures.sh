#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Figures readers can use, checked by what each .gp script declares (a plot of
# a copy of results/reference): both axes labelled, the key outside the plot
# and saying what the error bars are, a log y axis where the medians span
# more than 10x (a stacked bar's parts add up on a linear axis, and its top is
# their sum), a heatmap's colour box labelled, a CDF's y the share 0 to 1,
# every panel's y range above every median
# and interval end it draws (no clipped error bar), and ddpar_timereq drawing
# spin and kernel time for writes and reads. The figures lie in figures/ and
# their .gp and .dat in figures/src/, none at the top level.
# (~10 s)
. "$(dirname "$0")/lib.sh"

REF=$TOP/results/reference
if [ ! -f "$REF/raw.csv" ]; then
	skip "figures of the reference run" "no results/reference/raw.csv"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/figures.XXXXXX")
cp -a "$REF" "$W/ref"
"$BIN/harness" report "$W/ref" >/dev/null 2>"$W/plot.err"
ls "$W/ref"/figures/src/*.gp >/dev/null 2>&1 || { nok "harness report wrote .gp files"; t_done; }
# figures/ holds them all: none is drawn beside report.md
flat=$(cd "$W/ref" && ls | grep -E '\.(png|svg|gp)$')
check "no figure or script at the top level${flat:+ (there: $flat)}" [ -z "$flat" ]
links=$(grep -o '](figures/[^)]*)' "$W/ref/report.md" | wc -l)
check "report.md links its figures in figures/ ($links links)" [ "$links" -gt 0 ]

for gp in "$W"/ref/figures/src/*.gp; do
	n=$(basename "$gp" .gp)
	check "$n: drawn into figures/ from figures/src/" \
		eval 'grep -q "^set output '"'"'\.\./$n\.png'"'"'" "$gp" &&
			grep -q "^set output '"'"'\.\./$n\.svg'"'"'" "$gp"'
	check "$n: x and y axes labelled" \
		eval 'grep -q "^set xlabel " "$gp" && grep -q "^set ylabel " "$gp"'
	if grep -q " with image" "$gp"; then	# a heatmap: no key, its colour box says the unit
		check "$n: a heatmap labels its colour box" grep -q "^set cblabel " "$gp"
		continue
	fi
	check "$n: the key outside the data" \
		eval 'grep -q "^set key outside" "$gp" && ! grep -qE "^set key (top|bottom) (left|right)" "$gp"'
	case $n in
	cdf-*)	# lines of a distribution: no bars, and y is a share from 0 to 1
		check "$n: a CDF's y axis is the share 0 to 1" grep -q "^set yrange \[0:1\]" "$gp"
		continue ;;
	esac
	check "$n: the key says what the bars are" \
		grep -qE "^set key title '(error bars: |n=1: no error bars|bars: )" "$gp"
	# the checker prints what is wrong and exits 1; a checker that fails (a traceback)
	# fails the check too
	out=$(/usr/bin/python3 - "$gp" 2>&1 <<'PYEOF'
import math, os, re, sys
gp = sys.argv[1]
d = os.path.dirname(gp)
top = None
log = False
bad = []
stacked = "rowstacked" in open(gp).read()	# a bar's top is its parts' sum, linear
for line in open(gp):
    if re.match(r"set logscale y", line):
        log = True
    if re.match(r"unset logscale y", line) or line.startswith("reset"):
        log = False
    m = re.match(r"set yrange \[[^:]*:([^\]]+)\]", line)
    if m:
        top = None if m.group(1) == "*" else float(m.group(1))
    if line.startswith("plot "):
        for dat in re.findall(r"'([A-Za-z0-9_]+\.dat)'", line):
            hi = 0
            for row in open(os.path.join(d, dat)):
                if row.startswith("#"):
                    continue
                vals = []
                for v in re.findall(r'"[^"]*"|\S+', row)[1:]:
                    try:
                        x = float(v)
                    except ValueError:
                        continue
                    if math.isfinite(x):
                        vals.append(x)
                if vals and stacked:	# the columns the plot stacks ("using N")
                    cols = [int(c) - 2 for c in re.findall(r"using (\d+)", line)]
                    hi = max(hi, sum(vals[c] for c in cols if 0 <= c < len(vals) and vals[c] > 0))
                elif vals:
                    hi = max(hi, max(vals))
            meds = []
            for row in open(os.path.join(d, dat)):
                cols = row.split()[1:]
                if row.startswith("#") or len(cols) % 3:
                    continue
                meds += [float(v) for v in cols[0::3] if v not in ("NaN", "nan") and float(v) > 0]
            if meds and max(meds) > 10 * min(meds) and not log and not stacked:
                bad.append("%s: medians span %g-%g on a linear axis" % (dat, min(meds), max(meds)))
            if top is None or top < hi:
                bad.append("%s: y range %s below %g" % (dat, top, hi))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PYEOF
)
	rc=$?
	check "$n: every y range covers its data and intervals (exit $rc${out:+: ${out:0:300}})" \
		[ "$rc" = 0 ]
done
T=$W/ref/figures/src/ddpar_timereq.gp
if [ -f "$T" ]; then
	for want in "ddpar write: spinlock wait" "ddpar read: spinlock wait" "ddpar write: kernel time" \
		"ddpar read: kernel time"; do
		check "ddpar_timereq draws '$want'" grep -q "^set title '$want per request'" "$T"
	done
fi
rm -rf "$W"
t_done
