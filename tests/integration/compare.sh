#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness compare --gate: in a copy of results/reference (doctored with awk), a 20%
# slowdown of one fdget config fails a max-rise rule over all 20 fdget configs, the
# configs Holm-corrected (exit 3, naming the rule); the untouched copy passes (0); a
# 13% drop of one cputestfs config fails a rule over that config alone but not one over
# all 27 (the correction at work: judged alone, each at 95%, it failed); a 2-repetition
# copy cannot be judged: said, exit 0, and exit 3 with --strict; a bad rule file exits 2
# with FILE:LINE. Then compare.md (machines, ratios, trends) and its terminal table, up
# to 50 runs: every stdout line within 100 columns, compare.md's tables well-formed.
# The two configs doctored (fdget's lseek and cputestfs's libfuse on the client's CPU
# with idle polling) are first calmed to a fixed spread of +-6% about their medians, so
# the verdicts do not hang on the noise the reference recorded.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/compare.XXXXXX")
LSEEK='mode=single;op=lseek;threads=1'
SINGLE='baseline=fuse;client_cpu=1;clients=1;daemon=single;daemon_cpu=1;idle=poll;'
SINGLE+='placement=same;transport=libfuse'
SINGLE_F='daemon=single placement=same transport=libfuse idle=poll'	# SINGLE alone

# calm DIR BENCH METRIC CONFIG: CONFIG's six values set at its median -6, -4, -2, +2, +4
# and +6% (rep 1 to 6), so that the gate's verdicts below hang on the doctoring alone,
# never on the noise the reference happened to record on a busy VM
calm() {
	awk -F, -v b="$2" -v m="$3" -v c="$4" 'BEGIN { OFS = ","; split("-6 -4 -2 2 4 6", f, " ") }
		NR == FNR { if ($1 == b && $2 == c && $(NF-2) == m && $3 > 0) v[++n] = $(NF-1) + 0; next }
		FNR == 1 { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) {
				t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			   med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		FNR > 1 && $1 == b && $2 == c && $(NF-2) == m && $3 > 0 {
			$(NF-1) = sprintf("%.6f", med * (1 + f[$3] / 100)) }
		{ print }' "$1/raw.csv" "$1/raw.csv" > "$1/raw.csv.new" && mv "$1/raw.csv.new" "$1/raw.csv"
}
cp -a "$TOP/results/reference" "$D/reference"
calm "$D/reference" cputestfs stat_per_s "$SINGLE"
calm "$D/reference" fdget ns_per_op "$LSEEK"
REF=$D/reference	# the reference, its two doctored configs calmed
check "the reference holds the configs the gate tests doctor, 6 repetitions each" \
	test "$(grep -cE "^(cputestfs,$SINGLE,[1-6],stat_per_s|fdget,$LSEEK,[1-6],ns_per_op)," \
		"$REF/raw.csv")" = 12

# doctor FACTOR DIR BENCH METRIC [CONFIG]: a copy of the reference with BENCH's METRIC
# times FACTOR, in CONFIG only when one is given; more doctoring with DIR as the source
doctor() {
	local src=${SRC:-$REF}
	[ -d "$2" ] || cp -a "$REF" "$2"
	awk -F, -v f="$1" -v b="$3" -v m="$4" -v c="${5-}" 'BEGIN { OFS = "," }
		NR > 1 && $1 == b && $(NF-2) == m && (c == "" ||
			$2 == c) { $(NF-1) = sprintf("%.6f", $(NF-1) * f) }
		{ print }' "$src/raw.csv" > "$2/raw.csv.new" && mv "$2/raw.csv.new" "$2/raw.csv"
}
doctor 1 "$D/same" cputestfs stat_per_s
doctor 0.87 "$D/drop" cputestfs stat_per_s	# every config 13% down, then fdget's lseek 20% slower
SRC=$D/drop doctor 1.2 "$D/drop" fdget ns_per_op "$LSEEK"
doctor 0.87 "$D/one" cputestfs stat_per_s "$SINGLE"
cp -a "$REF" "$D/two"
awk -F, 'NR == 1 || $3 <= 2' "$REF/raw.csv" > "$D/two/raw.csv"

cat > "$D/rules" <<'RULES'
# the issue's form, as written
cputestfs stat_per_s placement=same max-drop 5%
ddpar write_MB_per_s   max-drop 20%	# a rule the doctoring leaves alone
fdget ns_per_op max-rise 5%	# 20 configs, one 20% slower
RULES
cat > "$D/wide" <<RULES
cputestfs stat_per_s max-drop 5%
cputestfs stat_per_s $SINGLE_F max-drop 5%
RULES
printf 'cputestfs stat_per_s %s max-rise 5%%\n' "$SINGLE_F" > "$D/rise"

gate() { # NAME RULES BASE NEW [--strict]: stdout in $D/NAME.out, the exit status returned
	local n=$1 r=$2 a=$3 b=$4; shift 4
	"$H" compare --out "$D/o-$n" --gate "$r" "$@" "$a" "$b" > "$D/$n.out" 2> "$D/$n.err"
}

gate drop "$D/rules" "$REF" "$D/drop"; rc=$?
check "one fdget config 20% slower fails the gate (exit $rc, want 3)" [ "$rc" = 3 ]
check "one VIOLATED line, naming rules:4, its configs Holm-corrected" \
	eval '[ "$(grep -c "^gate: VIOLATED" "$D/drop.out")" = 1 ] &&
	      grep -q "^gate: VIOLATED .*rules:4 .fdget ns_per_op max-rise 5%.: .*: 20 configs, $(
		)Holm-corrected: 1 rose .* at $LSEEK\$" "$D/drop.out"'
