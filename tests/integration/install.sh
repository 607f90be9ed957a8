#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install with a DESTDIR that holds a space, a ';' and a quote: each is part
# of the path, never a second word or a second command. Once, a space installed
# into ./<second word>/usr/bin inside the checkout, and DESTDIR='...;touch X;' ran
# the touch. The files land under DESTDIR$PREFIX. (~5 s once build/install is
# built, as security.sh builds it; the first time builds it: a few minutes.)
. "$(dirname "$0")/lib.sh"

D=$(mktemp -d "$AFFBENCH_WORKDIR/install.XXXXXX")
stray=affbench-install-test.$$	# the word after a space, were it a word of its own
trap 'rm -rf "$D" "${TOP:?}/$stray"' EXIT

i=0
for dest in "$D/dest $stray" "$D/x;touch $D/INJECTED;" "$D/it's"; do
	i=$((i + 1))
	q=$(printf %q "$dest")
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >"$D/out.$i" 2>&1
	rc=$?
	check "make install DESTDIR=$q exits 0 (rc $rc: $(tail -n1 "$D/out.$i"))" [ "$rc" = 0 ]
	check "DESTDIR=$q: the programs in DESTDIR/usr/bin" test -x "$dest/usr/bin/harness"
	check "DESTDIR=$q: the plans in DESTDIR/usr/share/affbench/plans" \
		test -s "$dest/usr/share/affbench/plans/default.plan"
	check "DESTDIR=$q: the man pages in DESTDIR/usr/share/man" \
		test -s "$dest/usr/share/man/man1/harness.1" -a -s "$dest/usr/share/man/man7/affbench.7"
done
check "a ';' in DESTDIR ran no command (no $D/INJECTED)" test ! -e "$D/INJECTED"
check "a space in DESTDIR installed nothing into the checkout (no $stray/)" \
	test ! -e "$TOP/$stray"
t_done
