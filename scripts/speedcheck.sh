#!/bin/bash
# speedcheck.sh: the "Speed" acceptance points of the benchmark issues, as one
# command. Each of our benchmarks is run side by side with a reference tool
# doing the same work, interleaved (A B A B ..., 3 repetitions), and a small
# table prints the medians and the ratio ours/reference:
#
#   cputestfs  stat()/s vs libfuse's hello_ll example changed only to
#              attr_timeout 0 (client scripts/statloop.c), daemon single
#              threaded, both on one CPU and unpinned; and vs cputestfs's
#              pipe baseline on that CPU.      target: >= 1.0 x hello_ll, >= 0.7 x pipe
#   ddpar      N coreutils dd on one mount (N = 1 2 4 8), write and read MB/s,
#              vs libfuse's null example (multi-threaded, as ddpar --daemon
#              multi --clone-fd off), opened with direct_io.     target: >= 1.0 x null
#   sqrtio     4 KiB O_DIRECT random reads, psync, one reader, same file, same
#              span, same CPU, on and off the IRQ CPU, no sqrt procs, vs fio.
#                                                               target: >= 0.95 x fio
#
#   scripts/speedcheck.sh [cputestfs|ddpar|sqrtio|all] [--duration SEC]
#
# Needs root, /dev/fuse, gcc, pkg-config + libfuse3-dev (scripts/deps.sh) and
# fio; as root a missing fio is installed, otherwise the command is printed
# and the script exits 4. Nothing is left behind: mounts are unmounted,
# daemons killed and temporary directories removed on any exit.
#
# Known limits: libfuse 3.14's high-level API has no '-o direct_io', so the
# null example is patched to set fi->direct_io in its open handler (the only
# change). The reference side reads files on a quiet machine best: whatever
# else runs on these CPUs lands in both columns, but not always equally.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=$REPO/bin
EXAMPLES=/usr/share/doc/libfuse3-dev/examples
REPS=3
DUR=2
BS=131072
DD_PROCS="1 2 4 8"
SPAN=$((16 << 20))

usage() {
	echo "usage: $0 [cputestfs|ddpar|sqrtio|all] [--duration SEC]" >&2
	exit 2
}

what=all
while [ $# -gt 0 ]; do
	case $1 in
	cputestfs | ddpar | sqrtio | all) what=$1 ;;
	--duration)
		[ $# -ge 2 ] || usage
		DUR=$2
		shift
		;;
	--duration=*) DUR=${1#*=} ;;
	-h | --help) usage ;;
	*)
		echo "speedcheck: bad argument '$1'" >&2
		usage
		;;
	esac
	shift
done
if ! [[ $DUR =~ ^[0-9]+([.][0-9]+)?$ ]] || ! awk -v d="$DUR" 'BEGIN { exit !(d > 0 && d <= 60) }'; then
	echo "speedcheck: bad value '$DUR' for --duration: seconds, > 0 and <= 60" >&2
	exit 2
fi

# ---- prerequisites ------------------------------------------------------

skip() {
	echo "speedcheck: $*" >&2
	exit 4
}
[ "$(id -u)" = 0 ] || skip "needs root (FUSE mounts of the reference daemons, sqrtio's rq_affinity); run it with sudo"
[ -c /dev/fuse ] || skip "no /dev/fuse; load it with: modprobe fuse"
"$REPO/scripts/deps.sh" || exit $?
if [ "$what" = all ] || [ "$what" = sqrtio ]; then
	if ! command -v fio >/dev/null 2>&1; then
		echo "speedcheck: installing fio" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends fio >&2 ||
			skip "fio is missing and could not be installed; install it with: apt-get install -y fio"
	fi
fi
for b in cputestfs ddpar sqrtio; do
	if [ "$what" = all ] || [ "$what" = "$b" ]; then
		make -C "$REPO" --no-print-directory -s "bin/$b" >&2 || {
			echo "speedcheck: cannot build bin/$b" >&2
			exit 1
		}
	fi
done

# ---- clean-up: every mount, daemon and directory we made ----------------

WORK=$(mktemp -d "${TMPDIR:-/tmp}/speedcheck.XXXXXX") || exit 1
DATA_DIR=""   # sqrtio's file, on a block-backed filesystem (not tmpfs)
MOUNTS=()
PIDS=()

is_mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

unmount() {
	is_mounted "$1" || return 0
	fusermount3 -u "$1" 2>/dev/null || fusermount3 -uz "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
}

