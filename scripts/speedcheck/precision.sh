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
# machine, how often each one's median lies in the other's interval, and how many of the
# within-run ratios harness compare judges changed between them.
PREC_HEADLINE='^(stat_per_s|read_MB_per_s|write_MB_per_s|sqrt_M_per_s|ios_K_per_s|ns_per_op|'
PREC_HEADLINE+='us_per_spawn|line_rt_ns|futex_rt_us)$'

# prec_rows DIR: "bench width% key median lo hi" per headline result with n >= 6; the
# config may be quoted and hold commas, so fields count from the right
prec_rows() {
	awk -F, -v re="$PREC_HEADLINE" 'NR > 1 && $(NF - 10) ~ re && $(NF - 8) >= 6 &&
		$(NF - 7) != 0 {
		key = $0	# bench and config: all but the last 11 fields (no {11}: mawk)
		sub(/,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*$/, "", key)
		m = $(NF - 7) < 0 ? -$(NF - 7) : $(NF - 7)
		printf "%s %.4f %s,%s %s %s %s\n", $1, 50 * ($NF - $(NF - 1)) / m, key, $(NF - 10),
			$(NF - 7), $(NF - 1), $NF }' "$1/summary.csv"
}

# prec_quantile Q: stdin's numbers, the median (Q 0.5: the middle two's mean for an even
# count) or the Q-quantile (the value of rank Q x count, rounded), as issue 36 measured
prec_quantile() {
	sort -g | awk -v q="$1" '{ a[NR] = $1 } END {
		if (!NR) { printf "-"; exit }
		i = int(q * NR + 0.5); if (i < 1) i = 1
		if (q != 0.5) v = a[i]
		else if (NR % 2) v = a[(NR + 1) / 2]
		else v = (a[NR / 2] + a[NR / 2 + 1]) / 2
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

# prec_agree A B: of the results in both, how many medians of each lie in the other's CI;
# each run's summary.csv is read once, its rows shared by the three counts below
prec_agree() {
	local ra rb
	ra=$(prec_rows "$1")
	rb=$(prec_rows "$2")
	prec_agree_count "$ra" "$rb"
	# each median varies as the other does: from runs alike, about 83% is what exact 95%
	# intervals give (P(|Z| < 1.96 / sqrt 2)); far above it, the intervals are too wide
	echo "(from two runs alike, exact 95% intervals give about 83%: each median varies too)"
	prec_agree_expected "$ra" "$rb"
	prec_agree_scaled "$ra" "$rb"
}

# prec_agree_count ROWS_A ROWS_B (prec_rows's lines): the measured counts. Here and below,
# A's rows are those of awk's first file (FILENAME, not FNR: an empty A is not B); a run
# without rows is one blank line.
prec_agree_count() {
	awk '!NF { next }
		FILENAME == ARGV[1] { m[$3] = $4; lo[$3] = $5; hi[$3] = $6; next }
		$3 in m { n++; a += m[$3] >= $5 && m[$3] <= $6; b += $4 >= lo[$3] && $4 <= hi[$3] }
		END { printf "%d results in both: %d medians of the first in the second'"'"'s 95%% CI " \
			"(%.0f%%), %d of the second in the first'"'"'s (%.0f%%)\n", n, a, n ? 100 * a / n : 0,
			b, n ? 100 * b / n : 0 }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# prec_agree_expected ROWS_A ROWS_B: the counts prec_agree_count's would be if each run's
# medians varied only as their own intervals say (its repetitions all the noise there is):
# with half-widths a and b, A's median lies in B's interval with probability
# P(|Z| < 1.96 b / sqrt(a^2 + b^2)); 83% when a = b, less where B's is the narrower.
# Fewer than this, and something beyond the repetitions moved the medians between runs.
prec_agree_expected() {
	awk 'function erf(x,  t, y) {	# Abramowitz and Stegun 7.1.26, error < 1.5e-7
			t = 1 / (1 + 0.3275911 * x)
			y = (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736)
			y = (y * t + 0.254829592) * t
			return 1 - y * exp(-x * x)
		}
		function inside(own, other) {	# P(other run median in own interval)
			if (own + other == 0) return 1
			return erf(1.96 * own / sqrt(own * own + other * other) / sqrt(2))
		}
		!NF { next }
		FILENAME == ARGV[1] { w[$3] = $2; next }
		$3 in w { n++; a += inside($2, w[$3]); b += inside(w[$3], $2) }
		END { if (n) printf "expected were the repetitions all the noise, from the two " \
			"runs'"'"' widths: %.1f of the first in the second'"'"'s CI (%.1f%%), %.1f of the " \
			"second in the first'"'"'s (%.1f%%)\n", a, 100 * a / n, b, 100 * b / n }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# prec_agree_scaled ROWS_A ROWS_B: each benchmark's shift from A to B (the median of its results'
# B/A median ratios), and the agreement once each is divided out. A machine whose
# speed drifts between runs (a shared host) moves every result of a benchmark alike:
# that shift cancels in a ratio measured within one run, and what is left is noise.
prec_agree_scaled() {
	awk '!NF { next }
		FILENAME == ARGV[1] { m[$3] = $4; lo[$3] = $5; hi[$3] = $6; next }
		$3 in m && m[$3] > 0 && $4 > 0 {
			n++; k[n] = $3; b[n] = $1; m2[n] = $4; lo2[n] = $5; hi2[n] = $6
			if (!($1 in nb)) order[++nx] = $1	# benchmarks as the runs list them
			c = ++nb[$1]; q[$1, c] = $4 / m[$3]
		}
		END {
			if (!n) exit
			line = "shift from the first to the second (median B/A):"
			for (o = 1; o <= nx; o++) {	# insertion sort of the ratios (mawk: no asort)
				x = order[o]; c = nb[x]
				for (i = 2; i <= c; i++) {
					v = q[x, i]
					for (j = i - 1; j >= 1 && q[x, j] > v; j--) q[x, j + 1] = q[x, j]
					q[x, j + 1] = v
				}
				s[x] = c % 2 ? q[x, (c + 1) / 2] : (q[x, c / 2] + q[x, c / 2 + 1]) / 2
				line = line sprintf(" %s %+.1f%%", x, 100 * s[x] - 100)
			}
			for (i = 1; i <= n; i++) {
				a += m[k[i]] * s[b[i]] >= lo2[i] && m[k[i]] * s[b[i]] <= hi2[i]
				z += m2[i] / s[b[i]] >= lo[k[i]] && m2[i] / s[b[i]] <= hi[k[i]]
			}
			print line
			printf "with each benchmark'"'"'s shift divided out: %d of %d medians of the first " \
				"in the second'"'"'s 95%% CI (%.0f%%), %d of the second in the first'"'"'s " \
				"(%.0f%%)\n", a, n, 100 * a / n, z, 100 * z / n
		}' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# prec_ratios A B: the ratios inside each run that harness compare's first table names
# (each paired by round where its run allows), and how many changed between the runs: from
# two runs of one machine and one build, a change called significant is a false alarm,
# and about 5% of the change CIs exclude 1 by chance alone
prec_ratios() {
	local out="$WORK/ratios"
	if [ ! -f "$1/raw.csv" ] || [ ! -f "$2/raw.csv" ]; then
		echo "within-run ratios: not compared (harness compare needs each run's raw.csv)"
		return 0
	fi
	rm -rf "$out"
	if ! "$BIN/harness" compare --out "$out" "$1" "$2" >/dev/null 2>"$WORK/ratios.err"; then
		echo "within-run ratios: not compared: $(tail -n 1 "$WORK/ratios.err" | cut -c1-80)"
		return 0
	fi
	sed -n '/^## The ratios people trust/,/^## The machines/p' "$out/compare.md" |
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
	prec_agree "${RUNS[0]}" "${RUNS[1]}"
	prec_ratios "${RUNS[0]}" "${RUNS[1]}"
}
