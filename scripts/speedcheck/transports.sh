# SPDX-License-Identifier: GPL-2.0
# speedcheck section: the FUSE transports (sourced by speedcheck.sh).
#
#   cputestfs, stat()/s: --transport dev on one CPU vs hello_ll on that CPU
#       (>= 0.97, keeping pace; the pace section measures it alone, in pairs);
#       --transport uring vs dev, both on one CPU (>= 1.0); uring
#       unpinned: same_cpu_pct >= 95 and >= 1.3 x libfuse unpinned.
#   ddpar, 1 MiB blocks (max_write 1 MiB), N = 1 and 4, MB/s: uring vs libfuse
#       (the better of clone_fd off and on) for writes and reads (>= 1.0);
#       passthrough reads vs fio reading a file of the same size in the same
#       directory, buffered, N jobs (>= 0.8); N = 1 reads by where uring's ring
#       threads run (--uring-cpu queue, the default above, next, none) vs
#       libfuse, and the best of the three (>= 1.0).
# ddpar runs with --kstats off: the measured repetition is the same with kstats
# on (those numbers come from extra repetitions), so this only saves time.

T_BS=$((1 << 20))
T_PROCS="1 4"

# t_cputestfs TRANSPORT PLACEMENT: VAL = stat/s, PCT = same_cpu_pct, CPU = daemon_cpu
t_cputestfs() {
	cputestfs_run --transport "$1" --placement "$2"
	PCT=$(csv_value "$WORK/c.csv" same_cpu_pct)
	CPU=$(csv_config_key "$WORK/c.csv" daemon_cpu)
}

# t_ddpar TRANSPORT N MODE [ARGS...]: VAL_W, VAL_R = write and read MB/s (the
# better clone_fd setting when ARGS ask for both); MODE read leaves VAL_W empty
t_ddpar() {
	timeout $((8 * ${DUR%.*} + 60)) env AFFBENCH_WORKDIR="$WORK" "$BIN/ddpar" --transport "$1" \
		--procs "$2" --mode "$3" --bs $T_BS --max-write $T_BS --kstats off "${@:4}" \
		--format csv --duration "$DUR" --repeat 1 --quiet >"$WORK/t.csv" 2>"$WORK/t.err" ||
		{ cat "$WORK/t.err" >&2; die "bin/ddpar --transport $1 --procs $2 failed"; }
	VAL_W=$(t_best "$WORK/t.csv" write_MB_per_s)
	VAL_R=$(t_best "$WORK/t.csv" read_MB_per_s)
	if [ -z "$VAL_R" ] || { [ "$3" = both ] && [ -z "$VAL_W" ]; }; then
		die "no MB/s from bin/ddpar --transport $1"
	fi
}
t_best() {
	awk -F, -v m="$2" '$(NF - 2) == m && (b == "" || $(NF - 1) + 0 > b + 0) { b = $(NF - 1) }
		END { print b }' "$1"
}

# t_fio N FILE: VAL = MB/s of N fio jobs reading FILE in 1 MiB blocks, buffered, wrapping
t_fio() {
	timeout $((${DUR%.*} + 60)) fio --name=speedcheck --filename="$2" --rw=read --bs=$T_BS \
		--size=$SPAN --ioengine=psync --invalidate=0 --numjobs="$1" --group_reporting --time_based \
		--runtime="${DUR}s" --output-format=terse --terse-version=3 \
		>"$WORK/f.out" 2>"$WORK/f.err" || { cat "$WORK/f.err" >&2; die "fio failed"; }
	# terse v3: field 7 is read bandwidth in KiB/s
	VAL=$(awk -F';' '{ printf "%.1f", $7 * 1024 / 1e6; exit }' "$WORK/f.out")
	[ -n "$VAL" ] || die "no read bandwidth in fio's output"
}

# Skip this section (not the others) where the kernel lacks a transport.
t_usable() {
	local why
	why=$("$BIN/cputestfs" --transport uring --placement same --duration 0.05 --repeat 1 --quiet \
		2>&1 >/dev/null)
	[ $? = 4 ] && { echo "speedcheck: transports skipped: $why" >&2; return 1; }
	why=$(AFFBENCH_WORKDIR="$WORK" "$BIN/ddpar" --transport passthrough --procs 1 --mode read \
		--duration 0.05 --repeat 1 --quiet 2>&1 >/dev/null)
	[ $? = 4 ] && { echo "speedcheck: transports skipped: $why" >&2; return 1; }
	return 0
}

