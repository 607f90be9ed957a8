#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The suite the guest runs (tests/topology/init starts it, under taskset on
# shape C). Every step writes out/direct/NAME.{cmd,csv,err,rc,secs}: the
# command, its stdout (CSV records or key=value lines), its stderr (progress,
# skip reasons), its exit code and its seconds. Durations are short: TCG runs
# 20-50x slower than hardware, and only behaviour is checked, not numbers.
. /mnt/disk/config
O=/mnt/disk/out
D=$O/direct
mkdir -p "$D" "$O/state"
grep Cpus_allowed_list /proc/self/status >"$O/state/allowed"

up() { read -r u _ </proc/uptime; echo "$u"; }
# step NAME TIMEOUT_S CMD...
step() {
	name=$1 t=$2
	shift 2
	echo "$*" >"$D/$name.cmd"
	echo "guest: == $name: $*"
	t0=$(up)
	timeout -s TERM "$t" "$@" >"$D/$name.csv" 2>"$D/$name.err"
	rc=$?
	t1=$(up)
	echo "$rc" >"$D/$name.rc"
	secs=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
	echo "$secs" >"$D/$name.secs"
	echo "guest: == $name: exit $rc in $secs s, $(grep -c . "$D/$name.csv") lines out, last stderr:" \
		"$(tail -n 1 "$D/$name.err")"
}

# The topology suite: every placement, sweep and pair on a many-CPU guest.
topology_steps() {
	PL=none,same,smt,llc,cross-llc,cross-node,other
	SQF=/mnt/disk/sqrtio.dat

	step cputestfs "$T_STEP" cputestfs --format csv --duration "$DUR" --repeat 1 --placement "$PL"
	step cputestfs-2clients "$T_STEP" cputestfs --format csv --duration "$DUR" --repeat 1 --clients 2 \
		--placement "$PL"
	# --cpus instead of the affinity mask: "none" then names the list (a comma in a CSV field),
	# and on shape B CPUs above 63 need CPU masks wider than one word.
	[ -n "$CPUS_ARG" ] && step cputestfs-cpus "$T_STEP" cputestfs --format csv --duration "$DUR" \
		--repeat 1 --cpus "$CPUS_ARG" --placement "$PL"
	# The guest kernel (6.1) has no FUSE tracepoints: asked for, kernel statistics must skip with the
	# reason.
	step cputestfs-kstats-on 120 cputestfs --format csv --duration "$DUR" --repeat 1 --placement same \
		--kstats on
	step ddpar "$T_STEP" ddpar --format csv --duration "$DUR" --repeat 1 --mode "$DDPAR_MODE"
	step ddpar-kstats-on 120 ddpar --format csv --duration "$DUR" --repeat 1 --procs 1 --kstats on
	step sqrtio-discover 300 sqrtio --discover --file "$SQF" --span 8M
	step sqrtio "$T_STEP" sqrtio --format csv --file "$SQF" --span 8M --duration "$DUR" --repeat 1
	# virtio queue IRQs are managed: moving them must be refused with the reason, knobs untouched.
	# On a few CPUs (--cpus): discovery costs ~0.4 s per CPU in TCG, and the full set ran above.
	step sqrtio-irq-affinity 300 sqrtio --format csv --file "$SQF" --span 8M --duration "$DUR" \
		--repeat 1 --rq 1 --irq-affinity ${CPUS_ARG:+--cpus "$CPUS_ARG"}
	if [ -f /mnt/sq/sqrtio.dat ]; then
		step sqrtio-1q-discover 300 sqrtio --discover --file /mnt/sq/sqrtio.dat --span 8M
		step sqrtio-1q "$T_STEP" sqrtio --format csv --file /mnt/sq/sqrtio.dat --span 8M \
			--duration "$DUR" --repeat 1 --rq 1
	fi
	step fdget "$T_STEP" fdget --format csv --op pread --mode all --duration "$FDGET_DUR" --repeat 2 \
		--spawn 10
	# cpupair: the whole cache-line matrix where it is small (240 ordered pairs on shape A),
	# a sample per class elsewhere (5112 pairs on B would take minutes in TCG); 0.01 s is
	# cpupair's shortest window. Behaviour only: which pairs, their order and classes.
	NCPU=$(grep -c '^processor' /proc/cpuinfo)
	[ "$NCPU" -le 16 ] && step cpupair-matrix "$T_STEP" cpupair --format csv --pairs all \
		--method line --duration 0.01 --repeat 1
	step cpupair-classes "$T_STEP" cpupair --format csv --pairs classes --duration 0.01 --repeat 1
	# The idle axis: poll holds /dev/cpu_dma_latency where a cpuidle driver reads it (these
	# TCG guests have none: exit 4 with the reason); haltpoll:NS runs only under the haltpoll
	# cpuidle driver (a KVM guest's), so here it must skip with the reason.
	step cpupair-idle-poll "$T_STEP" cpupair --format csv --pairs classes --method futex \
		--duration 0.01 --repeat 1 --idle poll
	step cpupair-idle-haltpoll 120 cpupair --format csv --pairs classes --method line --duration 0.01 \
		--repeat 1 --idle haltpoll:20000
}

# The machine matrix's behaviour suite (a small guest booted with one setting users have):
# each idle lever runs or is refused by what the machine has, and the CPU monitor records
# the idle share (futex windows: cpupair's monitor watches those).
matrix_steps() {
	for pol in as-found poll max-latency:10 haltpoll:20000 busy; do
		step "idle-${pol%%:*}" 120 cpupair --format csv --pairs classes --method futex \
			--duration 0.01 --repeat 1 --idle "$pol"
	done
}

if [ "${SUITE:-}" = matrix ]; then
	matrix_steps
else
	topology_steps
fi

# The harness: a short plan, then the restore command a user runs after a crash.
echo "guest: == harness run"
t0=$(up)
harness run --plan /mnt/disk/guest.plan --out "$O/harness" \
	--machine-note "EMULATED: QEMU TCG guest, shape $SHAPE ($SHAPE_DESC); not hardware: behaviour, $(
		)not speed" \
	>"$D/harness.out" 2>"$D/harness.err"
echo $? >"$D/harness.rc"
echo "$t0 $(up)" | awk '{ printf "%.1f\n", $2 - $1 }' >"$D/harness.secs"
echo "guest: == harness run: exit $(cat "$D/harness.rc") in $(cat "$D/harness.secs") s:" \
	"$(tail -n 2 "$D/harness.err" | tr '\n' ' ')"
harness restore >"$D/restore.out" 2>"$D/restore.err"
echo $? >"$D/restore.rc"
echo "guest: == harness restore: exit $(cat "$D/restore.rc"):" \
	"$(cat "$D/restore.out" "$D/restore.err" | tail -n 3 | tr '\n' ' ')"
