#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Crafted records for the levers table (lib/render/levers.c), in every benchmark
# that renders one (cputestfs at idle=poll, ddpar at daemon_wait=spin:50): rates
# whose ratios put the lever's share of the gap below zero (it widens the gap, or
# the gap itself is negative), past 100% (it overshoots 1), at 0 and 1, at the
# ends of a double (1e300, 1e-300, a denormal, -0), negative, and missing (the
# lever's configs, the base config, the configs as found); costs that are
# negative, over 100%, huge, -0, or missing (the server's CPU, the idle share,
# the idle states). Each run directory through `harness report`, and per case:
#  - it exits 0, or 2 with one line (the file refused);
#  - no sanitizer report (make sanitize runs this against the ASan + UBSan build);
#  - the levers table and its sentence print no negative share, no share above
#    100%, no negative time ("-7 us"), no negative server CPU cell, and no idle
#    cell outside 0-100.
#   tests/fuzz/levers.sh   (AFFBENCH_HARNESS: the harness to test)
set -u
TOP=${AFFBENCH_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
H=${AFFBENCH_HARNESS:-$TOP/bin/harness}
W=$(mktemp -d "${AFFBENCH_WORKDIR:-/tmp}/fuzz-levers.XXXXXX")
trap 'rm -rf "$W"' EXIT
export AFFBENCH_PLOT_TEXT=1	# text plots: the same scripts, drawn fast
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1}

# Ratio shapes: NAME, then the rates of subject and base as found and at the lever
# ("-": no such records).
ratios="half 10 100 60 100
past1 10 100 500 100
just-past1 10 100 100.5 100
to1 10 100 100 100
widen 50 100 10 100
faster-as-found 150 100 120 100
faster-and-worse 150 100 50 100
at1-as-found 100 100 50 100
neg-subject -10 100 60 100
neg-base 10 -100 60 100
neg-lever -10 100 -60 100
neg-all -10 -100 -60 -100
zero-base 10 0 60 0
zero-subject 0 100 60 100
minus-zero -0 100 -0 100
huge 1e300 1e-300 1e-300 1e300
tiny 1e-300 1e300 1 1
denormal 4.9e-324 1 1e-310 1
no-base 10 - 60 100
no-subject - 100 60 100
no-lever-subject 10 100 - 100
no-lever-base 10 100 60 -
no-lever 10 100 - -
no-as-found - - 60 100"
# Cost shapes: NAME, then the server's CPU us per request, the CPUs' idle % and an
# idle state's % as found and at the lever ("-": not recorded).
costs="ok 3 9 40 10 40 97
neg -7 -0.5 -5 -40 -3 -1
minus-zero -0 -0 -0 -0 -0 -0
over 3 9 105 250 150 100.001
huge 1e300 -1e300 1e300 1e-300 1e300 4.9e-324
edges 0 0 0 100 0 100
no-cpu - - 40 10 40 97
no-idle 3 9 - - 40 97
no-states 3 9 40 10 - -
none - - - - - -
some -0.5 - - 10 40 -"

# records BENCH RATIO... COST...: raw.csv on stdout, 6 repetitions with a spread
records() {
	awk -v bench="$1" -v s0="$2" -v b0="$3" -v s1="$4" -v b1="$5" -v c0="$6" -v c1="$7" \
		-v i0="$8" -v i1="$9" -v t0="${10}" -v t1="${11}" 'BEGIN {
		print "bench,config,rep,metric,value,unit"
		if (bench == "cputestfs") {
			c = "baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=%s;" \
			    "%splacement=%s;transport=libfuse"
			lever = "idle=poll;"; metric = "stat_per_s"; unit = "1/s"
		} else {
			c = "bs=4096;clone_fd=%s;%smode=write;procs=4;transport=libfuse"
			lever = "daemon_wait=spin:50;"; metric = "write_MB_per_s"; unit = "MB/s"
		}
		for (rep = 1; rep <= 6; rep++) {
			j = rep % 3
			side(0, "", s0, b0, c0, i0, t0)
			side(1, lever, s1, b1, c1, i1, t1)
		}
	}
	function cfg(lv, which) {	# which: 1 subject, 0 base, 2 the other subject
		if (bench == "cputestfs")
			return sprintf(c, which == 1 ? 1 : which == 2 ? "0-1" : 0, lv,
				       which == 1 ? "other" : which == 2 ? "none" : "same")
		return sprintf(c, which ? "on" : "off", lv)
	}
	function v(x) { return sprintf("%.10g", x * (1 + j / 1000)) }
	function rec(cf, m, x, u) {
		if (x != "-")
			printf "%s,%s,%d,%s,%s,%s\n", bench, cf, rep, m, v(x), u
	}
	function side(k, lv, s, b, cpu, idle, st,   w, cf, x) {
		for (w = 0; w <= (bench == "cputestfs" ? 2 : 1); w++) {
			cf = cfg(lv, w)
			x = w ? s : b
			if (x == "-")
				continue
			rec(cf, metric, x, unit)
			rec(cf, "server_cpu_us_per_req", cpu, "us")
			rec(cf, "mon_cpu0_idle_pct", idle, "%")
			rec(cf, "mon_cpu1_idle_pct", idle, "%")
			rec(cf, "mon_idle_POLL_pct", st, "%")
		}
	}'
}

