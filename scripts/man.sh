#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The man pages, generated at build time from the programs' own --help (which
# lib/sys/opts_help.c prints from each option table, and the harness's
# subcommands print from their usage texts): one source for both.
#
#   scripts/man.sh page BIN/PROG                    PROG.1 on stdout
#   scripts/man.sh overview BIN REGISTRY README     affbench.7 on stdout
#
# A help line "  --name ARG   text" (text wrapped under its column) becomes a
# .TP entry; other lines become paragraphs; "Exit codes:" becomes EXIT STATUS.
set -eu

# roff: backslashes as \e, '-' as \-, a line starting with . or ' guarded, and a
# place to break after each comma (DIR/{a,b,c} is one long word)
esc() {
	sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/" -e 's/,\([^ ]\)/,\\:\1/g'
}

# help2roff: --help text on stdin to body sections on stdout. A line of two
# spaces then "--" opens an option; deeper-indented lines continue it.
help2roff() {
	esc | awk '
	# para: the plain text gathered; body: the text of the open option (a word wrapped
	# after its "|" goes on without a space)
	function flush() {
		if (para != "") print para
		if (body != "") print body
		para = body = ""
	}
	/^Usage: / || /^usage: / { next }
	/^Options:$/ { flush(); opt = 0; next }
	/^[A-Z][a-z]+ options:$/ { flush(); print ".SS \"" $0 "\""; opt = 0; next }
	/^$/ { flush(); print ".PP"; opt = 0; next }
	/^  \\-\\-[a-z]/ && match($0, /^  \\-\\-[^ ]+( [^ ]+)?/) {
		flush()
		left = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
		sub(/^ +/, "", left); sub(/^ +/, "", rest)
		if (rest !~ /^ *$/ && substr($0, RLENGTH + 1, 2) != "  ") {
			# "--opt word" with one space: the word is text, not an argument
			n = index(left, " "); if (n) { rest = substr(left, n + 1) " " rest;
				left = substr(left, 1, n - 1) }
		}
		# .br: the text under the tag, even where the tag is narrower than the indent
		print ".TP"; print "\\fB" left "\\fR"; print ".br"
		body = rest; opt = 1; next
	}
	opt && /^    / {
		sub(/^ +/, "")
		body = body (body == "" ? "" : body ~ /\|$/ ? "" : "\n") $0
		next
	}
	{
		if (opt) { flush(); print ".PP" }
		opt = 0; sub(/^ +/, ""); para = para (para == "" ? "" : "\n") $0
	}
	END { flush() }'
}

# th NAME SECTION TITLE: the page's header, no date (the same build, the same page)
th() {
	printf '.TH %s %s "" "affbench %s" "%s"\n.nh\n.ad l\n' "$(echo "$1" | tr a-z A-Z)" "$2" \
		"$version" "$3"
}

bench_page() {
	prog=$1 name=$(basename "$1")
	help=$("$prog" --help)
	th "$name" 1 "affbench benchmarks"
	printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s\n' "$help" | sed -n 2p | esc)"
	printf '.SH SYNOPSIS\n.B %s\n[\\fIoptions\\fR]\n' "$name"
	printf '.SH DESCRIPTION\n'
	printf '%s\n' "$help" | sed -n 2p | esc
	printf '.PP\nIt takes no operands. '
	printf 'Records go to stdout as a table, CSV or JSON (\\fB\\-\\-format\\fR); '
	printf 'progress and errors go to stderr.\nThe harness, \\fBharness\\fR(1), runs it over a plan.\n'
	# the notes after the common options (what the metrics mean, what it needs)
	printf '%s\n' "$help" | awk '/^Common options:$/ { c = 1 } c == 1 && /^$/ { c = 2 }
		c == 2 && !/^Exit codes:/' | help2roff
	printf '.SH OPTIONS\n'
	printf '%s\n' "$help" | sed -e '1,3d' | awk '/^Common options:$/ { c = 1 } c == 1 && /^$/ { exit }
		{ print }' | help2roff
	exit_status bench
	see_also "$name"
}

# exit_status bench|harness
exit_status() {
	printf '.SH EXIT STATUS\n.TP\n0\nok: measured, or the command did what it says\n'
	printf '.TP\n1\nthe measurement or a write failed (the message says why)\n'
	printf '.TP\n2\nbad usage or input: one line naming the bad value\n'
	if [ "$1" = harness ]; then
		printf '.TP\n3\n\\fBharness compare \\-\\-gate\\fR only: a rule of the gate file was violated\n'
		printf '(or, with \\fB\\-\\-strict\\fR, could not be judged)\n'
		printf '.TP\n130\n\\fBharness run\\fR was interrupted (\\fB\\-\\-resume\\fR DIR goes on)\n'
	else
		printf '.TP\n4\nskipped: the machine lacks something (the line says what)\n'
	fi
	printf '.PP\ndocs/records.md lists them all.\n'
}

