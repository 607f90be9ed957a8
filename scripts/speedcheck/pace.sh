# SPDX-License-Identifier: GPL-2.0
# speedcheck section: does affbench's own /dev/fuse server keep pace with
# libfuse's hello_ll on one CPU (sourced by speedcheck.sh; not in 'all')?
#
#   cputestfs --transport dev --placement same, then hello_ll with its stat()
#   client on the CPU cputestfs chose, interleaved, REPS pairs. Each pair's
#   ratio dev/hello_ll is taken on its own, so that a burst of load on a
#   shared machine lands in one pair, not in one column; the table gives the
#   pairs' median ratio and their spread (min..max). Target: the median >= 0.97
#   (keeping pace: within 3%). A probe of ours inside the timed loop, such as
#   a clock_gettime syscall per request where the clock has no vDSO, shows here
#   as a ratio below it (docs/probes.md).
PACE_TARGET=0.97

check_pace() {
	echo "speedcheck: dev vs hello_ll on one CPU, ${REPS} x ${DUR} s pairs interleaved..." >&2
	build_hello
	local r cpu="" dev=() hel=() rat=()
	for r in $(seq "$REPS"); do
		cputestfs_run --transport dev --placement same
		dev+=("$VAL")
		[ -n "$cpu" ] || cpu=$(csv_config_key "$WORK/c.csv" daemon_cpu)
		[[ $cpu =~ ^[0-9]+$ ]] || die "no daemon_cpu in cputestfs's output"
		hello_run "$cpu"
		hel+=("$VAL")
		rat+=("$(ratio4 "${dev[-1]}" "${hel[-1]}")")
		echo "speedcheck:   pair $r: cpu $cpu: dev ${dev[-1]} hello_ll ${hel[-1]} ratio ${rat[-1]}" >&2
	done
	local md mh mr lo hi
	md=$(echo "${dev[@]}" | median) mh=$(echo "${hel[@]}" | median) mr=$(echo "${rat[@]}" | median)
	lo=$(echo "${rat[@]}" | tr ' ' '\n' | sort -g | head -1)
	hi=$(echo "${rat[@]}" | tr ' ' '\n' | sort -g | tail -1)
	echo
	echo "## dev vs hello_ll on one CPU: stat() calls/s, $REPS pairs of $DUR s, interleaved"
	echo
	printf '%-30s %10s %10s %24s %8s  %s\n' comparison dev hello_ll "ratio (range)" target verdict
	printf '%-30s %10.1f %10.1f %24s %8s  %s\n' "dev vs hello_ll, cpu $cpu" "$md" "$mh" \
		"$mr ($lo..$hi)" ">= $PACE_TARGET" "$(verdict "$mr" "$PACE_TARGET")"
}

# ratio4 A B: A / B to 4 decimals (the pairs' spread needs more than ratio's 2)
ratio4() { awk -v a="$1" -v b="$2" \
	'BEGIN { if (b + 0 > 0) printf "%.4f", a / b; else print "nan" }'; }
