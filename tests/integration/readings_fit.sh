#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Readings that fit their data (issue 35), from crafted records (no FUSE, no BPF):
#   - ddpar's --uring-cpu reading explains queue's lead only where queue leads and
#     another choice is significantly slower, and speaks of a tail of slow reads only
#     where another choice's p99 is at least twice queue's, significantly;
#   - fdget's start-up cell carries the interval of the change it shows;
#   - details.md's "Beside a pipe" rows name the idle policy that tells them apart;
#   - a breakdown from fewer calls than the stated minimum (1000) is flagged in the
#     table and the sentences, one from enough calls is not. (~3 s)
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d "$AFFBENCH_WORKDIR/readings_fit.XXXXXX")
trap 'rm -rf "$W"' EXIT

# report DIR: harness report of DIR's raw.csv; 0 when it rendered report.md
report() { "$BIN/harness" report "$1" >/dev/null 2>"$1.err" && [ -s "$1/report.md" ]; }
# rendered DIR WHAT: check that report rendered DIR, with its stderr's start if not
rendered() {
	report "$1"
	check "$2: harness report renders ($(head -c 200 "$1.err"))" [ -s "$1/report.md" ]
}

# ---- ddpar: --uring-cpu ----
# uring_recs MB_QUEUE MB_NEXT MB_NONE P99_QUEUE P99_NEXT P99_NONE: 6 repetitions of one
# reader against libfuse at 1000 MB/s, each choice at its MB/s and p99 (us), +rep each;
# each choice's MB/s with a jitter of its own (0-6), so that no round moves all alike
# (a ratio pairs its points by round: a jitter they shared would divide out)
uring_recs() {
	local base="bs=131072;clone_fd=off;daemon=multi;mode=read;procs=1" rep c
	local -a mb=("$1" "$2" "$3") p99=("$4" "$5" "$6") cpu=(queue next none)
	echo "bench,config,rep,metric,value,unit"
	for rep in 1 2 3 4 5 6; do
		echo "ddpar,$base;transport=libfuse,$rep,read_MB_per_s,$((1000 + rep)),MB/s"
		for c in 0 1 2; do
			local cfg="$base;transport=uring;uring_cpu=${cpu[c]}"
			echo "ddpar,$cfg,$rep,read_MB_per_s,$((${mb[c]} + rep * (c + 2) % 7)),MB/s"
			echo "ddpar,$cfg,$rep,lat_p50_us,$((${p99[c]} / 2 + rep)),us"
			echo "ddpar,$cfg,$rep,lat_p99_us,$((${p99[c]} + rep)),us"
		done
	done
}
# one_reader DIR: report.md's --uring-cpu reading
one_reader() { grep '^One reader' "$1/report.md"; }

# every p99 62-69 us (the issue's second VM): queue leads, no tail to speak of
D=$W/flat
mkdir -p "$D"
uring_recs 2000 300 900 62 64 63 >"$D/raw.csv"
rendered "$D" "ddpar, p99 alike"
line=$(one_reader "$D")
check "ddpar, p99 alike: queue's lead explained, next and none significantly slower ($line)" \
	eval '[[ $line == *"best here: queue. On its queue'"'"'s CPU the ring thread"* ]]'
check "ddpar, p99 alike (62-67 us): no tail of slow reads ($line)" \
	eval '[[ $line != *"tail of slow reads"* ]]'

# next's p99 five times queue's: the tail is in the data
D=$W/tail
mkdir -p "$D"
uring_recs 2000 300 900 62 320 63 >"$D/raw.csv"
rendered "$D" "ddpar, a tail"
line=$(one_reader "$D")
check "ddpar, next's p99 5x queue's: a tail of slow reads ($line)" \
	eval '[[ $line == *"(a tail of slow reads when that CPU is idle or busy)"* ]]'

# queue does not lead: no reason given for a lead it does not have
D=$W/slowq
mkdir -p "$D"
uring_recs 900 2000 1500 62 320 300 >"$D/raw.csv"
rendered "$D" "ddpar, next leads"
line=$(one_reader "$D")
check "ddpar, next leads: best here: next ($line)" eval '[[ $line == *"best here: next."* ]]'
check "ddpar, next leads: no explanation of queue's lead, no tail ($line)" \
	eval '[[ $line != *"On its queue"* && $line != *"tail of slow"* ]]'

# queue leads, but within the noise: no lead to explain
D=$W/tie
mkdir -p "$D"
uring_recs 2000 1999 1998 62 320 300 >"$D/raw.csv"
rendered "$D" "ddpar, a tie"
line=$(one_reader "$D")
check "ddpar, next and none within the noise of queue: no explanation ($line)" \
	eval '[[ $line != *"On its queue"* ]]'

