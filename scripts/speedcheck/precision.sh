# SPDX-License-Identifier: GPL-2.0
# speedcheck section: where each benchmark's variance lives (sourced by speedcheck.sh).
#
# Per benchmark, one point of its default plan's kind, measured as PREC_INV separate
# invocations (a fresh process, and its mount and daemon where it has them) of
# PREC_WIN windows each (--repeat: windows within one invocation). From the headline
# metric's values (Kalibera and Jones, ISMM 2013, two levels):
#   CV within   sqrt(mean of the invocations' sample variances) / grand mean
#   CV between  sqrt(max(0, variance of the invocations' means - within / W)) / grand
#               mean: what invocations add beyond their windows' noise
#   fixed s     an invocation's wall time minus its windows' measured time
#               (windows x --duration, counting those of points timed beside the
#               one judged, as fdget's single mode): start-up, mount, daemon,
#               calibration, warm-ups; fdget's windows run the count calibrated in
#               single mode, longer than --duration in its slower modes, and that
#               excess counts here too
#   1st window  the first windows' mean against the others' (a warm-up left in
#               the first window shows here; the windows are all kept)
#   best W      the windows per invocation that narrow the interval most per second
#               spent: sqrt(fixed x var within / (window's cost x var between),
#               a window's cost being its own seconds and those timed beside it); "many"
#               when invocations add nothing measurable. The invocations run back to
#               back, in one spell of the host: the harness's rounds, a minute apart,
#               vary more (report.md's Rounds paragraph gives the round's share of
#               the variance, and --runs prints it); best W overstates by it.

# prec_values FILE METRIC [KV]: "VALUE FIRST" lines of METRIC's windows (rep >= 1) in a
# csv, FIRST 1 for the first window; with KV ("mode=shared-fd"), only the rows whose
# config holds it: a benchmark that records the metric for two points in one invocation
# (fdget's single mode runs beside every other) would otherwise pool two levels. The
# config may be quoted and hold commas, so fields count from the right.
prec_values() {
	awk -F, -v m="$2" -v kv="${3:-}" '$(NF - 2) == m && $(NF - 3) + 0 >= 1 {
		cfg = $0	# all but the bench and the last four fields, unquoted
		sub(/^[^,]*,/, "", cfg); sub(/,[^,]*,[^,]*,[^,]*,[^,]*$/, "", cfg); gsub(/"/, "", cfg)
		if (kv == "" || index(";" cfg ";", ";" kv ";")) print $(NF - 1), ($(NF - 3) + 0 == 1)
	}' "$1"
}

# prec_stats W COST: stdin "INV VALUE FIRST FIXED" lines, COST one window's seconds ->
# "cv_between cv_within first_window fixed best_w"
prec_stats() {
	awk -v W="$1" -v cost="$2" '
	{ n[$1]++; s[$1] += $2; ss[$1] += $2 * $2; fx[$1] = $4
	  if ($3) { f += $2; nf++ } else { o += $2; no++ } }
	END {
		k = 0; gm = 0; wv = 0; mv = 0; fsum = 0
		for (i in n) { k++; m[i] = s[i] / n[i]; gm += m[i]; fsum += fx[i]
			if (n[i] > 1) wv += (ss[i] - n[i] * m[i] * m[i]) / (n[i] - 1) }
		gm /= k; wv /= k; fixed = fsum / k
		for (i in n) mv += (m[i] - gm) ^ 2
		mv = k > 1 ? mv / (k - 1) : 0
		bv = mv - wv / W; if (bv < 0) bv = 0
		best = (bv > 0 && fixed > 0) ? sprintf("%.0f", sqrt(fixed * wv / (cost * bv))) : "many"
		if (best == "0") best = 1
		first = (nf && no && o) ? sprintf("%+.1f%%", 100 * (f / nf) / (o / no) - 100) : "-"
		printf "%.1f%% %.1f%% %s %.2f %s\n", 100 * sqrt(bv) / gm, 100 * sqrt(wv) / gm, first, \
			fixed, best
	}'
}

# prec_num: stdin's number as a table prints it, never in e-notation
prec_num() { awk '{ printf($1 >= 100 ? "%.0f\n" : $1 >= 1 ? "%.2f\n" : "%.4f\n", $1) }'; }

