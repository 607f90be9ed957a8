#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness and lib/ know benchmarks only through their descriptors: no C file
# under harness/ or lib/ names a benchmark (harness/registry.def, and the
# fixture nullbench) or one of its config keys in a string literal. The keys are
# collected from the benchmarks' own folders (ab_config_set and "KEY=" in their
# C files); comments are stripped first (cpp -fpreprocessed, #define lines kept), so a
# comment may still say "cputestfs's placement" to a reader.
. "$(dirname "$0")/lib.sh"
W=$(mktemp -d "$AFFBENCH_WORKDIR/layering.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$TOP" || exit 1

# Keys lib/ itself owns, which every benchmark's configs may carry: the common
# --idle policy (lib/sys/idle_policy.h; the record writer adds it).
COMMON="idle"
# A literal that is a FUSE notion, not a benchmark's key: the FUSE daemon's
# wake-up in the request breakdown's record names (brk_daemon_wakes_per_call).
ALLOWED='lib/kstats/breakdown.c: "daemon"'

benches=$(sed -n 's/^AB_BENCH(\([a-z0-9_]*\))$/\1/p' harness/registry.def)
dirs="$benches tests/fixtures/nullbench"
{
	echo "$benches"
	echo nullbench
	for d in $dirs; do
		grep -hoE 'ab_config_set\([^,]+, *"[a-z_0-9]+"' "$d"/*.c | grep -oE '"[a-z_0-9]+"' | tr -d '"'
		grep -hoE '#define [A-Z0-9]+_K_[A-Z0-9_]+ +"[a-z_0-9]+"' "$d"/*.h |
			grep -oE '"[a-z_0-9]+"' | tr -d '"'
		grep -hoE '"[a-z_0-9]+=' "$d"/report*.c | tr -d '"='
	done
} | sort -u | grep -vxF -f <(printf '%s\n' $COMMON) > "$W/names"
check "names collected from the benchmarks' folders ($(wc -l < "$W/names"))" \
	[ "$(wc -l < "$W/names")" -ge 20 ]
check "... placement among them" grep -qx placement "$W/names"
check "... uring_cpu among them" grep -qx uring_cpu "$W/names"

# every string literal of harness/ and lib/ C code, comments stripped, one a line
: > "$W/lits"
while IFS= read -r -d '' f; do
	cpp -fpreprocessed -dD -P -w "$f" 2>/dev/null |
		grep -oE '"([^"\\]|\\.)*"' | sed "s|^|$f: |" >> "$W/lits"
done < <(find harness lib -name '*.[ch]' -print0)
check "string literals found ($(wc -l < "$W/lits"))" [ "$(wc -l < "$W/lits")" -gt 1000 ]

# a name alone ("placement"), as a key ("placement=", "placement|", "x;placement="), and
# a benchmark's name also as a word of a longer text ("e.g. 'cputestfs stat_per_s ...'")
: > "$W/hits"
while read -r n; do
	grep -E ": \"$n\"$|: \"$n[=|]|[^a-z_0-9]$n=" "$W/lits" >> "$W/hits"
done < "$W/names"
for n in $benches nullbench; do
	grep -E "[^a-z_0-9]$n([^a-z_0-9]|$)" "$W/lits" >> "$W/hits"
done
sort -u "$W/hits" | grep -vxF "$ALLOWED" > "$W/hits.u"
check "no benchmark or key of one named in a string literal under harness/ or lib/" \
	eval '[ ! -s "$W/hits.u" ] || { sed "s/^/# /" "$W/hits.u" | head -40; false; }'

# A benchmark that reads another's records takes the names from that one's header:
# no C file or header of a benchmark's folder has a string literal that is another
# benchmark's name, or a record or key name (#define X_M_... / X_K_... "name") of
# another's header, alone or as a key ("cpu_a=%s", "cpu_a|"). Renaming a metric of
# cpupair must not silently empty cputestfs's split. A name a benchmark's own header
# defines too is its own (server_cpu_us_per_req is cputestfs's and ddpar's).
for d in $dirs; do
	b=${d##*/}
	{
		echo "$b"
		sed -nE 's/^#define [A-Z0-9]+_[MK]_[A-Z0-9_]+[[:space:]]+"([^"]+)".*/\1/p' "$d/$b.h"
	} | sort -u > "$W/own.$b"
	for f in "$d"/*.[ch]; do
		cpp -fpreprocessed -dD -P -w "$f" 2>/dev/null |
			grep -oE '"([^"\\]|\\.)*"' | sed "s|^|$f: |"
	done > "$W/blits.$b"
done
: > "$W/retyped"
for d in $dirs; do
	b=${d##*/}
	for o in $dirs; do
		[ "$o" = "$d" ] || cat "$W/own.${o##*/}"
	done | sort -u | comm -23 - "$W/own.$b" > "$W/theirs.$b"
	awk 'NR == FNR { n[$0] = 1; next }
	     { l = substr($0, index($0, ": \"") + 3); l = substr(l, 1, length(l) - 1)
	       k = l; sub(/[=|].*/, "", k)
	       if ((l in n) || (k != l && (k in n))) print }' \
		"$W/theirs.$b" "$W/blits.$b" >> "$W/retyped"
done
check "names collected from the benchmarks' headers ($(cat "$W"/own.* | wc -l))" \
	grep -qx line_rt_ns "$W/own.cpupair"
check "no benchmark's name, record or key retyped in another benchmark's folder" \
	eval '[ ! -s "$W/retyped" ] || { sed "s/^/# /" "$W/retyped" | head -40; false; }'

# Nor in its own folder: a .c file names its own records by its header's macros, so a
# renamed metric renames every reading of it (ddpar's --uring-cpu reading once retyped
# lat_p99_us). Keys stay allowed: a descriptor's key lists are plain words.
: > "$W/own_retyped"
for d in $dirs; do
	b=${d##*/}
	sed -nE 's/^#define [A-Z0-9]+_M_[A-Z0-9_]+[[:space:]]+"([^"]+)".*/\1/p' "$d/$b.h" |
		sort -u > "$W/ownm.$b"
	grep -E '^[^:]*\.c: ' "$W/blits.$b" |
		awk 'NR == FNR { n[$0] = 1; next }
		     { l = substr($0, index($0, ": \"") + 3); l = substr(l, 1, length(l) - 1)
		       if (l in n) print }' "$W/ownm.$b" - >> "$W/own_retyped"
done
check "no benchmark's record name retyped in its own .c files" \
	eval '[ ! -s "$W/own_retyped" ] || { sed "s/^/# /" "$W/own_retyped" | head -40; false; }'
t_done