check "the rule left alone is ok" grep -q "^gate: ok .*rules:3 " "$D/drop.out"
check "the issue's form is judged, Holm-corrected over its configs" \
	grep -q "^gate: [a-zA-Z]* .*rules:2 .cputestfs stat_per_s placement=same max-drop 5%.: .*: $(
		)[0-9]* configs, Holm-corrected" "$D/drop.out"

gate same "$D/rules" "$REF" "$D/same"; rc=$?
# idle is written only when it is not as-found: a filter idle=as-found holds the configs
# without the key, and leaves out the idle=poll one beside them
printf 'cputestfs stat_per_s daemon=single placement=same transport=libfuse %s max-drop 50%%\n' \
	"" "idle=as-found" "idle=poll" > "$D/idle"
gate idle "$D/idle" "$REF" "$D/same"
check "idle=as-found filters the configs without an idle key (2, 1 and 1 configs)" \
	eval 'grep -q "idle:1 .*: 2 configs" "$D/idle.out" &&
		grep -q "idle:2 .*: 1 configs\?" "$D/idle.out" &&
	      grep -q "idle:3 .*: 1 configs\?" "$D/idle.out"'
check "the untouched copy passes the gate (exit $rc, want 0)" [ "$rc" = 0 ]
check "... with no VIOLATED line" eval '! grep -q VIOLATED "$D/same.out"'

gate one "$D/wide" "$REF" "$D/one"; rc=$?
check "one cputestfs config 13% down: exit $rc (want 3)" [ "$rc" = 3 ]
check "... violating the rule over that config alone" \
	grep -q "^gate: VIOLATED .*wide:2 .*: 1 config, Holm-corrected: 1 dropped by more than 5%" \
		"$D/one.out"
check "... not the rule over all 27: one p-value among 27 is not enough evidence" \
	grep -q "^gate: ok .*wide:1 .*: 27 configs, Holm-corrected: none surely beyond 5%" "$D/one.out"

