#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# speedcheck.sh: how fast each benchmark is against a reference tool doing the same
# work, as one command. Each of our benchmarks is run side by side with a reference tool
# doing the same work, interleaved (A B A B ..., 3 repetitions), and a small
# table prints the medians and the ratio ours/reference:
#
#   cputestfs  stat()/s vs libfuse's hello_ll example changed only to
#              attr_timeout 0 (client scripts/statloop.c), daemon single
#              threaded, both on one CPU and unpinned; and vs cputestfs's
#              pipe baseline on that CPU.      target: >= 1.0 x hello_ll, >= 0.7 x pipe
#   ddpar      N coreutils dd on one mount (N = 1 2 4 8), write and read MB/s,
#              vs libfuse's null example (multi-threaded, as ddpar --daemon
#              multi --clone-fd off), opened with direct_io.     target: >= 1.0 x null
#   sqrtio     4 KiB O_DIRECT random reads, psync, one reader, same file, same
#              span, same CPU, on and off the IRQ CPU, no sqrt procs, vs fio.
#                                                               target: >= 0.95 x fio
#   transports cputestfs --transport dev vs hello_ll (>= 0.97) and uring vs dev
#              (>= 1.0) on one CPU, uring unpinned vs libfuse unpinned (>= 1.3, and >= 95%
#              served on the caller's CPU); ddpar 1 MiB blocks at N = 1 and 4,
#              uring vs libfuse (>= 1.0) and passthrough reads vs fio reading a
#              file directly (>= 0.8). Skipped when the kernel lacks io_uring or
#              passthrough for FUSE.
#   cpupair    cpupair's cache-line round trip on the first two allowed CPUs,
#              both ways, vs scripts/pingpong.c, the plainest C ping-pong, on
#              the same pairs (not in 'all').               target: <= 1.1 x pingpong
#
# Two cross-checks, not in 'all' (docs/crosscheck.md):
#   explain    cputestfs's own records beside tools users trust, on the same
#              runs, placements same and other: context switches and
#              migrations vs perf stat (within 10%), the breakdown's wake-up
#              medians vs a bpftrace one-liner (within 20%, for other), IPIs and
#              IRQs vs /proc/interrupts; and how much the instrumented
#              repetitions slow down. perf or bpftrace missing: their rows are
#              skipped, with what to install.
#   plan-overhead  a plan's first repetition (--plan NAME, default 'default')
#              with --kstats as planned and off: the plan's wall-time growth
#              from instrumented repetitions (target <= 15%).
#
# One check of the harness's readers, not in 'all' (no root, FUSE or fio):
#   scale      report, compare and export over run directories built at the
#              documented input limits (docs/records.md) and at one tenth of
#              them, in the shapes issue 24 found slow: long machine.txt knob
#              lists, many configs, one config with many repetitions, a 1 GiB
#              hist.csv out of order, a 64 MiB raw.csv. Wall time and peak RSS
#              per command; target: the full size within 10x of the tenth,
#              and at most 30 s and 2 GB at the limit. --quick: a tenth and a
#              hundredth (no limit-size verdict); --smoke: tiny, for the tests;
#              --timeout SEC per command (default 120). Needs GNU time and
#              about 1.2 GB free in $TMPDIR (less: a smaller hist.csv, said).
#
#   precision  where each benchmark's variance lives: one point each, 4 separate
#              invocations (--repeat N: N) of 4 windows of 0.1 s (--duration),
#              the CV between invocations and within one, the first window
#              against the others, each invocation's fixed cost (wall time minus
#              measured time), and the windows per
#              invocation that narrow an interval most per second
#              (scripts/speedcheck/precision.sh; not in 'all'; about 2 minutes).
#              With --runs DIR (once or twice): no measurement; each finished run's
#              headline 95% CI half-widths relative to their medians (median, p90,
#              per benchmark, from DIR/summary.csv), its report.md's Rounds paragraph
#              (the rounds the whole machine ran slower or faster in, and the share
#              of each benchmark's variance a round holds in common), and with two
#              runs (each with its raw.csv) what harness compare counts: how many
#              medians of each lie in the other's interval, how many the two runs'
#              widths lead one to expect, each benchmark's move between them, the
#              same count with the moves divided out (a host that drifted moves
#              every result alike), and the within-run ratios that changed. No root
#              needed.
#
#   windows    the window length: one point per benchmark (precision's), N pairs
#              of invocations as the harness runs them (--repeat N: N, default
#              12), one of D s (--duration, default 0.1, the default plan's) and
#              one of 2D (sqrtio 5D and 10D), in alternating order: each length's
#              seconds an invocation and CV, the values a minute gains, and the
#              pairs' median ratio with its 95% CI (scripts/speedcheck/windows.sh;
#              not in 'all'; about 2 minutes).
#
#   pace       cputestfs --transport dev vs hello_ll on one CPU, in pairs
#              interleaved: the pairs' median ratio and its range
#              (scripts/speedcheck/pace.sh; not in 'all').  target: >= 0.97
#
#   levers     cputestfs other/same with --idle as-found and poll, and dev
#              --daemon-wait spin:50 vs block at placement other with the
#              server's CPU per request (scripts/speedcheck/levers.sh; not in 'all').
#
#   scripts/speedcheck.sh [cputestfs|ddpar|sqrtio|transports|cpupair|all|explain|
#                          plan-overhead|pace|levers|precision|windows|scale]
#                         [--duration SEC] [--repeat N] [--plan NAME]
#                         [--quick|--smoke] [--timeout SEC] [--runs DIR]...
#   (--repeat: interleaved repetitions, default 3; more narrow the medians on a busy host)
#
# The sections live in scripts/speedcheck/, one file each, on common.sh.
#
# Needs root, /dev/fuse, gcc, pkg-config + libfuse3-dev (scripts/deps.sh) and
# fio; as root a missing fio is installed, otherwise the command is printed
# and the script exits 4. Nothing is left behind: mounts are unmounted,
# daemons killed and temporary directories removed on any exit.
#
# Known limits: libfuse 3.14's high-level API has no '-o direct_io', so the
# null example is patched to set fi->direct_io in its open handler (the only
# change). The reference side reads files on a quiet machine best: whatever
# else runs on these CPUs lands in both columns, but not always equally.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=$REPO/bin
EXAMPLES=/usr/share/doc/libfuse3-dev/examples
REPS=3
DUR=2
BS=131072
DD_PROCS="1 2 4 8"
SPAN=$((16 << 20))
PLAN=default
SCALE_MODE=full
SCALE_TIMEOUT=120
RUNS=()