t_cputestfs_table() {
	local r cpu="" dev=() hel=() ur=() libn=() urn=() pct=()
	for r in $(seq "$REPS"); do
		t_cputestfs dev same
		dev+=("$VAL")
		[ -n "$cpu" ] || cpu=$CPU
		[[ $cpu =~ ^[0-9]+$ ]] || die "no daemon_cpu in cputestfs's output"
		hello_run "$cpu"
		hel+=("$VAL")
		t_cputestfs uring same
		ur+=("$VAL")
		t_cputestfs libfuse none
		libn+=("$VAL")
		t_cputestfs uring none
		urn+=("$VAL") pct+=("$PCT")
		echo "speedcheck:   rep $r: same cpu $cpu: dev ${dev[-1]} hello_ll ${hel[-1]} uring ${ur[-1]};" \
			"unpinned: libfuse ${libn[-1]} uring ${urn[-1]} (${pct[-1]}% same cpu)" >&2
	done
	local md mh mu mln mun mp
	md=$(echo "${dev[@]}" | median) mh=$(echo "${hel[@]}" | median) mu=$(echo "${ur[@]}" | median)
	mln=$(echo "${libn[@]}" | median) mun=$(echo "${urn[@]}" | median) mp=$(echo "${pct[@]}" | median)
	echo
	echo "## cputestfs transports: stat() calls/s, median of $REPS x $DUR s interleaved"
	echo
	printf '%-34s %12s %12s %8s %8s  %s\n' comparison ours reference ratio target verdict
	t_row "dev vs hello_ll, same cpu $cpu" "$md" "$mh" "$PACE_TARGET"
	t_row "uring vs dev, same cpu $cpu" "$mu" "$md" 1.0
	t_row "uring vs libfuse, unpinned" "$mun" "$mln" 1.3
	printf '%-34s %12.1f %12s %8s %8s  %s\n' "uring unpinned: same_cpu_pct" "$mp" - - ">= 95" \
		"$(awk -v p="$mp" 'BEGIN { print (p + 0 >= 95) ? "ok" : "LOW" }')"
}

t_row() { # LABEL OURS REFERENCE TARGET
	local r
	r=$(ratio "$2" "$3")
	printf '%-34s %12.1f %12.1f %8s %8s  %s\n' "$1" "$2" "$3" "$r" ">= $4" "$(verdict "$r" "$4")"
}

t_ddpar_table() {
	local r n line file=$WORK/fio-file
	declare -A lw lr uw ur pr fr uc
	dd if=/dev/urandom of="$file" bs=1M count=$((SPAN >> 20)) status=none || die "cannot write $file"
	for r in $(seq "$REPS"); do
		for n in $T_PROCS; do
			t_ddpar libfuse "$n" both --clone-fd both
			lw[$n]+="$VAL_W " lr[$n]+="$VAL_R " line="libfuse $VAL_W / $VAL_R"
			t_ddpar uring "$n" both
			uw[$n]+="$VAL_W " ur[$n]+="$VAL_R " line="$line, uring $VAL_W / $VAL_R MB/s write / read"
			if [ "$n" = 1 ]; then
				local c
				for c in next none; do
					t_ddpar uring 1 read --uring-cpu $c
					uc[$c]+="$VAL_R " line="$line, uring $c $VAL_R"
				done
			fi
			t_ddpar passthrough "$n" read
			pr[$n]+="$VAL_R " line="$line; reads: passthrough $VAL_R"
			t_fio "$n" "$file"
			fr[$n]+="$VAL "
			echo "speedcheck:   rep $r N=$n: $line, fio $VAL" >&2
		done
	done
	echo
	echo "## ddpar transports: MB/s (10^6 B/s), bs and max_write 1 MiB," \
		"median of $REPS x $DUR s interleaved"
	echo "## (libfuse: the better of clone_fd off and on;" \
		"fio: buffered reads of a $((SPAN >> 20)) MiB file, N jobs)"
	echo
	printf '%-34s %12s %12s %8s %8s  %s\n' comparison ours reference ratio target verdict
	for n in $T_PROCS; do
		t_row "N=$n write: uring vs libfuse" \
			"$(echo "${uw[$n]}" | median)" "$(echo "${lw[$n]}" | median)" 1.0
		t_row "N=$n read: uring vs libfuse" \
			"$(echo "${ur[$n]}" | median)" "$(echo "${lr[$n]}" | median)" 1.0
		t_row "N=$n read: passthrough vs fio" \
			"$(echo "${pr[$n]}" | median)" "$(echo "${fr[$n]}" | median)" 0.8
	done
	t_uring_cpu_rows "${ur[1]}" "${uc[next]}" "${uc[none]}" "${lr[1]}"
}

# t_uring_cpu_rows QUEUE NEXT NONE LIBFUSE (each a list of N=1 read MB/s): the
# three --uring-cpu choices vs libfuse, and the best of them against the target
t_uring_cpu_rows() {
	local c i=0 m best="" bm=0 lib
	lib=$(echo "$4" | median)
	for c in queue next none; do
		i=$((i + 1))
		m=$(echo "${!i}" | median)
		printf '%-34s %12.1f %12.1f %8s %8s  %s\n' "N=1 read: uring --uring-cpu $c" "$m" "$lib" \
			"$(ratio "$m" "$lib")" - info
		if awk -v a="$m" -v b="$bm" 'BEGIN { exit !(a != "nan" && a + 0 > b + 0) }'; then
			best=$c bm=$m
		fi
	done
	[ -n "$best" ] && t_row "N=1 read: best (uring-cpu $best)" "$bm" "$lib" 1.0
}

check_transports() {
	echo "speedcheck: FUSE transports, ${REPS} x ${DUR} s interleaved..." >&2
	t_usable || return 0
	build_hello
	t_cputestfs_table
	t_ddpar_table
}