# max-regression: the direction from the descriptor (ns_per_op lower is better)
printf 'fdget ns_per_op max-regression 5%%\ncputestfs stat_per_s %s max-regression 5%%\n' \
	"$SINGLE_F" > "$D/reg"
gate reg "$D/reg" "$REF" "$D/drop"; rc=$?
check "max-regression: fdget's lseek 20% slower fails as a rise of ns_per_op (exit $rc, want 3)" \
	eval '[ "$rc" = 3 ] &&
		grep -q "^gate: VIOLATED .*reg:1 .*: 20 configs, Holm-corrected: 1 rose .* at $LSEEK\$" \
			"$D/reg.out"'
check "... and cputestfs's stat_per_s 13% down as a drop" \
	grep -q "^gate: VIOLATED .*reg:2 .*: 1 config, Holm-corrected: 1 dropped by more than 5%" \
		"$D/reg.out"
gate reg2 "$D/reg" "$D/drop" "$REF"; rc=$?
check "max-regression: the same changes the other way round pass (exit $rc, want 0)" [ "$rc" = 0 ]

gate rise "$D/rise" "$D/one" "$D/same"; rc=$?
check "max-rise: a 15% rise fails the gate (exit $rc, want 3)" [ "$rc" = 3 ]

gate two "$D/rules" "$REF" "$D/two"; rc=$?
check "2 repetitions: exit $rc (want 0) without --strict" [ "$rc" = 0 ]
check "... and each rule says it cannot judge" \
	eval '[ "$(grep -c "^gate: CANNOT JUDGE .*too few repetitions" "$D/two.out")" = 3 ]'
gate twostrict "$D/rules" "$REF" "$D/two" --strict; rc=$?
check "2 repetitions with --strict: exit $rc (want 3)" [ "$rc" = 3 ]

# multiple comparisons: compare.md says how many and which correction; compare.csv
# holds each p and its Holm-adjusted p, never below it, and a significant verdict
# only where the adjusted p is within 0.05
md=$D/o-drop/compare.md
check "compare.md says how many comparisons were made" \
	grep -qE "^[0-9]+ comparisons made .* significant after the Holm-Bonferroni correction" "$md"
check "compare.csv: p_holm >= p, significant only with p_holm <= 0.05" awk -F, '
	NR == 1 { ok = $12 == "p" && $13 == "p_holm" && $14 == "significant"; next }
	$13 != "" { n++; if ($13 + 0 < $12 - 1e-12 || ($14 == "1" && $13 + 0 > 0.05)) ok = 0 }
	END { exit !(ok && n > 100) }' "$D/o-drop/compare.csv"
# compare.csv is typed: ci_lo and ci_hi columns, p as measured (a bootstrap p is never 0,
# where compare.md prints "< 0.001"), significant only 0 or 1, a reason in words
check "compare.csv: CI columns, p > 0, significant 0/1, a reason on every row" awk -F, '
	NR == 1 { ok = $10 == "ci_lo" && $11 == "ci_hi" && $15 == "reason" && NF == 15; next }
	{ n++; if ($14 != "0" && $14 != "1") ok = 0; if ($12 != "" && !($12 + 0 > 0)) ok = 0
	  if ($15 == "") ok = 0; if ($12 != "" && ($10 == "" || $10 + 0 > $11 + 0)) ok = 0
	  small += $12 != "" && $12 + 0 < 0.001 }
	END { exit !(ok && n > 100 && small) }' "$D/o-drop/compare.csv"

# machines first: compare.md opens with what differs between the machines
check "same machine: compare.md says the machines agree" \
	grep -q "^The machines agree in every fact compared" "$D/o-same/compare.md"
