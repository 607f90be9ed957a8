#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks one result directory of tests/topology/check-topology.sh (POSIX sh + awk):
#   tests/topology/check-run.sh DIR
# DIR holds what the guest wrote (sysfs/ snapshot, direct/ benchmark outputs,
# harness/ run directory, state/ before and after, config, done). The topology
# comes from the snapshot (flattened here into DIR/facts.txt) and check.awk
# verifies the records against it; the guest's end state is checked here.
# Prints every check; exit 0 when all passed, 1 otherwise.
set -u
AWK=${AWK:-awk}
R=${1:?usage: check-run.sh RESULT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
S=$R/sysfs/devices/system
fails=0
passes=0
ok() { passes=$((passes + 1)); echo "  ok    $*"; }
bad() { fails=$((fails + 1)); echo "  FAIL  $*"; }
first() { [ -f "$1" ] && { IFS= read -r v <"$1" || true; printf '%s' "$v"; }; }
conf() { sed -n "s/^$1=//p" "$R/config" 2>/dev/null | tr -d '"' | head -n 1; }

if [ ! -d "$S/cpu" ]; then
	echo "  FAIL  $R: no sysfs snapshot: the guest did not get as far as its first step"
	[ -f "$R/console.log" ] && { echo "  last console lines:"; tail -n 15 "$R/console.log" |
		sed 's/^/    /'; }
	exit 1
fi
desc=$(conf SHAPE_DESC)
echo "shape $(conf SHAPE): $desc"

# ---- the snapshot, flattened: one fact per line (see check.awk) ----
F=$R/facts.txt
{
	echo "online $(first "$S/cpu/online")"
	max=0
	for d in "$S"/cpu/cpu[0-9]*; do
		n=${d##*/cpu}
		[ "$n" -gt "$max" ] && max=$n
		[ -f "$d/topology/thread_siblings_list" ] &&
			echo "sib $n $(first "$d/topology/thread_siblings_list")"
		for i in "$d"/cache/index*; do
			[ -f "$i/shared_cpu_list" ] || continue
			echo "cache $n $(first "$i/level") $(first "$i/type") $(first "$i/shared_cpu_list")"
		done
	done
	echo "maxcpu $max"
	for nd in "$S"/node/node[0-9]*; do
		[ -f "$nd/cpulist" ] && echo "node ${nd##*/node} $(first "$nd/cpulist")"
	done
	for b in "$R"/sysfs/block/*; do
		[ -f "$b/virtio" ] || continue
		echo "virtio ${b##*/} $(first "$b/virtio")"
		for q in "$b"/mq/*; do echo "mq ${b##*/} ${q##*/} $(first "$q/cpu_list" | tr -d ' ')"; done
	done
	[ -f "$R/sysfs/interrupts" ] &&
		${AWK:-awk} '$1 ~ /^[0-9]+:$/ { sub(/:$/, "", $1); print "irq", $1, $NF }' "$R/sysfs/interrupts"
	for i in "$R"/sysfs/irq/*; do
		[ -f "$i/effective_affinity_list" ] && echo "eff ${i##*/} $(first "$i/effective_affinity_list")"
	done
	echo "cpuidle $(first "$S/cpu/cpuidle/current_driver")"
	echo "pm_qos $(first "$S/cpu/cpuidle/pm_qos")"
	# What machine.txt must record (the machine matrix checks it): governor, boot
	# parameters, CPU flags, mitigations, and whether sysfs has the cache topology.
	g=$(first "$S/cpu/cpuidle/current_governor")
	echo "governor ${g:-$(first "$S/cpu/cpuidle/current_governor_ro")}"
	echo "cmdline $(first "$R/sysfs/cmdline")"
	echo "flags $(first "$R/sysfs/cpuinfo_flags" | sed 's/^flags[[:space:]]*:[[:space:]]*//')"
	for v in "$S"/cpu/vulnerabilities/*; do
		[ -f "$v" ] && echo "vuln ${v##*/} $(first "$v")"
	done
	[ -f "$S/cpu/cpu0/cache/index0/shared_cpu_list" ] && echo "cache0 yes" || echo "cache0 no"
	# guests booted before the snapshot had it have no clocksource fact: then it is not checked
	[ -f "$S/clocksource/current_clocksource" ] &&
		echo "clocksource $(first "$S/clocksource/current_clocksource")"
	echo "suite $(conf SUITE)"
	echo "cpuset $(conf CPUSET)"
	echo "cpus_arg $(conf CPUS_ARG)"
	echo "offline_req $(conf OFFLINE)"
	echo "allowed_seen $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$R/state/allowed" 2>/dev/null)"
	for rc in "$R"/direct/*.rc; do
		[ -f "$rc" ] || continue
		n=${rc##*/}
		n=${n%.rc}
		case $n in
		harness) echo "harness_rc $(first "$rc")" ;;
		restore) echo "restore_rc $(first "$rc")" ;;
		*) echo "step $n $(first "$rc")" ;;
		esac
	done
	echo "desc $desc"
} >"$F"

# ---- records against the snapshot ----
set -- kind=facts "$F"
for f in "$R"/direct/*.csv; do
	[ -f "$f" ] || continue
	n=${f##*/}
	n=${n%.csv}
	case $n in
	*-discover) set -- "$@" kind=kv "step=$n" "$f" ;;
	*) set -- "$@" kind=csv "step=$n" "$f" ;;
	esac
	[ -f "$R/direct/$n.err" ] && set -- "$@" kind=err "step=$n" "$R/direct/$n.err"
