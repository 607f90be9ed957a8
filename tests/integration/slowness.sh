#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The machine's slowness (sys/proc.h ab_slowness, which stretches timeouts): a process
# takes the figure its harness hands it in AFFBENCH_SLOWNESS rather than fork 20
# children to probe it, and probes when the figure is absent or not a number from 1 to
# 100; the harness hands its own probe to every benchmark it runs. Figures are compared
# as numbers; where a figure came from, by the tool's word for it.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
S=$TOP/${AFFBENCH_BUILD:-build}/tests/tools/slowness
D=$(mktemp -d "$AFFBENCH_WORKDIR/slowness-it.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}

unset AFFBENCH_SLOWNESS	# the harness's own figure, not one from the caller
src() { AFFBENCH_SLOWNESS=$1 "$S" --source; }
check "an inherited 3.5 is taken as it is" within "$(AFFBENCH_SLOWNESS=3.5 "$S")" 3.49 3.51
check "an inherited 3.5 is not probed" test "$(src 3.5)" = inherited
check "an inherited 100 is taken" within "$(AFFBENCH_SLOWNESS=100 "$S")" 99.9 100.1
check "0.5 (below 1) is probed instead" test "$(src 0.5)" = probed
check "250 (above 100) is probed instead" test "$(src 250)" = probed
check "42.42x (not a number) is probed, not read as 42.42" test "$(src 42.42x)" = probed
check "0x2 (not decimal) is probed" test "$(src 0x2)" = probed
check "an empty figure is probed" test "$(src '')" = probed
check "no figure: probed" test "$("$S" --source)" = probed
check "a probed figure is from 1 to 100" within "$(AFFBENCH_SLOWNESS=0.5 "$S")" 1 100
# The harness hands down its own probe, never a figure from its environment.
check "the harness's figure is its own probe" \
	test "$(AFFBENCH_SLOWNESS=3.5 "$S" --fresh)" = probed

# A benchmark the harness runs sees the harness's figure in its environment.
cat > "$D/envbench" <<'FAKE'
#!/bin/bash
echo "envbench-slowness ${AFFBENCH_SLOWNESS:-none}" >&2
echo "bench,config,rep,metric,value,unit"
echo "envbench,\"cpus=0\",1,ops_per_s,1000,1/s"
FAKE
chmod +x "$D/envbench"
printf 'repeat 1\nbench envbench\nduration 0.1\naxis cpus 0\n' > "$D/e.plan"
"$H" run --plan "$D/e.plan" --out "$D/r" > "$D/run.out" 2> "$D/run.err"
rc=$?
check "the run ends well (rc $rc)" test "$rc" = 0
got=$(sed -n 's/^envbench-slowness //p' "$D"/r/log/*.log 2>/dev/null | head -1)
check "the benchmark was handed a figure from 1 to 100 ($got)" within "${got:-none}" 1 100

rm -rf "$D"
t_done
