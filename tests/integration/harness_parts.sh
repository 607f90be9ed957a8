#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness's parts depend one way (harness/harness.h): run may use report,
# compare may use report, report uses neither, and the common files on top use
# no part; within the harness no two files call each other. Read from the
# built objects' symbols (nm), so a call added against the rule fails here.
. "$(dirname "$0")/lib.sh"

OBJ=$TOP/${AFFBENCH_BUILD:-build}/harness
if ! command -v nm >/dev/null || [ ! -d "$OBJ/run" ]; then
	skip "harness parts" "no nm or no objects under $OBJ"
	echo "1..$T_N"; exit 0
fi
# Only the objects of today's sources: a removed file's stale object is no part.
objs=()
for c in "$TOP"/harness/*.c "$TOP"/harness/*/*.c; do
	rel=${c#"$TOP"/harness/}
	objs+=("${rel%.c}.o")
done
# USES: "user definer symbol", one line per call across objects.
uses=$(cd "$OBJ" && for o in "${objs[@]}"; do
	nm --defined-only -g "$o" | awk -v o="$o" 'NF == 3 { print "D", $3, o }'
	nm -u "$o" | awk -v o="$o" '{ print "U", $2, o }'
done | awk '$1 == "D" { def[$2] = $3; next } { u[++n] = $2 " " $3 }
	END { for (i = 1; i <= n; i++) { split(u[i], f, " ")
		if (f[1] in def && def[f[1]] != f[2]) print f[2], def[f[1]], f[1] } }')

part() { case $1 in */*) echo "${1%%/*}" ;; main.o) echo main ;; *) echo common ;; esac; }
bad=$(printf '%s\n' "$uses" | while read -r user def sym; do
	[ -n "$user" ] || continue
	pu=$(part "$user") pd=$(part "$def")
	[ "$pu" = "$pd" ] && continue
	case $pu:$pd in
	main:*|run:report|run:common|compare:report|compare:common|report:common) ;;
	*) echo "$user ($pu) uses $sym of $def ($pd)" ;;
	esac
done)
check "no part uses one it must not (${bad:-none})" test -z "$bad"

pairs=$(printf '%s\n' "$uses" | awk 'NF == 3 { e[$1 " " $2] = $3 }
	END { for (k in e) { split(k, f, " ")
		if ((f[2] " " f[1]) in e && f[1] < f[2]) print f[1] " <-> " f[2] } }')
check "no two harness files call each other (${pairs:-none})" test -z "$pairs"
check "the calls were read (some file uses another)" test -n "$uses"
echo "1..$T_N"
[ "$T_FAILED" = 0 ]
