#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Seeded fuzz of the code that reads results from elsewhere: N mutated copies of
# a real raw.csv and of a hist.csv for its configs (truncation, byte flips,
# quotes, huge fields, NUL, duplicated and deleted lines; records that mean two
# things: hex floats, leading spaces, counts of 2^53 and over, a record twice
# with another value, a metric under two units: tests/tools/mutate.c), each
# run directory given to `harness report` and to `harness compare` against the
# original. Each must end with exit 0 or 2, never by a signal (a sanitizer's
# report is a signal here: it aborts), and nothing may appear outside the run
# and compare directories. TAP output; a failure names its seed: `mutate SEED
# base/raw.csv raw.csv` and `mutate SEED base/hist.csv hist.csv hist` rebuild
# the inputs.
# Then raw.csv as what no mutation of bytes can make: a FIFO, a device (a link
# to /dev/zero or /dev/urandom, a device node), a link to a good file, a
# directory, a file over the size limit, lines over the line limit: each must
# end with exit 2 within seconds and in bounded memory (docs/records.md).
# Then cpupair records whose places and CPUs, read back into a heatmap, lie at
# and past every bound (0, 511, 512, 4095, 4096, 8191, 8192, an int's ends, negative,
# huge, a leading zero or sign), a place past the matrix its earlier records sized, b's
# place above a's: `harness report` of each must exit 0 (2: the file refused whole),
# never by a signal.
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
{
	head -n1 "$REF"
	for b in cputestfs ddpar sqrtio fdget cpupair; do grep "^$b," "$REF" | head -n 40; done
} >"$W/base/raw.csv"
# hist.csv: the first 3 cputestfs configs, 2 repetitions, 24 buckets each (bucket i of
# struct ab_hist, i >= 32, starts at (32 + i % 32) << (i / 32 - 1): lib/record/stats.h)
grep '^cputestfs,' "$W/base/raw.csv" | cut -d, -f2 | uniq | head -n 3 | awk '
	BEGIN { print "bench,config,rep,metric,unit,bucket_lo,bucket_hi,count" }
	{
		for (r = 1; r <= 2; r++)
			for (i = 300; i < 324; i++)
				printf "cputestfs,%s,%d,latency,ns,%d,%d,%d\n", $0, r,
					(32 + i % 32) * 2 ^ (int(i / 32) - 1),
					(32 + (i + 1) % 32) * 2 ^ (int((i + 1) / 32) - 1), 1 + (i * 7 + r) % 50
	}' >"$W/base/hist.csv"
"$H" report "$W/base" >/dev/null 2>&1

one() { # SEED: 0, or a line saying what went wrong
	local s=$1 d=$W/r$1 c=$W/c$1
	mkdir -p "$d"
	"$MUT" "$s" "$W/base/raw.csv" "$d/raw.csv" || { echo "seed $s: mutate failed"; return; }
	"$MUT" "$s" "$W/base/hist.csv" "$d/hist.csv" hist ||
		{ echo "seed $s: mutate (hist) failed"; return; }
	( cd "$d" && exec "$H" report "$d" ) >/dev/null 2>"$d.plot.err"
	local rp=$?
	"$H" compare --out "$c" "$d" "$W/base" >/dev/null 2>"$d.cmp.err"
	local rc=$?
	# exit 1 only as documented: a raw.csv left without one valid record
	[ "$rp" = 1 ] && grep -q 'no valid records' "$d.plot.err" && rp=0
	[ "$rc" = 1 ] && grep -q 'no valid records' "$d.cmp.err" && rc=0
	if [ "$rp" != 0 ] && [ "$rp" != 2 ]; then
		echo "seed $s: plot exit $rp: $(tail -n2 "$d.plot.err" | tr '\n' ' ')"
		return
	fi
	if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
		echo "seed $s: compare exit $rc: $(tail -n2 "$d.cmp.err" | tr '\n' ' ')"
		return
	fi
	rm -rf "$d" "$c" "$d.plot.err" "$d.cmp.err"
}

