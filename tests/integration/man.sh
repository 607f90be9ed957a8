#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (make man, scripts/man.sh): each program's page and affbench(7)
# render with man -l without a troff warning, have the sections a page needs,
# list every option the program's --help lists, each tag on a line of its own,
# and affbench(7) names every figure a report draws. (~6 s)
. "$(dirname "$0")/lib.sh"

MAN=$TOP/${AFFBENCH_BUILD:-build}/man
W=$(mktemp -d "$AFFBENCH_WORKDIR/man.XXXXXX")
export MANWIDTH=80

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip "man pages" "man or groff missing (scripts/deps.sh installs man-db, groff-base)"
	t_done
fi
benches=$(sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p' "$TOP/harness/registry.def")

# render PAGE: man -l's text in $W/PAGE.txt; ok when it exits 0 and groff -ww is silent
render() {
	local p=$MAN/$1 rc warn
	if ! check "$1: built" [ -s "$p" ]; then return 1; fi
	man -P cat -l "$p" >"$W/$1.txt" 2>"$W/$1.err"; rc=$?
	check "$1: man -l exits 0 (exit $rc)" [ "$rc" = 0 ]
	check "$1: nothing on man's stderr" [ ! -s "$W/$1.err" ]
	warn=$(groff -ww -man -Tutf8 "$p" 2>&1 >/dev/null | head -c 300)
	check "$1: no troff warning${warn:+ ($warn)}" [ -z "$warn" ]
	return 0	# built: its sections are checked, whatever the lines above said
}

# sections PAGE NAME...: each NAME is a section heading of the rendered page
sections() {
	local p=$1 s; shift
	for s in "$@"; do
		check "$p: has $s" grep -qx "$s" "$W/$p.txt"
	done
}

# options PAGE HELPFILE: every --option of HELPFILE appears in the rendered page
options() {
	local missing
	missing=$(grep -oE -- '--[a-z][a-z0-9-]*' "$2" | sort -u | while read -r o; do
		grep -qF -- "$o" "$W/$1.txt" || printf ' %s' "$o"
	done)
	check "$1: lists every option of its --help${missing:+ (not:$missing)}" [ -z "$missing" ]
}

# tags PAGE HELPFILE: each option of HELPFILE's table ("  --name ARG   text") is a tag on a
# line of its own, its text below it, however short the tag (never "--help this help")
tags() {
	local alone
	alone=$(sed -nE 's/^  (--[a-z][a-z0-9-]*( [^ ]+)?)(  .*|)$/\1/p' "$2" | while read -r t; do
		awk -v t="$t" '{ sub(/^ +/, "") } $0 == t { f = 1 } END { exit !f }' "$W/$1.txt" ||
			printf ' %s' "$t"
	done)
	check "$1: every option's tag on a line of its own${alone:+ (not:$alone)}" [ -z "$alone" ]
}

for b in $benches; do
	render "$b.1" || continue
	sections "$b.1" NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"
	"$BIN/$b" --help >"$W/$b.help"
	options "$b.1" "$W/$b.help"
	tags "$b.1" "$W/$b.help"
	check "$b.1: NAME holds the one-line summary" \
		grep -qF -- "$b - $(sed -n 2p "$W/$b.help" | cut -c1-40)" "$W/$b.1.txt"
	check "$b.1: exit 4 is skip" grep -qE '^ +4 +skipped' "$W/$b.1.txt"
done

if render harness.1; then
	sections harness.1 NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES "SEE ALSO"
	: >"$W/harness.help"
	for sub in run report compare export restore; do
		"$BIN/harness" "$sub" --help >>"$W/harness.help"
		check "harness.1: covers harness $sub" grep -qE "^ +harness $sub\$" "$W/harness.1.txt"
	done
	options harness.1 "$W/harness.help"
	tags harness.1 "$W/harness.help"
	for sub in run report plot compare export restore; do
		check "harness.1: the subcommand $sub is a tag on a line of its own" \
			grep -qxE " +$sub" "$W/harness.1.txt"
	done
	check "harness.1: exit 3 is the gate" grep -qE '^ +3 +harness compare --gate' "$W/harness.1.txt"
fi

if render affbench.7; then
	sections affbench.7 NAME DESCRIPTION BENCHMARKS USAGE FILES "SEE ALSO"
	for b in $benches; do
		check "affbench.7: lists $b" grep -qE "^ +$b\(1\)\$" "$W/affbench.7.txt"
	done
	for f in raw.csv machine.txt results.json report.md ./runme.sh "make check"; do
		check "affbench.7: names $f" grep -qF -- "$f" "$W/affbench.7.txt"
	done
	# the figures a report of results/reference draws (the _2 heatmaps of a lever among
	# them), each named by affbench(7); levers.sh checks cputestfs_split's the same way
	cp -r "$TOP/results/reference" "$W/ref"
	"$BIN/harness" report "$W/ref" >/dev/null 2>&1
	un=$(undocumented_figures "$W/ref/figures/src" | tr '\n' ' ')
	check "affbench.7: the reference's report draws figures (cpupair_futex_2 among them)" \
		[ -s "$W/ref/figures/src/cpupair_futex_2.gp" ]
	check "affbench.7: names every figure the reference's report draws${un:+ (not: $un)}" [ -z "$un" ]
fi

# make install puts every page under PREFIX/share/man (make -n: nothing built;
# a command continued with a backslash is joined into one line; DESTDIR and PREFIX
# come quoted: '/nonexistent/p'/share/...)
make -s -n -C "$TOP" install DESTDIR=/nonexistent PREFIX=/p 2>/dev/null |
	sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' -e "s|'||g" | grep 'install -m' >"$W/install"
for p in $benches harness; do
	check "make install installs $p.1 into man1" \
		grep -qE "man/$p\.1 .*/nonexistent/p/share/man/man1/\$" "$W/install"
done
check "make install installs affbench.7 into man7" \
	grep -qE "man/affbench\.7 .*/nonexistent/p/share/man/man7/\$" "$W/install"

# a help line wrapped inside a|b|c comes out whole, and a leading '.' is not a request
printf 'Usage: x [options]\nsum\n\nOptions:\n%s\n%s\n.not a request\n' \
	'  --mode M                     one of a|b|' '                               c|d' >"$W/fake.help"
printf '#!/bin/sh\n[ "$1" = --version ] && echo "x (affbench) 0" || cat %s\n' "$W/fake.help" >"$W/x"
chmod +x "$W/x"
AB_REGISTRY=$TOP/harness/registry.def "$TOP/scripts/man.sh" page "$W/x" >"$W/x.1" 2>/dev/null
man -P cat -l "$W/x.1" >"$W/x.1.txt" 2>&1
check "man.sh: a|b| wrapped before c|d joins into one word" grep -qF 'one of a|b|c|d' "$W/x.1.txt"
check "man.sh: a help line starting with '.' is text" grep -qF '.not a request' "$W/x.1.txt"
# affbench(7) counts the posts as they are: four, and cpupair our own
man -P cat -l "$TOP/build/man/affbench.7" >"$W/a7.txt" 2>&1
check "affbench(7) speaks of four mailing-list posts" grep -q "four mailing-list posts" "$W/a7.txt"
check "affbench(7) never speaks of five posts" \
	eval '! grep -q "five mailing-list posts" "$W/a7.txt"'
# --idle: what each policy does and needs, in every benchmark's page
for p in $benches; do
	man -P cat -l "$TOP/build/man/$p.1" 2>/dev/null | tr -s ' \n' ' ' >"$W/$p.txt"
	check "$p(1) says --idle poll needs a cpuidle driver" \
		grep -q "both need a cpuidle driver" "$W/$p.txt"
	check "$p(1) says what --idle busy does" \
		grep -q "busy: a SCHED_IDLE spinner on each allowed CPU" "$W/$p.txt"
done
rm -rf "$W"
t_done
