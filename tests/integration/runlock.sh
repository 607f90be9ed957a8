#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One run per directory, one measuring run per machine, and input checked
# before anything runs (issue 17): a second run on a live run's directory
# exits 2 naming its pid and touches nothing; a second run on the machine
# waits with a message, or exits 2 with --no-wait; a finished run's directory
# or a file as --out exits 2 (in --dry-run too); --resume refuses options that
# contradict the run's plan and records --repeat; a dead holder's lock is taken
# over with one line; option combinations that mean nothing and hex numbers
# exit 2. A fake benchmark that waits for a gate file keeps the first run
# alive exactly as long as the test needs, however busy the machine.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/runlock-it.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
export AFFBENCH_MACHINE_LOCK=$D/machine.lock

# Waits (at most 60 s) for $GATE to exist, then writes one record.
cat > "$D/gatebench" <<'FAKE'
#!/bin/bash
[ -n "${GATE:-}" ] && touch "$GATE.started"
for _ in $(seq 600); do [ -z "${GATE:-}" ] || [ -e "$GATE" ] && break; sleep 0.1; done
echo "bench,config,rep,metric,value,unit"
echo "gatebench,x=1,1,ops_per_s,1000,1/s"
FAKE
chmod +x "$D/gatebench"
printf 'repeat 1\nbench gatebench\nduration 0.1\ntimeout 90\naxis x 1\n' > "$D/g.plan"

# wait_for FILE: up to 60 s
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
# A listing of DIR with sizes and times: "touches nothing" is this staying equal.
snap() { find "$1" -printf '%P %s %T@ %m\n' | sort; }

# ---- a live run holds its directory and the machine ----
GATE=$D/gate1 "$H" run --plan "$D/g.plan" --out "$D/A" >/dev/null 2>"$D/A.err" &
apid=$!
check "the first run started its point" wait_for "$D/gate1.started"
before=$(snap "$D/A")
expect_rc "a second run on the same directory exits 2" 2 "$H" run --plan "$D/g.plan" --out "$D/A"
err=$("$H" run --plan "$D/g.plan" --out "$D/A" 2>&1 >/dev/null)
check "it names the holder's pid ($err)" grep -q "pid $apid\b" <<<"$err"
expect_rc "--resume of the live run exits 2" 2 "$H" run --resume "$D/A"
err=$("$H" run --resume "$D/A" 2>&1 >/dev/null)
check "--resume names the holder's pid too" grep -q "pid $apid\b" <<<"$err"
check "neither touched anything in the live run's directory" test "$(snap "$D/A")" = "$before"
check "the live run's run.lock holds \"PID DIR\" ($(head -c 200 "$D/A/run.lock"))" \
	test "$(cat "$D/A/run.lock")" = "$apid $D/A"

expect_rc "--no-wait: a second run on the machine exits 2" 2 \
	"$H" run --plan "$D/g.plan" --out "$D/B" --no-wait
err=$("$H" run --plan "$D/g.plan" --out "$D/B" --no-wait 2>&1 >/dev/null)
check "--no-wait names the measuring run's pid ($err)" grep -q "pid $apid\b" <<<"$err"
check "--no-wait created nothing" test ! -e "$D/B"

GATE=$D/gate2 "$H" run --plan "$D/g.plan" --out "$D/C" >/dev/null 2>"$D/C.err" &
cpid=$!
for _ in $(seq 600); do grep -q 'waiting for run' "$D/C.err" && break; sleep 0.1; done
check "a second run on the machine waits, saying for whom ($(head -1 "$D/C.err"))" \
	grep -q "waiting for run pid $apid ($D/A) to finish; --no-wait to exit instead" "$D/C.err"
check "... and has not started its point while the first measures" test ! -e "$D/gate2.started"
touch "$D/gate1" "$D/gate2"
wait "$apid"; arc=$?
wait "$cpid"; crc=$?
check "both runs then finish, one after the other (rc $arc, $crc)" test "$arc" = 0 -a "$crc" = 0
check "the waiting run measured after the first ended" test -s "$D/C/raw.csv"
check "each raw.csv holds one run (1 record each)" \
	test "$(grep -c '^gatebench,' "$D/A/raw.csv")" = 1 -a "$(grep -c '^gatebench,' "$D/C/raw.csv")" = 1
check "the machine lock is left empty (no stale holder)" test ! -s "$D/machine.lock"
check "... and so is the finished run's run.lock, as docs/plans.md says" \
	test -f "$D/A/run.lock" -a ! -s "$D/A/run.lock"
check "docs/plans.md says so" grep -q '"PID DIR" while the run lives and is left empty' \
	<<<"$(tr '\n' ' ' < "$TOP/docs/plans.md")"

