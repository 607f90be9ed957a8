#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness compare on the shapes of issue 24, at a small size (scripts/speedcheck.sh's
# scale section times them at the documented limits): what compare says must not
# change with the faster paths. machine.txt lists diffed through sorted lines (a
# reversed list is the same lines, a new line is named, an absent list of A's makes
# every line new); the config keys that vary found in one pass (a constant key left
# out, a key absent from some configs kept); a side past 10,000 values bootstrapped
# 10,000 at a time, and compare.md says so; a config matched across CPU numbers when each
# side holds one such.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/compare_scale.XXXXXX")
HDR='bench,config,rep,metric,value,unit'

# run NAME DIR...: compare into $D/o-NAME, stdout in $D/NAME.out; the exit status
run() { local n=$1; shift; "$H" compare --out "$D/o-$n" "$@" > "$D/$n.out" 2> "$D/$n.err"; }
# rows BENCH CONFIG-AWK-EXPR N VALUE-AWK-EXPR [REP-AWK-EXPR]: N rows, i from 0, rep i % 9 + 1
# (configs are written with their keys sorted, and no rep twice in a config: raw.csv's rules)
rows() { awk -v b="$1" -v n="$3" \
	"BEGIN { for (i = 0; i < n; i++) print b \",\" $2 \",\" ${5:-i % 9 + 1} \",m,\" $4 \",u\" }"; }

# machine lists: 2,000 knob lines; B the same reversed; C with one new line; D as B
for r in a b c d; do mkdir -p "$D/m$r"; printf '%s\nx,,1,m,1,u\n' "$HDR" > "$D/m$r/raw.csv"; done
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "knob before k%04d %d\n", i, i % 3 }' \
	> "$D/ma/machine.txt"
tac "$D/ma/machine.txt" > "$D/mb/machine.txt"
awk 'NR == 1000 { print "knob before zz 9"; next } { print }
	END { print "topology node0 0-1" }' "$D/ma/machine.txt" > "$D/mc/machine.txt"
cp "$D/mb/machine.txt" "$D/md/machine.txt"
run m "$D/ma" "$D/mb" "$D/mc" "$D/md"; rc=$?
check "2,000 knob lines, reversed and changed: compare exits 0 (got $rc)" [ "$rc" = 0 ]
md=$D/o-m/compare.md
check "the same lines reversed are another list, with no line A's lacks" \
	eval 'grep -qx -- "- knobs #2: 2000 lines" "$md"'
check "the changed list names its first line A's lacks" \
	eval 'grep -qx -- "- knobs #3: 2000 lines, the first not in #1.s: zz 9" "$md"'
check "a list A lacks: its first line is new" \
	eval 'grep -qx -- "- topology #2: 1 lines, the first not in #1.s: node0 0-1" "$md" &&
	      grep -qx -- "- topology #1: absent" "$md"'
check "runs B and D hold the same list: one code" \
	eval 'grep -qE "^\| B \| #1 \| #2 \|$" "$md" && grep -qE "^\| D \| #1 \| #2 \|$" "$md" &&
	      grep -qE "^\| C \| #2 \| #3 \|$" "$md"'

# the keys that vary: 300 configs sharing k=const; y's key p absent from its first config
mkdir -p "$D/k"
{ echo "$HDR"; rows x '"c=v" int(i / 9) ";k=const"' 2700 '100 + i % 5'
  rows y '(i < 9 ? "q=s" : "p=v" int(i / 9) ";q=s")' 36 1; } > "$D/k/raw.csv"
run k "$D/k" "$D/k"; rc=$?
check "300 configs with a constant key: exit $rc (want 0)" [ "$rc" = 0 ]
check "the terminal legend keeps the key that varies, not the constant one" \
	grep -qx "x configs: c" "$D/k.out"
check "a key absent from a config varies (absent is a value)" grep -qx "y configs: p" "$D/k.out"
check "compare.md's config cells name c alone" \
	eval 'grep -q "^| x | c=v299 | m |" "$D/o-k/compare.md" && ! grep -q "k=const" "$D/o-k/compare.md"'

# a side of 12,000 values: bootstrapped 10,000 at a time, said once in compare.md
mkdir -p "$D/ba" "$D/bb"
{ echo "$HDR"; rows x '""' 12000 '100 + i % 7' 'i + 1'; } > "$D/ba/raw.csv"
{ echo "$HDR"; rows x '""' 12000 '110 + i % 7' 'i + 1'; } > "$D/bb/raw.csv"
run b "$D/ba" "$D/bb"; rc=$?
check "12,000 values a side: exit $rc (want 0)" [ "$rc" = 0 ]
said="^1 ratios have a side of more than 10000 values: "
said+="their bootstrap resamples 10000 values a side"
check "compare.md says the bootstrap resampled 10,000 values a side" \
	grep -q "$said" "$D/o-b/compare.md"
check "the ratio 1.1, significant, its CI around it" \
	eval 'grep -qE "^x +- +m +B +103 +113 1\.1x \[1\.[01][0-9]*,1\.1[0-9]*\]\*" "$D/b.out"'
check "300 repetitions a side: no such sentence" \
	eval '! grep -q "more than 10000 values" "$D/o-k/compare.md"'

# CPU keys: a run whose one config has them matches the one without them (the one config
# a side that differs in CPU numbers only, harness/compare/match.c); two such configs in
# one run are two configs, neither matched to A's one (which would be "the same"?)
mkdir -p "$D/ca" "$D/cb" "$D/cc"
{ echo "$HDR"; rows x '"mode=a"' 18 '100 + i % 3' 'i + 1'; } > "$D/ca/raw.csv"
{ echo "$HDR"; rows x '"client_cpu=1;mode=a"' 18 '100 + i % 3' 'i + 1'; } > "$D/cb/raw.csv"
{ echo "$HDR"; rows x '"client_cpu=" (i % 2) ";mode=a"' 18 '100 + i % 3'; } > "$D/cc/raw.csv"
run c "$D/ca" "$D/cb"; rc=$?
check "a run with CPU keys against one without: exit $rc, one ratio judged, nothing unmatched" \
	eval '[ "$rc" = 0 ] && grep -q "^1 comparisons made" "$D/o-c/compare.md" &&
	      ! grep -q "^Not compared" "$D/o-c/compare.md"'
run c2 "$D/ca" "$D/cc"; rc=$?
check "two configs on CPUs 0 and 1 against one without CPU keys: none matched (exit $rc)" \
	eval '[ "$rc" = 0 ] && grep -q "^0 comparisons made" "$D/o-c2/compare.md" &&
	      grep -q "^Not compared: 1 results only in A" "$D/o-c2/compare.md"'

rm -rf "$D"
t_done
