#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-mutants: one-line mutations of the code (tests/mutants.list), each built
# and tested in a scratch copy of the tree, to show the tests catch them.
#   scripts/mutants.sh [NAME...]     (NAME: only those mutants; default: all)
#   scripts/mutants.sh --check-list  (the list alone: each text once in its file, each
#                                     test there; nothing built; make check runs it)
# The working tree is never changed: the tree (tracked and untracked files, not
# the ignored ones) is copied into $MUTANTS_DIR/tree (default build-mutants/tree), a
# changed file only, so its build there stays incremental between mutants and runs.
# For each mutant the file there is patched, the unit tests named with it and then
# the list's fast unit tests are built and run, then the integration scripts named
# with it (through tests/run-tests.sh: the machine-wide lock of the suites), stopping
# at the first that fails; the file is restored before the next, and on any exit.
# Each mutant ends as killed (the test that failed), survived, or an error: the
# mutant does not build (no test of the tests), or the integration script that
# killed it fails without it too. A text not in its file exactly once stops the run
# before anything is built. Exit 0: all killed; 1: some survived (and no error);
# 2: an error, or a unit test that fails without any mutant.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
list=${MUTANTS_LIST:-$top/tests/mutants.list}
dir=${MUTANTS_DIR:-$top/build-mutants}
tree=$dir/tree
jobs=${MUTANTS_JOBS:-2}
t0=$SECONDS

die() { echo "mutants: $*" >&2; exit 2; }
[ -f "$list" ] || die "no list $list"
mkdir -p "$dir" || die "cannot create $dir"
exec 9>"$dir/lock"
flock -n 9 || die "another check-mutants uses $dir"
rm -rf "$dir/log" && mkdir "$dir/log" || die "cannot create $dir/log"

