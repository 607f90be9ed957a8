#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks that check (issue 26): --check-options refuses what the real run
# refuses, with the same one line and exit 2; duplicate list entries are
# refused; a long value is cut in the message; a gate rule, plan metric or
# output directory that cannot be right is exit 2; a run without valid
# records is exit 1. Nothing here measures (~3 s).
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/checks.XXXXXX")
mkdir -p "$W/full" && : > "$W/full/x"

# same_refusal DESC PROG ARGS...: exit 2 and one line, with --check-options and
# without, and the two lines are the same.
same_refusal() {
	local d=$1; shift
	local a b
	expect_rc "$d (--check-options)" 2 "$@" --check-options --quiet
	expect_rc "$d (real run)" 2 "$@" --quiet
	a=$("$@" --check-options --quiet 2>&1 >/dev/null)
	b=$("$@" --quiet 2>&1 >/dev/null)
	check "$d: the same line both ways" [ "$a" = "$b" ]
}

same_refusal "cputestfs --mountpoint that does not exist" \
	"$BIN/cputestfs" --mountpoint /nonexistent/x --duration 0.1
same_refusal "cputestfs --mountpoint that is not empty" \
	"$BIN/cputestfs" --mountpoint "$W/full" --duration 0.1
same_refusal "sqrtio --file in a missing directory" "$BIN/sqrtio" --file /nonexistent/dir/f
same_refusal "sqrtio --device that is not a block device" "$BIN/sqrtio" --device /dev/null
same_refusal "sqrtio --file and --device together" "$BIN/sqrtio" --file "$W/f" --device /dev/null
same_refusal "sqrtio --io-procs 0" "$BIN/sqrtio" --io-procs 0 --sqrt-procs 0

# Duplicates: the same point twice measures nothing new.
expect_rc "cputestfs --placement same,same" 2 "$BIN/cputestfs" --placement same,same --check-options
check "the line names the duplicate" sh -c \
	"'$BIN/cputestfs' --placement same,same --check-options 2>&1 | grep -q \"'same' is given twice\""
expect_rc "ddpar --procs 1,1,1" 2 "$BIN/ddpar" --procs 1,1,1 --check-options
expect_rc "ddpar --procs 1-3,2 (a range overlapping a value)" \
	2 "$BIN/ddpar" --procs 1-3,2 --check-options
check "the line names the duplicate" sh -c \
	"'$BIN/ddpar' --procs 1,1,1 --check-options 2>&1 | grep -q '1 is given twice'"

# A 100 KB value is cut, not echoed whole.
long=$(head -c 100000 /dev/zero | tr '\0' x)
for opt in --duration --procs --format; do
	err=$("$BIN/ddpar" $opt "$long" --check-options 2>&1 >/dev/null)
	# 1 to 399: an empty message is no line at all, not a cut one
	check "ddpar $opt of 100 KB: a line under 400 characters (${#err})" within "${#err}" 1 399
	check "ddpar $opt of 100 KB: the value cut with '...'" grep -q 'x\.\.\.' <<<"$err"
done
err=$("$BIN/cputestfs" --placement "$long" --check-options 2>&1 >/dev/null)
check "cputestfs --placement of 100 KB: a line under 400 characters (${#err})" \
	within "${#err}" 1 399
check "cputestfs --placement of 100 KB: the value cut with '...'" grep -q 'x\.\.\.' <<<"$err"

# The gate: a rule that matches nothing is a typo, exit 2 naming FILE:LINE, and
# nothing is written.
H=$BIN/harness
REF=$TOP/results/reference
printf '# typo\ncputestfs nosuch_metric max-drop 5%%\n' > "$W/typo"
expect_rc "gate rule with a metric cputestfs does not record" 2 \
	"$H" compare --out "$W/g1" --gate "$W/typo" "$REF" "$REF"
check "the line names FILE:LINE" \
	sh -c "'$H' compare --out '$W/g1' --gate '$W/typo' '$REF' '$REF' 2>&1 | grep -q 'typo:2: '"
