#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A lever's value of 32 characters or more (crafted records: two idle policies alike in
# their first 31 characters) is left out of the levers table and said, never cut into
# rows that read alike and find nothing ("not measured" in every column); the same at
# 31, 32, 33, 127, 128 and 4096 characters.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/levers_values.XXXXXX")
trap 'rm -rf "$D"' EXIT

mkdir "$D/run"
awk 'BEGIN {
	print "bench,config,rep,metric,value,unit"
	c = "baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=%s;" \
	    "%splacement=%s;transport=libfuse"
	n = split(",idle=poll;,idle=max-latency:10000000000000000000001;" \
		  ",idle=max-latency:10000000000000000000002;", id, ",")
	for (rep = 1; rep <= 6; rep++)
		for (i = 1; i <= n; i++) {
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 0, id[i], "same", rep, 100000 + rep
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 1, id[i], "other", rep, 20000 * i + rep
		}
}' > "$D/run/raw.csv"
"$H" report "$D/run" > /dev/null 2> "$D/err"; rc=$?
check "harness report of the crafted records (exit $rc)" [ "$rc" = 0 ]
tab() { sed -n '/^What moves it/,/^$/p; /^| lever |/,/^$/p' "$D/run/report.md" | grep '^| ' |
	sed 1d; }
check "the levers table: as found and idle=poll, no row for a value cut at 31 characters" \
	eval '[ "$(tab | cut -d"|" -f2 | sort | tr -d " " | tr "\n" " ")" = "asfound idle=poll " ]'
check "... the rows at idle=poll measured (other/same 0.4x)" \
	eval 'tab | grep -q "^| idle=poll | 0\.4 \["'
check "... and the long values are said to be left out" \
	grep -q "^(4 results whose idle has 32 characters or more are left out of this table.)" \
		"$D/run/report.md"

# Values at and around the bound: 31 characters (a row of its own, measured), 32, 33 and
# 127 (left out, counted), 128 and 4096 (past the grammar's 127: bad rows, skipped).
mkdir "$D/len"
awk 'BEGIN {
	print "bench,config,rep,metric,value,unit"
	c = "baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=%s;" \
	    "%splacement=%s;transport=libfuse"
	n = split("0 31 32 33 127 128 4096", len, " ")
	for (k = 1; k <= n; k++) {
		v = "max-latency:"
		while (length(v) < len[k])
			v = v "1"
		id[k] = len[k] ? "idle=" v ";" : ""
	}
	for (rep = 1; rep <= 6; rep++)
		for (k = 1; k <= n; k++) {
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 0, id[k], "same", rep,
			       100000 + rep
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 1, id[k], "other", rep,
			       10000 * k + rep
		}
}' >"$D/len/raw.csv"
"$H" report "$D/len" >/dev/null 2>"$D/len.err"; rc=$?
check "values of 31 to 4096 characters: harness report exit $rc" [ "$rc" = 0 ]
rows() { grep -E '^\| (as found|idle=)' "$D/len/report.md"; }
check "a 31-character value has its row, measured (other/same 0.2)" \
	eval 'rows | grep -q "^| idle=max-latency:1111111111111111111 | 0\.2 \["'
check "... the only lever row: 32, 33 and 127 characters have none" \
	[ "$(rows | grep -c '^| idle=')" = 1 ]
check "... and they are said left out (6 results)" \
	grep -q "^(6 results whose idle has 32 characters or more are left out" "$D/len/report.md"
check "values of 128 and 4096 characters are bad rows, skipped" \
	grep -q "24 bad rows skipped in all" "$D/len.err"
t_done
