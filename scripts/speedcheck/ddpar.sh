# SPDX-License-Identifier: GPL-2.0
# speedcheck section: ddpar --dd vs libfuse's null example (sourced by speedcheck.sh).

# ---- 2. ddpar vs null ---------------------------------------------------

# dd_batch N DIR FILE-PREFIX COUNT: N coreutils dd in parallel, each COUNT
# blocks of $BS, to (write) or from (read) FILE-PREFIX (one shared file when
# the prefix is a file itself). DD_BYTES, DD_SECS: bytes moved, wall time (exec included).
dd_batch() {
	local n=$1 dir=$2 file=$3 count=$4 i t0 t1 pids=() bytes=0 b
	t0=$(now_ns)
	for i in $(seq "$n"); do
		if [ "$dir" = write ]; then
			LC_ALL=C dd if=/dev/zero of="$file" bs=$BS count="$count" conv=notrunc 2>"$WORK/dd.$i" &
		else
			LC_ALL=C dd if="$file" of=/dev/null bs=$BS count="$count" 2>"$WORK/dd.$i" &
		fi
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { cat "$WORK/dd.$((i + 1))" >&2; die "dd $dir on null failed"; }
	done
	t1=$(now_ns)
	# dd's own count of what it moved: a short read (EOF) would show here
	for i in $(seq "$n"); do
		b=$(awk '/bytes/ { print $1; exit }' "$WORK/dd.$i")
		[[ $b =~ ^[0-9]+$ ]] || die "no byte count from dd: $(cat "$WORK/dd.$i")"
		bytes=$((bytes + b))
	done
	DD_BYTES=$bytes
	DD_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
}

# null_run N: VAL_W, VAL_R = write and read MB/s on a fresh null mount, with
# coreutils dd as ddpar --dd runs it. count= is sized by short batches until a
# batch lasts at least 0.8 x $DUR: a single 4 MiB calibration would be timed
# mostly as fork+exec and size the run far too short.
null_run() {
	local n=$1 file dir count tries out=()
	local max_read=$(((4 << 30) / BS)) # null's file is 4 GiB: reads past it end early
	file=$(mktemp "$WORK/null-file.XXXXXX")
	start_daemon "$file" "$WORK/null" -f "$file"
	for dir in write read; do
		count=32
		for tries in 1 2 3 4; do
			dd_batch "$n" "$dir" "$file" "$count"
			awk -v s="$DD_SECS" -v d="$DUR" 'BEGIN { exit !(s >= 0.8 * d) }' && break
			[ "$dir" = read ] && [ "$count" -ge $max_read ] && break
			[ "$tries" = 4 ] && break
			count=$(awk -v s="$DD_SECS" -v c="$count" -v d="$DUR" 'BEGIN {
				n = int(1.1 * c * d / s); print n < 2 * c ? 2 * c : n }')
			[ "$dir" = read ] && [ "$count" -gt $max_read ] && count=$max_read
		done
		out+=("$(awk -v b="$DD_BYTES" -v s="$DD_SECS" 'BEGIN { printf "%.1f", b / s / 1e6 }')")
	done
	stop_daemon "$file"
	rm -f "$file"
	VAL_W=${out[0]}
	VAL_R=${out[1]}
}

ddpar_run() { # N [ARGS...]: VAL_W, VAL_R = write and read MB/s
	timeout $((4 * ${DUR%.*} + 60)) "$BIN/ddpar" --dd --procs "$1" --mode both --bs $BS \
		--daemon multi --clone-fd off "${@:2}" --format csv --duration "$DUR" --repeat 1 --quiet \
		>"$WORK/d.csv" 2>"$WORK/d.err" ||
		{ cat "$WORK/d.err" >&2; die "bin/ddpar --dd --procs $1 failed"; }
	VAL_W=$(csv_value "$WORK/d.csv" write_MB_per_s)
	VAL_R=$(csv_value "$WORK/d.csv" read_MB_per_s)
	if [ -z "$VAL_W" ] || [ -z "$VAL_R" ]; then
		die "no write/read_MB_per_s from bin/ddpar --procs $*"
	fi
}

check_ddpar() {
	echo "speedcheck: ddpar --dd vs null (direct_io), N = $DD_PROCS," \
		"${REPS} x ${DUR} s interleaved..." >&2
	# libfuse 3.14's high-level API has no -o direct_io: set it where null opens its file
	build_example null '/^static int null_open/,/^}/ s/(void) fi;/fi->direct_io = 1;/'
	grep -q 'fi->direct_io = 1;' "$WORK/null.c" || die "could not patch direct_io into null.c"

	local r n a b c d e f
	declare -A dw dr kw kr nw nr
	for r in $(seq "$REPS"); do
		for n in $DD_PROCS; do
			ddpar_run "$n"
			a=$VAL_W b=$VAL_R
			null_run "$n"
			e=$VAL_W f=$VAL_R
			ddpar_run "$n" --kstats off
			c=$VAL_W d=$VAL_R
			dw[$n]+="$a " dr[$n]+="$b " kw[$n]+="$c " kr[$n]+="$d " nw[$n]+="$e " nr[$n]+="$f "
			echo "speedcheck:   rep $r N=$n: write ddpar $a (kstats off $c) null $e;" \
				"read ddpar $b (kstats off $d) null $f MB/s" >&2
		done
	done
	echo
	echo "## ddpar --dd vs null (direct_io): MB/s (10^6 B/s), bs $BS, daemon multi, clone_fd off," \
		"median of $REPS x $DUR s"
	echo "## (ddpar as shipped, i.e. --kstats auto; 'ks=off': the same with --kstats off)"
	echo
	local head='%3s %9s %9s %9s %6s %6s   %9s %9s %9s %6s %6s  %s\n'
	local row='%3s %9.1f %9.1f %9.1f %6s %6s   %9.1f %9.1f %9.1f %6s %6s  %s\n'
	printf "$head" N "ddpar wr" "ks=off" "null wr" "ratio" "off/n" \
		"ddpar rd" "ks=off" "null rd" "ratio" "off/n" "verdict wr, rd"
	local mdw mkw mnw mdr mkr mnr rw rr
	for n in $DD_PROCS; do
		mdw=$(echo "${dw[$n]}" | median)
		mkw=$(echo "${kw[$n]}" | median)
		mnw=$(echo "${nw[$n]}" | median)
		mdr=$(echo "${dr[$n]}" | median)
		mkr=$(echo "${kr[$n]}" | median)
		mnr=$(echo "${nr[$n]}" | median)
		rw=$(ratio "$mdw" "$mnw")
		rr=$(ratio "$mdr" "$mnr")
		printf "$row" "$n" "$mdw" "$mkw" "$mnw" "$rw" \
			"$(ratio "$mkw" "$mnw")" "$mdr" "$mkr" "$mnr" "$rr" "$(ratio "$mkr" "$mnr")" \
			"$(verdict "$rw" 1.0), $(verdict "$rr" 1.0)"
	done
	echo "target: ddpar/null >= 1.00 for writes and reads at each N"
}

