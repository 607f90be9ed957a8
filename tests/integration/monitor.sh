#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CPU monitor (lib/kstats/cpumon) in cputestfs's timed repetitions: every
# repetition gets mon_* records, a stat() served on another CPU costs IPIs that
# one served on the caller's CPU does not, shares stay within 0-100%, what this
# machine cannot count is said (never written as 0), and report.md shows the table.
. "$(dirname "$0")/lib.sh"
D=$(mktemp -d "$AFFBENCH_WORKDIR/monitor.XXXXXX")
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
	skip "CPU monitor" "needs root and /dev/fuse"
	t_done
fi
# A busy machine can fail one repetition: try the run up to 3 times.
for try in 1 2 3; do
	"$BIN/cputestfs" --placement same,other --repeat 2 --duration 0.5 --format csv \
		>"$D/out.csv" 2>"$D/err" && break
done
check "cputestfs with the monitor runs (try $try)" test -s "$D/out.csv"

# med PLACEMENT METRIC: the median over repetitions of the records of that placement
med() {
	awk -F, -v p="placement=$1" -v m="$2" 'index($0, p) && $(NF-2) == m { print $(NF-1) }' \
		"$D/out.csv" |
		sort -g | awk '{ v[n++] = $1 } END { if (!n) print "none";
			else print (n % 2) ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}
for p in same other; do
	n=$(grep -c "placement=$p.*,mon_ctxsw_per_op," "$D/out.csv")
	check "$p: mon_ctxsw_per_op in each of 2 repetitions ($n)" [ "$n" = 2 ]
done
for p in same other; do
	n=$(grep -c "placement=$p.*,mon_allcpus_idle_pct," "$D/out.csv")
	check "$p: the CPUs' idle share from /proc/stat in each of 2 repetitions, driver or none ($n)" \
		[ "$n" = 2 ]
done
ipi() { awk -v a="$(med "$1" mon_res_per_op)" -v b="$(med "$1" mon_cal_per_op)" \
	'BEGIN { print a + b }'; }
is=$(ipi same) io=$(ipi other)
check "other: each stat() wakes across CPUs, at least 0.5 IPIs per call ($io)" \
	awk -v x="$io" 'BEGIN { exit !(x >= 0.5) }'
check "same: fewer IPIs per call than other ($is < $io)" \
	awk -v a="$is" -v b="$io" 'BEGIN { exit !(a < b) }'
check "every % is within 0-100 and every value finite and >= 0" awk -F, '
	$(NF-2) ~ /^mon_/ { v = $(NF-1) + 0; if (v < 0 || $(NF-1) ~ /nan|inf/) bad = 1
			    if ($NF == "%" && v > 100) bad = 1 } END { exit bad }' "$D/out.csv"
check "what this machine cannot count is said once, and not written" eval \
	'[ "$(grep -c "CPU monitor: not counted on this machine: wake-ups local vs remote" \
		"$D/err")" = 1 ] &&
	 ! grep -q ",mon_wakeup" "$D/out.csv"'

# report.md's table, from a harness run of the same points
printf 'repeat 2\nbench cputestfs\nduration 0.3\naxis placement same other\n' > "$D/p.plan"
"$BIN/harness" run --plan "$D/p.plan" --out "$D/run" >/dev/null 2>&1
check "details.md has the monitor table with a row per placement" eval \
	'grep -q "^What the CPUs did in cputestfs" "$D/run/details.md" &&
	 grep -q "^| placement=same |" "$D/run/details.md" &&
	   grep -q "^| placement=other |" "$D/run/details.md"'
check "details.md says under it what was not counted and why" eval \
	'grep -q "^Not counted here, and why" "$D/run/details.md" &&
	 grep -q "^- wake-ups local vs remote" "$D/run/details.md"'
check "report.md keeps the data out and names details.md" eval \
	'! grep -q "^What the CPUs did" "$D/run/report.md" && grep -q "details.md" "$D/run/report.md"'
check "details.md gives each monitored CPU's idle share" eval \
	'grep "^| placement=same |" "$D/run/details.md" |
		grep -Eq "\| CPU [0-9]+ [0-9.]+%(, CPU [0-9]+ [0-9.]+%)* \|"'
# The time per idle state where the machine has a cpuidle driver (its records say so)
if grep -Eq ',mon_idle_[a-z0-9_]+_pct,' "$D/run/raw.csv"; then
	st=$(grep -Eo ',mon_idle_[a-z0-9_]+_pct,' "$D/run/raw.csv" | head -n 1 |
		sed 's/^,mon_idle_//; s/_pct,$//')
	check "details.md gives the time in idle state $st" eval \
		'grep "^| placement=same |" "$D/run/details.md" | grep -Eq "[|,] $st [0-9.]+%"'
fi
# The CPUs of a big box, numbered past 9: a column per CPU number would miss them. The run's
# records renamed to CPUs 12 and 9, plotted again: both named, in numeric order.
sed -i -e 's/,mon_cpu0_idle_pct,/,mon_cpu12_idle_pct,/' \
	-e 's/,mon_cpu1_idle_pct,/,mon_cpu9_idle_pct,/' "$D/run/raw.csv"
"$BIN/harness" report "$D/run" >/dev/null 2>&1
check "details.md names CPUs 9 and 12 in numeric order" eval \
	'grep "^| placement=other |" "$D/run/details.md" |
		grep -Eq "\| CPU 9 [0-9.]+%, CPU 12 [0-9.]+% \|"'
check "no FUSE mount left" no_fuse_left
rm -rf "$D"
t_done
