#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 27, what moves it: from crafted records (awk, no machine needed),
# `harness report` gives cputestfs's levers table (each swept --idle and
# --daemon-wait beside as found, the ratios other/same and none/same, the
# server's CPU per request and the CPUs' idle share, all from the records),
# the sentence naming the cheapest lever, the split of "other minus same"
# into cache transfers, wake-ups and FUSE's own path from cpupair's records
# (the three parts summing to the difference) and its stacked bar; without
# cpupair records, the report says so. The split's wake-ups are checked
# against the request breakdown's wake-up steps (brk_* records of the
# instrumented repetition): the number from the records, agreement said
# both ways, nothing without them. affbench(7) names each figure drawn.
. "$(dirname "$0")/lib.sh"

W=${LEVERS_KEEP:-$AFFBENCH_WORKDIR/levers.$$}
mkdir -p "$W"
[ -n "${LEVERS_KEEP:-}" ] || trap 'rm -rf "$W"' EXIT

# records RUNDIR WITH_CPUPAIR BRK [SPLIT]: 6 repetitions, same 100000/s, other 10000/s and
# none 12000/s as found; with idle=poll other 85000/s and none 90000/s; dev with
# daemon_wait=spin:50: other 20000/s at 9 us of server CPU per request (block: 3 us).
# cpupair: the line 0.2 us; the pipe's round trip 80 us between CPUs 0 and 1 and 20 us on
# CPU 0 alone, every wait slept (12 and 3.2 with idle=poll); the futex's 60 and 15, 60% of
# its waits slept (a mix, which the split never uses). The split: 0.2 + (80 - 20 - 0.2 =
# 59.8) + 29.9 = 89.9 us. SPLIT neg: the pipe's round trip between the CPUs 150 us (crossing
# would cost more than the whole difference); below: on CPU 0 alone -20 us; fast: other 120000/s
# (faster than same); mix: the pipe's waits 70% slept too; flag: the line's window had 3
# involuntary switches.
# BRK 0: no breakdown; 1: libfuse's wake-up steps (daemon_wake + reply_wake) per call,
# their medians, other 2 x 25 us less same 2 x 1 us = 48 us as found (the split: 59.8,
# agree), their means 100 us x 80% less 10 us x 20% = 78 (a tail: said apart), 2 x 3 - 2 =
# 4 us with idle=poll (the split: 8.6, disagree); 2: 2 x 20 - 2 = 38 us (disagree; means
# 100 x 40% - 2, the same), 2 x 4.8 - 2 = 7.6 us (agree). As found, the other steps'
# medians (submit, service, return) add up to 7.5 us on other and 13 on same: 5.5 less.
records() {
	mkdir -p "$1"
	awk -v pair="$2" -v brk="$3" -v sm="${4:-ok}" 'BEGIN {
		print "bench,config,rep,metric,value,unit"
		c = "baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=%s;%splacement=%s;transport=%s"
		for (rep = 1; rep <= 6; rep++) {
			j = (rep % 3) * 10	# a spread, so that each CI is an interval
			row(sprintf(c, 0, "", "same", "libfuse"), 100000 + j, 40, 0)
			row(sprintf(c, 1, "", "other", "libfuse"), (sm == "fast" ? 120000 : \
			    sm == "sum" ? 83333 : 10000) + j, 50, 0)
			row(sprintf(c, "0-1", "", "none", "libfuse"), 12000 + j, 45, 0)
			row(sprintf(c, 0, "idle=poll;", "same", "libfuse"), 100000 + j, 0, 0)
			row(sprintf(c, 1, "idle=poll;", "other", "libfuse"), 85000 + j, 0, 0)
			row(sprintf(c, "0-1", "idle=poll;", "none", "libfuse"), 90000 + j, 0, 0)
			row(sprintf(c, 0, "", "same", "dev"), 110000 + j, 40, 2)
			row(sprintf(c, 1, "", "other", "dev"), 11000 + j, 50, 3)
			row(sprintf(c, 0, "daemon_wait=spin:50;", "same", "dev"), 110000 + j, 40, 2)
			row(sprintf(c, 1, "daemon_wait=spin:50;", "other", "dev"), 20000 + j, 30, 9)
			if (brk && rep == 1) {
				brow(sprintf(c, 0, "", "same", "libfuse"), 10000, 10, 1000, 13000)
				brow(sprintf(c, 1, "", "other", "libfuse"), 100000, brk == 1 ? 40 : 20,
				     brk == 1 ? 25000 : 20000, 7500)
				brow(sprintf(c, 0, "idle=poll;", "same", "libfuse"), 10000, 10, 1000)
				brow(sprintf(c, 1, "idle=poll;", "other", "libfuse"), 12000, brk == 1 ? 25 : 40,
				     brk == 1 ? 3000 : 4800)
			}
			if (pair) {
				p = "class=smt;cpu_a=0;cpu_b=1;pos_a=0;pos_b=1"
				d = "class=same;cpu_a=0;cpu_b=0;pos_a=0;pos_b=0"
				printf "cpupair,%s,%d,line_rt_ns,%d,ns\n", p, rep, (sm == "sum" ? 10000 : 200) + j / 10
				printf "cpupair,%s,%d,line_invol_switches,%d,1\n", p, rep, sm == "flag" ? 3 : 0
				cp(p, "futex", 60 + j / 10, 60, "")
				cp(d, "futex", 15 + j / 10, 60, "")
				cp(p, "pipe", sm == "neg" ? 150 + j / 10 : sm == "sum" ? 22 + j / 2 : 80 + j / 10,
				   sm == "mix" ? 70 : 100, "")
				cp(d, "pipe", (sm == "below" ? -20 : 20) + j / 10, 100, "")
				cp(p, "futex", 8 + j / 10, 100, "idle=poll;")
				cp(p, "pipe", 12 + j / 10, 100, "idle=poll;")
				cp(d, "pipe", 3.2 + j / 10, 100, "idle=poll;")
			}
		}
	}
	function cp(cfg, m, v, slept, idle) {	# a round trip and the share of its waits that slept
		cfg = substr(cfg, 1, index(cfg, "pos_a") - 1) idle substr(cfg, index(cfg, "pos_a"))
		printf "cpupair,%s,%d,%s_rt_us,%g,us\n", cfg, rep, m, v
		printf "cpupair,%s,%d,%s_slept_pct,%g,%%\n", cfg, rep, m, slept
	}
	function brow(cfg, call, wake, p50, rest) {	# both wake-up steps wake% of the call,
		# median p50; the other steps, medians adding up to rest (when given)
		if (rest) {
			printf "cputestfs,%s,%d,brk_submit_p50_ns,1000,ns\n", cfg, rep
			printf "cputestfs,%s,%d,brk_service_p50_ns,%d,ns\n", cfg, rep, rest - 2000
			printf "cputestfs,%s,%d,brk_return_p50_ns,1000,ns\n", cfg, rep
		}
		printf "cputestfs,%s,%d,brk_call_ns,%d,ns\n", cfg, rep, call
		printf "cputestfs,%s,%d,brk_daemon_wake_p50_ns,%d,ns\n", cfg, rep, p50
		printf "cputestfs,%s,%d,brk_reply_wake_p50_ns,%d,ns\n", cfg, rep, p50
		printf "cputestfs,%s,%d,brk_submit_share_pct,5,%%\n", cfg, rep
		printf "cputestfs,%s,%d,brk_daemon_wake_share_pct,%d,%%\n", cfg, rep, wake
		printf "cputestfs,%s,%d,brk_service_share_pct,%d,%%\n", cfg, rep, 90 - 2 * wake
		printf "cputestfs,%s,%d,brk_reply_wake_share_pct,%d,%%\n", cfg, rep, wake
		printf "cputestfs,%s,%d,brk_return_share_pct,5,%%\n", cfg, rep
	}
	function row(cfg, v, idle, cpu) {
		printf "cputestfs,%s,%d,stat_per_s,%d,1/s\n", cfg, rep, v
		printf "cputestfs,%s,%d,mon_cpu0_idle_pct,%d,%%\n", cfg, rep, idle
		printf "cputestfs,%s,%d,mon_cpu1_idle_pct,%d,%%\n", cfg, rep, idle
		if (idle == 0)
			printf "cputestfs,%s,%d,mon_idle_POLL_pct,%d,%%\n", cfg, rep, 97
		else
			printf "cputestfs,%s,%d,mon_idle_HALT_pct,%d,%%\n", cfg, rep, idle
		if (cpu)
			printf "cputestfs,%s,%d,server_cpu_us_per_req,%d,us\n", cfg, rep, cpu
	}' >"$1/raw.csv"
}