cleanup() {
	local m p
	for m in "${MOUNTS[@]}"; do unmount "$m"; done
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.1
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$WORK"
	[ -n "$DATA_DIR" ] && rm -rf "$DATA_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

die() {
	echo "speedcheck: $*" >&2
	exit 1
}

# ---- helpers ------------------------------------------------------------

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.2f", a / b; else print "nan" }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "nan") print "n/a"; else print (r + 0 >= t) ? "ok" : "SLOW" }'; }
now_ns() { date +%s%N; }

# csv_value FILE METRIC [CONFIG-SUBSTRING]: the value of the first matching
# record. The value and metric are the 5th and 4th fields from the left, but a
# quoted config may hold commas, so count from the right.
csv_value() {
	awk -F, -v m="$2" -v c="${3:-}" '$(NF - 2) == m && index($0, c) { print $(NF - 1); exit }' "$1"
}
csv_config_key() { grep -o "[;\"]*$2=[^;,\"]*" "$1" | head -1 | sed 's/.*=//'; }

# Build a libfuse example from the Debian docs into $WORK after a sed patch.
build_example() {
	local name=$1 sedexpr=$2 src=$EXAMPLES/$1.c
	if [ ! -r "$src" ] && [ -r "$src.gz" ]; then
		zcat "$src.gz" >"$WORK/$name.c"
	elif [ -r "$src" ]; then
		cp "$src" "$WORK/$name.c"
	else
		skip "$src missing; install it with: apt-get install -y libfuse3-dev"
	fi
	sed -i -e "$sedexpr" "$WORK/$name.c"
	# shellcheck disable=SC2046
	gcc -O2 -Wall -o "$WORK/$name" "$WORK/$name.c" $(pkg-config --cflags --libs fuse3) ||
		die "cannot build the $name example"
}

# start_daemon MOUNTPOINT CMD...: start a FUSE daemon in the background and
# wait (5 s at most) for its mount. Sets DAEMON_PID. Its stderr goes to
# $WORK/daemon.log (libfuse 3.14's fuse_main warns about max threads at
# every start), shown when it fails.
start_daemon() {
	local mnt=$1
	shift
	"$@" 2>>"$WORK/daemon.log" &
	DAEMON_PID=$!
	PIDS+=("$DAEMON_PID")
	MOUNTS+=("$mnt")
	for _ in $(seq 100); do
		is_mounted "$mnt" && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || die "daemon '$*' exited before mounting: $(tail -3 "$WORK/daemon.log")"
		sleep 0.05
	done
	die "daemon '$*' did not mount $mnt within 5 s: $(tail -3 "$WORK/daemon.log")"
}

stop_daemon() {
	unmount "$1"
	wait "$DAEMON_PID" 2>/dev/null
}

# ---- 1. cputestfs vs hello_ll ------------------------------------------

# The measuring functions leave their result in VAL (or VAL_W/VAL_R) rather
# than print it: a $(...) subshell would hide a die() and the mounts it made.
cputestfs_run() { # ARGS...: VAL = stat_per_s of one repetition, config in $WORK/c.csv
	timeout $((${DUR%.*} + 60)) "$BIN/cputestfs" --format csv --duration "$DUR" --repeat 1 --quiet "$@" \
		>"$WORK/c.csv" 2>"$WORK/c.err" || { cat "$WORK/c.err" >&2; die "bin/cputestfs $* failed"; }
	VAL=$(csv_value "$WORK/c.csv" stat_per_s)
	[ -n "$VAL" ] || die "no stat_per_s from bin/cputestfs $*"
}

hello_run() { # CPU|any: VAL = stat()/s of statloop on a fresh hello_ll mount
	local cpu=$1 pin=() mnt
	[ "$cpu" != any ] && pin=(taskset -c "$cpu")
	mnt=$(mktemp -d "$WORK/hello-mnt.XXXXXX")
	start_daemon "$mnt" "${pin[@]}" "$WORK/hello_ll" -f -s "$mnt"
	"${pin[@]}" timeout $((${DUR%.*} + 30)) "$WORK/statloop" "$mnt/hello" "$DUR" >"$WORK/h.out" ||
		die "statloop on hello_ll failed"
	stop_daemon "$mnt"
	rmdir "$mnt"
	VAL=$(cat "$WORK/h.out")
}

check_cputestfs() {
	echo "speedcheck: cputestfs vs hello_ll (attr_timeout 0), ${REPS} x ${DUR} s interleaved..." >&2
	# attr_timeout 0 in both places hello_ll sets it (lookup reply, getattr reply)
	build_example hello_ll 's/e\.attr_timeout = 1\.0;/e.attr_timeout = 0.0;/; s/fuse_reply_attr(req, &stbuf, 1\.0);/fuse_reply_attr(req, \&stbuf, 0.0);/'
	[ "$(grep -c 'attr_timeout = 0.0\|fuse_reply_attr(req, &stbuf, 0.0)' "$WORK/hello_ll.c")" = 2 ] ||
		die "could not patch attr_timeout in hello_ll.c (did the example change?)"
	gcc -O2 -Wall -o "$WORK/statloop" "$REPO/scripts/statloop.c" || die "cannot build scripts/statloop.c"

	local r cpu="" c_same=() k_same=() h_same=() p_same=() c_none=() k_none=() h_none=()
	for r in $(seq "$REPS"); do
		cputestfs_run --placement same
		c_same+=("$VAL")
		# hello_ll goes on the very CPU cputestfs picked for client and daemon
		[ -n "$cpu" ] || cpu=$(csv_config_key "$WORK/c.csv" daemon_cpu)
		[[ $cpu =~ ^[0-9]+$ ]] || die "no daemon_cpu in cputestfs's output"
		hello_run "$cpu"
		h_same+=("$VAL")
		cputestfs_run --placement same --baseline pipe
		p_same+=("$VAL")
		cputestfs_run --placement same --kstats off
		k_same+=("$VAL")
		cputestfs_run --placement none
		c_none+=("$VAL")
		hello_run any
		h_none+=("$VAL")
		cputestfs_run --placement none --kstats off
		k_none+=("$VAL")
		echo "speedcheck:   rep $r: same: cputestfs ${c_same[-1]} (kstats off ${k_same[-1]}) hello_ll ${h_same[-1]}" \
			"pipe ${p_same[-1]}; none: cputestfs ${c_none[-1]} (kstats off ${k_none[-1]}) hello_ll ${h_none[-1]}" >&2
	done
	local cs ks hs ps cn kn hn
	cs=$(echo "${c_same[@]}" | median)
	ks=$(echo "${k_same[@]}" | median)
	kn=$(echo "${k_none[@]}" | median)
	hs=$(echo "${h_same[@]}" | median)
	ps=$(echo "${p_same[@]}" | median)
	cn=$(echo "${c_none[@]}" | median)
	hn=$(echo "${h_none[@]}" | median)
	echo
	echo "## cputestfs vs hello_ll (attr_timeout 0): stat() calls/s, median of $REPS x $DUR s"
	echo "## (cputestfs as shipped, i.e. --kstats auto; 'ks=off': the same with --kstats off)"
	echo
	printf '%-14s %10s %10s %10s %10s %8s %8s %8s  %s\n' placement cputestfs ks=off hello_ll pipe \
		"c/hello" "c/pipe" "off/hel" "verdict c/hello, c/pipe"
	printf '%-14s %10.0f %10.0f %10.0f %10.0f %8s %8s %8s  %s\n' "same (cpu $cpu)" "$cs" "$ks" "$hs" "$ps" \
		"$(ratio "$cs" "$hs")" "$(ratio "$cs" "$ps")" "$(ratio "$ks" "$hs")" \
		"$(verdict "$(ratio "$cs" "$hs")" 1.0), $(verdict "$(ratio "$cs" "$ps")" 0.7)"
	printf '%-14s %10.0f %10.0f %10.0f %10s %8s %8s %8s  %s\n' none "$cn" "$kn" "$hn" - \
		"$(ratio "$cn" "$hn")" - "$(ratio "$kn" "$hn")" "(no target)"
	echo "targets (same CPU): c/hello >= 1.00, c/pipe >= 0.70"
}

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
			count=$(awk -v s="$DD_SECS" -v c="$count" -v d="$DUR" 'BEGIN { n = int(1.1 * c * d / s); print n < 2 * c ? 2 * c : n }')
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
	timeout $((4 * ${DUR%.*} + 60)) "$BIN/ddpar" --dd --procs "$1" --mode both --bs $BS --daemon multi \
		--clone-fd off "${@:2}" --format csv --duration "$DUR" --repeat 1 --quiet \
		>"$WORK/d.csv" 2>"$WORK/d.err" || { cat "$WORK/d.err" >&2; die "bin/ddpar --dd --procs $1 failed"; }
	VAL_W=$(csv_value "$WORK/d.csv" write_MB_per_s)
	VAL_R=$(csv_value "$WORK/d.csv" read_MB_per_s)
	if [ -z "$VAL_W" ] || [ -z "$VAL_R" ]; then die "no write/read_MB_per_s from bin/ddpar --procs $*"; fi
}

