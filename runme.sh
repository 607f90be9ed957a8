#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# affbench's one command: install what is missing, build, put back anything a
# killed run left changed, run the default plan, then print the posts' tables
# and the readings, and where the report is.
#   ./runme.sh [--quick] [--plan NAME|FILE] [--repeat N] [--out DIR]
#   ./runme.sh --restore-only   only put back what a killed run left changed
#                               (knob journal, stale FUSE mounts), then stop
set -eu
cd "$(dirname "$0")"

usage() {
	sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
}

# A run killed earlier (SIGKILL, power loss) may have left a knob changed or a
# FUSE mount behind: put them back before measuring anything. The journal and
# work directory are the harness's defaults ($AFFBENCH_JOURNAL, $AFFBENCH_WORKDIR).
restore_leftovers() {
	echo "== restore leftovers of earlier runs" >&2
	bin/harness restore
}

# Values are passed to the harness as separate arguments, never through a shell;
# still, one that could be taken for an option or hides a line break is refused.
check_value() {
	case $2 in
	''|-*|*$'\n'*|*$'\r'*) echo "runme.sh: bad value for $1: '$2'" >&2; exit 2 ;;
	esac
	if [ "$1" = --repeat ] && ! [[ $2 =~ ^[0-9]{1,4}$ ]]; then
		echo "runme.sh: bad value '$2' for --repeat: want a whole number in 1..1000" >&2
		exit 2
	fi
}

args=()
restore_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) args+=(--quick) ;;
	--restore-only) restore_only=1 ;;
	--plan|--repeat|--out)
		[ $# -ge 2 ] || { echo "runme.sh: $1 needs a value" >&2; exit 2; }
		check_value "$1" "$2"
		args+=("$1" "$2"); shift ;;
	--plan=*|--repeat=*|--out=*)
		check_value "${1%%=*}" "${1#*=}"
		args+=("${1%%=*}" "${1#*=}") ;;
	-h|--help) usage; exit 0 ;;
	*) echo "runme.sh: unknown option '$1' (--quick, --plan, --repeat, --out, --restore-only)" \
		>&2; exit 2 ;;
	esac
	shift
done

if [ "$restore_only" = 1 ]; then
	[ ${#args[@]} = 0 ] || { echo "runme.sh: --restore-only takes no other option" >&2; exit 2; }
	# no dependency check and no measurement: only the harness is needed
	if [ ! -x bin/harness ] && ! make -s bin/harness; then
		echo "runme.sh: cannot build bin/harness to restore with" >&2
		exit 1
	fi
	restore_leftovers
	exit
fi

echo "== dependencies" >&2
if ! scripts/deps.sh; then
	echo "runme.sh: dependencies missing (see above); install them and run again" >&2
	exit 4
fi

echo "== build" >&2
if ! make -s all; then
	echo "runme.sh: build failed (see the compiler messages above)" >&2
	exit 1
fi

restore_leftovers || echo "runme.sh: warning: some leftovers could not be restored (see above)" >&2

echo "== run" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
bin/harness run ${args[@]+"${args[@]}"} | tee "$log"
rc=${PIPESTATUS[0]}
set -e
out=$(tail -n 1 "$log")
if [ "$rc" != 0 ]; then
	# On an interrupt the harness itself has printed the --resume command.
	echo "runme.sh: harness run exited $rc" >&2
	exit "$rc"
fi
if [ ! -f "$out/tables.md" ]; then
	echo "runme.sh: no tables.md in '$out'" >&2
	exit 1
fi
# The posts' tables and the readings; every result stays in the files.
echo
sed '/^## All results/,$d' "$out/tables.md"
sed -n '/^## Warnings/,/^## Files/p' "$out/report.md" | sed '/^## Files/d; /^!\[/d'
echo "tables: $out/tables.md (every result at its end)"
echo "report: $out/report.md"