R=$W/with
records "$R" 1 1
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report of lever records: exit 0 (got $rc: $(tail -n1 "$W/plot.err"))" [ "$rc" = 0 ]
T=$R/tables.md
# cell ROW COL FILE: the number in column COL of the levers table's row ROW
cell() { awk -F' *\\| *' -v row="$1" -v col="$2" \
	'$2 == row { split($col, a, /[ ;\[]/); print a[1]; exit }' "$3"; }
check "the levers table is in tables.md" \
	grep -q '^| lever | other/same (libfuse) | none/same (libfuse) |' "$T"
check "as found: other/same 0.1 from the records ($(cell "as found" 3 "$T"))" within \
	"$(cell "as found" 3 "$T")" 0.099 0.101
check "idle=poll: other/same 0.85 ($(cell idle=poll 3 "$T"))" within "$(cell idle=poll 3 "$T")" \
	0.849 0.851
check "idle=poll: none/same 0.9 ($(cell idle=poll 4 "$T"))" within "$(cell idle=poll 4 "$T")" \
	0.899 0.901
check "idle=poll closes 83% of other/same's gap" \
	grep -Eq '^\| idle=poll \| 0\.85 \[[^]]*\]; 83% \|' "$T"
check "daemon_wait=spin:50: dev's other/same 0.182 ($(cell daemon_wait=spin:50 5 "$T"))" \
	within "$(cell daemon_wait=spin:50 5 "$T")" 0.18 0.184