# Every path under $W before the mutants run, to compare with after them.
find "$W" -mindepth 1 | sort >"$W.before"
fails=$W/fails
: >"$fails"
seq 1 "$N" | xargs -P 2 -I{} bash -c "$(declare -f one); W='$W' MUT='$MUT' H='$H' one {}" \
	>>"$fails" 2>&1
nf=$(grep -c . "$fails")
if [ "$nf" = 0 ]; then
	echo "ok 1 - $N mutated raw.csv and hist.csv files: plot and compare exit 0 or 2 (1: no valid" \
		"records), never a signal"
else
	echo "not ok 1 - $nf of $N mutated raw.csv and hist.csv files ended badly:"
	head -n 20 "$fails" | sed 's/^/#   /'
fi
# what is there now and was not (or was and is not), but the list of failures
left=$(find "$W" -mindepth 1 | sort | comm -3 "$W.before" - | tr -d '\t' | grep -vxF "$W/fails" |
	head -n 5)
nbefore=$(grep -c . "$W.before")
[ "$nbefore" -gt 1 ] || left="no snapshot of it before ($nbefore paths) ${left}"
if [ -z "$left" ]; then
	echo "ok 2 - nothing created outside the run and compare directories," \
		"nothing removed ($nbefore paths)"
else
	echo "not ok 2 - the fuzz directory changed: $(tr '\n' ' ' <<<"$left")"
fi
rm -f "$W.before"

# ---- raw.csv as what it must not be ----
# ASan reserves terabytes of address space: the memory bound holds for a plain build.
grep -qa __asan_init "$H" && MEMLIM=unlimited || MEMLIM=1048576
make_case() { # NAME FILE: make FILE the raw.csv of case NAME
	local f=$2 b=$W/base/raw.csv s len at
	case $1 in
	fifo) mkfifo "$f" ;;
	link-zero) ln -s /dev/zero "$f" ;;
	link-urandom) ln -s /dev/urandom "$f" ;;
	link-good) ln -s "$b" "$f" ;;	# a link is refused whatever it names
	directory) mkdir "$f" ;;
	node-zero) mknod "$f" c 1 5 ;;
	node-urandom) mknod "$f" c 1 9 ;;
	node-null) mknod "$f" c 1 3 ;;
	over-size) truncate -s 65M "$f" ;;	# sparse: no disk needed
	over-size-tail) cp "$b" "$f" && truncate -s 64M "$f" && echo x >>"$f" ;;
	long-line-*)	# seeded length over 65536 and place
		s=${1#long-line-}; len=$((65536 + (s * 7919) % 200000)); at=$((1 + (s * 31) % 150))
		{
			head -n "$at" "$b"
			head -c "$len" /dev/zero | tr '\0' a
			echo
			tail -n +$((at + 1)) "$b"
		} >"$f" ;;
	line-at-limit)	# 65535 bytes: within the limit, only a bad row
		{ cat "$b"; head -c 65535 /dev/zero | tr '\0' a; echo; } >"$f" ;;
	esac
}
bounded() { timeout 20 bash -c 'ulimit -v '"$MEMLIM"'; exec "$@"' _ "$@"; }
nonreg() { # NAME WANT: plot and compare of case NAME both exit WANT
	local d=$W/n-$1 rp rc
	mkdir -p "$d"
	make_case "$1" "$d/raw.csv" || { echo "$1: could not make the case"; return; }
	bounded "$H" report "$d" >/dev/null 2>"$d.err"
	rp=$?
	bounded "$H" compare --out "$W/nc-$1" "$d" "$W/base" >/dev/null 2>>"$d.err"
	rc=$?
	[ "$rp" = "$2" ] && [ "$rc" = "$2" ] ||
		echo "$1: plot exit $rp, compare exit $rc (want $2; 124: hung):" \
			"$(tail -n2 "$d.err" | tr '\n' ' ')"
	rm -rf "$d" "$d.err" "$W/nc-$1"
}
cases="fifo link-zero link-urandom link-good directory over-size over-size-tail long-line-1 $(
	)long-line-2 long-line-3 long-line-4 long-line-5"
