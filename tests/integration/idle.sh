#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --idle, the idle policy every benchmark takes (lib/sys/idle_policy.h, docs/records.md):
#   - bad values exit 2 with one line naming them, in every benchmark, their
#     control bytes escaped (a newline, ESC, a tab);
#     --check-options takes good ones without touching the machine;
#   - haltpoll:NS where the cpuidle driver is not haltpoll, poll where
#     /dev/cpu_dma_latency is missing, and poll and max-latency where no cpuidle
#     driver reads PM QoS, exit 4 with one line (a fake tree through the
#     AFFBENCH_SYSROOT test hook, and this machine where it has no driver);
#   - busy acts on every machine: its records carry idle=busy and the spinners'
#     CPU time, and no spinner outlives the benchmark, even one SIGKILLed;
#   - poll and max-latency hold their limit while the benchmark runs, and no PM
#     QoS request is held after it: the limit reads as before and no process
#     has /dev/cpu_dma_latency open that did not before;
#   - records carry idle=<policy> except for as-found; the tables read
#     as-found's records unless they name a policy, and list both apart;
#   - haltpoll:NS sets guest_halt_poll_ns during the run and puts it back at
#     exit; after a SIGKILL mid-run `harness restore` puts it back (where the
#     haltpoll driver is in use; skipped elsewhere).
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/idle.$$
mkdir -p "$W"
: "${AFFBENCH_JOURNAL:=$AFFBENCH_WORKDIR/knobs.journal}"
export AFFBENCH_JOURNAL
HP=/sys/module/haltpoll/parameters/guest_halt_poll_ns
QOS=/dev/cpu_dma_latency
STRAY=()
cleanup() {
	kill_same "${STRAY[@]}"
	rm -rf "$W"
}
trap cleanup EXIT

# ---- options: no machine needed ----
for b in cputestfs ddpar sqrtio fdget; do
	expect_rc "$b --idle bogus: exit 2, one line" 2 "$BIN/$b" --idle bogus --check-options
	err=$("$BIN/$b" --idle bogus --check-options 2>&1 >/dev/null)
	check "$b --idle bogus: the line names the value and the option ($err)" \
		eval '[[ $err == *"'"'bogus'"'"*"--idle"* ]]'
	check "$b --help lists --idle" eval '"$BIN/$b" --help | grep -q -- "--idle POLICY"'
done
for v in poll:1 max-latency max-latency: max-latency:+5 max-latency:0x10 max-latency:1000001 \
	haltpoll:2e5 haltpoll:-1 haltpoll:1000000001 "as-found " "" busy:1 busy: bus; do
	expect_rc "fdget --idle '$v': exit 2, one line" 2 "$BIN/fdget" --idle "$v" --check-options
done
# a value's control bytes are escaped, never echoed: one line, nothing a terminal acts on
for v in $'poll\nFAKE LINE' $'poll\e[31mX' $'poll\tX'; do
	q=$(printf %q "$v")
	expect_rc "cpupair --idle $q: exit 2, one line" 2 "$BIN/cpupair" --idle "$v" --check-options
	err=$("$BIN/cpupair" --idle "$v" --check-options 2>&1 >/dev/null)
	check "cpupair --idle $q: no control byte in its line ($(printf %q "$err"))" \
		eval '[ -n "$err" ] && ! printf %s "$err" | grep -q "[[:cntrl:]]"'
done
for v in as-found poll max-latency:0 max-latency:20 haltpoll:0 haltpoll:200000 busy; do
	"$BIN/fdget" --idle "$v" --check-options >/dev/null 2>&1
	rc=$?
	check "fdget --idle $v --check-options: exit 0 (got $rc)" [ "$rc" = 0 ]
done

# ---- the tables read as-found unless they say otherwise ----
# poll's records first: a lookup that ignored the idle key would take them
R=$W/tables
mkdir -p "$R"
{
	echo "bench,config,rep,metric,value,unit"
	for rep in 1 2; do
		for idle in "idle=poll;" ""; do
			for pl in same other; do
				v=10000; [ "$pl" = same ] && v=100000; [ -n "$idle" ] && v=$((v * 3 + 7))
				echo "cputestfs,baseline=fuse;client_cpu=1;clients=1;daemon=single;$(
					)daemon_cpu=1;${idle}placement=$pl;transport=libfuse,$rep,stat_per_s,$v,1/s"
			done
		done
	done
} >"$R/raw.csv"
"$BIN/harness" report "$R" >/dev/null 2>"$W/plot.err"
rc=$?
check "harness report of as-found and poll records: exit 0 (got $rc: $(tail -n1 "$W/plot.err"))" \
	[ "$rc" = 0 ]
check "the post's table reads as-found's same, not poll's" \
	grep -Eq '^stat calls/s +100000 +\(median' "$R/tables.md"