done
H=$R/harness
for p in raw.csv:hraw runs.csv:hruns failures.csv:hfail machine.txt:hmachine report.md:hreport; do
	[ -f "$H/${p%%:*}" ] && set -- "$@" "kind=${p##*:}" "$H/${p%%:*}"
done
${AWK:-awk} -f "$HERE/check.awk" -f "$HERE/check_place.awk" -f "$HERE/check_cpupair.awk" \
	-f "$HERE/check_matrix.awk" -f "$HERE/check_split.awk" "$@" >"$R/check-records.txt"
arc=$?
# The table and the count go last: print the checks first.
sed -n '1,/^checks:$/p' "$R/check-records.txt"
sed -n '/^checks:$/,/^$/p' "$R/check-records.txt" | sed '1d;$d'

# ---- the guest's end state ----
B=$R/state/before A=$R/state/after
if [ ! -f "$R/done" ]; then
	bad "the guest did not finish (no 'done'); last console lines:"
	tail -n 15 "$R/console.log" 2>/dev/null | sed 's/^/    /'
fi
if [ -f "$A/mounts" ]; then
	left=$(awk '$3 == "fuse" || $3 ~ /^fuse\./ { print $2 " (" $3 ")" }' "$A/mounts")
	[ -z "$left" ] && ok "no FUSE mount left in the guest" ||
		bad "FUSE mount(s) left in the guest: $left"
	sort "$B/mounts" >"$R/.m1"
	sort "$A/mounts" >"$R/.m2"
	d=$(diff "$R/.m1" "$R/.m2" | sed -n 's/^\([<>]\) /\1 /p' | tr '\n' ';')
	rm -f "$R/.m1" "$R/.m2"
	[ -z "$d" ] && ok "mounts at the end are the mounts at the start ($(grep -c . "$A/mounts"))" ||
		bad "mounts changed during the suite: $d"
	sort "$B/knobs" >"$R/.k1"
	sort "$A/knobs" >"$R/.k2"
	d=$(diff "$R/.k1" "$R/.k2" | sed -n 's/^\([<>]\) /\1 /p' | tr '\n' ';')
	nk=$(grep -c . "$R/.k1")
	rm -f "$R/.k1" "$R/.k2"
	[ -z "$d" ] &&
		ok "$nk knobs (rq_affinity, IRQ smp_affinity_list, fuse parameters) unchanged at the end" ||
		bad "knobs changed at the end (< before, > after): $d"
	# state/after/journal: ls -la of the journal and lock directories, then the journal itself.
	jl=$(sed -n '/knobs.journal/,$p' "$A/journal" 2>/dev/null |
		grep -v -e '^ls:' -e 'knobs.journal' -e '^total' -e '^d' -e '^$' | tr '\n' ';')
	[ -z "$jl" ] && ok "knob journal empty at the end" || bad "knob journal not empty at the end: $jl"
	lt=$(grep -o 'affbench-mnt-[^ ]*' "$A/tmp" 2>/dev/null | tr '\n' ' ')
	[ -z "$lt" ] && ok "no affbench-mnt-* directory left in the guest's /tmp" ||
		bad "left in the guest's /tmp: $lt"
	on=$(first "$R/state/online.after")
	[ "$on" = "$(first "$S/cpu/online")" ] && ok "online CPUs unchanged by the suite ($on)" ||
		bad "online CPUs changed: $(first "$S/cpu/online") before, $on after"
else
	bad "no end state from the guest (state/after)"
fi
[ -f "$R/EMULATED" ] && ok "EMULATED label in the result directory" || bad "no EMULATED file in $R"
if [ -d "$H" ]; then
	[ -f "$H/EMULATED" ] && ok "EMULATED label in the harness run directory" ||
		bad "no EMULATED file in $H"
	grep -q '^note  *EMULATED: QEMU TCG guest' "$H/machine.txt" 2>/dev/null &&
		ok "machine.txt's note says EMULATED" || bad "machine.txt in $H has no EMULATED note"
	[ -s "$H/report.md" ] && ok "harness report.md written" || bad "no report.md in $H"
	# The suite restores every knob: a warning that one is not restored is a fault,
	# of the restore or of the harness's comparison (the state/ diff above says which).
	if [ -f "$H/report.md" ]; then
		kw=$(grep -c 'knob not as before' "$H/report.md")
		[ "$kw" = 0 ] && ok "harness report.md warns of no knob not as before the run" ||
			bad "harness report.md: $kw knob(s) not as before the run: $(
				grep 'knob not as before' "$H/report.md" | head -n 3 |
				sed 's/^- knob not as before the run: //; s/\. Hint:.*//' | tr '\n' ';')"
	fi
fi

sed -n '/^placements/,$p' "$R/check-records.txt" | sed '$d'
n_ok=$(sed -n 's/^\([0-9]*\) checks passed, \([0-9]*\) failed$/\1/p' "$R/check-records.txt")
n_bad=$(sed -n 's/^\([0-9]*\) checks passed, \([0-9]*\) failed$/\2/p' "$R/check-records.txt")
n_ok=$((${n_ok:-0} + passes))
n_bad=$((${n_bad:-0} + fails))
[ "$arc" = 0 ] || [ "${n_bad}" -gt 0 ] || n_bad=1	# awk itself failed
echo
echo "shape $(conf SHAPE): $n_ok checks passed, $n_bad failed"
[ "$n_bad" = 0 ]
