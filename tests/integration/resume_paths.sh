#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A resumed run reads and writes its directory through the descriptor it checked
# (/proc/self/fd/N, harness/run/trust.c), a name its user never gave: every message
# and failures.csv name the directory as --resume gave it. Three resumes of a
# planted run directory: one refused (a machine.txt line over the limit), one whose
# raw.csv has a bad row (plot's warning at the end), one whose last point cannot
# create its log (a directory planted at its name: the failure's reason).
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/resume-paths.XXXXXX")
trap 'rm -rf "$D"' EXIT
export AFFBENCH_JOURNAL=$D/knobs.journal
export AFFBENCH_MACHINE_LOCK=$D/machine.lock
export AFFBENCH_TEST_PROGRAMS=$D	# okbench: a test-only hook
cat >"$D/okbench" <<'EOF'
#!/bin/bash
n=0
while [ $# -gt 0 ]; do [ "$1" = --n ] && n=$2; shift; done
echo "bench,config,rep,metric,value,unit"
echo "okbench,n=$n,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
EOF
chmod +x "$D/okbench"
printf 'repeat 2\nbench okbench\nduration 0.1\ntimeout 30\naxis n 1 2\n' >"$D/ok.plan"
"$H" run --plan "$D/ok.plan" --out "$D/good" >/dev/null 2>"$D/good.err"
check "a run to resume ($(tail -n1 "$D/good.err"))" test -s "$D/good/runs.csv"
# fresh NAME: a copy of the run with its last point undone (runs.csv's last row gone)
fresh() { cp -a "$D/good" "$D/$1" && sed -i '$d' "$D/$1/runs.csv"; }

fresh long
head -c 70000 /dev/zero | tr '\0' a >>"$D/long/machine.txt"
"$H" run --resume "$D/long" >/dev/null 2>"$D/long.err"
rc=$?
check "a machine.txt line over the limit: refused (exit $rc)" [ "$rc" = 2 ]
check "... the message names the directory given ($(head -c 120 "$D/long.err"))" \
	grep -qF "$D/long/machine.txt:" "$D/long.err"
check "... and no descriptor's path" eval '! grep -q /proc/self/fd "$D/long.err"'

fresh badrow
sed -i '2s/$/,extra/' "$D/badrow/raw.csv"
"$H" run --resume "$D/badrow" >/dev/null 2>"$D/badrow.err"
rc=$?
check "a raw.csv with a bad row: resumed (exit $rc)" [ "$rc" = 0 ]
check "... plot's warning names the directory given" \
	grep -qF "$D/badrow/raw.csv:2: skipped a bad row" "$D/badrow.err"
check "... and no descriptor's path" eval '! grep -q /proc/self/fd "$D/badrow.err"'

fresh nolog
rm "$D/nolog/log/okbench-p1-r2.log"
mkdir "$D/nolog/log/okbench-p1-r2.log"
"$H" run --resume "$D/nolog" >/dev/null 2>"$D/nolog.err"
check "a log that cannot be created: its failure names the directory given" \
	grep -qF "FAILED: cannot create $D/nolog/log/okbench-p1-r2.log" "$D/nolog.err"
check "... so does failures.csv's reason" \
	grep -qF "cannot create $D/nolog/log/okbench-p1-r2.log" "$D/nolog/failures.csv"
check "... no message names a descriptor's path" eval '! grep -q /proc/self/fd "$D/nolog.err"'
check "... nor does any file of the run" eval '! grep -rq /proc/self/fd "$D/nolog"'
t_done