check "daemon_wait=spin:50 costs 9 us of server CPU a request $(
	)($(cell daemon_wait=spin:50 7 "$T"))" \
	within "$(cell daemon_wait=spin:50 7 "$T")" 8.99 9.01
check "idle=poll: the CPUs never idle, POLL used ($(cell idle=poll 8 "$T"))" eval \
	'within "$(cell idle=poll 8 "$T")" 0 0 && grep -Eq "^\| idle=poll \|.*\| POLL 97% \|$" "$T"'
part() { awk -F' *\\| *' -v p="$1" 'index($2, p) == 1 { split($3, a, " "); print a[1]; exit }' \
	"$2"; }
c=$(part "cache transfers" "$T"); k=$(part "wake-ups crossing adds" "$T"); u=$(part "FUSE's own" \
	"$T")
d=$(part "other minus same" "$T"); kp=$(part "wake-ups with idle" "$T")
check "split: cache 0.201 us (cpupair's line round trip, $c)" within "$c" 0.2 0.202
check "split: wake-ups 59.8 us (pipe between the CPUs less on CPU 0 alone, less line, $k)" \
	within "$k" 59.7 59.9
check "split: other minus same = 1e6/10010 - 1e6/100010 = 89.9 us ($d)" within "$d" 89.8 90.0
check "split: the three parts sum to other minus same ($c + $k + $u = $d)" \
	within "$(awk -v a="$c" -v b="$k" -v x="$u" 'BEGIN { print a + b + x }')" \
		"$(awk -v v="$d" 'BEGIN { print v - 0.2 }')" "$(awk -v v="$d" 'BEGIN { print v + 0.2 }')"
check "split: wake-ups with idle polling 12 - 3.2 - 0.2 = 8.6 us ($kp)" within "$kp" 8.5 8.7
check "the split's stacked bar is drawn (or its script written without gnuplot)" eval \
	'[ -s "$R/figures/src/cputestfs_split.gp" ] &&
		grep -q rowstacked "$R/figures/src/cputestfs_split.gp" &&
	 { ! command -v gnuplot >/dev/null || [ -s "$R/figures/cputestfs_split.png" ]; }'
un=$(undocumented_figures "$R/figures/src" | tr '\n' ' ')
check "affbench(7) names every figure this report draws, the split's too${un:+ (not: $un)}" \
	[ -z "$un" ]
check "report.md names the cheapest lever" \
	grep -q "^Here, idle=poll closes 83% of the gap of other/same (libfuse) $(
		)(0.1 as found, 0.85 with it)" "$R/report.md"
check "report.md gives the split in a sentence" \
	grep -q '^Of the 89.9 us a stat() served on CPU 1' "$R/report.md"

# The check against the breakdown: BRK_AF, BRK_POLL: the wording expected as found and
# with idle polling (agrees / does not agree); the numbers from the records.
b=$(part "breakdown's wake-up steps, other" "$T"); bp=$(part "breakdown's wake-up steps with" "$T")
check "check: the breakdown's wake-up steps' medians, other less same, 48 us per call ($b)" \
	within "$b" 47.9 48.1