# ---- the list: 'units T...' lines, then per mutant '= NAME FILE [TEST...]', '- FROM', '+ TO' ----
units=() names=() files=() tests=() froms=() tos=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in
	'' | '#'*) ;;
	'units '*) read -r -a more <<<"${line#units }" && units+=("${more[@]}") ;;
	'= '*)
		read -r n f t <<<"${line#= }"
		[ -n "${f:-}" ] || die "$list:$lineno: '= NAME FILE [TEST...]' wanted"
		names+=("$n") files+=("$f") tests+=("${t:-}") froms+=("") tos+=("") ;;
	'- '* | '+ '*)
		[ ${#names[@]} -gt 0 ] || die "$list:$lineno: a '$line' before any '= NAME FILE'"
		i=$((${#names[@]} - 1))
		if [ "${line:0:1}" = - ]; then froms[i]=${line:2}; else tos[i]=${line:2}; fi ;;
	*) die "$list:$lineno: not a list line: $line" ;;
	esac
done <"$list"
[ ${#units[@]} -gt 0 ] || die "$list: no 'units' line"

# ---- the scratch copy: changed files copied (a fresh mtime: make rebuilds them) ----
# Two git hash-object processes tell which differ: no process per file, so the first
# copy takes seconds, not a minute on a busy machine.
sync_tree() {
	local f have="$dir/have" want="$dir/want"
	mkdir -p "$tree"
	# never the copy itself, were MUTANTS_DIR inside the tree and not ignored
	(cd "$top" && git ls-files --cached --others --exclude-standard) |
		awk -v d="${dir#"$top"/}/" 'index($0, d) != 1' | sort -u |
		while IFS= read -r f; do
			[ -f "$top/$f" ] && [ ! -L "$top/$f" ] && echo "$f"
		done >"$want"
	(cd "$top" && git hash-object --no-filters --stdin-paths <"$want") >"$dir/hash.top" &&
	while IFS= read -r f; do
		[ -f "$tree/$f" ] && echo "$tree/$f" || echo /dev/null
	done <"$want" | git -C "$top" hash-object --no-filters --stdin-paths >"$dir/hash.copy" ||
		die "cannot hash the tree's files"
	paste -d ' ' "$dir/hash.top" "$dir/hash.copy" | awk '{ print $1 != $2 }' |
		paste -d ' ' - "$want" | sed -n 's/^1 //p' >"$dir/changed"
	if [ -s "$dir/changed" ]; then
		(cd "$top" &&
			xargs -d '\n' cp --parents --preserve=mode -t "$tree" <"$dir/changed") ||
			die "cannot copy the tree into $tree"
	fi
	# a file gone from the tree goes from the copy (the Makefile's wildcards see it)
	(cd "$tree" && find . -path ./build -prune -o -path ./bin -prune -o -type f -print |
		sed 's|^\./||' | sort) >"$have"
	comm -23 "$have" "$want" | while IFS= read -r f; do rm -f "$tree/$f"; done
}

# ---- one mutant in the copy, and its undoing ----
cur=""
restore() {
	[ -n "$cur" ] || return 0
	cp "$dir/saved" "$tree/$cur" && cur=""	# a fresh mtime: its object is rebuilt
}
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM HUP

# How often FROM occurs in FILE (ENVIRON: awk -v would read backslashes as escapes).
count_in() {
	FROM=$2 awk 'BEGIN { f = ENVIRON["FROM"] }
		{ s = $0; while ((i = index(s, f)) > 0) { n++; s = substr(s, i + length(f)) } }
		END { print n + 0 }' "$1"
}

apply() {
	local f=$tree/$1
	cp --preserve=mode "$f" "$dir/saved" || die "cannot save $1"
	cur=$1
	FROM=$2 TO=$3 awk 'BEGIN { f = ENVIRON["FROM"]; t = ENVIRON["TO"] }
		(i = index($0, f)) > 0 { $0 = substr($0, 1, i - 1) t substr($0, i + length(f)) }
		{ print }' "$dir/saved" >"$f"
}

# ---- building and testing in the copy ----
# BUILD and BIN on the command line: a make check-mutants BUILD=x passes its own on
mk() {
	make -C "$tree" --no-print-directory -j"$jobs" BUILD=build BIN=bin "$@" \
		>>"$dir/log/build" 2>&1
}
tool_bins() {
	(cd "$tree" && ls tests/tools/*.c 2>/dev/null |
		sed 's|tests/tools/\(.*\)\.c|build/tests/tools/\1|')
}

# Run one unit test (a private work directory: no machine-wide state) or integration
# script (through run-tests.sh, under the suites' lock); 0 when it passes.
run_test() {
	local t=$1 log=$dir/log/$2.$1 rc
	if [[ $t == *.sh ]]; then
		(cd "$tree" && BUILD=build timeout -k 10 1500 tests/run-tests.sh "integration/$t") \
			>"$log" 2>&1
		return
	fi
	mk "build/tests/$t" || { echo "build of $t failed: $dir/log/build" >"$log"; return 3; }
	local w
	w=$(mktemp -d /tmp/affbench-mutants.XXXXXX) || return 3
	(cd "$tree" && AFFBENCH_WORKDIR=$w AFFBENCH_JOURNAL=$w/knobs.journal \
		AFFBENCH_MACHINE_LOCK=$w/machine.lock AFFBENCH_TIMINGS=$w/timings.tsv \
		AFFBENCH_TOP=$tree AFFBENCH_BUILD=build timeout -k 10 300 "build/tests/$t") \
		>"$log" 2>&1
	rc=$?
	rm -rf "$w"
	return $rc
}

# The tests for mutant i, in order: its own units, the fast units, its scripts. Prints
# the first that fails; 0 when all pass.
first_failing() {
	local t seen=" " order=() scripts=()
	for t in ${tests[$1]} "${units[@]}"; do
		[[ $t == *.sh ]] && { scripts+=("$t"); continue; }
		[[ $seen == *" $t "* ]] || { order+=("$t"); seen="$seen$t "; }
	done
	for t in "${order[@]}"; do
		run_test "$t" "$2" || { echo "$t"; return 1; }
	done
	[ ${#scripts[@]} -gt 0 ] && ! mk all $(tool_bins) && { echo "(make all)"; return 1; }
	for t in "${scripts[@]}"; do
		run_test "$t" "$2" || { echo "$t"; return 1; }
	done
	return 0
}

# ---- the run ----
want=" $* "

errors=0
# A test named that does not exist would kill every mutant it is named for.
for t in $(printf "%s\n" "${units[@]}" ${tests[*]:-} | sort -u); do
	[[ $t == *.sh ]] && f=tests/integration/$t || f=tests/unit/$t.c
	[ -f "$top/$f" ] && continue
	echo "error    no test $t ($f)"
	errors=$((errors + 1))
done
for i in "${!names[@]}"; do
	[ "$#" -eq 0 ] || [ "$want" = " --check-list " ] || [[ $want == *" ${names[i]} "* ]] ||
		continue
	f=${files[i]}
	if [ ! -f "$top/$f" ]; then
		echo "error    ${names[i]}: no file $f"; errors=$((errors + 1)); continue
	fi
	if [ -z "${froms[i]}" ] || [ "${froms[i]}" = "${tos[i]}" ]; then
		echo "error    ${names[i]}: no '- FROM' and different '+ TO'"
		errors=$((errors + 1))
		continue
	fi
	c=$(count_in "$top/$f" "${froms[i]}")
	if [ "$c" != 1 ]; then
		echo "error    ${names[i]}: '${froms[i]}' is in $f $c times, not once"
		errors=$((errors + 1))
	fi
done
[ "$errors" = 0 ] || die "$list: $errors bad entries (above): nothing was run"
if [ "$want" = " --check-list " ]; then
	echo "mutants: $list: ${#names[@]} entries, each text once in its file, each test there"
	exit 0
fi

echo "mutants: copying the tree into $tree"
sync_tree
echo "mutants: $(wc -l <"$dir/changed") files changed since the last copy"
: >"$dir/log/build"
echo "mutants: building there (log: $dir/log/build; $((SECONDS - t0)) s)"
mk $(printf 'build/tests/%s ' "${units[@]}") ||
	die "the unmutated tree does not build: $dir/log/build"
# The baseline: every unit test passes without a mutant. An integration script (slow,
# and it may wait for the suites' lock) is run without the mutant only when it alone
# killed one: see unkilled_by.
for t in "${units[@]}"; do
	run_test "$t" baseline || die "$t fails without any mutant: $dir/log/baseline.$t"
done
echo "mutants: the unmutated tree passes the ${#units[@]} unit tests ($((SECONDS - t0)) s)"

# Does what killed the mutant (an integration script, or make all) fail without it too?
# Run once each, with the file restored; 0 and why set: it does, the kill is void.
declare -A verified=()
unkilled_by() {
	local by=$1
	[[ $by == *.sh || $by == "(make all)" ]] || return 1
	[ -n "${verified[$by]:-}" ] && return 1
	if ! mk all $(tool_bins); then
		why="make all fails without any mutant: $dir/log/build"
		return 0
	fi
	if [[ $by == *.sh ]] && ! run_test "$by" baseline; then
		why="$by fails without any mutant: $dir/log/baseline.$by"
		return 0
	fi
	verified[$by]=1
	return 1
}

killed=0 survived=0 broken=0 total=0 t1=$SECONDS
for i in "${!names[@]}"; do
	[ "$#" -eq 0 ] || [ "$want" = " --check-list " ] || [[ $want == *" ${names[i]} "* ]] ||
		continue
	n=${names[i]} total=$((total + 1)) s0=$SECONDS
	apply "${files[i]}" "${froms[i]}" "${tos[i]}"
	: >"$dir/log/build"
	# the mutated object first: a mutant the compiler refuses is no test of the tests
	obj=build/${files[i]%.c}.o
	[[ ${files[i]} == *.c ]] || obj=build/tests/${units[0]}
	if ! mk "$obj"; then
		printf 'error    %-28s does not build (%s)\n' "$n" "${files[i]}"
		cp "$dir/log/build" "$dir/log/$n.build"
		broken=$((broken + 1))
	elif by=$(first_failing "$i" "$n"); then
		printf 'survived %-28s %s  (%d s)\n' "$n" "${files[i]}" $((SECONDS - s0))
		survived=$((survived + 1))
	else
		restore
		if unkilled_by "$by"; then
			printf 'error    %-28s %s\n' "$n" "$why"
			broken=$((broken + 1))
		else
			printf 'killed   %-28s by %s  (%d s)\n' "$n" "$by" $((SECONDS - s0))
			killed=$((killed + 1))
		fi
	fi
	restore
done
echo "mutants: $killed killed, $survived survived, $broken errors, of $total" \
	"in $((SECONDS - t0)) s (the mutants $((SECONDS - t1)) s)"
[ "$broken" = 0 ] || exit 2
[ "$survived" = 0 ]