[ "$(id -u)" = 0 ] && cases="$cases node-zero node-urandom node-null"
nfails=$W/nonreg
: >"$nfails"
n=0
for c in $cases; do nonreg "$c" 2 >>"$nfails"; n=$((n + 1)); done
nonreg line-at-limit 0 >>"$nfails"
nn=$(grep -c . "$nfails")
if [ "$nn" = 0 ]; then
	echo "ok 3 - $n raw.csv that are not regular files, are links or break a limit: exit 2 in" \
		"bounds; a line at the limit loads"
else
	echo "not ok 3 - $nn of $((n + 1)) special raw.csv ended badly:"
	sed 's/^/#   /' "$nfails"
fi

# ---- cpupair's places and CPUs at and past every bound ----
# A file per case: a good pair (0 -> 1), then one at places A, B for CPUs X, Y and its
# reverse; the matrix is sized by the first, then written at the others' places.
places="0 1 2 3 510 511 512 4095 4096 8191 8192 -1 01 +1 99999999999999999999 x"
cpus="0 1 511 512 4095 4096 8191 8192 -1 01 99999999999999999999"
pair_case() { # A B X Y: its raw.csv on stdout
	echo "bench,config,rep,metric,value,unit"
	local c="class=llc;cpu_a=0;cpu_b=1;pos_a=0;pos_b=1"
	echo "cpupair,$c,1,line_rt_ns,100,ns"
	echo "cpupair,class=llc;cpu_a=$3;cpu_b=$4;pos_a=$1;pos_b=$2,1,line_rt_ns,180.5,ns"
	echo "cpupair,class=llc;cpu_a=$4;cpu_b=$3;pos_a=$2;pos_b=$1,1,futex_rt_us,9,us"
	echo "cpupair,class=smt;cpu_a=$3;cpu_b=$4;pos_a=$1;pos_b=$2,1,line_rt_ns,7,ns"
}
plot_pair() { # A B X Y: nothing, or what went wrong
	local d=$W/p-$1-$2-$3-$4 rp
	mkdir -p "$d"
	pair_case "$@" >"$d/raw.csv"
	"$H" report "$d" >/dev/null 2>"$d.err"
	rp=$?
	# 2: a file the loader refuses whole (the good pair given twice)
	[ "$rp" = 0 ] || [ "$rp" = 2 ] ||
		echo "places $1 $2, CPUs $3 $4: plot exit $rp: $(tail -n2 "$d.err" | tr '\n' ' ')"
	rm -rf "$d" "$d.err"
}
pfails=$W/pairs
: >"$pfails"
{
	for a in $places; do for b in $places; do
		x=$a y=$b	# CPUs as the places say, and past them
		[[ $a =~ ^[0-9]+$ ]] || x=5
		[[ $b =~ ^[0-9]+$ ]] || y=6
		echo "$a $b $x $y"
	done; done
	for c in $cpus; do echo "1 3 $c 3"; echo "1 3 1 $c"; echo "2 511 $c 7"; done
	# at and past an int's ends, beside small places, as place and as CPU
	for big in 2147483647 2147483648 4294967295 4294967296 -2147483648; do
		for o in 0 1 2 511 512 4095 4096; do echo "$big $o $big $o"; echo "$o $big $o $big"; done
		echo "1 3 $big 3"
		echo "1 3 1 $big"
	done
} >"$W/pair-cases"
np=$(grep -c . "$W/pair-cases")
xargs -P 2 -L 1 bash -c "$(declare -f pair_case plot_pair); W='$W' H='$H' plot_pair \"\$@\"" _ \
	<"$W/pair-cases" >>"$pfails" 2>&1
npf=$(grep -c . "$pfails")
if [ "$npf" = 0 ]; then
	echo "ok 4 - $np raw.csv of cpupair places and CPUs at and past every bound:" \
		"plot exits 0 or 2"
else
	echo "not ok 4 - $npf of $np raw.csv of cpupair places and CPUs ended badly:"
	head -n 20 "$pfails" | sed 's/^/#   /'
fi
echo "1..4"
[ "$nf" = 0 ] && [ -z "$left" ] && [ "$nn" = 0 ] && [ "$npf" = 0 ]