check "check: with idle polling 4 us per call ($bp)" within "$bp" 3.99 4.01
# said N WORD FILE: the check's sentence (as found, or with idle polling when N=1) says WORD
said() {
	local lead=" The breakdown's" m
	[ "$1" = 1 ] && lead=" With idle polling the breakdown's"
	m=$(grep -o "$lead wake-up steps (daemon_wake and reply_wake, medians per call in $(
		)instrumented repetitions) took $(
		)[^(]*([^)]*)[^.]*" "$3")
	case $2 in
	agree) [[ $m == *", which agrees with the split's "*"(within a factor of 1.5 either way)"* ]] ;;
	disagree) [[ $m == *"which does not agree with the split's "*"(not within a factor of 1.5 either $(
		)way): the split's wake-up part"*"is an estimate, to be read with care"* ]] ;;
	esac
}
check "check: as found, report.md says the split's 59.8 us and the breakdown's 48 agree" eval \
	'said 0 agree "$R/report.md" &&
	 grep -q "took 48\(\.0\)\? us more per call on other than on same, $(
		)which agrees with the split.s 59.8 us" "$R/report.md"'
check "check: report.md says the steps' means, 78 us apart, carry a tail" \
	grep -q "Their means are 78\(\.0\)\? us apart: a tail of slow calls" "$R/report.md"
check "check: with idle polling, report.md says 8.6 and 4 do not agree" eval \
	'said 1 disagree "$R/report.md" && ! said 1 agree "$R/report.md"'
check "check: tables.md says the same under the split" eval \
	'said 0 agree "$T" && said 1 disagree "$T"'

R=$W/disagree
records "$R" 1 2
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
T=$R/tables.md
b=$(part "breakdown's wake-up steps, other" "$T"); bp=$(part "breakdown's wake-up steps with" "$T")
check "check, other records: 38 us as found ($b), 7.6 with idle polling ($bp)" eval \
	'within "$b" 37.9 38.1 && within "$bp" 7.59 7.61'
check "check: 38 against the split's 59.8 does not agree, 7.6 against 8.6 agrees" eval \
	'said 0 disagree "$R/report.md" && ! said 0 agree "$R/report.md" && said 1 agree "$R/report.md" &&
	 said 0 disagree "$T" && said 1 agree "$T"'
check "check: means that match the medians are not said apart" \
	bash -c "! grep -q 'Their means are' '$R/report.md'"

R=$W/nobrk
records "$R" 1 0
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
check "without breakdown records: the split, and no check or number of it" eval \
	'grep -q "^Of the 89.9 us a stat() served on CPU 1" "$R/report.md" &&
	 ! grep -q "breakdown.s wake-up steps" "$R/report.md" "$R/tables.md"'

R=$W/with
T=$R/tables.md
u=$(part "FUSE's own" "$T")
check "split: each part carries its interval (tables.md)" eval \
	'grep -Eq "^\| cache transfers \(cache-line round trip\) \| 0\.201 us \[0\.2, 0\.202\] \|" "$T" &&
	 grep -Eq "^\| FUSE.s own path \(what remains\) \| [0-9.]+ us \[[0-9.]+, [0-9.]+\] \|" "$T"'
check "split: the sentence uses the pipe, whose waits all slept, not the futex's mix" \
	grep -q "the wake-ups crossing adds (its pipe round trip between the CPUs $(
		)less that on CPU 0 alone" \
	"$R/report.md"
# bar N: the Nth number of the split's bar (cputestfs_split.dat's data row)
bar() { awk -v n="$1" '!/^#/ { print $(NF - 3 + n); exit }' "$R/figures/src/cputestfs_split.dat"; }
check "the stacked bar draws the sentence's parts (0.201, 59.8, $u: $(bar 1), $(bar 2), $(bar 3))" \
	eval 'within "$(bar 1)" 0.2 0.202 && within "$(bar 2)" 59.7 59.9 && within "$(bar 3)" 29.85 29.95'

# split_para FILE: the split's paragraph of report.md
split_para() { grep -E "^(Of the |Other minus same|A stat\(\) served on CPU)" "$1"; }
# neg: the round trip between the CPUs exceeds the whole difference
R=$W/neg
records "$R" 1 1 neg
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
p=$(split_para "$R/report.md")
check "split, crossing above the difference: the report says the model does not hold" eval \
	'[[ $p == *"does not hold on this machine: FUSE'"'"'s own path would be below zero $(
		)beyond its interval."* ]]'
