#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# machine.txt records the settings that decide what a cross-CPU ratio means
# (irqbalance, boost, SMT, isolated and nohz_full CPUs, cpuidle, idle=, haltpoll,
# PM QoS, THP, a hypervisor, steal; PTI and PCID, the cache topology read or guessed,
# the measured syscall price, the clocksource and a clock read's price) and report.md warns
# about each, with a hint where one helps.
# A fake /sys and /proc (the AFFBENCH_SYSROOT test hook) sets every one; an empty
# one shows that what a machine lacks is said, never written as a value.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/machcheck.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}

cat > "$D/fakebench" <<'FAKE'
#!/bin/bash
echo "bench,config,rep,metric,value,unit"
echo "fakebench,mode=ok,1,ops_per_s,1000,1/s"
FAKE
chmod +x "$D/fakebench"
printf 'repeat 1\nbench fakebench\nduration 0.1\ntimeout 5\naxis mode ok\n' > "$D/t.plan"

# run SYSROOT OUT: one point with the settings read under SYSROOT
run() { (cd "$D" && AFFBENCH_SYSROOT=$1 PATH=$D:$PATH "$H" run --plan t.plan --out "$2" >/dev/null \
	2>&1); }

R=$D/root
mkdir -p "$R/proc/123" "$R/sys/devices/system/cpu/cpufreq" "$R/sys/devices/system/cpu/smt" \
	"$R/sys/devices/system/cpu/cpuidle" "$R/sys/module/haltpoll/parameters" \
	"$R/sys/devices/system/cpu/cpu1/power" "$R/sys/kernel/mm/transparent_hugepage" "$R/dev"
echo irqbalance > "$R/proc/123/comm"
echo "ro quiet idle=poll isolcpus=2-3 nohz_full=2-3" > "$R/proc/cmdline"
echo "flags		: fpu vme hypervisor lahf_lm" > "$R/proc/cpuinfo"
echo "cpu  100 0 50 800 0 0 0 40 0 0" > "$R/proc/stat"
c=$R/sys/devices/system/cpu
echo 1 > "$c/cpufreq/boost"
echo on > "$c/smt/control"; echo 1 > "$c/smt/active"
echo 2-3 > "$c/isolated"; echo 2-3 > "$c/nohz_full"
echo haltpoll > "$c/cpuidle/current_driver"; echo haltpoll > "$c/cpuidle/current_governor"
echo 0 > "$R/sys/module/haltpoll/parameters/guest_halt_poll_ns"
for s in "0 POLL 0" "1 C1 2" "2 C6 133"; do
	set -- $s
	mkdir -p "$c/cpu0/cpuidle/state$1"
	echo "$2" > "$c/cpu0/cpuidle/state$1/name"; echo "$3" > "$c/cpu0/cpuidle/state$1/latency"
	echo 0 > "$c/cpu0/cpuidle/state$1/disable"
done
mkdir -p "$c/cpu0/power"; echo 0 > "$c/cpu0/power/pm_qos_resume_latency_us"
echo 50 > "$c/cpu1/power/pm_qos_resume_latency_us"
printf '\x0a\x00\x00\x00' > "$R/dev/cpu_dma_latency"	# a 10 us limit held
echo "[always] madvise never" > "$R/sys/kernel/mm/transparent_hugepage/enabled"
mkdir -p "$c/vulnerabilities"; echo "Mitigation: PTI" > "$c/vulnerabilities/meltdown"
mkdir -p "$R/sys/devices/system/clocksource/clocksource0"
echo hpet > "$R/sys/devices/system/clocksource/clocksource0/current_clocksource"	# no vDSO

run "$R" "$D/fake"
M=$D/fake/machine.txt
# has LABEL VALUE-REGEX: machine.txt's LABEL line matches
has() { grep -qE "^$1 +$2\$" "$M"; }
check "irqbalance recorded running with its pid" has irqbalance 'running \(pid 123\)'
check "boost recorded on" has cpu_boost 'on \(cpufreq/boost=1\)'
check "SMT recorded" has smt 'control=on active=1'
check "isolated CPUs recorded with isolcpus=" has isolated_cpus '2-3 \(isolcpus=2-3\)'
check "nohz_full recorded" has nohz_full '2-3'
check "cpuidle driver and governor recorded" has cpuidle 'driver=haltpoll governor=haltpoll'
check "idle= from the command line recorded" has idle_cmdline poll
check "haltpoll's guest polling recorded" has haltpoll_ns 0
check "idle states recorded with exit latencies" has idle_states 'POLL:0us C1:2us C6:133us'
check "PM QoS limit recorded" has pm_qos_us 10
check "per-CPU resume limit recorded" has pm_qos_resume 'cpu1=50us'
check "THP recorded" has thp always
check "hypervisor recorded" has hypervisor 'yes.*'
check "steal recorded before and after" \
	eval 'has steal_before "40 of 990 jiffies" && has steal_after "40 of 990 jiffies"'