check_ddpar() {
	echo "speedcheck: ddpar --dd vs null (direct_io), N = $DD_PROCS, ${REPS} x ${DUR} s interleaved..." >&2
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
	echo "## ddpar --dd vs null (direct_io): MB/s (10^6 B/s), bs $BS, daemon multi, clone_fd off, median of $REPS x $DUR s"
	echo "## (ddpar as shipped, i.e. --kstats auto; 'ks=off': the same with --kstats off)"
	echo
	printf '%3s %9s %9s %9s %6s %6s   %9s %9s %9s %6s %6s  %s\n' N "ddpar wr" "ks=off" "null wr" "ratio" "off/n" \
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
		printf '%3s %9.1f %9.1f %9.1f %6s %6s   %9.1f %9.1f %9.1f %6s %6s  %s\n' "$n" "$mdw" "$mkw" "$mnw" "$rw" \
			"$(ratio "$mkw" "$mnw")" "$mdr" "$mkr" "$mnr" "$rr" "$(ratio "$mkr" "$mnr")" \
			"$(verdict "$rw" 1.0), $(verdict "$rr" 1.0)"
	done
	echo "target: ddpar/null >= 1.00 for writes and reads at each N"
}

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
	timeout $((${DUR%.*} + 60)) fio --name=speedcheck --filename="$2" --rw=randread --bs=4k --size=$SPAN \
		--direct=1 --ioengine=psync --numjobs=1 --cpus_allowed="$1" --norandommap --randrepeat=0 \
		--time_based --runtime="${DUR}s" --ramp_time="$ramp" --output-format=terse --terse-version=3 \
		>"$WORK/f.out" 2>"$WORK/f.err" || { cat "$WORK/f.err" >&2; die "fio failed"; }
	VAL=$(awk -F';' '{ printf "%.3f", $8 / 1000; exit }' "$WORK/f.out")
	[ -n "$VAL" ] || die "no read IOPS in fio's output"
}

