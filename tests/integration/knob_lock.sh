#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness restore judges a knob's writer by the knob's owner lock, not by a pid
# (issue 32, findings 4 and 12), on a fake sysfs tree (the AFFBENCH_KNOB_ROOT
# test hook):
#   - guest_halt_poll_ns changed to 12345, a journal entry naming a running
#     `sleep 60`'s pid (a dead writer's pid, reused), the lock free: restore
#     puts the original back, says so and removes the entry;
#   - a journal of 100,000 lines (entries closed by their done lines, then
#     two open ones) is replayed whole: both knobs back, the journal gone;
#   - a journal with more open entries than a replay takes is refused with one
#     line (exit 1), knob and journal left as they are.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/knob-lock.XXXXXX")
FAKE=$D/root
HP=/sys/module/haltpoll/parameters/guest_halt_poll_ns
RQ=/sys/block/vda/queue/rq_affinity
J=$D/state/knobs.journal
BOOT=$(cat /proc/sys/kernel/random/boot_id)
mkdir -p "$FAKE${HP%/*}" "$FAKE${RQ%/*}" "$D/state"
STRAY=()
cleanup() {
	kill_same "${STRAY[@]}"
	wait 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
entry() { printf '%s\t%s\t0\t%s\t%s\n' "$BOOT" "$1" "$2" "$3"; }
restore() { AFFBENCH_KNOB_ROOT=$FAKE "$H" restore --journal "$J" --workdir "$D" 2>"$D/err"; }

# ---- the finding: a live process with the writer's pid ----
sleep 60 &
S=$!
STRAY+=("$(proc_id $S)")
echo 200000 >"$FAKE$HP"
entry "$S" "$HP" 200000 >"$J"
echo 12345 >"$FAKE$HP"
restore
rc=$?
check "restore with a running sleep's pid in the entry: exit 0 (got $rc: $(cat "$D/err"))" \
	[ "$rc" = 0 ]
check "... guest_halt_poll_ns is back at 200000 ($(cat "$FAKE$HP"))" \
	[ "$(cat "$FAKE$HP")" = 200000 ]
check "... it says so" grep -q "1 knob(s) restored" "$D/err"
check "... the entry is gone" test ! -e "$J"
check "... the sleep still runs (it was never the writer)" kill -0 "$S"

# ---- 100,000 lines ----
echo 1 >"$FAKE$RQ"
awk -v b="$BOOT" -v hp="$HP" -v rq="$RQ" -v s="$S" 'BEGIN {
	printf "%s\t%d\t0\t%s\t%s\n", b, s, hp, "200000"
	for (p = 100; n < 49999; p++)
		if (p != s && ++n) printf "%s\t%d\t0\t%s\t1\n%s\t%d\tdone\n", b, p, rq, b, p
	printf "%s\t%d\t0\t%s\t%s\n", b, s, rq, "2"
}' >"$J"
echo 7 >"$FAKE$HP"
echo 0 >"$FAKE$RQ"
check "a journal of $(wc -l <"$J") lines" [ "$(wc -l <"$J")" -ge 100000 ]
timeout 60 env AFFBENCH_KNOB_ROOT="$FAKE" "$H" restore --journal "$J" --workdir "$D" 2>"$D/err"
rc=$?
check "restore of it: exit 0 (got $rc: $(tail -n1 "$D/err"))" [ "$rc" = 0 ]
check "... both open entries restored ($(cat "$FAKE$HP"), $(cat "$FAKE$RQ"))" \
	eval '[ "$(cat "$FAKE$HP")" = 200000 ] && [ "$(cat "$FAKE$RQ")" = 2 ]'
check "... the journal is gone" test ! -e "$J"

# ---- past the bound: refused, left as it is ----
awk -v b="$BOOT" -v rq="$RQ" 'BEGIN {
	for (p = 100; p < 5100; p++) printf "%s\t%d\t0\t%s\t1\n", b, p, rq }' >"$J"
sum=$(md5sum <"$J")
echo 0 >"$FAKE$RQ"
expect_rc "5,000 open entries: refused, exit 1, one line" 1 env AFFBENCH_KNOB_ROOT="$FAKE" \
	"$H" restore --journal "$J" --workdir "$D"
restore
check "... the line names the bound ($(cat "$D/err"))" grep -q "at most 4096" "$D/err"
check "... the knob and the journal left as they were" \
	eval '[ "$(cat "$FAKE$RQ")" = 0 ] && [ "$(md5sum <"$J")" = "$sum" ]'
t_done
