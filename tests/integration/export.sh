#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# results.json: every report writes one, `harness export DIR` writes it for older
# runs, and each validates against docs/results.schema.json. Medians agree with
# summary.csv, an interval is a 95% CI only from 6 repetitions (else min_max),
# failures and skips are listed, rows that break the grammar are counted, not kept.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/export.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$D	# a plan's unregistered "bench NAME" runs $D/NAME (test-only hook)
export AFFBENCH_JOURNAL=${AFFBENCH_JOURNAL:-$D/knobs.journal}
PY=/usr/bin/python3
V="$PY $TOP/tests/tools/validate_json.py $TOP/docs/results.schema.json"

if ! $PY -c 'import jsonschema' 2>/dev/null; then
	skip "results.json validation" "python3-jsonschema missing (apt-get install python3-jsonschema)"
	t_done
fi

# The committed runs, exported from copies.
for r in reference emulated/A emulated/B emulated/C; do
	[ -d "$TOP/results/$r" ] || continue
	c=$D/$(echo "$r" | tr / _)
	cp -a "$TOP/results/$r" "$c"
	rm -f "$c/results.json"
	"$H" export "$c" 2>/dev/null
	check "export results/$r: a results.json that validates" $V "$c/results.json"
done

# medians: every metric's median equals summary.csv's (to its 6 significant digits),
# summary.csv from a plot of another copy (the committed run keeps records only)
cp -a "$TOP/results/reference" "$D/reference_plot"
"$H" report "$D/reference_plot" >/dev/null 2>&1
check "reference: medians agree with summary.csv" $PY - "$D/reference/results.json" \
	"$D/reference_plot/summary.csv" <<'PYEOF'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
got = {}
for p in doc["points"]:
    cfg = ";".join(f"{k}={v}" for k, v in sorted(p["config"].items()))
    for m, s in p["metrics"].items():
        got[(p["bench"], cfg, m)] = s["median"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(got), (len(rows), len(got))
for r in rows:
    v, want = got[(r["bench"], r["config"], r["metric"])], float(r["median"])
    assert abs(v - want) <= 1e-5 * max(1.0, abs(want)), (r, v)
PYEOF

# A run writes it itself; 2 repetitions give min_max intervals, 6 give 95% CIs.
cat > "$D/fakebench" <<'FAKE'
#!/bin/bash
mode=ok
while [ $# -gt 0 ]; do case $1 in --mode) mode=$2; shift ;; esac; shift; done
case $mode in
fail) echo "fakebench: failed on purpose" >&2; exit 1 ;;
skip) echo "fakebench: skipped: no such hardware" >&2; exit 4 ;;
esac
echo "bench,config,rep,metric,value,unit"
echo "fakebench,mode=$mode,1,ops_per_s,$((1000 + RANDOM % 50)),1/s"
FAKE
chmod +x "$D/fakebench"
printf 'bench fakebench\nduration 0.1\ntimeout 5\naxis mode ok fail skip\n' > "$D/t.plan"
for n in 2 6; do
	(cd "$D" && "$H" run --plan t.plan --repeat $n --out "$D/run$n" >/dev/null 2>&1)
	check "a run with --repeat $n writes a results.json that validates" $V "$D/run$n/results.json"
done
kind() {
	$PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["points"][0]["metrics"]["ops_per_s"]
print(m["interval"]["kind"], m["n"])' "$1"
}
check "2 repetitions: the interval is min_max, not a CI ($(kind "$D/run2/results.json"))" \
	eval '[ "$(kind "$D/run2/results.json")" = "min_max 2" ]'
check "6 repetitions: the interval is the median's 95% CI ($(kind "$D/run6/results.json"))" \
	eval '[ "$(kind "$D/run6/results.json")" = "ci95_median 6" ]'
check "failed and skipped points are listed with their reasons" $PY -c '
import json, sys
f = json.load(open(sys.argv[1]))["failures"]
st = sorted({(x["config"]["mode"], x["status"], x["exit"]) for x in f})
assert st == [("fail", "failed", 1), ("skip", "skipped", 4)], st
assert all(x["reason"] for x in f)' "$D/run2/results.json"

# Hostile rows are counted and never reach the document.
cp -a "$D/run2" "$D/hostile"
printf '%s\n' 'fakebench,"mode=ok;x=$(touch /tmp/x)",1,ops_per_s,1,1/s' \
	'fakebench,mode=ok,1,ops_per_s,1e999,1/s' >> "$D/hostile/raw.csv"
"$H" export "$D/hostile" 2>/dev/null
check "hostile rows: counted in rejected_rows, the rest validates" eval \
	'$V "$D/hostile/results.json" &&
	 $PY -c "import json,sys; assert json.load(open(sys.argv[1]))[\"rejected_rows\"] == 2" \
		"$D/hostile/results.json" &&
	 ! grep -q touch "$D/hostile/results.json"'

# Points: one per (bench, config) in the order each first appears, its metrics in theirs,
# however the rows interleave; a metric under a second unit keeps its first.
mkdir -p "$D/points"
awk 'BEGIN { print "bench,config,rep,metric,value,unit"
	for (r = 1; r <= 2; r++) for (c = 5; c >= 1; c--) {
		printf "fakebench,mode=m%d,%d,ops_per_s,%d,1/s\n", c, r, 100 * c + r
		if (c % 2) printf "fakebench,mode=m%d,%d,lat_ns,%d,ns\n", c, r, 10 * c
		if (c == 3) printf "fakebench,mode=m3,%d,lat_ns,%d,us\n", r, 7 }
	print "other,mode=m1,1,ops_per_s,9,1/s" }' >"$D/points/raw.csv"
"$H" export "$D/points" 2>/dev/null
check "points in first-seen order, metrics in theirs, a second unit left out" $PY -c '
import json, sys
p = json.load(open(sys.argv[1]))["points"]
got = [(x["bench"], x["config"]["mode"], list(x["metrics"]),
        [(m["unit"], m["n"]) for m in x["metrics"].values()]) for x in p]
want = [("fakebench", "m%d" % c, ["ops_per_s"] + (["lat_ns"] if c % 2 else []),
         [("1/s", 2)] + ([("ns", 2)] if c % 2 else [])) for c in (5, 4, 3, 2, 1)]
want.append(("other", "m1", ["ops_per_s"], [("1/s", 1)]))
assert got == want, got' "$D/points/results.json"

expect_rc "export of a directory without raw.csv exits 2" 2 "$H" export "$D/nowhere"
expect_rc "export with no directory exits 2" 2 "$H" export
rm -rf "$D"
t_done