check_sqrtio() {
	echo "speedcheck: sqrtio vs fio (4 KiB O_DIRECT randread, psync, 1 reader), ${REPS} x ${DUR} s interleaved..." >&2
	# Not /tmp (often tmpfs): the file must sit on a block device.
	DATA_DIR=$(mktemp -d "${SPEEDCHECK_DATA_DIR:-/var/tmp}/speedcheck-data.XXXXXX") || die "cannot make a data directory"
	local file=$DATA_DIR/file disc disk rq
	dd if=/dev/urandom of="$file" bs=1M count=64 conv=fsync status=none || die "cannot write $file"
	disc=$("$BIN/sqrtio" --discover --file "$file" 2>"$WORK/s.err") ||
		{ cat "$WORK/s.err" >&2; skip "sqrtio cannot use $file (set SPEEDCHECK_DATA_DIR to a disk-backed directory)"; }
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
	echo "## sqrtio vs fio: K 4 KiB O_DIRECT random reads/s, psync, span $((SPAN >> 20)) MiB, disk $disk, rq_affinity $rq, median of $REPS x $DUR s"
	echo
	printf '%-18s %12s %12s %8s  %s\n' reader "sqrtio" "fio" "ratio" verdict
	local ms mf rt
	for l in 1 0; do
		ms=$(echo "${sv[$l]}" | median)
		mf=$(echo "${fv[$l]}" | median)
		rt=$(ratio "$ms" "$mf")
		printf '%-18s %12.2f %12.2f %8s  %s\n' "$([ "$l" = 1 ] && echo "on IRQ cpu" || echo "off IRQ cpu") (${cpus[$l]})" \
			"$ms" "$mf" "$rt" "$(verdict "$rt" 0.95)"
	done
	echo "target: sqrtio/fio >= 0.95"
}

# ---- main ---------------------------------------------------------------

# Both columns share the machine with whatever else runs: say how busy it was.
load_note() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "# speedcheck $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n) $(uname -r), $(nproc) CPUs, libfuse $(pkg-config --modversion fuse3), $(load_note)"
if awk '{ exit !($1 > 0.5) }' /proc/loadavg; then
	echo "# warning: the machine is busy before we start: other processes share these CPUs and"
	echo "# land unevenly in the columns; per-repetition figures are on stderr; rerun when idle"
fi
case $what in
cputestfs) check_cputestfs ;;
ddpar) check_ddpar ;;
sqrtio) check_sqrtio ;;
all)
	check_cputestfs
	check_ddpar
	check_sqrtio
	;;
esac
echo
echo "# done, $(load_note)"
