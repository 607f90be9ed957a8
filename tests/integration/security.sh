#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Safe as root: results from elsewhere, names in /tmp and absurd inputs never
# harm the machine.
#  - raw.csv rows crafted to run commands through gnuplot (a quote then
#    '<touch FILE', system(...)) in every text field, a NUL byte, a line over
#    4096 bytes: each reported with file:line and skipped, nothing created,
#    the rest still plotted; a quoted directory name given to compare likewise;
#  - another user's FUSE mount under affbench's name is left mounted;
#  - a 32^7 plan and --duration 1e-9 are refused (exit 2);
#  - a full disk under the run directory: exit 1, raw.csv valid;
#  - --resume with a torn or a missing runs.csv: exit 2, raw.csv untouched;
#  - a benchmark stuck in the kernel past SIGKILL is given up, the sweep goes on;
#  - a symlink planted at a pidfile is replaced, never written through;
#  - an installed build ignores the test-only environment hooks (a fault's, a
#    fake benchmark's).
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
TOOLS=$TOP/${AFFBENCH_BUILD:-build}/tests/tools
D=$(mktemp -d "$AFFBENCH_WORKDIR/security.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
FULL=$D/full
cleanup() {
	mountpoint -q "$FULL" 2>/dev/null && umount -l "$FULL"
	[ -n "${FOREIGN_MNT:-}" ] && fusermount3 -u -z "$FOREIGN_MNT" 2>/dev/null
	[ -n "${FUSE_MODE:-}" ] && chmod "$FUSE_MODE" /dev/fuse
	if [ -s "$D/stuck.pids" ]; then
		read -r dp hp <"$D/stuck.pids"
		kill -KILL "$dp" "$hp" 2>/dev/null
	fi
	[ -n "${WD_FOREIGN:-}" ] && rm -rf "$WD_FOREIGN"
	rm -rf "$D"
}
trap cleanup EXIT

# A benchmark honouring the CSV contract, so the harness has something to run.
cat >"$D/okbench" <<'EOF'
#!/bin/bash
n=2
while [ $# -gt 0 ]; do case $1 in --n) n=$2; shift ;; esac; shift; done
echo "bench,config,rep,metric,value,unit"
for i in $(seq 1 "$n"); do echo "okbench,k=$i,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"; done
EOF
chmod +x "$D/okbench"
plan() { # FILE BLOCK-LINES...
	local f=$1; shift
	printf 'repeat 1\nbench okbench\nduration 0.1\ntimeout 30\n' >"$f"
	printf '%s\n' "$@" >>"$f"
}

# ---- 1. crafted raw.csv ----
# Real rows of every benchmark (so every plot is drawn), then rows crafted to break out.
R=$D/crafted
mkdir -p "$R"
REF=$TOP/results/reference/raw.csv
if [ -f "$REF" ]; then head -n 400 "$REF" \
	>"$R/raw.csv"; else echo "bench,config,rep,metric,value,unit" >"$R/raw.csv"; fi
for i in 1 2 3; do
	echo "cputestfs,baseline=fuse;daemon=single;placement=none,$i,stat_per_s,$((30000 + i)),1/s"
done >>"$R/raw.csv"
# relative: gnuplot runs in a private directory whose every file is moved into the run directory
PW=pwned
{
	echo "cputestfs,\"baseline=fuse;daemon=single;placement=x';system('touch" \
		"$PW');'\",1,stat_per_s,5,1/s"
	echo "cputestfs,baseline=fuse;daemon=single;placement=none,1,system(\"touch $PW\"),5,1/s"
	echo "cputestfs,baseline=fuse;daemon=single;placement=none,1,stat_per_s,5,1/s' ; system('touch" \
		"$PW') ; '"
	echo "cpu'testfs,placement=none,1,stat_per_s,5,1/s"
	echo "cputestfs,placement=none,1;touch $PW,stat_per_s,5,1/s"
	echo "cputestfs,placement=none,1,stat_per_s,1e999,1/s"
	echo "cputestfs,placement=<touch $PW,1,stat_per_s,5,1/s"
	printf 'cputestfs,placement=none,1,stat_per_s,5,1/s\0touch\n'
	printf 'cputestfs,placement=none,1,stat_per_s,5,%05000d\n' 1
} >>"$R/raw.csv"
"$H" report "$R" >"$D/plot.out" 2>"$D/plot.err"
rc=$?
check "plot of a crafted raw.csv exits 0 (rc $rc)" [ "$rc" = 0 ]
check "nothing created by the crafted rows" eval '[ -z "$(find "$D" -name "$PW*")" ]'
nbad=$(grep -c 'skipped a bad row' "$D/plot.err")
check "each of the 9 bad rows reported once with file:line ($nbad)" \
	eval '[ "$nbad" = 9 ] &&
		grep -q "raw.csv:[0-9]*: skipped a bad row: it holds a NUL byte" "$D/plot.err"'
check "the long line is one bad row, not split into more" grep -q 'unit is not' "$D/plot.err"
check "the good rows still load and plot" \
	eval 'grep -q "^cputestfs," "$R/summary.csv" && [ -s "$R/figures/cputestfs.png" ]'
check "no .gp file holds text from a bad row" bash -c "! grep -l 'touch' '$R'/figures/src/*.gp"
# compare with a directory whose name is itself an attack
Q="$D/it's a \"dir\" <touch $PW; \$(touch ${PW}2)"
cp -r "$R" "$Q"
"$H" compare --out "$D/cmp" "$R" "$Q" >/dev/null 2>"$D/cmp.err"
rc=$?
check "compare with a quoted directory name exits 0 (rc $rc)" [ "$rc" = 0 ]
check "compare created nothing from the name" eval '[ -z "$(find "$D" -name "$PW*")" ]'
check "compare still drew its plots" bash -c "ls '$D/cmp'/figures/*.png >/dev/null 2>&1"

# ---- 2. another user's FUSE mount under affbench's name ----
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v fusermount3 >/dev/null &&
	[ -x "$TOOLS/userfs" ] && id nobody >/dev/null 2>&1; then
	W=$(mktemp -d /tmp/affbench-security.XXXXXX)	# nobody must reach it: not under 0700 dirs
	chmod 1777 "$W"
	WD_FOREIGN=$W
	FOREIGN_MNT="$W/affbench-mnt-999999-AbCdEf"
	mkdir "$FOREIGN_MNT"
	chown nobody "$FOREIGN_MNT"
	FUSE_MODE=$(stat -c %a /dev/fuse)
	chmod 666 /dev/fuse	# so nobody can mount; put back right after
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOOLS/userfs" "$FOREIGN_MNT" \
		-o fsname=affbench-cputestfs,subtype=cputestfs >"$D/userfs.out" 2>&1
	chmod "$FUSE_MODE" /dev/fuse
	if grep -qF " $FOREIGN_MNT " /proc/mounts; then
		"$H" restore --workdir "$W" --journal "$D/j" >"$D/restore.out" 2>&1
		check "restore left nobody's mount mounted" grep -qF " $FOREIGN_MNT " /proc/mounts
		check "restore said why, in one line" \
			eval '[ "$(grep -c "left alone $FOREIGN_MNT" "$D/restore.out")" = 1 ]'
		AFFBENCH_WORKDIR=$W "$BIN/cputestfs" --placement same --duration 0.1 --repeat 1 \
			--kstats off >/dev/null 2>"$D/cfs.err"
		check "a cputestfs start left it mounted too" grep -qF " $FOREIGN_MNT " /proc/mounts
		fusermount3 -u -z "$FOREIGN_MNT"
		FOREIGN_MNT=
	else
		skip "another user's mount" "userfs did not mount: $(tail -n1 "$D/userfs.out")"
	fi
else
	skip "another user's mount" "needs root, setpriv, fusermount3 and user nobody"
fi

# ---- 3. limits ----
python_free_plan() { # 7 axes of 32 values
	printf 'repeat 1\nbench okbench\n'
	for a in 1 2 3 4 5 6 7; do printf 'axis a%s' "$a"; seq -f ' v%g' 1 32 | tr -d '\n'; echo; done
}
python_free_plan >"$D/big.plan"
expect_rc "a 32^7 plan is refused" 2 "$H" run --plan "$D/big.plan" --dry-run
for b in cputestfs ddpar sqrtio fdget cpupair; do
	[ -x "$BIN/$b" ] && expect_rc "$b --duration 1e-9 is refused" 2 "$BIN/$b" --duration 1e-9
done
expect_rc "ddpar --duration 1e-9 --procs 1 is refused" 2 "$BIN/ddpar" --duration 1e-9 --procs 1

# ---- 4. a full disk under the run directory ----
mkdir "$FULL"
if mount -t tmpfs -o size=96k tmpfs "$FULL" 2>/dev/null; then
	plan "$D/f.plan" "axis n 400 401 402 403 404 405 406 407 408 409"
	"$H" run --plan "$D/f.plan" --out "$FULL/run" >/dev/null 2>"$D/full.err"
	rc=$?
	check "a full disk fails the run (exit $rc, want 1)" [ "$rc" = 1 ]
	check "and says so" grep -q 'write in .* failed\|No space left' "$D/full.err"
	check "raw.csv stays valid: every line a whole record" \
		awk -F, 'NR == 1 { ok = $0 == "bench,config,rep,metric,value,unit" } NR > 1 && NF != 6 { ok = 0 }
			END { exit !(ok && NR > 1) }' "$FULL/run/raw.csv"
	check "raw.csv ends with a newline" \
		bash -c "[ \"\$(tail -c1 '$FULL/run/raw.csv' | od -An -c | tr -d ' ')\" = '\\n' ]"
	umount -l "$FULL"
else
	skip "a full disk" "cannot mount a tmpfs"
fi

# ---- 5. --resume against a torn or missing runs.csv ----
plan "$D/r.plan" "axis n 2 3"
"$H" run --plan "$D/r.plan" --out "$D/res" >/dev/null 2>&1
sum=$(md5sum <"$D/res/raw.csv")
printf 'okbench,1,1,o' >>"$D/res/runs.csv"
expect_rc "--resume with a torn runs.csv is refused" 2 "$H" run --resume "$D/res"
check "raw.csv untouched by the refused resume" [ "$(md5sum <"$D/res/raw.csv")" = "$sum" ]
rm "$D/res/runs.csv"
expect_rc "--resume with no runs.csv is refused" 2 "$H" run --resume "$D/res"
check "raw.csv untouched again" [ "$(md5sum <"$D/res/raw.csv")" = "$sum" ]

# ---- 6. a benchmark stuck in the kernel past SIGKILL ----
if [ "$(id -u)" = 0 ] && [ -x "$TOOLS/stuck" ] && [ -w /dev/fuse ]; then
	ln -s "$TOOLS/stuck" "$D/stuck"
	printf 'repeat 1\nbench stuck\nduration 0.1\ntimeout 1\nbench okbench\nduration 0.1\n' >"$D/s.plan"
	# the give-up waits are scaled by the machine's slowness (harness/run/invoke.c): so is this bound
	STUCK_PIDFILE=$D/stuck.pids timeout "$(scaled 120)" "$H" run --plan "$D/s.plan" --out "$D/st" \
		>/dev/null 2>"$D/st.err"
	rc=$?
	check "the sweep went on past the stuck benchmark (exit $rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || tail -5 "$D/st.err" | sed 's/^/# /'	# why, for the log
	check "the stuck point is a failure saying it was given up" grep -q 'given up' "$D/st/failures.csv"
	check "the next point ran" grep -q '^okbench,' "$D/st/raw.csv"
	read -r dp hp <"$D/stuck.pids"
	kill -KILL "$dp" "$hp" 2>/dev/null	# frees the stuck writer: it dies of its SIGKILL
	# 20 s at most: a busy machine may take a while to end it
	wait_gone() { for _ in $(seq 200); do kill -0 "$1" 2>/dev/null ||
		return 0; sleep 0.1; done; return 1; }
	check "the stuck benchmark ends once its filesystem goes" wait_gone "$hp"
	kill -0 "$hp" 2>/dev/null || rm -f "$D/stuck.pids"	# gone: cleanup kills no recycled pid
	"$H" restore >/dev/null 2>&1
else
	skip "a benchmark stuck in the kernel" "needs root and /dev/fuse"
fi

# ---- 7. a symlink planted at the daemon pidfile ----
if [ "$(id -u)" = 0 ] && [ -w /dev/fuse ]; then
	echo "keep" >"$D/target"
	ln -s "$D/target" "$D/pidfile"
	AFFBENCH_DAEMON_PIDFILE=$D/pidfile "$BIN/cputestfs" --placement same --duration 0.1 --repeat 1 \
		--kstats off >/dev/null 2>&1
	check "the symlink's target was not written" [ "$(cat "$D/target")" = keep ]
	check "the pidfile is a regular file now" eval '[ -f "$D/pidfile" ] && [ ! -L "$D/pidfile" ]'
fi

# ---- 8. an installed build ignores test-only hooks ----
if make -s -C "$TOP" install DESTDIR="$D/inst" PREFIX=/usr >"$D/install.out" 2>&1; then
	AFFBENCH_FUSE_DEV=/nonexistent "$BIN/ddpar" --procs 1 --mode write --clone-fd off --duration 0.1 \
		--repeat 1 --kstats off >/dev/null 2>&1
	rc_test=$?
	AFFBENCH_FUSE_DEV=/nonexistent "$D/inst/usr/bin/ddpar" --procs 1 --mode write --clone-fd off \
		--duration 0.1 --repeat 1 --kstats off >/dev/null 2>"$D/inst.err"
	rc_inst=$?
	check "test build skips on the hook ($rc_test), installed build ignores it ($rc_inst)" \
		eval '[ "$rc_test" = 4 ] && [ "$rc_inst" = 0 ]'
	# a fake benchmark's hook: an installed harness runs registered benchmarks only
	plan "$D/hook.plan" "axis n 1"
	AFFBENCH_TEST_PROGRAMS=$D "$D/inst/usr/bin/harness" run --plan "$D/hook.plan" --dry-run \
		>/dev/null 2>"$D/hook.err"
	rc_inst=$?
	check "an installed harness ignores AFFBENCH_TEST_PROGRAMS (exit $rc_inst: $(cat "$D/hook.err"))" \
		eval '[ "$rc_inst" = 2 ] && grep -q "unknown benchmark .okbench." "$D/hook.err"'
else
	nok "make install DESTDIR: $(tail -n2 "$D/install.out")"
fi

check "no FUSE mount left" no_fuse_left
t_done
