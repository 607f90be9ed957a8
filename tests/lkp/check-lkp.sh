#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-lkp: affbench as an LKP test case in a real lkp-tests checkout
# ($LKP_SRC, copied to a temporary directory first, never changed): install
# it there (contrib/lkp/install.sh), `lkp split-job` the functional smoke job
# (cputestfs, placements same and none), `lkp run` both jobs (stats.json holds
# affbench keys with values > 0, no incomplete-run mark), and `lkp ncompare`
# the two placements (stat_per_s in the comparison), then the same job with another
# commit and `lkp ncompare -c commit` (how two kernels compare). TAP lines, then
# everything `lkp run` made under /lkp and /tmp/lkp-$USER is removed, and only
# that. `lkp install` is not run (it reaches the network and installs far
# more): only the Debian ruby packages split-job and run need are installed.
#   LKP_SRC=/path/to/lkp-tests tests/lkp/check-lkp.sh
# Without LKP_SRC, or not as root, one line says why and the exit is 0.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1

if [ -z "${LKP_SRC:-}" ]; then
	echo "check-lkp: skipped: LKP_SRC is not set (point it at an lkp-tests checkout)"
	exit 0
fi
if [ ! -x "$LKP_SRC/bin/lkp" ]; then
	echo "check-lkp: LKP_SRC='$LKP_SRC' is not an lkp-tests checkout (no bin/lkp)" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "check-lkp: skipped: lkp run needs root (it writes /lkp)"
	exit 0
fi

# The ruby packages lkp split-job and lkp run load, installed as scripts/deps.sh does.
RUBY_PKGS="ruby ruby-activesupport ruby-git ruby-term-ansicolor ruby-tty-command"
RUBY_PKGS="$RUBY_PKGS ruby-gnuplot ruby-colorize"
ruby_ok() {
	ruby -e 'require "active_support"; require "git"; require "term/ansicolor"
	         require "tty-command"; require "gnuplot"; require "colorize"' >/dev/null 2>&1
}
if ! ruby_ok; then
	export DEBIAN_FRONTEND=noninteractive
	echo "check-lkp: installing $RUBY_PKGS" >&2
	# shellcheck disable=SC2086 # a list of packages
	apt-get install -y -q --no-install-recommends $RUBY_PKGS >&2 ||
		{ apt-get update -q >&2; apt-get install -y -q --no-install-recommends $RUBY_PKGS >&2; }
	if ! ruby_ok; then
		echo "check-lkp: could not install the ruby packages lkp needs: apt-get install $RUBY_PKGS" >&2
		exit 4
	fi
fi

work=$(mktemp -d /tmp/affbench-check-lkp.XXXXXX)
# The harness's mounts and lib.sh's work directory stay in ours.
export AFFBENCH_WORKDIR=$work/wd
mkdir "$AFFBENCH_WORKDIR"
. "$TOP/tests/integration/lib.sh"
lkp=$work/lkp-tests
lkp_tmp=/tmp/lkp-$(id -un)
# What was there before: a path not in these lists is ours to remove.
[ -e /lkp ] && find /lkp -depth >"$work/lkp.before" 2>/dev/null
[ -e /lkp ] || : >"$work/lkp.before"
lkp_tmp_was=0
[ -e "$lkp_tmp" ] && lkp_tmp_was=1