see_also() {
	printf '.SH SEE ALSO\n'
	out=""
	for p in $programs; do
		[ "$p" = "$1" ] || out="$out${out:+,\n}.BR $p (1)"
	done
	printf '%b,\n.BR affbench (7)\n' "$out"
}

harness_page() {
	prog=$1
	th harness 1 "affbench"
	printf '.SH NAME\nharness \\- run affbench plans, report, compare and export their results\n'
	printf '.SH SYNOPSIS\n'
	for sub in $subs; do
		"$prog" "$sub" --help | sed -n '1,/^[^ u]/p' | sed '$d' | sed -e 's/^usage: //' \
			-e 's/^ *//' | tr '\n' ' ' | sed 's/ *$//' | esc
		printf '\n.br\n'
	done
	printf '.SH DESCRIPTION\n'
	"$prog" --help | sed -e '1d' | esc | awk '{ sub(/^ +/, ""); c = $1; $1 = ""; sub(/^ +/, "");
		print ".TP\n\\fB" c "\\fR\n.br\n" $0 }'
	printf '.SH OPTIONS\n'
	for sub in $subs; do
		printf '.SS "harness %s"\n' "$sub"
		"$prog" "$sub" --help | sed -n '/^[^ u]/,$p' | help2roff
	done
	exit_status harness
	printf '.SH FILES\n.TP\nresults/<date>\\-<host>/\nthe run directory (\\fBaffbench\\fR(7))\n'
	printf '.TP\n/run/affbench.lock\nheld by the run that measures\n'
	printf '.TP\n/var/lib/affbench/knobs.journal\nthe knob journal \\fBharness restore\\fR replays\n'
	see_also harness
}

overview_page() {
	bin=$1 readme=$3
	th affbench 7 "affbench"
	printf '.SH NAME\naffbench \\- a Linux microbenchmark suite for CPU affinity and FUSE\n'
	printf '.SH DESCRIPTION\n'
	printf 'affbench re-measures what four mailing-list posts measured about where work runs,\n'
	printf 'and adds cpupair, the cache-line and wake-up round trips of pairs of CPUs behind them:\n'
	printf 'each benchmark is a program that prints records '
	printf '(bench, config, rep, metric, value, unit),\n'
	printf 'and \\fBharness\\fR(1) runs them over a plan, repetitions interleaved, and writes a run\n'
	printf 'directory with the records, the machine, tables, figures and a report.\n'
	printf '.SH BENCHMARKS\n'
	for b in $benches; do
		printf '.TP\n.BR %s (1)\n' "$b"
		"$bin/$b" --help | sed -n 2p | esc
	done
	printf '.SH USAGE\n.TP\n.B ./runme.sh\n'
	printf 'builds, runs the default plan with \\fBharness run\\fR and prints where the report is\n'
	printf '.TP\n.B make check\n'
	printf 'installs what is missing, builds, and runs the unit and integration tests\n'
	printf '.SH FILES\nA run directory, results/<YYYY\\-MM\\-DD\\-HHMMSS>\\-<host>/, holds:\n'
	# results/README.md's table of the run directory, | `file` | what |, then its
	# table of the figures, | `NAME` | drawn when | what |
	awk '/^\| NAME \| drawn when \|/ { figs = 1 }
	     /^\| `/ { n = split(substr($0, 3, length($0) - 4), c, / \| /)
		       if (!figs && n == 2) print c[1] "\t" c[2]
		       if (figs && n == 3) print "figures/" c[1] ".png, .svg\t" c[3] " (drawn when " c[2] ")" }' \
		"$readme" | sed 's|figures/`\([^`]*\)`, `|figures/`\1`, figures/`|' | tr -d '`' | esc |
		awk -F '\t' '{ print ".TP\n.B " $1 "\n" $2 }'
	printf '.SH SEE ALSO\n'
	for p in $programs; do
		printf '.BR %s (1),\n' "$p"
	done
	printf 'README.md, results/README.md and docs/ in the source tree\n'
}

[ $# -ge 2 ] || { echo "usage: $0 page BIN/PROG | overview BIN REGISTRY README" >&2; exit 2; }
subs="run report compare export restore"
case $1 in
page|overview) ;;
*) echo "$0: unknown mode '$1'" >&2; exit 2 ;;
esac
registry=${AB_REGISTRY:-harness/registry.def}
[ "$1" = overview ] && registry=$3
benches=$(sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p' "$registry")
programs="$benches harness"
# the version the programs print: "NAME (affbench) VERSION"
vprog=$2
[ "$1" = overview ] && vprog=$2/$(echo "$benches" | sed -n 1p)
version=$("$vprog" --version | sed -n 's/.*(affbench) //p')
case $1 in
page) if [ "$(basename "$2")" = harness ]; then harness_page "$2"; else bench_page "$2"; fi ;;
overview) [ $# -eq 4 ] || { echo "$0: overview BIN REGISTRY README" >&2; exit 2; }
	overview_page "$2" "$3" "$4" ;;
esac
