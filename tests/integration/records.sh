#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A record read back means one thing (docs/records.md, "Reading records from
# elsewhere"), and what we write from it is valid JSON:
# - a repetition written twice refuses raw.csv: plot, export, compare and the
#   gate exit 2 naming both lines (rep 0 may repeat), and plot writes nothing;
# - 0x10, " 7", 0X1P-2, inf, nan are bad rows, counted, never values;
# - a metric's second unit is a bad row naming the first unit's line;
# - machine.txt with ill-formed UTF-8 and a key twice, failures.csv reasons
#   with ill-formed UTF-8: results.json decodes as strict UTF-8, has no key
#   twice, and one stderr line says which machine.txt line was kept;
# - a run directory named results.json is read as a directory by compare.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/records.XXXXXX")
export AFFBENCH_PLOT_TEXT=1
PY=/usr/bin/python3
HDR=bench,config,rep,metric,value,unit

# strict_json FILE: strict UTF-8, no key twice in any object
strict_json() {
	$PY - "$1" <<'PYEOF'
import json, sys
def once(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "a key twice: %r" % keys
    return dict(pairs)
json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"), object_pairs_hook=once)
PYEOF
}

# rows DIR ROW...: DIR/raw.csv of the header and ROWs
rows() { local d=$1; shift; mkdir -p "$d"; printf '%s\n' "$HDR" "$@" > "$d/raw.csv"; }

# ---- 12: a repetition written twice ----
rows "$D/good" 'fakebench,mode=a,1,ops_per_s,10,1/s' 'fakebench,mode=a,2,ops_per_s,11,1/s' \
	'fakebench,mode=a,0,loop_ns,5,ns' 'fakebench,mode=a,0,loop_ns,5,ns'
rows "$D/twice" 'fakebench,mode=a,1,ops_per_s,10,1/s' 'fakebench,mode=a,2,ops_per_s,11,1/s' \
	'fakebench,mode=a,1,ops_per_s,10,1/s'
want='twice/raw.csv:4: ops_per_s rep 1 of fakebench again'
for cmd in plot export; do
	err=$("$H" $cmd "$D/twice" 2>&1 >/dev/null); rc=$?
	check "$cmd: a repetition written twice exits 2 naming both lines (exit $rc: $err)" \
		eval '[ $rc = 2 ] && [[ "$err" == *"$want"*"(line 2 has it)"* ]]'
done
check "plot of a refused raw.csv writes nothing there" \
	eval '[ "$(ls "$D/twice")" = raw.csv ]'
err=$("$H" compare --out "$D/c1" "$D/good" "$D/twice" 2>&1 >/dev/null); rc=$?
check "compare: exit 2 naming the line (exit $rc: $err)" \
	eval '[ $rc = 2 ] && [[ "$err" == *"$want"* ]]'
# the gate: rows for a benchmark it knows, six repetitions a side, each written twice
for r in $(seq 1 6); do echo "fdget,mode=a,$r,ns_per_op,10,ns"; done > "$D/six"
rows "$D/gbase" $(cat "$D/six")
rows "$D/gtwice" $(cat "$D/six" "$D/six")
printf 'fdget ns_per_op max-rise 5%%\n' > "$D/rules"
err=$("$H" compare --gate "$D/rules" --out "$D/c2" "$D/gbase" "$D/gtwice" 2>&1 >/dev/null); rc=$?
check "gate: exit 2, not a verdict (exit $rc: $err)" \
	eval '[ $rc = 2 ] && [[ "$err" == *"gtwice/raw.csv:8: ns_per_op rep 1 of fdget again"* ]]'
"$H" export "$D/good" 2>"$D/good.err"
rc=$?
check "rep 0 may repeat: export exits 0 (exit $rc)" [ "$rc" = 0 ]
check "rep 0 may repeat: nothing refused" grep -q '"rejected_rows":0' "$D/good/results.json"

# ---- 13: numbers in decimal only ----
rows "$D/hex" 'fakebench,mode=a,1,ops_per_s,0x10,1/s' 'fakebench,mode=a,2,ops_per_s, 7,1/s' \
	'fakebench,mode=a,3,ops_per_s,0X1P-2,1/s' 'fakebench,mode=a,4,ops_per_s,inf,1/s' \
	'fakebench,mode=a,5,ops_per_s,nan,1/s' 'fakebench,mode=a,6,ops_per_s,5,1/s' \
	'fakebench,mode=a, 7,ops_per_s,5,1/s' 'fakebench,mode=a,8,ops_per_s,6,1/s'
"$H" export "$D/hex" 2>"$D/hex.err"
check "0x10, ' 7', 0X1P-2, inf, nan, rep ' 7': bad rows, each with its line" \
	eval '[ "$(grep -c "hex/raw.csv:[2-8]: skipped a bad row" "$D/hex.err")" = 6 ]'
check "... and the median is of 5 and 6 alone" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["points"][0]["metrics"]["ops_per_s"]
assert (m["n"], m["median"], d["rejected_rows"]) == (2, 5.5, 6), (m, d["rejected_rows"])' \
	"$D/hex/results.json"

# ... and contrib/lkp's parse takes the same numbers: one value per config, and
# both readers keep the same configs with the same values
vals=(16 0x10 ' 7' 0X1P-2 inf nan 1e999 -Infinity 5. 5.e3 .5 +2.5 -.5e1 1e-400 007 '1 ' 5abc)
lines=(); for i in "${!vals[@]}"; do lines+=("fakebench,k=$i,1,v,${vals[$i]},1"); done
rows "$D/nums" "${lines[@]}"
"$H" export "$D/nums" 2>/dev/null
if command -v ruby >/dev/null 2>&1; then
	ruby "$(dirname "$0")/../../contrib/lkp/programs/affbench/parse" "$D/nums/raw.csv" \
		<"$D/nums/raw.csv" >"$D/nums.lkp"
	check "harness and lkp parse keep the same numbers" \
		$PY - "$D/nums/results.json" "$D/nums.lkp" <<'PYEOF'
import json, sys
h = {p["config"]["k"]: p["metrics"]["v"]["median"] for p in json.load(open(sys.argv[1]))["points"]}
l = {}
for line in open(sys.argv[2]):
    key, _, v = line.strip().partition(": ")
    if key.startswith("fakebench."):
        l[key.split(".")[1].split("=")[1]] = float(v)
assert h == l and set(h) == {"0", "10", "11", "12", "13", "14"}, (h, l)
PYEOF
else
	skip "harness and lkp parse keep the same numbers" "no ruby"
fi

# ---- one unit per metric ----
rows "$D/units" 'fakebench,mode=a,1,lat,10,ns' 'fakebench,mode=b,1,lat,10,us'
"$H" export "$D/units" 2>"$D/units.err"
check "a metric's second unit is a bad row naming the first's line" \
	grep -q 'units/raw.csv:3: skipped a bad row: lat of fakebench in us, but line 2 has it in ns' \
	"$D/units.err"

# ---- 14: JSON: valid UTF-8, each key once ----
rows "$D/utf" 'fakebench,mode=a,1,ops_per_s,10,1/s'
printf 'kernel         Linux 6.1\nhost           h\377\376ost\n' > "$D/utf/machine.txt"
printf 'kernel         Linux \303\050 6.2\n' >> "$D/utf/machine.txt"
printf 'knob before /sys/x = 1\nknob before /sys/x = 2\n\355\240\200x v\n' >> "$D/utf/machine.txt"
printf 'bench,config,rep,exit,reason\nfakebench,mode=b,1,1,bad \377\300\257 reason\n' \
	> "$D/utf/failures.csv"
"$H" export "$D/utf" 2>"$D/utf.err"
check "export: results.json is strict UTF-8 with each key once" strict_json "$D/utf/results.json"
check "... and one line says which 'kernel' it kept" \
	eval '[ "$(grep -c "machine.txt" "$D/utf.err")" = 1 ] &&
	grep -q "utf/machine.txt:3: .kernel. given again (line 1 has it): results.json keeps line 3" \
		"$D/utf.err"'
check "... the kept values, the bad bytes as U+FFFD" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["machine"]
assert m["facts"]["kernel"] == "Linux \ufffd( 6.2", m
assert m["facts"]["host"] == "h\ufffd\ufffdost", m
assert m["knobs_before"] == {"/sys/x": "2"}, m
assert d["failures"][0]["reason"] == "bad \ufffd\ufffd\ufffd reason", d["failures"]' \
	"$D/utf/results.json"
"$H" report "$D/utf" >/dev/null 2>&1
check "plot writes the same strict results.json" strict_json "$D/utf/results.json"

# ---- 15: a run directory named results.json ----
rows "$D/r/results.json" 'fakebench,mode=a,1,ops_per_s,100,1/s'
rows "$D/r" 'fakebench,mode=a,1,ops_per_s,200,1/s'
out=$("$H" compare --out "$D/c3" "$D/r/results.json" "$D/r" 2>/dev/null)
check "compare: a directory named results.json is a run of its own, not its parent" \
	eval '[[ "$out" == *"run A: $D/r/results.json"* ]] &&
		echo "$out" | grep -Eq "ops_per_s +B +100 +200 "'
"$H" export "$D/good" 2>/dev/null
check "compare: a results.json file still names its directory" \
	eval '"$H" compare --out "$D/c4" "$D/good/results.json" "$D/r/results.json" >/dev/null 2>&1'
t_done
