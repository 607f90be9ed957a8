# SPDX-License-Identifier: GPL-2.0
# speedcheck section: cputestfs vs libfuse's hello_ll (sourced by speedcheck.sh).

# ---- 1. cputestfs vs hello_ll ------------------------------------------

# The measuring functions leave their result in VAL (or VAL_W/VAL_R) rather
# than print it: a $(...) subshell would hide a die() and the mounts it made.
cputestfs_run() { # ARGS...: VAL = stat_per_s of one repetition, config in $WORK/c.csv
	timeout $((${DUR%.*} + 60)) "$BIN/cputestfs" --format csv --duration "$DUR" --repeat 1 \
		--quiet "$@" \
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

# hello_ll with attr_timeout 0 in both places it sets it (lookup reply, getattr
# reply), so every stat() is a request, as in cputestfs; and the stat() client.
build_hello() {
	[ -x "$WORK/hello_ll" ] && [ -x "$WORK/statloop" ] && return 0
	build_example hello_ll 's/e\.attr_timeout = 1\.0;/e.attr_timeout = 0.0;/
		s/fuse_reply_attr(req, &stbuf, 1\.0);/fuse_reply_attr(req, \&stbuf, 0.0);/'
	[ "$(grep -c 'attr_timeout = 0.0\|fuse_reply_attr(req, &stbuf, 0.0)' "$WORK/hello_ll.c")" = 2 ] ||
		die "could not patch attr_timeout in hello_ll.c (did the example change?)"
	gcc -O2 -Wall -o "$WORK/statloop" "$REPO/scripts/statloop.c" ||
		die "cannot build scripts/statloop.c"
}

check_cputestfs() {
	echo "speedcheck: cputestfs vs hello_ll (attr_timeout 0), ${REPS} x ${DUR} s interleaved..." >&2
	build_hello

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
		echo "speedcheck:   rep $r: same: cputestfs ${c_same[-1]} (kstats off ${k_same[-1]}) hello_ll" \
			"${h_same[-1]}" \
			"pipe ${p_same[-1]}; none: cputestfs ${c_none[-1]} (kstats off ${k_none[-1]}) hello_ll" \
				"${h_none[-1]}" >&2
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
	printf '%-14s %10.0f %10.0f %10.0f %10.0f %8s %8s %8s  %s\n' "same (cpu $cpu)" "$cs" "$ks" "$hs" \
		"$ps" \
		"$(ratio "$cs" "$hs")" "$(ratio "$cs" "$ps")" "$(ratio "$ks" "$hs")" \
		"$(verdict "$(ratio "$cs" "$hs")" 1.0), $(verdict "$(ratio "$cs" "$ps")" 0.7)"
	printf '%-14s %10.0f %10.0f %10.0f %10s %8s %8s %8s  %s\n' none "$cn" "$kn" "$hn" - \
		"$(ratio "$cn" "$hn")" - "$(ratio "$kn" "$hn")" "(no target)"
	echo "targets (same CPU): c/hello >= 1.00, c/pipe >= 0.70"
}