"$H" compare --out "$D/o-mach" "$REF" "$TOP/results/emulated/A" > /dev/null 2> "$D/mach.err"
# the new reference's machine.txt has every fact, emulated A's not all: 15 columns differ,
# in two tables of at most 120 columns, the second with the lists
check "another machine: a row per run, kernel, cpu_model and topology columns, long values coded" \
	eval 'grep -q "^| run | kernel | host | cpu_model |" "$D/o-mach/compare.md" &&
	      grep -q "^| run | .*| topology | mitigations | knobs |\$" "$D/o-mach/compare.md" &&
	      ! sed -n "/^## The machines/,/^## Ratios/p" "$D/o-mach/compare.md" |
	        awk "length(\$0) > 120 && /^\|/" | grep -q . &&
	      grep -q "^| A | #1 | vm | #1 |" "$D/o-mach/compare.md" &&
	        grep -q "^| B | #2 | affbench-A | #2 |" "$D/o-mach/compare.md" &&
	      grep -q "^- kernel #2: Linux 6.1" "$D/o-mach/compare.md"'
check "... and the verdicts say they compare machines (compare.md and stderr)" \
	eval 'grep -q "^The verdicts of runs on other machines than A.s compare machines" \
		"$D/o-mach/compare.md" &&
	      grep -q "^\*\*The machines differ\*\*: run B ran on another machine than A" \
		"$D/o-mach/compare.md" &&
	      grep -q "verdicts compare machines" "$D/mach.err"'
cp -a "$D/same" "$D/evil"
# over 16 characters, so that the column is coded and the value written in the legend
printf 'cpu_model      evil | `x` <b> CPU model\n' >> "$D/evil/machine.txt"
"$H" compare --out "$D/o-evil" "$REF" "$D/evil" > /dev/null 2>&1
check "a machine.txt value is escaped in the legend" \
	grep -qxF -- '- cpu_model #2: evil \| \`x\` <b> CPU model' "$D/o-evil/compare.md"
# every mitigation line that differs, with A's value beside; measured prices as a ratio
cp -a "$D/same" "$D/pti"
sed -i -e 's/^mitigation meltdown:.*/mitigation meltdown:Mitigation: PTI/' \
	-e 's/^mitigation mds:.*/mitigation mds:Vulnerable/' "$D/pti/machine.txt"
printf 'pti            on (meltdown: Mitigation: PTI)\n' >> "$D/pti/machine.txt"
printf 'pcid           no\nsyscall_ns     1484 (getppid)\n' >> "$D/pti/machine.txt"
echo "clocksource    hpet" >> "$D/pti/machine.txt"
cp -a "$D/same" "$D/nopti"
printf 'pti            off\npcid           yes\nsyscall_ns     437 (getppid)\n' \
	>> "$D/nopti/machine.txt"
echo "clocksource    tsc" >> "$D/nopti/machine.txt"
"$H" compare --out "$D/o-pti" "$D/nopti" "$D/pti" > /dev/null 2>&1
rc=$?
check "PTI against none: compare exits 0 (got $rc)" [ "$rc" = 0 ]
mit=$(grep '^- mitigations #2:' "$D/o-pti/compare.md")
check "compare.md names Meltdown's differing mitigation line ($mit)" \
	eval '[[ $mit == *"meltdown: "*" -> Mitigation: PTI"* ]]'
check "compare.md names every differing mitigation line, not only the first (mds too)" \
	eval '[[ $mit == *"mds: "*" -> Vulnerable"* ]]'
check "compare.md's machines table has pti and pcid columns" \
	grep -q '^| run |.* pti | pcid |' "$D/o-pti/compare.md"
check "compare.md's machines table shows a differing clocksource, run by run" \
	eval 'grep -q "^| run |.* clocksource |" "$D/o-pti/compare.md" &&
	      grep -q "^| A |.* tsc |" "$D/o-pti/compare.md" &&
	        grep -q "^| B |.* hpet |" "$D/o-pti/compare.md"'
check "compare.md says B's syscalls cost 3.4x A's" \
	grep -q "Run B's syscalls cost 3.4x A's (1484 against 437 ns" "$D/o-pti/compare.md"
