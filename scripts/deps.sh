#!/bin/sh
# Check that what affbench needs to build, test and plot is installed.
# As root, install what is missing with apt-get (non-interactively);
# otherwise print the exact command and exit 4 (the suite's "skip" code).
#
#   scripts/deps.sh           build + test + plot dependencies
#   scripts/deps.sh --check   only report, never install
set -u

# command-or-file : Debian package (clang, llvm, libbpf-dev and bpftool build
# lib/kstats; without them it builds as a stub that says why)
need="
gcc:gcc
/usr/include/stdio.h:libc6-dev
make:make
pkg-config:pkg-config
/usr/include/fuse3/fuse_lowlevel.h:libfuse3-dev
fusermount3:fuse3
/usr/include/cmocka.h:libcmocka-dev
gnuplot:gnuplot-nox
clang:clang
llvm-strip:llvm
/usr/include/bpf/libbpf.h:libbpf-dev
bpftool:bpftool
"

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

missing=""
for item in $need; do
	what=${item%%:*}
	pkg=${item#*:}
	case $what in
	/*) [ -e "$what" ] && continue ;;
	*) command -v "$what" >/dev/null 2>&1 && continue
	   [ -x "/usr/sbin/$what" ] && continue ;;
	esac
	missing="$missing $pkg"
done

[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "affbench: missing packages:$missing; install them with: sudo $cmd" >&2
	exit 4
fi

echo "affbench: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# An old or empty package list makes apt-get fail to find packages: refresh once.
if ! apt-get install -y -q --no-install-recommends $missing >&2; then
	apt-get update -q >&2 || true
	apt-get install -y -q --no-install-recommends $missing >&2 || {
		echo "affbench: could not install:$missing (try: $cmd)" >&2
		exit 4
	}
fi
exit 0
