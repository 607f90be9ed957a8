#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each program's --help against what it accepts: for every option whose help
# lists a fixed set of values (a token a|b|c after the option, or first in its
# text), each value is accepted (a benchmark's --check-options exits 0, or 4
# where the machine lacks it; a harness subcommand does not refuse it), a value
# not listed is refused with exit 2 and one line, and the choices that line
# says it expected are the listed ones. (~5 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/helpval.XXXXXX")
benches=$(sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p' "$TOP/harness/registry.def")

# value_sets HELPFILE: "OPTION VALUES [PREREQ...]" per option with a value set.
# The set is the word after --OPTION when it holds a '|', else (after an
# argument name like KIND) the first such word of the next four; a help line
# wrapped after a '|' is joined first. PREREQ: "--transport uring: ..." right
# after the set says which option the values need.
value_sets() {
	sed -e ':a' -e '/|$/{N;s/|\n */|/;ba' -e '}' "$1" | tr -s ' \n' '  ' | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i !~ /^\[?--[a-z][a-z0-9-]*$/ || i == NF) continue
			o = $i; sub(/^\[/, "", o)
			if (o in seen) continue
			j = 0
			if ($(i + 1) ~ /\|/) j = i + 1
			else if ($(i + 1) ~ /^[A-Z][][A-Z,.]*$/)
				for (k = i + 2; k <= i + 5 && k <= NF && !j && $k !~ /^\[|^--/; k++)
					if ($k ~ /\|/) j = k
			if (!j) continue
			v = $j; gsub(/[][(),]|:$/, "", v)
			if (v !~ /[a-z]/) continue	# NAME|FILE: placeholders only
			seen[o] = 1; pre = ""
			if ($(j + 1) ~ /^--[a-z]/ && ($(j + 2) ~ /:$/ || $(j + 3) == "or")) {
				w = $(j + 2); sub(/:$/, "", w); pre = $(j + 1) " " w
			}
			print o, v, pre
		}
	}'
}

# concrete VALUE: a placeholder inside a listed value becomes a number (spin:US, N)
concrete() { echo "$1" | sed -E 's/[A-Z]+/2/g'; }

# try_bench BENCH OPT VALUE PREREQ: exit status of --check-options with it
try_bench() {
	# shellcheck disable=SC2086 # PREREQ is "--option value" or nothing
	"$BIN/$1" --check-options --quiet $4 "$2" "$3" >/dev/null 2>"$W/err"
}

# refused_ok DESC LISTED CMD...: exit 2 with one line naming no other choices than LISTED
refused_ok() {
	local d=$1 want=$2; shift 2
	local rc lines expected
	err=$("$@" 2>&1 >/dev/null); rc=$?
	lines=$(printf '%s' "$err" | grep -c .)
	if [ "$rc" = 2 ] && [ "$lines" = 1 ]; then ok "$d (exit 2: ${err:0:160})"
	else nok "$d: exit $rc (want 2 and one line): ${err:0:300}"; return; fi
	# a fixed table of choices says which it expected: the same set as --help
	expected=$(printf '%s' "$err" | sed -n 's/.*expected \([^ ]*|[^ ]*\).*/\1/p')
	[ -n "$expected" ] || return 0
	check "$d: the values it expects ($expected) are those --help lists ($want)" \
		[ "$(echo "$expected" | tr '|' '\n' | sort)" = "$(echo "$want" | tr '|' '\n' | sort)" ]
}

for b in $benches; do
	[ -x "$BIN/$b" ] || { skip "$b --help values" "bin/$b not built"; continue; }
	"$BIN/$b" --help >"$W/$b.help"
	value_sets "$W/$b.help" >"$W/$b.sets"
	check "$b --help: lists value sets (--format's at least)" grep -q '^--format ' "$W/$b.sets"
	while read -r opt vals pre; do
		for v in ${vals//|/ }; do
			c=$(concrete "$v")
			try_bench "$b" "$opt" "$c" "$pre"; rc=$?
			if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then ok "$b ${pre:+$pre }$opt $c: accepted (exit $rc)"
			else nok "$b ${pre:+$pre }$opt $c: exit $rc: $(head -c 300 "$W/err")"; fi
		done
		# shellcheck disable=SC2086
		refused_ok "$b $opt nosuch: refused" "$vals" "$BIN/$b" --check-options $pre "$opt" nosuch
	done <"$W/$b.sets"
done

# The harness's subcommands: a listed value passes the option parser (the command
# may then fail on its missing operands), an unlisted one is refused.
for sub in run report compare export restore; do
	"$BIN/harness" "$sub" --help >"$W/h-$sub.help"
	while read -r opt vals pre; do
		for v in ${vals//|/ }; do
			c=$(concrete "$v")
			"$BIN/harness" "$sub" "$opt" "$c" "$W/nosuch-a" "$W/nosuch-b" >/dev/null 2>"$W/err"
			# accepted: what it refuses is the missing operand, not the value,
			# nor does it crash
			check "harness $sub $opt $c: accepted${c:+ ($(head -c 200 "$W/err"))}" \
				grep -qF "$W/nosuch-a" "$W/err"
		done
		refused_ok "harness $sub $opt nosuch: refused" "$vals" \
			"$BIN/harness" "$sub" "$opt" nosuch "$W/nosuch-a" "$W/nosuch-b"
	done < <(value_sets "$W/h-$sub.help")
done
check "harness compare --help: lists --sort's values" \
	grep -q -- '--sort [a-z]*|' "$W/h-compare.help"
rm -rf "$W"
t_done