"$H" compare --out "$D/o-samep" "$D/nopti" "$D/nopti" > /dev/null 2>&1
check "the same syscall price: no price sentence" \
	eval '! grep -q "syscalls cost" "$D/o-samep/compare.md"'
# a metric one machine cannot record (idle states without a cpuidle driver) is said as that
cp -a "$D/same" "$D/noidle"
sed -i '/,mon_idle_[a-z0-9_]*_pct,/d' "$D/noidle/raw.csv"
"$H" compare --out "$D/o-noidle" "$D/same" "$D/noidle" > /dev/null 2>&1
rc=$?
check "a run without idle-state metrics compares (exit $rc)" [ "$rc" = 0 ]
check "its missing metrics are counted as not recorded by its machine" \
	grep -Eq "[0-9]+ of metrics the other run did not record in configs it ran: its machine lacks" \
	"$D/o-noidle/compare.md"
check "... never as configs another plan did not have" \
	eval '! grep -q "plan did not have" "$D/o-noidle/compare.md"'

# the acceptance: reference, the emulated runs A, B, C and two doctored copies: a trend
# table per headline metric (one row per run, the drop shows as 0.87x), trend plots
runs=("$REF" "$TOP/results/emulated/A" "$TOP/results/emulated/B" "$TOP/results/emulated/C" \
	"$D/drop" "$D/same")
"$H" compare --out "$D/o-acc" "${runs[@]}" > /dev/null 2>&1; rc=$?
check "six runs: exit $rc" [ "$rc" = 0 ]
check "a trend table for cputestfs stat_per_s, a table per config, a row per run, the drop at $(
	)0.87x" awk '
	/^### cputestfs stat_per_s / { t = 1; next }
	t && /^### / { t = 0 }
	t && /^\| [A-F] \|/ { rows++ }
	t && /^\| E \| [^|]* \| [^|]* \| 0\.87x \[/ { drop = 1 }
	END { exit !(rows >= 6 && rows % 6 == 0 && drop) }' "$D/o-acc/compare.md"
# one ratio notation: 0.9x, never x0.9, in every table of compare.md
check "compare.md writes a ratio one way (0.9x, never x0.9)" \
	eval '! grep -qE "\| x[0-9.]+ " "$D/o-acc/compare.md"'
# every label a plot shows is in compare.md's legend: the overlays' x labels (their .dat's
# first field), the bars' titles (run A, run B: never a directory), the trends' keys
check "every overlay x label is in compare.md's legend; bars are titled by run letter" \
	eval 'for dat in "$D"/o-acc/figures/src/compare_*.dat; do
		gp=${dat%.dat}.gp; n=$(basename "${dat%.dat}")
		awk -v n="$n" "/^Legend of / { t = \$3 == n \":\"; next } t && /^\\| / { print \$2 }" \
			"$D/o-acc/compare.md" | sort -u > "$D/leg"
		awk "!/^#/ { gsub(/\"/, \"\", \$1); print \$1 }" "$dat" | sort -u > "$D/lab"
		[ -s "$D/lab" ] && comm -23 "$D/lab" "$D/leg" | grep -q . && exit 1
		grep -q "title .run A., .* title .run B." "$gp" || exit 1
		grep -q "title .$TOP" "$gp" && exit 1
	done; true'
# two runs: the trend tables would repeat the ratios table; only the overlays are drawn
check "two runs: no trend section, no trend plots" \
	eval '! grep -q "^## Trends" "$D/o-same/compare.md" &&
		! ls "$D"/o-same/figures/src/trend_* 2>/dev/null | grep -q . &&
	      grep -q "^## Trends" "$D/o-acc/compare.md"' 
check "the ratios table names a config by the keys that vary (placement=..., never the whole $(
	)key;key list)" awk -F' [|] ' '
	/^## Ratios/ { t = 1; next }
	t && /^## / { t = 0 }
	t && /^\| cputestfs / { rows++; if ($2 ~ /;/ || $2 !~ /placement=/) bad++ }
	END { exit !(rows > 0 && !bad) }' "$D/o-acc/compare.md"
