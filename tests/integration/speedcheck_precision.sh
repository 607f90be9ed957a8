#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/speedcheck.sh precision without measuring anything: --help names it, and
# its arithmetic on made-up records: the headline metric's windows picked from a csv
# (rep 0 and other metrics left out, a quoted config with commas read), and the
# variance split between invocations and windows, the first window against the
# others, fixed cost and best windows; with --runs, the widths, and from harness compare
# (where the runs have raw.csv) the agreement of two runs against what their widths lead
# one to expect, each benchmark's move between them, and the within-run ratios it judges
# (a run against itself: all agree, none changed; against a copy with one ratio
# quartered: fewer agree, one changed); it writes nothing. (~5 s)
. "$(dirname "$0")/lib.sh"
SC=$TOP/scripts/speedcheck.sh

check "--help names precision" eval '"$SC" --help 2>&1 | grep -q "precision "'

# fx CODE ARGS...: CODE sees ARGS as $1, $2, ...; precision.sh's functions loaded
fx() { speedcheck_fn precision "$@"; }
d=$(mktemp -d "$AFFBENCH_WORKDIR/scprec.XXXXXX")

cat >"$d/p.csv" <<'CSV'
bench,config,rep,metric,value,unit
ddpar,"bs=131072;cpus=0,1;mode=read",0,read_MB_per_s,999,MB/s
ddpar,"bs=131072;cpus=0,1;mode=read",1,read_MB_per_s,100,MB/s
ddpar,"bs=131072;cpus=0,1;mode=read",1,lat_p50_us,7,us
ddpar,"bs=131072;cpus=0,1;mode=read",2,read_MB_per_s,102,MB/s
CSV
v=$(fx 'prec_values "$1" read_MB_per_s | tr "\n" " "' "$d/p.csv")
check "prec_values: the metric's windows, the first flagged, rep 0, other metrics out ($v)" \
	[ "$v" = "100 1 102 0 " ]

cat >"$d/f.csv" <<'CSV'
bench,config,rep,metric,value,unit
fdget,mode=single;op=read;threads=1,1,ns_per_op,1200,ns
fdget,mode=shared-fd;op=read;threads=2,1,ns_per_op,1600,ns
fdget,"mode=shared-fd;op=read;threads=2,3",2,ns_per_op,1650,ns
fdget,mode=shared-fd-x;op=read;threads=2,3,ns_per_op,1,ns
CSV
v=$(fx 'prec_values "$1" ns_per_op mode=shared-fd | tr "\n" " "' "$d/f.csv")
check "prec_values KV: only the rows whose config holds it, quoted or not ($v)" \
	[ "$v" = "1600 1 1650 0 " ]

# two invocations of 3 windows: means 11 and 21 (grand 16), window variance 1,
# fixed costs 0.5 and 0.7 s; first windows 10 and 20 (mean 15) against the rest (16.5)
printf '1 10 1 0.5\n1 11 0 0.5\n1 12 0 0.5\n2 20 1 0.7\n2 21 0 0.7\n2 22 0 0.7\n' >"$d/two"
read -r cb cw first fixed best < <(fx 'prec_stats 3 0.5 <"$1"' "$d/two")
# between: sqrt(var of means 50 - 1/3) / 16 = 44.0%; within: sqrt(1) / 16 = 6.25%
check "CV between invocations, less the windows' share ($cb)" within "${cb%\%}" 43.9 44.1
check "CV within an invocation ($cw)" within "${cw%\%}" 6.1 6.3
check "first windows 9.1% below the others ($first)" within "${first%\%}" -9.2 -9.0
check "fixed cost: the invocations' mean ($fixed)" within "$fixed" 0.59 0.61
check "best windows: at least 1 where invocations dominate ($best)" [ "$best" = 1 ]

# invocations that differ by no more than their windows' noise: between 0, "many"
printf '1 10 1 2\n1 12 0 2\n2 10 1 2\n2 12 0 2\n' >"$d/same"
read -r cb cw first fixed best < <(fx 'prec_stats 2 0.5 <"$1"' "$d/same")
check "no variance between invocations: 0% ($cb)" within "${cb%\%}" 0 0
check "and best windows 'many' ($best)" [ "$best" = many ]

# precision --runs: two made-up runs' summary.csv (harness report's columns), read only
mkrun() {	# mkrun DIR MEDIAN LO HI: one cputestfs and one ddpar headline result, one other
	mkdir -p "$1"
	{
		echo "bench,config,metric,unit,n,median,mean,stddev,cv,min,max,ci_lo,ci_hi"
		echo "cputestfs,placement=same,stat_per_s,1/s,6,$2,$2,1,1,$3,$4,$3,$4"
		echo "ddpar,\"cpus=0,1;mode=read\",read_MB_per_s,MB/s,6,100,100,1,1,90,110,90,110"
		echo "ddpar,\"cpus=0,1;mode=read\",lat_p50_us,us,6,7,7,1,1,1,99,1,99"
	} >"$1/summary.csv"
}
mkrun "$d/a" 1000 900 1100	# +-10%
mkrun "$d/b" 1050 1040 1060	# +-0.952%: a's median outside its interval, its inside a's
echo "Rounds (made up): round 5 ran slower." >"$d/a/report.md"	# b has no report.md
out=$("$SC" precision --runs "$d/a" --runs "$d/b" 2>/dev/null)
row=$(grep -m 1 -F "| $d/a |" <<<"$out")	# the widths row, before the rounds one
check "--runs: 2 headline results of a (the latency left out): $row" \
	grep -qF "| $d/a | 2 |" <<<"$row"
