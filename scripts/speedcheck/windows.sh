# SPDX-License-Identifier: GPL-2.0
# speedcheck section: the window length (sourced by speedcheck.sh).
#
# Per benchmark, the point precision measures, run as the harness runs it (--repeat 1:
# one window an invocation) in WIN_PAIRS pairs of invocations, one with a window of D
# seconds and one of 2D, the order alternating from pair to pair (sqrtio, whose plan
# window is five times the others', at 5D and 10D). Per headline metric: each length's seconds
# an invocation and CV between invocations, how many more values a minute holds at the
# shorter window, and the median of the pairs' ratios (shorter over longer) with its
# distribution-free 95% CI. Where the CVs match and that interval holds 1, the shorter
# window narrows an interval per minute by the square root of the gain and moves no
# median (docs/plans.md, "Invocations and windows").

# win_ratio_ci: stdin's ratios -> "MEDIAN LO HI N": LO and HI the k-th smallest and
# largest, k the highest rank whose binomial tail (n, 1/2) stays within 2.5%, as
# report.md's intervals; "- - - N" below 6 values, which give no 95% interval
win_ratio_ci() {
	sort -g | awk '{ v[++n] = $1 } END {
		if (n < 6) { printf "- - - %d\n", n; exit }
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		c = 1; p = 0; k = 0	# c: n choose j; p: P(B <= j)
		for (j = 0; j <= n; j++) {
			p += c / 2 ^ n
			if (p > 0.025) break
			k = j + 1; c = c * (n - j) / (j + 1)
		}
		printf "%.3f %.3f %.3f %d\n", med, v[k], v[n + 1 - k], n }'
}

# win_row NAME LABEL METRIC SHORT: stdin "PAIR DURATION VALUE MS" lines -> the row
win_row() {
	local rows ci
	rows=$(cat)
	ci=$(awk -v d="$4" '$2 == d { a[$1] = $3; next } { b[$1] = $3 }
		END { for (i in a) if ((i in b) && b[i] != 0) print a[i] / b[i] }' <<<"$rows" |
		win_ratio_ci)
	awk -v d="$4" -v b="$1" -v l="$2" -v m="$3" -v ci="$ci" '
		{ k = $2 == d ? 1 : 2; n[k]++; s[k] += $3; ss[k] += $3 * $3; t[k] += $4 / 1000 }
		END {
			for (k = 1; k <= 2; k++) {
				mu = s[k] / n[k]; var = n[k] > 1 ? (ss[k] - n[k] * mu * mu) / (n[k] - 1) : 0
				cv[k] = mu ? 100 * sqrt(var > 0 ? var : 0) / mu : 0; sec[k] = t[k] / n[k]
			}
			split(ci, c, " ")
			printf "%-10s %-24s %-14s %7.2f %7.2f %6.2fx %6.1f%% %6.1f%%  %s [%s, %s] n=%s\n",
				b, l, m, sec[1], sec[2], sec[2] / sec[1], cv[1], cv[2], c[1], c[2], c[3], c[4]
		}' <<<"$rows"
}

# win_bench NAME METRIC LABEL ARGS...: WIN_PAIRS pairs of invocations at WIN_D and
# WIN_2D; with PREC_KV set, only the rows whose config holds it (precision.sh)
win_bench() {
	local b=$1 metric=$2 label=$3 i d t0 t1 v rows="" order
	shift 3
	for i in $(seq "$WIN_PAIRS"); do
		order="$WIN_D $WIN_2D"
		[ $((i % 2)) = 0 ] && order="$WIN_2D $WIN_D"
		for d in $order; do
			t0=$(now_ns)
			if ! timeout 300 "$BIN/$b" "$@" --duration "$d" --repeat 1 --format csv \
				--quiet >"$WORK/w.csv" 2>"$WORK/w.err"; then
				printf '%-10s %-24s %s\n' "$b" "$label" \
					"failed: $(tail -n 1 "$WORK/w.err" | cut -c1-80)"
				return 0
			fi
			t1=$(now_ns)
			v=$(prec_values "$WORK/w.csv" "$metric" "${PREC_KV:-}" | head -n 1 | cut -d' ' -f1)
			[ -n "$v" ] || { printf '%-10s %-24s %s\n' "$b" "$label" "no $metric"; return 0; }
			rows+="$i $d $v $(((t1 - t0) / 1000000))"$'\n'
		done
	done
	printf '%s' "$rows" | win_row "$b" "$label" "$metric" "$WIN_D"
}

check_windows() {
	WIN_PAIRS=$([ "${REPS_SET:-0}" = 1 ] && echo "$REPS" || echo 12)	# 6 or more: speedcheck.sh
	WIN_D=$([ "${DUR_SET:-0}" = 1 ] && echo "$DUR" || echo 0.1)
	WIN_2D=$(awk -v d="$WIN_D" 'BEGIN { print 2 * d }')
	echo "speedcheck: windows, $WIN_PAIRS pairs at $WIN_D and $WIN_2D s per benchmark..." >&2
	echo
	echo "## windows: $WIN_PAIRS pairs of invocations, $WIN_D s against $WIN_2D s (sqrtio" \
		"at 5D and 10D)"
	echo
	printf '%-10s %-24s %-14s %7s %7s %7s %7s %7s  %s\n' bench point metric "s short" \
		"s long" "values" "CV shrt" "CV long" "short/long, paired: median [95% CI]"
	win_bench cputestfs stat_per_s "placement=same single" --placement same \
		--transport libfuse --daemon single --baseline fuse --kstats off
	win_bench ddpar read_MB_per_s "read procs=1 libfuse" --mode read --procs 1 \
		--transport libfuse --daemon multi --clone-fd off --kstats off
	# prefix assignments, for this call only, each seeing the ones before it: WIN_2D
	# first, from the caller's D
	WIN_2D=$(awk -v d="$WIN_D" 'BEGIN { print 10 * d }') \
		WIN_D=$(awk -v d="$WIN_D" 'BEGIN { print 5 * d }') \
		PREC_RUN=win_bench prec_sqrtio
	PREC_KV=mode=shared-fd win_bench fdget ns_per_op "shared-fd read threads=2" \
		--mode shared-fd --op read --threads 2 --spawn 0
	echo
	echo "s: wall seconds an invocation; values: how many more a minute holds at the short"
	echo "window; CV: between invocations, at each length. Where the CVs match and the paired"
	echo "interval holds 1, the short window narrows an interval per minute by the square root"
	echo "of 'values' and moves no median (docs/plans.md, \"Invocations and windows\")."
}