# ddpar's uring_cpu names a policy (queue, next), not CPU numbers: its configs stay apart;
# client_cpu's numbers keep configs of one run apart too (compare_cpus.sh matches them
# across machines)
mkdir -p "$D/ucpu"
{ echo 'bench,config,rep,metric,value,unit'
  for r in 1 2 3 4 5 6; do
	dd="ddpar,clone_fd=off;mode=read;procs=1;transport=uring"
	echo "$dd;uring_cpu=queue,$r,read_MB_per_s,$((4800 + r)),MB/s"
	echo "$dd;uring_cpu=next,$r,read_MB_per_s,$((1900 + r)),MB/s"
	echo "cputestfs,client_cpu=$r;placement=same,$r,stat_per_s,$((130000 + r)),1/s"
  done; } > "$D/ucpu/raw.csv"
"$H" compare --out "$D/o-ucpu" "$D/ucpu" "$D/ucpu" > /dev/null 2>&1
check "uring_cpu=queue and uring_cpu=next compared apart; client_cpu's six configs too" awk -F, '
	$1 == "ddpar" && $2 ~ /uring_cpu=queue/ && $7 + 0 > 4800 { q++ }
	$1 == "ddpar" && $2 ~ /uring_cpu=next/ && $7 + 0 < 2000 { n++ }
	$1 == "cputestfs" { c++; if ($2 !~ /client_cpu=[1-6];/) bad++ }
	END { exit !(q == 1 && n == 1 && c == 6 && !bad) }' "$D/o-ucpu/compare.csv"
# a result in one run only: the cause from the other run's runs.csv, not always "a failed
# or skipped point, or another plan": fdget's lseek left out of the plan, a ddpar point failed
cp -a "$REF" "$D/cause"
awk -F, -v l="$LSEEK" \
	'NR == 1 || !($1 == "fdget" && $2 == l) && !($1 == "ddpar" && $2 ~ /procs=4/)' \
	"$REF/raw.csv" > "$D/cause/raw.csv"
awk -F, 'BEGIN { OFS = "," } $1 == "ddpar" && !d++ { $4 = "failed" } { print }' "$REF/runs.csv" \
	> "$D/cause/runs.csv"
"$H" compare --out "$D/o-cause" "$REF" "$D/cause" > /dev/null 2>&1
check "results only in A: the plan's missing configs and the failed points told apart" \
	grep -qE "^Not compared: [0-9]+ results only in A: [0-9]+ from configs the other run.s plan did $(
		)not have .*, [0-9]+ from benchmarks with failed or skipped points in the other run" \
		"$D/o-cause/compare.md"
check "a trend plot per headline metric (.gp: labelled axes)" \
	eval 'for m in cputestfs_stat_per_s ddpar_write_MB_per_s ddpar_read_MB_per_s fdget_ns_per_op; do
		grep -q "^set ylabel " "$D/o-acc/figures/src/trend_$m.gp" &&
			grep -q "^set xlabel " "$D/o-acc/figures/src/trend_$m.gp" || exit 1; done'
if command -v gnuplot > /dev/null; then
	check "... drawn" [ -s "$D/o-acc/figures/trend_cputestfs_stat_per_s.png" ]
else
	skip "... drawn" "no gnuplot"
fi
check "baselines are left out of the plot, kept in the table" \
	eval '! grep -q "baseline=kernel" "$D/o-acc/figures/src/trend_cputestfs_stat_per_s.gp" &&
	      grep -q "baselines left out" "$D/o-acc/figures/src/trend_cputestfs_stat_per_s.gp"'

