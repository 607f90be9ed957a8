#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/speedcheck.sh without measuring anything (it is a benchmark, run by
# hand): --help names every section, bad values exit 2, the sections parse,
# the explain section's arithmetic on made-up perf, /proc and bpftrace
# output (the steady state, rates over it, a bucketed median), and the scale
# section at tiny sizes (its table, and generated run directories the harness
# reads without rejecting a row; no timing is judged).
. "$(dirname "$0")/lib.sh"
SC=$TOP/scripts/speedcheck.sh

out=$("$SC" --help 2>&1); rc=$?
check "--help exits 0" [ "$rc" = 0 ]
for s in cputestfs ddpar sqrtio transports cpupair explain plan-overhead pace levers scale; do
	check "--help names $s" grep -q -- "$s" <<<"$out"
done
expect_rc "--plan with a shell character" 2 "$SC" explain --plan 'x;y'
expect_rc "--duration 0" 2 "$SC" explain --duration 0
expect_rc "--timeout 0" 2 "$SC" scale --timeout 0
for f in "$SC" "$TOP"/scripts/speedcheck/*.sh; do
	check "bash -n ${f#"$TOP"/}" bash -n "$f"
done

# The pure functions, in a shell of their own (common.sh makes and removes a
# temporary directory of its own).
# fx CODE ARGS...: CODE sees ARGS as $1, $2, ...
fx() {
	local code=$1
	shift
	bash -c 'top=$1 code=$2; shift 2
		. "$top/scripts/speedcheck/common.sh"; . "$top/scripts/speedcheck/explain.sh"; eval "$code"' \
		fx "$TOP" "$code" "$@"
}
d=$AFFBENCH_WORKDIR/speedcheck
mkdir -p "$d"

# perf stat -x, -I 100: 2 quiet intervals, 10 at 1000 switches, 2 quiet
{
	echo "# started on Tue Dec  1 18:15:20 2026"
	echo
	for i in $(seq 14); do
		c=5
		[ "$i" -ge 3 ] && [ "$i" -le 12 ] && c=1000
		printf '     %d.%03d000000,%d,,context-switches,100000000,100.00,,\n' $((i / 10)) \
			$((i % 10 * 100)) $c
		printf '     %d.%03d000000,%d,,cpu-migrations,100000000,100.00,,\n' $((i / 10)) \
			$((i % 10 * 100)) $((c / 100))
		printf '     %d.%03d000000,%d,,fuse:fuse_request_send,100000000,100.00,,\n' $((i / 10)) \
			$((i % 10 * 100)) $((c / 2))
	done
} >"$d/perf.txt"
rows=$(fx 'perf_rows "$1"' "$d/perf.txt")
check "perf_rows: one row per interval" [ "$(grep -c . <<<"$rows")" = 14 ]
check "perf_rows: time, switches, migrations, requests" grep -qx '0.300000 1000 10 500' <<<"$rows"
printf '%s\n' "$rows" >"$d/rows"
win=$(fx 'OFF=100 span "$1"' "$d/rows")
# hot intervals end at 0.3 .. 1.2; less the first and last: 0.3 .. 1.1 (+100)
check "span: the hot stretch less its first and last interval ($win)" \
	awk -v w="$win" 'BEGIN { split(w, x, " "); exit !(x[1] > 100.29 && x[1] < 100.31 &&
		x[2] > 101.09 && x[2] < 101.11) }'
win2=$(fx 'OFF=100 LAST=0.5 span "$1"' "$d/rows")
check "span: LAST=0.5 keeps the stretch's last 0.4 s ($win2)" \
	awk -v w="$win2" 'BEGIN { split(w, x, " "); exit !(x[1] > 100.69 && x[1] < 100.71 &&
		x[2] > 101.09 && x[2] < 101.11) }'
r=$(fx 'OFF=100 rates "$1" $2' "$d/rows" "$win")
check "rates: 10000 switches/s, 100 migrations/s, 5000 requests/s ($r)" \
	grep -q '^2=10000 3=100 4=5000 secs=0.800' <<<"$r"

# cumulative samples (the /proc sampler): 1000 per 0.1 s from t = 10.2 to 11.2
awk 'BEGIN { for (i = 0; i <= 14; i++) { c += (i >= 3 &&
	i <= 12) ? 1000 : 3; printf "%.1f %d %d\n", 10 + i / 10, c, 2 * c } }' >"$d/proc"
win=$(fx 'CUM=1 span "$1"' "$d/proc")
r=$(fx 'CUM=1 rates "$1" $2' "$d/proc" "$win")
check "cumulative rates: 10000/s and 20000/s ($r)" grep -q '^2=10000 3=20000 ' <<<"$r"
check "span: nothing from a run too short to have a steady state" \
	[ -z "$(head -3 "$d/proc" | fx 'CUM=1 span /dev/stdin')" ]

# bpftrace's map: daemon 100 woken by client 200 (1000..1050 ns, 1050..1100),
# the daemon waking the client (about 15 us) and an unrelated pair
cat >"$d/bt" <<'EOF'
Attaching 3 probes...


@c[200, 100, 20]: 5
@c[200, 100, 21]: 4
@c[100, 200, 300]: 7
@c[100, 200, 700]: 1
@c[300, 301, 5]: 50
EOF
m=$(fx 'bt_median "$1" 100 daemon' "$d/bt")
check "bt_median: the daemon's wake-ups, 9 in [1000, 1100) ns ($m)" \
	awk -v m="$m" 'BEGIN { split(m, x, " "); exit !(x[2] == 9 && x[1] >= 1000 && x[1] < 1100) }'
m=$(fx 'bt_median "$1" 100 reply' "$d/bt")
check "bt_median: the replies' wake-ups, 8, median in [15000, 15050) ns ($m)" \
	awk -v m="$m" 'BEGIN { split(m, x, " "); exit !(x[2] == 8 && x[1] >= 15000 && x[1] < 15050) }'
check "bt_median: none for an unknown daemon" \
	[ "$(fx 'bt_median "$1" 999 daemon' "$d/bt")" = "nan 0" ]

# the verdicts: within tolerance, out of it, both below the floor
check "ex_row: 1.05 vs 1.00 at 10% passes" grep -q 'PASS$' <<<"$(fx 'ex_row x 1.05 1.00 0.10')"
check "ex_row: 1.20 vs 1.00 at 10% is out" \
	grep -q 'OUT of tolerance$' <<<"$(fx 'ex_row x 1.20 1.00 0.10')"
check "ex_row: 0.002 vs 0.0001 agree by the floor" \
	grep -q 'PASS (both < 0.01/op)$' <<<"$(fx 'ex_row x 0.002 0.0001 0.10')"
check "ex_row: no reference, no verdict" grep -q 'n/a$' <<<"$(fx 'ex_row x 1 "" 0.10')"

rm -rf "$d"

# scale --smoke: every shape at a thousandth and a ten-thousandth of the limits,
# through report, compare and export: a row each, each command exit 0 with no row of
# the generated files rejected, and its temporary files gone.
sd=$AFFBENCH_WORKDIR/speedcheck-scale
mkdir -p "$sd"
out=$(TMPDIR=$sd AFFBENCH_PLOT_TEXT=1 "$SC" scale --smoke --timeout 60 2>"$sd.err"); rc=$?
check "scale --smoke exits 0" [ "$rc" = 0 ]
for shape in knobs-reversed constant-key configs knob-lines repetitions hist-reverse rows; do
	check "scale --smoke measures $shape" grep -q "^$shape " <<<"$out"
done
check "scale --smoke: 18 rows, a command at a size each" \
	[ "$(grep -cE '^[a-z-]+ +(report|compare|export) +1/1e[34] ' <<<"$out")" = 18 ]
check "scale --smoke: every command exits 0, no generated row rejected" \
	bash -c '! grep -E "FAIL \((exit|rows rejected|timed out|not run)" <<<"$1"' _ "$out"
check "scale --smoke leaves nothing in TMPDIR" [ -z "$(ls -A "$sd")" ]
rm -rf "$sd" "$sd.err"
exit $T_FAILED
