#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tree others can take: no line of a tracked source file, script or Makefile
# is over 100 columns: characters, a tab counting as one (as `awk length` counts
# it; a UTF-8 character is one, as in an editor).
# The files are those licence.sh walks for SPDX lines, and contrib/lkp's
# scripts; fixtures, whose line numbers tests read, and the committed runs aside.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "no tracked source line is over 100 columns" \
		"not a git checkout: the tracked files are unknown"
	t_done
fi
files=$(git ls-files | grep -v -e '^results/' -e '^tests/fixtures/' -e '^contrib/lkp/jobs/' |
	grep -E -e '\.(c|h|sh|py|awk)$|(^|/)Makefile$|^\.ci/run$|^tests/topology/init$' \
		-e '^contrib/lkp/programs/.*/(run|parse|PKGBUILD)$')
n=$(printf '%s\n' "$files" | grep -c .)
check "the project tracks sources to check ($n)" [ "$n" -gt 100 ]
long=$(printf '%s\n' "$files" | tr '\n' '\0' |
	xargs -0 env LC_ALL=C.UTF-8 grep -Hn -E '^.{101}' | cut -d: -f1,2)
count=$(printf '%s' "$long" | grep -c .)
first=$(printf '%s\n' "$long" | head -n 1)
check "no tracked source line is over 100 columns ($count are; the first: $first)" \
	[ -z "$long" ]
t_done
