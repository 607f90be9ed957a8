#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness run --resume DIR runs only affbench's own programs, and only on a
# directory nobody else could have written (issue 24, findings 1 and 2):
#  - a plan.plan naming `program /path/evil.sh` (beside a header-only raw.csv
#    and runs.csv) is refused with its line; so is a given plan with one, and a
#    benchmark the registry does not know;
#  - a directory, or a file of the run, owned by another user, or group- or
#    world-writable, or with a second hard link, is refused;
#  - a FIFO or a link planted under every name the run reads is refused, never
#    waited on or followed; a FIFO at plan.plan.new (the old --repeat's
#    temporary name) is never opened;
# each with exit 2 and one line, no hang (every run under `timeout 20`), both
# locks free afterwards, and evil.sh never run (it would create a marker).
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/resume-safety.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
export AFFBENCH_MACHINE_LOCK=$D/machine.lock
# The good run's fake benchmark (a test-only hook; empty for the evil plans: none).
export AFFBENCH_TEST_PROGRAMS=$D
PWNED=$D/pwned

mkdir "$D/x"
printf '#!/bin/sh\ntouch %s\n%s\n%s\n' "$PWNED" 'echo bench,config,rep,metric,value,unit' \
	'echo evil,n=1,1,ops_per_s,1,1/s' >"$D/x/evil.sh"
chmod +x "$D/x/evil.sh"
# its config names its point (--n N): two points writing one config would be one
# repetition written twice, which raw.csv refuses
cat >"$D/okbench" <<'EOF'
#!/bin/bash
n=0
while [ $# -gt 0 ]; do [ "$1" = --n ] && n=$2; shift; done
echo "bench,config,rep,metric,value,unit"
echo "okbench,n=$n,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
EOF
chmod +x "$D/okbench"
printf 'repeat 1\nbench okbench\nduration 0.1\ntimeout 30\naxis n 1 2\n' >"$D/ok.plan"
"$H" run --plan "$D/ok.plan" --out "$D/good" >/dev/null 2>"$D/good.err"
check "a good run to copy from ($(tail -n1 "$D/good.err"))" test -s "$D/good/runs.csv"

# locks_free DIR: neither lock is held, and neither names a holder
locks_free() {
	flock -n "$AFFBENCH_MACHINE_LOCK" true && test ! -s "$AFFBENCH_MACHINE_LOCK" || return 1
	[ -f "$1/run.lock" ] && [ ! -L "$1/run.lock" ] || return 0
	flock -n "$1/run.lock" true && test ! -s "$1/run.lock"
}
# refused DESC DIR [ARGS...]: harness run --resume DIR ARGS exits 2 with one line,
# in time, ran nothing and left both locks free
refused() {
	local d=$1 dir=$2; shift 2
	expect_rc "$d" 2 timeout 20 "$H" run --resume "$dir" "$@"
	check "... evil.sh never ran" test ! -e "$PWNED"
	check "... both locks are free" locks_free "$dir"
}
fresh() { rm -rf "$D/$1"; cp -r "$D/good" "$D/$1"; echo "$D/$1"; }

# ---- 1. the plan names what runs ----
E=$D/evil
mkdir "$E"
printf 'bench evil\nprogram %s\n' "$D/x/evil.sh" >"$E/plan.plan"
echo "bench,config,rep,metric,value,unit" >"$E/raw.csv"
echo "bench,point,rep,status,exit,seconds,raw_bytes,label" >"$E/runs.csv"
AFFBENCH_TEST_PROGRAMS= refused "a plan.plan naming program /path/evil.sh is refused" "$E"
err=$(AFFBENCH_TEST_PROGRAMS= "$H" run --resume "$E" 2>&1 >/dev/null)
check "... naming its line ($err)" grep -q "$E/plan.plan:2: 'program' is not a plan key" <<<"$err"
printf 'bench evil\n' >"$E/plan.plan"
AFFBENCH_TEST_PROGRAMS= refused "a plan.plan naming an unregistered benchmark is refused" "$E"
cp "$E/plan.plan" "$D/given.plan"
printf 'program %s\n' "$D/x/evil.sh" >>"$D/given.plan"
AFFBENCH_TEST_PROGRAMS= expect_rc "a given plan with a program line is refused" 2 \
	timeout 20 "$H" run --plan "$D/given.plan" --out "$D/given"
check "... evil.sh never ran, nothing created" test ! -e "$PWNED" -a ! -e "$D/given"

# ---- 2. who could have written the directory ----
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	R=$(fresh owned) && chown -R nobody "$R"
	refused "a directory owned by another user is refused" "$R"
	err=$("$H" run --resume "$R" 2>&1 >/dev/null)
	check "... saying whose it is ($err)" \
		grep -q "is owned by uid $(id -u nobody), not by root or you" <<<"$err"
	for f in plan.plan runs.csv raw.csv log; do
		R=$(fresh "owned-$f") && chown nobody "$R/$f"
		refused "$f owned by another user is refused" "$R"
	done
else
	skip "a directory owned by another user" "needs root and user nobody"
fi
for m in g+w o+w; do
	R=$(fresh "mode$m") && chmod "$m" "$R"
	refused "a directory made $m is refused" "$R"
	R=$(fresh "plan$m") && chmod "$m" "$R/plan.plan"
	refused "a plan.plan made $m is refused" "$R"
done
R=$(fresh hardlink) && ln "$R/raw.csv" "$D/raw-elsewhere.csv"
refused "a raw.csv with a second hard link is refused" "$R"

# A refusal after both locks are taken (raw.csv shorter than runs.csv says) frees them too.
R=$(fresh short) && head -n1 "$D/good/raw.csv" >"$R/raw.csv"
refused "a raw.csv shorter than runs.csv says is refused, after the locks" "$R"

# ---- 3. FIFOs and links under every name the run reads ----
echo "keep" >"$D/target"
for f in plan.plan runs.csv raw.csv hist.csv failures.csv machine.txt run.lock; do
	R=$(fresh "fifo-$f") && rm -f "$R/$f" && mkfifo "$R/$f"
	refused "$f a FIFO is refused, not waited on" "$R"
	R=$(fresh "link-$f") && rm -f "$R/$f" && ln -s "$D/target" "$R/$f"
	refused "$f a symbolic link is refused" "$R"
	check "... its target untouched" test "$(cat "$D/target")" = keep
done
R=$(fresh link-log) && rm -rf "$R/log" && ln -s "$D/x" "$R/log"
refused "log/ a symbolic link is refused" "$R"

# The old --repeat wrote plan.plan.new with open(): a FIFO there hung it for ever,
# holding both locks. Nothing opens that name now: the resume goes on.
R=$(fresh fifo-new) && mkfifo "$R/plan.plan.new"
timeout 20 "$H" run --resume "$R" --repeat 2 >/dev/null 2>"$D/new.err"
rc=$?
last=$(tail -n 2 "$D/new.err" | tr "\n" " ")
check "a FIFO at plan.plan.new does not hang --resume --repeat 2 (exit $rc: $last)" test "$rc" = 0
check "... plan.plan now says repeat 2" grep -qx 'repeat 2' "$R/plan.plan"
check "... the FIFO left as it was, no temporary file left" \
	test -p "$R/plan.plan.new" -a -z "$(find "$R" -maxdepth 1 -name '.plan.plan.*')"
check "... both locks are free" locks_free "$R"

rm -rf "$D"
t_done
