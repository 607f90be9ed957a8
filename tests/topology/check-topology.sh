#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Emulated-topology check: boots QEMU TCG guests with many CPUs, runs every
# benchmark's placements, ddpar's process sweep, sqrtio's IRQ discovery on
# virtio disks, fdget and a short harness plan inside each, brings the run
# directories back and checks them against the guest's own sysfs, derived
# independently of the project's placement resolver.
#
#   tests/topology/check-topology.sh [--shapes "A B C matrix"] [--save DIR] [--keep]
#   tests/topology/check-topology.sh --selftest     the checker's self-test only (no guest, 2 min)
#   tests/topology/check-topology.sh --check DIR|PACK   check a result directory (or a saved
#                                            topology/result.pack) again, no guest
#
# Shapes (all and the matrix by default; SHAPES="A C" in the environment also picks):
#   A  16 CPUs: 2 sockets x 4 cores x 2 threads, 2 NUMA nodes
#   B  72 CPUs on 1 socket (36 cores x 2 threads), one node
#   C  shape A, the suite under taskset -c 2-5,9 and CPU 3 offline
#   matrix  the machine matrix: 2-CPU guests booted as users' machines are, each
#           running the short behaviour suite (facts, levers, idle share, warnings):
#           default cpuidle-off idle-poll idle-halt mitigations-off pti-on no-cache
#           (each is also a shape of its own name)
# --save DIR copies each shape's run directory to DIR/<shape> (e.g. results/emulated), its
# records only (results/README.md);
# --keep keeps the disk images under build/topology/<shape>/ (they are removed otherwise).
# Needs root to install what is missing from Debian (qemu-system-x86,
# busybox-static, e2fsprogs); the guest kernel is fetched with apt-get download
# and unpacked under build/topology/cache, never installed on this machine.
# Exit 0 when every check passed, 1 when one failed, 4 when something needed is missing.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."
TOP=$PWD
W=${TOPO_BUILD:-$TOP/build/topology}
SHAPES=${SHAPES:-A B C matrix}
# A hang guard per guest (boot to poweroff), above the 10-minute budget a shape is meant
# to fit: other work on a shared 2-CPU host stretches TCG guests by half or more.
SHAPE_TIMEOUT=${TOPO_SHAPE_TIMEOUT:-900}
# /init says "booted" 7 s into a 72-CPU guest's clock: 25 s of wall time on a quiet host,
# 60 s beside four busy loops, and the kernel prints all along. A boot whose console has
# been silent for 2 minutes is stalled (boot.sh): it is booted again. So is one that has
# not reached /init in 5 minutes, five times the loaded figure, however much it prints.
BOOT_STALL=${TOPO_BOOT_STALL:-120}
BOOT_LIMIT=${TOPO_BOOT_LIMIT:-300}
BOOT_TRIES=${TOPO_BOOT_TRIES:-3}
# shellcheck source=tests/topology/boot.sh
. "$HERE/boot.sh"
save= keep=0 mode=run check_dir=

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--shapes) SHAPES=$2; shift ;;
	--shapes=*) SHAPES=${1#*=} ;;
	--save) save=$2; shift ;;
	--save=*) save=${1#*=} ;;
	--keep) keep=1 ;;
	--selftest) mode=selftest ;;
	--check) mode=check; check_dir=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "check-topology: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
MATRIX="default cpuidle-off idle-poll idle-halt mitigations-off pti-on no-cache"
SHAPES=$(for s in $SHAPES; do [ "$s" = matrix ] && echo "$MATRIX" || echo "$s"; done)
for s in $SHAPES; do
	case " A B C $MATRIX " in
	*" $s "*) ;;
	*) echo "check-topology: unknown shape '$s' (A, B, C, matrix or one of: $MATRIX)" >&2; exit 2 ;;
	esac