# lkp_leftovers: what lkp run made that is still there.
lkp_leftovers() {
	[ -e /lkp ] && find /lkp -depth | grep -vxF -f "$work/lkp.before"
	[ "$lkp_tmp_was" = 0 ] && [ -e "$lkp_tmp" ] && echo "$lkp_tmp"
	return 0
}
# lkp's event helpers (bin/event/wakeup) daemonize and sleep an hour holding their
# FIFO: those started from our copy of the checkout are ours to end, by their ids.
lkp_helpers() {
	local p
	for p in /proc/[0-9]*; do
		case $(readlink "$p/exe" 2>/dev/null) in
		"$lkp"/bin/event/*) echo "${p#/proc/}" ;;
		esac
	done
}
remove_lkp_state() {
	[ -f "$work/lkp.before" ] || return 0
	local pids
	pids=$(lkp_helpers)
	# shellcheck disable=SC2086 # a list of process ids
	[ -n "$pids" ] && kill $pids 2>/dev/null
	if [ -e /lkp ]; then
		# Deepest first, so a directory is empty when we reach it; keep what was there.
		find /lkp -depth | grep -vxF -f "$work/lkp.before" | while IFS= read -r p; do
			if [ -d "$p" ] && [ ! -L "$p" ]; then rmdir "$p" 2>/dev/null; else rm -f "$p"; fi
		done
	fi
	[ "$lkp_tmp_was" = 0 ] && rm -rf "$lkp_tmp"
	return 0
}
trap 'remove_lkp_state; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

cp -R "$LKP_SRC" "$lkp" && chmod -R u+w "$lkp"
check "lkp-tests copied to a temporary directory" [ -x "$lkp/bin/lkp" ]
if contrib/lkp/install.sh "$lkp" >"$work/install.out" 2>&1 &&
	contrib/lkp/install.sh "$lkp" >>"$work/install.out" 2>&1; then
	ok "contrib/lkp/install.sh, twice"
else
	nok "contrib/lkp/install.sh: $(tail -1 "$work/install.out")"
fi
check "affbench registered once as a perf test case" \
	[ "$(grep -cx affbench "$lkp/etc/linux-perf-test-cases")" = 1 ]

# The host setup `lkp install` would do: the testbox's hosts/ file and the
# event helper (bin/event/wait is a link to wakeup; an export may flatten it).
box=affbench-check-$(tr -dc '[:lower:]' </dev/urandom | head -c 8)
printf 'nr_cpu: %s\nmemory: %sG\nhdd_partitions:\nssd_partitions:\nlocal_run: 1\n' \
	"$(nproc)" "$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1048576))" >"$lkp/hosts/$box"
if [ ! -x "$lkp/bin/event/wakeup" ]; then
	make -s -C "$lkp/bin/event" wakeup >/dev/null 2>&1
fi
[ -x "$lkp/bin/event/wait" ] || ln -sfn wakeup "$lkp/bin/event/wait"

export LKP_SRC=$lkp HOSTNAME=$box AFFBENCH_ROOT=$TOP
mkdir -p "$work/jobs" && cd "$work/jobs" || exit 1
"$lkp/bin/lkp" split-job -t "$box" "$lkp/jobs/affbench-smoke.yaml" >"$work/split.out" \
	2>"$work/split.err"
grep '=>' "$work/split.out" | sed 's/^/# /'
jobs=$(ls affbench-smoke-*.yaml 2>/dev/null)
check "lkp split-job: one job per placement ($(echo "$jobs" | tr '\n' ' '))" \
	[ "$(echo "$jobs" | grep -c -e '-same-' -e '-none-')" = 2 ]

# Every job file splits (LKP reads the parameters from run's "# - NAME" lines).
mkdir "$work/all" && (
	cd "$work/all" || exit 1
	for f in "$lkp"/jobs/affbench-*.yaml; do
		n=$("$lkp/bin/lkp" split-job -t "$box" "$f" 2>/dev/null | grep -c '=>')
		echo "${f##*/}: $n"
	done
) >"$work/all.out"
check "every affbench job file splits: $(tr '\n' ' ' <"$work/all.out")" \
	[ -z "$(grep ': 0$' "$work/all.out")" -a "$(grep -c . "$work/all.out")" -ge 7 ]

