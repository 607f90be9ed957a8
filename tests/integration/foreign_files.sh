#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A results directory from elsewhere, as root: whatever is planted in it, the
# harness neither writes outside it nor hangs nor swells (lib/sys/outfile.h,
# lib/sys/infile.h, docs/records.md "Files from elsewhere").
#  - a symbolic link planted under every name plot and compare write (figures,
#    their .dat and .gp, report.md, tables.md, summary.csv, compare's outputs,
#    the temporary names, log/) pointing outside: nothing outside is created
#    or changed, and each name ends up a regular file of ours; figures/ or
#    figures/src/ a link, or not a directory: refused, nothing written there;
#  - raw.csv as a FIFO, a link to /dev/zero or /dev/urandom, a device node of
#    either: plot and compare end within seconds with exit 2 and one line,
#    in bounded memory; likewise a FIFO as machine.txt, failures.csv or
#    plan.plan, as runs.csv or plan.plan for --resume, as a --plan file, an
#    oversized file and an oversized line;
#  - --resume of a run whose machine.txt or log/ is a planted link: refused.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/foreign.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
trap 'rm -rf "$D"' EXIT
export AFFBENCH_PLOT_TEXT=1	# text plots: the same scripts and file names, drawn fast
export TMPDIR=$D/tmp		# the private plot directories: must all be gone at the end
mkdir -p "$TMPDIR"
REF=$TOP/results/reference
OUT=$D/outside	# where planted links point: must stay as it is
mkdir -p "$OUT"
echo keep >"$OUT/keep"
snapshot() { (cd "$OUT" && find . -printf '%p %s %T@\n' | sort | md5sum); }

# A small real run directory (every benchmark, so every figure is drawn).
base() { # DIR
	mkdir -p "$1"
	{ head -n1 "$REF/raw.csv"; for b in cputestfs ddpar sqrtio fdget; do grep "^$b," "$REF/raw.csv" |
		head -n 60; done; } >"$1/raw.csv"
}

# ---- 1. planted links under every name plot writes ----
base "$D/clean"
"$H" report "$D/clean" >/dev/null 2>"$D/clean.err"
rc=$?
# the first rows cut a breakdown short: a call without all its steps is no bar
check "a clean plot of the reference's first rows exits 0 (rc $rc$(head -c 200 "$D/clean.err"))" \
	[ "$rc" = 0 ]
names=$(cd "$D/clean" && find . -type f ! -name raw.csv | sed 's#^\./##' | sort)
check "a clean plot writes figures, data and scripts" \
	eval 'echo "$names" | grep -q "^figures/src/.*\.dat$" &&
		echo "$names" | grep -q "^figures/src/.*\.gp$" &&
	      echo "$names" | grep -q "^figures/[^/]*\.png" && echo "$names" | grep -q "^report.md$"'
P=$D/planted
base "$P"
mkdir "$P/log.real" "$P/figures" "$P/figures/src"
i=0
for n in $names report.md.tmp tables.md.tmp summary.csv.tmp; do
	# half the links name a file that does not exist (create), half one that does (overwrite)
	if [ $((i++ % 2)) = 0 ]; then ln -s "$OUT/${n//\//_}" "$P/$n"; else ln -s "$OUT/keep" "$P/$n"; fi
done
ln -s "$OUT" "$P/log"	# gnuplot's messages go to log/gnuplot.log when there is a log/
before=$(snapshot)
timeout 60 "$H" report "$P" >/dev/null 2>"$D/planted.err"
rc=$?
check "plot with links planted under every output name ends (exit $rc)" [ "$rc" -le 1 ]
check "nothing outside created or changed by plot" \
	eval '[ "$(snapshot)" = "$before" ] && [ "$(cat "$OUT/keep")" = keep ]'
notreg=$(for n in $names; do [ -f "$P/$n" ] && [ ! -L "$P/$n" ] || echo "$n"; done)
check "every output name is now a regular file of ours${notreg:+ (not: $notreg)}" [ -z "$notreg" ]
check "no temporary file left in the run directory" \
	eval '[ -z "$(find "$P" -name ".*.tmp*")" ]'

