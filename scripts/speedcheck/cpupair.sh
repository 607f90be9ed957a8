# speedcheck section: cpupair's cache-line round trip vs a minimal C ping-pong
# (scripts/pingpong.c) on the same ordered pairs (sourced by speedcheck.sh).

# ---- cpupair vs pingpong ------------------------------------------------

cpupair_run() { # A B: VAL = line_rt_ns of pair (A, B), one window of $CP_DUR s
	timeout 60 "$BIN/cpupair" --cpus "$1,$2" --pairs all --method line --duration "$CP_DUR" \
		--repeat 1 --format csv --quiet >"$WORK/c.csv" 2>"$WORK/c.err" ||
		{ cat "$WORK/c.err" >&2; die "bin/cpupair on CPUs $1,$2 failed"; }
	VAL=$(csv_value "$WORK/c.csv" line_rt_ns "cpu_a=$1;cpu_b=$2;")
	[ -n "$VAL" ] || die "no line_rt_ns for pair ($1,$2) from bin/cpupair"
}

pingpong_run() { # A B ROUNDS: VAL = ns per round trip of the reference
	VAL=$(timeout 60 "$WORK/pingpong" "$1" "$2" "$3") || die "pingpong $1 $2 failed"
}

check_cpupair() {
	CP_DUR=$(awk -v d="$DUR" 'BEGIN { print (d < 0.5 ? d : 0.5) }')
	gcc -O2 -Wall -pthread -o "$WORK/pingpong" "$REPO/scripts/pingpong.c" || die "cannot build scripts/pingpong.c"
	local cpus a b r c p
	cpus=$(taskset -pc $$ | sed 's/.*: //')
	# the first two CPUs of the list ("0-3,8" -> 0 1)
	read -r a b < <(tr ',' '\n' <<<"$cpus" |
		awk -F- '{ hi = NF > 1 ? $2 : $1; for (i = $1; i <= hi; i++) print i }' | head -2 | tr '\n' ' ')
	[ -n "${b:-}" ] || skip "cpupair needs two CPUs; this process may run on $cpus only"
	echo "speedcheck: cpupair vs pingpong (cache-line round trip), pairs ($a,$b) ($b,$a) of $cpus, ${REPS} x ${CP_DUR} s interleaved..." >&2
	declare -A cv pv
	for r in $(seq "$REPS"); do
		for p in "$a $b" "$b $a"; do
			# shellcheck disable=SC2086
			cpupair_run $p
			c=$VAL
			# the same window's worth of round trips
			# shellcheck disable=SC2086
			pingpong_run $p "$(awk -v c="$c" -v d="$CP_DUR" 'BEGIN { n = int(d * 1e9 / c); print (n > 1000 ? n : 1000) }')"
			cv[$p]+="$c "
			pv[$p]+="$VAL "
			echo "speedcheck:   rep $r pair ($p): cpupair $c ns, pingpong $VAL ns" >&2
		done
	done
	echo
	echo "## cpupair vs pingpong: ns per cache-line round trip, median of $REPS interleaved"
	echo
	printf '%-12s %12s %12s %8s  %s\n' pair cpupair pingpong ratio verdict
	local mc mp rt
	for p in "$a $b" "$b $a"; do
		mc=$(echo "${cv[$p]}" | median)
		mp=$(echo "${pv[$p]}" | median)
		rt=$(ratio "$mc" "$mp")
		printf '%-12s %12.1f %12.1f %8s  %s\n' "(${p/ /,})" "$mc" "$mp" "$rt" \
			"$(awk -v r="$rt" 'BEGIN { if (r == "nan") print "n/a"; else print (r + 0 <= 1.1) ? "ok" : "SLOW" }')"
	done
	echo "target: cpupair/pingpong <= 1.1 (lower is faster)"
}