# usage [CODE]: the synopsis, on stdout for --help (exit 0), on stderr otherwise (exit 2)
usage() {
	local line="usage: $0 [cputestfs|ddpar|sqrtio|transports|cpupair|all|explain|plan-overhead|"
	line+="pace|levers|precision|windows|scale] [--duration SEC] [--repeat N] [--plan NAME] "
	line+="[--quick|--smoke] [--timeout SEC] [--runs DIR]..."
	if [ "${1:-2}" = 0 ]; then
		echo "$line"
		sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
	fi
	echo "$line" >&2
	exit 2
}

# missing OPTION: an option given last, without its value
missing() {
	echo "speedcheck: option '$1' needs a value (see --help)" >&2
	exit 2
}

what=all
while [ $# -gt 0 ]; do
	case $1 in
	cputestfs | ddpar | sqrtio | transports | cpupair | all | explain | plan-overhead | pace | \
	levers | precision | windows | scale) what=$1 ;;
	--quick) SCALE_MODE=quick ;;
	--smoke) SCALE_MODE=smoke ;;
	--timeout)
		[ $# -ge 2 ] || missing "$1"
		SCALE_TIMEOUT=$2
		shift
		;;
	--timeout=*) SCALE_TIMEOUT=${1#*=} ;;
	--runs)
		[ $# -ge 2 ] || missing "$1"
		RUNS+=("$2")
		shift
		;;
	--plan)
		[ $# -ge 2 ] || missing "$1"
		PLAN=$2
		shift
		;;
	--plan=*) PLAN=${1#*=} ;;
	--duration)
		[ $# -ge 2 ] || missing "$1"
		DUR=$2 DUR_SET=1
		shift
		;;
	--duration=*) DUR=${1#*=} DUR_SET=1 ;;
	--repeat)
		[ $# -ge 2 ] || missing "$1"
		REPS=$2 REPS_SET=1
		shift
		;;
	--repeat=*) REPS=${1#*=} REPS_SET=1 ;;
	-h | --help) usage 0 ;;
	*)
		echo "speedcheck: bad argument '$1'" >&2
		usage
		;;
	esac
	shift