check "split, crossing above the difference: the measured pieces are given" eval \
	'[[ $p == *"The measured pieces: cpupair'"'"'s pipe round trip between CPUs 0 and 1 $(
		)took 151 us [150, 152]"* ]]'
check "split, crossing above the difference: no negative time (${p:0:60}...)" \
	eval '! grep -Eq -- "-[0-9]" <<<"$p"'
check "split, crossing above the difference: no part given as a cost" \
	eval '! grep -q "us FUSE.s own path" <<<"$p"'
check "split, crossing above the difference: the breakdown's other steps say why" \
	grep -qF "Its other steps (submit, service and return) took 5.5 us less: FUSE's own path $(
		)is cheaper across CPUs here" <<<"$p"

# sum: a cache line (10 us) dearer than the whole difference (2 us [1.99, 2]), a crossing
# of 6 us [0, 12]: each part, clamped at 0, holds 0 in its interval, but their lower ends
# add to 10 us, above the difference's upper end
R=$W/sum
records "$R" 1 0 sum
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
p=$(split_para "$R/report.md")
check "split, parts that cannot add up: the report says the model does not hold, and why" eval \
	'[[ $p == *"does not hold on this machine: its parts would not add up within their $(
		)intervals: at 0 or more each, their lower ends add to 10 us, above other minus $(
		)same'"'"'s upper end, 2"* ]]'
check "split, parts that cannot add up: no part given as a cost" \
	eval '! grep -q "us FUSE.s own path" <<<"$p"'
check "split, parts that cannot add up: tables.md says why the model does not hold" \
	grep -qF "| the model does not hold: its parts would not add up within their intervals" \
	"$R/tables.md"

# below: a round trip recorded below zero (on CPU 0 alone), which no time can be
R=$W/below
records "$R" 1 0 below
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
p=$(split_para "$R/report.md")
check "split, a round trip below zero: no split, and why" eval \
	'[[ $p == *"cannot be given: cpupair recorded a round trip below zero, which no time can be"* ]]'
check "split, a round trip below zero: no negative time quoted (${p:0:60}...)" \
	eval '! grep -Eq -- "(^|[^0-9.e])-[0-9]" <<<"$p"'
check "split, a round trip below zero: no split figure" \
	[ ! -e "$R/figures/src/cputestfs_split.dat" ]

# fast: a stat() served on the other CPU is faster than one on the caller's
R=$W/fast
records "$R" 1 0 fast
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
p=$(split_para "$R/report.md")
check "split, other faster than same: said as less time, nothing to split" \
	eval '[[ $p == "A stat() served on CPU 1 for a caller on CPU 0 took 1.67 us less than one $(
		)served on the caller"* ]]'
check "split, other faster than same: no negative time in the sentence" \
	eval '! grep -Eq -- "-[0-9]" <<<"$p"'
if [ -s "$R/figures/src/cputestfs_split.gp" ]; then
	ylo=$(sed -n '1,/^plot/s/^set yrange \[\([^:]*\):.*/\1/p' "$R/figures/src/cputestfs_split.gp")
	bd=$(awk '!/^#/ && /other - same/ { print $NF; exit }' "$R/figures/src/cputestfs_split.dat")
	check "the split's figure draws other - same below zero ($bd) inside its yrange (from $ylo)" \
		eval 'within "$bd" -1.7 -1.6 && awk -v a="$ylo" -v b="$bd" "BEGIN { exit !(a < b) }"'
else
	nok "the split's figure is written for other faster than same"
fi

