#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A lever's value of 32 characters or more (crafted records: two idle policies alike in
# their first 31 characters) is left out of the levers table and said, never cut into
# rows that read alike and find nothing ("not measured" in every column).
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/levers_values.XXXXXX")
trap 'rm -rf "$D"' EXIT

mkdir "$D/run"
awk 'BEGIN {
	print "bench,config,rep,metric,value,unit"
	c = "baseline=fuse;client_cpu=0;clients=1;daemon=single;daemon_cpu=%s;%splacement=%s;transport=libfuse"
	n = split(",idle=poll;,idle=max-latency:10000000000000000000001;,idle=max-latency:10000000000000000000002;", id, ",")
	for (rep = 1; rep <= 6; rep++)
		for (i = 1; i <= n; i++) {
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 0, id[i], "same", rep, 100000 + rep
			printf "cputestfs," c ",%d,stat_per_s,%d,1/s\n", 1, id[i], "other", rep, 20000 * i + rep
		}
}' > "$D/run/raw.csv"
"$H" plot "$D/run" > /dev/null 2> "$D/err"; rc=$?
check "harness plot of the crafted records (exit $rc)" [ "$rc" = 0 ]
tab() { sed -n '/^What moves it/,/^$/p; /^| lever |/,/^$/p' "$D/run/report.md" | grep '^| ' | sed 1d; }
check "the levers table: as found and idle=poll, no row for a value cut at 31 characters" \
	eval '[ "$(tab | cut -d"|" -f2 | sort | tr -d " " | tr "\n" " ")" = "asfound idle=poll " ]'
check "... the rows at idle=poll measured (other/same 0.4x)" \
	eval 'tab | grep -q "^| idle=poll | 0\.4 \["'
check "... and the long values are said to be left out" \
	grep -q "^(4 results whose idle has 32 characters or more are left out of this table.)" "$D/run/report.md"
t_done
