#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of the emulated-topology checker (no guest, about 2 minutes; POSIX sh + awk).
#   tests/topology/selftest.sh              unpack the fixtures, check they pass, then
#                                           doctor them (deliberate bugs) and expect failures
#   tests/topology/selftest.sh --pack DIR   a result directory -> fixture text on stdout
# The fixtures (fixture-A.txt, fixture-C.txt) are what shape A and C guests wrote,
# reduced to the files the checker reads. Each doctored copy plants one bug the
# check must catch, e.g. llc resolved to two SMT siblings of one core: if the
# checker took the project's resolver's word for the topology, it would pass.
# Runs the checker with every awk it finds (awk, mawk, gawk, busybox awk).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

# What the checker reads, relative to a result directory.
pack_list() {
	(cd "$1" && for f in config done EMULATED sysfs/devices/system/cpu/online \
		sysfs/devices/system/cpu/cpu*/topology/thread_siblings_list \
		sysfs/devices/system/cpu/cpu*/cache/index*/level \
		sysfs/devices/system/cpu/cpu*/cache/index*/type \
		sysfs/devices/system/cpu/cpu*/cache/index*/shared_cpu_list \
		sysfs/devices/system/cpu/cpuidle/current_driver sysfs/devices/system/cpu/cpuidle/pm_qos \
		sysfs/devices/system/cpu/cpuidle/current_governor \
		sysfs/devices/system/cpu/cpuidle/current_governor_ro \
		sysfs/devices/system/cpu/vulnerabilities/* sysfs/cmdline sysfs/cpuinfo_flags \
		sysfs/devices/system/clocksource/current_clocksource \
		sysfs/devices/system/node/node*/cpulist sysfs/block/*/virtio sysfs/block/*/mq/*/cpu_list \
		sysfs/interrupts sysfs/irq/*/effective_affinity_list direct/*.csv direct/*.err direct/*.rc \
		harness/raw.csv harness/runs.csv harness/failures.csv harness/machine.txt harness/EMULATED \
		state/allowed state/online.after state/before/* state/after/*; do
		[ -f "$f" ] && echo "$f"
	done)
}
if [ "${1:-}" = --pack ]; then
	d=${2:?--pack DIR}
	echo "# affbench check-topology result, packed by tests/topology/selftest.sh --pack ('@@ PATH'" \
		"starts a file, '|' a line of it);"
	echo "# re-check: tests/topology/selftest.sh --unpack THIS DIR && tests/topology/check-run.sh DIR"
	for f in $(pack_list "$d"); do
		echo "@@ $f"
		sed 's/^/|/' "$d/$f"
	done
	echo "@@ harness/report.md"
	echo "|# (report.md of the run: its presence, its knob warnings, its Warnings section and" \
		"its split of other minus same are checked)"
	sed -n '/^## Warnings$/,/^## /p' "$d/harness/report.md" 2>/dev/null | sed '$!b; /^## /d' |
		sed 's/^/|/'
	# the split's paragraph (check_split.awk), under a heading of its own
	echo "|## (cputestfs: the split of other minus same)"
	grep -e '^Of the .* us a stat() served on CPU ' -e '^Other minus same: ' \
		-e "^A stat() served on CPU .* us less than one served on the caller's CPU" \
		"$d/harness/report.md" 2>/dev/null | sed 's/^/|/'
	exit 0
fi

unpack() { # FIXTURE DIR
	mkdir -p "$2"
	awk -v d="$2" '
		/^@@ / { if (f != "") close(f); f = d "/" substr($0, 4); p = f; sub(/\/[^\/]*$/, "", p)
			 if (!(p in made)) { system("mkdir -p \"" p "\""); made[p] = 1 }
			 printf "" > f; next }
		/^\|/ { print substr($0, 2) > f }' "$1"
}

# --fixture DIR: a fixture from a shape's result, with the one documented edit: the
# harness's sqrtio skip gets the reason a fixed sqrtio would give (FINDINGS: "reasons above").
if [ "${1:-}" = --fixture ]; then
	echo "# affbench check-topology fixture: a shape as a guest wrote it, reduced to the" \
		"files the checker reads"
	echo "# (selftest.sh --fixture DIR). One edit: harness/failures.csv gives the sqrtio" \
		"local=0 skip the reason a"
	echo "# fixed sqrtio would; the guest's run said only '(reasons above)', which the" \
		"checker rejects."
	old='no point of the sweep can be placed on the allowed CPUs (reasons above)'
	new='rq=1 local=0: every allowed CPU completes its own reads (per-CPU queues); try --irq-affinity'
	sh "$0" --pack "${2:?--fixture DIR}" | sed -e 1,2d \
		-e "s/^|sqrtio,local=0,1,4,skipped: sqrtio: $old\$/|sqrtio,local=0,1,4,skipped: sqrtio: $new/"
	exit
fi
if [ "${1:-}" = --unpack ]; then
	unpack "${2:?--unpack FILE DIR}" "${3:?--unpack FILE DIR}"
	exit
fi

W=${TOPO_SELFTEST_DIR:-$TOP/build/topology/selftest}
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM HUP

passed=0 failed=0
t_ok() { passed=$((passed + 1)); echo "ok $((passed + failed)) - $*"; }
t_bad() { failed=$((failed + 1)); echo "not ok $((passed + failed)) - $*"; }

# Every awk available: the checker must not depend on one.
awks=awk
for a in mawk gawk original-awk; do command -v "$a" >/dev/null 2>&1 && awks="$awks $a"; done
command -v busybox >/dev/null 2>&1 && busybox awk 'BEGIN{}' 2>/dev/null && awks="$awks busybox-awk"
mkdir -p "$W/bin"
printf '#!/bin/sh\nexec busybox awk "$@"\n' >"$W/bin/busybox-awk"
chmod +x "$W/bin/busybox-awk"

run_check() { # AWK DIR -> rc, output in DIR.out
	PATH="$W/bin:$PATH" AWK=$1 sh "$HERE/check-run.sh" "$2" >"$2.out" 2>&1
}

# expect NAME FIXTURE PATTERN DOCTOR...: the doctored copy must fail with a line matching PATTERN
n_case=0
expect() {
	name=$1 fx=$2 pat=$3
	shift 3
	n_case=$((n_case + 1))
	d=$W/case$n_case
	cp -r "$W/base-$fx" "$d"
	(cd "$d" && "$@") || { t_bad "$name: doctoring failed"; return; }
	run_check awk "$d"
	rc=$?
	if [ "$rc" != 0 ] && grep -q -- "$pat" "$d.out"; then
		t_ok "$name: caught ($(grep -m1 -- "$pat" "$d.out" | sed 's/^ *FAIL *//' | cut -c1-160))"
	else
		t_bad "$name: checker exit $rc, no line matching '$pat'"
		sed 's/^/#   /' "$d.out" | grep -e FAIL -e 'checks passed' | head -n 5
	fi
	rm -rf "$d" "$d.out"
}

# ---- the untouched fixtures pass, with every awk ----
for fx in A C matrix; do
	unpack "$HERE/fixture-$fx.txt" "$W/base-$fx"
	for a in $awks; do
		cp -r "$W/base-$fx" "$W/pristine"
		if run_check "$a" "$W/pristine"; then
			t_ok "fixture $fx passes with $a ($(tail -n 1 "$W/pristine.out"))"
		else
			t_bad "fixture $fx fails with $a:"
			grep -e FAIL -e 'checks passed' "$W/pristine.out" | head -n 8 | sed 's/^/#   /'
		fi
		rm -rf "$W/pristine" "$W/pristine.out"
	done
done

# ---- doctored copies: each plants one bug ----
# sedi FILE SCRIPT: sed -i without relying on GNU sed
sedi() { sed "$2" "$1" >"$1.new" && mv "$1.new" "$1"; }
# the configs' common beginnings the edits below keep
P1='client_cpu=15;clients=1;daemon=single;'
P2='client_cpu=14-15;clients=2;daemon=single;'
P9='client_cpu=9;clients=1;daemon=single;'

# The deliberate bug: llc resolved to two SMT siblings (client 15, daemon its sibling 14).
llc_smt() {
	for f in direct/cputestfs.csv harness/raw.csv; do
		sedi "$f" "s/${P1}daemon_cpu=13;placement=llc/${P1}daemon_cpu=14;placement=llc/"
	done
	grep -q 'daemon_cpu=14;placement=llc' direct/cputestfs.csv
}
expect "llc resolved to two SMT siblings (15/14)" \
	A "cputestfs llc: client 15, daemon 14 is not llc" llc_smt
expect "the same bug seen in the harness's raw.csv" \
	A "harness daemon=single llc: client 15, daemon 14 is not llc" llc_smt

# The bug in the topology the resolver reads instead: the snapshot says 13 and 15 share a
# core. The checker trusts the snapshot, so here the records (15/13 for llc) are wrong.
sib_snapshot() {
	for c in 13 15; do echo 13,15 >sysfs/devices/system/cpu/cpu$c/topology/thread_siblings_list; done
}
expect "llc pair 15/13 becomes SMT siblings in the snapshot" \
	A "cputestfs llc: client 15, daemon 13 is not llc" sib_snapshot

cross_node_same_node() {
	sedi direct/cputestfs.csv 's/daemon_cpu=7;placement=cross-node/daemon_cpu=8;placement=cross-node/'
}
expect "cross-node resolved inside one node (15/8)" \
	A "cputestfs cross-node: client 15, daemon 8 is not cross-node" cross_node_same_node

cross_llc_same() {
	sedi direct/cputestfs-2clients.csv \
		"s/${P2}daemon_cpu=6-7;placement=cross-llc/${P2}daemon_cpu=12-13;placement=cross-llc/"
}
expect "2 clients: cross-llc daemons on the clients' LLC" \
	A "cputestfs-2clients cross-llc: clients 14-15 and daemons 12-13 cannot be paired" cross_llc_same

smt_overlap() {
	old='baseline=fuse;client_cpu=13,15;clients=2;daemon=single;daemon_cpu=12,14;placement=smt'
	new='baseline=fuse;client_cpu=14-15;clients=2;daemon=single;daemon_cpu=14-15;placement=smt'
	sedi direct/cputestfs-2clients.csv "s/\"$old;transport=libfuse\"/$new;transport=libfuse/"
}
expect "2 clients: smt pairs share CPUs although two disjoint pairs exist" \
	A "share CPUs although four distinct" smt_overlap

smt_skipped() {
	grep -v 'placement=smt' direct/cputestfs.csv >x && mv x direct/cputestfs.csv
	echo "cputestfs: skipped: smt: no CPU in 0-15 has an SMT sibling" >>direct/cputestfs.err
}
expect "smt skipped on a machine with SMT" \
	A "smt: skipped (smt: no CPU in 0-15 has an SMT sibling) but the allowed CPUs offer it" smt_skipped

smt_silent() {
	grep -v 'placement=smt' direct/cputestfs.csv >x && mv x direct/cputestfs.csv
}
expect "smt neither measured nor skipped" \
	A "cputestfs smt: neither records nor a skip reason" smt_silent

offline_used() {
	sedi direct/cputestfs.csv \
		's/client_cpu=5;clients=1;daemon=single;daemon_cpu=4;placement=smt/'$(
		)'client_cpu=3;clients=1;daemon=single;daemon_cpu=2;placement=smt/'
}
expect "shape C: smt on the offline CPU 3 (3/2)" \
	C "CPU 3 (offline) outside the allowed, online set" offline_used

outside_used() {
	sedi direct/cputestfs.csv \
		"s/${P9}daemon_cpu=5;placement=cross-node/${P9}daemon_cpu=0;placement=cross-node/"
}
expect "shape C: cross-node on CPU 0, outside taskset -c 2-5,9" \
	C "CPU 0 outside the allowed, online set" outside_used

sq_local_wrong() {
	sedi direct/sqrtio-1q.csv \
		's/io_cpus=15;io_procs=1;irq_cpus=15;local=1/io_cpus=14;io_procs=1;irq_cpus=15;local=1/'
}
expect "sqrtio local=1 reader on a CPU whose reads complete elsewhere" \
	A "reader on CPU 14, whose reads complete on 15" sq_local_wrong

sq_discover_wrong() {
	sedi direct/sqrtio-discover.csv 's/^cpu15_completes_on=15$/cpu15_completes_on=14/'
}
expect "sqrtio discovery names the wrong completing CPU" \
	A "CPU 15: 14 (its queue.s IRQ fires on 15)" sq_discover_wrong

unquoted() {
	sedi direct/cputestfs-2clients.csv \
		's/^cputestfs,"\(baseline=fuse;client_cpu=13,15[^"]*\)"/cputestfs,\1/'
}
expect "a CPU list with a comma left unquoted (RFC 4180)" A "malformed record" unquoted

fuse_left() {
	echo "cputestfs /tmp/affbench-mnt-1-x fuse.cputestfs rw,nosuid,nodev,relatime 0 0" \
		>>state/after/mounts
}
expect "a FUSE mount left in the guest" A "FUSE mount(s) left in the guest" fuse_left

knob_left() {
	sedi state/after/knobs \
		's|^/sys/block/vda/queue/rq_affinity = 1$|/sys/block/vda/queue/rq_affinity = 2|'
}
expect "rq_affinity left at 2" A "knobs changed at the end" knob_left

knob_warned() {
	echo '- knob not as before the run: /proc/irq/30/smp_affinity_list = 5 (before: 0-15).' \
		'Hint: `bin/harness restore`.' >>harness/report.md
}
expect "report.md warns of a knob not as before the run" \
	A "1 knob(s) not as before the run: /proc/irq/30/smp_affinity_list = 5" knob_warned

journal_left() {
	printf '%s\n' "-rw-------    1 root     root            64 Nov 30 21:01 knobs.journal" \
		"/sys/block/vda/queue/rq_affinity 1" >>state/after/journal
}
expect "a knob journal entry left at the end" A "knob journal not empty at the end" journal_left

harness_failed() {
	sedi harness/runs.csv 's/^\(ddpar,[0-9]*,1,\)ok,0,\(.*,mode=write;procs=1\)$/\1failed,1,\2/'
}
expect "a failed harness point" A "harness ddpar mode=write;procs=1 rep 1: failed" harness_failed

skip_no_reason() {
	sedi harness/failures.csv 's/^\(sqrtio,local=0,1,4,\).*/\1skipped: sqrtio: '$(
		)'no point of the sweep can be placed on the allowed CPUs (reasons above)/'
}
expect "a skip whose reason is only in the log" A "failures.csv does not say why" skip_no_reason

ddpar_short() {
	grep -v 'procs=32' direct/ddpar.csv >x && mv x direct/ddpar.csv
}
expect "ddpar's sweep stops short of 2 x CPUs" \
	A "ddpar: processes 1 2 4 8 16, expected 1 2 4 8 16 32" ddpar_short

kstats_zero() {
	echo 'cputestfs,baseline=fuse;client_cpu=15;clients=1;daemon=single;daemon_cpu=15;'$(
		)'placement=same,1,kernel_ns_per_req,0,ns' >>direct/cputestfs.csv
}
expect "kernel statistics written as numbers without FUSE tracepoints" \
	A "kernel statistics written on a kernel without FUSE tracepoints" kstats_zero

fdget_threads() {
	sedi direct/fdget.csv 's/mode=shared-fd;op=pread;threads=16/mode=shared-fd;op=pread;threads=2/g'
}
expect "fdget shared-fd with 2 workers on 16 CPUs" \
	A "fdget shared-fd: threads=2, want 16" fdget_threads

not_pinned() {
	sedi direct/cputestfs.csv \
		's/\(daemon_cpu=14;placement=smt;transport=libfuse,1,same_cpu_pct,\)0,/\137.5,/'
	grep -q 'placement=smt;transport=libfuse,1,same_cpu_pct,37.5,' direct/cputestfs.csv
}
expect "smt labelled 15/14 but the daemon served 37.5% on the client's CPU (pinning not applied)" \
	A "the daemon served 37.5% of the requests on the client" not_pinned

cpus_ignored() {
	sedi direct/cputestfs-cpus.csv \
		's/client_cpu=12;clients=1;daemon=single;daemon_cpu=12;placement=same/'$(
		)'client_cpu=15;clients=1;daemon=single;daemon_cpu=15;placement=same/'
}
expect "--cpus 1,4-6,12 ignored: same on CPU 15" \
	A "CPU 15 outside the allowed, online set 1,4-6,12" cpus_ignored

# cpupair: the matrix, its order and classes, the classes sample, the idle axis
cp_pair_missing() {
	grep -v 'cpu_a=3;cpu_b=12;' direct/cpupair-matrix.csv >x && mv x direct/cpupair-matrix.csv
}
expect "cpupair matrix lacks the pair 3/12" \
	A "cpupair-matrix: no record for pair 3/12" cp_pair_missing

cp_order() {
	# CPUs 1 and 2 swap places: core 0-1 is no longer contiguous.
	sedi direct/cpupair-matrix.csv 's/pos_a=1;/pos_a=@;/;s/pos_a=2;/pos_a=1;/;s/pos_a=@;/pos_a=2;/
		s/pos_b=1,/pos_b=@,/;s/pos_b=2,/pos_b=1,/;s/pos_b=@,/pos_b=2,/'
}
expect "cpupair matrix not in topology order (1 and 2 swapped)" \
	A "the CPUs of core 0-1 are not next to each other" cp_order

cp_class() {
	sedi direct/cpupair-matrix.csv 's/class=llc;cpu_a=8;cpu_b=10;/class=cross-llc;cpu_a=8;cpu_b=10;/'
}
expect "cpupair calls an llc pair cross-llc" \
	A "pair 8/10 is class cross-llc, the snapshot says llc" cp_class

cp_no_smt() {
	grep -v 'class=smt' direct/cpupair-classes.csv >x && mv x direct/cpupair-classes.csv
}
expect "cpupair's classes sample without smt" \
	A "classes llc cross-node, the allowed CPUs offer smt llc cross-node" cp_no_smt

# --idle poll by the snapshot's cpuidle driver: none refuses (exit 4), one acts (exit 0).
cp_poll_ran() {
	echo 0 >direct/cpupair-idle-poll.rc
}
expect "cpupair --idle poll exits 0 without a cpuidle driver" \
	A "cpuidle driver none, want exit 4" cp_poll_ran
cp_poll_refused() {
	echo acpi_idle >sysfs/devices/system/cpu/cpuidle/current_driver
}
expect "cpupair --idle poll refused though a cpuidle driver exists" \
	A "cpuidle driver acpi_idle, exit 4" cp_poll_refused
cp_poll() {
	echo acpi_idle >sysfs/devices/system/cpu/cpuidle/current_driver
	echo 0 >direct/cpupair-idle-poll.rc
	cp direct/cpupair-classes.csv direct/cpupair-idle-poll.csv
}
expect "cpupair --idle poll records without idle=poll" A "records not all idle=poll" cp_poll

cp_haltpoll() {
	echo 0 >direct/cpupair-idle-haltpoll.rc
}
expect "cpupair --idle haltpoll:NS ran without the haltpoll driver" \
	A "want exit 4 naming haltpoll, got exit 0" cp_haltpoll

# sqrtio skips rq=1 local=0 as inert only where the readers share the completing CPU's LLC:
# a skip naming CPUs 0 and 15 (one on each node of shape A) is not believed
sq_llc_false() {
	grep -v 'local=0;rq=1;' direct/sqrtio-1q.csv >x && mv x direct/sqrtio-1q.csv
	echo "sqrtio: rq=1 local=0 skipped: rq_affinity 1 cannot act: readers on CPU 0 share a" \
		"last-level cache with the completing CPU 15 (sysfs)" >>direct/sqrtio-1q.err
}
expect "sqrtio skips rq=1 as inert, naming CPUs that share no LLC" A \
	"sqrtio-1q rq=1 local=0: skipped (rq_affinity 1 cannot act: readers on CPU 0.*offers it" \
	sq_llc_false
unfinished() {
	rm -f done
}
expect "a guest that did not finish" A "the guest did not finish" unfinished

# report.md's split of other minus same: selftest_split.sh's cases
. "$HERE/selftest_split.sh"

# ---- the machine matrix (fixture-matrix: no cpuidle driver, PTI without PCID, no cache/) ----
MT=harness/machine.txt
mt_driver() { sedi $MT 's/^cpuidle  *driver=none/cpuidle        driver=acpi_idle/'; }
expect "matrix: machine.txt names a driver sysfs does not have" matrix \
	"cpuidle driver=acpi_idle governor=menu, the guest's facts say driver=none" mt_driver
mt_idle_boot() { echo "$(cat sysfs/cmdline) idle=poll" >sysfs/cmdline; }
expect "matrix: booted with idle=poll, machine.txt says idle_cmdline none" matrix \
	"idle_cmdline none, the guest's facts say idle=poll" mt_idle_boot
expect "matrix: booted with idle=poll, report.md does not warn of it" matrix \
	"report.md does not warn: idle=poll" mt_idle_boot
mt_no_meltdown() { grep -v '^mitigation meltdown:' $MT >x && mv x $MT; }
expect "matrix: machine.txt without the meltdown mitigation line" matrix \
	"no mitigation line for meltdown" mt_no_meltdown
mt_mit_value() { sedi $MT 's/^mitigation spectre_v1:.*/mitigation spectre_v1:Vulnerable/'; }
expect "matrix: a mitigation line whose value is not sysfs's" matrix \
	"mitigation spectre_v1:Vulnerable, sysfs says" mt_mit_value
mt_pcid() { sedi sysfs/cpuinfo_flags 's/$/ pcid/'; }
expect "matrix: the CPU has pcid, machine.txt says no" \
	matrix "pcid no, the guest's facts say pcid in" mt_pcid
expect "matrix: the CPU has pcid, report.md warns of PTI without PCID" matrix \
	"warns, though the guest's facts say otherwise: PTI without PCID" mt_pcid
mt_pti() { echo "Not affected" >sysfs/devices/system/cpu/vulnerabilities/meltdown; }
expect "matrix: meltdown not affected, machine.txt says pti on" matrix \
	"pti on (meltdown: Mitigation: PTI), the guest's facts say meltdown: Not affected" mt_pti
mt_hyp() { grep -v '^hypervisor ' $MT >x && mv x $MT; }
expect "matrix: machine.txt without the hypervisor line" matrix "no hypervisor line" mt_hyp
mt_cache() {
	mkdir -p sysfs/devices/system/cpu/cpu0/cache/index0
	echo 0 >sysfs/devices/system/cpu/cpu0/cache/index0/shared_cpu_list
}
expect "matrix: sysfs has cache/, machine.txt says guessed" matrix \
	"topology_src guessed .*, the guest's facts say cpu0/cache/index0 present" mt_cache
expect "matrix: sysfs has cache/, report.md warns of none" matrix \
	"warns, though the guest's facts say otherwise: no cache topology" mt_cache
mt_syscall() { sedi $MT 's/^syscall_ns .*/syscall_ns     (unmeasured)/'; }
expect "matrix: syscall_ns not a number" matrix "machine.txt: syscall_ns (unmeasured)" mt_syscall
mt_pipe() { grep -v '^pipe_rt_ns ' $MT >x && mv x $MT; }
expect "matrix: no pipe_rt_ns line" matrix "no pipe_rt_ns line" mt_pipe
# the fixture's guest predates the clocksource fact: planting one shows both checks act
mt_clock() {
	mkdir -p sysfs/devices/system/clocksource
	echo tsc >sysfs/devices/system/clocksource/current_clocksource
}
expect "matrix: sysfs has a clocksource, machine.txt no clocksource line" matrix \
	"no clocksource line (clocksource tsc)" mt_clock
expect "matrix: sysfs has a clocksource, machine.txt no clock_ns line" matrix \
	"no clock_ns line" mt_clock
mt_clock_other() {
	mt_clock
	echo "clocksource    hpet" >>$MT
}
expect "matrix: machine.txt's clocksource is not sysfs's" matrix \
	"clocksource hpet, the guest's facts say clocksource tsc" mt_clock_other
mt_poll_ran() { echo 0 >direct/idle-poll.rc; }
expect "matrix: --idle poll exits 0 without a cpuidle driver" matrix \
	"idle-poll: no cpuidle driver, want exit 4" mt_poll_ran
mt_maxlat_lines() { echo "cpupair: 2 ordered pairs" >>direct/idle-max-latency.err; }
expect "matrix: --idle max-latency refused in two lines" matrix \
	"idle-max-latency: no cpuidle driver, want exit 4 and one line naming it, got exit 4 and 2" \
		mt_maxlat_lines
mt_driver_snap() { echo acpi_idle >sysfs/devices/system/cpu/cpuidle/current_driver; }
expect "matrix: a cpuidle driver exists, --idle poll refused" \
	matrix "idle-poll: exit 4: " mt_driver_snap
expect "matrix: a cpuidle driver exists, report.md warns of none" matrix \
	"warns, though the guest's facts say otherwise: no cpuidle driver" mt_driver_snap
mt_halt_ran() { echo 0 >direct/idle-haltpoll.rc; }
expect "matrix: --idle haltpoll:NS exits 0 without haltpoll" matrix \
	"idle-haltpoll: cpuidle driver none, want exit 4" mt_halt_ran
mt_busy_refused() { echo 4 >direct/idle-busy.rc; }
expect "matrix: --idle busy exits 4" matrix "idle-busy: exit 4" mt_busy_refused
mt_busy_nospin() { grep -v mon_spinner_cpu_pct direct/idle-busy.csv >x &&
	mv x direct/idle-busy.csv; }
expect "matrix: --idle busy without mon_spinner_cpu_pct" matrix \
	"idle-busy: no mon_spinner_cpu_pct" mt_busy_nospin
mt_no_cpu1_idle() { grep -v mon_cpu1_idle_pct direct/idle-as-found.csv >x &&
	mv x direct/idle-as-found.csv; }
expect "matrix: no mon_cpu1_idle_pct" \
	matrix "idle-as-found: 2 pair(s) without mon_allcpus_idle_pct" \
	mt_no_cpu1_idle
mt_idle_range() {
	sedi direct/idle-as-found.csv 's/\(mon_allcpus_idle_pct,\)[0-9.]*,/\1150,/'
}
expect "matrix: an idle share of 150%" matrix "mon_allcpus_idle_pct 150 outside 0-100" mt_idle_range
mt_h_noidle() { grep -v mon_allcpus_idle_pct harness/raw.csv >x && mv x harness/raw.csv; }
expect "matrix: the plan's records without mon_allcpus_idle_pct" matrix \
	"harness raw.csv: .* pair(s) without the idle share" mt_h_noidle
mt_plan_poll() { sedi harness/runs.csv \
	's/^\(cpupair,.*\),skipped,4,\(.*idle=poll.*\)$/\1,ok,0,\2/'; }
expect "matrix: the plan's idle=poll point ran without a driver" matrix \
	"harness cpupair idle=poll: ok" mt_plan_poll
mt_warn_drop() { grep -v "^- $1" harness/report.md >x && mv x harness/report.md; }
mt_warn_nodrv() { mt_warn_drop "no cpuidle driver"; }
expect "matrix: report.md without the no-cpuidle-driver warning" matrix \
	"report.md does not warn: no cpuidle driver" mt_warn_nodrv
mt_warn_pti() { mt_warn_drop "PTI without PCID"; }
expect "matrix: report.md without the PTI-without-PCID warning" matrix \
	"report.md does not warn: PTI without PCID" mt_warn_pti
mt_warn_cache() { mt_warn_drop "no cache topology"; }
expect "matrix: report.md without the no-cache-topology warning" matrix \
	"report.md does not warn: no cache topology in sysfs" mt_warn_cache
mt_warn_poll() {
	awk '{ print } $0 == "## Warnings" { print ""; print "- idle=poll: idle CPUs spin." }' \
		harness/report.md >x && mv x harness/report.md
}
expect "matrix: report.md warns of idle=poll, not booted with it" matrix \
	"warns, though the guest's facts say otherwise: idle=poll" mt_warn_poll

# ---- the boot watchdog (boot.sh): selftest_boot.sh's cases ----
. "$HERE/selftest_boot.sh"

echo "1..$((passed + failed))"
echo "check-topology self-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