# prec_bench NAME METRIC LABEL ARGS...: PREC_INV invocations of bin/NAME ARGS, one row;
# with PREC_KV set, the statistics read only the rows whose config holds it
prec_bench() {
	local b=$1 metric=$2 label=$3 i t0 t1 nwin vals npt wcost fixed rows="" err
	shift 3
	for i in $(seq "$PREC_INV"); do
		t0=$(now_ns)
		if ! timeout 300 "$BIN/$b" "$@" --duration "$PREC_DUR" --repeat "$PREC_WIN" \
			--format csv --quiet >"$WORK/p.csv" 2>"$WORK/p.err"; then
			err=$(tail -n 1 "$WORK/p.err")
			printf '%-10s %-28s %s\n' "$b" "$label" "failed: ${err:0:80}"
			return 0
		fi
		t1=$(now_ns)
		# every window the invocation timed is measured time, the point's or not
		nwin=$(prec_values "$WORK/p.csv" "$metric" | wc -l)
		vals=$(prec_values "$WORK/p.csv" "$metric" "${PREC_KV:-}")
		npt=$(grep -c . <<<"$vals")
		[ "$npt" -gt 0 ] || { printf '%-10s %-28s %s\n' "$b" "$label" "no $metric"; return 0; }
		# what one more window of the point costs: its own and those timed beside it
		wcost=$(awk -v w="$nwin" -v p="$npt" -v d="$PREC_DUR" 'BEGIN { print d * w / p }')
		fixed=$(awk -v a="$t0" -v b="$t1" -v w="$nwin" -v d="$PREC_DUR" \
			'BEGIN { printf "%.3f", (b - a) / 1e9 - w * d }')
		rows+=$(sed "s/^/$i /; s/\$/ $fixed/" <<<"$vals")$'\n'
		echo "speedcheck:   $b invocation $i: $nwin windows, fixed $fixed s" >&2
	done
	# shellcheck disable=SC2046,SC2183  # prec_stats prints the last five fields
	printf '%-10s %-28s %-14s %10s %10s %10s %10s %8s %7s\n' "$b" "$label" "$metric" \
		"$(printf '%s' "$rows" | cut -d' ' -f2 | tr '\n' ' ' | median | prec_num)" \
		$(printf '%s' "$rows" | prec_stats "$PREC_WIN" "$wcost")
}

check_precision() {
	PREC_INV=$([ "${REPS_SET:-0}" = 1 ] && echo "$REPS" || echo 4)
	PREC_WIN=4
	PREC_DUR=$([ "${DUR_SET:-0}" = 1 ] && echo "$DUR" || echo 0.1)
	[ "$PREC_INV" -ge 2 ] || die "precision needs --repeat 2 or more (invocations)"
	local shape="$PREC_INV invocations x $PREC_WIN windows of $PREC_DUR s"
	echo "speedcheck: precision, $shape per benchmark..." >&2
	echo
	echo "## precision: where the variance lives, $shape, one point per benchmark"
	echo
	printf '%-10s %-28s %-14s %10s %10s %10s %10s %8s %7s\n' bench point metric median \
		"CV between" "CV within" "1st window" "fixed s" "best W"
	prec_bench cputestfs stat_per_s "placement=same single" --placement same \
		--transport libfuse --daemon single --baseline fuse --kstats off
	prec_bench ddpar read_MB_per_s "read procs=1 libfuse" --mode read --procs 1 \
		--transport libfuse --daemon multi --clone-fd off --kstats off
	prec_sqrtio
	# fdget times single mode beside any other: its rows are not the point's
	PREC_KV=mode=shared-fd prec_bench fdget ns_per_op "shared-fd read threads=2" \
		--mode shared-fd --op read \
		--threads 2 --spawn 0
	prec_bench cpupair line_rt_ns "line, one pair" --pairs 1 --method line
	echo
	echo "CV between: what invocations add beyond their windows' noise; 1st window: the first"
	echo "windows' mean against the others' (all kept); fixed s: an invocation's wall time minus"
	echo "windows x $PREC_DUR s; best W: windows per invocation that narrow the interval most per"
	echo "second (Kalibera and Jones), from invocations back to back: a harness run's rounds"
	echo "vary more (report.md's Rounds paragraph gives their share, precision --runs DIR"
	echo "prints it); windows within an invocation narrow none of that share."
}