check "PTI recorded on" has pti 'on .*'
check "PCID recorded absent (no pcid flag)" has pcid no
check "the cache topology recorded as guessed (no cache in sysfs)" has topology_src 'guessed .*'
check "a syscall's price recorded in ns" has syscall_ns '[0-9]+ .*'
check "a same-CPU pipe round trip's price recorded in ns" has pipe_rt_ns '[0-9]+ .*'
check "the clocksource recorded" has clocksource hpet
check "a clock read's price recorded in ns" has clock_ns '[0-9]+ .*'

W=$(sed -n '/^## Warnings/,/^## /p' "$D/fake/report.md")
for w in "irqbalance is running" "turbo/boost is on" "SMT is on" "isolated CPUs" "nohz_full CPUs" \
	"idle=poll" "guest halt polling off" "deep idle states are enabled (C6, 133 us" \
	"PM QoS CPU latency limit is held" "per-CPU PM QoS" "THP is 'always'" "a virtual machine"; do
	check "report.md warns: $w (with a hint)" \
		eval 'printf "%s\n" "$W" | grep -F -- "$w" | grep -q "Hint:"'
done
check "report.md warns: PTI without PCID, with the measured price" eval \
	'printf "%s\n" "$W" | grep -Eq "PTI without PCID: syscalls cost [0-9.]+ us here"'
check "report.md warns: clock_gettime is not served by the vDSO, naming the clocksource" eval \
	'printf "%s\n" "$W" | grep "not served by the vDSO" | grep -q "clocksource hpet"'
check "report.md warns: no cache topology in sysfs" \
	eval 'printf "%s\n" "$W" | grep -q "no cache topology in sysfs"'
check "report.md does not warn of a missing cpuidle driver where one is (haltpoll)" eval \
	'! printf "%s\n" "$W" | grep -q "no cpuidle driver"'

# An empty tree: each setting says it is unavailable or none, and none is warned; what the
# machine lacks (a cpuidle driver) is.
mkdir -p "$D/empty"
run "$D/empty" "$D/bare"
M=$D/bare/machine.txt
check "a machine without the files: unavailable, never a number" eval \
	'has cpu_boost "\(unavailable: .*\)" && has haltpoll_ns "\(unavailable: .*\)" &&
	 has pm_qos_us "\(unavailable: .*\)" && has thp "\(unavailable: .*\)" &&
	 has steal_before "\(unavailable: .*\)" && has idle_states "none .*"'
W=$(sed -n '/^## Warnings/,/^## /p' "$D/bare/report.md")
check "and report.md warns about none of them" eval '! printf "%s\n" "$W" |
	grep -qE "irqbalance|boost|SMT|idle=|halt polling|deep idle|limit is held|$(
		)per-CPU PM QoS|THP|virtual|PTI"'
check "report.md warns of the missing cpuidle driver, naming --idle busy" eval \
	'printf "%s\n" "$W" | grep "no cpuidle driver" | grep -q -- "--idle busy"'
check "machine.txt records PTI off and PCID unavailable where nothing says otherwise" eval \
	'has pti off && has pcid "\(unavailable: .*\)"'
check "machine.txt records the clocksource unavailable without sysfs" \
	has clocksource '\(unavailable: .*\)'
# Without a clocksource's name, the measured prices alone decide: the warning is there
# exactly when a clock read costs three quarters of a syscall or more, on any machine.
dear=$(awk '$1 == "clock_ns" { c = $2 } $1 == "syscall_ns" { s = $2 }
	END { print (c > 0 && s > 0 && c >= 0.75 * s) ? 1 : 0 }' "$M")
warned=0
printf "%s\n" "$W" | grep -q "not served by the vDSO" && warned=1
check "report.md warns of a syscall clock exactly when the prices say so ($dear)" \
	test "$warned" = "$dear"

# This machine: every label is there with a value.
run "" "$D/real"
M=$D/real/machine.txt
for l in irqbalance cpu_boost smt isolated_cpus nohz_full cpuidle idle_cmdline haltpoll_ns \
	idle_states pm_qos_us pm_qos_resume thp hypervisor steal_before steal_after hypervisor_name pti \
		pcid \
	topology_src syscall_ns pipe_rt_ns clocksource clock_ns; do
	check "this machine's machine.txt has $l with a value" grep -qE "^$l +[^ ]" "$M"
done
rm -rf "$D"
t_done