check "every configuration has an idle column: as-found and poll rows apart" eval \
	'grep -q "| daemon cpu | idle | calls/s |" "$R/tables.md" &&
	 grep -Eq "^\| same \|.*\| as-found \| 100000 \|" "$R/tables.md" &&
	 grep -Eq "^\| same \|.*\| poll \| 300007 \|" "$R/tables.md"'

# ---- what the machine lacks: a fake tree ----
FAKE=$W/fake
mkdir -p "$FAKE/sys/devices/system/cpu/cpuidle" "$FAKE/sys/module/haltpoll/parameters" "$FAKE/dev"
echo intel_idle >"$FAKE/sys/devices/system/cpu/cpuidle/current_driver"
echo menu >"$FAKE/sys/devices/system/cpu/cpuidle/current_governor"
echo 0 >"$FAKE/sys/module/haltpoll/parameters/guest_halt_poll_ns"
hp_before=$(cat "$HP" 2>/dev/null)
FD=("$BIN/fdget" --op pread --mode single --spawn 0 --duration 0.05 --repeat 1 --format csv --quiet)
expect_rc "--idle haltpoll:200000 under the driver intel_idle: exit 4, one line" 4 \
	env AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle haltpoll:200000
err=$(AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle haltpoll:200000 2>&1 >/dev/null)
check "the skip says the driver is not haltpoll ($err)" \
	eval '[[ $err == *"intel_idle, not haltpoll"* ]]'
check "the skip changed no guest_halt_poll_ns (${hp_before:-none})" \
	[ "$(cat "$HP" 2>/dev/null)" = "$hp_before" ]
check "the skip journaled nothing" eval '! grep -qs guest_halt_poll_ns "$AFFBENCH_JOURNAL"'
expect_rc "--idle poll without $QOS: exit 4, one line" 4 \
	env AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle poll
err=$(AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle poll 2>&1 >/dev/null)
check "the skip names $QOS ($err)" eval '[[ $err == *"$QOS"* ]]'
# A PM QoS device but a limit nothing reads: no cpuidle driver, as on a machine booted
# without one or with idle=poll. The device is a plain file here, so a hold would succeed.
touch "$FAKE/dev/cpu_dma_latency"
echo none >"$FAKE/sys/devices/system/cpu/cpuidle/current_driver"
for v in poll max-latency:7; do
	expect_rc "--idle $v with no cpuidle driver: exit 4, one line" 4 \
		env AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle $v
	err=$(AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle $v 2>&1 >/dev/null)
	check "--idle $v with no cpuidle driver: the line names the missing driver ($err)" \
		eval '[[ $err == *"no cpuidle driver"* ]]'
	check "--idle $v with no cpuidle driver: the line says what would act ($err)" \
		eval '[[ $err == *"--idle busy"* ]]'
	check "--idle $v with no cpuidle driver: nothing written to the device" \
		[ ! -s "$FAKE/dev/cpu_dma_latency" ]
done
mkdir -p "$FAKE/proc"
echo "root=/dev/vda idle=poll quiet" >"$FAKE/proc/cmdline"
err=$(AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle poll 2>&1 >/dev/null)
check "--idle poll on a machine booted with idle=poll: the line names idle=poll ($err)" \
	eval '[[ $err == *"idle=poll"* ]]'
rm -f "$FAKE/sys/devices/system/cpu/cpuidle/current_driver"
err=$(AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle poll 2>&1 >/dev/null)
rc=$?
check "--idle poll with no cpuidle directory at all: exit 4 (got $rc)" [ "$rc" = 4 ]
# With a driver, the hold goes through: the fake device holds the 32-bit limit.
echo intel_idle >"$FAKE/sys/devices/system/cpu/cpuidle/current_driver"
rm -f "$FAKE/proc/cmdline"
AFFBENCH_SYSROOT="$FAKE" "${FD[@]}" --idle max-latency:7 >"$W/fake.csv" 2>"$W/fake.err"
rc=$?
check "--idle max-latency:7 under intel_idle (fake tree): exit 0 (got $rc: $(
	)$(tail -n1 "$W/fake.err"))" [ "$rc" = 0 ]
check "--idle max-latency:7 under intel_idle: the device got the limit 7" \
	[ "$(od -An -t d4 -N4 "$FAKE/dev/cpu_dma_latency" | tr -d ' ')" = 7 ]

# ---- busy: acts on every machine ----
spinners() { pgrep -c -x fdget; }
sp_before=$(spinners)
"${FD[@]}" --idle busy --duration 0.3 --repeat 2 >"$W/busy.csv" 2>"$W/busy.err"
rc=$?
check "--idle busy: exit 0 (got $rc: $(tail -n1 "$W/busy.err"))" [ "$rc" = 0 ]
check "--idle busy: every record carries idle=busy" eval \
	'grep -q "^fdget,idle=busy;" "$W/busy.csv" && ! tail -n +2 "$W/busy.csv" | grep -v -q "idle=busy"'