check "the terminal table fits 100 columns (configs shortened, a legend per benchmark)" \
	eval '"$H" compare --out "$D/o-term" "$REF" "$D/drop" "$TOP/results/emulated/A" 2>/dev/null |
	      awk "!/^run [A-Z#0-9]+: / && length(\$0) > 100 { bad = 1 } /^cputestfs configs: / { l = 1 }
		   END { exit bad || !l }"'

# --sort: by machine.txt's kernel (version order), date or host; ties as given
E=$TOP/results/emulated
order() { "$H" compare --sort "$1" --out "$D/o-sort" "$E/A" "$REF" "$E/C" "$E/B" 2>/dev/null |
	  sed -n 's,^run [A-D]: .*/,,p' | tr '\n' ' '; }
check "--sort kernel: 6.1 before 6.18, ties as given ($(order kernel))" \
	[ "$(order kernel)" = "A C B reference " ]
check "--sort date: A, B, C (Dec 1, by time of day), the reference (Dec 2) last ($(order date))" \
	[ "$(order date)" = "A B C reference " ]
check "--sort host: affbench-A, -B, -C, vm ($(order host))" [ "$(order host)" = "A B C reference " ]
expect_rc "--sort with --gate" \
	2 "$H" compare --sort date --gate "$D/rules" --out "$D/o-sg" "$REF" "$D/same"

# a results.json names its run directory; alone (no raw.csv beside it) it is refused
"$H" export "$D/same" 2>/dev/null
"$H" compare --out "$D/o-json" "$REF" "$D/same/results.json" > /dev/null 2>&1; rc=$?
check "compare takes a results.json (exit $rc)" [ "$rc" = 0 ]
mkdir "$D/jsononly" && cp "$D/same/results.json" "$D/jsononly/"
expect_rc "a results.json without its raw.csv" \
	2 "$H" compare --out "$D/o-j2" "$REF" "$D/jsononly/results.json"

# 50 runs (the old limit was 8): copies of the reference, each with its own kernel, every
# fifth on emulated machine A, in directories with long names; labelled A..Z, #26..#49
mkdir "$D/fifty"
r50=("$REF")
for i in $(seq 1 49); do
	d=$D/fifty/a-run-directory-with-a-name-long-enough-to-be-cut-in-the-terminal-legend-$i
	src=$REF; [ $((i % 5)) = 0 ] && src=$TOP/results/emulated/A
	mkdir "$d" && cp "$REF/raw.csv" "$d/" &&
	sed "s/^kernel .*/kernel         Linux 6.18.$i-test #1 SMP PREEMPT_DYNAMIC x86_64/" \
		"$src/machine.txt" > "$d/machine.txt"
	r50+=("$d")
done
s0=$(date +%s%N)
"$H" compare --out "$D/o-50" "${r50[@]}" > "$D/50.out" 2> "$D/50.err"; rc=$?
echo "# 50 runs of the reference's plan compared in $(( ($(date +%s%N) - s0) / 1000000 )) ms (not" \
	"asserted)"
md=$D/o-50/compare.md
check "50 runs compare (exit $rc)" [ "$rc" = 0 ]
check "each run in the terminal legend, past Z as #26.., long names cut" \
	eval 'grep -q "^run Z: " "$D/50.out" && grep -q "^run #49: \.\.\..*-legend-49$" "$D/50.out" &&
	      grep -qE "^[0-9]+ comparisons made" "$md"'
check "every stdout line within 100 columns (longest $(
	)$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$D/50.out"))" \
	awk 'length($0) > 100 { exit 1 }' "$D/50.out"
check "compare.md's tables well-formed: a header, a |---| line, every row as many cells" awk '
	function cells(s) { gsub(/\\\|/, "", s); return gsub(/\|/, "", s) }
	/^\|/ { n = cells($0)
		if (!tab) { tab = 1; want = n; hdr = NR; tables++ }
		else if (n != want || (NR == hdr + 1 && $0 !~ /^\|(---\|)+$/)) { bad++;
			print FILENAME ":" NR ": " substr($0, 1, 80) > "/dev/stderr" }
		next }
	{ tab = 0 }
	END { exit !(tables > 20 && !bad) }' "$md"