# figures/ or figures/src/ a link to elsewhere, or not a directory: refused, nothing written there
for how in figures-link src-link figures-file; do
	base "$D/$how"
	case $how in
	figures-link) ln -s "$OUT" "$D/$how/figures" ;;
	src-link) mkdir "$D/$how/figures" && ln -s "$OUT" "$D/$how/figures/src" ;;
	figures-file) echo x >"$D/$how/figures" ;;
	esac
	before=$(snapshot)
	timeout 60 "$H" report "$D/$how" >/dev/null 2>"$D/$how.err"
	rc=$?
	check "plot with $how fails (exit $rc) and says which directory" \
		eval '[ "$rc" = 1 ] && grep -q "cannot make .*/figures" "$D/$how.err"'
	check "... nothing outside created or changed, report.md written" \
		eval '[ "$(snapshot)" = "$before" ] && [ "$(cat "$OUT/keep")" = keep ] &&
			[ -f "$D/$how/report.md" ]'
done

# compare: the same, in its --out directory
"$H" compare --out "$D/cmpclean" "$D/clean" "$D/clean" >/dev/null 2>&1
cnames=$(cd "$D/cmpclean" && find . -type f | sed 's#^\./##' | sort)
check "a clean compare writes compare.md, compare.csv and overlays" \
	eval 'echo "$cnames" | grep -q compare.md && echo "$cnames" |
		grep -q "^figures/src/compare_.*\.gp"'
C=$D/cmpplanted
mkdir -p "$C/figures/src"
i=0
for n in $cnames compare.md.tmp compare.csv.tmp; do
	if [ $((i++ % 2)) = 0 ]; then ln -s "$OUT/${n//\//_}" "$C/$n"; else ln -s "$OUT/keep" "$C/$n"; fi
done
before=$(snapshot)
timeout 60 "$H" compare --out "$C" "$D/clean" "$D/clean" >/dev/null 2>"$D/cmpplanted.err"
rc=$?
check "compare into a directory of planted links ends (exit $rc)" \
	eval '[ "$rc" = 0 ] || [ "$rc" = 1 ]'
check "nothing outside created or changed by compare" \
	eval '[ "$(snapshot)" = "$before" ] && [ "$(cat "$OUT/keep")" = keep ]'
notreg=$(for n in $cnames; do [ -f "$C/$n" ] && [ ! -L "$C/$n" ] || echo "$n"; done)
check "every compare output is now a regular file${notreg:+ (not: $notreg)}" [ -z "$notreg" ]

# ---- 2. inputs that are not regular files, or too large ----
# Each must end within seconds (timeout 20), exit 2 with one line, in under 1 GiB of
# address space (a raw.csv read without bounds grew to 9.5 GB).
MEM_KB=1048576
bounded() { # CMD...: run it with a time and memory bound
	timeout 20 bash -c 'ulimit -v '$MEM_KB'; exec "$@"' bounded "$@"
}
refused() { # DESC DIR: plot and compare both refuse it
	expect_rc "plot: $1" 2 bounded "$H" report "$2"
	expect_rc "compare: $1" 2 bounded "$H" compare --out "$D/cmp-any" "$2" "$D/clean"
}
mkdir "$D/fifo" && mkfifo "$D/fifo/raw.csv"
refused "raw.csv a FIFO" "$D/fifo"
mkdir "$D/zero" && ln -s /dev/zero "$D/zero/raw.csv"
refused "raw.csv a link to /dev/zero" "$D/zero"
mkdir "$D/urandom" && ln -s /dev/urandom "$D/urandom/raw.csv"
refused "raw.csv a link to /dev/urandom" "$D/urandom"
if [ "$(id -u)" = 0 ] && mkdir "$D/znode" "$D/unode" &&
	mknod "$D/znode/raw.csv" c 1 5 2>/dev/null &&
	mknod "$D/unode/raw.csv" c 1 9 2>/dev/null; then
	refused "raw.csv a device node of /dev/zero" "$D/znode"
	refused "raw.csv a device node of /dev/urandom" "$D/unode"