n=$(grep -c ",mon_spinner_cpu_pct," "$W/busy.csv")
check "--idle busy: each timed repetition records the spinners' CPU time ($n of 2)" [ "$n" = 2 ]
check "--idle busy: the spinners' share is within 0-100%" awk -F, '
	$(NF-2) == "mon_spinner_cpu_pct" { v = $(NF-1) + 0; if (v < 0 || v > 100) bad = 1; n++ }
	END { exit bad || !n }' "$W/busy.csv"
check "--idle busy: no spinner left after the run ($(spinners), $sp_before before)" \
	[ "$(spinners)" = "$sp_before" ]
"${FD[@]}" --idle as-found >"$W/nobusy.csv" 2>/dev/null
check "--idle as-found: no spinner records" eval \
	'grep -q "^fdget," "$W/nobusy.csv" && ! grep -q ",mon_spinner_cpu_pct," "$W/nobusy.csv"'
"${FD[@]}" --idle busy --duration 1 --repeat 20 >/dev/null 2>&1 &
bp=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ "$(spinners)" -ge $((sp_before + 2)) ] && break; sleep 0.2; done
check "--idle busy: while it runs, its spinner process runs beside it $(
	)($(spinners), $sp_before before)" \
	[ "$(spinners)" -ge $((sp_before + 2)) ]
kill -KILL "$bp" 2>/dev/null
wait "$bp" 2>/dev/null
for _ in 1 2 3 4 5 6 7 8 9 10; do [ "$(spinners)" = "$sp_before" ] && break; sleep 0.2; done
check "--idle busy, SIGKILLed: its spinners die with it ($(spinners), $sp_before before)" \
	[ "$(spinners)" = "$sp_before" ]

# ---- the real machine: root and PM QoS ----
if [ "$(id -u)" != 0 ] || [ ! -w "$QOS" ]; then
	skip "PM QoS and haltpoll on this machine" "needs root and $QOS"
	t_done
fi
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)
if [ -z "$drv" ] || [ "$drv" = none ]; then
	# Nothing reads the limit here: the product refuses, and what a hold does is checked
	# above on a fake tree and by the emulated guests that have a driver.
	expect_rc "this machine has no cpuidle driver: --idle poll exits 4, one line" \
		4 "${FD[@]}" --idle poll
	check "no cpuidle driver: --idle poll left no PM QoS request" eval \
		'[ "$(od -An -t d4 -N4 "$QOS" | tr -d " ")" -gt 0 ]'
	skip "--idle poll and max-latency holding the limit on this machine" \
		"no cpuidle driver (current_driver: ${drv:-missing}): no governor reads PM QoS"
	skip "--idle haltpoll:NS on this machine" "the cpuidle driver is ${drv:-none}, not haltpoll"
	t_done
fi
qos_now() { od -An -t d4 -N4 "$QOS" | tr -d ' '; }
# processes holding the device open (pid:fd), ours or not
holders() { ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -c " -> $QOS\$"; }
qos_before=$(qos_now)
holders_before=$(holders)

# watch_for PID CMD...: until CMD succeeds (seen=yes) or PID has ended (seen=no)
watch_for() {
	local pid=$1 end=$((SECONDS + 30))
	shift
	seen=no
	while [ "$SECONDS" -lt "$end" ]; do
		"$@" && { seen=yes; return; }
		kill -0 "$pid" 2>/dev/null || return
		sleep 0.05
	done
}
# run_watch POLICY WANT: fdget under POLICY; was the limit WANT while it ran (seen)?
run_watch() {
	"$BIN/fdget" --op pread --mode single --spawn 0 --duration 0.5 --repeat 3 --format csv --quiet \
		--idle "$1" >"$W/run.csv" 2>"$W/run.err" &
	local bp=$!
	want=$2
	watch_for "$bp" eval '[ "$(qos_now)" = "$want" ]'
	wait "$bp"
	rc=$?
}
run_watch poll 0
check "--idle poll: exit 0 (got $rc: $(tail -n1 "$W/run.err"))" [ "$rc" = 0 ]
check "--idle poll: the CPU latency limit read 0 during the run" [ "$seen" = yes ]
check "--idle poll: records carry idle=poll" grep -q '^fdget,idle=poll;' "$W/run.csv"
check "--idle poll: every record carries it" \
	eval '! tail -n +2 "$W/run.csv" | grep -v -q "idle=poll"'
check "--idle poll: the limit after the run is as before ($(qos_now), was $qos_before)" \
	[ "$(qos_now)" = "$qos_before" ]
