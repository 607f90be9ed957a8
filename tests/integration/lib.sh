# SPDX-License-Identifier: GPL-2.0
# Shared helpers for integration tests: TAP output, CSV lookups, leftovers, and
# the figures affbench(7) leaves unnamed.
# Source it: . "$(dirname "$0")/lib.sh"
set -u
TOP=${AFFBENCH_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=${AFFBENCH_BIN:-$TOP/bin}
: "${AFFBENCH_WORKDIR:=$(mktemp -d /tmp/affbench-it.XXXXXX)}"
export AFFBENCH_WORKDIR
: "${AFFBENCH_MACHINE_LOCK:=$AFFBENCH_WORKDIR/machine.lock}"
export AFFBENCH_MACHINE_LOCK
T_N=0
T_FAILED=0

ok()   { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
nok()  { T_N=$((T_N + 1)); T_FAILED=1; echo "not ok $T_N - $*"; }
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
# check DESC CMD...: ok when CMD succeeds; returns CMD's status. CMD is one command:
# the words up to the first operator, so `check D A && B` reports A alone and
# tests/tools/check_lint.py (tests/integration/check_lint.sh) rejects it.
# Its locals are named so that no CMD (an eval of the caller's $rc, say) sees them.
check() {
	local _check_d=$1
	shift
	"$@"
	local _check_rc=$?
	if [ "$_check_rc" = 0 ]; then ok "$_check_d"; else nok "$_check_d"; fi
	return "$_check_rc"
}

# expect_rc DESC RC CMD...: CMD exits with RC and prints exactly one stderr line
expect_rc() {
	local d=$1 want=$2; shift 2
	local err rc
	err=$("$@" 2>&1 >/dev/null); rc=$?
	local lines; lines=$(printf '%s' "$err" | grep -c .)
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ]; then ok "$d (exit $rc: $err)"
	else nok "$d: exit $rc (want $want), stderr: $err"; fi
}

# csv_value FILE KEY=VALUE[;KEY=VALUE] METRIC -> the value of the first record whose
# config holds those whole key=value pairs (clients=1 does not match clients=16)
csv_value() {
	awk -F, -v c="$2" -v m="$3" '
	NR > 1 && $(NF-2) == m {
		cfg = $2
		for (i = 3; i <= NF - 4; i++) cfg = cfg "," $i	# a quoted config may hold commas
		gsub(/"/, "", cfg)
		if (index(";" cfg ";", ";" c ";")) { print $(NF-1); exit }
	}' "$1"
}

# Measured values are noisy, more so on a busy machine: compare them as numbers
# with a tolerance, never match them as formatted text.
# NUM: a number as a table or record prints it (digits, a point, an exponent)
NUM='-?[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?'
# within V LO HI: V is a number and LO <= V <= HI
within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN {
		exit !(v ~ /^-?[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?$/ && v + 0 >= lo + 0 && v + 0 <= hi + 0) }'
}

# SLOW: the machine's slowness as the programs measure it to scale their own
# timeouts (ab_slowness: 1 on an idle VM, more on a slow one); 1 if unknown.
SLOW=$("$TOP/${AFFBENCH_BUILD:-build}/tests/tools/slowness" 2>/dev/null) || SLOW=1
# scaled SEC: SEC seconds scaled like the programs' timeouts, rounded up
scaled() { awk -v s="$1" -v f="$SLOW" 'BEGIN { v = s * f; print (v == int(v)) ? v : int(v) + 1 }'; }

# wait_until SEC CMD...: until CMD succeeds, every 50 ms, for at most SEC seconds.
# Waits end as soon as what they wait for happens, so on a busy machine a
# generous SEC costs nothing; only a failure waits it out.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.05
	done
}

# A process's identity: its pid and start time. A pid alone is recycled within
# minutes on a busy machine (pid_max 32768), and a test that kills a pid it saw
# earlier could kill another suite's daemon, or anything.
proc_id() { # PID -> "PID:STARTTIME", nothing if no such process
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }	# after the command name, which may hold spaces
	set -- "$1" $s
	[ -n "${21:-}" ] && echo "$1:${21}"
}
# kill_same ID...: SIGCONT then SIGKILL to each process still the one proc_id named
kill_same() {
	local id
	for id in "$@"; do
		[ -n "$id" ] && [ "$(proc_id "${id%%:*}")" = "$id" ] || continue
		kill -CONT "${id%%:*}" 2>/dev/null
		kill -KILL "${id%%:*}" 2>/dev/null
	done
}

# No FUSE mount may be left under our work directory.
no_fuse_left() { ! grep -qF " $AFFBENCH_WORKDIR/" /proc/mounts; }

# undocumented_figures DIR: the figures whose scripts DIR/NAME.gp holds that affbench(7)'s
# FILES does not name. There a <N> stands for digits, a <metric> for a metric's name and
# any other <word> for one word of letters and digits: cpupair_<method> names
# cpupair_futex, not cpupair_futex_2.
undocumented_figures() {
	local page=$TOP/${AFFBENCH_BUILD:-build}/man/affbench.7 re=$AFFBENCH_WORKDIR/figre.$$ g
	sed -n '/^\.SH FILES/,/^\.SH SEE/s/^\.B figures\///p' "$page" |
		sed -e 's/\\-/-/g' -e 's/\\://g' -e 's/\.png, \.svg$//' -e 's/, figures\//\n/g' |
		grep -vE '^$|/' | sed -e 's/[*.]/\\&/g' -e 's/<N>/[0-9]+/g' -e 's/<metric>/[a-z0-9_]+/g' \
			-e 's/<[a-z]*>/[a-z0-9]+/g' >"$re"
	for g in "$1"/*.gp; do
		[ -e "$g" ] || continue
		g=${g##*/}
		grep -qxEf "$re" <<<"${g%.gp}" || echo "${g%.gp}"
	done
	rm -f "$re"
}

# speedcheck_fn PART CODE ARGS...: CODE, seeing ARGS as $1, $2, ..., run by a fresh bash
# that loaded the functions of speedcheck section PART (nothing of the test's leaks in)
speedcheck_fn() {
	local part=$1 code=$2
	shift 2
	bash -c 'top=$1 part=$2 code=$3; shift 3
		. "$top/scripts/speedcheck/$part.sh"; eval "$code"' fx "$TOP" "$part" "$code" "$@"
}

t_done() { echo "1..$T_N"; exit $T_FAILED; }