check "the machines table: a row per run, the 50 kernels coded, a legend line each" \
	eval '[ "$(sed -n "/^| run | kernel |/,/^\$/p" "$md" |
		grep -cE "^\| ([A-Z]|#[0-9]+) \| #[0-9]+ \|")" = 50 ] &&
	      grep -q "^- kernel #50: Linux 6.18.49-test" "$md"'
check "the machines and trend tables stay narrow (no row over 140 columns)" \
	eval '! sed -n "/^## The machines/,/^## Ratios/p; /^## Trends/,\$p" "$md" | grep "^|" |
		awk "length(\$0) > 140" | grep -q .'
check "a trend table: a row per run for each config" awk '
	/^### cputestfs stat_per_s / { t = 1; next } t && /^### / { t = 0 }
	t && /^\| (A|#49) \|/ { n++ } END { exit !(n >= 2 && n % 2 == 0) }' "$md"

# bad rule files: one line naming FILE:LINE, exit 2, before any run is read
bad() { # DESC LINE RULE-TEXT
	printf '# ok\n%s\n' "$3" > "$D/bad"
	expect_rc "bad rule: $1" 2 "$H" compare --out "$D/o-bad" --gate "$D/bad" "$REF" "$D/same"
	check "... names $D/bad:$2" grep -q "bad:$2:" <("$H" compare --gate "$D/bad" "$REF" "$D/same" 2>&1)
}
bad "an unknown benchmark" 2 "nosuch stat_per_s max-drop 5%"
bad "a threshold without %" 2 "cputestfs stat_per_s max-drop 5"
bad "a drop of 100% or more" 2 "cputestfs stat_per_s max-drop 100%"
bad "a filter that is not KEY=VALUE" 2 "cputestfs stat_per_s placement max-drop 5%"
bad "a filter with a quote" 2 "cputestfs stat_per_s placement='x' max-drop 5%"
bad "neither max-regression, max-drop nor max-rise" 2 \
	"cputestfs stat_per_s placement=same min-drop 5%"
bad "too few words" 2 "cputestfs max-drop 5%"
bad "a word after the threshold" 2 "cputestfs stat_per_s max-drop 5% extra"
check "... blamed on that word, not the threshold" \
	grep -q "bad:2: 'extra' after the threshold" <("$H" compare --gate "$D/bad" "$REF" "$D/same" 2>&1)
# the gate's summary in plain English: 1 rule x 1 run; a filter that holds baselines says so
printf 'cputestfs stat_per_s max-drop 5%%\n' > "$D/one-rule"
"$H" compare --out "$D/o-one" --gate "$D/one-rule" "$REF" "$D/same" > "$D/one-rule.out" \
	2> "$D/one-rule.err"
check "gate summary: '1 rule x 1 run', no '1 rules' or '1 runs'" \
	eval 'grep -q "gate .*: 1 rule x 1 run:" "$D/one-rule.err" &&
		! grep -qE "1 (rules|runs)" "$D/one-rule.err"'
check "a rule whose configs include baselines says so" \
	grep -q "^gate:   note: the rule.s configs include [0-9]* baseline" "$D/one-rule.out"
expect_rc "a rule file that is a FIFO" 2 timeout 20 bash -c \
	'mkfifo "$1/fifo" && "$2" compare --out "$1/o-fifo" --gate "$1/fifo" "$3" "$1/same"' _ "$D" \
		"$H" "$REF"
ln -s "$D/rules" "$D/link"
expect_rc "a rule file that is a link" \
	2 "$H" compare --out "$D/o-link" --gate "$D/link" "$REF" "$D/same"
expect_rc "--strict without --gate" 2 "$H" compare --out "$D/o-s" --strict "$REF" "$D/same"

rm -rf "$D"
t_done