done
if ! [[ $DUR =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	! awk -v d="$DUR" 'BEGIN { exit !(d > 0 && d <= 60) }'; then
	echo "speedcheck: bad value '$DUR' for --duration: seconds, > 0 and <= 60" >&2
	exit 2
fi
if ! [[ $REPS =~ ^[0-9]+$ ]] || [ "$REPS" -lt 1 ] || [ "$REPS" -gt 50 ]; then
	echo "speedcheck: bad value '$REPS' for --repeat: a whole number, 1 to 50" >&2
	exit 2
fi
if [ "$what" = windows ] && [ "${REPS_SET:-0}" = 1 ] && [ "$REPS" -lt 6 ]; then
	echo "speedcheck: bad value '$REPS' for --repeat: windows needs 6 pairs or more" \
		"(a median's 95% interval)" >&2
	exit 2
fi
if ! [[ $PLAN =~ ^[A-Za-z0-9._/-]+$ ]]; then
	echo "speedcheck: bad value '$PLAN' for --plan: a plan name or file (letters, digits, . _ - /)" >&2
	exit 2
fi
if ! [[ $SCALE_TIMEOUT =~ ^[0-9]+$ ]] || [ "$SCALE_TIMEOUT" -lt 1 ] ||
	[ "$SCALE_TIMEOUT" -gt 3600 ]; then
	echo "speedcheck: bad value '$SCALE_TIMEOUT' for --timeout: whole seconds, 1 to 3600" >&2
	exit 2
fi

# ---- prerequisites ------------------------------------------------------

skip() {
	echo "speedcheck: $*" >&2
	exit 4
}
# scale and precision --runs read files only: no root, FUSE or fio
if [ "$what" != scale ] && [ "${#RUNS[@]}" = 0 ]; then
	[ "$(id -u)" = 0 ] ||
		skip "needs root (FUSE mounts of the reference daemons, sqrtio's rq_affinity); run it with sudo"
	[ -c /dev/fuse ] || skip "no /dev/fuse; load it with: modprobe fuse"
	"$REPO/scripts/deps.sh" || exit $?
	if [ "$what" = all ] || [ "$what" = sqrtio ] || [ "$what" = transports ]; then
		if ! command -v fio >/dev/null 2>&1; then
			echo "speedcheck: installing fio" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends fio >&2 ||
				skip "fio is missing and could not be installed; install it with: apt-get install -y fio"
		fi
	fi
fi
# the binaries each section runs
case $what in
all) bins="cputestfs ddpar sqrtio" ;;
transports) bins="cputestfs ddpar" ;;
explain | levers | pace) bins=cputestfs ;;
precision) bins=$([ "${#RUNS[@]}" -gt 0 ] || echo cputestfs ddpar sqrtio fdget cpupair) ;;
windows) bins="cputestfs ddpar sqrtio fdget" ;;
plan-overhead) bins="cputestfs ddpar sqrtio fdget harness" ;;
scale) bins=harness ;;
*) bins=$what ;;
esac
for b in $bins; do
	make -C "$REPO" --no-print-directory -s "bin/$b" >&2 || {
		echo "speedcheck: cannot build bin/$b" >&2
		exit 1
	}
done


for part in common cputestfs ddpar sqrtio transports cpupair explain overhead pace levers \
	precision windows scale; do
	# shellcheck source=/dev/null
	. "$REPO/scripts/speedcheck/$part.sh"
done

# ---- main ---------------------------------------------------------------

# Both columns share the machine with whatever else runs: say how busy it was.
load_note() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
libfuse=$(pkg-config --modversion fuse3 2>/dev/null || echo none)
echo "# speedcheck $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n) $(uname -r), $(nproc) CPUs," \
	"libfuse $libfuse, $(load_note)"
if awk '{ exit !($1 > 0.5) }' /proc/loadavg; then
	echo "# warning: the machine is busy before we start: other processes share these CPUs and"
	echo "# land unevenly in the columns; per-repetition figures are on stderr; rerun when idle"
fi
case $what in
cputestfs) check_cputestfs ;;
ddpar) check_ddpar ;;
sqrtio) check_sqrtio ;;
transports) check_transports ;;
cpupair) check_cpupair ;;
explain) check_explain ;;
plan-overhead) check_plan_overhead ;;
pace) check_pace ;;
levers) check_levers ;;
precision)
	if [ "${#RUNS[@]}" -gt 0 ]; then check_precision_runs; else check_precision; fi
	;;
windows) check_windows ;;
scale)
	SC_MODE=$SCALE_MODE SC_TIMEOUT=$SCALE_TIMEOUT
	check_scale
	;;
all)
	check_cputestfs
	check_ddpar
	check_sqrtio
	check_transports
	;;
esac
echo
echo "# done, $(load_note)"