# The cases: every ratio shape with costs ok, neg and over; every cost shape with
# ratios half, past1 and widen; each for both benchmarks.
{
	while read -r r rv; do
		for cn in ok neg over; do
			echo "$r $cn $rv $(grep "^$cn " <<<"$costs" | cut -d' ' -f2-)"
		done
	done <<<"$ratios"
	while read -r cn cv; do
		for r in half past1 widen; do
			echo "$r $cn $(grep "^$r " <<<"$ratios" | cut -d' ' -f2-) $cv"
		done
	done <<<"$costs"
} | sort -u -k1,2 >"$W/shapes"

# levers_text DIR: the levers tables and their sentences of report.md and tables.md,
# "outside 0-100%" (a cell saying what it left out) taken out
levers_text() {
	cat "$1/report.md" "$1/tables.md" 2>/dev/null |
		awk '/^\| lever \|/ { on = 1 } /^$/ { on = 0 } on || /^Here, / { print }' |
		sed 's/outside 0-100%//g'
}
# cells DIR K: column K from the end of each levers table row (1: idle states,
# 2: idle %, 3: server CPU), trimmed
cells() {
	levers_text "$1" | awk -F'|' -v k="$2" '/^\| / && !/^\| lever \|/ && !/^\|---/ {
		x = $(NF - k); gsub(/^ +| +$/, "", x); print x }'
}
NUM='[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?'
# one B R C RATES... COSTS...: the case's checks, one TAP line each (numbered below)
one() {
	local b=$1 r=$2 cn=$3 d=$W/$1-$2-$3 t="$1, rates $2, costs $3" rc txt bad
	shift 3
	mkdir -p "$d"
	records "$b" "$@" >"$d/raw.csv"
	timeout 120 "$H" report "$d" >/dev/null 2>"$d.err"	# 124: it hung
	rc=$?
	if [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$(grep -c . "$d.err")" = 1 ]; }; then
		echo "ok - $t: plot exits 0, or 2 with one line (exit $rc)"
	else
		echo "not ok - $t: plot exit $rc: $(tail -n2 "$d.err" | tr '\n' ' ')"
	fi
	if ! grep -Eq 'Sanitizer|runtime error:' "$d.err"; then
		echo "ok - $t: no sanitizer report"
	else
		echo "not ok - $t: $(grep -Em1 'Sanitizer|runtime error:' "$d.err")"
	fi
	txt=$(levers_text "$d")
	bad=$(grep -Eo -- "-$NUM%" <<<"$txt" | head -n3 | tr '\n' ' ')
	echo "$([ -z "$bad" ] || echo "not ")ok - $t: no negative share ${bad}"
	bad=$(grep -Eo -- "$NUM%" <<<"$txt" | awk '$0 + 0 > 100' | head -n3 | tr '\n' ' ')
	echo "$([ -z "$bad" ] || echo "not ")ok - $t: no share above 100% ${bad}"
	bad=$(grep -Eo -- "-$NUM us" <<<"$txt" | head -n3 | tr '\n' ' ')
	echo "$([ -z "$bad" ] || echo "not ")ok - $t: no negative time ${bad}"
	bad=$(cells "$d" 3 | grep -E -- "^-($NUM|inf)" | head -n3 | tr '\n' ' ')
	echo "$([ -z "$bad" ] || echo "not ")ok - $t: no negative server CPU cell ${bad}"
	bad=$(cells "$d" 2 | grep -Ex -- "-?$NUM|-?inf" | awk '!($0 + 0 >= 0 && $0 + 0 <= 100)' |
		head -n3 | tr '\n' ' ')
	echo "$([ -z "$bad" ] || echo "not ")ok - $t: no idle cell outside 0-100 ${bad}"
	rm -rf "$d" "$d.err"
}
while read -r r cn rest; do
	for b in cputestfs ddpar; do echo "$b $r $cn $rest"; done
done <"$W/shapes" |
	xargs -P 2 -L 1 bash -c "$(declare -f records levers_text cells one); W='$W' H='$H' \
		NUM='$NUM' one \"\$@\"" _ |
	awk '{ sub(/^ok - /, "ok " NR " - "); sub(/^not ok - /, "not ok " NR " - "); print }
	/^not ok/ { bad = 1 } END { print "1.." NR; exit bad }'
