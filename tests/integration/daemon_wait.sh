#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 27: --daemon-wait block|spin:US|poll, how affbench's own servers (dev,
# uring) wait for requests, and server_cpu_us_per_req, their threads' CPU time
# per request:
#   - bad values and servers that cannot wait otherwise: exit 2, one line
#     naming the value (cputestfs and ddpar);
#   - each mode on dev and uring (uring skipped where the kernel lacks it):
#     stat/s and server_cpu_us_per_req > 0, daemon_wait in the config only
#     when not block;
#   - spin on one CPU for server and caller (taskset, placement same) is
#     measured, not refused: it still acts there (fsrv.h);
#   - poll never sleeps, yet the run ends within a bound, unmounts and leaves
#     no mount behind;
#   - the report's wait table shows each mode beside block, and the 2022 post
#     that had the server spin (lib/render/published.tsv) under it. (~10 s)
. "$(dirname "$0")/lib.sh"

W=$AFFBENCH_WORKDIR/daemon-wait.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
SHORT=(--duration 0.3 --repeat 1 --format csv --quiet --kstats off)

# ---- refusals: no machine needed ----
# refused RC ERR VALUE: exit 2 and one line that names the value
refused() { [ "$1" = 2 ] && [ "$(printf '%s\n' "$2" | grep -c .)" = 1 ] &&
	printf '%s' "$2" | grep -qF -- "'$3'"; }
for v in spin:0 spin:abc spin:1e9 spin: spin:-5 spin:1000001 spin:99999999999 "spin: 5" sleep; do
	for b in cputestfs ddpar; do
		err=$("$BIN/$b" --transport dev --daemon-wait "$v" --check-options 2>&1 >/dev/null)
		rc=$?
		check "$b --daemon-wait '$v': exit 2, one line naming the value (exit $rc: $err)" \
			refused "$rc" "$err" "$v"
	done
done
expect_rc "cputestfs --transport libfuse --daemon-wait poll is refused" 2 \
	"$BIN/cputestfs" --transport libfuse --daemon-wait poll --check-options
expect_rc "cputestfs --baseline pipe --daemon-wait spin:50 is refused" 2 \
	"$BIN/cputestfs" --baseline pipe --daemon-wait spin:50 --check-options
expect_rc "ddpar --transport libfuse --daemon-wait spin:50 is refused" 2 \
	"$BIN/ddpar" --daemon-wait spin:50 --check-options
expect_rc "ddpar --transport passthrough --daemon-wait poll is refused" 2 \
	"$BIN/ddpar" --transport passthrough --daemon-wait poll --check-options
for b in cputestfs ddpar; do
	"$BIN/$b" --transport dev --daemon-wait block --check-options >/dev/null 2>&1
	rc=$?
	check "$b --transport dev --daemon-wait block is taken (exit $rc)" [ "$rc" = 0 ]
	"$BIN/$b" --transport libfuse --daemon-wait block --check-options >/dev/null 2>&1
	rc=$?
	check "$b --transport libfuse --daemon-wait block (the default) is taken (exit $rc)" \
		[ "$rc" = 0 ]
done

if [ "$(id -u)" != 0 ] || [ ! -w /dev/fuse ]; then
	skip "daemon-wait runs" "needs root and /dev/fuse"
	t_done
fi

# One transport's verdict on this machine: "" when usable, else exit 4's line.
usable() { # ARGS...
	local err
	err=$("$BIN/cputestfs" "$@" --duration 0.05 --repeat 1 --format csv --quiet 2>&1 >/dev/null)
	[ $? = 4 ] && echo "${err:-exit 4}"
}
pos() { awk -v a="$1" 'BEGIN { exit !(a != "" && a + 0 > 0) }'; }

