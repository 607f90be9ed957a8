#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Comments that stay true (tests/integration/comments.sh).

  comment_paths.py paths ROOT   every repository path a comment names exists
  comment_paths.py maps ROOT    every header's file map lists its folder's files

ROOT's files are git's tracked files when ROOT is a git checkout, else every file
below it (the self-test's fixtures). One line per finding, "FILE:LINE: ..." naming
the file and the path, and exit 1 when there is one; exit 0 when there is none.

paths: the comments of C sources and headers (/* */ and //), of shell, awk and
Python scripts and Makefiles (from a # that starts a word), and every line of the
markdown documents. A path is a word that starts with a top folder of the tree
(lib/, harness/, tests/, scripts/, contrib/, docs/, or a benchmark's folder from
harness/registry.def). It exists when it is a tracked file or folder, or a module
named without its .c or .h (lib/sys/outfile). A glob (report*.c) must match one; a
placeholder (<bench>/, NAME/, $DIR/, {a,b}) is not a path. Not read: tests/fixtures/
(inputs, some stale on purpose) and results/ (records).

maps: a header whose first comment lists two or more files of its folder, one a
line ("  main.c     options ..."), has a file map. Every .c and .h of its folder
(itself aside) must match a name the map gives (report*.c matches report_pub.c),
and every name it gives without a folder must be one of them, or a file of the
folder above (the header a part's header includes, ../harness.h).
"""
import fnmatch
import os
import re
import subprocess
import sys

SKIP_PREFIXES = ("tests/fixtures/", "results/")
# The words that stand for a name in a path (tests/integration/NAME.sh).
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(NAME|BENCH|DIR|FILE|PATH)(?![a-z])")
# Paths gone from the tree that a file names on purpose: scripts/loc.sh measures
# older revisions too, whose lib/ had a report/ part (now lib/record and lib/render).
HISTORY = {("scripts/loc.sh", "lib/report/")}


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        files = [f for f in out.split("\0") if f and os.path.isfile(os.path.join(root, f))]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, subdirs, names in os.walk(root):
        subdirs[:] = [s for s in subdirs if s != ".git"]
        for n in names:
            files.append(os.path.relpath(os.path.join(d, n), root))
    return files


def c_comments(text):
    """(line, text) of each comment line of C source, string literals skipped."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i:j]))
            i = j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i:j].split("\n")):
                out.append((line + k, part))
            line += text[i:j].count("\n")
            i = j
            continue
        i += 1
    return out


HASH = re.compile(r"(?:^|(?<=\s))#(?![!{])")


def hash_comments(text):
    """(line, text) of the # comments of a shell, awk or Python script or a Makefile."""
    out = []
    for ln, s in enumerate(text.split("\n"), 1):
        m = HASH.search(s)
        if m and s[:m.start()].count("'") % 2 == 0 and s[:m.start()].count('"') % 2 == 0:
            out.append((ln, s[m.start():]))
    return out


def is_script(path, text):
    base = os.path.basename(path)
    if base == "Makefile" or re.search(r"\.(sh|awk|py|bash)$", path):
        return True
    return "." not in base and re.match(r"#!.*\b(ba|da)?sh\b", text) is not None


def comments(path, text):
    if re.search(r"\.[ch]$", path):
        return c_comments(text)
    if path.endswith(".md"):
        return list(enumerate(text.split("\n"), 1))
    if is_script(path, text):
        return hash_comments(text)
    return []


def benches(root):
    try:
        with open(os.path.join(root, "harness/registry.def")) as f:
            return re.findall(r"^AB_BENCH\(([a-z][a-z0-9_]*)\)", f.read(), re.M)
    except OSError:
        return []


def placeholder(p):
    return re.search(r"[<>{}$]|\.\.\.", p) is not None or PLACEHOLDER.search(p) is not None


def exists(p, files, dirs):
    p = p.rstrip("/")
    if any(ch in p for ch in "*?["):
        return any(fnmatch.fnmatchcase(f, p) for f in files) or \
            any(fnmatch.fnmatchcase(d, p) for d in dirs)
    return p in files or p in dirs or p + ".c" in files or p + ".h" in files


def check_paths(root):
    files = tracked(root)
    fileset = set(files)
    dirs = {os.path.dirname(f) for f in files}
    for d in list(dirs):
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    tops = ["lib", "harness", "tests", "scripts", "contrib", "docs"] + benches(root)
    word = re.compile(r"(?<![\w./$-])((?:%s)/[\w.*?<>{}$/+-]*)" % "|".join(map(re.escape, tops)))
    bad = 0
    for f in sorted(files):
        if f.startswith(SKIP_PREFIXES):
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for ln, s in comments(f, text):
            for m in word.finditer(s):
                p = m.group(1).rstrip(".,:;'\"`)")
                if placeholder(p) or (f, p) in HISTORY or exists(p, fileset, dirs):
                    continue
                print("%s:%d: names %s, which does not exist" % (f, ln, p))
                bad += 1
    return bad


ENTRY = re.compile(r"^\s*\*\s{2,}([\w*]+\.[ch])(?:\s{2,}|\s*$)")
NAME = re.compile(r"(?<![\w/.*-])([\w*]+\.[ch])\b")


def first_comment(text):
    """The lines of a header's first /* */ comment after its SPDX line, with their numbers."""
    for ln, s in enumerate(text.split("\n"), 1):
        if s.startswith("/*") and "SPDX" not in s:
            block = []
            for k, t in enumerate(text.split("\n")[ln - 1:], ln):
                block.append((k, t))
                if "*/" in t:
                    return block
            return block
        if s and not s.startswith(("/*", "//")):
            return []
    return []


def check_maps(root):
    files = tracked(root)
    bad = 0
    for h in sorted(f for f in files if f.endswith(".h") and not f.startswith(SKIP_PREFIXES)):
        with open(os.path.join(root, h), encoding="utf-8", errors="replace") as fh:
            block = first_comment(fh.read())
        if sum(1 for _, s in block if ENTRY.match(s)) < 2:
            continue
        folder = os.path.dirname(h)
        mine = sorted(f for f in files if os.path.dirname(f) == folder and f != h and
                      re.search(r"\.[ch]$", f))
        names = {}
        for ln, s in block:
            for m in NAME.finditer(s):
                names.setdefault(m.group(1), ln)
        base = [os.path.basename(f) for f in mine]
        above = {os.path.basename(f) for f in files
                 if os.path.dirname(f) == os.path.dirname(folder)}
        for b in base:
            if not any(fnmatch.fnmatchcase(b, n) for n in names):
                print("%s: its file map lists no %s/%s" % (h, folder, b))
                bad += 1
        for n, ln in sorted(names.items()):
            if any(fnmatch.fnmatchcase(b, n) for b in base) or n == os.path.basename(h) or \
                    n in above:
                continue
            print("%s:%d: its file map lists %s, which is not a file of %s/" % (h, ln, n, folder))
            bad += 1
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("paths", "maps"):
        print("usage: comment_paths.py paths|maps ROOT", file=sys.stderr)
        return 2
    bad = (check_paths if sys.argv[1] == "paths" else check_maps)(sys.argv[2])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
