#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md's Precision section, from crafted records: one line per benchmark with
# headline results, the median and worst half-width of their 95% CIs relative to the
# median, the results left out for too few repetitions, the outliers (kept, counted,
# the first repetitions among them) and the hints the records support (more
# repetitions, pinning, a quieter machine). No CV warning. (~2 s)
. "$(dirname "$0")/lib.sh"

# precision FILE: the lines of FILE's Precision section
precision() { awk '/^## Precision/ { p = 1; next } /^## / { p = 0 } p' "$1"; }

W=$(mktemp -d "$AFFBENCH_WORKDIR/precision.XXXXXX")

# rows BENCH CONFIG METRIC UNIT V...: one record per value, repetitions from 1
rows() {
	local b=$1 c=$2 m=$3 u=$4 r=0 v
	shift 4
	for v in "$@"; do
		r=$((r + 1))
		echo "$b,$c,$r,$m,$v,$u"
	done
}

# run DIR LOAD: the crafted records and a machine.txt whose load at the start is LOAD
run() {
	mkdir -p "$1"
	{
		echo "bench,config,rep,metric,value,unit"
		# tight: 8 values, 95% CI [100, 101.4] about 100.7: +-0.695%
		rows sqrtio "io_cpus=0;sqrt_procs=1" ios_K_per_s Kio/s \
			100 100.2 100.4 100.6 100.8 101 101.2 101.4
		# wide and unpinned: [90, 110] about 100: +-10%
		rows sqrtio "io_cpus=any;sqrt_procs=1" ios_K_per_s Kio/s 90 95 98 100 100 102 105 110
		# too few repetitions for a 95% CI: left out, counted
		rows sqrtio "io_cpus=0;sqrt_procs=1" sqrt_M_per_s Msqrt/s 300 310 320
		# not a headline metric: however noisy, not in the line
		rows sqrtio "io_cpus=0;sqrt_procs=1" irqs_per_io irq/io 1 5 9 13 17 21 25 29
		# a benchmark without headline results here: no line
		rows fdget "mode=shared-fd;op=read;threads=2" iterations count 1 2 3 4 5 6
		# median 102.5, MAD 2: 500 (the first repetition) and 10 lie beyond 3 robust SDs
		rows cputestfs "placement=same" stat_per_s 1/s 500 100 101 102 10 103 104 105
		# all within 5%
		rows cpupair "cpu_a=0;cpu_b=1" line_rt_ns ns 200 201 202 203 204 205 206 207
	} >"$1/raw.csv"
	printf 'allowed_cpus   0-1 (2)\nloadavg        %s 0.5 0.5 1/91 3501\n' "$2" >"$1/machine.txt"
	"$BIN/harness" report "$1" >/dev/null 2>"$1.err"
}

run "$W/busy" 1.50
rc=$?
check "harness report of the crafted records exits 0 (exit $rc: $(head -c 200 "$W/busy.err"))" \
	[ "$rc" = 0 ]
P=$(precision "$W/busy/report.md")
S=$(printf '%s\n' "$P" | grep '^- \*\*sqrtio\*\*')
check "report.md has a Precision section" grep -q '^## Precision$' "$W/busy/report.md"
check "one line per benchmark with headline results (sqrtio, cputestfs, cpupair; not fdget)" \
	eval '[ "$(printf "%s\n" "$P" | grep -c "^- \*\*")" = 3 ] && ! printf "%s\n" "$P" | grep -q fdget'
check "sqrtio counts its 2 headline results with 95% CIs" eval \
	'printf "%s\n" "$S" | grep -q "^- \*\*sqrtio\*\*: 2 headline results"'
worst=$(printf '%s\n' "$S" | sed -nE "s/.*\+-($NUM)% at worst.*/\1/p")
check "the worst half-width is 10% of its median (got '$worst')" within "$worst" 9.95 10.05
med=$(printf '%s\n' "$S" | sed -nE "s/.*within \+-($NUM)% of it at the median.*/\1/p")
check "the median half-width is the two's midpoint, 5.35% (got '$med')" within "$med" 5.25 5.45
check "the worst is named with its metric and config" eval \
	'printf "%s\n" "$S" | grep -qF "(ios_K_per_s, io_cpus=any;sqrt_procs=1, n 8)"'
check "the result with too few repetitions is counted, not dropped" eval \
	'printf "%s\n" "$S" | grep -q "; 1 more with too few repetitions"'
WHOLE="more repetitions (--repeat above 8: with 8 the worst.s 95% interval is its whole sample)"
check "hint: more repetitions, as the worst's interval is its whole sample" eval \
	'printf "%s\n" "$S" | grep -q "$WHOLE"'
check "hint: pinning, naming the unpinned key" eval \
	'printf "%s\n" "$S" | grep -qF "pinning (the worst ran with io_cpus=any)"'
check "hint: a quieter machine, with the load at the start" eval \
	'printf "%s\n" "$S" | grep -qF "a quieter machine (load 1.50 at the start on 2 CPUs)"'
check "a benchmark within 5% gets no hint" eval \
	'printf "%s\n" "$P" | grep "^- \*\*cpupair\*\*" | grep -q "Every one is within +-5%.$"'
check "the section says which interval it judges and what a repetition is" eval \
	'printf "%s\n" "$P" | grep -q "^Intervals: the distribution-free 95% CI .*invocation of its own"'
check "the section says its intervals do not cover a shift between runs" eval \
	'printf "%s\n" "$P" | grep "^Intervals: " | grep -q "do not cover a shift .* between runs"'
check "the section says to compare two runs by their within-run ratios" eval \
	'printf "%s\n" "$P" | grep "^Intervals: " | grep -q "compare two runs by their within-run ratios"'
check "... and the rate at which two runs' medians agree, where the host held still" eval \
	'printf "%s\n" "$P" | grep "^Intervals: " | grep -q "still, about 83% of one.s medians lie"'
C=$(printf '%s\n' "$P" | grep '^- \*\*cputestfs\*\*')
OUT="2 values beyond 3 robust SDs (1.4826 MAD) of their median, kept: in 1 result"
check "outliers counted and kept: 2 values in 1 result, 1 a first repetition" eval \
	'printf "%s\n" "$C" | grep -qF "$OUT, 1 of them first repetitions"'
check "outliers: the result holding them named" eval \
	'printf "%s\n" "$C" | grep -qF "most in stat_per_s, placement=same (2)"'
check "no outlier where none lies beyond 3 robust SDs" eval \
	'printf "%s\n" "$S" | grep -qF "No value beyond 3 robust SDs"'
check "no CV warning: the Precision section replaces it" eval \
	'! grep -q "CV above" "$W/busy/report.md"'

run "$W/quiet" 0.10
S=$(precision "$W/quiet/report.md" | grep '^- \*\*sqrtio\*\*')
check "a quiet machine at the start: no quieter-machine hint" eval \
	'[ -n "$S" ] && ! printf "%s\n" "$S" | grep -q "quieter machine"'

# records without a headline metric: the section says so, no benchmark line
mkdir -p "$W/none"
printf 'bench,config,rep,metric,value,unit\nfdget,mode=single,1,iterations,5,count\n' \
	>"$W/none/raw.csv"
"$BIN/harness" report "$W/none" >/dev/null 2>&1
check "no headline results: said, and no benchmark line" eval \
	'precision "$W/none/report.md" | grep -q "^- no headline results" &&
	 ! precision "$W/none/report.md" | grep -q "^- \*\*"'

rm -rf "$W" "$W".*.err
t_done
