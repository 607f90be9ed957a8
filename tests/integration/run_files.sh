#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The files a run writes are the files results/README.md lists (issue 26):
# a quick run (the quick plan, one repetition, and cpupair's one point) is
# made, and every file it wrote (top level, figures/, figures/src/, log/)
# must match a name of the README's two tables, and every name the README
# says is always written (a top-level file whose description says no "when",
# a figure drawn when a benchmark of the plan ran) must have been written.
# Also: run.lock is left empty, as the README says; harness run --help names
# the files; a doc that cites results/reference gives its date. No timing is
# asserted.
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/run_files.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
README=$TOP/results/README.md

# harness run --help names the files too, and points to the README for the rest.
help=$("$BIN/harness" run --help 2>&1)
for f in plan.plan raw.csv hist.csv results.json summary.csv report.md figures/; do
	check "harness run --help names $f" grep -qF "$f" <<<"$help"
done

# Docs quote measured results only from results/reference, with its date:
# each "recorded YYYY-MM-DD" beside results/reference is its machine.txt's date.
refdate=$(awk '$1 == "date" { print $2; exit }' "$TOP/results/reference/machine.txt")
cited=$(cd "$TOP" && grep -rhoz 'results/reference[^.]*recorded[[:space:]]*[0-9-]*' README.md docs |
	tr '\0\n' '\n ' | grep -o 'recorded *[0-9-]*')
bad=$(grep -v "recorded $refdate\$" <<<"$cited")
check "README.md and docs/ cite results/reference's numbers with a date" test -n "$cited"
check "the docs date results/reference as its machine.txt does ($refdate; not: ${bad:-none})" \
	test -z "$bad"

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "the files a quick run writes" "needs root and /dev/fuse"
	t_done
fi

# The README's names as globs: "<bench>" and the like become "*".
# Prints "ALWAYS|MAYBE GLOB" per name; a figure NAME gives its four files, and
# is ALWAYS when drawn whenever "BENCH ran" and raw.csv (\$1) holds BENCH's records.
names() {
	awk -v raw="$1" '
	function glob(s) { gsub(/<[A-Za-z]+>/, "*", s); return s }
	BEGIN { while ((getline l < raw) > 0) { split(l, w, ","); ran[w[1]] = 1 } }
	/^\| NAME \| drawn when \|/ { figs = 1; next }
	/^$/ { if (figs) figs = 2 }
	!/^\| `/ { next }
	{
		n = split($0, cell, / \| /)
		first = substr(cell[1], 3); when = cell[2]
		while (match(first, /`[^`]+`/)) {
			name = substr(first, RSTART + 1, RLENGTH - 2)
			first = substr(first, RSTART + RLENGTH)
			if (figs == 1) {
				split(when, w, " ")	# "BENCH ran", and nothing more: always, when BENCH ran
				need = (when ~ /^[a-z0-9]+ ran$/ && (w[1] in ran)) ? "ALWAYS" : "MAYBE"
				g = glob(name)
				print need, "figures/" g ".png"; print need, "figures/" g ".svg"
				print need, "figures/src/" g ".gp"; print "MAYBE", "figures/src/" g "*.dat"
			} else if (!figs && name !~ /\/$/) {
				print ($0 ~ /when /) ? "MAYBE" : "ALWAYS", glob(name)
			}
		}
	}' "$README"
}

{
	cat "$TOP/harness/plans/quick.plan"
	printf 'bench cpupair\nduration 0.02\nextra --pairs classes\n'
} > "$W/files.plan"
"$BIN/harness" run --plan "$W/files.plan" --repeat 1 --out "$W/run" >"$W/run.out" 2>"$W/run.err"
rc=$?
check "the quick run exits 0 (rc $rc)" [ "$rc" = 0 ]
names "$W/run/raw.csv" > "$W/names"
check "the README lists names in both tables" \
	test "$(grep -c '^ALWAYS figures/' "$W/names")" -gt 0 \
		-a "$(grep -c '^ALWAYS [a-z]*\.csv$' "$W/names")" -gt 0

( cd "$W/run" && find . -type f | sed 's|^\./||' | sort ) > "$W/written"
check "the run wrote files in figures/, figures/src/ and log/" \
	test "$(grep -c '^figures/src/' "$W/written")" -gt 0 -a "$(grep -c '^log/' "$W/written")" -gt 0

# Every written file is documented.
undocumented=
while read -r f; do
	hit=0
	while read -r _ g; do
		# shellcheck disable=SC2053
		[[ $f == $g ]] && { hit=1; break; }
	done < "$W/names"
	[ "$hit" = 1 ] || undocumented+=" $f"
done < "$W/written"
check "every file the run wrote is in results/README.md (not:${undocumented:- none})" \
	test -z "$undocumented"

# Every name documented as always written was written.
missing=
while read -r need g; do
	[ "$need" = ALWAYS ] || continue
	hit=0
	while read -r f; do
		# shellcheck disable=SC2053
		[[ $f == $g ]] && { hit=1; break; }
	done < "$W/written"
	[ "$hit" = 1 ] || missing+=" $g"
done < "$W/names"
check "every file results/README.md says a run writes was written (missing:${missing:- none})" \
	test -z "$missing"

# run.lock: the README says what it holds while the run lives and after.
check "results/README.md says run.lock holds \"PID DIR\" and is left empty" \
	grep -q '^| `run.lock` |.*"PID DIR" while the run lives, and is left empty' "$README"
check "... and run.lock is there, empty, after the run" \
	test -f "$W/run/run.lock" -a ! -s "$W/run/run.lock"
t_done