done
for v in TOPO_SHAPE_TIMEOUT=$SHAPE_TIMEOUT TOPO_BOOT_STALL=$BOOT_STALL \
	TOPO_BOOT_LIMIT=$BOOT_LIMIT TOPO_BOOT_TRIES=$BOOT_TRIES; do
	case ${v#*=} in ''|*[!0-9]*|0*|???????*)	# 0*: none of 0, 00 or 010
		echo "check-topology: bad value '${v#*=}' for ${v%%=*}: expected a whole number" \
			"from 1 to 999999" >&2
		exit 2 ;;
	esac
done

say() { echo "check-topology: $*" >&2; }
die() { say "$*"; exit 1; }

if [ "$mode" = selftest ]; then
	exec sh "$HERE/selftest.sh"
fi
if [ "$mode" = check ]; then
	# A saved result.pack is unpacked first (results/emulated/<shape>/topology/result.pack).
	if [ -f "$check_dir" ]; then
		rm -rf "$W/unpacked"
		sh "$HERE/selftest.sh" --unpack "$check_dir" "$W/unpacked" || die "cannot unpack $check_dir"
		check_dir=$W/unpacked
	fi
	exec sh "$HERE/check-run.sh" "$check_dir"
fi

# ---- what the host needs -------------------------------------------------------------
apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	say "apt-get update"
	apt-get update -q >"$W/apt-update.log" 2>&1 ||
		{ cat "$W/apt-update.log" >&2; die "apt-get update failed"; }
	apt_updated=1
}
# The guest has no other userland: its busybox must need no library.
static_busybox() { [ -x /bin/busybox ] && LC_ALL=C ldd /bin/busybox 2>&1 |
	grep -q -e 'not a dynamic executable' -e 'statically linked'; }
