#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tree others can take: a LICENSE file (GPL-2.0, which the BPF programs must
# declare and the rest follows), and an SPDX line within the first two lines of
# every source file, script and Makefile the project tracks (fixtures, whose line
# numbers tests read, and the committed runs' records aside).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
check "LICENSE exists" [ -s LICENSE ]
check "LICENSE is the GPL, version 2" grep -q "^ *Version 2, June 1991" LICENSE
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "an SPDX line in every source file" "not a git checkout: the tracked files are unknown"
	t_done
fi
missing=$(git ls-files | grep -v -e '^results/' -e '^tests/fixtures/' -e '^contrib/lkp/jobs/' |
	grep -E '\.(c|h|sh|py|awk)$|(^|/)Makefile$|^\.ci/run$|^tests/topology/init$' |
	while read -r f; do head -n 2 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0' || echo "$f"; done)
n=$(git ls-files | grep -cE '\.(c|h)$')
check "the project tracks C sources to check ($n)" [ "$n" -gt 100 ]
shown=$(echo $missing | cut -c1-200)
check "every source file, script and Makefile has an SPDX line (missing: $shown)" \
	[ -z "$missing" ]
t_done
