#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Writes the hostile raw.csv corpus for contrib/lkp/programs/affbench/parse to
# stdout, deterministically (NUL and invalid bytes need printf, not a file in
# git). The first line is "#expect-rejected N": how many rows parse must count
# as rejected. Every hostile row names "evil" in a field that would reach a
# stat key, so "no output line mentions evil" proves none was emitted; the
# unit-changing rows repeat a good key with a value that would move its
# median (1e9) if it were taken. (A duplicate row refuses the whole input:
# tests/integration/lkp_parse.sh checks it apart.)
set -u
good='cputestfs,clients=1;placement=same,1,stat_per_s,100,1/s'
long=$(printf 'a%.0s' $(seq 1 5000))
hostile=(
	'cputestfs,"placement=evil,1,stat_per_s,5,1/s'          # unterminated quote
	'cputestfs,place"ment=evil,1,stat_per_s,5,1/s'          # quote in a bare field
	'cputestfs,"placement=evil"x,1,stat_per_s,5,1/s'        # text after a closing quote
	'cputestfs,placement=evil,b,1,stat_per_s,5,1/s'         # comma in an unquoted config
	'cputestfs,"cpus=0,1;evil=b;",1,stat_per_s,5,1/s'       # config ends in ';'
	'cputestfs,"cpus=0,1;evil key=1",1,stat_per_s,5,1/s'    # blank in a config key
	'cputestfs,evil=1;evil=2,1,stat_per_s,5,1/s'            # a config key twice
	'cputestfs,evil=a=b,1,stat_per_s,5,1/s'                 # '=' in a value
	'cputestfs,Evil=1,1,stat_per_s,5,1/s'                   # key not lower case
	"cputestfs,evil=$long,1,stat_per_s,5,1/s"               # huge config value
	"cputestfs,evil=1,1,stat_per_s$long$long$long,5,1/s"    # huge metric
	"cputestfs,evil=1,1,stat_per_s,5,1/s$long"              # huge unit
	'cputestfs,evil=2,1,stat_per_s,fast,1/s'                # non-numeric value
	'cputestfs,evil=3,1,stat_per_s,1e999,1/s'               # overflows to inf
	'cputestfs,evil=4,1,stat_per_s,-1e999,1/s'
	'cputestfs,evil=5,1,stat_per_s,nan,1/s'
	'cputestfs,evil=6,1,stat_per_s,inf,1/s'
	'cputestfs,evil=7,1,stat_per_s,0x10,1/s'                # hex: strtod takes it, we do not
	'cputestfs,evil=8,1,stat_per_s, 5,1/s'                  # blank in a value
	'cputestfs,evil=9,1,stat_per_s,,1/s'                    # empty value
	'cputestfs,evil=10,1,stat_per_s,1234567890123456789012345678901234567890.5,1/s'
	'cputestfs,evil=11,-1,stat_per_s,5,1/s'                 # negative rep
	'cputestfs,evil=12,1000001,stat_per_s,5,1/s'            # rep too large
	'cputestfs,evil=13,1.5,stat_per_s,5,1/s'
	'cputestfs,evil=14,1,stat.evil,5,1/s'                   # '.' would add a key level
	'cputestfs,evil=15,1,evil: 1,5,1/s'                     # ': ' would end the key
	'Evil,x=1,1,stat_per_s,5,1/s'                           # bench not lower case
	'evil.bench,x=1,1,stat_per_s,5,1/s'
	'cputestfs,evil=16,1,stat_per_s,5'                      # five fields
	'cputestfs,evil=17,1,stat_per_s,5,1/s,extra'            # seven fields
	'cputestfs,evil=18,1,stat_per_s,5,1 s'                  # blank in the unit
	'cputestfs,evil=19,1,stat_per_s,5,'                     # empty unit
	'evil: 1'                                               # a stats line
	'affbench.evil: 1'
	'cputestfs,placement=evil;clients=1,1,stat_per_s,5,1/s'  # config keys not sorted
	'cputestfs,clients=1;placement=same,4,stat_per_s,1e9,ops'  # another unit
	'cputestfs,clients=2;placement=evil,1,stat_per_s,1e9,ops'  # another unit, another config
)
printf '#expect-rejected %d\n' $((${#hostile[@]} + 3))
echo 'bench,config,rep,metric,value,unit'
echo "$good"
echo 'cputestfs,clients=1;placement=same,2,stat_per_s,200,1/s'
echo 'cputestfs,clients=1;placement=same,3,stat_per_s,150,1/s'
echo 'ddpar,"cpus=0-1,4;procs=4",1,write_MB_per_s,12.5,MB/s'   # a quoted config
printf 'ddpar,"cpus=0-1,4;procs=4",2,write_MB_per_s,13.5,MB/s\r\n'  # CRLF
printf '%s\n' "${hostile[@]}"
printf 'cputestfs,evil=20\0x,1,stat_per_s,5,1/s\n'              # NUL byte
printf 'cputestfs,evil=21\377\376,1,stat_per_s,5,1/s\n'         # invalid UTF-8
printf 'cputestfs,evil=22,1,stat_per_s,5\0,1/s\n'               # NUL in the value
echo '#skip Evil Bench'                                          # a bad note: ignored
echo '#skip sqrtio'
