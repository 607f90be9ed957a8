#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Check that what affbench needs to build, test and plot is installed.
# As root, install what is missing with apt-get (non-interactively);
# otherwise print the exact command and exit 4 (the suite's "skip" code).
#
#   scripts/deps.sh           build + test + plot dependencies
#   scripts/deps.sh --check   only report, never install
#
# The kernel-statistics packages are optional: without them lib/kstats builds
# as a stub that says why, so a failure to get them is a warning, not an exit.
set -u

# command-or-file : Debian package
need="
gcc:gcc
/usr/include/stdio.h:libc6-dev
make:make
valgrind:valgrind
ruby:ruby
pkg-config:pkg-config
/usr/include/fuse3/fuse_lowlevel.h:libfuse3-dev
fusermount3:fuse3
/usr/include/liburing.h:liburing-dev
/usr/include/cmocka.h:libcmocka-dev
gnuplot:gnuplot-nox
/usr/lib/python3/dist-packages/jsonschema/__init__.py:python3-jsonschema
man:man-db
groff:groff-base
"
optional="
clang:clang
llvm-strip:llvm
/usr/include/bpf/libbpf.h:libbpf-dev
bpftool:bpftool
"

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# missing LIST: the packages of LIST whose command or file is absent
missing() {
	out=""
	for item in $1; do
		what=${item%%:*}
		pkg=${item#*:}
		case $what in
		/*) [ -e "$what" ] && continue ;;
		*) command -v "$what" >/dev/null 2>&1 && continue
		   [ -x "/usr/sbin/$what" ] && continue ;;
		esac
		out="$out $pkg"
	done
	echo "$out"
}

# install PKGS: apt-get, refreshing the package list once if it is old or empty
# shellcheck disable=SC2086 # PKGS is a list of words on purpose
install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends $1 >&2 && return 0
	apt-get update -q >&2 || true
	apt-get install -y -q --no-install-recommends $1 >&2
}

req=$(missing "$need")
opt=$(missing "$optional")
[ -z "$req$opt" ] && exit 0

can_install=1
if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	can_install=0
fi

if [ -n "$req" ]; then
	if [ "$can_install" = 0 ]; then
		echo "affbench: missing packages:$req; install them with:" \
			"sudo apt-get install -y --no-install-recommends$req$opt" >&2
		exit 4
	fi
	echo "affbench: installing$req" >&2
	if ! install "$req"; then
		echo "affbench: could not install:$req (try: apt-get install$req)" >&2
		exit 4
	fi
fi

if [ -n "$opt" ]; then
	if [ "$can_install" = 1 ]; then
		echo "affbench: installing$opt (kernel statistics)" >&2
		install "$opt" && exit 0
	fi
	echo "affbench: warning: without$opt, kernel statistics (--kstats) are unavailable;" \
		"to get them: sudo apt-get install -y --no-install-recommends$opt" >&2
fi
exit 0