check "--idle poll: no PM QoS request held after the run $(
	)($(holders) holders, $holders_before before)" \
	[ "$(holders)" = "$holders_before" ]
run_watch max-latency:7 7
check "--idle max-latency:7: exit 0, the limit read 7 during the run (rc $rc, seen $seen)" \
	eval '[ "$rc" = 0 ] && [ "$seen" = yes ]'
check "--idle max-latency:7: records carry idle=max-latency:7" \
	grep -q 'idle=max-latency:7;' "$W/run.csv"
check "--idle max-latency:7: the limit after the run is as before" [ "$(qos_now)" = "$qos_before" ]
"${FD[@]}" --idle as-found >"$W/found.csv" 2>/dev/null
check "--idle as-found: records carry no idle key" eval \
	'grep -q "^fdget," "$W/found.csv" && ! grep -q "idle=" "$W/found.csv"'

# A benchmark with forked children (the FUSE daemon, the clients): none keeps the request.
if [ -w /dev/fuse ]; then
	"$BIN/cputestfs" --placement other --idle poll --duration 0.3 --repeat 1 --kstats off \
		--format csv --quiet >"$W/cfs.csv" 2>"$W/cfs.err"
	rc=$?
	check "cputestfs --idle poll: exit 0 or 4 (got $rc: $(tail -n1 "$W/cfs.err"))" \
		eval '[ "$rc" = 0 ] || [ "$rc" = 4 ]'
	[ "$rc" = 0 ] && check "cputestfs --idle poll: records carry idle=poll" \
		grep -q 'idle=poll;placement=other' "$W/cfs.csv"
	check "cputestfs --idle poll: no PM QoS request held after the run" \
		eval '[ "$(holders)" = "$holders_before" ] && [ "$(qos_now)" = "$qos_before" ]'
fi

# ---- haltpoll:NS on the real knob, where the haltpoll driver is in use ----
if ! drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null) ||
	[ "$drv" != haltpoll ] ||
	[ "$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null)" != haltpoll ] ||
	[ ! -w "$HP" ]; then
	skip "--idle haltpoll:NS on this machine" "the cpuidle driver is ${drv:-none}, not haltpoll"
	t_done
fi
# a value unlike the one found, so a change and its undoing both show
ns=200000
[ "$hp_before" = "$ns" ] && ns=100000
run_hp() { # ARGS: fdget under --idle haltpoll:$ns in the background, its pid in bp
	"$BIN/fdget" --op pread --mode single --spawn 0 --format csv --quiet --idle "haltpoll:$ns" "$@" \
		>"$W/hp.csv" 2>"$W/hp.err" &
	bp=$!
	STRAY+=("$(proc_id "$bp")")
}
hp_is() { [ "$(cat "$HP")" = "$1" ]; }
run_hp --duration 0.5 --repeat 3
watch_for "$bp" hp_is "$ns"
wait "$bp"
rc=$?
check "--idle haltpoll:$ns: exit 0 (got $rc: $(tail -n1 "$W/hp.err"))" [ "$rc" = 0 ]
check "--idle haltpoll:$ns: guest_halt_poll_ns read $ns during the run" [ "$seen" = yes ]
check "--idle haltpoll:$ns: records carry idle=haltpoll:$ns" \
	grep -q "idle=haltpoll:$ns;" "$W/hp.csv"
check "--idle haltpoll:$ns: guest_halt_poll_ns is back to $hp_before at exit ($(cat "$HP"))" \
	[ "$(cat "$HP")" = "$hp_before" ]

# SIGKILL mid-run: nothing in the process can restore; the journal can.
run_hp --duration 1 --repeat 20
watch_for "$bp" hp_is "$ns"
kill -KILL "$bp" 2>/dev/null
wait "$bp" 2>/dev/null
check "SIGKILL mid-run: guest_halt_poll_ns was $ns when killed" [ "$seen" = yes ]
check "SIGKILL: nothing restored guest_halt_poll_ns yet ($(cat "$HP"))" [ "$(cat "$HP")" = "$ns" ]
check "SIGKILL: the journal holds guest_halt_poll_ns = $hp_before" \
	grep -q "	$HP	$hp_before\$" "$AFFBENCH_JOURNAL"
"$BIN/harness" restore --workdir "$AFFBENCH_WORKDIR" --journal "$AFFBENCH_JOURNAL" \
	>"$W/restore.out" 2>&1
rc=$?
check "harness restore after the SIGKILL: exit 0 (got $rc: $(tail -n1 "$W/restore.out"))" \
	[ "$rc" = 0 ]
check "harness restore: guest_halt_poll_ns is back as found ($(cat "$HP"), was $hp_before)" \
	[ "$(cat "$HP")" = "$hp_before" ]
check "SIGKILL: no PM QoS request held" eval '[ "$(holders)" = "$holders_before" ]'
t_done
