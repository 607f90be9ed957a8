# SPDX-License-Identifier: GPL-2.0
# speedcheck: clean-up and helpers every section uses (sourced by speedcheck.sh).

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

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
	else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" \
	'BEGIN { if (b + 0 > 0 && a != "nan") printf "%.2f", a / b; else print "nan" }'; }
verdict() { awk -v r="$1" -v t="$2" \
	'BEGIN { if (r == "nan") print "n/a"; else print (r + 0 >= t) ? "ok" : "SLOW" }'; }
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
		kill -0 "$DAEMON_PID" 2>/dev/null ||
			die "daemon '$*' exited before mounting: $(tail -3 "$WORK/daemon.log")"
		sleep 0.05
	done
	die "daemon '$*' did not mount $mnt within 5 s: $(tail -3 "$WORK/daemon.log")"
}

stop_daemon() {
	unmount "$1"
	wait "$DAEMON_PID" 2>/dev/null
}