# LKP's own stats reader (sbin/dump-stat) takes every line parse writes, for the
# reference run and the hostile corpus: no warning, one JSON key per nonzero stat
# (dump-stat drops stats that are all zero).
bash "$TOP/tests/lkp/hostile.sh" >"$work/hostile.csv"
for input in "$TOP/results/reference/raw.csv" "$work/hostile.csv"; do
	"$lkp/programs/affbench/parse" <"$input" >"$work/in.stats"
	rm -f "$work/in.json" "$work/in.json.gz"	# the last input's, whichever it was
	RESULT_ROOT=$work "$lkp/sbin/dump-stat" affbench "$work/in.json" <"$work/in.stats" \
		>"$work/dump.out" 2>&1
	rc=$?
	want=$(grep -vc ': 0$' "$work/in.stats")
	# dump-stat gzips a large result (in.json.gz): read whichever it wrote
	got=$(ruby -rjson -rzlib -e 'f = ARGV[0]
		s = File.exist?(f) ? File.read(f) : Zlib::GzipReader.open(f + ".gz") { |z| z.read }
		puts JSON.parse(s).size' "$work/in.json" 2>/dev/null)
	check "dump-stat reads parse's stats of ${input##*/} (exit $rc, $got of $want keys, no warning)" \
		test "$rc" = 0 -a "${got:-x}" = "$want" -a ! -s "$work/dump.out"
done

for job in $jobs; do
	place=$(echo "$job" | grep -o -e '-same-' -e '-none-' | tr -d -)
	start=$(date +%s)
	"$lkp/bin/lkp" run "$job" >"$work/run-$place.out" 2>&1
	rc=$?
	rt=$(readlink -f result)
	check "lkp run ($place): exit $rc, $(($(date +%s) - start)) s, result in ${rt:-nothing}" \
		test "$rc" = 0 -a -n "$rt" -a -f "$rt/stats.json"
	n=$(ruby -rjson -e 'j = JSON.parse(File.read(ARGV[0]))
		puts j.count { |k, v|
			k.start_with?("affbench.cputestfs.") && Array(v).all? { |x| x.is_a?(Numeric) && x > 0 } }
		warn j.select { |k, _| k =~ /stat_per_s/ }.map { |k, v| "#   #{k}: #{v}" }' "$rt/stats.json" \
			2>"$work/stat.txt")
	cat "$work/stat.txt"
	check "stats.json ($place): $n affbench.cputestfs stats > 0, stat_per_s among them" \
		test "${n:-0}" -gt 0 -a -n "$(grep stat_per_s "$work/stat.txt")"
	check "no incomplete-run mark ($place)" [ -z "$(grep -s is_incomplete_run "$rt/last_state")" ]
	rm -f result
done

"$lkp/bin/lkp" ncompare -s "testcase=affbench/tbox_group=$box" -c placement -a \
	>"$work/ncompare.out" 2>"$work/ncompare.err"
rc=$?
grep -e "placement" -e "^ *same" -e "^ *none" -e "%change" -e "affbench.cputestfs" \
	"$work/ncompare.out" | sed "s/^/# /"
check "lkp ncompare across the two placements exits 0 (exit $rc)" [ "$rc" = 0 ]
check "lkp ncompare across the two placements shows stat_per_s" \
	grep -q 'affbench\.cputestfs\.stat_per_s' "$work/ncompare.out"

# Two kernels, as far as one machine can go: the same job again with the job's
# commit set (LKP takes it over `uname -r`, which names a local run's kernel), then
# ncompare along commit, its default axis: a column per "kernel".
other=6.99.0-other	# short: ncompare cuts a wide column header
same=$(echo "$jobs" | grep -e '-same-')
sed "s/^testcase: affbench\$/&\ncommit: $other/" "$same" >other-commit.yaml
"$lkp/bin/lkp" run other-commit.yaml >"$work/run-other.out" 2>&1
rc=$?
check "lkp run with commit $other: exit $rc" [ "$rc" = 0 ]
rm -f result
"$lkp/bin/lkp" ncompare -s "testcase=affbench/tbox_group=$box/placement=same" -c commit -a \
	>"$work/ncompare-commit.out" 2>"$work/ncompare-commit.err"
rc=$?
grep -e "^ *$other" -e "^ *$(uname -r)" -e "%change" -e "affbench.cputestfs.stat_per_s" \
	"$work/ncompare-commit.out" | sed "s/^/# /"
check "lkp ncompare -c commit exits 0 (exit $rc)" [ "$rc" = 0 ]
check "lkp ncompare -c commit: a column per commit, stat_per_s" \
	eval 'grep -q "affbench\.cputestfs\.stat_per_s" "$work/ncompare-commit.out" &&
	      grep -qE "^ *$other +$(uname -r) *\$" "$work/ncompare-commit.out"'
cd "$TOP" || exit 1
remove_lkp_state
sleep 0.2
helpers=$(lkp_helpers | tr '\n' ' ')
check "no lkp event helper left running${helpers:+ (pids $helpers)}" [ -z "$helpers" ]
left=$(lkp_leftovers)
check "nothing lkp run made is left under /lkp or in $(
	)$lkp_tmp${left:+ (left: $(echo "$left" | tr "\n" " " | head -c 200))}" [ -z "$left" ]
t_done
