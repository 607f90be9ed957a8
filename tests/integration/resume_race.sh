#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness run --resume DIR checks DIR and every directory above it, then reads
# and writes only through the descriptor of what it checked (issue 32,
# finding 2; harness/run/trust.c):
#   - a symbolic link among DIR's parents, a group-writable parent and a
#     parent another user owns are refused (exit 2, one line); a sticky
#     world-writable parent (as /tmp) is not;
#   - the race made certain (the AFFBENCH_TEST_RESUME_SWAP test hook swaps
#     another user's run directory, its plan naming other points, in under
#     DIR's name right after the checks): --dry-run lists the checked plan's
#     points, and a real resume runs those and writes only into the checked
#     directory; the planted one is left as it was.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/resume-race.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
export AFFBENCH_MACHINE_LOCK=$D/machine.lock
export AFFBENCH_TEST_PROGRAMS=$D
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
# an interrupted copy: nothing done yet, both points left
partial() {
	rm -rf "$1"
	cp -r "$D/good" "$1"
	head -n1 "$D/good/runs.csv" >"$1/runs.csv"
	head -n1 "$D/good/raw.csv" >"$1/raw.csv"
}
refused() { # DESC DIR WORDS: exit 2, one line, naming WORDS
	local d=$1 dir=$2 words=$3 err
	expect_rc "$d" 2 timeout 20 "$H" run --resume "$dir" --dry-run
	err=$(timeout 20 "$H" run --resume "$dir" --dry-run 2>&1 >/dev/null)
	check "... saying it is $words ($err)" grep -q -- "$words" <<<"$err"
}

# ---- the parents ----
mkdir -p "$D/real"
partial "$D/real/run"
ln -s "$D/real" "$D/link"
refused "a symbolic link among the parents is refused" "$D/link/run" "a symbolic link"
"$H" run --resume "$D/real/run" --dry-run >/dev/null 2>"$D/err"
rc=$?
check "... the same directory through no link is resumed (exit $rc: $(tail -n1 "$D/err"))" \
	[ "$rc" = 0 ]
mkdir -m 0775 "$D/gw"
partial "$D/gw/run"
refused "a group-writable parent is refused" "$D/gw/run" "group- or world-writable (mode 0775)"
mkdir -m 0777 "$D/ww"
partial "$D/ww/run"
refused "a world-writable parent is refused" "$D/ww/run" "group- or world-writable (mode 0777)"
refused "... also named through a relative path with .." "$D/ww/../ww/run" \
	"group- or world-writable"
mkdir -m 1777 "$D/sticky"
partial "$D/sticky/run"
"$H" run --resume "$D/sticky/run" --dry-run >/dev/null 2>"$D/err"
rc=$?
check "a sticky world-writable parent (as /tmp) is not refused (exit $rc: $(tail -n1 "$D/err"))" \
	[ "$rc" = 0 ]
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir "$D/theirs"
	partial "$D/theirs/run"
	chown nobody "$D/theirs"
	refused "a parent owned by another user is refused" "$D/theirs/run" "owned by uid $(id -u nobody)"
else
	skip "a parent owned by another user" "needs root and user nobody"
fi

# ---- the race, made certain ----
# E: another user's run directory whose plan names other points
E=$D/planted
partial "$E"
printf 'repeat 1\nbench okbench\nduration 0.1\ntimeout 30\naxis n 7 8 9\n' >"$E/plan.plan"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then chown -R nobody "$E"; fi
G=$D/checked
partial "$G"
AFFBENCH_TEST_RESUME_SWAP=$E "$H" run --resume "$G" --dry-run >"$D/dry.out" 2>"$D/dry.err"
rc=$?
last=$(tail -n1 "$D/dry.err")
check "--dry-run with the planted directory swapped in: exit 0 (got $rc: $last)" \
	[ "$rc" = 0 ]
check "... the swap happened: the planted plan is under the name now" \
	grep -q "axis n 7 8 9" "$G/plan.plan"
check "... it lists the checked plan's points (--n 1, --n 2)" \
	eval 'grep -q -- "--n 1" "$D/dry.out" && grep -q -- "--n 2" "$D/dry.out"'
check "... and none of the planted plan's" eval '! grep -Eq -- "--n [789]" "$D/dry.out"'
mv "$G" "$D/swap" && mv "$E" "$G" && mv "$D/swap" "$E"	# back: G checked, E planted
# every file of the planted directory, with its contents
snap() { (cd "$1" && find . -print0 | sort -z | xargs -0 stat -c '%n %s %Y' && cat ./*.csv); }
before=$(snap "$E")
AFFBENCH_TEST_RESUME_SWAP=$E timeout 60 "$H" run --resume "$G" >/dev/null 2>"$D/run.err"
rc=$?
check "a resume with the planted directory swapped in: exit 0 (got $rc: $(tail -n1 "$D/run.err"))" \
	[ "$rc" = 0 ]
# the checked directory, now under E's name, holds the run; the planted one, under G's, is as it was
check "... the checked directory got both points' records" eval \
	'grep -q "^okbench,n=1," "$E/raw.csv" && grep -q "^okbench,n=2," "$E/raw.csv"'
check "... no point of the planted plan ran" \
	eval '! grep -Eq "^okbench,n=[789]," "$E/raw.csv" "$G/raw.csv"'
check "... the planted directory was left as it was: no file added, changed or removed" \
	test "$(snap "$G")" = "$before"
check "... the report names the directory as given" grep -qF "Run directory: \`$G\`" "$E/report.md"
rm -rf "$D"
t_done
