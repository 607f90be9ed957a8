#!/bin/bash
# sqrtio end to end on this machine's disk: IRQ discovery finds a line that an
# independent dd burst also moves, a short run on the repository's filesystem
# gives records that parse with readers on / off the completing CPU, the
# seed's table layout, rq_affinity restored by journal replay after SIGKILL,
# and bad input gets one line, exit 2 or 4, and no knob change. (~30 s)
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
trap 'restore >/dev/null 2>&1; rm -f "$F"' EXIT

# --- IRQ discovery ---------------------------------------------------------
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

# Independently of sqrtio: O_DIRECT reads by dd move the reported line(s).
irq_total() { # sum of the reported IRQ lines over all CPUs
	local s=0 i
	for i in ${irqs//,/ }; do
		s=$((s + $(awk -v n="$i:" '$1 == n { t = 0; for (k = 2; k <= NF && $k ~ /^[0-9]+$/; k++) t += $k; print t }' /proc/interrupts)))
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
# 1 s per point: on a busy host one read can stall for a few hundred ms.
(cd "$TOP" && "$SQ" --rq "$other,$orig" --local 0,1 --format csv --duration 1 --repeat 1 --quiet) \
	>"$out/run.csv" 2>"$out/run.err"
rc=$?
check "short run exits 0 (rc $rc: $(head -c 300 "$out/run.err"))" [ "$rc" = 0 ]
check "rq_affinity back to $orig after the run (now $(cat "$rq_path"))" [ "$(cat "$rq_path")" = "$orig" ]
check "no scratch file left in $TOP" [ -z "$(ls -A "$TOP" | grep '^\.affbench-sqrtio\.')" ]
check "CSV header exact" [ "$(head -1 "$out/run.csv")" = "bench,config,rep,metric,value,unit" ]
# config may be quoted (CPU lists with commas): take metric, value, unit from the end
bad=$(awk -F, 'NR > 1 && ($1 != "sqrtio" || $(NF-3) !~ /^[1-9][0-9]*$/ || $(NF-1) !~ /^[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/ || $NF == "")' "$out/run.csv")
check "every row: bench sqrtio, rep, finite value, unit ($bad)" [ -z "$bad" ]
for m in sqrt_M_per_s ios_K_per_s io_lat_p50_us io_lat_p99_us irqs_per_io cal_ipis_per_io res_ipis_per_io; do
	n=$(awk -F, -v m="$m" '$(NF-2) == m' "$out/run.csv" | wc -l)
	check "$m recorded for 2 rq x 2 local (got $n)" [ "$n" = 4 ]
done
zero=$(awk -F, '$(NF-2) == "ios_K_per_s" && !($(NF-1) > 0)' "$out/run.csv")
check "ios_K_per_s > 0 everywhere ($zero)" [ -z "$zero" ]
keys=$(awk -F, 'NR == 2' "$out/run.csv" | grep -o '[a-z_]*=' | tr -d '=' | tr '\n' ' ')
check "config keys sorted: io_cpus io_procs irq_cpus local rq sqrt_cpus sqrt_procs (got '$keys')" \
	[ "$keys" = "io_cpus io_procs irq_cpus local rq sqrt_cpus sqrt_procs " ]
# local=1: readers on the completing CPU(s); local=0: off them. CPU lists in Linux form.
cpus_of() { # "0-2,5" -> " 0 1 2 5 "
	local out=" " part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then out+="$(seq -s ' ' "${part%-*}" "${part#*-}") "; else out+="$part "; fi
	done
	printf '%s' "$out"
}
compared=0
place=$(awk -F, '$(NF-2) == "ios_K_per_s"' "$out/run.csv" | while IFS= read -r l; do
	io=$(printf '%s' "$l" | sed -n 's/.*io_cpus=\([0-9,-]*\);.*/\1/p')
	irq=$(printf '%s' "$l" | sed -n 's/.*irq_cpus=\([0-9,-]*\);.*/\1/p')
	loc=$(printf '%s' "$l" | sed -n 's/.*;local=\([01]\);.*/\1/p')
	if [ -z "$io" ] || [ -z "$irq" ] || [ -z "$loc" ]; then echo "unparsed: $l"; continue; fi
	irqs=$(cpus_of "$irq")
	for c in $(cpus_of "$io"); do
		on=0; [[ $irqs == *" $c "* ]] && on=1
		[ "$on" = "$loc" ] || echo "local=$loc io=$io irq=$irq"
	done
	echo "compared"
done)
compared=$(printf '%s\n' "$place" | grep -c '^compared$')
place=$(printf '%s\n' "$place" | grep -v '^compared$')
check "placement compared on every point ($compared rows)" [ "$compared" -gt 0 ]
check "readers on the IRQ CPU for local=1 and off it for local=0 ($place)" [ -z "$place" ]

# --- the seed's table layout ------------------------------------------------
"$SQ" --file "$F" --rq "$orig" --local 0,1 --duration 0.2 --repeat 2 --quiet >"$out/table.txt" 2>"$out/table.err"
rc=$?
check "table run exits 0 (rc $rc: $(head -c 300 "$out/table.err"))" [ "$rc" = 0 ]
n=$(grep -cE "^rq=$orig local=[01] +[0-9]+\.[0-9]{3} \(M sqrt/sec\) +[0-9]+\.[0-9]{3} \(K ios/sec\)$" "$out/table.txt")
check "two lines in the seed's layout (got $n)" [ "$n" = 2 ]
check "local=1 / local=0 ratio line with a CI" grep -qE "^rq=$orig +sqrt +[0-9.]+ \[[0-9.]+, [0-9.]+\] +ios +[0-9.]+ \[" "$out/table.txt"

# --- SIGKILL: the journal brings rq_affinity back ------------------------------
"$SQ" --file "$F" --rq "$other" --local 1 --duration 30 --repeat 1 --quiet >/dev/null 2>"$out/kill.err" &
pid=$!
changed=0
for _ in $(seq 100); do
	[ "$(cat "$rq_path")" = "$other" ] && { changed=1; break; }
	sleep 0.1
done
kids=$(pgrep -P "$pid" | tr '\n' ' ')
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "run changed rq_affinity to $other before the kill" [ "$changed" = 1 ]
check "still $other after SIGKILL (nothing restored it yet: $(cat "$rq_path"))" [ "$(cat "$rq_path")" = "$other" ]
check "journal holds the original of $rq_path" grep -qF "$rq_path	$orig" "$AFFBENCH_JOURNAL"
sleep 0.3
alive=""
# reparented to an init that may not reap: a zombie (Z) counts as dead
for k in $kids; do
	st=$(ps -o stat= -p "$k" 2>/dev/null)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ] && alive="$alive $k"
done
check "workers died with the parent (children '$kids', alive '$alive')" [ -n "$kids" -a -z "$alive" ]
restore 2>"$out/restore.err"
rc=$?
check "harness restore exits 0 (rc $rc: $(head -c 300 "$out/restore.err"))" [ "$rc" = 0 ]
check "rq_affinity restored to $orig (now $(cat "$rq_path"))" [ "$(cat "$rq_path")" = "$orig" ]

# --- bad input: one line, exit 2 or 4, no knob touched -------------------------
jsize() { stat -c %s "$AFFBENCH_JOURNAL" 2>/dev/null || echo 0; }
j0=$(jsize)
expect_rc "missing device" 2 "$SQ" --device /dev/affbench-no-such-disk --rq "$other" "${quick[@]}"
expect_rc "a regular file as --device" 2 "$SQ" --device /etc/hostname --rq "$other" "${quick[@]}"
expect_rc "rq value 3" 2 "$SQ" --file "$F" --rq 3 "${quick[@]}"
expect_rc "--file with --device" 2 "$SQ" --file "$F" --device "/dev/$disk" "${quick[@]}"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=/dev/shm/affbench-sqrtio-it.$$
	expect_rc "a file on tmpfs" 4 "$SQ" --file "$shm" --rq "$other" "${quick[@]}"
	check "nothing created on tmpfs" [ ! -e "$shm" ]
	grep -q tmpfs <("$SQ" --file "$shm" --rq "$other" "${quick[@]}" 2>&1)
	check "the tmpfs skip names tmpfs" [ $? = 0 ]
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
