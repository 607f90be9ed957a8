# SPDX-License-Identifier: GPL-2.0
# speedcheck section: cpupair's cache-line round trip vs a minimal C ping-pong
# (scripts/pingpong.c) on the same ordered pairs (sourced by speedcheck.sh).

# ---- cpupair vs pingpong ------------------------------------------------

# A window in which other work kept a spinning side off its CPU throughout makes
# no round trip, and cpupair fails it (exit 1): that repetition is said and skipped.
cpupair_run() { # A B: VAL = line_rt_ns of pair (A, B), one window of $CP_DUR s; 1: skipped
	local rc
	timeout 60 "$BIN/cpupair" --cpus "$1,$2" --pairs all --method line --duration "$CP_DUR" \
		--repeat 1 --format csv --quiet >"$WORK/c.csv" 2>"$WORK/c.err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "no round trip" "$WORK/c.err"; then
		echo "speedcheck:   $(cat "$WORK/c.err") (another process held the CPU): repetition skipped" >&2
		return 1
	fi
	[ "$rc" = 0 ] || { cat "$WORK/c.err" >&2; die "bin/cpupair on CPUs $1,$2 failed"; }
	VAL=$(csv_value "$WORK/c.csv" line_rt_ns "cpu_a=$1;cpu_b=$2;")
	[ -n "$VAL" ] || die "no line_rt_ns for pair ($1,$2) from bin/cpupair"
}

pingpong_run() { # A B ROUNDS: VAL = ns per round trip of the reference
	VAL=$(timeout 60 "$WORK/pingpong" "$1" "$2" "$3") || die "pingpong $1 $2 failed"
}

check_cpupair() {
	CP_DUR=$(awk -v d="$DUR" 'BEGIN { print (d < 0.5 ? d : 0.5) }')
	gcc -O2 -Wall -pthread -o "$WORK/pingpong" "$REPO/scripts/pingpong.c" ||
		die "cannot build scripts/pingpong.c"
	local cpus a b r c p
	cpus=$(taskset -pc $$ | sed 's/.*: //')
	# the first two CPUs of the list ("0-3,8" -> 0 1)
	read -r a b < <(tr ',' '\n' <<<"$cpus" |
		awk -F- '{ hi = NF > 1 ? $2 : $1; for (i = $1; i <= hi; i++) print i }' | head -2 | tr '\n' ' ')
	[ -n "${b:-}" ] || skip "cpupair needs two CPUs; this process may run on $cpus only"
	echo "speedcheck: cpupair vs pingpong (cache-line round trip), pairs ($a,$b) ($b,$a) of $cpus," \
		"${REPS} x ${CP_DUR} s interleaved..." >&2
	declare -A cv pv
	for r in $(seq "$REPS"); do
		for p in "$a $b" "$b $a"; do
			# shellcheck disable=SC2086
			cpupair_run $p || continue
			c=$VAL
			# the same window's worth of round trips
			# shellcheck disable=SC2086
			pingpong_run $p \
				"$(awk -v c="$c" -v d="$CP_DUR" 'BEGIN { n = int(d * 1e9 / c); print (n > 1000 ? n : 1000) }')"
			cv[$p]+="$c "
			pv[$p]+="$VAL "
			echo "speedcheck:   rep $r pair ($p): cpupair $c ns, pingpong $VAL ns" >&2
		done
	done
	echo
	# The best repetition too: a spinning side that other work preempts stalls its
	# partner, so on a busy machine the medians measure the scheduler; the
	# fastest window is the closest either side came to the hardware's floor.
	echo "## cpupair vs pingpong: ns per cache-line round trip, median (and best) of $REPS interleaved"
	echo
	printf '%-12s %12s %12s %8s  %-7s %10s %10s %8s\n' pair cpupair pingpong ratio verdict \
		"best ours" "best ref" ratio
	local mc mp rt bc bp
	for p in "$a $b" "$b $a"; do
		mc=$(echo "${cv[$p]}" | median)
		mp=$(echo "${pv[$p]}" | median)
		rt=$(ratio "$mc" "$mp")
		bc=$(echo "${cv[$p]}" | tr ' ' '\n' | grep . | sort -g | head -1)
		bp=$(echo "${pv[$p]}" | tr ' ' '\n' | grep . | sort -g | head -1)
		printf '%-12s %12.1f %12.1f %8s  %-7s %10.1f %10.1f %8s\n' "(${p/ /,})" "$mc" "$mp" "$rt" \
			"$(awk -v r="$rt" 'BEGIN { if (r == "nan") print "n/a"
				else print (r + 0 <= 1.1) ? "ok" : "SLOW" }')" \
			"$bc" "$bp" "$(ratio "$bc" "$bp")"
	done
	echo "target: cpupair/pingpong <= 1.1 (lower is faster), on the medians"
}
