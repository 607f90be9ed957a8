#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Messages that say the right thing: --help of every benchmark keeps its text in
# its own column within 79 characters, states the default of every option that
# takes a value, defines --duration in its own line alone and says what each
# --idle policy does and needs (as does every harness subcommand's the
# defaults); the harness counts points and
# repetitions with correct plurals and names log/ files by the point numbers
# runs.csv and --dry-run use; cputestfs warns when several clients on
# placement same share one daemon thread. (~5 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/wording.XXXXXX")
export AFFBENCH_TEST_PROGRAMS=$W	# a plan's unregistered "bench NAME" runs $W/NAME (test-only hook)

# no_default HELPFILE: the options taking a value whose help states no default. An option
# of the table ("  --name ARG   text", its text going on in the lines below) whose text
# never says "default"; an option of the usage line with no table line, where nothing
# reads "--name ARG (default".
no_default() {
	awk 'function done() { if (name != "" && text !~ /default/) print name; name = "" }
	/^  --[a-z][a-z0-9-]* [^ ]/ { done(); name = $1; text = $0; next }
	/^  --/ { done(); next }	# a flag: it has no value to default
	/^    / && name != "" { text = text " " $0; next }
	{ done() }
	END { done() }' "$1"
	sed -n '1,/^[^ u]/p' "$1" | grep -oE '\[--[a-z][a-z0-9-]* [^] []+' | sed 's/^\[//; s/ .*//' |
		sort -u | while read -r o; do
			grep -qE -- "^  $o( |\$)" "$1" ||
				tr -s ' \n' '  ' <"$1" | grep -qE -- "$o [^ ]+ \(default" || echo "$o"
		done
}

for b in cputestfs ddpar sqrtio fdget cpupair; do
	[ -x "$BIN/$b" ] || { skip "$b --help" "bin/$b not built"; continue; }
	"$BIN/$b" --help >"$W/$b.help"
	check "$b --help: no option line longer than 79 characters" \
		eval '[ "$(grep -E "^  " "$W/$b.help" | awk "length > 79" | wc -l)" = 0 ]'
	# an option line is "  --name ARG" alone, or with its text from column 32: never run together
	bad=$(grep -E "^  --" "$W/$b.help" | grep -vE '^  --[^ ]+( [^ ]+)?$' |
		awk '!(substr($0, 31, 1) == " " && substr($0, 32, 1) != " ")')
	check "$b --help: every option's text starts in its column${bad:+ (not: $bad)}" [ -z "$bad" ]
	nd=$(no_default "$W/$b.help" | tr '\n' ' ')
	check "$b --help: every option taking a value states its default${nd:+ (not: $nd)}" [ -z "$nd" ]
	# --duration is defined in its own line alone: what a window is, once
	check "$b --help: only --duration's own line speaks of --duration" \
		eval '[ "$(grep -c -- "--duration" "$W/$b.help")" = 1 ]'
	tr -s ' \n' '  ' <"$W/$b.help" >"$W/$b.flat"
	check "$b --help: --duration says what one window of it times" grep -qE -- \
		'--duration SEC seconds each window is timed, [0-9.]+\.\.86400: one (window|timing) per' \
		"$W/$b.flat"
	# --idle: each policy, what it does and what it needs
	miss=$(for p in "as found (the default)" "poll: a PM QoS limit of 0" \
		"max-latency:US: no idle state" "(both need a cpuidle driver)" \
		"haltpoll:NS: guest halt polling" "(needs the haltpoll driver)" \
		"busy: a SCHED_IDLE spinner" "(acts anywhere"; do
		grep -qF -- "$p" "$W/$b.flat" || printf ' "%s"' "$p"
	done)
	check "$b --help: --idle says what each policy does and needs${miss:+ (not:$miss)}" [ -z "$miss" ]
done
for sub in run report compare export restore; do
	"$BIN/harness" "$sub" --help >"$W/h-$sub.help"
	nd=$(no_default "$W/h-$sub.help" | tr '\n' ' ')
	check "harness $sub --help: every option taking a value states its default${nd:+ (not: $nd)}" \
		[ -z "$nd" ]
done
check "ddpar --help: --transport's choices on their own line" \
	grep -qE '^  --transport libfuse\|dev\|uring\|passthrough$' "$W/ddpar.help"

# a plan of one point, one repetition
cat >"$W/fakebench" <<'FAKE'
#!/bin/sh
echo "bench,config,rep,metric,value,unit"
echo "fakebench,mode=$2,1,ops_per_s,1000,1/s"
FAKE
sed -i 's/\$2/$(echo "$@" | sed "s\/.*--mode \/\/")/' "$W/fakebench"
chmod +x "$W/fakebench"
printf 'bench fakebench\nduration 0.1\ntimeout 5\naxis mode a\n' >"$W/one.plan"
printf 'bench fakebench\nduration 0.1\ntimeout 5\naxis mode a b c\n' >"$W/three.plan"
(cd "$W" && "$BIN/harness" run --plan one.plan --repeat 1 --dry-run >"$W/one.dry" 2>&1)
check "dry-run: 1 point x 1 repetition = 1 invocation" \
	grep -q ': 1 point x 1 repetition = 1 invocation$' "$W/one.dry"
(cd "$W" && "$BIN/harness" run --plan three.plan --repeat 2 --out "$W/run" >/dev/null \
	2>"$W/run.err")
check "run: 3 points x 2 repetitions" grep -q '3 points x 2 repetitions' "$W/run.err"
# every runs.csv row's log is log/BENCH-pPOINT-rREP.log
miss=$(tail -n +2 "$W/run/runs.csv" | while IFS=, read -r b p r _; do
	[ -f "$W/run/log/$b-p$p-r$r.log" ] || echo "$b-p$p-r$r"; done)
check "log/ files carry runs.csv's point and repetition numbers${miss:+ (missing: $miss)}" \
	eval '[ -z "$miss" ] && [ "$(ls "$W/run/log" | grep -c "^fakebench-p0-r1.log$")" = 1 ]'

if [ -x "$BIN/cputestfs" ]; then
	"$BIN/cputestfs" --clients 2 --placement same --daemon single --check-options 2>"$W/cl.err"
	check "cputestfs: 2 clients on same with one daemon thread: a warning" \
		grep -q 'warning: --placement same with 2 clients and --daemon single' "$W/cl.err"
	"$BIN/cputestfs" --clients 1 --placement same --daemon single --check-options 2>"$W/c1.err"
	check "cputestfs: one client: no warning" eval '! grep -q warning "$W/c1.err"'
fi
rm -rf "$W"
t_done
