#!/bin/bash
# Seeded fuzz of the code that reads results from elsewhere: N mutated copies of
# a real raw.csv (truncation, byte flips, quotes, huge fields, NUL, duplicated
# and deleted lines: tests/tools/mutate.c), each given to `harness plot` and to
# `harness compare` against the original. Each must end with exit 0 or 2, never
# by a signal (a sanitizer's report is a signal here: it aborts), and nothing
# may appear outside the run and compare directories. TAP output; a failure
# names its seed: `mutate SEED base.csv raw.csv` rebuilds the input.
#   tests/fuzz/raw_csv.sh [N]   (AFFBENCH_HARNESS: the harness to test)
set -u
TOP=${AFFBENCH_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${AFFBENCH_BUILD:-build}
H=${AFFBENCH_HARNESS:-$TOP/bin/harness}
MUT=$TOP/$BUILD/tests/tools/mutate
N=${1:-${AFFBENCH_FUZZ_N:-1000}}
[ -x "$MUT" ] || make -s -C "$TOP" "$BUILD/tests/tools/mutate" >/dev/null || exit 1
W=$(mktemp -d "${AFFBENCH_WORKDIR:-/tmp}/fuzz.XXXXXX")
trap 'rm -rf "$W"' EXIT
export AFFBENCH_PLOT_TEXT=1	# text plots: the same scripts, drawn fast
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1}

# The base: every benchmark's rows, a few of each, from the reference run.
mkdir -p "$W/base"
REF=$TOP/results/reference/raw.csv
{ head -n1 "$REF"; for b in cputestfs ddpar sqrtio fdget; do grep "^$b," "$REF" | head -n 40; done; } >"$W/base/raw.csv"
"$H" plot "$W/base" >/dev/null 2>&1

one() { # SEED: 0, or a line saying what went wrong
	local s=$1 d=$W/r$1 c=$W/c$1
	mkdir -p "$d"
	"$MUT" "$s" "$W/base/raw.csv" "$d/raw.csv" || { echo "seed $s: mutate failed"; return; }
	( cd "$d" && exec "$H" plot "$d" ) >/dev/null 2>"$d.plot.err"
	local rp=$?
	"$H" compare --out "$c" "$d" "$W/base" >/dev/null 2>"$d.cmp.err"
	local rc=$?
	if [ "$rp" != 0 ] && [ "$rp" != 2 ]; then echo "seed $s: plot exit $rp: $(tail -n2 "$d.plot.err" | tr '\n' ' ')"; return; fi
	if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then echo "seed $s: compare exit $rc: $(tail -n2 "$d.cmp.err" | tr '\n' ' ')"; return; fi
	rm -rf "$d" "$c" "$d.plot.err" "$d.cmp.err"
}

ls -A "$W" >"$W.before" 2>/dev/null
fails=$W/fails
: >"$fails"
seq 1 "$N" | xargs -P 2 -I{} bash -c "$(declare -f one); W='$W' MUT='$MUT' H='$H' one {}" >>"$fails" 2>&1
nf=$(grep -c . "$fails")
if [ "$nf" = 0 ]; then
	echo "ok 1 - $N mutated raw.csv files: plot and compare exit 0 or 2, never a signal"
else
	echo "not ok 1 - $nf of $N mutated raw.csv files ended badly:"
	head -n 20 "$fails" | sed 's/^/#   /'
fi
left=$(ls -A "$W" | grep -vxE 'base|fails' | head -n 5)
if [ -z "$left" ]; then
	echo "ok 2 - nothing created outside the run and compare directories"
else
	echo "not ok 2 - left in the fuzz directory: $left"
fi
rm -f "$W.before"
echo "1..2"
[ "$nf" = 0 ] && [ -z "$left" ]
