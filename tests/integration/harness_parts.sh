#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness's parts depend one way (harness/harness.h): run may use report,
# compare may use report, report uses neither, and the common files on top use
# no part; within the harness no two files call each other. Read from the
# built objects' symbols (nm), so a call added against the rule fails here.
# Across lib/ and the benchmarks no files call each other in a circle, of any
# length; and lib/'s parts include one way, a part only its own and lower ones.
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

# lib/ and the benchmarks: no circle of files, of any length. A program's objects
# (a benchmark's, or the harness's with every descriptor) and lib/'s; a file uses
# another when it needs a symbol the other defines (a call, or a descriptor naming
# its callbacks), read per program, since each program defines its own main.
B=$TOP/${AFFBENCH_BUILD:-build}
benches=$(sed -n 's/^AB_BENCH(\([a-z0-9_]*\))$/\1/p' "$TOP/harness/registry.def")
libobjs=()
for c in "$TOP"/lib/*/*.c; do
	case $c in *.bpf.c) continue ;; esac
	rel=${c#"$TOP"/}
	libobjs+=("${rel%.c}.o")
done
# objs_of PROG: the objects of PROG's sources today, relative to the build folder
objs_of() {
	local c rel
	for c in "$TOP/$1"/*.c; do
		rel=${c#"$TOP"/}
		echo "${rel%.c}.o"
	done
	[ "$1" = harness ] || return 0
	for c in "$TOP"/harness/*/*.c; do rel=${c#"$TOP"/}; echo "${rel%.c}.o"; done
	for b in $benches; do
		for c in "$TOP/$b"/report*.c; do rel=${c#"$TOP"/}; echo "${rel%.c}.o"; done
	done
}
# edges OBJ...: "user definer", one line per pair of files where the first uses the second
edges() {
	for o in "$@"; do
		nm --defined-only -g "$o" | awk -v o="$o" 'NF == 3 { print "D", $3, o }'
		nm -u "$o" | awk -v o="$o" '{ print "U", $2, o }'
	done | awk '$1 == "D" { def[$2] = $3; next } { u[++n] = $2 " " $3 }
		END { for (i = 1; i <= n; i++) { split(u[i], f, " ")
			if (f[1] in def && def[f[1]] != f[2]) print f[2], def[f[1]] } }'
}
# circles: each set of files that reach one another (a strongly connected part of the
# graph on stdin), its files sorted and joined by " <-> ", one a line
circles() {
	awk '{ n[$1]; n[$2]; e[$1] = e[$1] " " $2 }
	END {
		for (a in n) {	# reach[a, b]: b is reached from a, by a breadth-first walk
			delete seen; q[1] = a; h = 1; t = 1
			while (h <= t) {
				k = split(e[q[h++]], nx, " ")
				for (i = 1; i <= k; i++)
					if (!(nx[i] in seen)) { seen[nx[i]]; q[++t] = nx[i]; reach[a, nx[i]] }
			}
		}
		for (a in n) {
			if (!((a, a) in reach) || (a in done))
				continue
			m = 0
			for (b in n)
				if ((a, b) in reach && (b, a) in reach) { done[b]; s[++m] = b }
			for (i = 2; i <= m; i++)	# sort the members by name
				for (j = i; j > 1 && s[j - 1] > s[j]; j--) { x = s[j]; s[j] = s[j - 1]; s[j - 1] = x }
			line = s[1]
			for (i = 2; i <= m; i++)
				line = line " <-> " s[i]
			print line
		}
	}'
}
if [ -d "$B/lib/sys" ]; then
	all=$(cd "$B" && for p in $benches harness; do
		mapfile -t po < <(objs_of "$p")
		edges "${libobjs[@]}" "${po[@]}"
	done | sort -u)
	found=$(printf '%s\n' "$all" | circles | sort)
	new=$(printf '%s\n' "$found" | grep . | sed 's/^/[/; s/$/]/' | paste -sd ' ')
	check "no circle of files in lib/ or a benchmark (${new:-none})" test -z "$new"
	nuses=$(printf '%s\n' "$all" | grep -c .)
	check "the uses across lib/ and the benchmarks were read ($nuses)" test "$nuses" -gt 500
else
	skip "no circle of files in lib/ or a benchmark" "no objects under $B"
fi

# lib/'s parts, lowest first: a file includes only its own part's headers and lower ones'.
PARTS="sys knob fuse record kstats render"
# rank PART: its place in PARTS from 0, or -1 for a folder that is none of them
rank() {
	local i=0 p
	for p in $PARTS; do
		if [ "$p" = "$1" ]; then echo $i; return; fi
		i=$((i + 1))
	done
	echo -1
}
up=""
nincl=0
for f in "$TOP"/lib/*/*.[ch]; do
	mine=$(rank "$(basename "$(dirname "$f")")")
	while IFS= read -r inc; do
		nincl=$((nincl + 1))
		part=${inc%%/*}
		r=$(rank "$part")
		[ "$r" -gt "$mine" ] && up="$up${up:+ }${f#"$TOP"/}:$inc"
	done < <(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
done
check "no lib/ file includes a higher part's header (${up:-none})" test -z "$up"
check "lib/'s part includes were read ($nincl)" test "$nincl" -gt 100
echo "1..$T_N"
[ "$T_FAILED" = 0 ]