need_tools() {
	local missing=()
	command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
	# A static busybox: the guest has no other userland.
	if ! static_busybox; then
		missing+=(busybox-static)
	fi
	{ command -v mke2fs && command -v debugfs; } >/dev/null 2>&1 || missing+=(e2fsprogs)
	[ ${#missing[@]} = 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		say "missing: ${missing[*]}; as root: apt-get install ${missing[*]}"
		exit 4
	fi
	apt_update
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>"$W/apt-install.log" 2>&1 ||
		{ tail -n 20 "$W/apt-install.log" >&2; die "apt-get install failed"; }
	static_busybox || die "/bin/busybox is not statically linked (package busybox-static)"
}

# The guest kernel: the version linux-image-amd64 points to, else the newest
# linux-image-*-amd64 apt offers; downloaded and unpacked, not installed.
kernel_pkg() {
	local p
	p=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$p" ] || p=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1)
	echo "$p"
}
fetch_kernel() {
	local pkg deb
	mkdir -p "$W/cache"
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ]; then
		apt_update
		pkg=$(kernel_pkg)
	fi
	deb=
	if [ -n "$pkg" ]; then
		deb=$(ls "$W/cache/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n 1)
		if [ -z "$deb" ]; then
			say "apt-get download $pkg"
			(cd "$W/cache" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >"$W/apt-download.log" \
				2>&1) ||
				{ apt_update; (cd "$W/cache" && apt-get download -q -o APT::Sandbox::User=root "$pkg" \
					>"$W/apt-download.log" 2>&1); } ||
				{ cat "$W/apt-download.log" >&2; die "apt-get download $pkg failed"; }
			deb=$(ls "$W/cache/${pkg}_"*.deb | sort -V | tail -n 1)
			# one kernel package in the cache: drop older ones
			for old in "$W"/cache/linux-image-*.deb; do [ "$old" = "$deb" ] || rm -f "$old"; done
		fi
	else
		# Offline, with the package an earlier run downloaded.
		deb=$(ls "$W"/cache/linux-image-*-amd64_*.deb 2>/dev/null | sort -V | tail -n 1)
		[ -n "$deb" ] ||
			die "no linux-image-*-amd64 package known to apt (apt-get update?) and none cached"
	fi
	# Unpacked for this run only (800 MB unpacked, 70 MB as a package): the initramfs
	# takes a few modules, the guest boots the kernel image copied beside it.
	KDIR=$W/kernel
	rm -rf "$KDIR"
	dpkg-deb -x "$deb" "$KDIR"
	VMLINUZ=$W/vmlinuz
	cp "$(ls "$KDIR"/boot/vmlinuz-* | head -n 1)" "$VMLINUZ"
	MODDIR=$(ls -d "$KDIR"/lib/modules/* | head -n 1)
	KVER=${MODDIR##*/}
	say "guest kernel $KVER (${deb##*/})"
}

# ---- the initramfs ---------------------------------------------------------------------
# A module's .ko by name (names use - and _ alike).
ko_of() { find "$MODDIR/kernel" -name "$1.ko" -o -name "$(echo "$1" | tr _ -).ko" \
	-o -name "$(echo "$1" | tr - _).ko" | head -n 1; }
# Load order: each module after what its modinfo 'depends=' names (read from the .ko itself:
# this kernel ships no modules.dep, and the host may have no modinfo).
MOD_ORDER=()
mod_add() {
	local m=$1 ko d
	for d in "${MOD_ORDER[@]}"; do [ "$d" = "$m" ] && return 0; done
	ko=$(ko_of "$m")
	[ -n "$ko" ] || return 1
	for d in $(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
		mod_add "$d" || die "module $m needs $d, not found under $MODDIR"
	done
	MOD_ORDER+=("$m")
	cp "$ko" "$INITRD_ROOT/modules/$m.ko"
}
build_initramfs() {
	INITRD_ROOT=$W/initramfs
	rm -rf "$INITRD_ROOT"
	mkdir -p "$INITRD_ROOT"/{bin,modules,affbench/bin,proc,sys,dev,etc,tmp,run,var/lib,mnt}
	cp /bin/busybox "$INITRD_ROOT/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$INITRD_ROOT/bin/$a"
	done
	ln -s bin "$INITRD_ROOT/sbin"
	cp "$TOP"/bin/cputestfs "$TOP"/bin/ddpar "$TOP"/bin/sqrtio "$TOP"/bin/fdget "$TOP"/bin/cpupair \
		"$TOP"/bin/harness \
		"$INITRD_ROOT/affbench/bin/"
	# Shared libraries and the dynamic loader, at the paths ldd names.
	# glibc dlopen()s libgcc_s for pthread_cancel (libfuse's worker pool uses it): ldd
	# does not list it, and without it every multi-threaded FUSE daemon aborts.
	local lib gcc_s
	gcc_s=$(ldconfig -p 2>/dev/null | awk '$1 == "libgcc_s.so.1" && /x86-64/ { print $NF; exit }')
	[ -n "$gcc_s" ] || gcc_s=$(gcc -print-file-name=libgcc_s.so.1 2>/dev/null)
	[ -f "$gcc_s" ] || die "libgcc_s.so.1 not found (package libgcc-s1)"
	for lib in $gcc_s $(for b in "$TOP"/bin/*; do ldd "$b"; done |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
		mkdir -p "$INITRD_ROOT$(dirname "$lib")"
		cp -L "$lib" "$INITRD_ROOT$lib"
	done
	# fuse (FUSE mounts), the virtio disk chain, ext4 (mounts the ext2 disks); crc32c for ext4's
	# softdep.
	MOD_ORDER=()
	for m in fuse virtio_pci virtio_blk crc32c_generic ext4; do
		mod_add "$m" || die "module $m not found under $MODDIR"
	done
	printf '%s\n' "${MOD_ORDER[@]}" >"$INITRD_ROOT/modules/order"
	cp "$HERE/init" "$INITRD_ROOT/init"
	cp "$HERE/suite.sh" "$INITRD_ROOT/suite.sh"
	chmod 755 "$INITRD_ROOT/init"
	echo 'root:x:0:0:root:/:/bin/sh' >"$INITRD_ROOT/etc/passwd"
	echo 'root:x:0:' >"$INITRD_ROOT/etc/group"
	ln -s /proc/self/mounts "$INITRD_ROOT/etc/mtab"
	(cd "$INITRD_ROOT" && find . | /bin/busybox cpio -o -H newc 2>/dev/null) |
		gzip -1 >"$W/initramfs.cpio.gz"
	say "initramfs: $(du -h "$W/initramfs.cpio.gz" | cut -f1), modules: ${MOD_ORDER[*]}"
}

# ---- one shape ----------------------------------------------------------------------------
# The machine matrix: one setting a user's machine may have, on a small guest (SUITE=matrix).
matrix_args() { # SHAPE -> CPU_EXTRA, APPEND_EXTRA, SHAPE_DESC
	case $1 in
	default) SHAPE_DESC="as booted by default" ;;
	cpuidle-off) APPEND_EXTRA=cpuidle.off=1 SHAPE_DESC="no cpuidle driver (cpuidle.off=1)" ;;
	idle-poll) APPEND_EXTRA=idle=poll SHAPE_DESC="idle=poll" ;;
	idle-halt) APPEND_EXTRA=idle=halt SHAPE_DESC="idle=halt" ;;
	mitigations-off) APPEND_EXTRA=mitigations=off SHAPE_DESC="mitigations=off" ;;
	# PTI forced on. TCG offers no PCID (CPUID has no pcid flag, +pcid is refused), so
	# every guest with PTI has the second kind of VM's "PTI without PCID".
	pti-on) APPEND_EXTRA=pti=on SHAPE_DESC="PTI forced on (pti=on)" ;;
	# CPUID level 2: no leaf 4, so the kernel has no cache leaves and sysfs no cache/.
	no-cache) CPU_EXTRA=,level=2 SHAPE_DESC="no cache topology in sysfs (CPUID level 2)" ;;
	esac
	SHAPE_DESC="2 CPUs, $SHAPE_DESC"
}

shape_args() { # SHAPE -> QEMU_SMP, CPUSET, OFFLINE, CPUS_ARG, SHAPE_DESC, SUITE, ...
	CPUSET= OFFLINE= SUITE=topology CPU_EXTRA= APPEND_EXTRA= QEMU_MEM=2G
	# CPUS_ARG: a cputestfs --cpus run with a list that spans cores, LLCs and nodes.
	CPUS_ARG=1,4-6,12
	# ddpar writes and reads (reads alone take 40 s more on B, where the harness plan reads)
	DDPAR_MODE=both
	case $1 in
	A|C)
		QEMU_SMP=(-smp 16,sockets=2,cores=4,threads=2
			-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G
			-numa node,nodeid=0,cpus=0-7,memdev=m0 -numa node,nodeid=1,cpus=8-15,memdev=m1)
		SHAPE_DESC="16 CPUs, 2 sockets x 4 cores x 2 threads, 2 NUMA nodes"
		if [ "$1" = C ]; then
			# CPU 3 is inside the allowed set and the SMT sibling of 2: the suite must
			# neither use it nor pair 2 with it (2 has no sibling left; 4-5 is the only pair).
			CPUSET=2-5,9 OFFLINE=3
			CPUS_ARG=2,4-5
			SHAPE_DESC="$SHAPE_DESC; suite under taskset -c $CPUSET, cpu$OFFLINE offline"
		fi
		;;
	B)
		QEMU_SMP=(-smp 72,sockets=1,cores=36,threads=2)
		SHAPE_DESC="72 CPUs, 1 socket x 36 cores x 2 threads, 1 NUMA node"
		CPUS_ARG=1,4-6,64-66	# above 63: masks wider than one word
		DDPAR_MODE=write
		;;
	*)
		QEMU_SMP=(-smp 2)
		QEMU_MEM=1G SUITE=matrix CPUS_ARG=
		matrix_args "$1"
		;;
	esac
}

run_shape() {
	local s=$1 d=$W/$1 t0 t1 rc=0
	shape_args "$s"
	rm -rf "$d"
	mkdir -p "$d/disk/out" "$d/sq"
	# The sqrtio files: real data (no holes; mke2fs -d keeps zero blocks as holes).
	head -c $((8 << 20)) /dev/urandom >"$d/disk/sqrtio.dat"
	cp "$d/disk/sqrtio.dat" "$d/sq/sqrtio.dat"
	if [ "$SUITE" = matrix ]; then
		cp "$HERE/matrix.plan" "$d/disk/guest.plan"
	else
		cp "$HERE/guest.plan" "$d/disk/guest.plan"
	fi
	cat >"$d/disk/config" <<-EOF
		SHAPE=$s
		SHAPE_DESC="$SHAPE_DESC"
		SUITE=$SUITE
		CPUSET=$CPUSET
		OFFLINE=$OFFLINE
		CPUS_ARG=$CPUS_ARG
		DUR=${TOPO_DUR:-0.3}
		FDGET_DUR=0.05
		DDPAR_MODE=$DDPAR_MODE
		T_STEP=420
	EOF
	mke2fs -q -F -t ext2 -L affbench-out -d "$d/disk" "$d/disk.img" 128M >/dev/null
	mke2fs -q -F -t ext2 -L affbench-sq -d "$d/sq" "$d/sq.img" 16M >/dev/null
	rm -rf "$d/disk" "$d/sq"
	local kargs="console=ttyS0 panic=-1 loglevel=7 earlyprintk=serial,ttyS0,115200"
	QEMU_CMD=(qemu-system-x86_64 -accel tcg,thread=multi -m "$QEMU_MEM" -nographic -no-reboot -nic none
		-cpu "max,vendor=GenuineIntel$CPU_EXTRA" "${QEMU_SMP[@]}"
		-kernel "$VMLINUZ" -initrd "$W/initramfs.cpio.gz"
		-append "$kargs${APPEND_EXTRA:+ $APPEND_EXTRA}"
		-drive "file=$d/disk.img,format=raw,if=none,id=out"
		-device virtio-blk-pci,drive=out
		-drive "file=$d/sq.img,format=raw,if=none,id=sq"
		-device virtio-blk-pci,drive=sq,num-queues=1)
	BOOT_NOTE=
	local try stalled
	for try in $(seq 1 "$BOOT_TRIES"); do
		say "shape $s: $SHAPE_DESC: booting (limit ${SHAPE_TIMEOUT} s;" \
			"a boot silent for ${BOOT_STALL} s or not at /init in ${BOOT_LIMIT} s is stalled;" \
			"attempt $try of $BOOT_TRIES)"
		rc=0
		t0=$(date +%s.%N)
		boot_guest "$d/console.log" "${QEMU_CMD[@]}" || rc=$?
		t1=$(date +%s.%N)
		SHAPE_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
		# 125 from the watchdog, which says why; timeout(1) failing itself says nothing
		stalled=no
		[ "$rc" = 125 ] && [ -n "$BOOT_WHY" ] && stalled=yes
		[ "$stalled" = yes ] || break
		# The guest never reached /init, so nothing of the suite ran and the disks are
		# untouched: booting again is safe. Its console is kept for whoever looks into it.
		cp "$d/console.log" "$d/console.boot$try.log"
		BOOT_NOTE="${BOOT_NOTE}attempt $try stalled before /init ($BOOT_WHY); "
		say "shape $s: the boot stalled before /init: $BOOT_WHY" \
			"(attempt $try of $BOOT_TRIES; console kept as console.boot$try.log:" \
			"$(tail -c 300 "$d/console.log" | tr -c '[:print:]' ' ' | tail -c 120))"
	done
	[ "$rc" = 0 ] || say "shape $s: qemu exit $rc after $SHAPE_SECS s$(
		)$([ "$rc" = 124 ] && echo ' (time limit)')$(
		)$([ "$stalled" = yes ] && echo " (stalled before /init in $BOOT_TRIES attempts)")"
	# Results back without a loop mount.
	rm -rf "$d/result"
	debugfs -R "rdump /out $d" "$d/disk.img" >"$d/debugfs.log" 2>&1 || true
	[ -d "$d/out" ] && mv "$d/out" "$d/result"
	mkdir -p "$d/result"
	cp "$d/console.log" "$d/result/console.log"
	for f in "$d"/console.boot*.log; do [ -e "$f" ] && mv "$f" "$d/result/"; done
	echo "${BOOT_NOTE%; }" >"$d/result/boot_note"
	printf '%s\n' "${QEMU_CMD[*]}" >"$d/result/qemu.cmd"
	echo "$SHAPE_SECS" >"$d/result/wall_secs"
	write_emulated "$s" "$d/result"
	[ -d "$d/result/harness" ] && write_emulated "$s" "$d/result/harness"
	[ "$keep" = 1 ] || rm -f "$d/disk.img" "$d/sq.img"
	return 0
}

write_emulated() { # SHAPE DIR
	cat >"$2/EMULATED" <<-EOF
		EMULATED MACHINE: these results come from a QEMU TCG guest (no KVM), not hardware.
		Shape $1: $SHAPE_DESC.
		Guest CPUs are emulated 20-50x slower than the host's, and only about as many run at
		once as the host has CPUs: the numbers are not measurements. They show behaviour:
		which placements resolved to which CPUs, what skipped and why, that nothing failed
		and nothing was left changed.
		Host: $(uname -n), $(nproc) CPUs, $(qemu-system-x86_64 --version | head -n 1).
		Guest kernel: $KVER. Made by tests/topology/check-topology.sh on $(date -u '+%Y-%m-%d %H:%M UTC'):
		  ${QEMU_CMD[*]}
	EOF
}

# The harness run's records, as results/ keeps them (results/README.md): no renders
# (harness report makes them again), and a point's log only when runs.csv does not say
# that the point ended ok.
save_records() { # RUN_DIR DEST
	local f
	for f in raw.csv hist.csv machine.txt plan.plan runs.csv failures.csv EMULATED; do
		[ -f "$1/$f" ] && cp -a "$1/$f" "$2/"
	done
	[ -d "$1/log" ] || return 0
	awk -F, 'NR > 1 && $4 == "ok" { print $1 "-p" $2 "-r" $3 ".log" }' "$1/runs.csv" \
		>"$2/.ok" 2>/dev/null || :
	mkdir -p "$2/log"
	for f in "$1"/log/*-p*-r*.log; do
		[ -f "$f" ] && ! grep -qxF "${f##*/}" "$2/.ok" && cp -a "$f" "$2/log/"
	done
	rm -f "$2/.ok"
	rmdir "$2/log" 2>/dev/null || true
}

# ---- main --------------------------------------------------------------------------------
mkdir -p "$W"
T_ALL0=$(date +%s)
say "checker self-test (no guest)"
if sh "$HERE/selftest.sh" >"$W/selftest.log" 2>&1; then
	say "$(tail -n 1 "$W/selftest.log")"
else
	grep -v '^ok ' "$W/selftest.log" >&2
	die "the checker's self-test failed: a broken placement would not be caught"
fi
need_tools
[ -x bin/cputestfs ] && [ -x bin/harness ] ||
	die "bin/ is not built: run make all (make check-topology does)"
fetch_kernel
build_initramfs
rm -rf "$KDIR"	# the unpacked package is not needed after this

failed=""
summary=""
for s in $SHAPES; do
	run_shape "$s"
	r=$W/$s/result
	echo
	echo "=================== shape $s: $SHAPE_DESC ==================="
	if sh "$HERE/check-run.sh" "$r" | tee "$r/check.txt"; [ "${PIPESTATUS[0]}" = 0 ]; then
		res=PASS
	else
		res=FAIL
		failed="$failed $s"
	fi
	boot=$(sed -n 's/.*guest: booted in \([0-9.]*\) s.*/\1/p' "$r/console.log" | head -n 1)
	ready=$(sed -n 's/.*guest: suite starts at \([0-9.]*\) s.*/\1/p' "$r/console.log" | head -n 1)
	suite=$(sed -n 's/.*guest: suite ended at \([0-9.]*\) s.*/\1/p' "$r/console.log" | head -n 1)
	summary="${summary}shape $s: $res, ${SHAPE_SECS} s from QEMU start to poweroff "
	summary+="(guest clock: /init at ${boot:-?} s, suite from ${ready:-?} to ${suite:-?} s)"$'\n'
	[ -z "$BOOT_NOTE" ] || summary="${summary}  (boot retried: ${BOOT_NOTE%; })"$'\n'
	[ "$SHAPE_SECS" -le 600 ] ||
		summary="${summary}  (over the 10-minute budget per shape: a loaded host, or the suite grew)"$'\n'
	if [ -n "$save" ] && [ -d "$r/harness" ]; then
		rm -rf "${save:?}/$s"
		mkdir -p "$save/$s"
		save_records "$r/harness" "$save/$s"
		# Beside the harness run directory, what the guest ran alone and what the checker read:
		# result.pack holds the snapshot and every file it checks (selftest.sh --unpack to re-check).
		mkdir -p "$save/$s/topology"
		sh "$HERE/selftest.sh" --pack "$r" >"$save/$s/topology/result.pack"
		for f in direct state guest.log console.log qemu.cmd check.txt facts.txt wall_secs EMULATED; do
			[ -e "$r/$f" ] && cp -a "$r/$f" "$save/$s/topology/"
		done
		say "shape $s: run directory copied to $save/$s"
	fi
done
echo
printf '%s' "$summary"
echo "all shapes: $(( $(date +%s) - T_ALL0 )) s"
if [ -n "$failed" ]; then
	echo "check-topology: FAILED:$failed (see build/topology/<shape>/result/check.txt)"
	exit 1
fi
echo "check-topology: all checks passed"
