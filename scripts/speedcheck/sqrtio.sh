# SPDX-License-Identifier: GPL-2.0
# speedcheck section: sqrtio vs fio (sourced by speedcheck.sh).

# ---- 3. sqrtio vs fio ---------------------------------------------------

sqrtio_run() { # LOCAL RQ FILE: VAL = ios_K_per_s, config in $WORK/s.csv
	timeout $((${DUR%.*} + 60)) "$BIN/sqrtio" --file "$3" --span $SPAN --rq "$2" --local "$1" \
		--sqrt-procs 0 --io-procs 1 --format csv --duration "$DUR" --repeat 1 --quiet \
		>"$WORK/s.csv" 2>"$WORK/s.err" || { cat "$WORK/s.err" >&2; die "bin/sqrtio --local $1 failed"; }
	VAL=$(csv_value "$WORK/s.csv" ios_K_per_s)
	[ -n "$VAL" ] || die "no ios_K_per_s from bin/sqrtio"
}

fio_run() { # CPU FILE: VAL = read IOPS / 1000
	local ramp
	ramp=$(awk -v d="$DUR" 'BEGIN { v = d / 4; printf "%dms", (v < 0.5 ? v : 0.5) * 1000 }')
	# terse v3: field 8 is read IOPS
	timeout $((${DUR%.*} + 60)) fio \
		--name=speedcheck --filename="$2" --rw=randread --bs=4k --size=$SPAN \
		--direct=1 --ioengine=psync --numjobs=1 --cpus_allowed="$1" --norandommap --randrepeat=0 \
		--time_based --runtime="${DUR}s" --ramp_time="$ramp" --output-format=terse --terse-version=3 \
		>"$WORK/f.out" 2>"$WORK/f.err" || { cat "$WORK/f.err" >&2; die "fio failed"; }
	VAL=$(awk -F';' '{ printf "%.3f", $8 / 1000; exit }' "$WORK/f.out")
	[ -n "$VAL" ] || die "no read IOPS in fio's output"
}

check_sqrtio() {
	echo "speedcheck: sqrtio vs fio (4 KiB O_DIRECT randread, psync, 1 reader), ${REPS} x ${DUR} s" \
		"interleaved..." >&2
	# Not /tmp (often tmpfs): the file must sit on a block device.
	DATA_DIR=$(mktemp -d "${SPEEDCHECK_DATA_DIR:-/var/tmp}/speedcheck-data.XXXXXX") ||
		die "cannot make a data directory"
	local file=$DATA_DIR/file disc disk rq
	dd if=/dev/urandom of="$file" bs=1M count=64 conv=fsync status=none || die "cannot write $file"
	disc=$("$BIN/sqrtio" --discover --file "$file" 2>"$WORK/s.err") ||
		{
			cat "$WORK/s.err" >&2
			skip "sqrtio cannot use $file (set SPEEDCHECK_DATA_DIR to a disk-backed directory)"
		}
	disk=$(sed -n 's/^resolved=//p' <<<"$disc")
	rq=$(sed -n 's/^rq_affinity=//p' <<<"$disc")
	[[ $rq =~ ^[0-2]$ ]] || die "no rq_affinity from sqrtio --discover"
	# sqrtio runs at the queue's current rq_affinity, so fio and sqrtio see the same setting

	local r l cpu s f
	declare -A sv fv cpus
	for r in $(seq "$REPS"); do
		for l in 1 0; do
			sqrtio_run "$l" "$rq" "$file"
			s=$VAL
			cpu=$(csv_config_key "$WORK/s.csv" io_cpus)
			[[ $cpu =~ ^[0-9]+$ ]] || die "sqrtio's io_cpus '$cpu' is not one CPU"
			fio_run "$cpu" "$file"
			f=$VAL
			sv[$l]+="$s "
			fv[$l]+="$f "
			cpus[$l]=$cpu
			echo "speedcheck:   rep $r local=$l cpu $cpu: sqrtio $s K/s, fio $f K/s" >&2
		done
	done
	echo
	echo "## sqrtio vs fio: K 4 KiB O_DIRECT random reads/s, psync, span $((SPAN >> 20)) MiB, disk" \
		"$disk, rq_affinity $rq, median of $REPS x $DUR s"
	echo
	printf '%-18s %12s %12s %8s  %s\n' reader "sqrtio" "fio" "ratio" verdict
	local ms mf rt
	for l in 1 0; do
		ms=$(echo "${sv[$l]}" | median)
		mf=$(echo "${fv[$l]}" | median)
		rt=$(ratio "$ms" "$mf")
		printf '%-18s %12.2f %12.2f %8s  %s\n' \
			"$([ "$l" = 1 ] && echo "on IRQ cpu" || echo "off IRQ cpu") (${cpus[$l]})" \
			"$ms" "$mf" "$rt" "$(verdict "$rt" 0.95)"
	done
	echo "target: sqrtio/fio >= 0.95"
}

