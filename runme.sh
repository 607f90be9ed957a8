#!/bin/bash
# affbench's one command: install what is missing, build, put back anything a
# killed run left changed, run the default plan, then print the seed-layout
# tables and where the report is.
#   ./runme.sh [--quick] [--plan NAME|FILE] [--repeat N] [--out DIR]
set -eu
cd "$(dirname "$0")"

usage() {
	sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
}

args=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) args+=(--quick) ;;
	--plan|--repeat|--out)
		[ $# -ge 2 ] || { echo "runme.sh: $1 needs a value" >&2; exit 2; }
		args+=("$1" "$2"); shift ;;
	--plan=*|--repeat=*|--out=*) args+=("${1%%=*}" "${1#*=}") ;;
	-h|--help) usage; exit 0 ;;
	*) echo "runme.sh: unknown option '$1' (--quick, --plan, --repeat, --out)" >&2; exit 2 ;;
	esac
	shift
done

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

# A run killed earlier (SIGKILL, power loss) may have left a knob changed or a
# FUSE mount behind: put them back before measuring anything.
echo "== restore leftovers of earlier runs" >&2
bin/harness restore || echo "runme.sh: warning: some leftovers could not be restored (see above)" >&2

echo "== run" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
bin/harness run ${args[@]+"${args[@]}"} | tee "$log"
rc=${PIPESTATUS[0]}
set -e
out=$(tail -n 1 "$log")
if [ "$rc" != 0 ]; then
	echo "runme.sh: harness run exited $rc" >&2
	[ "$rc" = 130 ] && [ -n "$out" ] && echo "runme.sh: continue with: bin/harness run --resume <run dir>" >&2
	exit "$rc"
fi
if [ ! -f "$out/tables.md" ]; then
	echo "runme.sh: no tables.md in '$out'" >&2
	exit 1
fi
echo
cat "$out/tables.md"
echo
echo "report: $out/report.md"
