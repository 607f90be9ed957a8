#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpupair says when it cannot be trusted (issue 35 item 3, issue 31 item 8), from
# crafted records (awk, no timing): each wake-up figure carries the share of its
# waits that slept, and a mix (a futex whose waits returned at once) is never given
# as a wake-up cost; a pair whose spinner lost its CPU (switched out in the window,
# or a cache-line round trip above half the futex's) is flagged and kept out of the
# line's medians; the diagonal (a CPU with itself) is a class of its own, never in a
# median over pairs; a pair sysfs cannot place is "unknown", never "within one LLC";
# the heatmaps share one scale from 0 with their lever partner, with a colour key in
# units, a marked diagonal and a legend; report.md shows the futex's figure under
# the lever (cpupair_futex_2), not the line's. (~2 s)
. "$(dirname "$0")/lib.sh"

W=${CPTRUST_KEEP:-$AFFBENCH_WORKDIR/cptrust.$$}
mkdir -p "$W"
[ -n "${CPTRUST_KEEP:-}" ] || trap 'rm -rf "$W"' EXIT

# records RUN: 6 repetitions of pairs 0->1 and 1->0 (class unknown) and of each CPU
# alone (class same), as found and with idle=poll. As found: line 400 ns (0->1; its
# window had 2 involuntary switches in every repetition), 5800 ns (1->0: above half of
# its futex's 10 us), futex 10 us with 40% of its waits slept (a mix), pipe 20 us every
# wait slept; alone: futex 6 us, pipe 9 us, all slept. With idle=poll: futex 4 us,
# every wait slept, line 100 ns undisturbed.
records() {
	mkdir -p "$1"
	awk 'BEGIN {
		print "bench,config,rep,metric,value,unit"
		for (rep = 1; rep <= 6; rep++)
			for (k = 0; k < 2; k++) {
				id = k ? "idle=poll;" : ""
				pair("0", "1", k, id, k ? 100 : 400, k ? 0 : 2)
				pair("1", "0", k, id, k ? 100 : 5800, 0)
				for (c = 0; c < 2; c++) {
					cfg = sprintf("class=same;cpu_a=%d;cpu_b=%d;%spos_a=%d;pos_b=%d", c, c, id, c, c)
					rec(cfg, "futex_rt_us", k ? 3 : 6, "us"); rec(cfg, "futex_slept_pct", 100, "%")
					rec(cfg, "pipe_rt_us", 9, "us"); rec(cfg, "pipe_slept_pct", 100, "%")
				}
			}
	}
	function pair(a, b, k, id, line, invol) {
		cfg = sprintf("class=unknown;cpu_a=%s;cpu_b=%s;%spos_a=%s;pos_b=%s", a, b, id, a, b)
		rec(cfg, "line_rt_ns", line, "ns"); rec(cfg, "line_invol_switches", invol, "1")
		rec(cfg, "futex_rt_us", k ? 4 : 10, "us"); rec(cfg, "futex_slept_pct", k ? 100 : 40, "%")
		rec(cfg, "pipe_rt_us", 20, "us"); rec(cfg, "pipe_slept_pct", 100, "%")
	}
	function rec(cfg, m, v, u) { printf "cpupair,%s,%d,%s,%g,%s\n", cfg, rep, m, v, u }' >"$1/raw.csv"
}

R=$W/run
records "$R"
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report of crafted cpupair records: exit 0 (got $rc: $(tail -n1 "$W/plot.err"))" \
	[ "$rc" = 0 ]
T=$R/tables.md
P=$(grep -m1 '^With the idle policy as found:' "$R/report.md")
Q=$(grep -m1 '^With idle=poll:' "$R/report.md")

# -- the share of waits that slept, and no mix given as a wake-up cost ---------
row='^| as found | unknown | 2 | every pair flagged (a spinner lost its CPU) | '
row+='10 (a mix: 40% slept) | 20 (100% slept) |'
check "the class table gives each wake-up figure with the share of its waits that slept" \
	grep -q "$row" "$T"
check "a mix is said as a mix, with its share" eval \
	'[[ $P == *"through a futex no wake-up cost can be given: only 40% of its waits slept"* ]]'
check "a mix is never given as a wake-up cost" \
	eval '! grep -Eq "[0-9] (us|µs) through a futex" <<<"$P"'
check "the pipe, whose waits all slept, is given, beside the same-CPU round trip" eval \
	'[[ $P == *"20 us through a pipe (every wait slept), against 9 us on one CPU alone"* ]]'
check "with idle=poll the futex slept every time: its cost is given" eval \
	'[[ $Q == *"4 us through a futex (every wait slept), against 3 us on one CPU alone"* ]]'