for t in dev uring; do
	why=$(usable --transport $t --placement other)
	if [ -n "$why" ]; then
		skip "--daemon-wait on --transport $t" "$why"
		continue
	fi
	for w in block spin:50 poll; do
		f=$W/c-$t-$w.csv
		# a bound, not a timing: a poll server that never ends is killed here and fails
		timeout -k 5 "$(scaled 40)" "$BIN/cputestfs" --transport $t --daemon-wait $w --placement other \
			"${SHORT[@]}" >"$f" 2>"$W/err"
		rc=$?
		sel="placement=other;transport=$t"
		s=$(csv_value "$f" "$sel" stat_per_s)
		c=$(csv_value "$f" "$sel" server_cpu_us_per_req)
		check "cputestfs $t $w: exit 0, stat/s and server CPU per request > 0 (exit $rc, $s, $c $(
			)us$(tail -n1 "$W/err" | sed 's/^/: /'))" \
			eval '[ "$rc" = 0 ] && pos "$s" && pos "$c"'
		if [ $w = block ]; then
			check "cputestfs $t block: no daemon_wait in the config" eval '! grep -q daemon_wait= "$f"'
		else
			check "cputestfs $t $w: daemon_wait=$w in every record's config" \
				eval '[ "$(grep -c "^cputestfs," "$f")" = "$(grep -c "daemon_wait=$w[;,]" "$f")" ]'
		fi
		check "cputestfs $t $w: no FUSE mount left" no_fuse_left
	done
	f=$W/d-$t.csv
	timeout -k 5 "$(scaled 40)" "$BIN/ddpar" --transport $t --daemon-wait poll --mode read --procs 1 \
		--daemon single "${SHORT[@]}" >"$f" 2>"$W/err"
	rc=$?
	m=$(csv_value "$f" "transport=$t" read_MB_per_s)
	c=$(csv_value "$f" "transport=$t" server_cpu_us_per_req)
	check "ddpar $t poll: exit 0, MB/s and server CPU per request > 0 (exit $rc, $m, $c $(
		)us$(tail -n1 "$W/err" | sed 's/^/: /'))" \
		eval '[ "$rc" = 0 ] && pos "$m" && pos "$c"'
	check "ddpar $t poll: no FUSE mount left" no_fuse_left
done

# One CPU for server and caller: spin still acts (it takes the caller's CPU and spares
# the server's sleep), so it is measured, never refused as inert.
ONE=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)
why=$(usable --transport dev --placement same)
if [ -z "$why" ]; then
	f=$W/one.csv
	timeout -k 5 "$(scaled 40)" taskset -c "$ONE" "$BIN/cputestfs" --transport dev \
		--daemon-wait spin:50 --placement same "${SHORT[@]}" >"$f" 2>"$W/err"
	rc=$?
	s=$(csv_value "$f" "placement=same;transport=dev" stat_per_s)
	check "taskset -c $ONE: dev spin:50 at placement same is measured (exit $rc, $s stat/s)" \
		eval '[ "$rc" = 0 ] && pos "$s"'
else
	skip "--daemon-wait spin:50 on one CPU" "$why"
fi

# The report puts each wait beside block with its CPU per request, from these records.
if [ -s "$W/c-dev-poll.csv" ]; then
	mkdir -p "$W/r"
	{ head -n 1 "$W/c-dev-block.csv"; grep -h '^cputestfs,' "$W"/c-dev-*.csv; } >"$W/r/raw.csv"
	"$BIN/harness" report "$W/r" >/dev/null 2>&1
	row=$(grep -E '^\| dev \| other \|' "$W/r/tables.md")
	check "report: the wait table's dev row has block, spin:50 and poll with CPU per request ($row)" \
		eval 'grep -qE "How affbench.s server waits" "$W/r/tables.md" &&
			[[ $row =~ ^\|\ dev\ \|\ other\ \|\ [0-9]+\ \([0-9.]+\ us\)\ \|\ $(
				)[0-9]+\ \([0-9.]+\ us,\ [0-9.]+x\ ?\*?\)\ \|\ [0-9]+\ \([0-9.]+\ us,\ [0-9.]+x ]]'
	check "report: the waits' figures, stat/s and CPU per request (cputestfs_wait*.gp)" \
		eval '[ -s "$W/r/figures/src/cputestfs_wait.gp" ] &&
			[ -s "$W/r/figures/src/cputestfs_wait_cpu.gp" ]'
	check "report: the 2022 post's spin, creates/s as posted, under the wait table" \
		grep -qF '5568 -> 8043 file creates/s (1.44x)' "$W/r/tables.md"
fi

# poll never sleeps: the daemon must still see the unmount and end by itself. A
# mountpoint of our own, so its processes can be looked for by that path afterwards.
mnt=$W/mnt
mkdir -p "$mnt"
timeout -k 5 "$(scaled 40)" "$BIN/cputestfs" --transport dev --daemon-wait poll --placement other \
	--mountpoint "$mnt" "${SHORT[@]}" >/dev/null 2>"$W/err"
rc=$?
check "cputestfs dev poll on --mountpoint: exit 0 within the bound (exit $(
	)$rc$(tail -n1 "$W/err" | sed 's/^/: /'))" \
	[ "$rc" = 0 ]
check "cputestfs dev poll: the mountpoint is no mount any more" \
	eval '! grep -qF " $mnt " /proc/mounts'
check "cputestfs dev poll: the mountpoint is left in place" test -d "$mnt"
t_done
