#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness compare --gate's filters: a key a record leaves out at its default holds that
# default (daemon_wait=block holds the configs without daemon_wait, as idle=as-found holds
# those without idle), and leaves out those at another value; a CPU key filters the
# configs on that CPU.
. "$(dirname "$0")/lib.sh"
H=$BIN/harness
D=$(mktemp -d "$AFFBENCH_WORKDIR/gate_filters.XXXXXX")
trap 'rm -rf "$D"' EXIT

mkdir "$D/a"
{ echo 'bench,config,rep,metric,value,unit'
  for r in 1 2 3 4 5 6; do
	for w in '' ';daemon_wait=poll'; do
		echo "cputestfs,client_cpu=0;daemon=single;daemon_cpu=1$w;placement=other;transport=dev,$(
			)$r,stat_per_s,$((90000 + r)),1/s"
	done
	echo "ddpar,clone_fd=off;mode=read;procs=1;transport=dev,$r,read_MB_per_s,$((900 + r)),MB/s"
  done; } > "$D/a/raw.csv"
printf '%s\n' 'cputestfs stat_per_s daemon_wait=block max-drop 5%' \
	'cputestfs stat_per_s daemon_wait=poll max-drop 5%' \
	'ddpar read_MB_per_s daemon_wait=block max-drop 5%' \
	'cputestfs stat_per_s client_cpu=0 max-drop 5%' > "$D/rules"
"$H" compare --out "$D/o" --gate "$D/rules" "$D/a" "$D/a" > "$D/out" 2> "$D/err"; rc=$?
check "daemon_wait=block, never written, is a filter that holds (exit $rc, want 0)" \
	eval '[ "$rc" = 0 ] && ! grep -q "no config" "$D/err"'
check "... the config without daemon_wait, not the daemon_wait=poll one" \
	grep -q "^gate: ok .*rules:1 .*: 1 config," "$D/out"
check "... and daemon_wait=poll the other one" grep -q "^gate: ok .*rules:2 .*: 1 config," "$D/out"
check "... for ddpar too" grep -q "^gate: ok .*rules:3 .*: 1 config," "$D/out"
check "client_cpu=0 holds both configs on CPU 0" \
	grep -q "^gate: ok .*rules:4 .*: 2 configs," "$D/out"
printf 'cputestfs stat_per_s daemon_wait=spin:5 max-drop 5%%\n' > "$D/none"
expect_rc "a filter no config holds still exits 2" 2 \
	"$H" compare --out "$D/o2" --gate "$D/none" "$D/a" "$D/a"
t_done