check "--runs: a's median half-width of 10% and 10% (mean of the middle two)" \
	grep -qF "| 10.0% | 10.0% | 10.0% | 10.0% |" <<<"$row"
check "--runs: b's cputestfs +-1.0%" grep -qF "| $d/b | 2 | 5.5% | 10.0% | 1.0% | 10.0% |" <<<"$out"
check "--runs: a's Rounds paragraph, from its report.md" \
	grep -qxF "$d/a: Rounds (made up): round 5 ran slower." <<<"$out"
check "--runs: b has no report.md, and no Rounds line" eval '! grep -qF "$d/b: " <<<"$out"'
mkdir -p "$d/e"	# a run without a headline result: its latency row only
grep -v -e stat_per_s -e read_MB "$d/a/summary.csv" >"$d/e/summary.csv"
out=$("$SC" precision --runs "$d/e" --runs "$d/e" 2>/dev/null)
check "--runs: a run without headline results has none, and no width" \
	grep -qF "| $d/e | 0 | - | - |" <<<"$out"
# --runs with raw.csv: harness compare's within-run ratios; a run against itself changes
# none, against a copy with libfuse's other placement quartered, other/same changes
REF=$TOP/results/reference
for r in ra rb; do
	mkdir -p "$d/$r" && cp "$REF/machine.txt" "$REF/raw.csv" "$d/$r/"
	head -n 1 "$d/a/summary.csv" >"$d/$r/summary.csv"
done
out=$("$SC" precision --runs "$d/ra" --runs "$d/ra" 2>/dev/null)
# the agreement, as harness compare counts it: a run against itself, every median in the
# other's interval, where the widths lead one to expect 83% of them; no benchmark moved
read -r ib ia n eb < <(sed -nE 's/^B against A: ([0-9]+) and ([0-9]+) of ([0-9]+) medians in '\
'the other.s 95% CI, about ([0-9]+) and [0-9]+ expected;$/\1 \2 \3 \4/p' <<<"$out")
check "--runs: harness compare's agreement, a run against itself: all $n in the other's CI" \
	[ "${ib:-x}" = "$n" ]
check "... where its widths lead one to expect 83% of them ($eb)" \
	within "$(awk -v e="$eb" -v n="$n" 'BEGIN { if (n > 0) print e / n }')" 0.82 0.85
check "... then the second line: with the moves divided out, all of them" \
	grep -qxF "  $n and $n with each benchmark's move divided out (compare.md)" <<<"$out"
check "... and each benchmark's move, from compare.md: none" grep -qxF "moves from the first to"\
" the second (the median of each benchmark's ratios B/A): cpupair +0.0%, cputestfs +0.0%,"\
" ddpar +0.0%, fdget +0.0%, sqrtio +0.0%" <<<"$out"
line=$(grep -F "within-run ratios (harness compare's first table):" <<<"$out")
check "--runs: a run against itself, its within-run ratios judged: $line" \
	grep -qE ": [1-9][0-9]* changes judged, " <<<"$line"
check "--runs: ... none significant" grep -qF " 0 significant after Holm, " <<<"$line"
check "--runs: ... no change CI excluding 1" grep -qF " 0 CIs excluding 1 " <<<"$line"
check "--runs: ... and their median width, a number" \
	grep -qE "; median change half-width [0-9]+[.][0-9]%$" <<<"$line"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == "cputestfs" && $(NF-2) == "stat_per_s" &&
	$2 ~ /(^|;)placement=other(;|$)/ && $2 ~ /daemon=single/ && $2 ~ /transport=libfuse/ &&
	$2 !~ /idle=/ { $(NF-1) = sprintf("%.6f", $(NF-1) * 0.25) } { print }' \
	"$REF/raw.csv" >"$d/rb/raw.csv"
out=$("$SC" precision --runs "$d/ra" --runs "$d/rb" 2>/dev/null)
check "--runs: other/same quartered in the second run: one change significant" \
	grep -qF " 1 significant after Holm, " <<<"$out"
read -r ib n < <(sed -nE 's/^B against A: ([0-9]+) and [0-9]+ of ([0-9]+) medians .*/\1 \2/p' \
	<<<"$out")
check "... and fewer of the first's medians in the second's CIs ($ib of $n)" \
	[ "${ib:-0}" -lt "${n:-0}" ]
out=$("$SC" precision --runs "$d/a" --runs "$d/b" 2>/dev/null)
check "--runs: runs without raw.csv: neither agreement nor ratios counted, said" \
	grep -qxF "agreement and within-run ratios: not counted (harness compare needs each run's"\
" raw.csv)" <<<"$out"
# read-only: nothing written where it runs (an awk print with ">" in it writes a file)
mkdir "$d/cwd"
(cd "$d/cwd" && "$SC" precision --runs "$d/a" --runs "$d/b" >/dev/null 2>&1)
(cd "$d/cwd" && "$SC" precision --runs "$d/ra" --runs "$d/rb" >/dev/null 2>&1)
check "--runs writes nothing in its working directory (the ratios' compare included)" \
	eval '[ -z "$(ls -A "$d/cwd")" ]'
expect_rc "--runs of a directory without summary.csv is refused" 2 "$SC" precision --runs "$d/none"
err=$("$SC" precision --runs 2>&1 >/dev/null); rc=$?
check "--runs without a value: exit 2 ($rc)" [ "$rc" = 2 ]
check "... one line naming the option: $err" \
	[ "$err" = "speedcheck: option '--runs' needs a value (see --help)" ]

rm -rf "$d"
t_done