else
	skip "raw.csv a device node" "needs root and mknod"
fi
mkdir "$D/huge" && truncate -s 65M "$D/huge/raw.csv"	# sparse: no disk needed
refused "raw.csv over the 64 MiB limit" "$D/huge"
mkdir "$D/longline"
{ head -n1 "$REF/raw.csv"; printf 'cputestfs,placement=%070000d,1,stat_per_s,5,1/s\n' \
	1; } >"$D/longline/raw.csv"
refused "a raw.csv line over the 64 KiB limit" "$D/longline"
for f in machine.txt failures.csv plan.plan; do
	base "$D/in-$f"
	mkfifo "$D/in-$f/$f"
	expect_rc "plot: $f a FIFO" 2 bounded "$H" report "$D/in-$f"
done
base "$D/bigmachine"
truncate -s 5M "$D/bigmachine/machine.txt"
expect_rc "plot: machine.txt over the 4 MiB limit" 2 bounded "$H" report "$D/bigmachine"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$D/rss" timeout 20 "$H" report "$D/zero" >/dev/null 2>&1
	rss=$(tail -n1 "$D/rss")
	check "plot of a raw.csv linked to /dev/zero stays small (max RSS $rss KB < 200 MB)" \
		eval '[ "${rss:-999999999}" -lt 204800 ]'
fi

# --resume reads runs.csv and plan.plan from the directory: a FIFO is refused, not waited on
cat >"$D/okbench" <<'EOF'
#!/bin/bash
echo "bench,config,rep,metric,value,unit"
echo "okbench,k=1,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
EOF
chmod +x "$D/okbench"
printf 'repeat 1\nbench okbench\nduration 0.1\ntimeout 30\naxis n 1 2\n' >"$D/ok.plan"
"$H" run --plan "$D/ok.plan" --out "$D/res" >/dev/null 2>&1
cp -r "$D/res" "$D/res-fifo"
rm "$D/res-fifo/runs.csv" && mkfifo "$D/res-fifo/runs.csv"
expect_rc "--resume with runs.csv a FIFO" 2 timeout 20 "$H" run --resume "$D/res-fifo"
cp -r "$D/res" "$D/res-pfifo"
rm "$D/res-pfifo/plan.plan" && mkfifo "$D/res-pfifo/plan.plan"
expect_rc "--resume with plan.plan a FIFO" 2 timeout 20 "$H" run --resume "$D/res-pfifo"
mkfifo "$D/plan-fifo"
expect_rc "--plan naming a FIFO" 2 timeout 20 "$H" run --plan "$D/plan-fifo" --dry-run

# ---- 3. --resume of a run whose machine.txt or log/ is a planted link ----
before=$(snapshot)
cp -r "$D/res" "$D/res-log"
rm -rf "$D/res-log/log" && ln -s "$OUT" "$D/res-log/log"
sed -i '$d' "$D/res-log/runs.csv"	# one point left to run
expect_rc "--resume with log/ a link to elsewhere is refused" \
	2 timeout 60 "$H" run --resume "$D/res-log"
cp -r "$D/res" "$D/res-machine"
rm "$D/res-machine/machine.txt" && ln -s "$OUT/keep" "$D/res-machine/machine.txt"
sed -i '$d' "$D/res-machine/runs.csv"
expect_rc "--resume with machine.txt a link is refused" \
	2 timeout 60 "$H" run --resume "$D/res-machine"
check "--resume wrote nothing through the planted links" \
	eval '[ "$(snapshot)" = "$before" ] && [ "$(cat "$OUT/keep")" = keep ]'

check "no private plot directory left" eval '[ -z "$(ls -A "$TMPDIR")" ]'
t_done
