#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# contrib/lkp's lists of the benchmarks are the registry's: contrib/lkp/lists.sh,
# run into a scratch directory, makes meta.yaml and etc/index-perf*.yaml exactly as
# committed and no job (every benchmark of harness/registry.def has its job), and
# meta.yaml names every benchmark and its headline metrics. A registry with one
# benchmark more than the descriptors is refused. (~1 s)
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
DESCS=$TOP/${AFFBENCH_BUILD:-build}/tests/tools/descs
if [ ! -x "$DESCS" ]; then
	skip "contrib/lkp's lists" "no $DESCS (make ${AFFBENCH_BUILD:-build}/tests/tools/descs)"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/lkp_lists.XXXXXX")
contrib/lkp/lists.sh "$BIN" "$DESCS" "$W" 2>"$W.err"; rc=$?
check "lists.sh exits 0 (exit $rc: $(head -c 200 "$W.err"))" [ "$rc" = 0 ]
for f in programs/affbench/meta.yaml etc/index-perf-all.yaml etc/index-perf.yaml; do
	check "contrib/lkp/$f is what lists.sh makes from the registry (make lkp-lists)" \
		cmp -s "contrib/lkp/$f" "$W/$f"
done
new=$(cd "$W/jobs" && ls)
check "every benchmark has its job in contrib/lkp/jobs${new:+ (made: $new)}" [ -z "$new" ]
benches=$(sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p' harness/registry.def)
for b in $benches; do
	check "meta.yaml: $b is a value of bench" \
		grep -qE "^  bench: run one benchmark alone \(.*\b$b\b" contrib/lkp/programs/affbench/meta.yaml
	h=$("$DESCS" | awk -F'\t' -v b="$b" '$1 == b && $5 == "headline" { print $2; exit }')
	check "meta.yaml: $b's headline metric ${h:-(none)} is a result" \
		grep -qF "  affbench.$b.CONFIG.$h: " contrib/lkp/programs/affbench/meta.yaml
done
# the descriptors are the registry's: a benchmark they lack is refused, not left out
sed 's/^AB_BENCH(cputestfs)$/&\nAB_BENCH(nosuchbench)/' harness/registry.def >"$W/registry.def"
mkdir "$W/x"
AFFBENCH_REGISTRY=$W/registry.def expect_rc "lists.sh with a benchmark no descriptor has" 2 \
	contrib/lkp/lists.sh "$BIN" "$DESCS" "$W/x"
t_done