# -- a descheduled spinner ---------------------------------------------------------
check "both pairs' line figures flagged as found (switched out; above half the futex's)" eval \
	'[[ $P == *"Flagged, their cache-line figure left out of the medians"*" 0->1 1->0 (2 pairs)"* ]]'
check "with every pair flagged no cache-line round trip is given" eval \
	'[[ $P == *"No cache-line round trip is given here: every pair'"'"'s was flagged."* ]]'
check "a flagged figure is marked in the pair table" \
	grep -q '^| as found | 1 | 0 | unknown | 5800 (flagged: a spinner lost its CPU) |' "$T"
check "undisturbed with idle=poll: the line is given (100 ns)" eval \
	'[[ $Q == *"A cache-line round trip costs 100 ns between CPUs whose cache relation is unknown"* ]]'

# -- a switch is not a wait: the spinners' run-queue wait decides ------------------
# 0->1: 5 involuntary switches, 0.8% of the window waited (the parent woke on a pair's
# CPU, as on 2 CPUs); 1->0: no switch counted, 9% waited. Futex 20 us, every wait slept.
S=$W/wait
mkdir -p "$S"
awk 'BEGIN {
	print "bench,config,rep,metric,value,unit"
	for (rep = 1; rep <= 6; rep++) { pair("0", "1", 120, 5, 0.8); pair("1", "0", 130, 0, 9) }
}
function pair(a, b, line, invol, wait) {
	cfg = sprintf("class=unknown;cpu_a=%s;cpu_b=%s;pos_a=%s;pos_b=%s", a, b, a, b)
	rec(cfg, "line_rt_ns", line, "ns"); rec(cfg, "line_invol_switches", invol, "1")
	rec(cfg, "line_wait_pct", wait, "%")
	rec(cfg, "futex_rt_us", 20, "us"); rec(cfg, "futex_slept_pct", 100, "%")
}
function rec(cfg, m, v, u) { printf "cpupair,%s,%d,%s,%g,%s\n", cfg, rep, m, v, u }' \
	>"$S/raw.csv"
"$BIN/harness" report "$S" >/dev/null 2>"$W/wait.err"
rc=$?
check "harness report of records with the spinners' wait: exit 0 (got $rc)" [ "$rc" = 0 ]
check "switches with a wait under 2% of the window: the line is not flagged" \
	grep -q '^| 0 | 1 | unknown | 120 |' "$S/tables.md"
check "a wait above 2% of the window flags the line, with no switch counted" \
	grep -q '^| 1 | 0 | unknown | 130 (flagged: a spinner lost its CPU) |' "$S/tables.md"

# -- classes: the diagonal apart, unknown never called one LLC ----------------------
check "the diagonal is its own class row (same: 2 CPUs)" \
	grep -q '^| as found | same | 2 | not measured | 6 (100% slept) | 9 (100% slept) |' "$T"
check "a median over pairs leaves the diagonal out (futex over pairs: 4, not 3.5)" eval \
	'[[ $Q == *"costs 4 us through a futex"* ]]'
check "no cache topology: the report says unknown, never within one LLC" eval \
	'[[ $Q == *"(no cache topology in sysfs)"* ]] && ! grep -q "within one LLC" "$R/report.md"'

# -- heatmaps -------------------------------------------------------------------------
G=$R/figures/src
check "report.md shows the futex's heatmap under the lever, not the line's" eval \
	'grep -q "^!\[cpupair_futex_2\](figures/cpupair_futex_2.png)" "$R/report.md" &&
	 ! grep -q "^!\[cpupair_line_2\]" "$R/report.md"'
cb() { sed -n '1,/^plot/s/^set cbrange \[\(.*\)\]$/\1/p' "$G/$1.gp"; }
check "the futex heatmaps share one scale from 0 ($(cb cpupair_futex), $(cb cpupair_futex_2))" \
	eval \
	'[ "$(cb cpupair_futex)" = "0:10" ] && [ "$(cb cpupair_futex_2)" = "0:10" ]'
check "the colour key names the unit" \
	grep -q "^set cblabel 'futex_rt_us (us, median, from 0)'" "$G/cpupair_futex.gp"
check "the diagonal is marked, with a legend for it and for white" eval \
	'grep -q "title .diagonal: a CPU with itself (the same-CPU round trip)." "$G/cpupair_futex.gp" &&
	 grep -q "title .white: not measured." "$G/cpupair_futex.gp"'
check "the diagonal holds the same-CPU round trip in the futex matrix" \
	grep -qx '1 1 6' "$G/cpupair_futex.dat"
t_done