# sqrtio needs a file on a block device (not tmpfs) and reads at the queue's rq_affinity
prec_sqrtio() {
	local file disc rq
	DATA_DIR=$(mktemp -d "${SPEEDCHECK_DATA_DIR:-/var/tmp}/speedcheck-data.XXXXXX") ||
		{ printf '%-10s %s\n' sqrtio "skipped: cannot make a data directory"; return 0; }
	file=$DATA_DIR/file
	dd if=/dev/urandom of="$file" bs=1M count=64 conv=fsync status=none ||
		{ printf '%-10s %s\n' sqrtio "skipped: cannot write $file"; return 0; }
	if ! disc=$("$BIN/sqrtio" --discover --file "$file" 2>"$WORK/s.err"); then
		printf '%-10s %s\n' sqrtio "skipped: $(tail -n 1 "$WORK/s.err" | cut -c1-80)"
		return 0
	fi
	rq=$(sed -n 's/^rq_affinity=//p' <<<"$disc")
	[[ $rq =~ ^[0-2]$ ]] || { printf '%-10s %s\n' sqrtio "skipped: no rq_affinity"; return 0; }
	"${PREC_RUN:-prec_bench}" sqrtio ios_K_per_s "local=1 rq=$rq 1 reader" --file "$file" \
		--span "$SPAN" \
		--rq "$rq" --local 1 --sqrt-procs 0 --io-procs 1
}

# ---- precision --runs DIR [--runs DIR]: what whole runs reached (read-only) ----
# The headline results issue 36 names (stat_per_s, read/write MB/s, sqrt_M_per_s,
# ios_K_per_s, ns_per_op, us_per_spawn, line_rt_ns, futex_rt_us), each one's 95% CI
# half-width relative to its median, from the run's summary.csv (harness report writes
# it): the median and p90 over all, and the median per benchmark. With two runs of one
# machine, what harness compare counts of them: how often each one's median lies in the
# other's interval, and how many of the within-run ratios it judges changed between them.
PREC_HEADLINE='^(stat_per_s|read_MB_per_s|write_MB_per_s|sqrt_M_per_s|ios_K_per_s|ns_per_op|'
PREC_HEADLINE+='us_per_spawn|line_rt_ns|futex_rt_us)$'

# prec_rows DIR: "bench width%" per headline result with n >= 6; the config may be
# quoted and hold commas, so fields count from the right
prec_rows() {
	awk -F, -v re="$PREC_HEADLINE" 'NR > 1 && $(NF - 10) ~ re && $(NF - 8) >= 6 &&
		$(NF - 7) != 0 {
		m = $(NF - 7) < 0 ? -$(NF - 7) : $(NF - 7)
		printf "%s %.4f\n", $1, 50 * ($NF - $(NF - 1)) / m }' "$1/summary.csv"
}

# prec_quantile Q: stdin's numbers, the median (Q 0.5: the middle two's mean for an even
# count) or the Q-quantile (the value of rank Q x count, rounded), as issue 36 measured
prec_quantile() {
	sort -g | awk -v q="$1" 'NF { a[++n] = $1 } END {	# a run without rows: one blank line
		if (!n) { printf "-"; exit }
		i = int(q * n + 0.5); if (i < 1) i = 1
		if (q != 0.5) v = a[i]
		else if (n % 2) v = a[(n + 1) / 2]
		else v = (a[n / 2] + a[n / 2 + 1]) / 2
		printf "%.1f%%", v }'
}

prec_run_row() {
	local rows b line
	rows=$(prec_rows "$1")
	line=$(printf '| %s | %s | %s | %s ' "$1" "$(grep -c . <<<"$rows")" \
		"$(cut -d' ' -f2 <<<"$rows" | prec_quantile 0.5)" \
		"$(cut -d' ' -f2 <<<"$rows" | prec_quantile 0.9)")
	for b in cputestfs ddpar sqrtio fdget cpupair; do
		line+="| $(awk -v b="$b" '$1 == b { print $2 }' <<<"$rows" | prec_quantile 0.5) "
	done
	echo "$line|"
}

