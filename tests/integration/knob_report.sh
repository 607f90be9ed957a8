#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.md's "knob not as before the run" warnings on a many-CPU machine
# (issue 17): a machine.txt as a 256-CPU run with 300 IRQs writes it, given to
# `harness report`. Equal values before and after give no warning, however many
# knobs there are and however long a value's CPU list; the two knobs changed
# give one warning each, naming the value before. Also: a resumed run's last
# "after" set counts, a knob with no value before is not compared, and a long
# non-knob line read in pieces never yields a knob line. No root needed,
# nothing measured (a second).
#   AFFBENCH_HARNESS: the harness to test (default bin/harness)
. "$(dirname "$0")/lib.sh"
H=${AFFBENCH_HARNESS:-$BIN/harness}
D=$(mktemp -d "$AFFBENCH_WORKDIR/knob-report.XXXXXX")
trap 'rm -rf "$D"' EXIT
export AFFBENCH_PLOT_TEXT=1	# text plots: fast, no PNG needed

R=$D/run
mkdir -p "$R"
{ head -n1 "$TOP/results/reference/raw.csv"; grep '^fdget,' "$TOP/results/reference/raw.csv" |
	head -n 20; } >"$R/raw.csv"

# A CPU list of 250 bytes, as smp_affinity_list prints a scattered mask (a value
# is at most 255 bytes: lib/knob). Its changed copy differs only in the last CPU.
long=0
for ((c = 2; ${#long} < 240; c += 2)); do long=$long,$c; done
long_changed=${long%,*},255
# knob WHEN IRQ-VALUE-OVERRIDES...: the knob lines harness/run/machine.c writes
knobs() {
	local when=$1 i v
	shift
	printf 'knob %-6s %s = %s\n' "$when" /sys/block/nvme0n1/queue/rq_affinity 1 \
		"$when" /sys/block/nvme1n1/queue/rq_affinity 1
	# enable_uring appears once a benchmark loaded the fuse module: no value before
	[ "$when" = after ] && printf 'knob %-6s %s = %s\n' after \
		/sys/module/fuse/parameters/enable_uring N
	for ((i = 24; i < 324; i++)); do
		v=$((i % 256))
		[ "$i" = 101 ] && v=$long
		[ "$i" = 200 ] && v=0-255
		[ "$i" = 301 ] && v=$long
		for o in "$@"; do [ "${o%%=*}" = "$i" ] && v=${o#*=}; done
		printf 'knob %-6s /proc/irq/%d/smp_affinity_list = %s\n' "$when" "$i" "$v"
	done
}
irqs=$(seq -s, 24 323)
{
	printf '%-14s %s\n' date "2026-12-01 12:00:00 +0000" allowed_cpus "0-255 (256)" \
		online_cpus 0-255 loadavg "0.00 0.00 0.00 1/100 1" sqrtio_disk nvme0n1 sqrtio_irqs "$irqs"
	for ((i = 24; i < 324; i++)); do printf '%-14s /proc/irq/%d/smp_affinity_list\n' sqrtio_knob \
		"$i"; done
	# A discovery's long line: 8 x 1023 bytes, then text that reads like a knob line to
	# a reader taking 1023 bytes at a time.
	printf '%-14s %s%s\n' sqrtio_note "$(printf '%08169d' 0)" \
		"knob after  /proc/irq/24/smp_affinity_list = 7"
	knobs before
	# an interrupted run: IRQ 150 still moved when its "after" set was written...
	knobs after 150=3
	# ...and its --resume: IRQ 150 back, IRQ 200 and IRQ 301 (last CPU) not
	knobs after 200=5 301="$long_changed"
	printf '%-14s %s\n' loadavg_after "0.00 0.00 0.00 1/100 1"
} >"$R/machine.txt"

"$H" report "$R" >"$D/plot.out" 2>&1
rc=$?
check "harness report of the 256-CPU fixture: exit 0 (got $rc: $(tail -n1 "$D/plot.out"))" \
	[ "$rc" = 0 ]
grep 'knob not as before' "$R/report.md" >"$D/warned" 2>/dev/null
n=$(grep -c . "$D/warned")
got=$(cut -c1-120 "$D/warned" | tr '\n' ';')
check "303 knobs: exactly 2 warned, the two changed (got $n: $got)" \
	[ "$n" = 2 ]
check "IRQ 200, moved to 5, is warned with its value before (0-255)" \
	grep -qF '/proc/irq/200/smp_affinity_list = 5 (before: 0-255)' "$D/warned"
check "IRQ 301, its 250-byte CPU list changed in the last CPU, is warned" \
	grep -qF "/proc/irq/301/smp_affinity_list = $long_changed (before: $long)" "$D/warned"
check "no other knob is warned (main warned every knob past the 64th)" \
	eval '! grep -vE "/proc/irq/(200|301)/" "$D/warned" | grep -q .'
check "IRQ 101, a 250-byte CPU list equal before and after, is not warned" \
	eval '! grep -q "/proc/irq/101/" "$D/warned"'
check "IRQ 150, restored by the resumed run (last 'after' set), is not warned" \
	eval '! grep -q "/proc/irq/150/" "$D/warned"'
check "enable_uring, with no value before the run, is not warned" \
	eval '! grep -q "enable_uring" "$D/warned"'
check "a long non-knob line is never read as a knob line (IRQ 24 not warned)" \
	eval '! grep -q "/proc/irq/24/" "$D/warned"'
t_done