# ---- a finished run's directory, a file, as --out ----
before=$(snap "$D/A")
expect_rc "a finished run's directory as --out exits 2" 2 "$H" run --plan "$D/g.plan" --out "$D/A"
err=$("$H" run --plan "$D/g.plan" --out "$D/A" 2>&1 >/dev/null)
check "the refusal hints at --resume ($err)" grep -q -- "--resume $D/A" <<<"$err"
expect_rc "... in --dry-run too" 2 "$H" run --plan "$D/g.plan" --out "$D/A" --dry-run
check "the finished run is untouched" test "$(snap "$D/A")" = "$before"
mkdir "$D/empty"
GATE= "$H" run --plan "$D/g.plan" --out "$D/empty" >/dev/null 2>&1
check "an empty directory is a fine --out" test -s "$D/empty/raw.csv"
: > "$D/afile"
expect_rc "--out naming a file exits 2" 2 "$H" run --plan "$D/g.plan" --out "$D/afile"
expect_rc "--out naming a file exits 2 in --dry-run" \
	2 "$H" run --plan "$D/g.plan" --out "$D/afile" --dry-run
expect_rc "--out below a file exits 2 in --dry-run" \
	2 "$H" run --plan "$D/g.plan" --out "$D/afile/x" --dry-run
check "the file is left as it was" test ! -s "$D/afile"

# ---- --resume and the options of the run's plan ----
printf 'repeat 1\nbench other\naxis y 1\n' > "$D/q.plan"
expect_rc "--resume D --plan Q exits 2" 2 "$H" run --resume "$D/A" --plan "$D/q.plan"
expect_rc "--resume D --quick exits 2" 2 "$H" run --resume "$D/A" --quick
expect_rc "--resume D --machine-note exits 2" 2 "$H" run --resume "$D/A" --machine-note x
GATE= "$H" run --resume "$D/A" --repeat 2 >/dev/null 2>"$D/rs.err"
rc=$?
check "--resume D --repeat 2 runs the missing repetition (rc $rc)" \
	test "$rc" = 0 -a "$(grep -c '^gatebench,' "$D/A/raw.csv")" = 2
check "... and plan.plan now says repeat 2" grep -qx 'repeat 2' "$D/A/plan.plan"
check "... with one repeat line" test "$(grep -c '^repeat ' "$D/A/plan.plan")" = 1
expect_rc "--resume D --repeat 1 (fewer than planned) exits 2" 2 "$H" run --resume "$D/A" --repeat 1

# ---- a holder that died: its lock is taken over with one line ----
GATE=$D/gate3 "$H" run --plan "$D/g.plan" --out "$D/K" >/dev/null 2>&1 &
kpid=$!
wait_for "$D/gate3.started"
kill -9 "$kpid"; wait "$kpid" 2>/dev/null
touch "$D/gate3"
GATE= "$H" run --plan "$D/g.plan" --out "$D/L" >/dev/null 2>"$D/L.err"
check "a dead run's machine lock is taken over with one line" \
	test "$(grep -c "pid $kpid ($D/K) ended without releasing it; taking it over" "$D/L.err")" = 1
check "... and the run goes on" test -s "$D/L/raw.csv"
cp -r "$D/L" "$D/T"
printf 'torn' >> "$D/T/runs.csv"
expect_rc "a --resume refused after taking the locks (torn runs.csv) exits 2" \
	2 "$H" run --resume "$D/T"
check "... and leaves no pid behind in either lock" \
	test ! -s "$D/machine.lock" -a ! -s "$D/T/run.lock"
cp -r "$D/L" "$D/S"
rm -f "$D/S/run.lock"
ln -s "$D/victim" "$D/S/run.lock"
expect_rc "a link planted as DIR/run.lock is refused" 2 "$H" run --resume "$D/S"
check "... and its target was not created" test ! -e "$D/victim"

# ---- combinations that mean nothing, numbers that are not decimal ----
expect_rc "cputestfs --baseline pipe --transport dev exits 2" 2 \
	"$BIN/cputestfs" --baseline pipe --transport dev --duration 0.05
expect_rc "cputestfs --baseline kernel --daemon multi exits 2" 2 \
	"$BIN/cputestfs" --baseline kernel --daemon multi --duration 0.05
expect_rc "cputestfs --transport uring --daemon multi exits 2" 2 \
	"$BIN/cputestfs" --transport uring --daemon multi --duration 0.05
expect_rc "cputestfs --baseline kernel --mountpoint DIR exits 2" 2 \
	"$BIN/cputestfs" --baseline kernel --mountpoint "$D" --duration 0.05
expect_rc "ddpar --daemon single --threads 4 exits 2" 2 "$BIN/ddpar" --daemon single --threads 4
expect_rc "fdget --threads 2 --mode single exits 2" 2 "$BIN/fdget" --threads 2 --mode single
expect_rc "fdget --oversubscribe without --threads exits 2" \
	2 "$BIN/fdget" --oversubscribe --mode shared-fd
expect_rc "fdget --duration 0x10 exits 2" 2 "$BIN/fdget" --duration 0x10
expect_rc "fdget --duration inf exits 2" 2 "$BIN/fdget" --duration inf
expect_rc "harness run --repeat 0x2 exits 2" 2 "$H" run --plan "$D/g.plan" --repeat 0x2 --dry-run

rm -rf "$D"
t_done
