# SPDX-License-Identifier: GPL-2.0
# speedcheck section: what moves cputestfs's other/same on this machine, each
# lever beside the gap it closes (sourced by speedcheck.sh; issue 27).
#
#   idle    cputestfs (libfuse, daemon single) placement same and other, with
#           --idle as-found and --idle poll (PM QoS: the CPUs' polling idle
#           state only): other/same per policy.
#                          targets: as-found <= 0.30, poll >= 0.70
#           Skipped, with the reason, when bin/cputestfs has no --idle.
#   wait    cputestfs --transport dev, placement other, --daemon-wait spin:50
#           vs block: stat/s and the serving thread's CPU time per request
#           (server_cpu_us_per_req). Only the server's wake-up goes; the caller
#           still sleeps for its reply.             target: spin:50 >= 1.5 x block
#           The same for --transport uring, for information, where it runs.
# Every pair of a row runs interleaved (A B A B ..., --repeat times, --duration
# each, --kstats off: only the timed repetition); medians and ratios of medians.

# lv_run ARGS...: VAL = stat/s, CPU = server_cpu_us_per_req ("" where not written)
lv_run() {
	cputestfs_run --kstats off "$@"
	CPU=$(csv_value "$WORK/c.csv" server_cpu_us_per_req)
}

lv_idle() {
	local r pol sa=() oa=() sp=() op=()
	if ! "$BIN/cputestfs" --help 2>&1 | grep -q -- '--idle'; then
		echo "idle: skipped: this bin/cputestfs has no --idle option (issue 27's idle axis is not in" \
			"this tree)"
		return
	fi
	for r in $(seq "$REPS"); do
		for pol in as-found poll; do
			lv_run --idle "$pol" --placement same
			[ $pol = poll ] && sp+=("$VAL") || sa+=("$VAL")
			lv_run --idle "$pol" --placement other
			[ $pol = poll ] && op+=("$VAL") || oa+=("$VAL")
		done
		echo "speedcheck:   levers rep $r: as-found same ${sa[-1]} other ${oa[-1]}; poll same ${sp[-1]}" \
			"other ${op[-1]}" >&2
	done
	local ms mo ps po ra rp
	ms=$(echo "${sa[@]}" | median) mo=$(echo "${oa[@]}" | median)
	ps=$(echo "${sp[@]}" | median) po=$(echo "${op[@]}" | median)
	ra=$(ratio "$mo" "$ms") rp=$(ratio "$po" "$ps")
	printf '%-22s %10.0f %10.0f %8s  %s\n' "idle as-found" "$ms" "$mo" "$ra" \
		"$(awk -v r="$ra" 'BEGIN { if (r == "nan") print "n/a"
			else print (r + 0 <= 0.30) ? "ok" : "MISSED" }') (<= 0.30)"
	printf '%-22s %10.0f %10.0f %8s  %s\n' "idle poll" "$ps" "$po" "$rp" \
		"$(verdict "$rp" 0.70) (>= 0.70)"
}

# lv_wait TRANSPORT TARGET: spin:50 vs block at placement other
lv_wait() {
	local t=$1 target=$2 r b=() s=() bc=() sc=()
	for r in $(seq "$REPS"); do
		lv_run --transport "$t" --placement other
		b+=("$VAL") bc+=("$CPU")
		lv_run --transport "$t" --placement other --daemon-wait spin:50
		s+=("$VAL") sc+=("$CPU")
		echo "speedcheck:   levers rep $r: $t other: block ${b[-1]} (${bc[-1]} us/req)," \
			"spin:50 ${s[-1]} (${sc[-1]} us/req)" >&2
	done
	local mb ms q
	mb=$(echo "${b[@]}" | median) ms=$(echo "${s[@]}" | median) q=$(ratio "$ms" "$mb")
	printf '%-22s %10.0f %10.0f %8s  %s   server CPU us/req: block %.1f, spin:50 %.1f\n' \
		"$t other: wait" "$mb" "$ms" "$q" \
		"$([ -n "$target" ] && echo "$(verdict "$q" "$target") (>= $target)" || echo "(no target)")" \
		"$(echo "${bc[@]}" | median)" "$(echo "${sc[@]}" | median)"
}

check_levers() {
	local why
	echo
	echo "## levers: what moves cputestfs's other/same here, median of $REPS x $DUR s, interleaved"
	echo "## idle rows: stat/s same, other, other/same; wait rows: stat/s block, spin:50, spin/block"
	echo
	lv_idle
	lv_wait dev 1.5
	why=$("$BIN/cputestfs" --transport uring --placement other --duration 0.05 --repeat 1 \
		--quiet 2>&1 >/dev/null)
	if [ $? = 4 ]; then
		echo "uring other: wait: skipped: $why"
	else
		lv_wait uring ""
	fi
	echo "targets: other/same <= 0.30 as found and >= 0.70 with --idle poll; dev spin:50 >= 1.5 x" \
		"block"
}