# ---- fdget: the start-up cell with its interval ----
D=$W/fdget
mkdir -p "$D"
{
	echo "bench,config,rep,metric,value,unit"
	for rep in 1 2 3 4 5 6; do
		echo "fdget,mode=single;op=spawn;threads=1,$rep,us_per_spawn,$((3375 + rep * 7)),us"
		echo "fdget,mode=idle-thread;op=spawn;threads=1,$rep,us_per_spawn,$((3642 - rep * 5)),us"
	done
} >"$D/raw.csv"
rendered "$D" "fdget"
row=$(grep '^| process start-up' "$D/report.md")
# the cell: "225 (3400 -> 3624 us, medians), 1.07x [1.06, 1.08] *"
CELL="\\| $NUM \\($NUM -> $NUM us, medians\\), ${NUM}x \\[$NUM, $NUM\\]( \\*)? \\|\$"
check "fdget: the start-up cell carries the change's 95% CI ($row)" grep -qE "$CELL" "$D/report.md"

# ---- cputestfs's breakdown: rows that tell apart, and too few calls flagged ----
# rec CONFIG CALLS SUBMIT DWAKE SERVICE RWAKE RETURN: one instrumented repetition's brk_*
# records (steps in ns) and the timed latency beside them
rec() {
	awk -v c="$1" -v calls="$2" -v s1="$3" -v s2="$4" -v s3="$5" -v s4="$6" -v s5="$7" 'BEGIN {
		t = s1 + s2 + s3 + s4 + s5; n = split("submit daemon_wake service reply_wake return", st, " ")
		split(s1 " " s2 " " s3 " " s4 " " s5, v, " ")
		printf "cputestfs,%s,1,brk_calls,%d,count\n", c, calls
		printf "cputestfs,%s,1,brk_call_ns,%g,ns\ncputestfs,%s,1,brk_call_p50_ns,%g,ns\n", c, t, c, t
		for (k = 1; k <= n; k++)
			printf "cputestfs,%s,1,brk_%s_share_pct,%g,%%\n", c, st[k], 100 * v[k] / t
		printf "cputestfs,%s,1,stat_per_s,%g,1/s\ncputestfs,%s,1,latency_p50_ns,%g,ns\n", c,
			1e9 / t, c, t
	}'
}
D=$W/pipe
mkdir -p "$D"
F="baseline=fuse;client_cpu=0;daemon=single;daemon_cpu=0"
{
	echo "bench,config,rep,metric,value,unit"
	rec "baseline=pipe;client_cpu=0;daemon_cpu=0;placement=same;transport=none" 5000 \
		900 1400 1000 1900 700
	rec "$F;placement=same;transport=libfuse" 5000 1500 1600 3600 2200 1200
	rec "$F;idle=poll;placement=same;transport=libfuse" 5000 1500 1500 3500 2100 1200
	rec "$F;placement=other;transport=libfuse" 5000 2100 32700 4400 27500 2000
	# one call behind it (the issue's n=1): flagged
	rec "$F;idle=poll;placement=other;transport=libfuse" 1 2000 4000 4400 3500 2000
} >"$D/raw.csv"
rendered "$D" "cputestfs breakdown"
rows=$(grep '^| FUSE libfuse' "$D/details.md" | tr '\n' ' ')
check "beside a pipe: the libfuse row as found, unlabelled ($rows)" \
	grep -qF '| FUSE libfuse | 10.1 | 10.1 |' "$D/details.md"
check "beside a pipe: the libfuse row with idle=poll says so ($rows)" \
	grep -qF '| FUSE libfuse, idle poll | 9.8 | 9.8 |' "$D/details.md"
check "beside a pipe: no row name twice ($rows)" \
	eval '[ -z "$(grep "^| " "$D/details.md" | cut -d"|" -f2 | sort | uniq -d)" ]'
check "beside a pipe: the sentence names idle=poll" grep -qF \
	'With `placement=same`, `transport=libfuse, idle=poll` took' "$D/details.md"
T=$D/tables.md
check "tables.md: the one-call breakdown's row flagged too few" \
	grep -qE '^\| fuse:other:libfuse:poll \| 1 \(1 call: too few\) \|' "$T"
check "tables.md: a breakdown of 5000 calls not flagged" \
	grep -qE '^\| fuse:other:libfuse:as-found \| 1 \|' "$T"
check "tables.md: the note states the minimum" grep -qF "fewer than 1000 calls behind the row" "$T"
check "details.md: the sentence comparing it says how few calls it rests on" grep -qF \
	'`placement=other, idle=poll`'"'"'s breakdown rests on 1 call, fewer than the 1000' \
	"$D/details.md"
n=$(grep -c "rests on" "$D/details.md")
check "details.md: only the one-call breakdown flagged ($n sentences)" \
	eval '[ "$n" = "$(grep -c "placement=other, idle=poll\`.s breakdown rests on" "$D/details.md")" ]'
t_done
