#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check while every CPU is busy: a CI machine often is, and the tests must
# hold there (they assert behaviour with tolerances, and their waits scale).
# One busy loop per CPU this process may use, each pinned to its CPU and at
# niceness 0, so it competes with the tests as an equal. The loops are stopped
# however make check ends; the exit status is make check's.
#   tests/check-loaded.sh [make arguments...]   (make check-loaded)
set -u
MAKE=${MAKE:-make}

cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- 'NF == 2 { for (c = $1; c <= $2; c++) print c; next } NF == 1 { print $1 }')
[ -n "$cpus" ] || cpus=$(seq 0 $(($(nproc) - 1)))

hogs=""
stop_hogs() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	for p in $hogs; do wait "$p" 2>/dev/null; done
	hogs=""
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM HUP

for c in $cpus; do
	# exec: the pid is the loop itself, so stop_hogs kills what burns the CPU.
	if command -v taskset >/dev/null 2>&1; then
		taskset -c "$c" sh -c 'while :; do :; done' &
	else
		sh -c 'while :; do :; done' &
	fi
	hogs="$hogs $!"
	renice -n 0 -p "$!" >/dev/null 2>&1	# niceness 0 even when make itself runs niced (root)
done
echo "affbench: make check with a busy loop on CPUs $(echo $cpus)" >&2

t0=$(date +%s)
"$MAKE" --no-print-directory check "$@"
rc=$?
stop_hogs
echo "affbench: make check under load: exit $rc after $(($(date +%s) - t0)) s" >&2
exit "$rc"
