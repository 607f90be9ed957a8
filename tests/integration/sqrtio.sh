#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sqrtio end to end on this machine's disk: IRQ discovery finds a line that an
# independent dd burst also moves and names every knob a run may change, a short
# run on the repository's filesystem gives records that parse with readers on /
# off the CPU that completes their reads (per reader CPU, from discovery), the
# post's table layout and the cost table, a stalled reader fails its point while
# the rest goes on, a stalled discovery probe fails discovery in bounded time,
# SIGTERM restores rq_affinity at once, SIGKILL leaves it to journal replay, and
# bad input gets one line, exit 2 or 4, and no knob change; rq_affinity that
# cannot act (threaded IRQs; rq 1 with readers sharing the completing CPU's
# cache, from a fake sysfs tree) exits 4 with one line. (~90 s)
. "$(dirname "$0")/lib.sh"

SQ=$BIN/sqrtio
if [ ! -x "$SQ" ]; then
	skip "sqrtio" "bin/sqrtio not built (run make)"
	t_done
fi
# Never the default journal: tests journal under their own work directory.
: "${AFFBENCH_JOURNAL:=$AFFBENCH_WORKDIR/knobs.journal}"
export AFFBENCH_JOURNAL
out=$AFFBENCH_WORKDIR/sqrtio-it
mkdir -p "$out"
quick=(--duration 0.3 --repeat 1 --quiet)

restore() {
	if [ -x "$BIN/harness" ]; then
		"$BIN/harness" restore --journal "$AFFBENCH_JOURNAL" --workdir "$AFFBENCH_WORKDIR"
	else
		echo "bin/harness missing: cannot replay $AFFBENCH_JOURNAL" >&2
		return 1
	fi
}
# Whatever happens below, a knob a killed run left changed goes back.
trap 'restore >/dev/null 2>&1' EXIT

# The scratch file sits on the repository's filesystem (tests' work dir may be tmpfs elsewhere).
F=$TOP/.affbench-sqrtio-it.$$
trap 'restore >/dev/null 2>&1; rm -rf "$F" "$AFFBENCH_WORKDIR"/sqrtio-{fake,llc}.$$' EXIT

# Another sqrtio on this machine (a harness run, another checkout's tests) changes
# the same rq_affinity, and each restores what it found: knob checks hold only when
# they do not overlap. Runs that change the knob, and the first reading of it, wait
# until no other sqrtio runs (none of ours runs when this is called).
quiet_disk() {
	wait_until 120 eval '! pgrep -x sqrtio >/dev/null' ||
		echo "# another sqrtio still runs: rq_affinity checks may see its changes"
}

# --- rq_affinity where the block layer never moves a completion: exit 4 -------
# Threaded IRQs (threadirqs, PREEMPT_RT) make every rq_affinity complete where the IRQ
# ran; a fake tree (AFFBENCH_SYSROOT) says so on any machine, before the disk is read.
FAKE=$AFFBENCH_WORKDIR/sqrtio-fake.$$
mkdir -p "$FAKE/proc"
echo "quiet threadirqs" >"$FAKE/proc/cmdline"
err=$(AFFBENCH_SYSROOT=$FAKE "$SQ" --file "$F" --rq 1,2 "${quick[@]}" 2>&1 >/dev/null)
rc=$?
check "--rq 1,2 with threadirqs: exit 4, one line naming threaded IRQs ($rc: $err)" \
	eval '[ "$rc" = 4 ] && [ "$(printf "%s\n" "$err" | grep -c .)" = 1 ] &&
		[[ $err == *"cannot act here: IRQs are threaded (booted with threadirqs)"* ]]'

# --- IRQ discovery ---------------------------------------------------------
quiet_disk
"$SQ" --file "$F" --discover >"$out/disc.txt" 2>"$out/disc.err"
rc=$?
if [ "$rc" = 4 ]; then
	skip "sqrtio on $TOP" "$(cat "$out/disc.err")"
	t_done