check "nothing was written" [ ! -e "$W/g1" ]
echo 'cputestfs stat_per_s placement=nowhere max-drop 5%' > "$W/nowhere"
expect_rc "gate rule with a filter no config holds" 2 \
	"$H" compare --out "$W/g2" --gate "$W/nowhere" "$REF" "$REF"

# --out: a directory of compare's own.
expect_rc "compare --out a file" 2 "$H" compare --out /etc/passwd "$REF" "$REF"
mkdir -p "$W/run" && cp "$REF/raw.csv" "$W/run/"
expect_rc "compare --out a run directory" 2 "$H" compare --out "$W/run" "$REF" "$REF"
check "the run directory is left as it was" [ "$(ls "$W/run")" = raw.csv ]

# No valid records: exit 1, one line with the count of rejected rows.
mkdir -p "$W/empty" "$W/header" "$W/binary"
: > "$W/empty/raw.csv"
head -1 "$REF/raw.csv" > "$W/header/raw.csv"
head -c 4000 "$BIN/harness" > "$W/binary/raw.csv"
for k in empty header; do
	expect_rc "plot of a $k raw.csv" 1 "$H" report "$W/$k"
done
"$H" report "$W/binary" > /dev/null 2> "$W/binary.err"; rc=$?
check "plot of a binary raw.csv: exit $rc (want 1), the count of rejected rows said" \
	sh -c "[ $rc = 1 ] && grep -q 'no valid records ([0-9]* rows\{0,1\} rejected)' '$W/binary.err'"
expect_rc "export of a run without records" 1 "$H" export "$W/header"
expect_rc "compare with a run without records" 1 "$H" compare --out "$W/c0" "$REF" "$W/header"

# --resume --dry-run: only what is left, not the whole run again.
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$W/knobs.journal}
export AFFBENCH_TEST_PROGRAMS=$W	# "bench fakeok" runs $W/fakeok (test-only hook)
cat > "$W/fakeok" <<'FAKE'
#!/bin/bash
echo "bench,config,rep,metric,value,unit"
echo "fakeok,\"mode=$2\",1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
FAKE
chmod +x "$W/fakeok"
printf 'repeat 2\nbench fakeok\nduration 0.1\ntimeout 5\naxis mode a b\n' > "$W/ok.plan"
"$H" run --plan "$W/ok.plan" --out "$W/r" > /dev/null 2>&1
"$H" run --resume "$W/r" --dry-run > "$W/dry.out" 2>&1
check "resume --dry-run of a finished run lists no invocation" \
	sh -c "! grep -q '^rep ' '$W/dry.out' && grep -q '0 left to run' '$W/dry.out'"
head -4 "$W/r/runs.csv" > "$W/runs.tmp" && mv "$W/runs.tmp" "$W/r/runs.csv"
"$H" run --resume "$W/r" --dry-run > "$W/dry2.out" 2>&1
check "resume --dry-run lists only the invocation left" \
	sh -c "[ \$(grep -c '^rep ' '$W/dry2.out') = 1 ] && grep -q '^rep 2 point 1:' '$W/dry2.out'"

# --quick is a plan: with --plan one of them would be ignored.
expect_rc "run --quick --plan fdget" 2 "$H" run --quick --plan fdget --dry-run

# Advice that works: what fdget says first is what then runs.
err=$("$BIN/fdget" --threads 8 --mode single --cpus 0 --check-options 2>&1 >/dev/null)
check "fdget --threads 8 --mode single: the --mode is named, not --oversubscribe ($err)" \
	sh -c "printf '%s' \"\$1\" | grep -q 'threads means nothing' &&
		! printf '%s' \"\$1\" | grep -q oversubscribe" _ "$err"
err=$("$BIN/fdget" --threads 8 --mode shared-fd --cpus 0 --check-options 2>&1 >/dev/null)
if printf '%s' "$err" | grep -q 'add --oversubscribe'; then
	check "following the advice (--oversubscribe) is accepted" \
		"$BIN/fdget" --threads 8 --mode shared-fd --cpus 0 --oversubscribe --check-options
else
	nok "fdget --threads 8 on one CPU advises --oversubscribe: $err"
fi
rm -rf "$W"
t_done