# prec_compare A B: harness compare of the two runs into $WORK/cmp, its terminal lines in
# cmp.out: the agreement and the within-run ratios below read them. 1, said, where it
# cannot run.
prec_compare() {
	local out="$WORK/cmp"
	if [ ! -f "$1/raw.csv" ] || [ ! -f "$2/raw.csv" ]; then
		echo "agreement and within-run ratios: not counted (harness compare needs each" \
			"run's raw.csv)"
		return 1
	fi
	rm -rf "$out"
	if ! "$BIN/harness" compare --out "$out" "$1" "$2" >"$WORK/cmp.out" 2>"$WORK/cmp.err"; then
		echo "agreement and within-run ratios: not counted: $(tail -n 1 "$WORK/cmp.err" |
			cut -c1-80)"
		return 1
	fi
}

# prec_agree: how many medians of each run lie in the other's 95% CI, against what the
# two runs' widths lead one to expect, and each benchmark's move between them; harness
# compare counts them (harness/compare/agree.c), here quoted from its terminal and
# compare.md
prec_agree() {
	echo "agreement (harness compare; from two runs alike, exact 95% intervals give about" \
		"83%: each median varies too):"
	grep -A 1 '^B against A: ' "$WORK/cmp.out"
	sed -n 's/^Do B and A agree? .* moved as a whole by ([^)]*): \([^;]*\);.*/moves from the '\
'first to the second (the median of each benchmark'"'"'s ratios B\/A): \1/p' \
		"$WORK/cmp/compare.md"
}

# prec_ratios: the ratios inside each run that harness compare's first table names
# (each paired by round where its run allows), and how many changed between the runs: from
# two runs of one machine and one build, a change called significant is a false alarm,
# and about 5% of the change CIs exclude 1 by chance alone
prec_ratios() {
	sed -n '/^## The ratios people trust/,/^## The machines/p' "$WORK/cmp/compare.md" |
		awk -F' [|] ' '/^[|] [a-z]+ [|] / && $3 == "B" && $7 !~ /^not judged/ {
			n++; sig += $7 ~ /[*]/; ex += $7 ~ /[*]|^CI excludes 1/
			split($6, x, /[][, ]+/)
			if (x[2] + 0 > 0 && x[3] + 0 > 0) w[++nw] = 50 * log(x[3] / x[2])
		}
		END {
			for (i = 2; i <= nw; i++) {	# insertion sort (mawk: no asort)
				v = w[i]
				for (j = i - 1; j >= 1 && w[j] > v; j--) w[j + 1] = w[j]
				w[j + 1] = v
			}
			med = !nw ? "-" : sprintf("%.1f%%", nw % 2 ? w[(nw + 1) / 2] : \
				(w[nw / 2] + w[nw / 2 + 1]) / 2)
			printf "within-run ratios (harness compare'"'"'s first table): %d changes judged, " \
				"%d significant after Holm, %d CIs excluding 1 (about 5%% by chance from " \
				"runs alike); median change half-width %s\n", n, sig, ex, med
		}'
}

# prec_rounds: each run's Rounds paragraph (report.md's Precision: the repetition rounds
# the whole machine ran slower or faster in), where its report.md has one
prec_rounds() {
	local d
	for d in "${RUNS[@]}"; do
		[ -f "$d/report.md" ] && [ ! -L "$d/report.md" ] || continue
		echo
		printf '%s: ' "$d"
		grep -m 1 '^Rounds (' "$d/report.md" || echo "no Rounds paragraph in its report.md"
	done
}

check_precision_runs() {
	local d
	for d in "${RUNS[@]}"; do
		[ -f "$d/summary.csv" ] && [ ! -L "$d/summary.csv" ] && continue
		echo "speedcheck: bad value '$d' for --runs: no summary.csv in it (harness report" \
			"DIR writes one)" >&2
		exit 2
	done
	echo
	echo "## precision: headline 95% CI half-widths relative to the median"
	echo
	echo "| run | results | median | p90 | cputestfs | ddpar | sqrtio | fdget | cpupair |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for d in "${RUNS[@]}"; do
		prec_run_row "$d"
	done
	prec_rounds
	[ "${#RUNS[@]}" = 2 ] || return 0
	echo
	prec_compare "${RUNS[0]}" "${RUNS[1]}" || return 0
	prec_agree
	prec_ratios
}