fi
check "--discover exits 0 (rc $rc: $(head -c 300 "$out/disc.err"))" [ "$rc" = 0 ]
kv() { sed -n "s/^$1=//p" "$out/disc.txt"; }
disk=$(kv disk) irqs=$(kv irqs) irq_cpus=$(kv irq_cpus)
rq_path=/sys/block/$disk/queue/rq_affinity
check "disk '$disk' has $rq_path" [ -n "$disk" -a -f "$rq_path" ]
check "at least one IRQ reported (irqs='$irqs', completing CPUs '$irq_cpus')" \
	bash -c "[[ '$irqs' =~ ^[0-9]+(,[0-9]+)*$ && -n '$irq_cpus' ]]"
orig=$(cat "$rq_path")
# One knob= line per knob a run may change, for the harness to record before and after.
knobs=$(kv knob | tr '\n' ' ')
want="$rq_path "
for i in ${irqs//,/ }; do want+="/proc/irq/$i/smp_affinity_list "; done
check "knob= lines: rq_affinity and each IRQ's affinity (got '$knobs', want '$want')" \
	[ "$knobs" = "$want" ]
missing=""
for k in $knobs; do [ -r "$k" ] || missing+=" $k"; done
check "every knob= path is readable (missing:$missing)" [ -z "$missing" ]
# CPU lists in Linux form: "0-2,5" -> " 0 1 2 5 "
cpus_of() {
	local out=" " part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then
			out+="$(seq -s ' ' "${part%-*}" "${part#*-}") "
		else
			out+="$part "
		fi
	done
	printf '%s' "$out"
}
# Per reader CPU: local iff it appears in its own cpuN_completes_on, every allowed CPU one or the
# other.
local_cpus=$(cpus_of "$(kv local_cpus)") remote_cpus=$(cpus_of "$(kv remote_cpus)")
wrong="" ncpu=0
for c in $(cpus_of "$(taskset -pc $$ | sed 's/.*: //')"); do
	ncpu=$((ncpu + 1))
	done_on=$(cpus_of "$(kv "cpu${c}_completes_on")")
	[[ $done_on == *" $c "* ]] && want=local || want=remote
	[[ $local_cpus == *" $c "* ]] && got=local || { [[ $remote_cpus == *" $c "* ]] && got=remote ||
		got=neither; }
	[ "$got" = "$want" ] || wrong+=" CPU $c: $got, completes on '$done_on'"
done
check "each of the $ncpu CPUs is local iff it completes its own reads ($wrong)" \
	[ "$ncpu" -gt 1 -a -z "$wrong" ]

# Independently of sqrtio: O_DIRECT reads by dd move the reported line(s).
irq_total() { # sum of the reported IRQ lines over all CPUs
	local s=0 i
	for i in ${irqs//,/ }; do
		s=$((s + $(awk -v n="$i:" '$1 == n { t = 0
			for (k = 2; k <= NF && $k ~ /^[0-9]+$/; k++) t += $k; print t }' /proc/interrupts)))
	done
	echo $s
}
before=$(irq_total)
dd if="$F" of=/dev/null bs=4k count=400 iflag=direct status=none
after=$(irq_total)
check "dd's 400 O_DIRECT reads raise IRQ(s) $irqs by >= 200 (got $((after - before)))" \
	[ $((after - before)) -ge 200 ]

# --- a short run: records parse, readers where local says ------------------
# Default target (scratch file in the current directory), run from the repository.
other=$([ "$orig" = 0 ] && echo 1 || echo 0)
# rq_affinity 1 cannot act for readers off the IRQ CPU where they share its last-level
# cache (sysfs cache/index*), and sqrtio rightly skips that point (checked below, on a
# fake sysfs). The runs that need every point measured use 0 and 2, which act anywhere:
# act, the machine's own value unless that is 1.
act=$([ "$orig" = 1 ] && echo 2 || echo "$orig")
# 3 s per point: on a busy host one read can stall for over a second, and a point
# whose window sees no read complete fails (seen at 1 s under make check-loaded).
quiet_disk
(cd "$TOP" && "$SQ" --rq 0,2 --local 0,1 --format csv --duration 3 --repeat 1 --quiet) \
	>"$out/run.csv" 2>"$out/run.err"
rc=$?
check "short run exits 0 (rc $rc: $(head -c 300 "$out/run.err"))" [ "$rc" = 0 ]
check "rq_affinity back to $orig after the run (now $(cat "$rq_path"))" \
	[ "$(cat "$rq_path")" = "$orig" ]
check "no scratch file left in $TOP" [ -z "$(ls -A "$TOP" | grep '^\.affbench-sqrtio\.')" ]
check "CSV header exact" [ "$(head -1 "$out/run.csv")" = "bench,config,rep,metric,value,unit" ]
# config may be quoted (CPU lists with commas): take metric, value, unit from the end
bad=$(awk -F, 'NR > 1 && ($1 != "sqrtio" || $(NF-3) !~ /^[1-9][0-9]*$/ ||
	$(NF-1) !~ /^[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/ || $NF == "")' "$out/run.csv")
check "every row: bench sqrtio, rep, finite value, unit ($bad)" [ -z "$bad" ]
for m in sqrt_M_per_s ios_K_per_s io_lat_p50_us io_lat_p99_us irqs_per_io cal_ipis_per_io \
	res_ipis_per_io; do
	n=$(awk -F, -v m="$m" '$(NF-2) == m' "$out/run.csv" | wc -l)
	check "$m recorded for 2 rq x 2 local (got $n)" [ "$n" = 4 ]
done
zero=$(awk -F, '$(NF-2) == "ios_K_per_s" && !($(NF-1) > 0)' "$out/run.csv")
check "ios_K_per_s > 0 everywhere ($zero)" [ -z "$zero" ]
keys=$(awk -F, 'NR == 2' "$out/run.csv" | grep -o '[a-z_]*=' | tr -d '=' | tr '\n' ' ')
check "config keys sorted: io_cpus io_procs irq_cpus local rq sqrt_cpus sqrt_procs (got '$keys')" \
	[ "$keys" = "io_cpus io_procs irq_cpus local rq sqrt_cpus sqrt_procs " ]
# local=1: readers on CPUs that complete their own reads, local=0: on CPUs whose
# reads complete elsewhere, per reader CPU as discovery found (not "the" IRQ CPU).
place=$(awk -F, '$(NF-2) == "ios_K_per_s"' "$out/run.csv" | while IFS= read -r l; do
	io=$(printf '%s' "$l" | sed -n 's/.*io_cpus=\([0-9,-]*\);.*/\1/p')
	irq=$(printf '%s' "$l" | sed -n 's/.*irq_cpus=\([0-9,-]*\);.*/\1/p')
	loc=$(printf '%s' "$l" | sed -n 's/.*;local=\([01]\);.*/\1/p')
	if [ -z "$io" ] || [ -z "$irq" ] || [ -z "$loc" ]; then echo "unparsed: $l"; continue; fi
	[ "$irq" = "$irq_cpus" ] || echo "irq_cpus=$irq, discovery said $irq_cpus"
	pool=$([ "$loc" = 1 ] && echo "$local_cpus" || echo "$remote_cpus")
	for c in $(cpus_of "$io"); do
		[[ $pool == *" $c "* ]] ||
			echo "local=$loc reader on CPU $c (local:$local_cpus remote:$remote_cpus)"
	done
	echo "compared"
done)
compared=$(printf '%s\n' "$place" | grep -c '^compared$')
place=$(printf '%s\n' "$place" | grep -v '^compared$')
check "placement compared on every point ($compared rows)" [ "$compared" = 4 ]
check "readers on CPUs completing their own reads for local=1, on the others for local=0 ($place)" \
	[ -z "$place" ]

# --- the descriptor's tables on stdout ----------------------------------------
# 1.5 s windows: on a busy host one read can stall for over a second.
"$SQ" --file "$F" --rq "$act" --local 0,1 --duration 1.5 --repeat 6 --quiet >"$out/table.txt" \
	2>"$out/table.err"
rc=$?
check "table run exits 0 (rc $rc: $(head -c 300 "$out/table.err"))" [ "$rc" = 0 ]
# numbers as every human table prints them (ab_r_num: 3 significant figures, plain)
N='[0-9]+(\.[0-9]+)?'
n=$(grep -cE "^rq=$act local=[01] +$N \(M sqrt/sec\) +$N \(K ios/sec\)( +post: [0-9.]+ / $(
	)[0-9.]+)?$" "$out/table.txt")
check "two lines in the post's layout (got $n)" [ "$n" = 2 ]
n=$(grep -cE "^rq=$act local=[01] +$N +$N +$N +$N +$N  io=[0-9,-]+ sqrt=[0-9,-]+ irq=[0-9,-]+$" \
	"$out/table.txt")
check "latency, IRQs and IPIs per IO and the CPUs, one line per point (got $n)" [ "$n" = 2 ]
check "the cost table's header" \
	grep -qE "^ +p50 us +p99 us +irqs/io +CAL/io +RES/io +cpus$" "$out/table.txt"
check "off / on ratios judged with a 95% CI over 6 repetitions" \
	grep -qE "^- rq=$act, readers off / on the IRQ CPU: sqrt [0-9.]+x \[[0-9.]+, [0-9.]+\] 95% CI, $(
		)(not )?significant; IO [0-9.]+x \[" "$out/table.txt"
check "no per-record lines in table format" \
	bash -c "! grep -qE 'io_cpus=|ios_K_per_s' '$out/table.txt'"
"$SQ" --file "$F" --rq "$act" --local 0,1 --duration 1.5 --repeat 2 --quiet >"$out/table2.txt" 2>&1
check "below 6 repetitions: too few to judge, no interval" \
	grep -qE "^- rq=$act, readers off / on the IRQ CPU: sqrt [0-9.]+x \(too few repetitions to $(
		)judge" "$out/table2.txt"

# --- a stalled reader fails its point, the rest goes on --------------------------
# The first repetition's workers are stopped (SIGSTOP): no read completes, which is
# what a hung device looks like from here. Bounded by 5 s (scaled by machine speed).
quiet_disk
"$SQ" --file "$F" --rq "$orig" --local 1 --duration 6 --repeat 2 --format csv >"$out/stall.csv" \
	2>"$out/stall.err" &
pid=$!
stopped=""
# stop_rep1: once repetition 1 started (after discovery: seconds on a busy machine), stop its
# workers
stop_rep1() {
	grep -q "rep 1/2" "$out/stall.err" || return 1
	stopped=$(pgrep -P "$pid" | tr '\n' ' ')
	[ -n "$stopped" ] && kill -STOP $stopped
}
wait_until 60 stop_rep1
t0=$(date +%s)
wait "$pid"
rc=$? secs=$(($(date +%s) - t0))
check "workers of repetition 1 stopped ('$stopped')" [ -n "$stopped" ]
check "a stalled point exits 1 (rc $rc after ${secs} s)" [ "$rc" = 1 ]
# Stopped while reading: the reader's CPU is named. On a busy machine the workers may
# not have reached the start barrier yet when stopped: then the barrier's timeout says so.
check "the stall is reported: the reader's CPU, or the barrier it never reached $(
	)($(grep failed "$out/stall.err"))" \
	grep -qE "rq=$orig local=1: measurement failed: (no read issued on CPU [0-9]+ completed for $(
		)[0-9.]+ s|the reader on CPU [0-9]+ did not stop|workers did not reach the start barrier within $(
		)[0-9.]+ s)" "$out/stall.err"
check "repetition 2 still measured, repetition 1 has no number" \
	[ "$(csv_value "$out/stall.csv" "local=1" ios_K_per_s)" != "" \
		-a "$(awk -F, '$(NF-3) == 1' "$out/stall.csv" | wc -l)" = 0 ]
alive=""
for k in $stopped; do
	st=$(ps -o stat= -p "$k" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ] && alive="$alive $k"
done
check "the stopped workers were killed, not left behind (alive:$alive)" [ -z "$alive" ]
check "rq_affinity $orig after the stalled run (now $(cat "$rq_path"))" \
	[ "$(cat "$rq_path")" = "$orig" ]

# --- a stalled discovery probe fails discovery in bounded time ------------------
"$SQ" --file "$F" --discover >/dev/null 2>"$out/dstall.err" &
pid=$!
probe=""
for _ in $(seq 400); do
	probe=$(pgrep -P "$pid" | head -1)
	[ -n "$probe" ] && { kill -STOP "$probe"; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.005
done
t0=$(date +%s)
wait "$pid"
rc=$? secs=$(($(date +%s) - t0))
if [ -z "$probe" ]; then
	skip "a stalled discovery probe" "every probe ended before this script could stop one (rc $rc)"
else
	# sqrtio gives a stuck probe its start barrier (10 s) or stall time (5 s), scaled by its
	# slowness; beyond that, the other probes on a busy machine, which took 61 s here under
	# load. The bound only tells bounded from a hang, which never ends: it is wide.
	bound=$(($(scaled 12) + 108))
	check "discovery with a stopped probe exits 1 (rc $rc: $(cat "$out/dstall.err"))" [ "$rc" = 1 ]
	check "it ends within $bound s, not hung (${secs} s)" [ "$secs" -le "$bound" ]
	check "it says so in one line" [ "$(grep -c . "$out/dstall.err")" = 1 ]
	check "its message says what hung" \
		grep -qE "finding the IRQ of .*(did not finish within|did not reach the start barrier)" \
		"$out/dstall.err"
	st=$(ps -o stat= -p "$probe" 2>/dev/null)
	check "the stopped probe was killed (state '$st')" [ -z "$st" -o "${st#Z}" != "$st" ]
fi

# --- SIGTERM: rq_affinity restored at once, workers stopped ----------------------
# measuring PID: run PID journaled rq_affinity, changed it and started its workers
# (discovery comes first: seconds, more on a busy machine). Its own journal line
# tells its change from another sqrtio's on this machine.
journaled() {
	awk -F'\t' -v p="$1" -v k="$rq_path" '$2 == p && $4 == k { f = 1 } END { exit !f }' \
		"$AFFBENCH_JOURNAL" 2>/dev/null
}
measuring() { journaled "$1" && [ "$(cat "$rq_path")" = "$other" ] && pgrep -P "$1" >/dev/null; }
quiet_disk
"$SQ" --file "$F" --rq "$other" --local 1 --duration 30 --repeat 1 --quiet >/dev/null \
	2>"$out/term.err" &
pid=$!
changed=0
wait_until 60 measuring "$pid" && changed=1
kids=$(pgrep -P "$pid" | tr '\n' ' ')
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM: the run changed rq_affinity first, then died of the signal (rc $rc: $(
	)$(cat "$out/term.err"))" \
	[ "$changed" = 1 -a "$rc" = 143 ]
check "SIGTERM: rq_affinity $orig again without a replay (now $(cat "$rq_path"))" \
	[ "$(cat "$rq_path")" = "$orig" ]
alive=""
for k in $kids; do
	st=$(ps -o stat= -p "$k" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ] && alive="$alive $k"
done
check "SIGTERM: workers stopped (children '$kids', alive '$alive')" [ -n "$kids" -a -z "$alive" ]

# --- SIGKILL: the journal brings rq_affinity back ------------------------------
quiet_disk
"$SQ" --file "$F" --rq "$other" --local 1 --duration 30 --repeat 1 --quiet >/dev/null \
	2>"$out/kill.err" &
pid=$!
changed=0
wait_until 60 measuring "$pid" && changed=1
kids=$(pgrep -P "$pid" | tr '\n' ' ')
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "run changed rq_affinity to $other before the kill ($(tail -n1 "$out/kill.err"))" \
	[ "$changed" = 1 ]
check "still $other after SIGKILL (nothing restored it yet: $(cat "$rq_path"))" \
	[ "$(cat "$rq_path")" = "$other" ]
check "journal holds the original of $rq_path" grep -qF "$rq_path	$orig" "$AFFBENCH_JOURNAL"
# alive_of PIDS...: those still running; reparented to an init that may not reap,
# a zombie (Z) counts as dead
alive_of() {
	local k st
	for k in "$@"; do
		st=$(ps -o stat= -p "$k" 2>/dev/null)
		[ -n "$st" ] && [ "${st#Z}" = "$st" ] && printf ' %s' "$k"
	done
}
# they die of their parent-death signal: at once, but a busy machine may take a moment
all_dead() { [ -z "$(alive_of "$@")" ]; }
# shellcheck disable=SC2086  # a list of pids
wait_until 20 all_dead $kids
alive=$(alive_of $kids)
check "workers died with the parent (children '$kids', alive '$alive')" \
	[ -n "$kids" -a -z "$alive" ]
restore 2>"$out/restore.err"
rc=$?
check "harness restore exits 0 (rc $rc: $(head -c 300 "$out/restore.err"))" [ "$rc" = 0 ]
check "rq_affinity restored to $orig (now $(cat "$rq_path"))" [ "$(cat "$rq_path")" = "$orig" ]

# --- rq_affinity 1 where the readers share the completing CPU's cache: exit 4 ----
# The block layer completes locally when the CPUs share a last-level cache (and
# capacity): a fake cache tree that puts every CPU in one L3 makes rq 1 inert, rq 2 not.
remote=$(kv remote_cpus)
if [ "$(id -u)" = 0 ] && [ -n "$remote" ]; then
	CT=$AFFBENCH_WORKDIR/sqrtio-llc.$$
	online=$(cat /sys/devices/system/cpu/online)
	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		c=$CT$d/cache/index0
		mkdir -p "$c"
		echo 3 >"$c/level"
		echo Unified >"$c/type"
		echo "$online" >"$c/shared_cpu_list"
	done
	quiet_disk
	err=$(AFFBENCH_SYSROOT=$CT "$SQ" --file "$F" --rq 1 --local 0 "${quick[@]}" 2>&1 >/dev/null)
	rc=$?
	check "--rq 1 --local 0 in one L3: exit 4, one line naming the shared cache ($rc: $err)" \
		eval '[ "$rc" = 4 ] && [ "$(printf "%s\n" "$err" | grep -c .)" = 1 ] &&
			[[ $err == *"rq_affinity 1 cannot act"*"share a last-level cache"* ]]'
	err=$(AFFBENCH_SYSROOT=$CT "$SQ" --file "$F" --rq 2 --local 0 "${quick[@]}" 2>&1 >/dev/null)
	rc=$?
	check "--rq 2 --local 0 in one L3 still runs: 2 forces the reader's CPU ($rc: $err)" \
		eval '[ "$rc" = 0 ] && [[ $err != *"cannot act"* ]]'
	check "rq_affinity back to $orig after them (now $(cat "$rq_path"))" \
		[ "$(cat "$rq_path")" = "$orig" ]
	restore >/dev/null 2>&1	# the journal emptied, as the bad inputs below expect it
else
	skip "rq_affinity 1 in one L3" \
		"needs root and a CPU whose reads complete elsewhere (remote_cpus='$remote')"
fi

# --- bad input: one line, exit 2 or 4, no knob touched -------------------------
jsize() { stat -c %s "$AFFBENCH_JOURNAL" 2>/dev/null || echo 0; }
j0=$(jsize)
expect_rc "missing device" 2 "$SQ" --device /dev/affbench-no-such-disk --rq "$other" "${quick[@]}"
expect_rc "a regular file as --device" 2 "$SQ" --device /etc/hostname --rq "$other" "${quick[@]}"
expect_rc "rq value 3" 2 "$SQ" --file "$F" --rq 3 "${quick[@]}"
expect_rc "--duration 1e-9 (below the shortest window)" \
	2 "$SQ" --file "$F" --rq "$other" --quiet --duration 1e-9
expect_rc "--file with --device" 2 "$SQ" --file "$F" --device "/dev/$disk" "${quick[@]}"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=/dev/shm/affbench-sqrtio-it.$$
	expect_rc "a file on tmpfs" 4 "$SQ" --file "$shm" --rq "$other" "${quick[@]}"
	check "nothing created on tmpfs" [ ! -e "$shm" ]
	check "the tmpfs skip names tmpfs" \
		grep -q tmpfs <("$SQ" --file "$shm" --rq "$other" "${quick[@]}" 2>&1)
else
	skip "a file on tmpfs" "/dev/shm is not tmpfs here"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	expect_rc "not root, rq must change" 4 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SQ" --device "/dev/$disk" --rq 0,1,2 "${quick[@]}"
else
	skip "not root, rq must change" "needs root and setpriv to drop privileges"
fi
check "bad inputs changed no knob (rq_affinity $(cat "$rq_path"), journal $j0 -> $(jsize) bytes)" \
	[ "$(cat "$rq_path")" = "$orig" -a "$(jsize)" = "$j0" ]

t_done
