#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lays affbench's LKP test case into an lkp-tests checkout, idempotently:
#   programs/affbench/{run,parse,meta.yaml,pkg/}   replaced whole
#   jobs/affbench-*.yaml                            replaced
#   etc/linux-perf-test-cases                       "affbench" (the perf test-case list)
#   etc/index-perf-all.yaml, etc/index-perf.yaml    each metric's direction (1 higher
#                                                   is better, -1 lower), added once
# Running it again changes nothing; a line already there is not added twice.
#   contrib/lkp/install.sh LKP_SRC
# Exit 0 done, 2 bad usage (LKP_SRC is not an lkp-tests checkout).
set -eu
here=$(cd "$(dirname "$0")" && pwd)

case ${1:-} in
-h|--help)
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 0 ;;
esac
if [ $# != 1 ]; then
	echo "usage: $0 LKP_SRC (an lkp-tests checkout)" >&2
	exit 2
fi
lkp=$1
if [ ! -x "$lkp/bin/lkp" ] || [ ! -d "$lkp/programs" ] ||
	[ ! -f "$lkp/etc/index-perf-all.yaml" ]; then
	echo "affbench: '$lkp' is not an lkp-tests checkout (no bin/lkp, programs/," \
		"etc/index-perf-all.yaml)" >&2
	exit 2
fi

# The program: replaced whole, so a file removed here goes there too. rm -rf
# on a symlink removes the link, never what it points to.
rm -rf "$lkp/programs/affbench"
cp -R "$here/programs/affbench" "$lkp/programs/affbench"
chmod 0755 "$lkp/programs/affbench/run" "$lkp/programs/affbench/parse"

for job in "$here"/jobs/affbench-*.yaml; do
	rm -f "$lkp/jobs/${job##*/}"
	cp "$job" "$lkp/jobs/${job##*/}"
done

# add_lines FRAGMENT TARGET: append each line of FRAGMENT that TARGET lacks.
add_lines() {
	if [ -L "$2" ]; then
		echo "affbench: $2 is a symbolic link; not writing through it" >&2
		exit 2
	fi
	[ -f "$2" ] || : >"$2"
	# A file without a final newline would glue our first line to its last.
	[ -s "$2" ] && [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" != '\n' ] && echo >>"$2"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		grep -qxF -- "$line" "$2" || printf '%s\n' "$line" >>"$2"
	done <"$1"
}
for f in linux-perf-test-cases index-perf-all.yaml index-perf.yaml; do
	add_lines "$here/etc/$f" "$lkp/etc/$f"
done
echo "affbench: installed into $lkp (programs/affbench, jobs/affbench-*.yaml, etc/)"
