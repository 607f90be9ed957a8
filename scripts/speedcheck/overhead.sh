# SPDX-License-Identifier: GPL-2.0
# speedcheck section: what kernel statistics cost a plan's wall time
# (sourced by speedcheck.sh).
#
# The invocations of a plan's first repetition (harness run --dry-run) run
# twice each, as the plan has them (--kstats auto: a timed repetition, then an
# instrumented one) and with --kstats off, in alternating order; benchmarks
# without --kstats run once and count on both sides. The growth is the
# summed wall time as planned over the summed time with --kstats off, less
# one: every repetition of a plan runs the same invocations, so it is the
# plan's growth, less the harness's own time between invocations (which makes
# it an upper bound). Target (issue 19): at most 15%.

OV_TARGET=15

ov_time() { # CMD...: OV_S = wall seconds of one invocation, whatever its exit status
	local t0=$EPOCHREALTIME
	timeout 600 "$@" >/dev/null 2>>"$WORK/ov.err"
	OV_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
}

check_plan_overhead() {
	echo "speedcheck: plan-overhead: plan $PLAN's first repetition, each invocation with --kstats as" \
		"planned and off..." >&2
	"$BIN/harness" run --plan "$PLAN" --dry-run >"$WORK/plan.txt" 2>"$WORK/plan.err" ||
		{ cat "$WORK/plan.err" >&2; die "harness run --plan $PLAN --dry-run failed"; }
	declare -A on off n has
	local line cmd bench i=0 a b
	while IFS= read -r line; do
		[[ $line =~ ^rep\ 1\ point\ [0-9]+:\ (/.*)$ ]] || continue
		read -r -a cmd <<<"${BASH_REMATCH[1]}"
		[ -x "${cmd[0]}" ] || die "the plan names '${cmd[0]}', not an executable"
		bench=${cmd[0]##*/}
		if [ -z "${has[$bench]:-}" ]; then
			has[$bench]=0
			"${cmd[0]}" --help 2>/dev/null | grep -q -- '--kstats' && has[$bench]=1
		fi
		i=$((i + 1))
		if [ "${has[$bench]}" = 0 ]; then
			ov_time "${cmd[@]}"
			a=$OV_S b=$OV_S
		elif [ $((i % 2)) = 0 ]; then
			ov_time "${cmd[@]}" && a=$OV_S
			ov_time "${cmd[@]}" --kstats off && b=$OV_S
		else
			ov_time "${cmd[@]}" --kstats off && b=$OV_S
			ov_time "${cmd[@]}" && a=$OV_S
		fi
		on[$bench]=$(awk -v x="${on[$bench]:-0}" -v y="$a" 'BEGIN { print x + y }')
		off[$bench]=$(awk -v x="${off[$bench]:-0}" -v y="$b" 'BEGIN { print x + y }')
		n[$bench]=$((${n[$bench]:-0} + 1))
		echo "speedcheck:   point $i ($bench): ${a} s as planned, ${b} s with --kstats off" >&2
	done <"$WORK/plan.txt"
	[ "$i" -gt 0 ] || die "no invocations in harness run --plan $PLAN --dry-run"
	echo
	echo "## plan-overhead: plan $PLAN, wall seconds of its first repetition's $i invocations"
	echo
	printf '%-12s %6s %12s %12s %8s\n' bench points "as planned" "kstats off" growth
	local ta=0 tb=0
	for bench in $(printf '%s\n' "${!n[@]}" | sort); do
		printf '%-12s %6d %12.1f %12.1f %7s%%\n' "$bench" "${n[$bench]}" "${on[$bench]}" \
			"${off[$bench]}" \
			"$(awk -v a="${on[$bench]}" -v b="${off[$bench]}" 'BEGIN { printf "%.1f", 100 * (a / b - 1) }')"
		ta=$(awk -v x="$ta" -v y="${on[$bench]}" 'BEGIN { print x + y }')
		tb=$(awk -v x="$tb" -v y="${off[$bench]}" 'BEGIN { print x + y }')
	done
	local g reps
	g=$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.1f", 100 * (a / b - 1) }')
	printf '%-12s %6d %12.1f %12.1f %7s%%  %s\n' all "$i" "$ta" "$tb" "$g" \
		"$(awk -v g="$g" -v t=$OV_TARGET 'BEGIN {
			print (g + 0 <= t) ? "ok (target <= " t "%)" : "OVER the " t "% target" }')"
	# "plan FILE: P points x R repetitions = ..."
	reps=$(sed -n '1s/.* points x \([0-9]*\) repetitions.*/\1/p' "$WORK/plan.txt")
	if [[ $reps =~ ^[1-9][0-9]*$ ]]; then
		echo "with kstats in 1 of the plan's $reps repetitions per point instead of all:" \
			"$(awk -v g="$g" -v r="$reps" \
			'BEGIN { printf "%.1f", g / r }')% growth"
	fi
}