R=$W/mix
records "$R" 1 0 mix
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
check "split: when neither pipe nor futex slept on every wait, no split, and why" \
	grep -q "cannot be given: neither cpupair's pipe nor its futex round trip slept on every wait $(
		)(waits that slept: pipe 70% between the CPUs and 100% on CPU 0 alone, futex 60% and 60%" \
	"$R/report.md"
check "split: a mix draws no split figure" [ ! -e "$R/figures/src/cputestfs_split.dat" ]

R=$W/flag
records "$R" 1 0 flag
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
p=$(split_para "$R/report.md")
check "split: a flagged cache line is no cache part; the wake-ups hold it (80 - 20 = 60 us)" eval \
	'[[ $p == *"none apart are the cache transfers $(
		)(cpupair"*"flagged: a spinner lost its CPU"*", 60 us [5"* ]]'

# records from before the diagonal: no same-CPU round trip, so no split
R=$W/nodiag
records "$R" 1 0
grep -v "class=same" "$R/raw.csv" >"$R/raw.tmp" && mv "$R/raw.tmp" "$R/raw.csv"
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
check "split: without the same-CPU round trip, no split, and why" \
	grep -q "cannot be given: cpupair did not measure the same-CPU round trip on CPU 0" "$R/report.md"

R=$W/without
records "$R" 0 0
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report without cpupair records: exit 0 (got $rc)" [ "$rc" = 0 ]
check "without cpupair, the report says so" \
	grep -q 'cpupair was not run in this run directory' "$R/report.md"
check "without cpupair, no split figure" [ ! -e "$R/figures/src/cputestfs_split.gp" ]

# costs RUNDIR MODE: libfuse same/other/none as found and with idle=poll, dev same/other
# as found only (12 us of server CPU a request), uring none as found (5.59 us) and with
# idle=poll (5.31 us); MODE like: CPUs idle 40% as found and 10% with idle=poll; odd: 105%
# idle and -7 us of server CPU, other/same past 1 with idle=poll; bare: no cost recorded.
costs() {
	mkdir -p "$1"
	awk -v mode="$2" 'BEGIN {
		print "bench,config,rep,metric,value,unit"
		c = "baseline=fuse;client_cpu=0;clients=1;daemon=%s;daemon_cpu=0;%splacement=%s;transport=%s"
		for (rep = 1; rep <= 6; rep++) {
			j = rep % 3
			for (k = 0; k < 2; k++) {
				id = k ? "idle=poll;" : ""
				row(sprintf(c, "single", id, "same", "libfuse"), 100000 + j, "")
				row(sprintf(c, "single", id, "other", "libfuse"), (k ? (mode == "odd" ? 150000 : 80000) : \
					10000) + j, "")
				row(sprintf(c, "single", id, "none", "libfuse"), 12000 + j, "")
				row(sprintf(c, "percpu", id, "none", "uring"), 70000 + j, k ? 5.31 : 5.59)
			}
			row(sprintf(c, "single", "", "same", "dev"), 110000 + j, 12)
			row(sprintf(c, "single", "", "other", "dev"), 11000 + j, 12)
		}
	}
	function row(cfg, v, cpu) {
		printf "cputestfs,%s,%d,stat_per_s,%d,1/s\n", cfg, rep, v
		if (mode == "bare")
			return
		idle = mode == "odd" ? 105 : cfg ~ /idle=poll/ ? 10 : 40
		printf "cputestfs,%s,%d,mon_cpu0_idle_pct,%d,%%\n", cfg, rep, idle
		if (cpu != "")
			printf "cputestfs,%s,%d,server_cpu_us_per_req,%g,us\n", cfg, rep, mode == "odd" ? -7 : cpu
	}' >"$1/raw.csv"
}
R=$W/like
costs "$R" like
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
T=$R/tables.md
check "like with like: the server CPU column names the ratio it comes from" \
	grep -q "^| lever |.* server CPU us/request (uring/libfuse (none)) | $(
		)CPUs idle % (other/same (libfuse)) |" "$T"
check "like with like: server CPU as found is uring's 5.59, not dev's 12 $(
	)($(cell "as found" 7 "$T"))" \
	within "$(cell "as found" 7 "$T")" 5.58 5.6
check "like with like: server CPU with idle=poll is uring's 5.31 ($(cell idle=poll 7 "$T"))" \
	within "$(cell idle=poll 7 "$T")" 5.3 5.32
check "the sentence names the lever's cost as the change it makes in its ratio's configs" \
	grep -q "^Here, idle=poll closes .* of other/same (libfuse) .*; in that ratio's configs it takes $(
		)the CPUs' idle share from 40% to 10% of the time" "$R/report.md"
check "the sentence gives no other configs' server CPU as the lever's cost" \
	eval '! grep "^Here, idle=poll" "$R/report.md" | grep -q "5.31"'

R=$W/odd
costs "$R" odd
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rows=$(grep -E '^\| (as found|idle=poll) \|' "$R/report.md")
check "impossible records: no idle share above 100% in the levers table" \
	eval '! grep -q "| 105 |" <<<"$rows"'
