#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shipped timings table (harness/timings.tsv, harness/run/run.h) from finished
# run directories: per point, the mean wall seconds of its invocations that
# measured (runs.csv status ok; the mean, as a run's length is their sum), keyed as the harness keys
# it (benchmark, --duration, the point's own arguments from a --dry-run of the run's plan.plan).
# The header names each run's machine.
#   scripts/timings-from-runs.sh RUNDIR... > harness/timings.tsv
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '6p' "$0" | sed 's/^# *//' >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# affbench timings shipped with the source: seconds per invocation, the mean"
echo "# of each point's measured invocations (scripts/timings-from-runs.sh), from:"
for d in "$@"; do
	for f in runs.csv plan.plan machine.txt; do
		[ -f "$d/$f" ] && [ ! -L "$d/$f" ] ||
			{ echo "timings-from-runs: $d/$f: missing or a link" >&2; exit 2; }
	done
	m() { sed -n "s/^$1 *//p" "$d/machine.txt" | tail -n 1; }
	echo "#   $(basename "$d"): $(m date), $(m kernel | cut -d' ' -f1-2), host $(m host),"
	echo "#     $(m cpu_model), $(m allowed_cpus | sed 's/.*(\(.*\))/\1/') CPUs"
	# every repetition's key: an instrumented one's differs (docs/plans.md)
	bin/harness run --plan "$d/plan.plan" --out "$tmp/out" --dry-run |
		awk '/^rep [0-9]+ point /{ i = $2 "," $4; sub(":", "", i); a = ""; q = 0
			for (k = 5; k <= NF; k++) {
				if (q) a = a (a == "" ? "" : " ") $k
				if ($k == "--duration") d = $(k + 1)
				if ($k == "--quiet") q = 1
			}
			print i "\t" d "\t" (a == "" ? "-" : a) }' >"$tmp/keys"
	# point -> key, then every ok invocation's seconds under its key
	awk -F'\t' 'NR == FNR { key[$1] = $2 "\t" $3; next }
		FNR > 1 { split($0, f, ","); r = f[3] "," f[2]
			  if (f[4] == "ok" && (r in key)) print f[1] "\t" key[r] "\t" f[6] }' \
		"$tmp/keys" "$d/runs.csv" >>"$tmp/all"
done
echo "# bench	duration	args	seconds	runs"
sort -t"$(printf '\t')" -k1,1 -k2,2g -k3,3 "$tmp/all" |
	awk -F'\t' 'function flush() { if (n) printf "%s\t%.3f\t%d\n", k, sum / n, n }
		{ key = $1 "\t" $2 "\t" $3; if (key != k) { flush(); k = key; n = sum = 0 } n++; sum += $4 }
		END { flush() }'
