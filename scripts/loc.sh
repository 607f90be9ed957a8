#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lines of the non-test C sources per concern, at a git revision, as a markdown table.
#   scripts/loc.sh [REV]     (REV: HEAD unless given)
# The files are read from git (ls-tree, cat-file), not from the work tree, so any
# revision can be measured without checking it out. Counted: every tracked .c and .h
# (the BPF programs' .bpf.c among them) outside tests/ and scripts/. "lines" counts
# every line; "code" leaves out blank lines and lines that hold only a comment (a
# scanner that knows /* */, // and string literals, not the preprocessor).
# The concerns, by path (the benchmarks are the folders harness/registry.def names):
#   reporting         lib/report/, lib/record/, lib/render/, harness/report/,
#                     harness/compare/, <bench>/desc*.[ch], <bench>/report*.[ch]
#   timed loops       <bench>/loop.c (the timed loop) and <bench>/measure.c (one
#                     repetition: set up, run the loop, print the records)
#   FUSE              lib/fuse/       knobs   lib/knob/       kstats  lib/kstats/
#   sys               lib/sys/
#   harness run       harness/run/ and harness/*.[ch] (main, registry, plan format,
#                     machine checks and the helpers its parts share)
#   benchmarks' rest  every other file of a benchmark's folder
#   other             anything else (printed only when there is some)
set -eu
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
[ $# -le 1 ] || { echo "usage: scripts/loc.sh [REV]" >&2; exit 2; }
if ! git rev-parse --verify -q "$rev^{commit}" >/dev/null; then
	echo "loc: '$rev': not a revision of this repository" >&2
	exit 2
fi
benches=$(git show "$rev:harness/registry.def" | sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p')

# concern PATH: the concern's row name
concern() {
	local f=$1 b d=${1%/*} base=${1##*/}
	case $f in
	lib/report/*|lib/record/*|lib/render/*|harness/report/*|harness/compare/*)
		echo reporting; return ;;
	lib/fuse/*) echo FUSE; return ;;
	lib/knob/*) echo knobs; return ;;
	lib/kstats/*) echo kstats; return ;;
	lib/sys/*) echo sys; return ;;
	harness/run/*) echo "harness run"; return ;;
	harness/*/*) echo other; return ;;
	harness/*) echo "harness run"; return ;;
	esac
	for b in $benches; do
		[ "$d" = "$b" ] || continue
		case $base in
		desc*|report*) echo reporting ;;
		loop.c|measure.c) echo "timed loops" ;;
		*) echo "benchmarks' rest" ;;
		esac
		return
	done
	echo other
}

# count: "lines code" of the C source on stdin
count() {
	awk '
	{
		code = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1); c2 = substr($0, i, 2)
			if (incom) { if (c2 == "*/") { incom = 0; i++ }; continue }
			if (instr) {
				if (c == "\\") i++
				else if (c == q) instr = 0
				code = 1; continue
			}
			if (c2 == "/*") { incom = 1; i++; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") { instr = 1; q = c; code = 1; continue }
			if (c !~ /[ \t\r\f]/) code = 1
		}
		instr = 0	# a literal ends with its line
		codes += code
	}
	END { print NR + 0, codes + 0 }'
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
git ls-tree -r --name-only "$rev" | grep -E '\.[ch]$' | grep -v -e '^tests/' -e '^scripts/' |
	while IFS= read -r f; do
		printf '%s\t%s\n' "$(concern "$f")" "$(git cat-file blob "$rev:$f" | count)"
	done >"$tmp"
[ -s "$tmp" ] || { echo "loc: $rev: no C source outside tests/ and scripts/" >&2; exit 2; }

echo "Lines of C per concern at $(git rev-parse --short "$rev") (scripts/loc.sh):"
echo
echo "| concern | files | lines | share | code lines | share |"
echo "|---|---:|---:|---:|---:|---:|"
awk -F'\t' '
	{ split($2, v, " "); n[$1]++; l[$1] += v[1]; c[$1] += v[2]; L += v[1]; C += v[2]; F++ }
	END {
		split("reporting|timed loops|FUSE|knobs|kstats|sys|harness run|benchmarks\047 rest|other",
		      order, "|")
		for (i = 1; i <= 9; i++) {
			k = order[i]
			if (!(k in n)) continue
			printf "| %s | %d | %d | %.1f%% | %d | %.1f%% |\n", k, n[k], l[k],
				100 * l[k] / L, c[k], 100 * c[k] / C
		}
		printf "| total | %d | %d | 100%% | %d | 100%% |\n", F, L, C
	}' "$tmp"
