# SPDX-License-Identifier: GPL-2.0
# The self-test's cases for the boot watchdog (tests/topology/boot.sh): sourced by
# tests/topology/selftest.sh, whose W, t_ok and t_bad they use.
# ---- the boot watchdog (boot.sh): a stalled boot is stopped and told apart ----
. "$HERE/boot.sh"
boot_case() { # NAME WANT-RC GUEST-SCRIPT [BOOT-LIMIT]
	# The exit status tells the watchdog (125) from the guest's own limit (124).
	SHAPE_TIMEOUT=60 BOOT_STALL=4 BOOT_LIMIT=${4:-20}
	t0=$(date +%s)
	boot_guest "$W/boot.log" sh -c "$3"
	rc=$? secs=$(($(date +%s) - t0))
	if [ "$rc" = "$2" ]; then
		t_ok "boot watchdog: $1: exit $rc after ${secs} s"
	else
		t_bad "boot watchdog: $1: exit $rc after ${secs} s, wanted $2"
	fi
}
boot_why() { # NAME WANT: the reason the last stopped boot was given, for the note
	if [ "$BOOT_WHY" = "$2" ]; then
		t_ok "boot watchdog: $1: stopped for: $BOOT_WHY"
	else
		t_bad "boot watchdog: $1: stopped for '$BOOT_WHY', wanted '$2'"
	fi
}
boot_case "a guest that boots and powers off" 0 'echo "guest: booted in 1.00 s"; exec sleep 3'
boot_case "a guest silent past the stall limit" 125 'echo SeaBIOS; exec sleep 120'
boot_why "a guest silent past the stall limit" "no console line for 4 s"
boot_case "a booted guest's own exit status" 3 'echo "guest: booted in 1.00 s"; sleep 3; exit 3'
boot_case "a guest that dies before /init" 1 'exit 1'
boot_case "a slow boot that keeps printing, past the stall limit" 0 \
	'for i in 1 2 3 4 5 6 7 8; do echo "kernel line $i"; sleep 1; done; echo "guest: booted in 9.00 s"'
boot_case "a boot that keeps printing past the boot limit" 125 \
	'while :; do echo "rcu: INFO: rcu_sched detected stalls on CPUs"; sleep 1; done' 8
boot_why "a boot that keeps printing past the boot limit" "not booted in 8 s"
# ---- the TOPO_ limits: a bad value is refused with one line before anything boots ----
limit_case() { # VAR VALUE
	err=$(env "$1=$2" "$HERE/check-topology.sh" --check "$W/no-such-result" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 2 ]; then
		t_ok "TOPO limits: $1=$2 is refused (exit 2)"
	else
		t_bad "TOPO limits: $1=$2 gave exit $rc, not 2"
	fi
	case $err in
	*"bad value '$2' for $1"*) t_ok "TOPO limits: the line names $1=$2: $err" ;;
	*) t_bad "TOPO limits: $1=$2: the line does not name it: $err" ;;
	esac
}
limit_case TOPO_BOOT_TRIES 00	# all zeros: a run that would boot nothing
limit_case TOPO_BOOT_LIMIT 1000000	# past 999999, where every limit stops
