#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Comments that stay true (tests/tools/comment_paths.py): no comment of a C
# source, script, Makefile or document names a repository path that does not
# exist, and every header's file map lists exactly the files of its folder. The
# self-test first, on tests/fixtures/comments/: a tree with stale paths in each
# kind of file, paths that hold (a glob, a module, placeholders) and a map that
# misses a file and lists a removed one; each must be reported, and only those. (~2 s)
. "$(dirname "$0")/lib.sh"
TOOL=$TOP/tests/tools/comment_paths.py
FIX=$TOP/tests/fixtures/comments

if ! command -v python3 >/dev/null; then
	skip "comments" "python3 not installed (scripts/deps.sh installs it)"
	t_done
fi
W=$(mktemp -d "$AFFBENCH_WORKDIR/comments.XXXXXX")

python3 "$TOOL" paths "$FIX" >"$W/fix-paths"
rc=$?
check "self-test: stale paths fail the paths check (exit $rc)" [ "$rc" = 1 ]
while IFS= read -r want; do
	check "self-test: reported: $want" grep -qxF "$want" "$W/fix-paths"
done <<'EOF_WANT'
demo/main.c:4: names lib/nosuch/thing.c, which does not exist
demo/main.c:4: names lib/gone, which does not exist
demo/main.c:6: names demo/missing.h, which does not exist
docs/x.md:1: names tests/integration/stale.sh, which does not exist
script.sh:2: names scripts/gone.sh, which does not exist
script.sh:3: names harness/missing/, which does not exist
EOF_WANT
n=$(wc -l <"$W/fix-paths")
check "self-test: nothing else is reported (globs, modules, placeholders, code: $n lines)" \
	[ "$n" = 6 ]
python3 "$TOOL" maps "$FIX" >"$W/fix-maps"
rc=$?
check "self-test: a wrong file map fails the maps check (exit $rc)" [ "$rc" = 1 ]
check "self-test: the map's missing file is reported" \
	grep -qxF "demo/demo.h: its file map lists no demo/extra.c" "$W/fix-maps"
check "self-test: the map's removed file is reported" \
	grep -qxF "demo/demo.h:6: its file map lists gone.c, which is not a file of demo/" "$W/fix-maps"
n=$(wc -l <"$W/fix-maps")
check "self-test: nothing else is reported ($n lines)" [ "$n" = 2 ]

# The tree itself: its tracked files (every file when it is no git checkout).
# Each finding names the file, its line and the path.
python3 "$TOOL" paths "$TOP" >"$W/paths"
rc=$?
sed 's/^/# /' "$W/paths"
check "no comment names a path that does not exist (exit $rc: $(head -n 5 "$W/paths" | xargs))" \
	[ "$rc" = 0 ]
python3 "$TOOL" maps "$TOP" >"$W/maps"
rc=$?
sed 's/^/# /' "$W/maps"
check "every header's file map lists its folder's files $(
	)(exit $rc: $(head -n 5 "$W/maps" | xargs))" \
	[ "$rc" = 0 ]
t_done