check "impossible records: no negative cost in the levers table" eval '! grep -q -- "-7" <<<"$rows"'
check "impossible records: the cells say what was left out" eval \
	'grep -q "not recorded (a negative CPU time left out)" <<<"$rows" &&
	 grep -q "(a share outside 0-100% left out)" <<<"$rows"'
check "a lever past 1 closes all of the gap, never more than 100%" eval \
	'grep -q "^| idle=poll | 1.5 \[[^]]*\]; all of it, past 1 |" "$R/report.md" &&
	 ! grep -Eq "(closes |; )[0-9]{3,}%" "$R/report.md"'
check "the sentence says past 1, not a share above 100%" \
	grep -q "^Here, idle=poll closes all of the gap, and goes past 1, of other/same (libfuse)" \
		"$R/report.md"

R=$W/bare
costs "$R" bare
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
check "no cost recorded at all: the sentence says so in one clause" eval \
	'grep -q "^Here, idle=poll .*; its cost in that ratio.s configs was not recorded (neither" \
		"$R/report.md" &&
	 ! grep -q "at a cost of" "$R/report.md"'

# ddpar: clone_fd on/off and uring/libfuse at the most processes, as found and with idle=poll
R=$W/ddpar
mkdir -p "$R"
awk 'BEGIN {
	print "bench,config,rep,metric,value,unit"
	for (rep = 1; rep <= 3; rep++)
		for (i = 0; i < 2; i++) {
			id = i ? "idle=poll;" : ""
			printf \
				"ddpar,bs=4096;clone_fd=off;%smode=write;procs=4;transport=libfuse,%d,write_MB_per_s,%d,MB/s\n",
				id, rep, 100
			printf \
				"ddpar,bs=4096;clone_fd=on;%smode=write;procs=4;transport=libfuse,%d,write_MB_per_s,%d,MB/s\n",
				id, rep, i ? 150 : 120
		}
}' >"$R/raw.csv"
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "ddpar: harness report exit 0 ($rc)" [ "$rc" = 0 ]
check "ddpar: the levers table gives clone_fd on/off at N=4, 1.2 as found and 1.5 with idle=poll" \
	eval \
	'grep -q "^| lever | clone_fd on/off (write, N=4) |" "$R/report.md" &&
	 within "$(cell "as found" 3 "$R/report.md")" 1.19 1.21 &&
	   within "$(cell idle=poll 3 "$R/report.md")" 1.49 1.51'
check "ddpar: fewer than 6 repetitions are marked, not judged" \
	grep -q '^| idle=poll | 1.5 (n<6)' "$R/report.md"

# A lever the benchmark refused here (exit 4: no cpuidle driver reads PM QoS): its points are
# skipped, so no record holds idle=poll; the row says it cannot act, with the reason, no share.
R=$W/inert
records "$R" 0 0
sed -i '/idle=poll/d' "$R/raw.csv"
c="baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=1;idle=poll;"
c+="placement=other;transport=libfuse"
{
	echo "bench,config,rep,exit,reason"
	for rep in 1 2; do
		echo "cputestfs,\"$c\",$rep,4,--idle poll: no cpuidle driver (current_driver: none) | x"
	done
} >"$R/failures.csv"
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "inert lever: harness report exit 0 (got $rc: $(tail -n1 "$W/plot.err"))" [ "$rc" = 0 ]
row=$(grep '^| idle=poll |' "$R/report.md")
check "inert lever: report.md's levers table has an idle=poll row ($row)" [ -n "$row" ]
check "inert lever: the row says it cannot act here, with the reason" \
	eval '[[ $row == "| idle=poll | cannot act here: --idle poll: no cpuidle driver"* ]]'
check "inert lever: the row gives no share of the gap" eval '[[ $row != *"%"* ]]'
check "inert lever: the reason's '|' cannot break the table" \
	eval '[ "$(printf "%s" "$row" | tr -cd "|" | wc -c)" = \
		"$(grep "^| as found |" "$R/report.md" | tr -cd "|" | wc -c)" ]'
check "inert lever: one row however many of its points were skipped" \
	[ "$(grep -c '^| idle=poll |' "$R/report.md")" = 1 ]
rm "$R/failures.csv"
"$BIN/harness" report "$R" >/dev/null 2>&1
check "no skipped point: no idle=poll row" eval '! grep -q "^| idle=poll |" "$R/report.md"'
t_done
